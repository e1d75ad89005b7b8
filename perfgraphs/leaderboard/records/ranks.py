"""A board's rank groups, from its records: the paired bootstrap of
:mod:`perfgraphs.evaluation.ranking` fed with each entry's per-configuration errors.

A record keeps, per seed, every test configuration's prediction / label (``pred_over_label``, in
the test part's order; :mod:`perfgraphs.leaderboard.records.record_check` ties it to the seed's scores and
to the first seed's (label, prediction) pairs). Records without it (written before 2026-11-28, a
hidden test set's aggregates, a transfer protocol's per-draw scores) cannot be paired: they are
listed below the ranked ones, unranked, with the reason. (The first seed's pairs alone are not
used: one seed chosen by the record would stand for five.)
"""

from __future__ import annotations

import re
from math import erfc
from collections import Counter
from dataclasses import dataclass, replace

import numpy as np

from perfgraphs.evaluation.ranking import (MIN_RANKED_CONFIGS, Contender, LabelRepetitions, Ranked, Ranking,
                                           RankingInputError, UNRESAMPLED_LABELS, UNRESAMPLED_LABELS_BEFORE,
                                           mape_intervals, paired_ranking)
from perfgraphs.evaluation.scoring import PER_CONFIG_KEY
from perfgraphs.leaderboard.records.digest import record_sha256
from perfgraphs.leaderboard.records.results import Entry
from perfgraphs.leaderboard.records.tiers import SELF_REPORTED
from perfgraphs.registry import Task


RANK_RULE = ("entries are compared paired, on the same test configurations: a bootstrap over the configurations, "
             "each entry's seeds and, where the labels were measured repeatedly, their repetitions; an entry's rank "
             "is 1 + the number of entries better than it beyond that noise (its comparisons with the entries of "
             "lower mean, Holm-adjusted, 5 %), never above an entry with a lower mean MAPE, so entries the data "
             "cannot separate share a rank group; Δ to best is the paired difference in MAPE points with its 95 % "
             "interval; one entry per team is ranked (its best); boards under 100 test configurations and (quick) runs "
             "on official boards are not ranked")


@dataclass(frozen=True)
class BoardRow:
    entry: Entry
    ranked: Ranked | None  # None: not paired (the board's notes say why); rank 0: paired, board not ranked

    @property
    def rank_text(self) -> str:
        return str(self.ranked.rank) if self.ranked is not None and self.ranked.rank > 0 else "–"


@dataclass(frozen=True)
class BoardRanking:
    rows: tuple[BoardRow, ...]  # ranked rows by rank, then the others by mean MAPE
    ranking: Ranking | None
    notes: tuple[str, ...]  # one line each: what the ranks rest on and what they leave out

    def lines(self) -> list[str]:
        return ([self.ranking.summary()] if self.ranking is not None else []) + list(self.notes)


def per_config_ratios(e: Entry) -> np.ndarray | None:
    """(seeds × configurations) prediction / label of a record; None unless every seed has them."""
    seeds = [s.get(PER_CONFIG_KEY) for s in e.per_seed]
    if all(isinstance(s, list) and s for s in seeds) and len({len(s) for s in seeds}) == 1:
        return np.asarray(seeds, dtype=float)
    return None


def _labels_of(e: Entry) -> np.ndarray | None:
    pairs = e.actual_vs_predicted
    if pairs and all(isinstance(p, list) and len(p) == 2 for p in pairs):
        try:
            return np.asarray([p[0] for p in pairs], dtype=float)
        except (TypeError, ValueError):
            return None
    return None


def is_quick(method: str) -> bool:
    """A CI-sized run (``--quick``: ``<method> (quick)``, ``<method> (quick, 400 training graphs)``)."""
    return re.search(r" \(quick[,)]", method, re.IGNORECASE) is not None  # "(Quick)" is one too


# a record's labels are the build's rounded to 4 significant digits (relative error <= 5e-4)
LABELS_RTOL = 2e-3


def _sizes_mode(sizes: list[int]) -> int | None:
    """The one size most of ``sizes`` are; None when there are none or two sizes tie."""
    counts = Counter(sizes).most_common(2)
    return None if not counts or (len(counts) == 2 and counts[0][1] == counts[1][1]) else counts[0][0]


