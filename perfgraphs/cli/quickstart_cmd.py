"""``perfgraphs quickstart``: the main job on the embedded default, offline, on the CPU.

Loads the default labeled dataset (DIPPM graphs with this project's CPU latency measurements),
trains and scores every reference baseline in quick mode through the standard protocol, and
prints the rank groups of a paired bootstrap (:mod:`perfgraphs.evaluation.ranking`) beside the
dataset's noise floor.
"""

from __future__ import annotations

import argparse

from perfgraphs.baselines.catalog import QUICKSTART_BASELINES
from perfgraphs.errors import PerfgraphsError
from perfgraphs.registry import QUICKSTART_BOARD

# The main job must stay within 5 minutes on a 2-core CPU machine as the campaign grows: on the
# 1,242 training graphs of the 2,031-measurement build the three quick GNNs alone took 816 s of the
# 874 s job, so every baseline trains on a family-stratified subset (the test part is whole); 400
# graphs took 5.5 minutes on one EPYC core, 300 took 3 min 53 s on a quiet 2-core Xeon VM.
TRAIN_GRAPHS = 300


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("quickstart", help="main job: load the default dataset, run the baselines (quick), rank them")
    p.add_argument("--baselines", nargs="+", default=list(QUICKSTART_BASELINES))
    p.add_argument("--max-train-graphs", type=int, default=TRAIN_GRAPHS,
                   help=f"family-stratified training subset (default {TRAIN_GRAPHS}; validation a quarter of it)")
    p.add_argument("--all-graphs", action="store_true", help="train on the whole training part (slower)")
    p.add_argument("--no-mlflow", action="store_true")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from rich.console import Console
    from rich.markup import escape

    from perfgraphs.data.load import load_build
    from perfgraphs.evaluation.label_noise import noise_floor_note
    from perfgraphs.leaderboard.runner import RunSpec, run_benchmark
    from perfgraphs.registry import task

    console = Console()
    dataset, config, target = QUICKSTART_BOARD
    cap = None if args.all_graphs else args.max_train_graphs
    if cap is not None and cap < 1:
        raise PerfgraphsError(f"--max-train-graphs must be at least 1, got {cap} (--all-graphs trains on every graph)")
    board = task(dataset, config, target)
    data = load_build(board.dataset, board.config).data
    console.print(escape(f"{dataset} [{config}]: ") + ", ".join(f"{k} {len(v):,}" for k, v in data.items()))
    if cap is not None and cap < len(data["train"]):
        console.print(f"training on {cap} of the {len(data['train']):,} training graphs (family-stratified, "
                      "to keep this job short; --all-graphs for all), scoring on the whole test part")
    results = []
    for name in args.baselines:
        spec = RunSpec(dataset, config, target, name, (0,), quick=True, max_train_graphs=cap)
        result = run_benchmark(spec, log=not args.no_mlflow)
        results.append((name, result))
        console.print(f"  {name}: MAPE {result.per_seed[0]['mape_pct']:.1f} % (the Evaluator's, on the build's labels)")
    trained_on = "" if cap is None or cap >= len(data["train"]) else f", {cap} training graphs"
    _print_ranking(console, results, f"{dataset} · {config} · {target} (test part, quick mode, seed 0{trained_on})",
                   board)
    note = noise_floor_note(board)
    if note:  # the floor the boards show beside the same labels
        note = note.replace("**", "")
        console.print(escape(note[0].upper() + note[1:] + " A difference between baselines smaller than the "
                             "labels' own noise is not a ranking."))
    _preview_site(console, results)
    return 0


def _print_ranking(console, results: list, title: str, board) -> None:
    """The baselines' rank groups, not 1..n: the paired bootstrap says which differences the test
    part can tell, label noise included where the board's labels were measured again."""
    import numpy as np
    from rich.markup import escape
    from rich.table import Table

    from perfgraphs.evaluation.ranking import Contender, paired_ranking
    from perfgraphs.evaluation.scoring import PER_CONFIG_KEY
    from perfgraphs.leaderboard.records.ranks import label_repetitions, repetitions_note
    from perfgraphs.leaderboard.records.references import REFERENCE_AUTHORS

    repetitions = label_repetitions(board)
    ranking = paired_ranking([Contender(name, np.asarray([s[PER_CONFIG_KEY] for s in result.per_seed]))
                              for name, result in results], repetitions)
    by_name = dict(results)
    # every row is the project's own reference code, run here: the boards show each row's authors
    table = Table(title=f"{title}: {REFERENCE_AUTHORS}, run here")
    for col in ("group", "baseline", "MAPE % [95 % CI]", "Δ to best [95 % CI]", "Acc10 %", "Kendall τ", "fit s",
                "pred./s"):
        # names whole even in an 80-column terminal: the numeric headers wrap instead
        table.add_column(col, justify="right" if col != "baseline" else "left", no_wrap=col == "baseline")
    for r in ranking.entries:
        result = by_name[r.name]
        s = result.per_seed[0]
        diff = ("best" if ranking.ranked else "lowest (not ranked)") if r.diff_to_best == 0 else f"+{r.diff_to_best:.1f} [{r.diff_ci95[0]:.1f}, {r.diff_ci95[1]:.1f}]"
        table.add_row(str(r.rank), r.name, f"{r.mape_pct:.1f} [{r.mape_ci95[0]:.1f}, {r.mape_ci95[1]:.1f}]", diff,
                      f"{s['acc_10_pct']:.1f}", f"{s['kendall_tau']:.3f}", f"{result.fit_seconds[0]:.1f}",
                      f"{result.predict_per_second[0]:,.0f}")
    console.print(table)
    groups = ranking.groups
    noise = (f"the labels' repetitions are resampled too ({repetitions_note(repetitions)}); one seed each, so the "
             "seed spread is not in these intervals" if ranking.label_noise else
             "one seed each and one measurement per label, so neither seed spread nor label noise is in these "
             "intervals")
    console.print(escape(
        f"{len(groups)} group(s) on {ranking.n_configs} test configurations: a baseline is in a later group only "
        f"when a paired bootstrap shows at least one earlier baseline better beyond the sampling of the test "
        f"configurations (Holm-adjusted, 5 %); {noise}."))


def _preview_site(console, results: list) -> None:
    """The runs recorded in a local preview folder, and its site beside the official one."""
    from perfgraphs.leaderboard.runner import to_entry
    from perfgraphs.paths import perfgraphs_home
    from perfgraphs.leaderboard.records.results import PREVIEW_MARKER, DuplicateEntryError, append_entry
    from perfgraphs.leaderboard.site.pages import build_site

    board = perfgraphs_home() / "leaderboard"
    # one seed per baseline: a local preview, which the records' five-seed rule lets through only
    # in a folder marked as one (and the site says so)
    (board / "results").mkdir(parents=True, exist_ok=True)
    (board / "results" / PREVIEW_MARKER).write_text("perfgraphs quickstart: one seed per baseline, a local preview\n")
    for _, result in results:
        try:
            append_entry(to_entry(result), root=board / "results")
        except DuplicateEntryError:
            pass  # this commit's reference run is already recorded
    official = build_site(board / "official-site")  # the committed records: five seeds, scored by the harness
    console.print(f"local preview site: {build_site(board / 'site', board / 'results', official_site=official)}")
    console.print(f"official boards: {official} (or `perfgraphs leaderboard show`)")
