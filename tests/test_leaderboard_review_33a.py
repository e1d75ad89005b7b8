"""Thirty-third adversarial pass (2026-12-03), read side: what hand-written records in
``leaderboard/results/`` made the boards rank, and made their readers do."""

from __future__ import annotations

import json

import pytest

from perfgraphs.leaderboard.records.results import Entry, read_entries

from test_leaderboard_review_20261202 import _with_ratios
from stated_scores import with_rmse_restated
from test_leaderboard_trust import good_record


def _source() -> dict:
    """A record with labels (the first seed's pairs) and no per-configuration ratios."""
    pairs = [[10.0 + k, (10.0 + k) * (1.05 if k % 2 else 0.9)] for k in range(120)]
    mape = sum(abs(p - t) / t for t, p in pairs) / len(pairs) * 100
    seeds = [{**s, "mape_pct": mape, "acc_10_pct": 100.0} for s in good_record("src")["per_seed"]]
    for s in seeds:
        s.pop("per_family", None)
    return good_record("src", per_seed=seeds, actual_vs_predicted=pairs,
                       config="cpu-torch-fp32", target="latency_calibrated_ms")


def test_one_team_s_records_do_not_outvote_the_other_teams_labels():
    """Attack: on a board no reference was run on (an additional board: dippm's drift-calibrated
    latency, nnlqp's other platforms), the board's test configurations were the median of *every*
    record's labels. Two hand-written records of one author list (``Mal Lory``), labels × 1.01, beside
    two honest teams' entries: the median of four fell between the two label sets, on no record's,
    and the board printed "not ranked: ... not on the same test configurations", every row unranked
    (three such records ranked Mal Lory alone, the honest entries set aside). The ranks already
    count one entry a team (``team_best``); the labels are now voted on by one record a team, and
    the two honest teams outvote the one. Control: two *teams* with those labels (sock puppets,
    accepted) still outvote one honest entry, as the tenth pass's test says."""
    from perfgraphs.leaderboard.records import ranks

    source = _source()
    honest = [_with_ratios(source, "vera-net", "Vera Victim"), _with_ratios(source, "walt-net", "Walt Winner")]
    mallory = [_with_ratios(source, f"mal-{k}", "Mal Lory", 1.01) for k in "abc"]

    def board(records, **kw):
        ranked = ranks.rank_board([Entry(**r) for r in records], **kw)
        return {row.entry.method: row.rank_text for row in ranked.rows}, ranked.lines()

    before, _ = board(honest)
    assert set(before) == {"vera-net", "walt-net"} and "–" not in before.values()
    two, lines = board(honest + mallory[:2])
    assert two["vera-net"] != "–" and two["walt-net"] != "–", lines
    assert two["mal-a"] == two["mal-b"] == "–", lines
    three, lines = board(honest + mallory)
    assert three["vera-net"] != "–" and three["walt-net"] != "–", lines
    # control: the vote as it was (every record), which unranked both honest teams
    everyone = ranks.team_best
    try:
        ranks.team_best = lambda usable, repetitions=None: (usable, [])
        old, _ = board(honest + mallory[:2])
    finally:
        ranks.team_best = everyone
    assert old["vera-net"] == old["walt-net"] == "–", old
    # control: two teams with the other labels outvote one honest entry (the majority of teams decides)
    puppets = [_with_ratios(source, "sock-a", "Mal Lory", 1.01), _with_ratios(source, "sock-b", "Eve Ill", 1.01)]
    teams, _ = board(honest[:1] + puppets)
    assert teams["vera-net"] == "–" and teams["sock-a"] != "–"