def board_configurations(usable: list, repetitions: LabelRepetitions | None,
                         unranked: tuple[Entry, ...] = ()) -> tuple[int | None, np.ndarray | None]:
    """(number of test configurations, their labels in the test part's order, or None) of a board,
    from one source, never from a vote between records (a tie between two records that each agree
    with most of the others, none with each other, unranked every board: ninth pass of 2026-12-02):

    1. the label repetitions' labels (the build's own, in its order) where some record is on them;
    2. else the element-wise median of the reference baselines' labels (their records are read only
       at a commit holding the reference's code, and `reproduce` scores them again), over those of
       the size most of them have; a reference recorded without per-configuration ratios
       (``unranked``: the board's records without them) counts too (tenth pass);
    3. else the same over one record with ratios a team (:func:`team_best`: a board no reference was
       run on, the majority of teams decides). Every record voted: two hand-written records of one
       author list, labels × 1.01, outvoted the two other teams of an additional board and left it
       unranked, as three would have ranked them alone (thirty-third pass of 2026-12-03).
    Without labels, the size most records have. ``usable``: (record, ratios) of the records with
    per-configuration ratios."""
    from perfgraphs.leaderboard.records.references import REFERENCE_AUTHORS

    def on(item, labels: np.ndarray) -> bool:
        lab = _labels_of(item[0])
        return lab is not None and lab.shape == labels.shape == (item[1].shape[1],) \
            and bool(np.allclose(lab, labels, rtol=LABELS_RTOL))

    if repetitions is not None and any(on(u, repetitions.labels) for u in usable):
        return len(repetitions), repetitions.labels
    references = [u for u in usable if u[0].authors == REFERENCE_AUTHORS] + \
        [(e, None) for e in unranked if e.authors == REFERENCE_AUTHORS]
    for group in (references, team_best(usable)[0]):
        labelled = [lab for e, r in group if (lab := _labels_of(e)) is not None and lab.ndim == 1
                    and (r is None or lab.shape == (r.shape[1],))]
        if labelled:
            n = _sizes_mode([len(lab) for lab in labelled])
            return (None, None) if n is None else (n, np.median([lab for lab in labelled if len(lab) == n], axis=0))
        if any(r is not None for _, r in group):
            return _sizes_mode([r.shape[1] for _, r in group if r is not None]), None
    return None, None


def other_test_size(entries: list[Entry]) -> list[Entry]:
    """The entries without per-configuration ratios whose seeds state another test than the board's: another
    size (:func:`board_test_n`), or held-out platform rows (platform -> ``n``) other than its references'
    (:func:`board_platform_rows`). Nothing else places them: a transfer line whose draws held out only the
    easy platform (n = 1,207 of the board's 13,795, its rows and scores self-consistent) was listed at
    2.55 % beside entries scored on every held-out platform, with nothing saying so (hundred-and-fifteenth
    pass, side a's lead), and one that dropped the hardest platform's row and added its n to the easiest's
    kept the board's size (hundred-and-sixteenth pass, side c)."""
    n, platforms = board_test_n(entries), board_platform_rows(entries)
    if n is None and platforms is None:
        return []
    return [e for e in entries if per_config_ratios(e) is None
            and any((n is not None and s.get("n") is not None and s.get("n") != n)
                    or (platforms is not None and _platform_rows(s) != platforms) for s in e.per_seed)]


def board_platform_rows(entries: list[Entry]) -> dict[str, object] | None:
    """A transfer board's held-out platforms and each one's test size (``per_platform``: platform -> ``n``), from
    its references' first draw (every draw of every committed transfer record on one board states the same
    rows); None where no reference states them."""
    from perfgraphs.leaderboard.records.references import REFERENCE_AUTHORS

    for e in entries:
        if e.authors == REFERENCE_AUTHORS and not _public_self_reported(e) and e.per_seed:
            rows = _platform_rows(e.per_seed[0])
            if rows:
                return rows
    return None


def _platform_rows(seed: dict) -> dict[str, object] | None:
    """A draw's ``per_platform`` as platform -> its ``n``, or None where it states none."""
    rows = seed.get("per_platform")
    return {p: r.get("n") for p, r in rows.items() if isinstance(r, dict)} if isinstance(rows, dict) else None


def _other_size_notes(entries: list[Entry]) -> list[str]:
    """One line naming the entries :func:`other_test_size` finds, or none."""
    other = other_test_size(entries)
    if not other:
        return []
    n, platforms = board_test_n(entries), board_platform_rows(entries)
    board = " ".join(filter(None, (f"n = {n}" if n is not None else "",
                                   f"on its {len(platforms)} held-out platforms" if platforms else "")))
    shown = ", ".join(f"{e.method} by {e.authors} (n = {e.per_seed[0].get('n')})" for e in other[:5])
    return [f"{len(other)} entr{'ies' if len(other) > 1 else 'y'} scored on another test than the board's "
            f"({board}), not comparable with it: {shown}{', ...' if len(other) > 5 else ''}"]


