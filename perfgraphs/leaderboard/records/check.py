"""The checker's rules, as small functions that return problems (one line each, saying how to fix
it) instead of raising, so a submission learns about all of its defects at once.

``perfgraphs check``, ``perfgraphs submit`` and the tests all go through these functions (via
:func:`perfgraphs.leaderboard.submit.evaluate_submission`).
"""

from __future__ import annotations

import math
import sys
from collections import Counter
from itertools import groupby
from operator import itemgetter
from pathlib import Path

import numpy as np

from perfgraphs.evaluation.mlflow_log import mean_std
from perfgraphs.evaluation.evaluator import IdMismatchError, check_ids
from perfgraphs.registry import Task

from perfgraphs.leaderboard.records.history import one_reading
from perfgraphs.leaderboard.records import names as names_mod  # names compared as people read them
from perfgraphs.leaderboard.records.references import REFERENCE_AUTHORS, REFERENCE_DIR
from perfgraphs.leaderboard.records.record_check import (MAX_SEED, MAX_SEEDS, MIN_SEEDS,  # one rule, defined with
                                                         picked_seeds)  # the record check
# Shuffling the test order may reorder floating-point sums inside a batch; anything beyond this
# relative difference means the predictions depend on the order or the ids.
INVARIANCE_RTOL = 1e-5
# Reported means/stds are compared after rounding to what a paper table shows.
REPORTED_ATOL_PCT = 0.01


def check_seeds(seeds) -> list[str]:
    distinct = sorted(set(int(s) for s in seeds))
    if len(distinct) > MAX_SEEDS:
        return [f"{len(distinct)} distinct seeds; a record has at most {MAX_SEEDS}: run seeds 0 1 2 3 4"]
    if len(distinct) < MIN_SEEDS:
        return [f"{len(distinct)} distinct seed(s) ({', '.join(map(str, distinct)) or 'none'}); the leaderboard "
                f"needs at least {MIN_SEEDS}: run seeds 0 1 2 3 4 (--seeds, or seed-<k>.parquet files)"]
    return []


def check_seed_range(seeds) -> list[str]:
    """Seeds a record can hold (0 to 2**32 - 1, numpy's), checked before any seed runs: ``--seeds -1 0
    1 2 3`` ran every seed and was refused at the end by the record check, by `check` and `submit`
    alike (thirty-sixth pass; a real board's seed takes up to --time-limit-s, 30 minutes)."""
    bad = sorted({int(s) for s in seeds if not 0 <= int(s) < MAX_SEED})
    if not bad:
        return []
    shown = ", ".join(str(s)[:40] for s in bad[:3]) + (" …" if len(bad) > 3 else "")
    return [f"seed(s) {shown} outside 0 to {MAX_SEED - 1}, which a record holds: run seeds 0 1 2 3 4"]


def check_seeds_from_zero(seeds) -> list[str]:
    """A code submission's seeds are the harness's 0, 1, ..., n-1, as `leaderboard reproduce` scores
    them: ``submit --seeds 3 8 11 17 42`` recorded the five best of forty one-seed `check` runs of a
    seed-sensitive predictor (a lower mean than its seeds 0-4 earn), as *reproduced*, and the
    reviewer's `reproduce --submission` then refused to score it again (thirty-ninth pass)."""
    distinct = {int(s) for s in seeds}
    shown = picked_seeds(distinct) if all(0 <= s < MAX_SEED for s in distinct) else None  # else check_seed_range
    if shown is None:
        return []
    return [f"seeds {shown}: a record's seeds are 0 to n-1 (no record picks its seeds; `leaderboard reproduce` "
            f"scores those): run --seeds {' '.join(map(str, range(max(len(distinct), MIN_SEEDS))))}"]


