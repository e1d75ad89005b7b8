"""Prediction cost: predictions per second of static-feature XGBoost vs the GNN baselines on the
same graphs (the research reports XGBoost ~267x faster than its GNN for LLM prediction).

Run:  python -m perfgraphs.benchmarks.bench_prediction_cost [--graphs 512]
Graphs come from the committed graph pool; the regression target is each graph's own
``total_memory_bytes`` (training quality does not matter here, only the time to predict).
Prediction time includes featurization from the stored rows, as a user would pay it.
"""

from __future__ import annotations

import argparse
import time

import numpy as np


def main() -> None:
    import datasets

    from perfgraphs.baselines import DIPPMSage, LLMGNN, LLMXGBoost, NNLQPGNN, StaticXGBoost, static_arrays
    from perfgraphs.paths import graph_pool_dir
    from perfgraphs.pool.graph_pool import GraphPool
    from perfgraphs.data.load import static_features, to_pyg
    from perfgraphs.views.hf import to_hf_row

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--graphs", type=int, default=512)
    args = parser.parse_args()

    pool = GraphPool(graph_pool_dir())
    rows = []
    for sid in sorted(pool.rows())[: max(1, args.graphs // 8)]:
        structure = pool.structure(sid)
        for batch in (1, 2, 4, 8, 16, 32, 64, 128):
            g = structure.graph(batch)
            row = to_hf_row(g)
            row.update({k: v for k, v in g.static_features().items() if k not in row})
            rows.append(row)
    split = datasets.Dataset.from_list(rows[: args.graphs])
    y = np.asarray(split["total_memory_bytes"], dtype=float)
    print(f"{len(split)} graphs, {int(np.sum(split['num_nodes'])):,} nodes")
    results = {}
    for name, make, featurizer, kind in (
        ("static-xgboost", lambda: StaticXGBoost(quick=True, seed=0), "trappm", "static"),
        ("dippm-sage", lambda: DIPPMSage(quick=True, seed=0, epochs=1), "dippm", "graph"),
        ("nnlqp-gnn", lambda: NNLQPGNN(quick=True, seed=0, epochs=1), "nnlqp", "graph"),
        # the LLM study's own pair (its ~267x): the tree model and its GNN baseline
        ("llm-xgboost", lambda: LLMXGBoost(quick=True, seed=0), "trappm", "static"),
        ("llm-gnn", lambda: LLMGNN(seed=0, epochs=1), "trappm", "graph"),
    ):
        model = make()
        pyg = to_pyg(split, featurizer, targets=["total_memory_bytes"])
        if kind == "static":
            X, _ = static_arrays(pyg)
            model.fit(X, y)
        else:
            model.fit(pyg)
        best = float("inf")
        for _ in range(3):  # best of three: the machine is shared
            t0 = time.perf_counter()
            if kind == "static":
                model.predict(static_features(split, featurizer))
            else:
                model.predict(to_pyg(split, featurizer))
            best = min(best, time.perf_counter() - t0)
        results[name] = len(split) / best
        print(f"{name:15s} {results[name]:12,.0f} predictions/s")
    for gnn in ("dippm-sage", "nnlqp-gnn"):
        print(f"static-xgboost / {gnn}: {results['static-xgboost'] / results[gnn]:.1f}x")
    print(f"llm-xgboost / llm-gnn (paper-size GNN, hidden 512): {results['llm-xgboost'] / results['llm-gnn']:.1f}x")


if __name__ == "__main__":
    main()
