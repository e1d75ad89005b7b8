"""Leave-one-platform-out result tables of the reference transfer predictors (issue 19).

Runs every registered transfer baseline (``perfgraphs.baselines.catalog.TRANSFER_BASELINES``) on every
variant it applies to, each held-out platform in turn (a predictor that needs a hardware descriptor
some platform's device lacks is skipped with one line saying so), and writes
``benchmarks/results/<dataset>-<config>-<target>-leave-one-platform-out.{csv,md}``; with
``--record``, one leaderboard record per (baseline, variant, K). Needs the built multi-platform
config (``PERFGRAPHS_EXTERNAL_DIR`` for timm's files).

    python -m benchmarks.platform_transfer --dataset nnlqp --config timm-platforms \\
        --target latency_per_sample_ms [--record]
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

RESULTS = Path(__file__).parent / "results"
BOARD_NAMES = ("dataset", "config", "target")  # a kept run's spec names its board (TransferSpec.names)
# (variant, K values): every K for the known-models variants, the two for unseen models
PLAN = (("known-models", (8, 16, 32, 64, 128)), ("known-models-other-devices", (32,)), ("unseen-models", (32, 128)))


def main(argv: list[str] | None = None) -> int:
    from perfgraphs.evaluation.platform_transfer import PROTOCOL, load_platform_table
    from perfgraphs.leaderboard.records.results import DuplicateEntryError, append_entry
    from perfgraphs.leaderboard.transfer_runner import (TransferResult, TransferSpec, run_transfers, to_entries,
                                                        write_tables)
    from perfgraphs.baselines.catalog import TRANSFER_BASELINES
    from perfgraphs.registry import task

    ap = argparse.ArgumentParser()
    ap.add_argument("--dataset", required=True)
    ap.add_argument("--config", required=True)
    ap.add_argument("--target", required=True)
    ap.add_argument("--draws", type=int, default=5)
    ap.add_argument("--baselines", nargs="+", default=list(TRANSFER_BASELINES))
    ap.add_argument("--record", action="store_true")
    ap.add_argument("--variants", nargs="+", default=[v for v, _ in PLAN], help="run only these variants")
    ap.add_argument("--work", default=None,
                    help="keep each run's scores as JSON here, and write the tables from every run kept there "
                         "(runs of several variants may then go in parallel processes); a run is kept after each "
                         "fit, so the same command resumes a stopped one, and a finished run is not fitted again")
    ap.add_argument("--tables-suffix", default="",
                    help="write the tables as <stem>-<suffix>.{csv,md} (a run of some baselines beside the "
                         "committed tables, which the runs in --work would otherwise replace)")
    args = ap.parse_args(argv)
    board = task(args.dataset, args.config, args.target)
    table, manifest = load_platform_table(board)
    work = Path(args.work) if args.work else None
    specs = [TransferSpec(board, baseline, variant, shots, tuple(range(args.draws)))
             for variant, shots in PLAN for baseline in args.baselines
             if variant in TRANSFER_BASELINES[baseline].variants and variant in args.variants]
    started = [time.time()]

    def notify(line: str) -> None:  # a predictor skipped: the next one's time starts now
        print(line, flush=True)
        started[0] = time.time()

    content_hash = manifest.get("content_hash", "")

    def kept_file(spec: TransferSpec) -> Path:
        return work / f"{spec.baseline}--{spec.variant}.json"

    def write_kept(spec: TransferSpec, rows: list[dict], complete: bool, res: TransferResult | None = None) -> None:
        work.mkdir(parents=True, exist_ok=True)
        doc = {"spec": spec.names(), "content_hash": content_hash, "complete": complete, "rows": rows,
               "fit_seconds": float(sum(r.get("fit_seconds", 0.0) for r in rows)),
               "gpu_platforms": list(res.gpu_platforms) if res is not None else []}
        tmp = kept_file(spec).with_suffix(".tmp")
        tmp.write_text(json.dumps(doc))
        tmp.replace(kept_file(spec))  # atomic: a stop mid-write keeps the previous state

    def done_of(spec: TransferSpec) -> list[dict]:
        """The rows a stopped run of this very spec on this build kept (none for another spec or build)."""
        if work is None or not kept_file(spec).is_file():
            return []
        doc = json.loads(kept_file(spec).read_text())
        same = doc.get("content_hash") == content_hash and doc["spec"] == json.loads(json.dumps(spec.names()))
        return doc["rows"] if same else []

    def keep(res: TransferResult) -> None:
        spec = res.spec
        if work is not None:
            write_kept(spec, res.rows, True, res)
        summary = "; ".join(f"K={k} GPU MAPE {res.mean_over_platforms(k, True)['mape_pct']:.2f}" for k in spec.shots)
        print(f"{spec.baseline} {spec.variant}: {summary} ({time.time() - started[0]:.0f} s)", flush=True)
        if args.record:
            for entry in to_entries(res):
                append_entry(entry)
        started[0] = time.time()

    def finished(spec: TransferSpec) -> bool:
        if work is None or not kept_file(spec).is_file():
            return False
        doc = json.loads(kept_file(spec).read_text())
        return bool(doc.get("complete", True)) and bool(done_of(spec))

    def from_kept(r: dict) -> TransferResult:
        return TransferResult(TransferSpec(board, **{k: tuple(v) if isinstance(v, list) else v
                                                     for k, v in r["spec"].items() if k not in BOARD_NAMES}),
                              r["content_hash"], r["rows"], r["fit_seconds"], tuple(r["gpu_platforms"]))

    todo = [s for s in specs if not finished(s)]
    for spec in specs:
        if spec not in todo:
            print(f"{spec.baseline} {spec.variant}: kept in {work}, not fitted again", flush=True)
            if args.record:  # a run finished by an earlier, unrecorded invocation
                for entry in to_entries(from_kept(json.loads(kept_file(spec).read_text()))):
                    try:
                        append_entry(entry)
                    except DuplicateEntryError:
                        print(f"{entry.method} {entry.protocol}: already recorded at this commit", flush=True)
    results = run_transfers(todo, table, content_hash, on_result=keep, notify=notify, done_of=done_of,
                            on_row=(lambda spec, rows: write_kept(spec, rows, False)) if work is not None else None)
    if work is not None:  # every finished run kept, in plan order
        kept = {p.stem: json.loads(p.read_text()) for p in work.glob("*.json")}
        for name, r in sorted(kept.items()):
            if not r.get("complete", True):
                print(f"{name}: {len(r['rows'])} fits kept, not finished: left out of the tables", flush=True)
        kept = {k: r for k, r in kept.items() if r.get("complete", True)}
        results = [from_kept(r) for variant, _ in PLAN for b in TRANSFER_BASELINES
                   if (r := kept.get(f"{b}--{variant}")) is not None]
    if not results:
        print("no finished run to write tables from", flush=True)
        return 0
    stem = f"{board.dataset.name.split('/')[-1]}-{board.config.name}-{args.target}-{PROTOCOL}"
    stem += f"-{args.tables_suffix}" if args.tables_suffix else ""
    command = ("python -m benchmarks.platform_transfer --dataset " + f"{args.dataset} --config {args.config} "
               f"--target {args.target} --draws {args.draws} --record --work WORK"
               + (f" --baselines {' '.join(args.baselines)} --variants {' '.join(args.variants)} "
                  f"--tables-suffix {args.tables_suffix}" if args.tables_suffix else "")
               + "  # one process per variant, or all in one")
    for path in write_tables(results, RESULTS, stem, command):
        print(f"wrote {path}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
