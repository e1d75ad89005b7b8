"""Eighty-sixth adversarial pass (2026-12-06), read side: the eighty-fifth pass read the present catalog as
Python exposes it, but a past version only by the strings it passes to ``...Baseline(``. A pull request
that declared the transfer reference ``gnn`` as ``TransferBaseline("gnn-ref", ...)`` with the dict keyed
``{t.name[:3]: t ...}`` (``gnn`` to Python, as before, and not the canonical form of ``gnn-ref``) ended
its declaration as read; Mallory's hand-written ``gnn-m`` landed; a second pull request restored
``TransferBaseline("gnn", ...)``, which began a new declaration after her line, and `leaderboard show`
listed ``gnn-m`` under the reference's name. Now a catalog version that builds the names Python exposes
otherwise than the reader follows (``reference_names()`` a union of ``set(D)`` and ``{x.name for x in
D.values() ...}``, each ``D`` bound once to ``{x.name: x for x in (...)}`` over declared baselines and
never changed, no baseline's name written after its declaration) is a version not read: it ends no
declaration (``trust._names_exposed_unread``). The rule says what is read, not which spellings are not.
Also the reverse gap: every string of a catalog that declares baselines read as a declared name, so a
baseline ``Baseline("gnn", ...)`` with no ``reference_on``, later made a reference by a pull request, was
dated from its first declaration and every board dropped the ``gnn-x`` a team recorded while ``gnn`` was
no reference: a name read as no reference's (``trust._non_reference_names``) is now dated from when it
became one.
"""

from __future__ import annotations

import pytest

from test_leaderboard_review_61a import _shown
from test_leaderboard_review_71a import _commit, _forget_tmp_references  # noqa: F401 — an autouse fixture
from test_leaderboard_review_77a import CATALOG, DECLARED, _add_line, _repo

EXPOSED = ("\n\n{table}\n\n\ndef reference_names():\n"
           "    return {{b.name for b in BASELINES.values() if b.reference_on}} | {names}\n")
PLAIN = ("BASELINES = {b.name: b for b in ()}\nTRANSFER_BASELINES = {t.name: t for t in (GNN,)}", "set(TRANSFER_BASELINES)")
RESPELT = {  # (the declaration, how the exposed names are built): ``gnn`` to Python in each
    "sliced key": ('GNN = TransferBaseline("gnn-ref", make, VARIANTS)\n',
                   ("BASELINES = {b.name: b for b in ()}\nTRANSFER_BASELINES = {t.name[:3]: t for t in (GNN,)}",
                    "set(TRANSFER_BASELINES)")),
    "keys re-built": ('GNN = TransferBaseline("gnn-ref", make, VARIANTS)\n',
                      ("BASELINES = {b.name: b for b in ()}\nTRANSFER_BASELINES = {t.name: t for t in (GNN,)}",
                       "{n[:3] for n in TRANSFER_BASELINES}")),
    "dict call": ('GNN = TransferBaseline("gnn-ref", make, VARIANTS)\n',
                  ("BASELINES = {b.name: b for b in ()}\nTRANSFER_BASELINES = dict((t.name[:3], t) for t in (GNN,))",
                   "set(TRANSFER_BASELINES)")),
    "name written": ('GNN = TransferBaseline("gnn-ref", make, VARIANTS)\nobject.__setattr__(GNN, "name", GNN.name[:3])\n',
                     PLAIN),
}


def _catalog(repo, declared: str, exposed: tuple[str, str], message: str) -> None:
    """The catalog's transfer reference declared by ``declared``, its names exposed by ``exposed``."""
    from perfgraphs.leaderboard.records import trust

    source = repo / CATALOG
    head = source.read_text().split("GNN = ")[0]
    source.write_text(head + declared + EXPOSED.format(table=exposed[0], names=exposed[1]))
    _commit(repo, message)
    trust._catalog_arrivals.cache_clear()
    trust._catalog_runs.cache_clear()


def _python_names(declared: str, exposed: tuple[str, str]) -> set[str]:
    """What ``reference_names()`` returns when Python runs the catalog's tail."""
    from test_leaderboard_review_85a import python_scope

    return python_scope(declared + EXPOSED.format(table=exposed[0], names=exposed[1]))["reference_names"]()


