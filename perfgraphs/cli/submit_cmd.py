"""``perfgraphs submit`` and ``perfgraphs check``: score a leaderboard submission through the
harness (check = every check and the scores, nothing written). A rejected submission prints one
line per problem on stderr and exits with 1."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path


def _common(p: argparse.ArgumentParser) -> None:
    from perfgraphs.leaderboard.sandbox.limits import Limits

    d = Limits()
    p.add_argument("path", type=Path, help="submission folder (with submission.yaml)")
    p.add_argument("--dataset", help="registry dataset (default: submission.yaml's dataset.name)")
    p.add_argument("--config", help="dataset config (default: submission.yaml's dataset.config)")
    p.add_argument("--target", help="target column (default: submission.yaml's dataset.target)")
    p.add_argument("--seeds", type=int, nargs="+", default=[0, 1, 2, 3, 4], help="code submissions: seeds to run")
    p.add_argument("--quick", action="store_true", help="tell the predictor to use CI-sized settings; the entry "
                   "is named '<method> (quick)'")
    p.add_argument("--time-limit-s", type=float, default=d.time_limit_s, help="per seed, fit + predict")
    p.add_argument("--memory-mb", type=int, default=d.memory_mb, help="resident set of the predictor process")
    # no folder argument and no commitments option: labels from anywhere else, or a commitment
    # from anywhere else, is how a scorer's own files were once recorded as "verified"
    p.add_argument("--hidden-labels", action="store_true",
                   help="score on the hidden test set <dataset>-<config>.parquet of the keeper folder "
                        "$PERFGRAPHS_HIDDEN_DIR, checked against its commitment committed in leaderboard/hidden/")
    p.add_argument("--protocol", default=None, help="a cross-validated config's fold protocol (default: its official "
                   "one, leave-models-out on perfgraphs/llm; stratified-5-fold for the secondary board)")
    p.add_argument("--results", type=Path, default=None, help="results folder (default leaderboard/results)")


def register(sub: argparse._SubParsersAction) -> None:
    s = sub.add_parser("submit", help="score a submission in the sandboxed harness and record it")
    _common(s)
    s.add_argument("--no-mlflow", action="store_true", help="record without the MLflow run")
    frozen = s.add_mutually_exclusive_group()
    frozen.add_argument("--freeze", type=Path, metavar="DIR", help="fit in the sandbox on the public training part and "
                        "keep each seed's fitted state (the predictor's state()) with a manifest in DIR, a new folder, "
                        "instead of a record (leaderboard/RULES.md, 'Frozen fits')")
    frozen.add_argument("--frozen", type=Path, metavar="DIR", help="with --hidden-labels: predict from the states "
                        "`--freeze` kept in DIR (committed before the set's commitment) instead of fitting")
    s.set_defaults(func=run_submit)
    c = sub.add_parser("check", help="check a submission (same checks and scores as submit; writes nothing)")
    _common(c)
    c.set_defaults(func=run_check)


def _options(args):
    import datasets

    from perfgraphs.leaderboard.sandbox.harness import Limits
    from perfgraphs.leaderboard.submit import SubmitOptions

    datasets.disable_progress_bars()  # stderr is for the problems, one line each
    _terminate_cleanly()

    if args.time_limit_s <= 0 or args.memory_mb <= 0:
        from perfgraphs.errors import PerfgraphsError

        raise PerfgraphsError("--time-limit-s and --memory-mb must be positive")
    hidden = None
    if args.hidden_labels:
        from perfgraphs.leaderboard.records.hidden import keeper_dir

        hidden = keeper_dir(None)  # one line when PERFGRAPHS_HIDDEN_DIR is unset or inside the checkout
    return SubmitOptions(dataset=args.dataset, config=args.config, target=args.target, seeds=tuple(args.seeds),
                         quick=args.quick, limits=Limits(time_limit_s=args.time_limit_s, memory_mb=args.memory_mb),
                         hidden_labels=hidden, results_root=args.results, protocol=args.protocol,
                         freeze=getattr(args, "freeze", None), frozen=getattr(args, "frozen", None))


def _terminate_cleanly() -> None:
    """SIGTERM unwinds like Ctrl-C, so the harness kills the predictor process it started (it runs
    in its own session and would not get the signal) and removes its job folder."""
    import signal

    def interrupt(signum, frame):
        raise KeyboardInterrupt

    try:
        signal.signal(signal.SIGTERM, interrupt)
    except ValueError:  # not the main thread (tests calling main() from a worker)
        pass


def _reject(command: str, problems: list[str]) -> int:
    for problem in problems:
        print(f"perfgraphs {command}: {_line(problem)}", file=sys.stderr)
    return 1


def _line(text: str) -> str:
    """One line, as the terminal shows it: a problem quotes names from the submission folder (a file
    named ``x ESC[2K CR perfgraphs check: all fine LF ESC[8m.py`` erased its refusal and printed "OK" on
    a line of its own: twenty-seventh pass of 2026-12-03), so controls, escapes and bidi overrides are
    written as their escapes."""
    from perfgraphs.leaderboard.records.results import printable

    return printable(text)


def _summary(verdict) -> None:
    from rich.console import Console
    from rich.table import Table

    from perfgraphs.leaderboard.site.pages import noise_floor_text

    entry = verdict.entry
    print(f"{entry.method} on {verdict.task.name} "
          f"({entry.tier}, {entry.test_set} test set, {_seeds(len(entry.per_seed))}, test n = {entry.per_seed[0]['n']})")
    if entry.test_set == "public":
        # the scored test part, already loaded: a floor measured on it needs no second load
        noise = noise_floor_text(verdict.task, getattr(verdict.data, "test", None))
    else:  # a hidden set's floor is its own, recorded in its definition (aggregates only)
        from perfgraphs.leaderboard.records.hidden import hidden_noise_text

        noise = hidden_noise_text(verdict.task.dataset.name, verdict.task.config.name, verdict.task.target.name,
                                  entry.hidden_labels_sha256)
    noise = noise or "Noise floor: not measured for these labels"
    print(noise.replace("**", ""))
    table = Table()
    for col in ("metric", "mean", "std"):
        table.add_column(col)
    for metric in ("mape_pct", "rmse", "acc_10_pct", "kendall_tau"):
        mean, std = entry.mean_std(metric)
        spread = std == std and len(entry.per_seed) > 1  # one seed has no spread to show
        table.add_row(metric, "–" if mean != mean else f"{mean:.4g}", f"{std:.2g}" if spread else "–")
    Console().print(table)
    if entry.fit_seconds is not None:
        params = f"{entry.num_params:,}" if entry.num_params is not None else "n/a"
        print(f"measured by the harness: fit {entry.fit_seconds:.2f} s · {entry.predictions_per_second:,.0f} "
              f"predictions/s · peak memory {_peak(entry)}; params {params} (self-reported)")


def _peak(entry) -> str:
    """The peak memory as the summary line states it: not measured without a memory cgroup
    (harness.stated_peak_bytes)."""
    if entry.peak_memory_mb is None:
        return "not measured (no memory cgroup)"
    how = entry.peak_memory_how()
    return f"{entry.peak_memory_mb:.0f} MB" + (f" ({how})" if how else "")


def _seeds(n: int) -> str:
    return f"{n} seed" + ("s" if n != 1 else "")


def run_check(args) -> int:
    from perfgraphs.leaderboard.submit import evaluate_submission

    verdict = evaluate_submission(args.path, _options(args))
    if not verdict.ok:
        return _reject("check", verdict.problems or ["nothing was scored"])
    _summary(verdict)
    for warning in verdict.warnings:
        print(f"perfgraphs check: warning: {_line(warning)}", file=sys.stderr)
    print(f"OK: {verdict.entry.method} passes every check (nothing written; `perfgraphs submit` records it)")
    return 0


def run_submit(args) -> int:
    from perfgraphs.leaderboard.submit import submit

    verdict, written = submit(args.path, _options(args), log_mlflow=not args.no_mlflow)
    if written is None:
        return _reject("submit", verdict.problems or ["nothing was scored"])
    _summary(verdict)
    for warning in verdict.warnings:
        print(f"perfgraphs submit: warning: {_line(warning)}", file=sys.stderr)
    if args.freeze is not None:
        print(f"frozen: {len(verdict.outputs)} fitted states and {written.name} in {written.parent} (nothing recorded); "
              "commit the folder before a hidden round's commitment, then score with --hidden-labels --frozen")
        return 0
    print(f"recorded in {written} (run {verdict.entry.run_identity}); `perfgraphs leaderboard build` updates the site")
    return 0
