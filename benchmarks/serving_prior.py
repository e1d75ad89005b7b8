"""The decode-step prior on ML.ENERGY's serving runs, leave-models-out (issue 27).

Runs :class:`perfgraphs.baselines.serving_prior.ServingPrior` (physics alone, one constant) and
:class:`~perfgraphs.baselines.serving_prior.ServingPriorBoost` (boosted log(label / prior)) through
the official leave-models-out folds of ``perfgraphs/llm`` ``mlenergy`` (each row predicted by the
model trained on the folds that never saw its model), scores the pooled out-of-fold predictions with
the registry's Evaluator, and writes ``benchmarks/results/llm-mlenergy-<target>-leave-models-out-prior.{md,csv}``
beside the reference table of the same protocol, whose rows it quotes for comparison.

    python -m benchmarks.serving_prior [--targets median_itl_ms ...] [--seeds 0 1 2]
"""

from __future__ import annotations

import argparse
import csv
import time
from pathlib import Path

import numpy as np

RESULTS = Path(__file__).parent / "results"
TARGETS = ("median_itl_ms", "output_throughput_tokens_per_sec", "energy_per_token_joules")
PROTOCOL = "leave-models-out"


def run(target: str, seeds: tuple[int, ...]) -> list[dict]:
    from perfgraphs.baselines.catalog import SERVING_PRIOR, SERVING_PRIOR_BOOST
    from perfgraphs.data.llm_features import llm_features
    from perfgraphs.evaluation.evaluator import Evaluator
    from perfgraphs.evaluation.tabular_protocol import fold_protocols, noise_floor_sentence
    from perfgraphs.registry import configs_with_recipe, task

    (ds, cfg), = configs_with_recipe("serving_runs")  # the serving runs' config (ML.ENERGY)
    board = task(ds.name, cfg.name, target)
    evaluator = Evaluator.for_task(board)
    folds, whole = fold_protocols(board, protocol=PROTOCOL)
    out = []
    for name, make in ((SERVING_PRIOR.name, lambda s: SERVING_PRIOR.make(target=target)),
                       (SERVING_PRIOR_BOOST.name, lambda s: SERVING_PRIOR_BOOST.make(seed=s, target=target))):
        per_seed, t0 = [], time.perf_counter()
        for seed in seeds:
            ids, y_true, y_pred = [], [], []
            for f in folds:
                model = make(seed).fit(llm_features(f.train), np.asarray(f.train[target], float))
                y_pred.append(model.predict(llm_features(f.test)))
                y_true.append(np.asarray(f.test[target], float))
                ids += list(f.test["sample_id"])
            per_seed.append(evaluator.eval(
                {"sample_id": ids, "y_true": np.concatenate(y_true), "y_pred": np.concatenate(y_pred)},
                expected_ids=list(whole.test["sample_id"])))
        row = {"baseline": name, "seeds": len(seeds), "wall_clock_s": round(time.perf_counter() - t0, 1),
               "n_scored": per_seed[0]["n"]}
        for m in ("mape_pct", "acc_10_pct", "kendall_tau"):
            v = np.array([s[m] for s in per_seed], float)
            row[f"{m}_mean"], row[f"{m}_std"] = round(float(v.mean()), 4), round(float(v.std()), 4)
        out.append(row)
        print(target, row, flush=True)
    noise = noise_floor_sentence(whole.test, target)
    return out, noise


def reference_rows(target: str) -> list[dict]:
    path = RESULTS / f"llm-mlenergy-{target}-{PROTOCOL}-quick.csv"
    if not path.exists():
        return []
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


def write(target: str, rows: list[dict], noise: str, seeds) -> Path:
    stem = RESULTS / f"llm-mlenergy-{target}-{PROTOCOL}-prior"
    with open(stem.with_suffix(".csv"), "w", newline="") as f:
        writer = csv.DictWriter(f, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)
    seeds_arg = " ".join(map(str, seeds))
    lines = [f"# llm · mlenergy · {target} · {PROTOCOL}: the decode-step prior", "",
             "Pooled out-of-fold predictions of the official leave-models-out folds (every row predicted by a "
             "model trained on folds that never saw its model). The prior: one decode step of `max_num_seqs` "
             "sequences on the replica's GPUs, `max(weight bytes / bandwidth, FLOPs / matrix peak)` from the GPU's "
             "datasheet descriptor (`perfgraphs/features/serving.py`). Command: "
             f"`python -m benchmarks.serving_prior --targets {target} --seeds {seeds_arg}`.", "", noise, "",
             "| baseline | MAPE % | Acc(10%) % | Kendall τ | wall clock s |", "|---|---|---|---|---|"]
    for r in rows:
        lines.append(f"| {r['baseline']} | {r['mape_pct_mean']:.1f} ± {r['mape_pct_std']:.1f} | "
                     f"{r['acc_10_pct_mean']:.1f} | {r['kendall_tau_mean']:.3f} | {r['wall_clock_s']} |")
    ref = reference_rows(target)
    if ref:
        lines += ["", f"The reference baselines on the same folds (`llm-mlenergy-{target}-{PROTOCOL}-quick.md`):", "",
                  "| baseline | MAPE % | Acc(10%) % | Kendall τ |", "|---|---|---|---|"]
        for r in ref:
            lines.append(f"| {r['baseline']} | {float(r['mape_pct_mean']):.1f} ± {float(r['mape_pct_std']):.1f} | "
                         f"{float(r['acc_10_pct_mean']):.1f} | {float(r['kendall_tau_mean']):.3f} |")
    stem.with_suffix(".md").write_text("\n".join(lines) + "\n")
    return stem.with_suffix(".md")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--targets", nargs="+", default=list(TARGETS))
    ap.add_argument("--seeds", type=int, nargs="+", default=[0, 1, 2])
    args = ap.parse_args(argv)
    for target in args.targets:
        rows, noise = run(target, tuple(args.seeds))
        print(f"wrote {write(target, rows, noise, args.seeds)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