def check_dataset_ref(ref, board: Task, version: str, content_hash: str) -> list[str]:
    """Fields of submission.yaml's ``dataset`` block that disagree with the data being scored."""
    dataset, config, target = board.dataset.name, board.config.name, board.target.name
    problems = []
    short = dataset.split("/")[-1]
    if ref.name and ref.name.split("/")[-1] != short:
        problems.append(f"submission.yaml names dataset {ref.name!r} but it is scored on {dataset}: fix dataset.name "
                        "or --dataset")
    if ref.config and ref.config != config:
        problems.append(f"submission.yaml names config {ref.config!r} but it is scored on {config!r}: fix "
                        "dataset.config or --config")
    if ref.target and ref.target != target:
        problems.append(f"submission.yaml names target {ref.target!r} but it is scored on {target!r}: fix "
                        "dataset.target or --target")
    if ref.version and ref.version != version:
        problems.append(f"stale dataset version {ref.version} (the leaderboard scores {dataset} {version}): "
                        "redo the predictions on the current version")
    if ref.content_hash and ref.content_hash != content_hash:
        problems.append(f"dataset content hash {ref.content_hash[:16]}... does not match the leaderboard's "
                        f"{content_hash[:16]}... ({dataset}/{config} {version}): rebuild the dataset "
                        "(`perfgraphs datasets build`) and redo the predictions on it")
    return problems


def check_prediction_ids(label: str, ids: list[str], expected: list[str]) -> list[str]:
    try:
        check_ids(ids, expected)
    except IdMismatchError as exc:
        return [f"{label}: {exc}: give exactly one prediction per test sample_id"]
    return []


def check_values(label: str, values: np.ndarray, n: int, positive: bool) -> list[str]:
    """Shape, length, finiteness and sign of one seed's predictions."""
    values = np.asarray(values)
    if values.ndim != 1:
        hint = " (flatten it with .ravel())" if values.ndim == 2 and 1 in values.shape else ""
        return [f"{label}: predictions have shape {values.shape}, expected ({n},){hint}: predict must return "
                "one value per input graph"]
    if len(values) != n:
        return [f"{label}: {len(values)} predictions for {n} test graphs: return exactly one value per input graph"]
    if not np.issubdtype(values.dtype, np.number):
        return [f"{label}: predictions are not numbers (dtype {values.dtype})"]
    problems = []
    bad = ~np.isfinite(values)
    if bad.any():
        problems.append(f"{label}: {int(bad.sum())} prediction(s) are NaN or infinite (first at position "
                        f"{int(np.argmax(bad))}): every prediction must be a finite number")
    if positive:
        neg = np.isfinite(values) & (values <= 0)
        if neg.any():
            problems.append(f"{label}: {int(neg.sum())} prediction(s) are zero or negative (first "
                            f"{values[np.argmax(neg)]:g} at position {int(np.argmax(neg))}): this target is positive, "
                            "so predict in log space or clip at a small positive value")
    return problems