def board_test_n(entries: list[Entry]) -> int | None:
    """The test size a board states where ``leaderboard/builds.json`` pins none (an unpinned config,
    a target the pin does not list, a hidden set), from the one source its configurations come from
    (:func:`board_configurations`: the references', else one record a team; never a self-reported
    record's); a hidden board's records are all its keeper's. It was the first seed's ``n`` of the
    board's first current record, the one whose hand-written date is oldest: a self-reported line
    dated 2020, ``n: 7`` and no per-configuration ratios to check it by, titled the unpinned dippm
    board "test n = 7" above its reference ranked on 311 configurations (fortieth pass of 2026-12-04)."""
    from perfgraphs.leaderboard.records.references import REFERENCE_AUTHORS

    if entries and all(e.test_set == "hidden" for e in entries):
        n = entries[0].per_seed[0].get("n")
        return n if isinstance(n, int) else None
    ran = [e for e in entries if not _public_self_reported(e)]
    usable = [(e, r) for e in ran if (r := per_config_ratios(e)) is not None]
    references = [e for e in ran if e.authors == REFERENCE_AUTHORS]
    n = board_configurations(usable, None, tuple(e for e in references if per_config_ratios(e) is None))[0]
    if n is None and references:  # no ratios nor pairs (a transfer's per-draw scores): the newest reference's
        n = max(references, key=lambda e: e.date_utc).per_seed[0].get("n")
    return n if isinstance(n, int) else None


def _on_the_boards_configurations(usable: list, repetitions: LabelRepetitions | None,
                                  unranked: tuple[Entry, ...] = ()) -> tuple[list, list, np.ndarray | None]:
    """(the entries on the board's test configurations (:func:`board_configurations`), the others,
    the board's labels or None). A record with labels is on them when its labels are the board's;
    one without, when it has as many configurations."""
    n, labels = board_configurations(usable, repetitions, unranked)
    if n is None:
        return [], usable, None

    def on(item) -> bool:
        return item[1].shape[1] == n and labels_place_it(_labels_of(item[0]), labels)

    return [u for u in usable if on(u)], [u for u in usable if not on(u)], labels


def labels_place_it(own: np.ndarray | None, labels: np.ndarray | None) -> bool:
    """Whether a record whose first seed's pairs give the labels ``own`` (None: it holds no pairs) is on
    a board's test configurations ``labels`` (None: the board has no labels to place records by, and
    a record's size alone places it). Where the board has labels, a record without its own is on them
    no more than one with another board's: its ratios are tied to no label and no order, and every
    writer of a record with ratios writes its pairs (`submit`, the runner). Read by size alone, Eve's
    copy of `serving-prior-boost`'s record on the ML.ENERGY energy-per-token board (21.78 %), restated
    as a ``median_itl_ms`` record with its pairs left out, was ranked 1 on the official inter-token
    latency board beside `static-mlp` (23.78 %), every reference of rank 3 and below a rank down,
    where the same record with its pairs is set aside as on other labels (hundred-and-tenth pass,
    side a)."""
    if labels is None:
        return True
    return own is not None and own.shape == labels.shape and bool(np.allclose(own, labels, rtol=LABELS_RTOL))


