"""A hidden round's board says how many of the configurations its draw took were measured (126a's lead).
``build-hidden`` keeps the configurations measured ``ok`` only: those that timed out or failed left the round
with no word on its board (a source plan's ``timeout_s`` set to 10 s would have dropped 23 of a draw's 118
slow configurations, and on the public test part moved a reference a rank). ``hidden-round.sh finish`` now
writes ``configurations_drawn`` beside ``configurations``, and ``hidden.hidden_noise_text`` says how many
timed out or failed, from the first main-line version that stated the round's floor (a later edit of the
definition moves nothing: 69a's ``_first_stated``)."""

from __future__ import annotations

import json

from test_leaderboard_review_48a import SET, TARGET, _keyed_set
from test_leaderboard_review_69a import FLOOR, _text


def _definition(folder, configurations: int, drawn: int | None) -> None:
    measured = {"visits": 3, "configurations": configurations, "noise_floor": {TARGET: FLOOR}}
    if drawn is not None:
        measured["configurations_drawn"] = drawn
    (folder / "dippm-cpu-torch-fp32.json").write_text(json.dumps({"sha256": SET, "architectures": ["vit-x"],
                                                                    "measured": measured}))


def _round(git_commitments, tmp_path, configurations: int, drawn: int | None):
    folder, commit = git_commitments
    keeper = tmp_path / "keeper"
    keeper.mkdir()
    _keyed_set(folder, commit, keeper, SET)
    _definition(folder, configurations, drawn)
    commit("the round's definition")
    return folder, commit


def test_a_round_that_lost_configurations_says_how_many(git_commitments, tmp_path):
    folder, commit = _round(git_commitments, tmp_path, 95, 118)
    text = _text()
    assert "their own 95 configurations" in text, text
    assert "The round measured 95 of the 118 configurations its draw took: 23 timed out or failed." in text, text
    _definition(folder, 118, 118)  # a later edit that makes the round read as whole moves nothing
    commit("tidy the definition")
    assert _text() == text


def test_a_whole_round_or_an_older_definition_says_nothing_more(git_commitments, tmp_path):
    _round(git_commitments, tmp_path, 118, 118)
    assert "their own 118 configurations" in _text() and "timed out" not in _text()


def test_an_older_definition_without_the_count_says_nothing_more(git_commitments, tmp_path):
    _round(git_commitments, tmp_path, 95, None)
    assert "their own 95 configurations" in _text() and "timed out" not in _text()


def test_the_finish_step_counts_the_drawn_plans_configurations():
    """``finish`` states ``configurations_drawn`` as the collector's own parse of the drawn plan counts them (no
    test runs that block of the script end to end: it needs a measured round): a draw of 5 variants a family
    from the public cpu plan, each at 2 input sizes and 3 batch sizes, is 150 configurations."""
    from pathlib import Path

    from perfgraphs.collect.plan import parse_plan
    from perfgraphs.collect.variants import hidden_plan

    root = Path(__file__).resolve().parents[1]
    assert '"configurations_drawn": len(parse_plan(plan_doc, name=str(plan_doc.get("suite"))).configs)' in \
        (root / "plans" / "hidden-round.sh").read_text()
    doc = hidden_plan(root / "plans" / "dippm-cpu.yaml", seed=12345, per_family=5)
    models = sum(len(g["models"]) for g in doc["groups"])
    assert len(parse_plan(doc, name=str(doc.get("suite"))).configs) == models * 2 * 3 == 150
