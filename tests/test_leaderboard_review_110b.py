"""Hundred-and-tenth pass, side b (reference names read as ri/n and li/h): the method-name pairs.

The reference names were compared with ``rn`` read as ``m``, ``vv`` as ``w`` and ``cl`` as ``d``, but
not with ``ri`` read as ``n`` nor ``li`` as ``h``, which a board's font and a terminal render alike as
well. So ``graph-riet-transfer``, ``lowrank-trarisfer``, ``rooflirie-prior``, ``grapli-net-transfer``
and ``nnlqp-grin`` took no reference name: ``check_reserved`` passed them and a hand-written
``graph-riet-transfer`` by Mal Lory was read and printed by ``leaderboard show`` with no note. Of the
200 such spellings of the 21 reference names (any of their ``n``/``h`` written ``ri``/``li``, or a
``ri``/``li`` of theirs written ``n``/``h``; each alone and with `` (quick)``, ``+tuned`` or
`` (tuned)`` after it), 196 were free, 4 to 56 for each of 15 names; none is now.

The pairs are read for method names only (``names._taken_as_read``, ``names._METHOD_PAIRS``), kept
apart from the pairs applied to people (``names._PAIRS``): read in people's names they would make
Ana and Aria, Maria and Mana, Juha and Julia one person. Honest names holding ``ri``/``li``
(``bright-gnn``, ``linear-fit``, ``prior-mlp``, ...) stay free.

The same look for other shapes found the credit words compared as written only: the organisers'
words in authors (``official``, ``maintainers``, ...), a tier's word in authors and a board's word in
a method were matched on the casefolded text, never with look-alikes folded as names are. Authors
``officiaI team`` (a capital ``I``), ``0fficial team`` and ``benchmark rnaintainers`` and the method
``gnn-y (reproducecl)`` were accepted where ``official team`` and ``gnn-y (reproduced)`` are refused,
and hand-written records under them were read and shown: 33 of the 33 spellings of those words with
one look-alike (``I``/``1`` for ``l``, ``0`` for ``o``, ``rn`` for ``m``, ``cl`` for ``d``, ``vv``
for ``w``) were free; none is now (``names._words_as_read``).
"""
import json

from perfgraphs.cli import main
from perfgraphs.leaderboard.records import names
from perfgraphs.leaderboard.records.results import forget_checked, read_entries, results_path

from test_leaderboard_review_103c import refused_as_reference, shown_unnoted
from test_leaderboard_review_20261202 import _owner_problems
from test_leaderboard_trust import good_record

_TAKEN = ["graph-riet-transfer", "lowrank-trarisfer", "rooflirie-prior", "grapli-net-transfer", "nnlqp-grin",
          "serving-pnor", "roofhne-fit", "graph-riet-transfer (quick)", "rooflirie-prior+tuned",
          "nnlqp-grin (tuned)", "layerwise-hnear"]
_FREE = ["bright-gnn", "linear-fit", "prior-mlp", "lightgbm-prior", "hybrid-gnn", "spline-reg", "ridge-lite",
         "matrix-net", "triton-fit", "grid-search-mlp", "lineage-gnn", "profiling-gnn", "linear-probe",
         "transfer-lite", "graph-unet"]
_PEOPLE = [("Aria Chen", "Ana Chen"), ("Julia Virtanen", "Juha Virtanen"), ("Maria Lopez", "Mana Lopez")]


def test_ri_and_li_read_as_n_and_h_in_reference_names_only(tmp_path, capsys, monkeypatch):
    """``graph-riet-transfer`` by Mal Lory, hand-written into the dippm results, is not read (it takes
    ``graph-net-transfer``), ``check_reserved`` refuses the other spellings; honest names stay free and
    Aria and Ana stay two people, on and off. Control: with the method pairs not read, each spelling
    passes and ``show`` prints the record, unnoted."""
    results = refused_as_reference(tmp_path, "graph-riet-transfer", _TAKEN, _FREE, reference="graph-net-transfer")
    for i, (one, other) in enumerate(_PEOPLE):
        assert names.lookalike_people(one, other) == [], (one, other)
        assert not any("reads like" in p for p in _owner_problems(tmp_path / f"p{i}", [("gnn-x", other)],
                                                                  "gnn-y", one)), (one, other)

    monkeypatch.setattr(names, "_taken_as_read", lambda name, reserved: None)
    shown_unnoted(results, "graph-riet-transfer", _TAKEN, capsys, monkeypatch)


def test_board_and_organiser_words_read_with_look_alikes(tmp_path, capsys, monkeypatch):
    """Hand-written into the dippm results, ``gnn-x`` by ``officiaI team`` (a capital ``I``) and
    ``gnn-y (reproducecl)`` by Mal Lory are not read (the organisers' word, a tier's word), and
    ``0fficial team``/``benchmark rnaintainers`` are the organisers; honest authors and methods stay
    free. Control: with the words compared as written only, both records are read and shown."""
    import re
    import unicodedata

    from perfgraphs.leaderboard.records.check import check_reserved

    forget_checked()
    results = tmp_path / "results"
    path = results_path("dippm", results)
    path.parent.mkdir(parents=True)
    path.write_text(json.dumps(good_record("gnn-x", authors="officiaI team", run_identity="o-1")) + "\n"
                    + json.dumps(good_record("gnn-y (reproducecl)", authors="Mal Lory", run_identity="m-1")) + "\n")
    skipped: list[str] = []
    assert read_entries("dippm", results, skipped) == [] and len(skipped) == 2, skipped
    for authors in ("officiaI team", "0fficial team", "benchmark rnaintainers"):
        assert check_reserved("gnn-x", authors, tmp_path, results), authors
    assert names.credit_in_method("gnn-x (reproducecl)") and names.credit_in_method("gnn-x (officiaI)")
    for honest in ("Ann Keeper", "Lan Chen", "Ian Chen", "Emma Rank", "Ivan Tierney", "Mal Lory"):
        assert check_reserved("gnn-x", honest, tmp_path, results) == [] and not names.tier_in_authors(honest), honest
    for honest in ("mlp-verifier", "static-xgboosted", "gnn-x v2", "linear-fit"):
        assert names.credit_in_method(honest) == [], honest

    monkeypatch.setattr(names, "_words_as_read", lambda text: [
        re.findall(r"[a-z0-9]+", unicodedata.normalize("NFKC", str(text)).casefold())])
    forget_checked()
    assert sorted(e.method for e in read_entries("dippm", results, [])) == ["gnn-x", "gnn-y (reproducecl)"]
    capsys.readouterr()
    monkeypatch.setenv("COLUMNS", "200")
    assert main(["leaderboard", "show", "--results", str(results)]) == 0
    out = capsys.readouterr().out
    assert "officiaI team" in out and "gnn-y (reproducecl)" in out, out
    for authors in ("officiaI team", "0fficial team", "benchmark rnaintainers"):
        assert check_reserved("gnn-x", authors, tmp_path, results) == [], authors
    monkeypatch.undo()
    forget_checked()
