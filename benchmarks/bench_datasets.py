"""Dataset load times: first load on a fresh cache (build from the committed graph pool) and the
warm-cache load into PyG. Targets (issue "Datasets"): first load <= 15 minutes, full dippm into
PyG from a warm cache <= 10 s, on the 2-core reference machine.

Run:  python -m perfgraphs.benchmarks.bench_datasets [--dataset dippm] [--featurizer dippm]
"""

from __future__ import annotations

import argparse
import tempfile
import time
from pathlib import Path


def main() -> None:
    from perfgraphs.data.load import load_dataset, to_pyg

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dataset", default="dippm")
    parser.add_argument("--config", default=None)
    parser.add_argument("--featurizer", default="trappm")
    args = parser.parse_args()

    with tempfile.TemporaryDirectory() as tmp:
        home = Path(tmp)
        t0 = time.perf_counter()
        load_dataset(args.dataset, args.config, home=home)
        first = time.perf_counter() - t0
        t1 = time.perf_counter()
        dd = load_dataset(args.dataset, args.config, home=home)
        warm_hf = time.perf_counter() - t1
        t2 = time.perf_counter()
        graphs = nodes = 0
        for split in dd.values():
            pyg = to_pyg(split, args.featurizer)
            graphs += len(pyg)
            nodes += int(pyg._data.x.shape[0])
        warm_pyg = time.perf_counter() - t2
    print(f"{args.dataset}: {graphs:,} graphs, {nodes:,} nodes")
    print(f"first load (build into a fresh cache): {first:.1f} s  (target <= 900 s: {first / 900:.2f} of budget)")
    print(f"warm load, HF datasets + manifest check: {warm_hf:.1f} s")
    print(f"warm load into PyG ({args.featurizer}): {warm_pyg:.1f} s  ({graphs / warm_pyg:,.0f} graphs/s; "
          f"target <= 10 s: {warm_pyg / 10:.2f} of budget)")


if __name__ == "__main__":
    main()
