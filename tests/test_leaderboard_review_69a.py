"""Sixty-ninth adversarial pass (2026-12-06), read side: a hidden board's noise floor and its machine's
drift (``hidden.hidden_noise_text``, printed above the table by `leaderboard show` and the site) were read
from the set's definition as it is. One pull request that dropped the ``host_speed`` block of a round
whose latency board holds keeper-ranked, verified records (the round of 2026-12-05: "the machine ran 43
public configurations at 0.62x ... a score here includes that drift") took that warning off the board,
and one that rewrote its noise floor (5.5 % between visits to 60 %) printed the keeper's ranks as lying
within the labels' own noise. Now a round's floor and drift are the first ones the main line stated for
its set (``hidden._first_stated``)."""

from __future__ import annotations

import json

from test_leaderboard_review_48a import CONFIG, DATASET, SET, TARGET, _keyed_set

FLOOR = {"between_visits_mape_pct": 5.5, "between_visits_median_pct": 4.1, "split_half_median_pct": 3.7,
         "split_half_mean_pct": 4.0}
DRIFT = {"median_ratio": 0.62, "q1_ratio": 0.55, "q3_ratio": 0.70, "configurations": 43}


def _definition(folder, floor: dict | None, drift: dict | None) -> None:
    measured = {"visits": 3, "configurations": 150, "noise_floor": {TARGET: floor}}
    if drift is not None:
        measured["host_speed"] = {TARGET: drift}
    (folder / "dippm-cpu-torch-fp32.json").write_text(json.dumps({"sha256": SET, "architectures": ["vit-x"],
                                                                    "measured": measured}))


def _text() -> str:
    from perfgraphs.leaderboard.records.hidden import hidden_noise_text

    return hidden_noise_text(DATASET, CONFIG, TARGET, SET) or ""


def _round(git_commitments, tmp_path, drift_later: bool = False):
    folder, commit = git_commitments
    keeper = tmp_path / "keeper"
    keeper.mkdir()
    _keyed_set(folder, commit, keeper, SET)
    _definition(folder, FLOOR, None if drift_later else DRIFT)
    commit("the round's definition: its noise floor and the probe of the machine")
    if drift_later:  # the keeper's probe, run after the round (as on 2026-12-05)
        _definition(folder, FLOOR, DRIFT)
        commit("the round's probe: the machine at 0.62x")
    return folder, commit


def _tamper(folder, commit) -> None:
    _definition(folder, {**FLOOR, "between_visits_mape_pct": 60.0}, None)
    commit("tidy the definition")


def test_a_pull_request_cannot_hide_the_drift_or_raise_the_noise_floor(git_commitments, tmp_path):
    """Attack: a pull request drops the round's ``host_speed`` and writes 60 % for its floor between
    visits; the board read the file as it is, no drift sentence and a floor that swallows the ranks."""
    folder, commit = _round(git_commitments, tmp_path)
    before = _text()
    assert "0.62x" in before and "5.5 %" in before
    _tamper(folder, commit)
    assert _text() == before


def test_the_guard_off_shows_the_tampered_text_and_a_later_probe_still_shows(git_commitments, tmp_path,
                                                                              monkeypatch):
    """Controls: the keeper's probe committed after the round's floor is printed (first stated for its
    set); with the file as it is read alone, the same pull request hides the drift and forges the floor."""
    from perfgraphs.leaderboard.records import hidden

    folder, commit = _round(git_commitments, tmp_path, drift_later=True)
    assert "0.62x" in _text() and "5.5 %" in _text()
    _tamper(folder, commit)
    assert "0.62x" in _text() and "5.5 %" in _text()
    monkeypatch.setattr(hidden, "_first_stated", lambda place, head, name, sha, target, measured: measured)
    assert "0.62x" not in _text() and "60.0 %" in _text()
