"""Hundred-and-thirteenth pass, side c (names, what 112a left): a place on the board claimed in words.

A method holding a board's word or ``rank`` and a digit is refused (the boards print the rank and
the tier in their own columns; twenty-fifth pass, 111a for ``rank l``), but a place written any other
way was a method's own word: ``gnn-x (rank one)``, ``gnn-x (ranked 1)``, ``gnn-x (ranked first)``,
``gnn-x (1st)``, ``gnn-x (2nd)``, ``gnn-x (top 1)``, ``gnn-x (top1)``, ``gnn-x (no. 1)``, ``gnn-x (number
one)``, ``gnn-x (first place)``, ``gnn-x (place 1)``, ``gnn-x (winner)`` and ``gnn-x (champion)`` were
accepted (13 of 13 free), and hand-written dippm records under four of them were read and printed by
``leaderboard show`` beside their real rank with no note. Now ``names._place_claim`` reads those as the
board's word; a number and its word must come together, so ``top-k-gnn``, ``first-order-mlp``,
``lstm-1st-order``, ``gnn-top-3-features``, ``one-shot-gnn`` and ``placement-gnn`` stay free."""

import json

from perfgraphs.leaderboard.records import names
from perfgraphs.leaderboard.records.results import forget_checked, read_entries, results_path

from test_leaderboard_review_111a import records_shown_unnoted, records_skipped
from test_leaderboard_trust import good_record

_RECORDS = ["gnn-x (rank one)", "gnn-y (1st)", "gnn-z (winner)", "gnn-w (top 1)"]
_METHODS = ["gnn-x (ranked 1)", "gnn-x (ranked first)", "gnn-x (2nd)", "gnn-x (top1)", "gnn-x (no. 1)",
            "gnn-x (number one)", "gnn-x (first place)", "gnn-x (place 1)", "gnn-x (champion)"]
_HONEST = ["top-k-gnn", "first-order-mlp", "lstm-1st-order", "gnn-top-3-features", "one-shot-gnn", "placement-gnn",
           "no-attention-gnn", "ranknet", "three-stage-gnn", "gnn-number-of-nodes", "gnn-x v2"]


def _free(methods: list[str]) -> list[str]:
    return [m for m in methods if names.check_charset("method", m) == []]


def test_a_place_claimed_in_words_reads_as_the_boards(tmp_path, capsys, monkeypatch):
    results = records_skipped(tmp_path, [(m, "Mal Lory") for m in _RECORDS])
    assert _free(_RECORDS + _METHODS) == [] and _free(_HONEST) == _HONEST

    monkeypatch.setattr(names, "_place_claim", lambda words: "")  # control: a place in words is the method's
    records_shown_unnoted(results, [(m, "Mal Lory") for m in _RECORDS], capsys, monkeypatch)
    assert _free(_RECORDS + _METHODS) == _RECORDS + _METHODS
    monkeypatch.undo()
    forget_checked()


_TYPED = ["refrence baselines", "reference baselnes", "refernce baselines", "ref baselines", "baseline references",
          "Refrence Baseline Team"]


def test_the_reference_authors_typed_without_the_projects_name_are_taken(tmp_path, monkeypatch):
    """Authors with both words of "reference baselines", either typed so, and no project name: 6 of 6
    free, a hand-written dippm record by ``refrence baselines`` read (112a's lead). Control: with
    ``_typed_reference_baselines`` off they are free again; people whose names share a few letters stay
    free either way."""
    from perfgraphs.leaderboard.records.check import check_reserved

    def free(authors: list[str]) -> list[str]:
        return [a for a in authors if check_reserved("gnn-x", a, tmp_path, results) == []]

    forget_checked()
    results = tmp_path / "results"
    path = results_path("dippm", results)
    path.parent.mkdir(parents=True)
    path.write_text(json.dumps(good_record("gnn-x", authors="refrence baselines", run_identity="r-0")) + "\n")
    skipped: list[str] = []
    assert read_entries("dippm", results, skipped) == [] and len(skipped) == 1, skipped
    honest = ["Ann Baseline", "Refik Basel", "Referee Baseman", "Mal Lory"]
    assert free(_TYPED) == [] and free(honest) == honest

    monkeypatch.setattr(names, "_typed_reference_baselines", lambda words: False)
    forget_checked()
    assert [e.authors for e in read_entries("dippm", results, [])] == ["refrence baselines"]
    assert free(_TYPED) == _TYPED and free(honest) == honest
    monkeypatch.undo()
    forget_checked()
