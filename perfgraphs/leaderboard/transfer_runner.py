"""Leave-one-platform-out runs: a transfer predictor over every held-out platform, K and draw of
:mod:`perfgraphs.evaluation.platform_transfer`, scored with the registry's Evaluator, summarised
per platform and over platforms with 95 % intervals over the draws, and written as result tables
(``benchmarks/results/``) and leaderboard records."""

from __future__ import annotations

import hashlib
import json
import time
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from perfgraphs.errors import PerfgraphsError
from perfgraphs.evaluation.platform_transfer import (PROTOCOL, PlatformTable, check_draw, interval95,
                                                     load_platform_table, score_task, transfer_task)
from perfgraphs.registry import Dataset, Task

METRICS = ("mape_pct", "acc_10_pct", "kendall_tau")


@dataclass(frozen=True)
class TransferSpec:
    board: Task  # the multi-platform config and its base target (one column per platform)
    baseline: str
    variant: str = "known-models"
    shots: tuple[int, ...] = (32,)
    draws: tuple[int, ...] = (0, 1, 2, 3, 4)
    platforms: tuple[str, ...] = ()  # () = every platform of the committed order the build labels

    def names(self) -> dict:
        """The spec with its board by name: what its identity hashes and a kept run stores."""
        return {"dataset": self.board.dataset.name, "config": self.board.config.name,
                "target": self.board.target.name, "baseline": self.baseline, "variant": self.variant,
                "shots": self.shots, "draws": self.draws, "platforms": self.platforms}

    @property
    def identity(self) -> str:
        return hashlib.sha256(json.dumps(self.names(), sort_keys=True).encode()).hexdigest()[:16]


@dataclass
class TransferResult:
    spec: TransferSpec
    content_hash: str
    rows: list[dict] = field(default_factory=list)  # one per (platform, K, draw)
    fit_seconds: float = 0.0
    gpu_platforms: tuple[str, ...] = ()

    def summary(self) -> list[dict]:
        """Per (platform, K): mean and 95 % half-width over draws of each metric."""
        out = []
        keys = sorted({(r["platform"], r["shots"]) for r in self.rows}, key=lambda k: (k[1], self._order(k[0])))
        for platform, k in keys:
            chosen = [r for r in self.rows if (r["platform"], r["shots"]) == (platform, k)]
            row = {"platform": platform, "shots": k, "gpu": platform in self.gpu_platforms, "n_test": chosen[0]["n"],
                   "draws": len(chosen)}
            for m in METRICS:
                row[m], row[f"{m}_ci95"], _ = interval95([r[m] for r in chosen])
            out.append(row)
        return out

    def mean_over_platforms(self, shots: int, gpu_only: bool) -> dict:
        """Each draw's mean over the held-out platforms, then the mean and interval over draws."""
        rows = [r for r in self.rows if r["shots"] == shots and (r["platform"] in self.gpu_platforms or not gpu_only)]
        out = {"shots": shots, "platforms": "GPU" if gpu_only else "all",
               "n_platforms": len({r["platform"] for r in rows})}
        for m in METRICS:
            per_draw = [np.nanmean([r[m] for r in rows if r["draw"] == d]) for d in sorted({r["draw"] for r in rows})]
            out[m], out[f"{m}_ci95"], _ = interval95(per_draw)
        return out

    def _order(self, platform: str) -> int:
        names = list(dict.fromkeys(r["platform"] for r in self.rows))
        return names.index(platform)


def held_out_platforms(table: PlatformTable, dataset: Dataset, only: tuple[str, ...] = ()) -> list[str]:
    """The committed seed order of held-out platforms (few-shot-platform's), restricted to those
    the build labels; ``only`` picks some (unknown names refused)."""
    from perfgraphs.data.splits import platform_order

    order = [p for p in platform_order(dataset.name) if p in table.platform_names]
    order += [p for p in table.platform_names if p not in order]
    if only:
        unknown = [p for p in only if p not in table.platform_names]
        if unknown:
            raise PerfgraphsError(f"no platform {unknown[0]!r} in this build (platforms: {', '.join(order)})")
        order = [p for p in order if p in only]
    return order


