"""Hundred-and-twelfth pass, side a (names, what 111a left): plain typos of the credit words.

The credit words (the organisers' words in authors, a tier's word in authors, a board's word in a
method) were read with look-alikes folded (110b, 111a) but compared letter for letter after that, so
a plain typo was another word: authors ``offical team``, ``oficial team``, ``officail team``,
``maintaners``, ``benchmark mantainers``, ``organisors``, ``organizors``, ``Mal Lory verifed``,
``Mal Lory (reprodued)``, ``hiden test`` and the methods ``gnn-x (hiden)``, ``gnn-x (verifed)``,
``gnn-x (offical)``, ``gnn-x (refrence)``, ``gnn-x (reproducd)``, ``gnn-x (self reportd)`` were
accepted (16 of 16 free), and hand-written dippm records ``gnn-x`` by ``offical team``, ``gnn-y
(verifed)`` and ``gnn-z (hiden)`` by Mal Lory and ``gnn-w`` by ``benchmark mantainers`` were read
and printed by ``leaderboard show`` with no note. None is free now.

A one-edit rule on the board words was judged too wide by 111a (``mlp-verifier`` is one edit from
``verified``). Now ``names._credit_typo`` reads a whole word as a credit word of six letters or more
when it is that word with a letter dropped or added *inside* it, two neighbours swapped, or a vowel
put for a vowel; a consonant for a consonant (``verifier``, ``maintained``) or a last letter dropped
or added (``organise``, ``reproduce``) stays another word. None of the 13,558 string literals of the
tests, package, docs and committed results changes classification.
"""
from perfgraphs.leaderboard.records import names
from perfgraphs.leaderboard.records.results import forget_checked

from test_leaderboard_review_111a import records_shown_unnoted, records_skipped

_RECORDS = [("gnn-x", "offical team"), ("gnn-y (verifed)", "Mal Lory"), ("gnn-z (hiden)", "Mal Lory"),
            ("gnn-w", "benchmark mantainers")]
_AUTHORS = ["offical team", "oficial team", "officail team", "maintaners", "benchmark mantainers", "organisors",
            "organizors", "Mal Lory verifed", "Mal Lory (reprodued)", "hiden test"]
_METHODS = ["gnn-x (hiden)", "gnn-x (verifed)", "gnn-x (offical)", "gnn-x (refrence)", "gnn-x (reproducd)",
            "gnn-x (self reportd)"]


def _free(tmp_path, results) -> list[str]:
    """Those of :data:`_AUTHORS` that ``check_reserved`` and the charset pass, and of :data:`_METHODS` that the
    charset passes."""
    from perfgraphs.leaderboard.records.check import check_reserved

    return ([a for a in _AUTHORS
             if check_reserved("gnn-x", a, tmp_path, results) + names.check_charset("authors", a) == []]
            + [m for m in _METHODS if names.check_charset("method", m) == []])


def test_typos_of_credit_words_read_as_them(tmp_path, capsys, monkeypatch):
    """Hand-written into the dippm results, ``gnn-x`` by ``offical team``, ``gnn-y (verifed)`` and
    ``gnn-z (hiden)`` by Mal Lory and ``gnn-w`` by ``benchmark mantainers`` are not read, the other
    typos are refused; honest words one other edit away stay free. Control: with no typo read, each
    record is read and shown by ``leaderboard show``, unnoted, and every typo is free."""
    from perfgraphs.leaderboard.records.check import check_reserved

    results = records_skipped(tmp_path, _RECORDS)
    assert _free(tmp_path, results) == []
    for honest in ("Ann Keeper", "Briton Hadden", "Mal Lory", "Oficina Lab", "Ava Reporter"):
        assert check_reserved("gnn-x", honest, tmp_path, results) + names.check_charset("authors", honest) == [], honest
    for honest in ("mlp-verifier", "maintained-gnn", "organise-net", "reproduce-lite", "hidder-net", "gnn-x v2"):
        assert names.check_charset("method", honest) == [], honest

    monkeypatch.setattr(names, "_credit_typo", lambda word: None)
    records_shown_unnoted(results, _RECORDS, capsys, monkeypatch)
    assert _free(tmp_path, results) == _AUTHORS + _METHODS
    monkeypatch.undo()
    forget_checked()
