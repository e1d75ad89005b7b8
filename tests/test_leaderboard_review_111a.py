"""Hundred-and-eleventh pass, side a (names, what 110b left): ``i``, ``l`` and ``1`` read alike in credit words.

The credit words (the organisers' words and the project's name in authors, a tier's word in authors,
a board's word or ``rank`` and a number in a method) were read with look-alikes folded by the
confusables table, which reads ``1`` and a capital ``I`` as ``l`` only, never as ``i``, and reads
``li`` as ``li``, never ``h``; the project's name allowed one edit on the letters as written, where
``li`` for ``h`` is two. So authors ``perfgraplis team``, ``organ1sers`` and ``offlcial team``, and the
methods ``gnn-y (rank l)`` and ``gnn-z (verif1ed)``, were accepted: ``check_reserved`` passed them,
and hand-written dippm records under them were read and printed by ``leaderboard show`` with no note.
Of 106 spellings of those words with one stroke or pair look-alike (an ``i``/``l`` written ``l``/``i``,
``1`` or ``I``, an ``h`` written ``li``/``l1``/``1i``/``Ii``, an ``n`` written ``ri``, an ``o`` written
``0``; ``rank`` with ``l``/``I``/``i`` for its ``1``): 34 of 56 organiser authors, 5 of 5 project-name
authors, 4 of 7 tier words in authors and 29 of 38 methods were free (72); none is now.

Now ``names._credit_words_as_read`` writes each word that looks like a credit word (``names._shapes``:
``i``, ``l``, ``1`` alike, the letter pairs read, ``0`` as ``o``) as that word, and a rank's number
written with letters as digits; ``names._project_as_read`` compares the project's name so. Applied to
credit words only: people's names keep their own rules (Ian and Lan stay two people). None of the
13,921 string literals of the tests, package, docs and committed results changes classification.
"""
import json

from perfgraphs.cli import main
from perfgraphs.leaderboard.records import names
from perfgraphs.leaderboard.records.results import forget_checked, read_entries, results_path

from test_leaderboard_trust import good_record

_RECORDS = [("gnn-x", "perfgraplis team"), ("gnn-y (rank l)", "Mal Lory"), ("gnn-z (verif1ed)", "Mal Lory"),
            ("gnn-w", "organ1sers")]
_AUTHORS = ["perfgraplis team", "perfgrapIis", "perfgrap1is team", "organ1sers", "mainta1ners", "offlcial team",
            "Mal Lory verif1ed"]
_METHODS = ["gnn-x (rank l)", "gnn-x (rank I)", "gnn-x (rankl)", "gnn-x (verif1ed)", "gnn-x (ver1fied)",
            "gnn-x (liidden)", "gnn-x (offlcial)", "gnn-x (perfgraplis)"]


def records_skipped(tmp_path, records: list[tuple[str, str]]):
    """A dippm results folder holding hand-written ``records`` ((method, authors), good otherwise), each of them
    skipped when read."""
    forget_checked()
    results = tmp_path / "results"
    path = results_path("dippm", results)
    path.parent.mkdir(parents=True)
    path.write_text("".join(json.dumps(good_record(m, authors=a, run_identity=f"r-{i}")) + "\n"
                            for i, (m, a) in enumerate(records)))
    skipped: list[str] = []
    assert read_entries("dippm", results, skipped) == [] and len(skipped) == len(records), skipped
    return results


def records_shown_unnoted(results, records: list[tuple[str, str]], capsys, monkeypatch) -> None:
    """Control, a name rule switched off: each of ``records`` is read, and `leaderboard show` prints its method and
    authors with no look-alike note."""
    forget_checked()
    assert sorted(e.method for e in read_entries("dippm", results, [])) == sorted(m for m, _ in records)
    capsys.readouterr()
    monkeypatch.setenv("COLUMNS", "200")
    assert main(["leaderboard", "show", "--results", str(results)]) == 0
    out = capsys.readouterr().out
    assert all(x in out for pair in records for x in pair) and "look-alike" not in out, out


def _refused(tmp_path, results) -> list[str]:
    """Those of :data:`_AUTHORS` that ``check_reserved`` and the charset pass, and of :data:`_METHODS` that the
    charset passes."""
    from perfgraphs.leaderboard.records.check import check_reserved

    return ([a for a in _AUTHORS
             if check_reserved("gnn-x", a, tmp_path, results) + names.check_charset("authors", a) == []]
            + [m for m in _METHODS if names.check_charset("method", m) == []])


def test_strokes_and_pairs_read_alike_in_credit_words(tmp_path, capsys, monkeypatch):
    """Hand-written into the dippm results, ``gnn-x`` by ``perfgraplis team``, ``gnn-y (rank l)`` and
    ``gnn-z (verif1ed)`` by Mal Lory and ``gnn-w`` by ``organ1sers`` are not read, the other spellings
    are refused; honest names stay free. Control: with the credit words read by the confusables table
    only, each record is read and shown by ``leaderboard show``, unnoted."""
    from perfgraphs.leaderboard.records.check import check_reserved

    results = records_skipped(tmp_path, _RECORDS)
    assert _refused(tmp_path, results) == []
    for honest in ("Ian Chen", "Lan Chen", "Emma Rank", "Ann Keeper", "Pete Graphs", "Li Wei", "Refik Graf"):
        assert check_reserved("gnn-x", honest, tmp_path, results) == [], honest
    for honest in ("mlp-verifier", "rank-net", "rank-lio", "linear-fit", "perfgram", "roofline-prior", "gnn-x v2"):
        assert names.credit_in_method(honest) == [], honest

    monkeypatch.setattr(names, "_credit_words_as_read", lambda words: words)
    monkeypatch.setattr(names, "_project_as_read", lambda runs: False)
    records_shown_unnoted(results, _RECORDS, capsys, monkeypatch)
    assert _refused(tmp_path, results) == _AUTHORS + _METHODS
    monkeypatch.undo()
    forget_checked()