def run_transfer(spec: TransferSpec, home: Path | None = None, table: PlatformTable | None = None,
                 content_hash: str = "", progress=None, done: list[dict] = ()) -> TransferResult:
    """Every (K, held-out platform, draw) of ``spec``, K outermost (a stopped run has finished its
    first K everywhere before it starts the next). ``done``: rows of an earlier run of this spec on
    this build, kept and not fitted again (a resumed run); ``progress``: called with each new row."""
    from perfgraphs.baselines.catalog import TRANSFER_BASELINES

    if spec.baseline not in TRANSFER_BASELINES:
        raise PerfgraphsError(f"unknown transfer baseline {spec.baseline!r} for {PROTOCOL} "
                              f"(available: {', '.join(sorted(TRANSFER_BASELINES))})")
    reference = TRANSFER_BASELINES[spec.baseline]
    if spec.variant not in reference.variants:
        raise PerfgraphsError(f"{spec.baseline} does not apply to the {spec.variant} variant "
                              f"(it needs: {', '.join(reference.variants)})")
    from perfgraphs.evaluation.platform_transfer import check_request

    for k in spec.shots:
        check_request(spec.variant, k)
    for d in spec.draws:
        check_draw(d)
    if table is None:
        table, manifest = load_platform_table(spec.board, home)
        content_hash = manifest.get("content_hash", "")
    platforms = held_out_platforms(table, spec.board.dataset, spec.platforms)
    # before any fitting; what a predictor reads does not depend on its seed
    check_descriptors(reference.make(0), table, platforms)
    result = TransferResult(spec, content_hash,
                            gpu_platforms=tuple(p.name for p in table.platforms if p.device_kind == "gpu"))
    wanted = {(p, k, d) for p in platforms for k in spec.shots for d in spec.draws}
    result.rows = [r for r in done if (r["platform"], r["shots"], r["draw"]) in wanted]
    finished = {(r["platform"], r["shots"], r["draw"]) for r in result.rows}
    for k in spec.shots:
        for platform in platforms:
            for draw in spec.draws:
                if (platform, k, draw) in finished:
                    continue
                task = transfer_task(table, platform, k, draw, spec.variant)
                t0 = time.perf_counter()
                predictor = reference.make(draw).fit(task.table, platform)
                pred = predictor.predict(task.table, task.test_rows)
                row = score_task(task, pred, spec.board)
                row["fit_seconds"] = time.perf_counter() - t0
                result.rows.append(row)
                if progress is not None:
                    progress(result.rows[-1])
    result.fit_seconds = float(sum(r.get("fit_seconds", 0.0) for r in result.rows))
    return result


def check_descriptors(predictor, table: PlatformTable, platforms: list[str]) -> None:
    """Before anything is fitted: every platform whose hardware descriptor the predictor reads
    with ``platforms`` held out has one (else :class:`UnknownHardwareError`, one line naming the
    device and the user's descriptor table)."""
    from perfgraphs.features.hardware import descriptor_of

    for platform in platforms:
        for record in predictor.descriptor_platforms(table, platform):
            descriptor_of(record)


def run_transfers(specs: list[TransferSpec], table: PlatformTable, content_hash: str = "",
                  on_result=None, notify=print, done_of=None, on_row=None) -> list[TransferResult]:
    """Several transfer predictors through the protocol on one table. One that needs a hardware
    descriptor a platform's device lacks is skipped with one line (``notify``) and the others run;
    :func:`run_transfer`, a run of one predictor, refuses instead. ``on_result``: called with each
    result as it is done; ``done_of(spec)``: the rows an earlier, stopped run of it kept;
    ``on_row(spec, rows)``: called with a spec's rows so far after each new one."""
    from perfgraphs.features.hardware import UnknownHardwareError

    results = []
    for spec in specs:
        done = done_of(spec) if done_of is not None else []
        partial = list(done)

        def progress(row, spec=spec, partial=partial):
            partial.append(row)
            if on_row is not None:
                on_row(spec, partial)
        try:
            result = run_transfer(spec, table=table, content_hash=content_hash, progress=progress, done=done)
        except UnknownHardwareError as exc:
            notify(f"skipping {spec.baseline} ({spec.variant}): {exc}")
            continue
        results.append(result)
        if on_result is not None:
            on_result(result)
    return results


