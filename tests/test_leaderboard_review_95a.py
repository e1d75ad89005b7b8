"""Ninety-fifth adversarial pass (2026-12-06), side a (ranks): a flood of worse entries re-rolled a rival's rank.

A board of more than 51 ranked entries draws more resamples than 4,000 (``80 × (entries - 1)``, so that
Holm's smallest threshold, 0.05 / (entries - 1), can be reached), and every entry's seeds were drawn
from a stream keyed on that number (``ranking._seeds_drawn``), its pairs read on all of them. So each
entry added past the 51st drew every entry's seeds anew and re-rolled every borderline comparison,
even an entry worse than every other, which is in no one's Holm family and should move no one. On the
dippm cpu latency board, Eve's `eve-boost` (the reference `layerwise-boost`'s errors x 0.863, 9.45 %
against the labels' means; `roofline-boost` 8.45 %) ranks 1 beside `roofline-boost`; 45 entries by 45
invented people (`static-xgboost`'s errors x 1.50 to 1.94: 30 % MAPE and worse, below every entry)
pushed it to rank 2 in `leaderboard show`, and the flooder could add entries one at a time until the
re-roll went their way. Now a board that needs more resamples adds rows and re-draws none
(``ranking._seed_counts``, whole chunks in ``ranking._chunk_draws``, the label shift measured on the
first 4,000), and each entry's comparisons are read on the rows its own family needs
(``ranking._rows_for_families``: its family is the entries of lower mean), so the flood moves no
rank, interval or Δ to best of the entries above it."""

from __future__ import annotations

import string

import numpy as np

from test_leaderboard_review_69c import _shown_ranks
from test_leaderboard_review_74c import _moved
from test_leaderboard_review_91a import _records


def _flood(worst: dict, k: int) -> dict:
    """``worst``'s record with its errors x (1.5 + k / 100), by an invented person of its own."""
    name = "".join(string.ascii_lowercase[(k // 26 ** i) % 26] for i in range(3))
    record = _moved(worst, f"flood-{k}", shrink=1.5 + 0.01 * k)
    return {**record, "authors": f"{name.capitalize()} Q{name}son", "run_identity": f"flood-{k}"}


def _before_this_pass(monkeypatch) -> None:
    """The rule before: seeds drawn on a stream keyed on the number of resamples, every pair read on all."""
    from perfgraphs.evaluation import ranking

    monkeypatch.setattr(ranking, "_seed_counts", lambda seed, role, s, b: np.random.default_rng(
        [seed, 2, role, s, b]).multinomial(s, np.full(s, 1.0 / s), size=b))
    monkeypatch.setattr(ranking, "_rows_for_families", lambda point, copy_of, base, alpha: [max(
        base, int(np.ceil(4 * max(1, len(point) - 1) / alpha)))] * len(point))


def test_entries_worse_than_every_other_move_no_rank(tmp_path, capsys, monkeypatch):
    """Attack: 45 entries, each by its own invented person and worse than every entry on the board,
    beside the references and `eve-boost`. `leaderboard show` ranks the references and `eve-boost` as
    without them (`eve-boost` 1). Control: on the rule before this pass, `eve-boost` falls to 2."""
    from perfgraphs.evaluation.ranking import paired_ranking, Contender

    references, eve, _ = _records()
    worst = next(r for r in references if r["method"] == "static-xgboost")
    floods = [_flood(worst, k) for k in range(45)]
    plain = _shown_ranks(tmp_path / "plain", [*references, eve], capsys, monkeypatch)
    flooded = _shown_ranks(tmp_path / "flooded", [*references, eve, *floods], capsys, monkeypatch)
    assert plain["eve-boost"] == plain["roofline-boost"] == "1", plain
    assert {m: flooded[m] for m in plain} == plain, flooded

    # the entries above the flood keep their intervals and Δ to best to the last digit
    rows = [np.array([s["pred_over_label"] for s in r["per_seed"]]) for r in [*references, eve, *floods]]
    alone = paired_ranking([Contender(str(i), r) for i, r in enumerate(rows[:7])])
    among = paired_ranking([Contender(str(i), r) for i, r in enumerate(rows)])
    assert among.resamples > alone.resamples
    kept = {e.name: (e.rank, e.mape_ci95, e.diff_ci95) for e in among.entries if int(e.name) < 7}
    assert kept == {e.name: (e.rank, e.mape_ci95, e.diff_ci95) for e in alone.entries}

    _before_this_pass(monkeypatch)
    rerolled = _shown_ranks(tmp_path / "rerolled", [*references, eve, *floods], capsys, monkeypatch)
    assert rerolled["eve-boost"] == "2", rerolled
