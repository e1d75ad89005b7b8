"""Unseen families on one platform's board: every architecture family held out in turn (issue 34).

The official boards split at random, so a test architecture's family is in training; a user's new
model often is not. This runs baselines from the catalog through the leaderboard's predictor
interface (the harness's code path, without its sandbox) on the board's labeled rows, one fold per
family: train on every other family (15 % of their structures, seeded, as the validation part the
baselines that select on it need), predict the held-out family, and scores the pooled predictions
(every row once, by a model that never saw its family) with the registry's Evaluator.

    python -m benchmarks.unseen_families --dataset dippm --config cpu-torch-fp32 --target latency_ms \\
        --baselines roofline-fit roofline-boost layerwise-boost layerwise-linear static-mlp [--seed 0] [--quick]

Writes ``benchmarks/results/<dataset>-<config>-<target>-unseen-families.md`` (with ``--write``;
``--quick``, every baseline at its CI-sized settings, as the graph networks' paper settings take hours
a fold on a CPU: ``...-unseen-families-quick.md``).
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

import numpy as np

RESULTS = Path(__file__).parent / "results"
VALIDATION_SHARE = 0.15


def family_folds(rows, seed: int):
    """(family, train, validation, test) per family of the rows, the validation part a seeded share of
    the training families' structures."""
    families = np.asarray(rows["family"])
    structures = np.asarray(rows["structure_hash"])
    for family in sorted(set(families.tolist())):
        held = families == family
        rest = np.unique(structures[~held])
        rng = np.random.default_rng(seed)
        val_structures = set(rng.choice(rest, size=max(1, round(VALIDATION_SHARE * len(rest))), replace=False))
        is_val = ~held & np.isin(structures, list(val_structures))
        yield (family, rows.select(np.flatnonzero(~held & ~is_val)), rows.select(np.flatnonzero(is_val)),
               rows.select(np.flatnonzero(held)))


def run(board, baselines: list[str], seed: int, quick: bool = False) -> list[dict]:
    import datasets

    from perfgraphs.evaluation.evaluator import Evaluator
    from perfgraphs.evaluation.protocol import protocol_data
    from perfgraphs.leaderboard.predictors import BaselinePredictor

    datasets.disable_progress_bars()
    data = protocol_data(board.dataset, board.config, None, board.target)
    rows = datasets.concatenate_datasets([p for p in (data.train, data.validation, data.test) if p is not None])
    target = board.target.name
    evaluator = Evaluator.for_task(board)
    out = []
    for name in baselines:
        started, ids, y_true, y_pred, per_family = time.perf_counter(), [], [], [], {}
        for family, train, validation, test in family_folds(rows, seed):
            predictor = BaselinePredictor(name, target, seed=seed, quick=quick)
            pred = predictor.fit(train, validation).predict(test)
            truth = np.asarray(test[target], dtype=np.float64)
            per_family[family] = float(np.mean(np.abs(pred - truth) / truth) * 100.0)
            ids += list(test["sample_id"])
            y_true.append(truth)
            y_pred.append(pred)
        scores = evaluator.eval({"sample_id": ids, "y_true": np.concatenate(y_true), "y_pred": np.concatenate(y_pred)},
                                expected_ids=ids)
        out.append({"baseline": name, "n": scores["n"], "mape_pct": scores["mape_pct"],
                    "acc_10_pct": scores["acc_10_pct"], "kendall_tau": scores["kendall_tau"],
                    "per_family": per_family, "seconds": time.perf_counter() - started})
        print(f"{name}: {scores['mape_pct']:.2f} % MAPE over {scores['n']} rows "
              f"({time.perf_counter() - started:.0f} s)", flush=True)
    return out


def table(board, results: list[dict], seed: int, command: str, quick: bool = False) -> str:
    families = sorted(results[0]["per_family"])
    lines = [f"# {board.dataset.name} · {board.config.name} · {board.target.name}: unseen families",
             "", f"Every family held out in turn (train on the others, {VALIDATION_SHARE:.0%} of their structures "
             f"as validation, seed {seed}), pooled out-of-family predictions scored once per row, MAPE % per "
             f"held-out family beside{'; every baseline at its CI-sized settings (quick)' if quick else ''}. "
             f"Command: `{command}`.", "",
             "| baseline | MAPE % | Acc(10 %) % | Kendall τ | " + " | ".join(families) + " |",
             "|---|---|---|---|" + "---|" * len(families)]
    for r in sorted(results, key=lambda r: r["mape_pct"]):
        cells = " | ".join(f"{r['per_family'][f]:.1f}" for f in families)
        lines.append(f"| {r['baseline']} | {r['mape_pct']:.2f} | {r['acc_10_pct']:.1f} | {r['kendall_tau']:.3f} | {cells} |")
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    from perfgraphs.registry import task

    ap = argparse.ArgumentParser()
    ap.add_argument("--dataset", required=True)
    ap.add_argument("--config", required=True)
    ap.add_argument("--target", required=True)
    ap.add_argument("--baselines", nargs="+", required=True)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--write", action="store_true")
    ap.add_argument("--quick", action="store_true", help="every baseline at its CI-sized settings")
    args = ap.parse_args(argv)
    board = task(args.dataset, args.config, args.target)
    command = (f"python -m benchmarks.unseen_families --dataset {args.dataset} --config {args.config} --target "
               f"{args.target} --baselines {' '.join(args.baselines)} --seed {args.seed}{' --quick' if args.quick else ''} "
               "--write")
    text = table(board, run(board, args.baselines, args.seed, args.quick), args.seed, command, args.quick)
    print(text)
    if args.write:
        out = RESULTS / f"{args.dataset}-{args.config}-{args.target}-unseen-families{'-quick' if args.quick else ''}.md"
        out.write_text(text)
        print(f"wrote {out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