# -- result tables -----------------------------------------------------------------------------------


def _fmt(mean: float, half: float, digits: int = 2) -> str:
    return f"{mean:.{digits}f} ± {half:.{digits}f}" if np.isfinite(mean) else "–"


def write_tables(results: list[TransferResult], out_dir: Path, stem: str, command: str) -> tuple[Path, Path]:
    """``<stem>.csv`` (one row per baseline × platform × K, and the means over platforms) and
    ``<stem>.md`` (the same as tables) in ``out_dir``."""
    import csv

    out_dir.mkdir(parents=True, exist_ok=True)
    csv_path, md_path = out_dir / f"{stem}.csv", out_dir / f"{stem}.md"
    fields = ["baseline", "variant", "shots", "platform", "gpu", "n_test", "draws"]
    fields += [f for m in METRICS for f in (m, f"{m}_ci95")]
    with open(csv_path, "w", newline="") as f:
        writer = csv.DictWriter(f, fieldnames=fields)
        writer.writeheader()
        for res in results:
            for row in res.summary():
                writer.writerow({"baseline": res.spec.baseline, "variant": res.spec.variant, **row})
            for k in res.spec.shots:
                for gpu_only in (True, False):
                    mean = res.mean_over_platforms(k, gpu_only)
                    writer.writerow({"baseline": res.spec.baseline, "variant": res.spec.variant, "shots": k,
                                     "platform": f"mean over {mean['platforms']} platforms ({mean['n_platforms']})",
                                     "gpu": gpu_only, "draws": len(res.spec.draws),
                                     **{k2: v for k2, v in mean.items() if k2 in fields}})
    first = results[0]
    board = first.spec.board
    lines = [f"# {board.dataset.name} {board.config.name}: {PROTOCOL}, target {board.target.name}", "",
             f"Build content hash `{first.content_hash[:8]}`. Each held-out platform in turn; K labelled "
             "architectures of it (whole structure groups), the rest of it tested; "
             f"{len(first.spec.draws)} draws of the K per (platform, K). Mean ± 95 % interval over the draws "
             "(1.96 standard errors); means over platforms: each draw's mean over the platforms, then over draws.",
             "", "```bash", command, "```", ""]
    for variant in dict.fromkeys(r.spec.variant for r in results):
        group = [r for r in results if r.spec.variant == variant]
        lines += [f"## {variant}", ""]
        shots = sorted({k for r in group for k in r.spec.shots})
        lines += ["### Mean over held-out platforms: MAPE % / Acc(10 %) % / Kendall τ", "",
                  "| baseline | platforms | " + " | ".join(f"K = {k}" for k in shots) + " |",
                  "|---|---|" + "---|" * len(shots)]
        for r in group:
            for gpu_only in (True, False):
                cells = []
                for k in shots:
                    if k not in r.spec.shots:
                        cells.append("–")
                        continue
                    m = r.mean_over_platforms(k, gpu_only)
                    cells.append(f"{_fmt(m['mape_pct'], m['mape_pct_ci95'])} / {m['acc_10_pct']:.1f} / "
                                 f"{m['kendall_tau']:.3f}")
                label = f"GPU ({r.mean_over_platforms(shots[0] if shots[0] in r.spec.shots else r.spec.shots[0], True)['n_platforms']})" \
                    if gpu_only else "all"
                lines.append(f"| {r.spec.baseline} | {label} | " + " | ".join(cells) + " |")
        lines.append("")
        for k in shots:
            present = [r for r in group if k in r.spec.shots]
            lines += [f"### Per platform, K = {k}: MAPE % (± 95 %), Acc(10 %) %, Kendall τ", "",
                      "| platform | n test | " + " | ".join(r.spec.baseline for r in present) + " |",
                      "|---|---|" + "---|" * len(present)]
            per = [{s["platform"]: s for s in r.summary() if s["shots"] == k} for r in present]
            for platform in per[0]:
                cells = [f"{_fmt(p[platform]['mape_pct'], p[platform]['mape_pct_ci95'])}, "
                         f"{p[platform]['acc_10_pct']:.1f}, {p[platform]['kendall_tau']:.3f}" for p in per]
                lines.append(f"| {platform} | {per[0][platform]['n_test']} | " + " | ".join(cells) + " |")
            lines.append("")
    lines += _against_the_rule(results)
    md_path.write_text("\n".join(lines))
    return csv_path, md_path