def rank_board(entries: list[Entry], repetitions: LabelRepetitions | None = None,
               min_configs: int = MIN_RANKED_CONFIGS, official: bool = False,
               sealed: dict | None = None) -> BoardRanking:
    """Rank groups of one board's current entries (one build, one test set, one protocol). On an
    ``official`` board, CI-sized (quick) runs are smoke tests: listed, never ranked. ``sealed``: a
    hidden board's ranks as its keeper published them (:mod:`perfgraphs.leaderboard.records.sealed_ranks`)."""
    if sealed is not None:
        return _sealed_board(entries, sealed, official)
    smoke = [e for e in entries if official and is_quick(e.method)]
    # predictions files are not run here, and a public test part's labels and their repetitions are
    # public: predictions at the repetitions' means ranked first at 1 % MAPE, 16 times under the noise
    # floor (eighteenth pass). Listed beside the ranks, never in them, as a quick run is.
    self_reported = [e for e in entries if _public_self_reported(e) and e not in smoke]
    usable, unusable = [], []
    for e in entries:
        if (official and is_quick(e.method)) or _public_self_reported(e):
            continue
        ratios = per_config_ratios(e)
        (usable if ratios is not None else unusable).append((e, ratios))
    notes, ranking = _other_size_notes(entries), None
    # the references' labels anchor the board whether or not their records can be ranked (tenth pass)
    usable, misaligned, board_labels = _on_the_boards_configurations(
        usable, repetitions, tuple(e for e, _ in unusable) + tuple(smoke) + tuple(self_reported))
    if misaligned and not usable:
        notes.append("not ranked: the entries' per-configuration records are not on the same test configurations "
                     "(sizes " + ", ".join(map(str, sorted({r.shape[1] for _, r in misaligned}))) + ")")
    elif misaligned:
        # records of one build always agree; a hand-edited one may not, and it is set aside alone
        # (it unranked the whole board before, listing a lookup table first: review of 2026-12-02)
        shown = ", ".join(f"{e.method} by {e.authors}" for e, _ in misaligned[:5]) + (", ..." if len(misaligned) > 5 else "")
        notes.append(f"{len(misaligned)} entr{'ies' if len(misaligned) > 1 else 'y'} unranked: per-configuration "
                     f"records not on the board's test configurations (another size, other labels or another order): {shown}")
    seconds: list[Entry] = []
    if usable:
        n = usable[0][1].shape[1]
        if repetitions is not None and len(repetitions) != n:  # records of another test part
            notes.append(f"label repetitions not used: they cover {len(repetitions)} test configurations, "
                         f"the entries {n}")
            repetitions = None
        elif repetitions is not None and board_labels is not None and board_labels is not repetitions.labels:
            # the board's configurations are not the repetitions' (no record is on them: as many
            # configurations, other labels or another order): pairing them would score each
            # prediction against another configuration's measurements
            notes.append("label repetitions not used: their labels are not the entries' labels, in the "
                         "entries' order")
            repetitions = None
        try:
            usable, fitted, rows = _without_fitted(usable, repetitions, notes)
            misaligned = misaligned + fitted
            # a team's best among the entries left (a fitted one took its team's place: 22nd pass),
            # before any pair is compared: a ranking of every record first cost the cube of their
            # number, 11 s for 400 records of one author list, 12 min for 1,600 (thirty-third pass)
            usable, seconds = team_best(usable, repetitions)
            # each entry's bootstrap, drawn once for the test above, serves the ranking too
            ranking = paired_ranking([Contender(f"{i}", r) for i, (_, r) in enumerate(usable)], repetitions,
                                     min_configs=min_configs, boot=[rows[id(u)] for u in usable]) if usable else None
        except RankingInputError as exc:
            notes.append(f"not ranked: {exc}")
            unusable, usable = unusable + usable, []
    rows = _ranked_rows(ranking, usable, repetitions, notes) if ranking is not None else []
    for e, _ in sorted(unusable + misaligned, key=lambda er: _or_inf(er[0].mean_std("mape_pct")[0])):
        rows.append(BoardRow(e, None))
    if unusable:
        notes.append(f"{len(unusable)} entr{'ies' if len(unusable) > 1 else 'y'} unranked: no per-configuration "
                     "errors for every seed in the record (recorded before 2026-11-28, hidden-set aggregates or "
                     "per-draw transfer scores), so no paired comparison is possible")
    for group, note in ((seconds, "entr{} listed unranked: a team's best entry on a board is ranked, its others are "
                                  "listed (each entry added with a lower mean loosens the adjusted comparisons of "
                                  "the entries below it; reference baselines aside)"),
                        (self_reported, "self-reported entr{} listed unranked: predictions files are not run here, "
                                         "and nothing shows they were not fitted to the public test labels; the ranks "
                                         "hold entries the harness ran"),
                        (smoke, "(quick) entr{} listed unranked: CI-sized settings are smoke tests, and an official "
                                "board ranks full-strength runs only"
                                + ("" if usable else "; no full-strength entry is on this board yet"))):
        rows += [BoardRow(e, None) for e in sorted(group, key=lambda e: _or_inf(e.mean_std("mape_pct")[0]))]
        if group:
            notes.append(f"{len(group)} " + note.format("ies" if len(group) > 1 else "y"))
    return BoardRanking(tuple(rows), ranking, tuple(notes))


def unregistered_board(dataset: str, config: str, target: str, recorded) -> str | None:
    """Why a board the registry does not resolve (``recorded``: a
    :class:`~perfgraphs.leaderboard.records.results.RecordedBoards`) ranks nothing; None when it
    resolves. No submission can be scored on a dataset, config or target the registry lacks, so only
    a hand-written record (or one from before a registry change) names one: ``latency_MS`` beside
    dippm's ``latency_ms`` made an additional board whose one hand-written entry was ranked 1 as
    reproduced (twenty-seventh pass of 2026-12-03). Its records are shown, never ranked."""
    if recorded.task(dataset, config, target) is not None:
        return None
    return (f"not ranked: the registry has no board {dataset} · {config} · {target} (no submission can be scored on "
            "it: a hand-written record, or one from before the registry changed), so its entries are listed only")


