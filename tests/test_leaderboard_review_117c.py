"""Hundred-and-seventeenth adversarial pass (2026-12-07), side c (names: a hidden board's words in authors).
An author list holding a tier's word or ``hidden test`` is refused (twenty-seventh pass, ``names.tier_in_authors``),
but ``hidden`` before any other word of what a hidden board keeps was free: authors ``Mal Lory (hidden set)``,
``Mal Lory hidden labels``, ``Mal Lory (hidden-board)``, ``Mal Lory hiddenset`` and ``Mal Lory (hiden set)`` were
accepted (5 of 5), and hand-written dippm records ``gnn-x`` by ``Mal Lory (hidden set)`` and ``gnn-y`` by
``Mal Lory hidden labels`` were read and printed by ``leaderboard show`` as "gnn-x by Mal Lory (hidden set)" on a
public board. Now ``hidden`` and a word of :data:`names._HIDDEN_OBJECTS`, apart or run together, is a tier's
words in authors (``names._hidden_object``); ``Ann Hidde``, ``Hiddenite Lab`` and ``Mal Lory (set theory)`` stay free."""

from __future__ import annotations

from test_leaderboard_review_111a import records_shown_unnoted, records_skipped

from perfgraphs.leaderboard.records import names

_RECORDS = [("gnn-x", "Mal Lory (hidden set)"), ("gnn-y", "Mal Lory hidden labels")]
_AUTHORS = ["Mal Lory (hidden set)", "Mal Lory hidden labels", "Mal Lory (hidden-board)", "Mal Lory hiddenset",
            "Mal Lory (hiden set)"]


def _free(tmp_path, results, authors: list[str]) -> list[str]:
    from perfgraphs.leaderboard.records.check import check_reserved

    return [a for a in authors if check_reserved("gnn-x", a, tmp_path, results) + names.check_charset("authors", a) == []]


def test_hidden_and_what_it_keeps_in_authors_is_a_tiers_words(tmp_path, capsys, monkeypatch):
    """Attack: the two records are not read and the five author lists are refused; honest names stay free.
    Control: with ``hidden`` and its object not read, both records are read and shown, and all five are free."""
    results = records_skipped(tmp_path, _RECORDS)
    assert _free(tmp_path, results, _AUTHORS) == []
    assert names.check_charset("authors", "Mal Lory (hidden set)")[0].startswith(
        "authors 'Mal Lory (hidden set)' hold 'hidden set', a tier's word")
    honest = ["Ann Hidde", "Hiddenite Lab", "Mal Lory (set theory)", "Hidden Markov Lab"]
    assert _free(tmp_path, results, honest) == honest

    monkeypatch.setattr(names, "_hidden_object", lambda word, after: False)
    records_shown_unnoted(results, _RECORDS, capsys, monkeypatch)
    assert _free(tmp_path, results, _AUTHORS) == _AUTHORS
