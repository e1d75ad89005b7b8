"""``perfgraphs quickstart``: the main job on the embedded default, offline, on the CPU.

Loads the default labeled dataset (DIPPM graphs with this project's CPU latency measurements),
trains and scores every reference baseline in quick mode through the standard protocol, and
prints the ranked table beside the dataset's noise floor.
"""

from __future__ import annotations

import argparse
import json

from perfgraphs.data.build import REPO_ROOT

DEFAULT = ("dippm", "cpu-torch-fp32", "latency_ms")
ORDER = ("layerwise-linear", "static-xgboost", "static-mlp", "dippm-sage", "nnlqp-gnn", "trappm")


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("quickstart", help="main job: load the default dataset, run the baselines (quick), rank them")
    p.add_argument("--baselines", nargs="+", default=list(ORDER))
    p.add_argument("--no-mlflow", action="store_true")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from rich.console import Console
    from rich.table import Table

    from perfgraphs.benchmarks.runner import RunSpec, run_benchmark
    from perfgraphs.data.load import load_dataset

    console = Console()
    dataset, config, target = DEFAULT
    data = load_dataset(dataset, config)
    console.print(f"perfgraphs/{dataset} [{config}]: " + ", ".join(f"{k} {len(v):,}" for k, v in data.items()))
    results = []
    for name in args.baselines:
        result = run_benchmark(RunSpec(dataset, config, target, name, (0,), quick=True), log=not args.no_mlflow)
        results.append((name, result))
        console.print(f"  {name}: MAPE {result.per_seed[0]['mape_pct']:.1f} %")
    results.sort(key=lambda r: r[1].per_seed[0]["mape_pct"])
    table = Table(title=f"perfgraphs/{dataset} · {config} · {target} (test part, quick mode, seed 0)")
    for col in ("rank", "baseline", "MAPE %", "RMSE", "Acc(10%) %", "Kendall τ", "fit s", "predictions/s"):
        table.add_column(col, justify="right" if col != "baseline" else "left")
    for rank, (name, result) in enumerate(results, 1):
        s = result.per_seed[0]
        table.add_row(str(rank), name, f"{s['mape_pct']:.1f}", f"{s['rmse']:.1f}", f"{s['acc_10_pct']:.1f}",
                      f"{s['kendall_tau']:.3f}", f"{result.fit_seconds[0]:.1f}", f"{result.predict_per_second[0]:,.0f}")
    console.print(table)
    from perfgraphs.benchmarks.runner import to_entry
    from perfgraphs.data.build import perfgraphs_home
    from perfgraphs.leaderboard.records import append_entry, DuplicateEntryError
    from perfgraphs.leaderboard.site import build_site

    board = perfgraphs_home() / "leaderboard"
    for _, result in results:
        try:
            append_entry(to_entry(result), root=board / "results")
        except DuplicateEntryError:
            pass  # this commit's reference run is already recorded
    console.print(f"leaderboard site: {build_site(board / 'site', board / 'results')}")
    floor = REPO_ROOT / "data" / "measurements" / "noise-floor" / "noise-floor-dippm-cpu.json"
    if floor.exists():
        report = json.loads(floor.read_text())
        console.print(f"noise floor of these labels (two measurement rounds): {report['mape_raw_pct']:.1f} % MAPE raw, "
                      f"{report['mape_calibrated_pct']:.1f} % calibrated — errors below it are not meaningful.")
    return 0
