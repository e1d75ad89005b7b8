"""Low-rank transfer against the ratio rule on known models (issue 34).

The leave-one-platform-out protocol of ``benchmarks.platform_transfer`` (every platform held out
in turn, ``known-models``, 5 draws) for ``ratio-transfer``, ``profile-transfer`` and
``lowrank-transfer`` at K = 8, 32, 128, plus the rank the low-rank reference chose per held-out
platform and draw. Writes
``benchmarks/results/<dataset>-<config>-<target>-leave-one-platform-out-lowrank.{csv,md}`` (the
committed table of every reference is left as it is).

    python -m benchmarks.lowrank_transfer --dataset nnlqp --config timm-platforms --target latency_per_sample_ms
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

RESULTS = Path(__file__).parent / "results"
VARIANT = "known-models"
def _rules() -> tuple[str, ...]:
    """The other known-models references the low-rank one is compared with (the ratio rule and its
    profile-corrected form)."""
    from perfgraphs.baselines.catalog import PROFILE_TRANSFER, RATIO_TRANSFER

    return RATIO_TRANSFER.name, PROFILE_TRANSFER.name


def run_lowrank(spec, table, content_hash: str):
    """:func:`~perfgraphs.leaderboard.transfer_runner.run_transfer` for the low-rank reference,
    keeping each fit's chosen (anchor, rank, ridge strength)."""
    from perfgraphs.baselines.catalog import TRANSFER_BASELINES
    from perfgraphs.evaluation.platform_transfer import score_task, transfer_task
    from perfgraphs.leaderboard.transfer_runner import TransferResult, held_out_platforms

    result = TransferResult(spec, content_hash,
                            gpu_platforms=tuple(p.name for p in table.platforms if p.device_kind == "gpu"))
    chosen = []
    for platform in held_out_platforms(table, spec.board.dataset):
        for k in spec.shots:
            for draw in spec.draws:
                task = transfer_task(table, platform, k, draw, spec.variant)
                t0 = time.perf_counter()
                model = TRANSFER_BASELINES[spec.baseline].make(draw).fit(task.table, platform)
                pred = model.predict(task.table, task.test_rows)
                result.fit_seconds += time.perf_counter() - t0
                result.rows.append(score_task(task, pred, spec.board))
                chosen.append({"platform": platform, "shots": k, "draw": draw, "rank": model.rank_,
                               "alpha": model.alpha_, "anchor": model.anchor_})
    return result, chosen


def ranks_section(result, chosen: list[dict]) -> list[str]:
    lines = ["## Ranks lowrank-transfer chose (draws 0-4, by the shots' leave-one-out; 0 = the ratio rule)", "",
             "| platform | " + " | ".join(f"K = {k}" for k in result.spec.shots) + " |",
             "|---|" + "---|" * len(result.spec.shots)]
    for platform in dict.fromkeys(c["platform"] for c in chosen):
        cells = [", ".join(str(c["rank"]) for c in chosen if c["platform"] == platform and c["shots"] == k)
                 for k in result.spec.shots]
        lines.append(f"| {platform} | " + " | ".join(cells) + " |")
    return lines + [""]


def unseen_draws_section(results, draws: tuple[int, ...]) -> list[str]:
    """The GPU means over the draws the design was not chosen on (it was chosen on draws 0-1, K = 32)."""
    import numpy as np

    from perfgraphs.evaluation.platform_transfer import interval95

    lines = [f"## Mean over the GPU platforms, draws {', '.join(map(str, draws))} only (the design of lowrank-transfer "
             "was chosen on draws 0-1 at K = 32): MAPE % ± 95 %", "",
             "| baseline | " + " | ".join(f"K = {k}" for k in results[0].spec.shots) + " |",
             "|---|" + "---|" * len(results[0].spec.shots)]
    for res in results:
        cells = []
        for k in res.spec.shots:
            per_draw = [np.mean([r["mape_pct"] for r in res.rows if r["shots"] == k and r["draw"] == d
                                 and r["platform"] in res.gpu_platforms]) for d in draws]
            mean, half, _ = interval95(per_draw)
            cells.append(f"{mean:.2f} ± {half:.2f}")
        lines.append(f"| {res.spec.baseline} | " + " | ".join(cells) + " |")
    return lines + [""]


def main(argv: list[str] | None = None) -> int:
    from perfgraphs.baselines.catalog import LOWRANK_TRANSFER
    from perfgraphs.evaluation.platform_transfer import PROTOCOL, load_platform_table
    from perfgraphs.leaderboard.transfer_runner import TransferSpec, run_transfer, write_tables
    from perfgraphs.registry import task

    ap = argparse.ArgumentParser()
    ap.add_argument("--dataset", required=True)
    ap.add_argument("--config", required=True)
    ap.add_argument("--target", required=True)
    ap.add_argument("--shots", type=int, nargs="+", default=[8, 32, 128])
    ap.add_argument("--draws", type=int, default=5)
    args = ap.parse_args(argv)
    board = task(args.dataset, args.config, args.target)
    table, manifest = load_platform_table(board)
    content_hash = manifest.get("content_hash", "")

    def spec(baseline: str) -> TransferSpec:
        return TransferSpec(board, baseline, VARIANT, tuple(args.shots), tuple(range(args.draws)))

    results = []
    for baseline in _rules():
        t0 = time.time()
        results.append(run_transfer(spec(baseline), table=table, content_hash=content_hash))
        print(f"{baseline}: {time.time() - t0:.0f} s", flush=True)
    t0 = time.time()
    lowrank, chosen = run_lowrank(spec(LOWRANK_TRANSFER.name), table, content_hash)
    results.append(lowrank)
    print(f"{LOWRANK_TRANSFER.name}: {time.time() - t0:.0f} s", flush=True)
    stem = f"{board.dataset.name.split('/')[-1]}-{board.config.name}-{args.target}-{PROTOCOL}-lowrank"
    command = (f"python -m benchmarks.lowrank_transfer --dataset {args.dataset} --config {args.config} "
               f"--target {args.target} --shots {' '.join(map(str, args.shots))} --draws {args.draws}")
    csv_path, md_path = write_tables(results, RESULTS, stem, command)
    extra = ranks_section(lowrank, chosen)
    if args.draws > 2:
        extra += unseen_draws_section(results, tuple(range(2, args.draws)))
    md_path.write_text(md_path.read_text() + "\n" + "\n".join(extra))
    for path in (csv_path, md_path):
        print(f"wrote {path}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
