"""Hundred-and-third pass, side c (names and records read by build/show): mixed-case look-alike pairs.

``names._loose`` reads the letter pairs ``vv`` and ``cl`` as ``w`` and ``d`` (``layervvise-boost``,
``clippm-sage``, ``Tirn Bloorn``), but matched them as written only: ``vv`` and ``VV``, never ``Vv``
or ``vV``, and a ``cl`` never spelled with a capital ``I`` or a ``1`` for its ``l``, though ``_fold``
reads each of those as ``l``. So ``Vvei Chen`` beside ``Wei Chen`` and ``AcIam Smith`` beside
``Adam Smith`` were no look-alike people: ``check`` passed them (``check_name_owner``) and
``leaderboard show`` printed both rows with no note; and ``cIippm-sage`` and ``layerVvise-linear``
by Mal Lory took no reference name: ``check_reserved`` passed them and ``show`` ranked the
hand-written ``cIippm-sage`` beside the reference ``dippm-sage``. Of the 15 reference names, the
four with a ``w`` or a ``d`` (``layerwise-boost``, ``layerwise-linear``, ``lowrank-transfer``,
``dippm-sage``) had 8 such spellings free (``Vv``/``vV`` for the ``w``, ``cI``/``c1`` for the ``d``);
none is now.

Now ``names._pairs_as_read`` writes ``Vv``/``vV`` as the pair and ``c`` before ``I``/``1`` as
``cl`` before the pairs are read.
"""
from perfgraphs.cli import main
from perfgraphs.leaderboard.records import names
from perfgraphs.leaderboard.records.results import forget_checked, read_entries

from test_leaderboard_review_20261202 import _owner_problems, _write_one
from test_leaderboard_trust import good_record

_TAKEN = ["cIippm-sage", "c1ippm-sage", "layerVvise-linear", "layervVise-boost", "cIippm-sage (tuned)"]
_PEOPLE = [("Vvei Chen", "Wei Chen"), ("AcIam Smith", "Adam Smith"), ("Ac1am Smith", "Adam Smith")]


def _pairs_as_written(monkeypatch) -> None:
    """The guard switched off: the pairs matched as written only."""
    monkeypatch.setattr(names, "_pairs_as_read", lambda text: text)
    forget_checked()


def test_mixed_case_pairs_read_as_their_letter(tmp_path, capsys, monkeypatch):
    """``cIippm-sage`` by Mal Lory, hand-written into the dippm results, is not read (it takes
    ``dippm-sage``), ``check_reserved`` refuses the other spellings, and ``Vvei Chen``/``AcIam
    Smith`` read as ``Wei Chen``/``Adam Smith``: refused by ``check_name_owner`` and noted by
    ``show``. Control: with the pairs matched as written, each passes and is shown, unnoted."""
    from perfgraphs.leaderboard.records.check import check_reserved

    results = refused_as_reference(tmp_path, "cIippm-sage", _TAKEN, ("clip-mlp", "cIassic-net", "convVit", "Vvnet-lite"))
    for i, (fake, real) in enumerate(_PEOPLE):
        problems = _owner_problems(tmp_path / str(i), [("gnn-x", real)], "gnn-x v2", fake)
        assert any(f"reads like {real!r}" in p for p in problems), problems
    people = tmp_path / "people" / "results"
    _owner_problems(tmp_path / "people", [("gnn-x", "Wei Chen"), ("gnn-x v2", "Vvei Chen")], "m", "Wei Chen")
    capsys.readouterr()
    monkeypatch.setenv("COLUMNS", "200")
    assert main(["leaderboard", "show", "--results", str(people)]) == 0
    out = " ".join(capsys.readouterr().out.split())
    assert "look-alike authors" in out and "'Vvei Chen'" in out, out

    _pairs_as_written(monkeypatch)
    assert [e.method for e in read_entries("dippm", results, [])] == ["cIippm-sage"]
    capsys.readouterr()
    assert main(["leaderboard", "show", "--results", str(results)]) == 0
    assert "cIippm-sage" in capsys.readouterr().out
    for method in _TAKEN:
        assert check_reserved(method, "Mal Lory", tmp_path, results) == [], method
    for i, (fake, real) in enumerate(_PEOPLE):
        assert not any("reads like" in p for p in _owner_problems(tmp_path / f"off{i}", [("gnn-x", real)],
                                                                  "gnn-x v2", fake))
    capsys.readouterr()
    assert main(["leaderboard", "show", "--results", str(people)]) == 0
    assert "look-alike" not in capsys.readouterr().out
    monkeypatch.undo()
    forget_checked()


def refused_as_reference(tmp_path, method: str, taken, free, reference: str = "dippm-sage"):
    """A hand-written record ``method`` by Mal Lory is skipped when read as taking ``reference``, ``check_reserved``
    refuses each of ``taken`` and leaves each of ``free``: the results folder holding the record."""
    from perfgraphs.leaderboard.records.check import check_reserved

    forget_checked()
    results = _write_one(tmp_path / "results", good_record(method, authors="Mal Lory", run_identity="mal-1"))
    skipped: list[str] = []
    assert read_entries("dippm", results, skipped) == [] and f"'{reference}'" in skipped[0], skipped
    for name in taken:
        assert "takes the reference baseline name" in " ".join(check_reserved(name, "Mal Lory", tmp_path, results)), name
    for honest in free:
        assert check_reserved(honest, "Mal Lory", tmp_path, results) == [], honest
    return results


def shown_unnoted(results, method: str, taken, capsys, monkeypatch) -> None:
    """Control, a name rule switched off by ``monkeypatch``: the hand-written record ``method`` is read and
    `leaderboard show` prints it with no note, and ``check_reserved`` leaves each of ``taken``; the rule is put
    back after."""
    from perfgraphs.leaderboard.records.check import check_reserved

    forget_checked()
    assert [e.method for e in read_entries("dippm", results, [])] == [method]
    capsys.readouterr()
    monkeypatch.setenv("COLUMNS", "200")
    assert main(["leaderboard", "show", "--results", str(results)]) == 0
    out = capsys.readouterr().out
    assert method in out and "takes" not in out and "look-alike" not in out, out
    for name in taken:
        assert check_reserved(name, "Mal Lory", results.parent, results) == [], name
    monkeypatch.undo()
    forget_checked()
