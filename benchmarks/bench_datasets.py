"""Dataset load times: first load on a fresh cache (build from the committed graph pool, then
featurize into PyG) and the warm-cache load into PyG. Targets (issue "Datasets"): first load
<= 15 minutes, full dippm into PyG from a warm cache <= 10 s, on the 2-core reference machine.

Each load runs in a fresh interpreter (nothing kept in memory between them); the times exclude
importing torch / torch_geometric / datasets, which is reported on its own. Wall time on a shared
machine depends on what else runs; CPU time (user + system of the process) is printed beside it.

Run:  python -m perfgraphs.benchmarks.bench_datasets [--dataset dippm] [--featurizer trappm] [--repeat 3]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile

from perfgraphs.registry import QUICKSTART_BOARD, TRAPPM

WARM_TARGET_S = 10.0
FIRST_TARGET_S = 900.0

# One load in a fresh interpreter: imports, then load_dataset + to_pyg of every split (a tabular
# config, e.g. perfgraphs/llm, has no graphs: its rows are loaded and counted).
_LOAD = """
import json, sys, time
t0 = time.perf_counter()
import datasets, torch, torch_geometric
from perfgraphs.data.load import load_dataset, to_pyg
imported = time.perf_counter() - t0
wall0, cpu0 = time.perf_counter(), time.process_time()
dd = load_dataset(sys.argv[1], sys.argv[2] or None)
graphs = nodes = 0
for split in dd.values():
    if "node_feat" not in split.column_names:
        graphs += len(split.with_format("arrow")[:])
        continue
    pyg = to_pyg(split, sys.argv[3])
    graphs += len(pyg)
    nodes += int(pyg._data.x.shape[0])
print(json.dumps({"import_s": imported, "wall_s": time.perf_counter() - wall0,
                  "cpu_s": time.process_time() - cpu0, "n_graphs": graphs, "nodes": nodes}))
"""


def _run(home: str, args) -> dict:
    env = {**os.environ, "PERFGRAPHS_HOME": home}
    out = subprocess.run([sys.executable, "-c", _LOAD, args.dataset, args.config or "", args.featurizer],
                         env=env, capture_output=True, text=True)
    if out.returncode != 0:
        raise SystemExit(f"load failed: {out.stderr.strip().splitlines()[-1] if out.stderr.strip() else out.returncode}")
    return json.loads(out.stdout.strip().splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dataset", default=QUICKSTART_BOARD[0])
    parser.add_argument("--config", default=None)
    parser.add_argument("--featurizer", default=TRAPPM)
    parser.add_argument("--repeat", type=int, default=1, help="fresh caches to build and load (median reported)")
    parser.add_argument("--warm", type=int, default=3, help="warm loads per fresh cache")
    args = parser.parse_args()

    firsts, warms = [], []
    for r in range(args.repeat):
        with tempfile.TemporaryDirectory() as home:
            first = _run(home, args)
            firsts.append(first)
            print(f"run {r + 1}: first load {first['wall_s']:.1f} s wall / {first['cpu_s']:.1f} s CPU "
                  f"(imports {first['import_s']:.1f} s)", flush=True)
            for _ in range(args.warm):
                warm = _run(home, args)
                warms.append(warm)
                print(f"run {r + 1}: warm load into PyG {warm['wall_s']:.2f} s wall / {warm['cpu_s']:.2f} s CPU "
                      f"(imports {warm['import_s']:.1f} s)", flush=True)
    med = {k: statistics.median(w[k] for w in warms) for k in ("wall_s", "cpu_s", "import_s")}
    first_wall = statistics.median(f["wall_s"] for f in firsts)
    what = (f"{warms[0]['n_graphs']:,} graphs, {warms[0]['nodes']:,} nodes, featurizer {args.featurizer}"
            if warms[0]["nodes"]
            else f"{warms[0]['n_graphs']:,} rows (tabular)")
    print(f"{args.dataset}{'/' + args.config if args.config else ''}: {what}")
    print(f"first load (fresh PERFGRAPHS_HOME: build + featurize + cache), median of {len(firsts)}: "
          f"{first_wall:.1f} s  (target <= {FIRST_TARGET_S:.0f} s: {first_wall / FIRST_TARGET_S:.2f} of budget)")
    print(f"warm load into PyG, median of {len(warms)}: {med['wall_s']:.2f} s wall, {med['cpu_s']:.2f} s CPU  "
          f"(target <= {WARM_TARGET_S:.0f} s: {med['wall_s'] / WARM_TARGET_S:.2f} of budget; "
          f"imports {med['import_s']:.1f} s not included)")


if __name__ == "__main__":
    main()
