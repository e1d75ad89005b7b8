"""What a rank line says about the labels: a board ranked without label repetitions held its labels
fixed, which is true of a public board measured once and of a hidden board, whose labels are medians of
visits the keeper does not resample. Until 2026-12-07 the line said "the labels have no repetitions",
wrong on the hidden round of that day (each label the median of 3 visits); the keeper's ranks files
signed then carry those words, and the board shows them in the current wording."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np

from perfgraphs.evaluation.ranking import (UNRESAMPLED_LABELS, UNRESAMPLED_LABELS_BEFORE, Contender,
                                           LabelRepetitions, paired_ranking)
from perfgraphs.leaderboard.records.ranks import rank_board

RANKS = Path(__file__).resolve().parents[1] / "leaderboard" / "hidden" / "ranks"


def _contenders(n: int = 120) -> list[Contender]:
    rng = np.random.default_rng(0)
    return [Contender(name, 1.0 + shift + 0.05 * rng.standard_normal((3, n))) for name, shift in
            (("a", 0.0), ("b", 0.3))]


def test_a_ranking_without_repetitions_says_the_labels_were_held_fixed():
    line = paired_ranking(_contenders(), None, resamples=200).summary()
    assert UNRESAMPLED_LABELS in line and "no repetitions" not in line


def test_control_a_ranking_with_repetitions_says_they_were_resampled():
    n = 120
    reps = LabelRepetitions(np.ones(n), tuple(np.array([1.0, 1.1, 0.9]) for _ in range(n)))
    line = paired_ranking(_contenders(n), reps, resamples=200).summary()
    assert "label repetitions resampled" in line and UNRESAMPLED_LABELS not in line


def test_a_ranks_file_signed_in_the_old_wording_is_shown_in_the_new():
    for path in sorted(RANKS.glob("*.json")):
        sealed = json.loads(path.read_text())
        assert UNRESAMPLED_LABELS_BEFORE in sealed["summary"], path  # as signed (the signature covers it)
        shown = rank_board([], sealed=sealed).lines()[0]
        assert UNRESAMPLED_LABELS in shown and "no repetitions" not in shown, (path, shown)
        assert shown.replace(UNRESAMPLED_LABELS, UNRESAMPLED_LABELS_BEFORE) == sealed["summary"]  # nothing else


def test_an_entry_missing_from_the_ranks_is_said_to_be_later_only_when_it_is():
    """An entry the keeper's ranks do not name is "scored after the ranks were computed" only when its
    record is dated after them; one dated before is "not in them". (Both read "scored after ... (or not in
    them)" before.) Entries: a record of the live latency board, under another run identity, dated each way."""
    from dataclasses import replace

    from perfgraphs.leaderboard.records.results import read_entries

    sealed = json.loads((RANKS / "dippm-cpu-torch-fp32--latency_ms.json").read_text())
    (entry,) = [e for e in read_entries("dippm") if e.run_identity == sealed["entries"][0]["run_identity"]]
    computed = sealed["computed_at_utc"]
    before = replace(entry, run_identity="0" * 16, date_utc="2026-12-07T17:00:00+00:00")
    after = replace(entry, run_identity="1" * 16, date_utc="2026-12-07T19:00:00+00:00")
    assert before.date_utc < computed < after.date_utc
    lines = rank_board([before], sealed=sealed).lines()
    assert any("scored before the keeper's ranks were computed and not in them" in line for line in lines), lines
    assert not any("scored after" in line for line in lines), lines
    lines = rank_board([after], sealed=sealed).lines()
    assert any("scored after the keeper's ranks were computed" in line for line in lines), lines
    assert not any("not in them" in line for line in lines), lines


def test_a_ranked_entry_taken_off_the_board_is_named():
    """The keeper's ranks name an entry whose record is no longer on the board (a line taken out of the
    results): the ranks and differences shown were computed with it, and the board says so, naming it.
    Control: with every ranked record on the board, no such line."""
    from perfgraphs.leaderboard.records.results import read_entries

    sealed = json.loads((RANKS / "dippm-cpu-torch-fp32--latency_ms.json").read_text())
    ranked = {x["run_identity"]: x["method"] for x in sealed["entries"]}
    entries = [e for e in read_entries("dippm") if e.run_identity in ranked]
    assert len(entries) == len(ranked) >= 2
    assert not any("the keeper ranked not among" in line for line in rank_board(entries, sealed=sealed).lines())
    first = sealed["entries"][0]
    lines = rank_board([e for e in entries if e.run_identity != first["run_identity"]], sealed=sealed).lines()
    (line,) = [line for line in lines if "the keeper ranked not among" in line]
    assert line.startswith("1 entry") and first["method"] in line, line