def _relative_changes(pred: np.ndarray, other: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(where ``other`` differs from ``pred`` beyond INVARIANCE_RTOL, the relative change of each value)."""
    with np.errstate(invalid="ignore", divide="ignore"):
        rel = np.abs(np.asarray(other, dtype=np.float64) - pred) / np.maximum(np.abs(pred), 1e-300)
    return ~(rel <= INVARIANCE_RTOL), rel


def check_invariance(label: str, pred: np.ndarray, probe_pred: np.ndarray, perm: np.ndarray) -> list[str]:
    """The probe is the test inputs in the order ``perm`` with fresh ids; undo the order and compare."""
    probe_pred = np.asarray(probe_pred, dtype=np.float64)
    if probe_pred.shape != pred.shape:
        return [f"{label}: predicting the shuffled test inputs returned shape {probe_pred.shape} instead of "
                f"{pred.shape}: predictions must not depend on the order of the inputs"]
    restored = np.empty_like(probe_pred)
    restored[perm] = probe_pred
    bad, rel = _relative_changes(pred, restored)
    if bad.any():
        return [f"{label}: predictions change when the test inputs are shuffled and their sample_ids re-labelled "
                f"({int(bad.sum())} of {len(pred)} differ, largest relative change {np.nanmax(rel):.3g}): predict "
                "each graph from its own features only, not from its position, its id or the other test graphs"]
    return []


def check_run_again(label: str, pred: np.ndarray, again: np.ndarray) -> list[str]:
    """A hidden-board run the harness ran again, after the other seeds, must predict what it predicted the
    first time: predictions that moved heard from a seed that ran in between (submit.hidden_run_order)."""
    again = np.asarray(again, dtype=np.float64)
    bad, rel = _relative_changes(pred, again) if again.shape == np.shape(pred) else (np.ones(1, bool), np.ones(1))
    if not bad.any():
        return []
    return [f"{label}: predicted the hidden inputs differently when the harness ran it again after the other seeds "
            f"({int(bad.sum())} of {len(pred)} differ, largest relative change {np.nanmax(rel):.3g}): a seed predicts "
            "from its own fit and inputs alone, not from anything an earlier seed left on the machine"]


def check_reported(reported, per_seed_mape: list[float]) -> list[str]:
    """The reported MAPE mean ± std must be what the per-seed scores give (sample std)."""
    mean, std = mean_std(per_seed_mape)
    problems = []
    if not math.isclose(reported.mape_pct_mean, mean, abs_tol=REPORTED_ATOL_PCT, rel_tol=1e-4):
        problems.append(f"reported MAPE mean {reported.mape_pct_mean:g} % does not match {mean:.4f} % recomputed "
                        "from the per-seed scores: report the mean of the per-seed MAPEs")
    if not math.isclose(reported.mape_pct_std, std, abs_tol=REPORTED_ATOL_PCT, rel_tol=1e-4):
        problems.append(f"reported MAPE std {reported.mape_pct_std:g} does not match {std:.4f} recomputed from the "
                        "per-seed scores: report the sample standard deviation (ddof=1) over seeds")
    return problems


def check_hyperparameters(chosen: dict, config: dict | None) -> list[str]:
    """Values the predictor says it used (its ``config``) must agree with submission.yaml."""
    if not config:
        return []
    problems = []
    for name, value in chosen.items():
        if name in config and config[name] != value and not _close(config[name], value):
            # the config is the predictor's own text (up to 1 MB): quoted in part
            problems.append(f"submission.yaml says {name} = {value!r} but the predictor's config has "
                            f"{_quoted(config[name])}: make hyperparameters.chosen the values actually used")
    return problems


def _close(a, b) -> bool:
    """Two values that read as the same number. A config value is whatever the predictor sent: an
    integer of 4,000 digits (JSON reads it whole) made ``float`` raise OverflowError, and `check`
    stopped with "internal error" (thirty-sixth pass): no number that large is a chosen value."""
    try:
        return math.isclose(float(a), float(b), rel_tol=1e-9)
    except (TypeError, ValueError, OverflowError):
        return False


def _quoted(value, limit: int = 200) -> str:
    text = repr(value)
    return text if len(text) <= limit else f"{text[:limit]}... ({len(text)} characters)"


def check_name_owner(results_root: Path | None, board: Task, method: str, authors: str) -> list[str]:
    """Whose entry a submission is, as the boards will show it (review of 2026-12-02), against the
    records of every dataset (a name is one team's across the leaderboard: ninth pass):

    - its authors name someone (``Anonymous`` or ``TBD`` could be any team);
    - none of them reads as a person another record names without being written as they are
      (:func:`perfgraphs.leaderboard.records.names.lookalike_people`: ``AIice Author`` or ``Bob
      Builder'`` beside Alice Author and Bob Builder), since the authors tell two entries apart;
    - a method name recorded on the dataset belongs to its author list, exactly as recorded, as a
      team name is Kaggle's (:func:`~perfgraphs.leaderboard.records.names.same_method`: case,
      punctuation, spaces and a ``(quick…)`` suffix aside): another list under it, even the same
      people written otherwise, would be a second row of that name; a team that grew keeps the
      recorded list for that method or names the new entry. Names that only resemble another
      team's are other entries, shown with their authors;
    - a person written exactly as a record writes them, and a method recorded under exactly these
      authors, are theirs to submit again, whatever was recorded beside them since: a hand-written
      look-alike never stops the team it imitates. Which came first is git's word, not a record's
      (a date is written by hand): the first main-line commit that added a record naming them
      (:func:`_first_additions`; an edit of the original's line since, a space added, re-dates
      nothing: fifteenth pass). A look-alike person, or a method under other authors, whose first
      record a reviewer merged after the original's is recorded but not owned, and passes here for
      nobody (thirteenth pass). Without the history (an installed package, a shallow clone) nothing
      is known to be first, and everything recorded is owned.

    The reference names and authors are :func:`check_reserved`'s, compared strictly."""
    from perfgraphs.leaderboard.records.results import read_all_entries

    if names_mod.names_nobody(authors):
        return [f"authors {authors!r} name nobody in particular: write the names of the people (or the team) who "
                "made the entry, as the leaderboard will show them"]
    entries = [e for e in read_all_entries(results_root, skipped=[]) if e.authors != REFERENCE_AUTHORS]
    # what a team has recorded is its own to write again: a hand-written look-alike of it, or its
    # method under other authors, never stops the team (eleventh pass), unless it came after the
    # name it imitates (thirteenth pass; see the docstring)
    first = _first_additions(results_root)
    # what the boards read, and what a competing record replaced in the commit that brought it
    # (:func:`_present_since`: a line of another team's edited into a look-alike of it, fifty-first pass)
    recorded = {(e.method, e.authors) for e in entries} | {
        (m, a) for m, a in getattr(first, "held", ()) if a != REFERENCE_AUTHORS}
    owned_people = _owned_people({p for _, a in recorded for p in names_mod.people(a)}, first)
    others = {a for m, a in recorded if a != authors and names_mod.same_method(method, m)}
    ours = getattr(first, "own", first)(lambda m, a: a == authors and names_mod.same_method(method, m))
    seen_by = getattr(first, "seen_by", lambda predicate, when: first(predicate))  # (ninety-fifth pass, side b)
    owns_method = any(a == authors and names_mod.same_method(method, m) for m, a in recorded) and not any(
        _before(seen_by(lambda m, a, o=o: a == o and names_mod.same_method(method, m), ours), ours) for o in others)
    problems = []
    # a name is a team's on every dataset (ninth pass); a record another replaced is compared too
    rows = [(e.method, e.authors, e.dataset, e.date_utc[:10]) for e in entries]
    rows += [(m, a, "the results' history", "since edited into another's")
             for m, a in sorted(recorded - {(e.method, e.authors) for e in entries})]
    for e_method, e_authors, e_dataset, e_date in rows:
        alike = [(mine, theirs) for mine, theirs in names_mod.lookalike_people(authors, e_authors)
                 if mine not in owned_people]
        if alike and not problems:
            mine, theirs = alike[0]
            problems.append(f"author {mine!r} reads like {theirs!r}, an author of {e_method!r} on "
                            f"{e_dataset} ({e_date}), without being written the same: write the "
                            "name as recorded if it is that person, otherwise so that it does not read like theirs")
        # a method the team recorded stays theirs, whoever was recorded since (twenty-second pass)
        named = None if owns_method else names_mod.named_person(method, authors, e_authors)
        if named is not None and not problems:
            problems.append(f"method {method!r} names {named!r}, an author of {e_method!r} on {e_dataset}: a method "
                            "names the entry, the authors field says whose it is")
        if not owns_method and e_authors != authors and names_mod.same_method(method, e_method):
            problems.append(f"method {method!r} is recorded by {e_authors!r} on {e_dataset} ({e_method!r}, "
                            f"{e_date}): a method's entries carry one author list; submit with exactly that "
                            "list if it is yours, or choose another name (names are compared ignoring case, "
                            "punctuation, spaces and a (quick) suffix)")
            break
    return problems


@one_reading()
def _first_additions(results_root: Path | None):
    """``first(predicate)``: the arrival on the main line (:func:`perfgraphs.leaderboard.records.history.line_changes`)
    of the records whose (method, authors) satisfy ``predicate``: for each (method, authors) the
    boards read now, the commit since which a record of it has been in the results files without a
    gap. Only records the boards read count (:func:`perfgraphs.leaderboard.records.results.read_line`):
    a line that is not one, one in another dataset's file, or one removed since claims nothing (a
    draft line merged early took a name from the team that recorded it later: twentieth pass). An
    edit or a move within one commit keeps the arrival (a space added re-dates nothing: fifteenth
    pass); a record removed and written again arrives again. Records never added on the main line
    (not committed yet, or in a file whose history cannot be read) come after all of them: one odd
    file never turns the order off (sixteenth pass). It answers None for everything where the
    results folder has no history to read."""
    from perfgraphs.leaderboard.records.history import full_history, line_changes, main_line_times
    from perfgraphs.leaderboard.records.results import RESULTS_DIR, read_line, results_files

    folder = Path(results_root or RESULTS_DIR)
    if not folder.is_dir() or not full_history(folder.resolve()):
        return lambda predicate: None
    changes: list[tuple[int, int, str, str]] = []
    sure: list[tuple[int, int, str, str]] = []  # less the lines dated after a later commit, not their own
    born: dict[tuple[str, str], list[tuple[int, float]]] = {}  # (arrival, date) of each line a key gained
    times: list[int] = []
    for path in results_files(folder):
        verdicts: dict[str, tuple[str, str] | None] = {}  # a line's text -> its (method, authors), once
        dates: dict[str, float] = {}
        unsure: set[str] = set()
        times = main_line_times(path) or []  # one repository's main line: the last is every file's
        capped = _capped_times(times)
        for when, delta, text in line_changes(path) or []:
            if text not in verdicts:
                record, why = read_line(text, path)
                # a record dated after the commit that brought it was no record then, and claims
                # nothing: one dated three days ahead, skipped until then, took the name from the
                # team that recorded it in between (twenty-fifth pass of 2026-12-02)
                date = _epoch(record["date_utc"]) - DATED_AFTER_SLACK_S if why is None else -math.inf
                late = when < len(times) and date > times[when]
                verdicts[text] = (record["method"], record["authors"]) if why is None and not late else None
                dates[text] = date
                if verdicts[text] is not None and when < len(capped) and date > capped[when]:
                    unsure.add(text)
            if verdicts[text] is not None:
                changes.append((when, delta, *verdicts[text]))
                if delta > 0:
                    born.setdefault(verdicts[text], []).append((when, dates[text]))
                if text not in unsure:
                    sure.append(changes[-1])
    since = _present_since(changes)
    # what may have been a record only after a later commit blocks nobody (ninety-first pass, side c)
    theirs = _present_since(sure) if len(sure) < len(changes) else since
    never = sys.maxsize

    def first(predicate, arrivals=theirs):
        return min((w for (m, a), w in arrivals.items() if predicate(m, a)), default=never)

    first.own = lambda predicate: first(predicate, since)
    first.seen_by = lambda predicate, when: _first_seen_by(theirs, born, times, predicate, when)
    first.held = frozenset(since)  # (method, authors) held now, or replaced by a competing record
    return first


def _first_seen_by(arrivals: dict[tuple[str, str], int], born: dict[tuple[str, str], list[tuple[int, float]]],
                   times: list[int], predicate, when: int) -> int:
    """:func:`_first_additions`' ``first(predicate)`` less the keys whose every line at their arrival is
    dated after the main-line commit ``when`` (a record's own later commit): such a record was not on
    the boards, by that commit's own time, when that commit landed, and takes no method from it. A pull
    request of two commits dated two days ahead, fast-forwarded, lay on the line's longest run where
    Alice Author's one honest commit after it did not (:func:`_dated_with_the_line`), so her commit capped
    nothing: Mal Lory's ``gnn-x`` in it, dated the same, stayed sure and first, and Alice's `check` of her
    own ``gnn-x`` was refused while Mal's passed (ninety-fifth pass, side b). Now the pair is the
    ninety-first pass's undecidable one: shared, never taken. ``born``: (arrival, date less the slack)
    of each line a key gained; ``times``: the main line's commit times."""
    if when >= len(times):
        return min((w for key, w in arrivals.items() if predicate(*key)), default=sys.maxsize)
    return min((w for key, w in arrivals.items() if predicate(*key)
                and any(d <= times[when] for at, d in born.get(key, ()) if at == w)), default=sys.maxsize)


def _capped_times(times: list[int]) -> list[float]:
    """Each main-line commit's committer time capped by every later one's and by now (a suffix
    minimum): the latest a commit can have landed, where an honest commit after it tells the truth.
    A committer chooses a commit's time (``GIT_COMMITTER_DATE``, kept by a fast-forward or rebase
    landing), and a pull request's commit dated three days ahead made its record, dated the same,
    "not after its commit": skipped by the boards until then, it took ``gnn-x`` from the team that
    recorded it in between (ninety-first pass, side c). A later commit can be dated back as well,
    so a record dated after its capped time but not after its own commit's is unsure, not late:
    it stays its team's (:func:`_first_additions`' ``first.own``) and blocks nobody else."""
    import time

    capped, low, caps = [], time.time(), _dated_with_the_line(times)
    for t, caps_earlier in zip(reversed(times), reversed(caps)):
        capped.append(min(low, t))
        if caps_earlier:  # a commit dated back off the line's run caps only itself (ninety-fourth pass)
            low = min(low, t)
    return capped[::-1]


def _dated_with_the_line(times: list[int]) -> list[bool]:
    """For each main-line commit, whether its time may cap the earlier commits' (:func:`_capped_times`):
    it lies on some longest non-decreasing run of the line's times, where an honest line's commits lie
    (each is made after its parent). One commit dated back caps nothing then: a fast-forwarded typo fix
    with ``GIT_COMMITTER_DATE`` of 2020 made every record before it "dated after its capped time", so
    none blocked anybody, and ``AIice Author`` and a ``GNN_X`` of Mal Lory's merged after it passed
    `check` beside Alice Author's ``gnn-x`` (the thirteenth pass's rule off for every earlier record;
    ninety-fourth pass, side b). To make m commits' records unsure a pull request needs at least m
    commits dated back among them, and a lone commit dated back beside one record stays the
    ninety-first pass's undecidable pair: both records stay their teams', neither blocks the other."""
    import bisect

    def run_lengths(values: list[int]) -> list[int]:
        tails: list[int] = []  # the least last value of a non-decreasing run of each length
        out = []
        for v in values:
            k = bisect.bisect_right(tails, v)
            tails[k:k + 1] = [v]
            out.append(k + 1)
        return out

    ending = run_lengths(times)
    starting = run_lengths([-t for t in reversed(times)])[::-1]
    longest = max(ending, default=0)
    return [e + s - 1 == longest for e, s in zip(ending, starting)]


# clocks differ: a record scored minutes before its merge may carry a time a little after it
DATED_AFTER_SLACK_S = 3600


def _epoch(date_utc: str) -> float:
    from datetime import datetime

    return datetime.fromisoformat(date_utc).timestamp()


def _present_since(changes: list[tuple[int, int, str, str]]) -> dict[tuple[str, str], int]:
    """For each (method, authors) with records at the end of ``changes`` ((arrival, +1 or -1,
    method, authors), any order), the arrival since which it has had one in every commit, a gap
    in which no competing record arrived (:func:`_competes`) aside.

    Why the exception: each first-parent commit is read as a state of the main line, but a branch
    merged by fast-forward (git's default when the main line has not moved, or a rebase merge) puts
    every commit of a pull request there. Two of them, one removing Alice's ``gnn-x`` line and the
    next putting it back, make a pull request whose diff is empty, and Alice's name re-dated after
    Mal's hand-written ``gnn-x``, merged before as nobody's: Mal's to submit under, Alice refused her
    own (fortieth pass of 2026-12-04). A gap still re-dates a record when another team's record under
    its name, or a look-alike of its people, arrived in it (a record retracted, the name taken
    meanwhile, and written again: twentieth pass); that arrival is a line the pull request adds."""
    count: Counter = Counter()
    since: dict[tuple[str, str], int] = {}
    gone: dict[tuple[str, str], tuple[int, int]] = {}  # key -> (its run's start, the arrival it ended)
    arrivals: list[tuple[int, tuple[str, str]]] = []  # (arrival, key) of each run that starts
    for when, group in groupby(sorted(changes, key=itemgetter(0)), key=itemgetter(0)):
        touched = set()
        for _, delta, method, authors in group:
            count[(method, authors)] += delta
            touched.add((method, authors))
        removed = []
        for key in sorted(touched):  # a commit's edit removes and adds the same key: no gap
            if count[key] <= 0:
                if key in since:
                    gone[key] = (since.pop(key), when)
                    removed.append(key)
            elif key not in since:
                run = gone.pop(key, None)
                if run is not None and _put_back(key, run[1], arrivals):
                    since[key] = run[0]  # put back with nothing competing meanwhile: the run goes on
                else:
                    since[key] = when
                    arrivals.append((when, key))
        # a record edited, in one commit, into a competing one (``Alice Author`` -> ``AIice Author``,
        # one letter of another team's line) was not retracted but taken over: it keeps its place,
        # and the look-alike that replaced it came after it (fifty-first pass)
        for key in removed:
            if _replaced(key, when, arrivals):
                since[key] = gone.pop(key)[0]
    return since


def _replaced(key: tuple[str, str], when: int, arrivals: list[tuple[int, tuple[str, str]]]) -> bool:
    """Whether ``key``, out of the files at the arrival ``when``, was replaced there by a competing
    record (:func:`_competes`) that arrived in the same commit."""
    return any(w == when and _competes(key, other) for w, other in arrivals)


def _put_back(key: tuple[str, str], ended: int, arrivals: list[tuple[int, tuple[str, str]]]) -> bool:
    """Whether ``key``, out of the files since the arrival ``ended``, comes back with no competing
    record arrived meanwhile (``arrivals``: (arrival, key) of each run started so far)."""
    return not any(ended <= when and _competes(key, other) for when, other in arrivals)


def _competes(key: tuple[str, str], other: tuple[str, str]) -> bool:
    """Whether the record ``other`` (method, authors) takes a claim of ``key``'s: its method under
    other authors, or a look-alike of one of its people (what :func:`check_name_owner` orders)."""
    return key[1] != other[1] and (names_mod.same_method(key[0], other[0])
                                   or bool(names_mod.lookalike_people(key[1], other[1])))


def _before(when: int | None, than: int | None) -> bool:
    """Known to have reached the main line in an earlier commit (one commit orders nothing)."""
    return when is not None and than is not None and when < than


def _owned_people(recorded: set[str], first) -> set[str]:
    """The people recorded as written, less those a look-alike written otherwise came before
    (``first``: :func:`_first_additions`; a look-alike's lines all dated after the person's own first
    commit came before nothing: :func:`_first_seen_by`, ninety-fifth pass)."""
    seen_by = getattr(first, "seen_by", lambda predicate, when: first(predicate))
    own = {p: getattr(first, "own", first)(lambda m, a, p=p: p in names_mod.people(a)) for p in recorded}
    return {p for p in recorded
            if not any(_before(seen_by(lambda m, a, q=q: q in names_mod.people(a), own[p]), own[p]) for q in recorded
                       if q.casefold() != p.casefold() and names_mod.lookalike_people(p, q))}


def check_duplicate(results_root: Path | None, board: Task, method: str, commit: str, test_set: str,
                    protocol: str = "") -> list[str]:
    from perfgraphs.leaderboard.records.results import find_duplicate

    found = find_duplicate(board, method, commit, test_set, results_root, protocol)
    if found is not None:
        return [f"duplicate submission: {method} at commit {commit[:12]} is already ranked on "
                f"{board.dataset.name}/{board.config.name}/{board.target.name} ({found.date_utc[:10]}): a new entry "
                "needs a new code commit"]
    return []


# Scores a record must carry as finite numbers (record_check.SEED_METRICS plus the accuracies):
# predictions of 1.7e308 are finite, but their errors overflow to inf, which strict JSON would store
# as null and the tables would then drop, rank first or crash on.
FINITE_SCORES = ("mape_pct", "rmse", "acc_5_pct", "acc_10_pct", "acc_15_pct")


def check_scores(label: str, scores: dict, pred: np.ndarray) -> list[str]:
    """Every score of one seed finite before anything is recorded; Kendall's τ may be undefined
    only for the reason it is undefined, constant predictions."""
    bad = [m for m in FINITE_SCORES if m in scores and not _finite_number(scores[m])]
    tau = scores.get("kendall_tau")
    if not _finite_number(tau) and not (tau is None and np.ptp(np.asarray(pred, dtype=float)) == 0):
        bad.append("kendall_tau")
    if bad:
        return [f"{label}: {', '.join(bad)} {'is' if len(bad) == 1 else 'are'} not finite (the errors of these "
                f"predictions overflow; largest prediction {float(np.max(np.abs(pred))):.3g}): predict values on "
                "the scale of the target"]
    return []


def _finite_number(value) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)




def reserved_names(results_root: Path | None = None) -> set[str]:
    """The reference baselines' method names, canonical (:func:`perfgraphs.leaderboard.names.canonical`):
    every folder of leaderboard/reference/, every registered reference and transfer baseline, and
    every method recorded by the reference authors, or by authors that read as them (with its
    " (quick)" or other parenthesised suffix removed)."""
    return {names_mod.canonical(n) for n in _reserved_spellings(results_root)} - {""}


@one_reading()
def _reserved_spellings(results_root: Path | None = None) -> set[str]:
    """:func:`reserved_names` as they are spelled (for messages)."""
    from perfgraphs.baselines.catalog import reference_names
    from perfgraphs.leaderboard.records.results import (RESULTS_DIR, file_lines, read_line, results_files,
                                                        stated_authors_and_method)

    names = reference_names()
    names |= {p.name for p in REFERENCE_DIR.iterdir() if p.is_dir()} if REFERENCE_DIR.is_dir() else set()
    for folder in {Path(results_root or RESULTS_DIR), RESULTS_DIR}:
        for path in results_files(folder):
            for line in file_lines(path):
                authors, method = stated_authors_and_method(line)
                if authors != REFERENCE_AUTHORS or (isinstance(method, str) and method.split(" (")[0] in names):
                    continue  # the line read in full would add nothing: not the reference authors', or reserved already
                record, why = read_line(line, path)
                # only a record the boards read: a hand-written line by "the reference authors" that is
                # never shown must not reserve a team's name (review of 2026-12-02)
                if why is None and record.get("authors") == REFERENCE_AUTHORS:
                    names.add(record["method"].split(" (")[0])
    return names


def check_reserved(method: str, authors: str, root: Path, results_root: Path | None = None) -> list[str]:
    """A submission may not take a reference baseline's name or author unless it *is* that reference:
    the repository's own, unmodified ``leaderboard/reference/<name>`` folder. Otherwise its record
    would replace the reference row on the site (the latest record of a method is the one ranked).

    Names are compared as people read them (:mod:`perfgraphs.leaderboard.records.names`): case, look-alike
    characters (``ѕ`` for ``s``, fullwidth letters), separators (``-_./`` and spaces) and suffixes
    (``/v2``, ``-v2``, `` (quick)``) do not make another name. Authors that read as the reference
    authors without being them byte for byte are refused even from the reference folder."""

    taken = names_mod.taken_name(method, _reserved_spellings(results_root))
    lookalike = names_mod.lookalike_authors(authors)
    by_reference = authors == REFERENCE_AUTHORS or lookalike
    if not (taken or by_reference):
        return []
    pristine = _pristine_reference(Path(root), REFERENCE_DIR)
    if not lookalike and pristine is not None and method.split(" (")[0] == pristine:
        return []
    if taken and not by_reference and _recorded_before_its_reference(method, authors, results_root):
        return []
    if lookalike:
        what = f"authors {authors!r} read as the reference authors {REFERENCE_AUTHORS!r}"
        what += f" and method {method!r} takes the reference baseline name {taken!r}" if taken else ""
    elif taken:
        what = f"method {method!r} takes the reference baseline name {taken!r} (names are compared ignoring " \
               "case, look-alike characters, - _ . / and spaces, and suffixes such as /v2 or (quick))"
    else:
        what = f"authors {authors!r} is the reference baselines' author"
    return [f"{what}, reserved for leaderboard/reference/: choose a method name that does not start with a "
            "reference baseline's name, and your own authors"]


def _recorded_before_its_reference(method: str, authors: str, results_root: Path | None) -> bool:
    """Whether these very authors have a record of this method that the boards show although it takes
    a reference's name: the readers show it only when its line reached the main line before the
    reference's folder did (:func:`perfgraphs.leaderboard.records.trust._named_before_its_reference`,
    thirty-sixth pass). Such a name is the team's (rule 5: a name is the first to record it), so its
    next entry under it is not refused either; a new name that takes the reference's still is
    (open lead of 2026-12-04: the team's records were shown, its re-submission refused)."""
    from perfgraphs.leaderboard.records.results import read_all_entries

    return any(e.authors == authors and names_mod.same_method(method, e.method)
               for e in read_all_entries(results_root, skipped=[]))


def _pristine_reference(root: Path, reference_dir: Path) -> str | None:
    """The name of the reference folder ``root`` is, if it is one of the repository's
    reference folders (not a symlink or copy) with no uncommitted change; else None."""
    try:
        resolved, refs = root.resolve(strict=True), reference_dir.resolve(strict=True)
    except OSError:
        return None
    if resolved.parent != refs or root.is_symlink():
        return None
    from perfgraphs.leaderboard.records.history import git

    # (history.git: files laid out as a bare repository in the folder are not read as one: twentieth pass)
    status = git(refs, "status", "--porcelain", "--", str(resolved))
    return None if status is None or status.strip() else resolved.name

