"""Seventy-fourth adversarial pass (2026-12-06), read side: `leaderboard show` versus the site on a pinned
board whose pin is not the build it ranks. Since the seventy-second pass a pinned board with records on its
pin ranks the build of its newest reference record where that is another build (``builds.pinned_build``),
but the site still stated the pin's hash as the board's build (``board_facts``) and both readers printed the
pin's ``test_n`` as its test size. One pull request re-pinning a config to its author's own build, with a
``test_n`` of its choosing, titled the site's board "build eeee…" above the reference's and Alice's rows
(scored on ``937e48dc``; `show` said ``937e48dc``), listed Mal's record there as "scored on earlier
dataset builds", and had `show` and the site print "test n = 9999" above every entry. Now a pin describes
the board only where the board ranks its build (``builds.ranked_pin``)."""

from __future__ import annotations

import json

from test_leaderboard_review_37a import UNPINNED, _board, _show
from test_leaderboard_review_72a import TITLE, _results


def _pin(results) -> None:
    """Mal's pull request: the config pinned to Mal's build, with a test size Mal wrote."""
    (results.parent / "builds.json").write_text(json.dumps({f"perfgraphs/dippm {UNPINNED}": {
        "content_hash": "e" * 64, "generators": {}, "test_n": {"latency_ms": 9999}}}))


def _site_facts(tmp_path, results) -> str:
    """The facts line the site states above the board."""
    from perfgraphs.leaderboard.site.pages import build_site

    text = build_site(tmp_path / "site", results).read_text()
    start = text.index("<p class=facts>", text.index("Additional boards"))
    return text[start:text.index("</p>", start)]


def test_a_pin_the_board_does_not_rank_states_neither_its_build_nor_its_test_size(tmp_path, capsys, monkeypatch):
    """Attack: Mal's pin (``eeee…``, test n 9999). The board ranks the reference's build (seventy-second
    pass); the site's facts and `show`'s title now both name that build and the test size of its entries
    (311), not Mal's. Control: with the pin describing the board as it stands (the rule before), the site
    states Mal's build and both readers Mal's test size."""
    from perfgraphs.leaderboard.records import builds
    from perfgraphs.leaderboard.site import pages

    results, honest = _results(tmp_path)
    ranked = honest[0]["dataset_content_hash"][:12]
    _pin(results)
    board = _board(_show(results, capsys), TITLE)
    assert f"build {ranked}" in board and "test n = 311" in board and "gnn-a" in board, board
    facts = _site_facts(tmp_path, results)
    assert f"build {ranked} · test n = 311" in facts, facts

    monkeypatch.setattr(builds, "ranked_pin", lambda pin, build: pin)  # control: the pin as it stands
    monkeypatch.setattr(pages, "ranked_pin", lambda pin, build: pin)
    board = _board(_show(results, capsys), TITLE)
    assert "test n = 9999" in board, board
    facts = _site_facts(tmp_path, results)
    assert "build eeeeeeeeeeee · test n = 9999" in facts, facts


def test_a_pin_the_board_ranks_states_its_test_size():
    """Honest neighbour: where the board ranks its pin, the pin is its build and test size."""
    from perfgraphs.leaderboard.records.builds import ranked_pin

    pin = {"content_hash": "a" * 64, "test_n": {"latency_ms": 311}}
    assert ranked_pin(pin, "a" * 64) is pin
    assert ranked_pin(pin, "b" * 64) is None and ranked_pin(None, "a" * 64) is None
