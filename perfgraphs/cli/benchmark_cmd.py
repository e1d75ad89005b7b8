"""``perfgraphs benchmark``: run a reference baseline through a dataset's standard protocol."""

from __future__ import annotations

import argparse

from perfgraphs.baselines.catalog import BASELINES, TRANSFER_BASELINES


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("benchmark", help="train and score a reference baseline, logged to MLflow")
    p.add_argument("--dataset", required=True)
    p.add_argument("--config", required=True)
    p.add_argument("--target", required=True)
    p.add_argument("--baseline", required=True,
                   help=f"one of {', '.join(BASELINES)}; under leave-one-platform-out one of "
                        f"{', '.join(TRANSFER_BASELINES)}")
    p.add_argument("--seeds", type=int, nargs="+", default=[0])
    p.add_argument("--quick", action="store_true", help="CI-sized hyper-parameters")
    p.add_argument("--protocol", default=None,
                   help="split protocol (default: the config's official one; e.g. leave-one-family-out, or "
                        "stratified-5-fold on a perfgraphs/llm config, whose official one is leave-models-out)")
    p.add_argument("--no-mlflow", action="store_true", help="score only, do not log")
    transfer = p.add_argument_group("leave-one-platform-out (--protocol leave-one-platform-out; --seeds are its draws)")
    transfer.add_argument("--variant", default="known-models",
                          help="known-models | unseen-models | known-models-other-devices")
    transfer.add_argument("--shots", type=int, nargs="+", default=[32], help="K labelled architectures of the held-out platform")
    transfer.add_argument("--platforms", nargs="+", default=[], help="held-out platforms (default: every one)")
    transfer.add_argument("--tables", default=None,
                          help="write <TABLES>.csv and <TABLES>.md (per platform and mean over platforms)")
    transfer.add_argument("--record", action="store_true", help="append one leaderboard record per K")
    p.set_defaults(func=run)


def run_transfer_protocol(args: argparse.Namespace) -> int:
    import shlex
    import sys
    from pathlib import Path

    from rich.console import Console

    from perfgraphs.leaderboard.records.results import append_entry
    from perfgraphs.leaderboard.transfer_runner import TransferSpec, run_transfer, to_entries, write_tables
    from perfgraphs.registry import task

    spec = TransferSpec(task(args.dataset, args.config, args.target), args.baseline, args.variant,
                        tuple(args.shots), tuple(args.seeds), tuple(args.platforms))
    result = run_transfer(spec)
    console = Console()
    for k in spec.shots:
        for gpu_only in (True, False):
            m = result.mean_over_platforms(k, gpu_only)
            console.print(f"{spec.baseline} {spec.variant} K={k} mean over {m['platforms']} platforms "
                          f"({m['n_platforms']}): MAPE {m['mape_pct']:.2f} ± {m['mape_pct_ci95']:.2f} %, "
                          f"Acc(10 %) {m['acc_10_pct']:.1f} %, Kendall τ {m['kendall_tau']:.3f}")
    if args.tables:
        out = Path(args.tables)
        command = "perfgraphs " + " ".join(shlex.quote(a) for a in sys.argv[1:])
        for path in write_tables([result], out.parent, out.name, command):
            console.print(f"wrote {path}")
    if args.record:
        for entry in to_entries(result):
            console.print(f"recorded {append_entry(entry)} ({entry.protocol})")
    return 0


def run(args: argparse.Namespace) -> int:
    from rich.console import Console
    from rich.table import Table

    from perfgraphs.evaluation.platform_transfer import PROTOCOL
    from perfgraphs.leaderboard.runner import RunSpec, run_benchmark

    if args.protocol == PROTOCOL:
        return run_transfer_protocol(args)
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
    console = Console()
    console.print(table)
    for line in board_placement(result):
        console.print(line)
    return 0


def board_placement(result) -> list[str]:
    """Where this run would sit among the board's recorded entries on the same build: its rank group
    from the paired bootstrap (:mod:`perfgraphs.leaderboard.records.ranks`), or why it cannot be placed."""
    from perfgraphs.leaderboard.records.builds import pins_file, read_pins, split_by_build
    from perfgraphs.leaderboard.records.ranks import diff_text, label_repetitions, mape_text, rank_board
    from perfgraphs.leaderboard.records.results import RESULTS_DIR, read_entries
    from perfgraphs.leaderboard.runner import to_entry
    from perfgraphs.leaderboard.site.pages import current_and_superseded

    run = to_entry(result)
    config = result.board.config  # the config of every entry compared: the records of its board
    protocol = config.scoring_protocol(run.protocol)
    on_board = [e for e in read_entries(run.dataset, RESULTS_DIR) if e.test_set == "public"
                and (e.config, e.target) == (run.config, run.target)
                and config.scoring_protocol(e.protocol) == protocol and e.method != run.method]
    pin = read_pins(pins_file(RESULTS_DIR)).get(f"{run.dataset} {run.config}")
    current = [e for e in current_and_superseded(split_by_build(on_board, pin)[1])[0]
               if e.dataset_content_hash == run.dataset_content_hash]
    if not current:
        return [f"board placement: no recorded entry on this build ({run.dataset_content_hash[:12]}) to compare with"]
    # every recorded entry counts here, (quick) ones too: a placement, not the official ranking
    board = rank_board(current + [run], label_repetitions(result.board, protocol=run.protocol))
    row = next(r for r in board.rows if r.entry is run)
    return [f"board placement among {len(current)} recorded entries (paired, this build): rank {row.rank_text}, "
            f"MAPE {mape_text(row)}, Δ to best {diff_text(row)}"] + board.lines()