def _against_the_rule(results: list[TransferResult]) -> list[str]:
    """Per variant and K, each other baseline against the ratio rule on the GPU platforms: the mean
    over them, and the platforms where it is worse than the rule beyond the rule's 95 % interval."""
    from perfgraphs.baselines.catalog import TRANSFER_BASELINES

    rule_name = next(t.name for t in TRANSFER_BASELINES.values() if t.comparison_rule)
    lines = []
    for variant in dict.fromkeys(r.spec.variant for r in results):
        rule = next((r for r in results if r.spec.variant == variant and r.spec.baseline == rule_name), None)
        if rule is None:
            continue
        for other in (r for r in results if r.spec.variant == variant and r.spec.baseline != rule_name):
            if not lines:
                lines += ["## Against the ratio rule (GPU platforms; worse = mean MAPE above the rule's mean + its "
                          "95 % half-width)", "", "| variant | baseline | K | mean MAPE (rule → it) | "
                          "worse than the rule on |", "|---|---|---|---|---|"]
            for k in sorted(set(rule.spec.shots) & set(other.spec.shots)):
                mine = {s["platform"]: s for s in other.summary() if s["shots"] == k and s["gpu"]}
                theirs = {s["platform"]: s for s in rule.summary() if s["shots"] == k and s["gpu"]}
                worse = [p for p in mine if p in theirs and mine[p]["mape_pct"] >
                         theirs[p]["mape_pct"] + theirs[p]["mape_pct_ci95"]]
                a, b = rule.mean_over_platforms(k, True), other.mean_over_platforms(k, True)
                lines.append(f"| {variant} | {other.spec.baseline} | {k} | {a['mape_pct']:.2f} → {b['mape_pct']:.2f} | "
                             f"{', '.join(worse) if worse else 'none'} |")
    return lines + [""] if lines else []


# -- leaderboard records --------------------------------------------------------------------------------


def to_entries(result: TransferResult) -> list:
    """One leaderboard record per K: its per-seed entries are the draws, each scored as the mean over
    the GPU platforms held out (the board's headline), with every platform's scores beside it."""
    from perfgraphs.data.manifest import source_commit
    from perfgraphs.leaderboard.records.results import Entry
    from perfgraphs.leaderboard.records.tiers import REPRODUCED  # public labels: reproduced, never verified
    from perfgraphs.tracking import environment_tags

    spec = result.spec
    ds = spec.board.dataset
    entries = []
    for k in spec.shots:
        per_seed = []
        for d in spec.draws:
            rows = [r for r in result.rows if r["shots"] == k and r["draw"] == d]
            gpu = [r for r in rows if r["platform"] in result.gpu_platforms]
            per_seed.append({"seed": d, "n": int(sum(r["n"] for r in gpu)),
                             **{m: float(np.nanmean([r[m] for r in gpu])) for m in ("mape_pct", "rmse", "acc_10_pct",
                                                                                      "kendall_tau")},
                             "per_platform": {r["platform"]: {m: r[m] for m in ("n", *METRICS)} for r in rows}})
        entries.append(Entry(
            method=spec.baseline, dataset=ds.name, dataset_version=ds.version,
            dataset_content_hash=result.content_hash, config=spec.board.config.name, target=spec.board.target.name,
            tier=REPRODUCED,
            division="closed", code_commit=source_commit(), per_seed=per_seed,
            fit_seconds=result.fit_seconds / max(len(result.rows), 1), predictions_per_second=None, num_params=None,
            hardware=environment_tags()["cpu"], run_identity=spec.identity,
            protocol=f"{PROTOCOL}/{spec.variant}/K{k}"))
    return entries
