"""Hundred-and-fourteenth pass, side c (names, what 112a left): a typo and a look-alike in one credit word.

Credit words are read with look-alikes folded (110b, 111a: ``i``, ``l`` and ``1`` one stroke) and with one
plain typo (112a, ``names._credit_typo``), but each rule alone: ``offlcal`` (an ``i`` written ``l`` and the
other ``i`` dropped) was neither, and the authors ``offlcal team``, ``0fflcal team`` and the methods
``gnn-x (offlcal)``, ``gnn-x (verlfed)``, ``gnn-x (h1den)`` were free (5 of 5); hand-written dippm
records ``gnn-x`` by ``offlcal team`` and ``gnn-y (verlfed)`` by Mal Lory were read and printed by
``leaderboard show`` with no note. Now ``names._credit_typo_as_read`` applies the typo rule to both words
as read. Of 8,260 quoted strings of the tracked files, none changes how ``credit_in_method`` or
``is_reference_authors`` classifies it."""

from perfgraphs.leaderboard.records import names
from perfgraphs.leaderboard.records.results import forget_checked

from test_leaderboard_review_111a import records_shown_unnoted, records_skipped

_RECORDS = [("gnn-x", "offlcal team"), ("gnn-y (verlfed)", "Mal Lory")]
_AUTHORS = ["offlcal team", "0fflcal team"]
_METHODS = ["gnn-x (offlcal)", "gnn-x (verlfed)", "gnn-x (h1den)"]
_HONEST = ["mlp-verifier", "maintained-gnn", "organise-net", "reproduce-lite", "hidder-net", "gnn-x v2"]


def _free(tmp_path, results) -> list[str]:
    from perfgraphs.leaderboard.records.check import check_reserved

    return ([a for a in _AUTHORS if check_reserved("gnn-x", a, tmp_path, results) == []]
            + [m for m in _METHODS + _HONEST if names.check_charset("method", m) == []])


def test_a_typo_and_a_look_alike_in_one_credit_word(tmp_path, capsys, monkeypatch):
    results = records_skipped(tmp_path, _RECORDS)
    assert _free(tmp_path, results) == _HONEST

    monkeypatch.setattr(names, "_credit_typo_as_read", lambda word: None)  # control: each rule alone
    records_shown_unnoted(results, _RECORDS, capsys, monkeypatch)
    assert _free(tmp_path, results) == _AUTHORS + _METHODS + _HONEST
    monkeypatch.undo()
    forget_checked()