def test_label_errors_whose_sum_overflows_skip_one_line(tmp_path):
    """Attack: a record's first-seed (label, prediction) pairs are checked against its MAPE with
    ``math.fsum`` of each pair's error; two pairs ``[1e-8, 1e300]`` have finite errors (1e308 each)
    whose sum is not, and ``fsum`` raised OverflowError: `leaderboard show` (and `build`, `check`,
    `submit`, every reader of the results files) stopped with "internal error: OverflowError:
    intermediate overflow in fsum", every board with it. Now the line is skipped with one warning,
    its MAPE not the one the pairs imply. Control: the same record with ordinary pairs reads."""
    record = good_record("overflow", tier="self-reported", hardware="not measured (self-reported)",
                         fit_seconds=None, predictions_per_second=None)
    results = tmp_path / "results"
    results.mkdir()
    path = results / "dippm.jsonl"
    path.write_text(json.dumps({**record, "actual_vs_predicted": [[1e-8, 1e300], [1e-8, 1e300]]}) + "\n")
    skipped: list[str] = []
    assert read_entries("dippm", results, skipped) == []
    assert len(skipped) == 1 and "actual_vs_predicted implies MAPE inf %" in skipped[0], skipped
    # control: pairs that imply the record's MAPE (20 %) read
    path.write_text(json.dumps(with_rmse_restated({**record, "actual_vs_predicted": [[10.0, 12.0], [10.0, 8.0]]})) + "\n")
    assert [e.method for e in read_entries("dippm", results, [])] == ["overflow"]


@pytest.mark.parametrize("pairs", [[[1e-8, 1e300]] * 3, [[1e-8, -1e300], [1e-8, 1e300]]])
def test_overflowing_label_errors_are_one_line_for_the_record_check(pairs):
    """The same check where a record is written (``append_entry``'s last guard) and read: one reason."""
    from perfgraphs.leaderboard.records.record_check import record_problem
    from perfgraphs.leaderboard.records.results import _FIELDS

    record = good_record("overflow", actual_vs_predicted=pairs)
    assert "implies MAPE inf %" in (record_problem(record, _FIELDS) or "")


def test_one_author_lists_flood_of_records_is_one_contender_of_the_ranking(monkeypatch):
    """Attack (reported by the thirty-third pass, fixed after it): the pairs of a ranking cost the
    cube of the entries compared (more pairs, and more resamples for Holm's thresholds), and every
    record was compared before one entry a team was chosen: 400 hand-written records of one author
    list took 11 s of `leaderboard show`, 1,600 about 12 minutes. The entries closer to the labels'
    means than the truth are now found from each entry's own interval (one bootstrap each), and the
    team's best is chosen before any pair is compared: 60 records of one author list beside two
    honest teams are one contender of three (62 were compared first). Control: the ranks are those
    of the three alone (the nineteenth pass's test keeps entries at the labels' means set aside)."""
    from perfgraphs.evaluation import ranking as ranking_module
    from perfgraphs.leaderboard.records import ranks

    source = _source()
    honest = [_with_ratios(source, "vera-net", "Vera Victim"), _with_ratios(source, "walt-net", "Walt Winner")]
    flood = [_with_ratios(source, f"mal-{k}", "Mal Lory") for k in range(60)]
    for k, record in enumerate(flood):  # each its own predictions: no two are copies
        record["per_seed"] = [{**s, "pred_over_label": [r * (1 + 1e-4 * (k + 1)) for r in s["pred_over_label"]]}
                              for s in record["per_seed"]]
    seen: list[int] = []
    real = ranking_module.paired_ranking

    def counted(contenders, *args, **kwargs):
        seen.append(len(contenders))
        return real(contenders, *args, **kwargs)

    monkeypatch.setattr(ranks, "paired_ranking", counted)
    flooded = ranks.rank_board([Entry(**r) for r in honest + flood])
    assert seen == [3], seen
    alone = ranks.rank_board([Entry(**r) for r in honest + flood[:1]])
    rank_of = lambda board: {row.entry.method: row.rank_text for row in board.rows}  # noqa: E731
    assert {m: r for m, r in rank_of(flooded).items() if m in rank_of(alone)} == rank_of(alone)