def unranked_board(entries: list[Entry], why: str) -> BoardRanking:
    """Every entry listed, by mean MAPE, none ranked, with ``why`` as the board's note."""
    rows = tuple(BoardRow(e, None) for e in sorted(entries, key=lambda e: _or_inf(e.mean_std("mape_pct")[0])))
    return BoardRanking(rows, None, (why,))


def team_best(usable: list, repetitions: LabelRepetitions | None = None) -> tuple[list, list[Entry]]:
    """(the entries ranked, the others, each of which shares a person with a ranked entry of lower
    mean): one ranked entry per person, as Kaggle's private leaderboard has one row per team. People
    are matched however written (:func:`perfgraphs.leaderboard.records.names.share_a_person`: ``Mal
    Lory``, ``M. Lory``, ``Mal Lory (ETH Zurich)``, ``Lory, Mal``: twenty-first and twenty-fifth
    passes). Seven entries of one team, six of them seed-mixed with a better predictor, lifted the
    seventh a rank and pushed the entries below it down six (each entry with a lower mean widens an
    entry's Holm family: twentieth pass of 2026-12-02). The reference baselines are the project's
    own, each ranked. ``repetitions``: the board's label repetitions, where it ranks against their
    means: a team's best is its best by the MAPE the board ranks by, not by its own labels' (on the dippm
    cpu latency board a team's copy of `roofline-boost`, 14.33 % against the build's labels and 8.45 %
    against their means, went unranked for its constant 1.13 ratio, 13.00 % and 16.25 %, ranked 5th where
    its better entry shares the 1st: seventy-sixth (ranks) pass)."""
    from perfgraphs.leaderboard.records.references import REFERENCE_AUTHORS

    scale = 1.0
    if repetitions is not None and repetitions.repeated.any() and all(
            u[1].shape[-1] == len(repetitions) for u in usable):
        scale = repetitions.to_means()[None, :]  # as the ranking puts them (ranking._on_label_means)
    # Entries by mean MAPE over their per-configuration ratios, lowest first; each is ranked unless a
    # ranked one shares a person with it. Teams merged wherever two author lists shared someone made
    # a third record a bridge: `joint-net` by `Alice Author, Bob Builder` (names written as recorded,
    # which `check` takes as theirs), at 20 %, made Alice's and Bob's entries one team and took Bob's
    # rank-3 entry off the board, every entry below it a rank up (sixty-ninth pass). Now an entry
    # leaves the ranks only for an entry of lower mean that names one of its own people.
    ranked: list = []
    for item in sorted(usable, key=lambda u: (float(np.mean(np.abs(u[1] * scale - 1.0))), u[0].method, u[0].authors)):
        if item[0].authors == REFERENCE_AUTHORS or not _shares_a_person(item[0].authors, ranked):
            ranked.append(item)
    chosen = {id(u) for u in ranked}
    return [u for u in usable if id(u) in chosen], [u[0] for u in usable if id(u) not in chosen]


def _shares_a_person(authors: str, ranked: list) -> bool:
    """Whether ``authors`` share a person with a contributor's entry of ``ranked`` (each author list
    compared once)."""
    from perfgraphs.leaderboard.records.names import share_a_person
    from perfgraphs.leaderboard.records.references import REFERENCE_AUTHORS

    return any(share_a_person(authors, other) for other in dict.fromkeys(
        u[0].authors for u in ranked if u[0].authors != REFERENCE_AUTHORS))


def _public_self_reported(e: Entry) -> bool:
    """Predictions files scored on a public test part (a hidden set's labels are not theirs to see)."""
    return e.tier == SELF_REPORTED and e.test_set == "public"


def _ranked_rows(ranking: Ranking, usable: list, repetitions: LabelRepetitions | None,
                 notes: list[str]) -> list[BoardRow]:
    """The ranked entries' rows, by rank; what the ranks rest on, in ``notes``."""
    method = {str(i): e.method for i, (e, _) in enumerate(usable)}
    rows = []
    for r in ranking.entries:
        e = usable[int(r.name)][0]
        rows.append(BoardRow(e, Ranked(e.method, r.rank if ranking.ranked else 0, r.mape_pct, r.mape_ci95,
                                       r.diff_to_best, r.diff_ci95, tuple(method[b] for b in r.better_than))))
        if r.raised_by:
            beaten = sum(r.name in other.better_than for other in ranking.entries)
            other = usable[int(r.raised_by)][0]  # named with its authors: two rows may share a method
            entries = "entry is" if beaten == 1 else "entries are"
            notes.append(f"{e.method} by {e.authors} ranks {r.rank} though {beaten} {entries} "
                         f"better than it beyond the noise: {other.method} by {other.authors} has a lower mean MAPE "
                         f"and ranks {r.rank}, and no entry ranks above one of lower mean")
    notes.append(repetitions_note(repetitions) if ranking.label_noise else
                 "the labels have one measurement each: the ranks ignore label noise (see the noise floor)")
    return rows