@pytest.mark.parametrize("how", sorted(RESPELT))
def test_a_version_exposing_names_otherwise_then_restored_frees_no_name(tmp_path, monkeypatch, capsys, how):
    """Attack, in two pull requests: the first declares ``gnn`` as ``"gnn-ref"`` and exposes it as ``gnn``
    (a sliced key, the keys re-built, a ``dict()`` call, the name written after); Mallory's ``gnn-m``
    lands; the second restores ``TransferBaseline("gnn", ...)``; Zoe's ``zoe-mlp`` lands. `leaderboard show`
    listed ``gnn-m`` under the reference's name. Now she stays refused. Control: every version read as
    before shows her record."""
    from perfgraphs.leaderboard.records import trust

    declared, exposed = RESPELT[how]
    assert _python_names(DECLARED, PLAIN) == _python_names(declared, exposed) == {"gnn"}
    assert '"gnn"' not in declared + EXPOSED.format(table=exposed[0], names=exposed[1])
    repo = respelt_between(tmp_path, monkeypatch, capsys, declared, exposed)

    monkeypatch.setattr(trust, "_names_exposed_unread", lambda tree: False)  # control: as before
    monkeypatch.setattr(trust, "_import_runs_unread", lambda tree: False)  # the eighty-seventh pass's guard too
    methods, skipped = _shown(repo, capsys)
    assert sorted(methods) == ["gnn-m", "zoe-mlp"] and not skipped, skipped


def test_a_reference_retired_from_plain_tables_frees_its_name(tmp_path, monkeypatch, capsys):
    """Neighbour: the tables as the real catalog builds them are read; retiring ``gnn`` from them frees the
    name, and Alice's ``gnn-x``, merged while it was gone, stays shown when ``gnn`` is declared again."""
    repo = _repo(tmp_path, monkeypatch)
    _catalog(repo, DECLARED, PLAIN, "catalog: the references' tables")
    _catalog(repo, 'OTHER = TransferBaseline("other-ref", make, VARIANTS)\n',
             ("BASELINES = {b.name: b for b in ()}\nTRANSFER_BASELINES = {t.name: t for t in (OTHER,)}",
              "set(TRANSFER_BASELINES)"), "catalog: gnn retired")
    _add_line(repo, "gnn-x", "Alice Ash")
    _catalog(repo, DECLARED, PLAIN, "catalog: gnn declared again")
    methods, skipped = _shown(repo, capsys)
    assert methods == ["gnn-x"] and not skipped, skipped


def test_the_real_catalog_builds_its_names_as_read():
    """Every main-line version of the real catalog is read by the new rule (none is not read by it)."""
    import ast
    import subprocess
    from pathlib import Path

    from perfgraphs.leaderboard.records import trust

    root = Path(trust.__file__).resolve().parents[3]
    assert not trust._names_exposed_unread(ast.parse((root / CATALOG).read_text()))
    commits = subprocess.run(["git", "-C", str(root), "log", "--first-parent", "--format=%H", "--", CATALOG],
                             capture_output=True, text=True).stdout.split()
    for commit in commits:
        text = subprocess.run(["git", "-C", str(root), "show", f"{commit}:{CATALOG}"], capture_output=True,
                              text=True).stdout
        assert not trust._names_exposed_unread(ast.parse(text)), commit


CLASS = ("from dataclasses import dataclass\n\n\n@dataclass(frozen=True)\nclass Baseline:\n    name: str\n"
         "    estimator: str\n    reference_on: frozenset = frozenset()\n\n\n")
TABLES = ("BASELINES = {b.name: b for b in (GNN,)}\nTRANSFER_BASELINES = {t.name: t for t in ()}",
          "set(TRANSFER_BASELINES)")


def _baselines(repo, declared: str, message: str) -> None:
    """The catalog holding the class ``Baseline`` and ``declared`` in its table of baselines."""
    from perfgraphs.leaderboard.records import trust

    source = repo / CATALOG
    head = source.read_text().split("GNN = ")[0].split("from dataclasses")[0]
    source.write_text(head + CLASS + declared + EXPOSED.format(table=TABLES[0], names=TABLES[1]))
    _commit(repo, message)
    trust._catalog_arrivals.cache_clear()
    trust._catalog_runs.cache_clear()


