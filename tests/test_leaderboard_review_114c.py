"""Hundred-and-fourteenth pass, side c (names, what 112a left): a typo and a look-alike in one credit word.

Credit words are read with look-alikes folded (110b, 111a: ``i``, ``l`` and ``1`` one stroke) and with one
plain typo (112a, ``names._credit_typo``), but each rule alone: ``offlcal`` (an ``i`` written ``l`` and the
other ``i`` dropped) was neither, and the authors ``offlcal team``, ``0fflcal team`` and the methods
``gnn-x (offlcal)``, ``gnn-x (verlfed)``, ``gnn-x (h1den)`` were free (5 of 5); hand-written dippm
records ``gnn-x`` by ``offlcal team`` and ``gnn-y (verlfed)`` by Mal Lory were read and printed by
``leaderboard show`` with no note. Now ``names._credit_typo_as_read`` applies the typo rule to both words
as read. Of 8,260 quoted strings of the tracked files, none changes how ``credit_in_method`` or
``is_reference_authors`` classifies it."""

import json

from perfgraphs.cli import main
from perfgraphs.leaderboard.records import names
from perfgraphs.leaderboard.records.results import forget_checked, read_entries, results_path

from test_leaderboard_trust import good_record

_RECORDS = [("gnn-x", "offlcal team"), ("gnn-y (verlfed)", "Mal Lory")]
_AUTHORS = ["offlcal team", "0fflcal team"]
_METHODS = ["gnn-x (offlcal)", "gnn-x (verlfed)", "gnn-x (h1den)"]
_HONEST = ["mlp-verifier", "maintained-gnn", "organise-net", "reproduce-lite", "hidder-net", "gnn-x v2"]


def _free(tmp_path, results) -> list[str]:
    from perfgraphs.leaderboard.records.check import check_reserved

    return ([a for a in _AUTHORS if check_reserved("gnn-x", a, tmp_path, results) == []]
            + [m for m in _METHODS + _HONEST if names.check_charset("method", m) == []])


def test_a_typo_and_a_look_alike_in_one_credit_word(tmp_path, capsys, monkeypatch):
    forget_checked()
    results = tmp_path / "results"
    path = results_path("dippm", results)
    path.parent.mkdir(parents=True)
    path.write_text("".join(json.dumps(good_record(m, authors=a, run_identity=f"r-{i}")) + "\n"
                            for i, (m, a) in enumerate(_RECORDS)))
    skipped: list[str] = []
    assert read_entries("dippm", results, skipped) == [] and len(skipped) == len(_RECORDS), skipped
    assert _free(tmp_path, results) == _HONEST

    monkeypatch.setattr(names, "_credit_typo_as_read", lambda word: None)  # control: each rule alone
    forget_checked()
    assert sorted(e.method for e in read_entries("dippm", results, [])) == sorted(m for m, _ in _RECORDS)
    capsys.readouterr()
    monkeypatch.setenv("COLUMNS", "200")
    assert main(["leaderboard", "show", "--results", str(results)]) == 0
    out = capsys.readouterr().out
    assert all(x in out for pair in _RECORDS for x in pair) and "look-alike" not in out, out
    assert _free(tmp_path, results) == _AUTHORS + _METHODS + _HONEST
    monkeypatch.undo()
    forget_checked()
