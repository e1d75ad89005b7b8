"""Hundred-and-first pass, side c (names as people read them): an ``m`` one letter off a reference name.

The seventeenth and twenty-fifth passes made a name one letter off a reference name of six or more
letters take it (``stat1c-xgboost``, ``static-xgbost-tuned``, ``static-xgbooost-x``: ``names._one_off``,
one edit between compact keys). But those keys spell ``m`` as ``rn`` (TR39's confusable, folded in
``names._fold``), so an edit at an ``m`` counts two: ``m`` doubled (``dippmm-sage``, ``trappmm``),
dropped (``dipp-sage``, ``ll-xgboost``, ``static-gb-transfer``), or put for another letter
(``roofline-same``) was no typo. Of every single-letter edit (insertion, deletion or substitution of
a letter or digit) of the 21 reference names, 686 passed ``check_reserved`` at submission and were
read as a team's row beside the reference by ``leaderboard show`` (11 to 66 per name; every name has
some, since an ``m`` can be inserted anywhere), while the same edit of another letter was refused.

Now the edit is also counted with ``rn`` read back as the one letter ``m`` on both sides
(``names._one_letter_off``); none of the 686 passes, and honest names beside the references
(``clip-mlp``, ``trap-net``, ``static-gbm``, ``static-xgboosted``, ``serving-prime``) still do.
"""
from perfgraphs.cli import main
from perfgraphs.leaderboard.records import names
from perfgraphs.leaderboard.records.results import forget_checked, read_entries

from test_leaderboard_review_20261202 import _write_one
from test_leaderboard_trust import good_record

_TYPOS = ["dippmm-sage", "dipp-sage", "roofline-same", "trappmm", "ll-xgboost", "static-gb-transfer",
          "dippmm-sage (tuned)", "roofline-samev2"]


def _letter_by_letter_off(monkeypatch) -> None:
    """The guard switched off: edits counted on the keys as folded, ``m`` as ``rn``."""
    monkeypatch.setattr(names, "_m_whole", lambda key: key)
    forget_checked()


def test_an_m_one_letter_off_a_reference_name_takes_it(tmp_path, capsys, monkeypatch):
    """``dippmm-sage`` by Mal Lory, hand-written into the dippm results, was shown by ``leaderboard
    show`` beside the reference ``dippm-sage``, and ``check_reserved`` passed it and the other typos
    while ``static-xgbooost`` was refused. Control: with the edit counted on the folded keys alone,
    each passes again."""
    from perfgraphs.leaderboard.records.check import check_reserved

    forget_checked()
    results = _write_one(tmp_path / "results", good_record("dippmm-sage", authors="Mal Lory", run_identity="mal-1"))
    skipped: list[str] = []
    assert read_entries("dippm", results, skipped) == [] and "'dippm-sage'" in skipped[0], skipped
    capsys.readouterr()
    assert main(["leaderboard", "show", "--results", str(results)]) == 0
    out, err = capsys.readouterr()
    assert "dippmm-sage" not in out and "takes the reference baseline name 'dippm-sage'" in err, (out, err)
    for method in _TYPOS + ["static-xgbooost"]:
        assert "takes the reference baseline name" in " ".join(
            check_reserved(method, "Mal Lory", tmp_path, results)), method
    for honest in ("clip-mlp", "trap-net", "static-gbm", "static-xgboosted", "serving-prime", "tramp"):
        assert check_reserved(honest, "Mal Lory", tmp_path, results) == [], honest

    _letter_by_letter_off(monkeypatch)
    assert [e.method for e in read_entries("dippm", results, [])] == ["dippmm-sage"]
    capsys.readouterr()
    assert main(["leaderboard", "show", "--results", str(results)]) == 0
    assert "dippmm-sage" in capsys.readouterr().out
    for method in _TYPOS:
        assert check_reserved(method, "Mal Lory", tmp_path, results) == [], method
    assert check_reserved("static-xgbooost", "Mal Lory", tmp_path, results)  # the other letters' typo, refused
    monkeypatch.undo()
    forget_checked()