def _without_fitted(usable: list, repetitions: LabelRepetitions | None,
                    notes: list[str]) -> tuple[list, list, dict[int, np.ndarray]]:
    """(the entries left, the entries closer to the labels' means than the truth would be:
    :func:`truth_mape_pct`, each entry's bootstrap row by ``id``), the second named in ``notes``: an entry whose own MAPE interval lies
    below that floor (:func:`~perfgraphs.evaluation.ranking.mape_intervals`, each entry's alone), or
    one of whose seeds does with each configuration's error capped (:func:`_seeds_closer_than_truth`)."""
    label_noise, intervals, boot = mape_intervals([Contender(f"{i}", r) for i, (_, r) in enumerate(usable)], repetitions)
    rows = {id(u): row for u, row in zip(usable, boot)}
    floor = truth_mape_pct(repetitions) if label_noise else 0.0
    beyond = {i for i, (_, hi) in enumerate(intervals) if hi < floor}
    if label_noise:
        beyond |= _seeds_closer_than_truth(usable, repetitions)
    if not beyond:
        return usable, [], rows
    fitted = [usable[i] for i in sorted(beyond)]
    shown = ", ".join(f"{e.method} by {e.authors}" for e, _ in fitted[:5])
    notes.append(f"{len(fitted)} entr{'ies' if len(fitted) > 1 else 'y'} unranked: closer to the labels' means than "
                 f"the true values would be ({floor:.1f} % MAPE, from the means' standard errors; the entry, or one "
                 f"of its seeds with each configuration's error capped at {FITTED_CAP_SE:g} standard errors), which "
                 f"only predictions fitted to the test measurements are: {shown}")
    return [u for i, u in enumerate(usable) if i not in beyond], fitted, rows


# a configuration's error counts up to this many standard errors of its labels' mean in the test of
# :func:`_seeds_closer_than_truth` (the truth's error past it: 0.3 % of configurations)
FITTED_CAP_SE = 3.0


def _seeds_closer_than_truth(usable: list, repetitions: LabelRepetitions) -> set[int]:
    """The entries (indices of ``usable``) one of whose seeds, each configuration's error against the
    labels' means capped at :data:`FITTED_CAP_SE` of its mean's standard errors, has a 95 % interval
    (configurations drawn) below what the true values would score so capped. The entry's interval
    alone let a table of the means escape by one configuration × 6 (2.60 % [0.60, 6.24] against a
    3.9 % floor) or one seed × 1.08 of five (2.41 % [1.12, 4.40]), each ranked first alone
    (thirty-fourth pass of 2026-12-03). A predictor that has not seen the measurements is no closer
    to them than the truth in any seed, and a capped error is still no smaller (its error is the
    truth's plus an independent one): the references' seeds are 7.5 % and above on dippm cpu latency."""
    se = relative_standard_errors(repetitions)
    c = FITTED_CAP_SE
    # the truth's capped MAPE: its expected |error| s·sqrt(2/π) (truth_mape_pct) less what lies past c·s
    floor = truth_mape_pct(repetitions) * (1 - np.exp(-c * c / 2) + c * erfc(c / np.sqrt(2)) / np.sqrt(2 / np.pi))
    to_means = repetitions.to_means()
    seeds, owner = [], []
    for i, (_, r) in enumerate(usable):
        for s, errors in enumerate(np.minimum(np.abs(r * to_means[None, :] - 1.0), c * se[None, :])):
            seeds.append(Contender(f"{i}.{s}", 1.0 + errors[None, :]))
            owner.append(i)
    _, intervals, _ = mape_intervals(seeds, None)
    return {owner[k] for k, (_, hi) in enumerate(intervals) if hi < floor}


