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
