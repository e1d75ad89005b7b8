"""``perfgraphs benchmark``: run a reference baseline through a dataset's standard protocol."""

from __future__ import annotations

import argparse


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("benchmark", help="train and score a reference baseline, logged to MLflow")
    p.add_argument("--dataset", required=True)
    p.add_argument("--config", required=True)
    p.add_argument("--target", required=True)
    p.add_argument("--baseline", required=True)
    p.add_argument("--seeds", type=int, nargs="+", default=[0])
    p.add_argument("--quick", action="store_true", help="CI-sized hyper-parameters")
    p.add_argument("--protocol", default=None,
                   help="split protocol (default: the config's official one; e.g. leave-one-family-out, or "
                        "stratified-5-fold on a perfgraphs/llm config, whose official one is leave-models-out)")
    p.add_argument("--no-mlflow", action="store_true", help="score only, do not log")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from rich.console import Console
    from rich.table import Table

    from perfgraphs.leaderboard.runner import RunSpec, run_benchmark

    spec = RunSpec(args.dataset, args.config, args.target, args.baseline, tuple(args.seeds), args.quick,
                   protocol=args.protocol)
    result = run_benchmark(spec, log=not args.no_mlflow)
    spec = result.spec  # with the protocol it ran under
    table = Table(title=f"{spec.baseline} on {spec.dataset}/{spec.config} → {spec.target} (run {spec.identity})")
    for col in ("metric", "mean", "std"):
        table.add_column(col)
    for metric in ("mape_pct", "rmse", "acc_10_pct", "kendall_tau"):
        mean, std = result.mean_std(metric)
        table.add_row(metric, f"{mean:.4g}", f"{std:.2g}")
    Console().print(table)
    return 0