def _sealed_board(entries: list[Entry], sealed: dict, official: bool) -> BoardRanking:
    """A hidden board ranked by its keeper: each entry the published ranks name (run identity and
    method) with the MAPE they were computed from takes its rank from them; the others are listed
    unranked, with why."""
    listed = sealed.get("entries") if isinstance(sealed.get("entries"), list) else []
    by_identity = {x["run_identity"]: x for x in listed if isinstance(x, dict) and isinstance(x.get("run_identity"), str)}
    ranked, later, changed, smoke = [], [], [], []
    for e in entries:
        x = by_identity.get(e.run_identity)
        found = _sealed_rank(x, bool(sealed.get("ranked"))) if x is not None and x.get("method") == e.method else None
        if official and is_quick(e.method):
            smoke.append(e)
        elif x is None or x.get("method") != e.method:
            later.append(e)
        elif found is None or x.get("record_sha256") != record_sha256(e) \
                or not np.isclose(e.mean_std("mape_pct")[0], found.mape_pct, rtol=0, atol=1e-4):
            changed.append(e)
        else:
            ranked.append(BoardRow(e, replace(found, name=e.method)))
    rows = sorted(ranked, key=lambda r: (r.ranked.rank, r.ranked.mape_pct))
    rows += [BoardRow(e, None) for e in sorted(later + changed + smoke, key=lambda e: _or_inf(e.mean_std("mape_pct")[0]))]
    notes = [str(sealed.get("summary", "")).replace(UNRESAMPLED_LABELS_BEFORE, UNRESAMPLED_LABELS),
             f"ranked by the hidden set's keeper on its labels (computed {sealed.get('computed_at_utc', '?')}; "
             "the records carry aggregates only, so the ranks are the keeper's published ones)"]
    notes += _not_in_the_ranks_notes(later, str(sealed.get("computed_at_utc", "")))
    gone = sorted({str(x.get("method")) for i, x in by_identity.items() if i not in {e.run_identity for e in entries}})
    if gone:  # the ranks and differences shown were computed with them (pass 122a's lead: a line taken out)
        notes.append(f"{len(gone)} entr{'ies' if len(gone) > 1 else 'y'} the keeper ranked not among this board's "
                     f"current records (withdrawn, taken out of the results or superseded by its team's later "
                     f"record): {', '.join(gone)[:200]}; the ranks and differences shown were computed with them")
    if changed:
        notes.append(f"{len(changed)} entr{'ies' if len(changed) > 1 else 'y'} unranked: the record's MAPE is not "
                     "the one the keeper ranked (a record changed after it was ranked, or a copy of one), or its "
                     "published rank is not well-formed")
    if smoke:
        notes.append(f"{len(smoke)} (quick) entr{'ies' if len(smoke) > 1 else 'y'} listed unranked: CI-sized "
                     "settings are smoke tests, and an official board ranks full-strength runs only")
    return BoardRanking(tuple(rows), None, tuple(n for n in notes if n))


def _not_in_the_ranks_notes(later: list[Entry], computed_at_utc: str) -> list[str]:
    """Why entries the keeper's ranks do not name are unranked: scored after the ranks were computed, or
    scored before and not among them (a record the keeper could not vouch for, a team's second entry: the
    ranks file's ``left_out`` says which). Both read alike before (review of 2026-12-07), the first wrong
    for the second. Record dates and ``computed_at_utc`` are one ISO format, so text order is time order."""
    after = [e for e in later if not computed_at_utc or e.date_utc > computed_at_utc]
    before = [e for e in later if e not in after]
    notes = []
    if after:
        notes.append(f"{len(after)} entr{'ies' if len(after) > 1 else 'y'} unranked: scored after the keeper's "
                     "ranks were computed: ranked when the keeper computes them again")
    if before:
        notes.append(f"{len(before)} entr{'ies' if len(before) > 1 else 'y'} unranked: scored before the keeper's "
                     "ranks were computed and not in them (the ranks file's left_out says why: a record the keeper "
                     "could not vouch for, or a team's second entry)")
    return notes


def _sealed_rank(x: dict, ranked: bool) -> Ranked | None:
    """A published rank as the board shows it; None when a field is missing, of another type or not
    finite (the file is text too: it is read, never trusted to be well-formed)."""
    try:
        rank = int(x["rank"]) if ranked else 0
        numbers = [float(x["mape_pct"]), float(x["diff_to_best"]), *map(float, x["mape_ci95"]), *map(float, x["diff_ci95"])]
        if len(x["mape_ci95"]) != 2 or len(x["diff_ci95"]) != 2 or not np.isfinite(numbers).all() or rank < 0:
            return None
        better = tuple(str(b) for b in x.get("better_than", ()))
    except (KeyError, TypeError, ValueError, OverflowError):
        return None
    return Ranked("", rank, numbers[0], (numbers[2], numbers[3]), numbers[1], (numbers[4], numbers[5]), better)


def interval_text(lo: float, hi: float) -> str:
    return f"[{lo:.2f}, {hi:.2f}]"


def diff_text(row: BoardRow) -> str:
    """The effect size: MAPE points above the board's best entry, with its paired 95 % interval."""
    r = row.ranked
    if r is None:
        return "–"
    if r.diff_to_best == 0.0:  # an unranked board (rank 0) has a lowest MAPE, not a best entry
        return "best" if r.rank > 0 else "lowest MAPE (not ranked)"
    return f"+{r.diff_to_best:.2f} {interval_text(*r.diff_ci95)}"