def test_a_baseline_made_a_reference_is_reserved_from_then(tmp_path, monkeypatch, capsys):
    """Reverse gap: ``gnn`` is a baseline of the catalog but no reference (no ``reference_on``), so Alice's
    ``gnn-x`` is accepted and shown; a later pull request makes ``gnn`` a reference. Every board dropped
    her record (the name dated from its first declaration, the strings of the catalog all read as
    declared names). Now the name is reserved from when it became a reference: she keeps her record,
    Bob's ``gnn-y``, merged after, is refused. Control: every string declared, as before, drops both."""
    from perfgraphs.leaderboard.records import trust

    repo = _repo(tmp_path, monkeypatch)
    _baselines(repo, 'GNN = Baseline("gnn", "m:C")\n', "catalog: a gnn baseline, no reference")
    _add_line(repo, "gnn-x", "Alice Ash")
    _baselines(repo, 'GNN = Baseline("gnn", "m:C", reference_on=frozenset({"graph-rows"}))\n',
               "catalog: gnn made a reference")
    _add_line(repo, "gnn-y", "Bob Bee")
    methods, skipped = _shown(repo, capsys)
    assert methods == ["gnn-x"] and len(skipped) == 1 and "gnn-y" in skipped[0], skipped

    monkeypatch.setattr(trust, "_non_reference_names", lambda tree: frozenset())  # control: as before
    methods, skipped = _shown(repo, capsys)
    assert methods == [] and len(skipped) == 2, skipped


def test_a_reference_written_otherwise_is_no_baseline_read_as_no_reference(tmp_path, monkeypatch, capsys):
    """Neighbour: ``reference_on`` passed by position (``Baseline("gnn", "m:C", frozenset(...))``) is a
    reference to Python; a version so written is not read as making ``gnn`` no reference, and Mallory's
    ``gnn-m``, merged after it, stays refused when the keyword form is restored."""
    repo = _repo(tmp_path, monkeypatch)
    _baselines(repo, 'GNN = Baseline("gnn", "m:C", reference_on=frozenset({"graph-rows"}))\n', "catalog: gnn")
    _baselines(repo, 'GNN = Baseline("gnn", "m:C", frozenset({"graph-rows"}))\n', "catalog: gnn re-spelt")
    _add_line(repo, "gnn-m", "Mal Lory")
    _baselines(repo, 'GNN = Baseline("gnn", "m:C", reference_on=frozenset({"graph-rows"}))\n', "catalog: as was")
    _add_line(repo, "zoe-mlp", "Zoe Zed")
    methods, skipped = _shown(repo, capsys)
    assert methods == ["zoe-mlp"] and len(skipped) == 1 and "'gnn'" in skipped[0], skipped


def test_the_real_catalog_reads_no_reference_as_none():
    """The real catalog's baselines read as no reference are exactly those ``reference_names()`` omits."""
    import ast
    from pathlib import Path

    from perfgraphs.baselines import catalog
    from perfgraphs.leaderboard.records import trust

    tree = ast.parse(Path(catalog.__file__).read_text())
    assert trust._non_reference_names(tree) == {b for b in catalog.BASELINES} - catalog.reference_names()


@pytest.mark.parametrize("after", ['GNN = dataclasses.replace(GNN, reference_on=frozenset({"graph-rows"}))\n',
                                   'object.__setattr__(GNN, "reference_on", frozenset({"graph-rows"}))\n'])
def test_a_reference_made_after_its_declaration_is_not_read_as_none(after):
    """Neighbour: a baseline made a reference after its ``Baseline(`` call (rebound, its field written) is
    not read as no reference."""
    import ast

    from perfgraphs.leaderboard.records import trust

    text = CLASS + 'GNN = Baseline("gnn", "m:C")\n' + after + EXPOSED.format(table=TABLES[0], names=TABLES[1])
    assert trust._non_reference_names(ast.parse(text)) == frozenset()
    assert trust._non_reference_names(ast.parse(text.replace(after, ""))) == {"gnn"}


def respelt_between(tmp_path, monkeypatch, capsys, declared: str, exposed: tuple[str, str]):
    """The catalog with its plain tables, then re-spelt (``declared``, ``exposed``), Mallory's ``gnn-m``,
    the plain tables back, Zoe's ``zoe-mlp``: the repository, ``gnn-m`` asserted refused."""
    repo = _repo(tmp_path, monkeypatch)
    _catalog(repo, DECLARED, PLAIN, "catalog: the references' tables")
    _catalog(repo, declared, exposed, "catalog: gnn re-spelt")
    _add_line(repo, "gnn-m", "Mal Lory")
    _catalog(repo, DECLARED, PLAIN, "catalog: gnn as it was")
    _add_line(repo, "zoe-mlp", "Zoe Zed")
    methods, skipped = _shown(repo, capsys)
    assert methods == ["zoe-mlp"] and len(skipped) == 1 and "'gnn'" in skipped[0], skipped
    return repo