def _or_inf(value: float) -> float:
    return value if np.isfinite(value) else np.inf


def truth_mape_pct(repetitions: LabelRepetitions) -> float:
    """The MAPE the true values would score against the labels' means, expected from the means'
    standard errors (sqrt(2/π) × the relative standard error where a configuration is measured
    twice or more, 0 where once), in percent. An entry whose whole interval lies below it is closer
    to the measurements than the truth is: fitted to them (nineteenth pass of 2026-12-02: a code
    table of the public repetitions' means ranked first at 0.10 % against a 3.8 % floor)."""
    errors = relative_standard_errors(repetitions)
    return float(np.sqrt(2 / np.pi) * np.mean(errors) * 100) if len(errors) else 0.0


def relative_standard_errors(repetitions: LabelRepetitions) -> np.ndarray:
    """Each configuration's standard error of its labels' mean over that mean (0 where measured once)."""
    return np.asarray([float(np.std(v, ddof=1) / np.sqrt(len(v)) / np.mean(v)) if len(v) >= 2 and np.mean(v) > 0
                       else 0.0 for v in repetitions.values], dtype=float)


def repetitions_note(repetitions: LabelRepetitions) -> str:
    """What the ranked MAPEs are measured against, where the labels have repetitions."""
    counts = repetitions.counts[repetitions.repeated]
    k = f"{counts.min()}" if counts.min() == counts.max() else f"{counts.min()}-{counts.max()}"
    part = ("every test configuration" if repetitions.repeated.all()
            else f"{len(counts)} of the {len(repetitions)} test configurations (the others: their one measurement)")
    if np.allclose(repetitions.to_means(), 1.0, rtol=1e-6):  # a config measured in rounds: its label is their mean
        return f"each label is the mean of its {k} measurements, for {part}"
    return (f"ranked MAPEs are against each label's mean of its {k} measurements (each later visit first divided by "
            f"its pass's median ratio to the labels), for {part}; a record's own MAPE (the Evaluator's) is against "
            "the build's label, one measurement")


def label_repetitions(board: Task, test_set: str = "public", protocol: str = "") -> LabelRepetitions | None:
    """Each test configuration's repeated measurements of the board's label, in the test part's
    order (a cross-validated board's: every row, in fold order; :func:`perfgraphs.data.repeats.
    part_repetitions`: its rounds, or the label and its visits, each visit on the labels' scale);
    None where they are one measurement (or the test set is hidden: its labels are not here)."""
    cfg = board.config
    if test_set != "public" or (cfg.min_rounds < 2 and cfg.repeat_suite is None):
        return None
    from perfgraphs.evaluation.protocol import protocol_parts

    from perfgraphs.collect.errors import CorruptStoreFileError
    from perfgraphs.errors import PerfgraphsError

    try:
        _, data = protocol_parts(board, protocol=protocol or None)
    except CorruptStoreFileError:
        # a damaged store is no board without repetitions: read as one, a clone whose Parquet shards a
        # `.gitattributes` line converted ranked on single measurements, saying none were repeated
        # (the forty-sixth pass's lead): it stops the reader, in one line
        raise
    except PerfgraphsError:
        return None  # a record's protocol this board does not run (hand-written): no repetitions to pair
    return part_label_repetitions(board, data.test)


def part_label_repetitions(board: Task, test) -> LabelRepetitions | None:
    """:func:`label_repetitions` of a test part already loaded (``submit`` has it)."""
    from perfgraphs.data.repeats import part_repetitions

    if board.config.min_rounds < 2 and board.config.repeat_suite is None:
        return None
    from perfgraphs.leaderboard.records.builds import RepetitionsPinError, repetitions_pin_problem

    # the visits a board ranks against are the pinned ones: a store a pull request grew is no input
    if why := repetitions_pin_problem(board):
        raise RepetitionsPinError(why)
    values = part_repetitions(board.dataset, board.config, board.target.name, test, on_label_scale=True)
    if values is None:
        return None
    labels = np.asarray([np.nan if v is None else v for v in test[board.target.name][:]], dtype=float)
    return LabelRepetitions(labels, tuple(np.asarray(v, dtype=float) for v in values))


def mape_text(row: BoardRow) -> str:
    """Mean MAPE over seeds and, where paired, its 95 % bootstrap interval."""
    r = row.ranked
    if r is None:
        mean, std = row.entry.mean_std("mape_pct")
        return f"{mean:.2f} ± {std:.2f} (seed std)"
    return f"{r.mape_pct:.2f} {interval_text(*r.mape_ci95)}"
