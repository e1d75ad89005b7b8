"""Eighty-fourth adversarial pass (2026-12-06), read side: a name of the baseline catalog's code is
reserved from the present run of its declaration, read from each main-line version of the catalog file
(and the repository modules it imports) as Python, never run. Two pull requests the reader read fully
had Python run other code than it read:

* a coding declaration. Each version was decoded as UTF-8, where Python decodes a source file by its
  ``# -*- coding: ... -*-`` line: under ``utf-7``, ``TransferBaseline("+AGcAbgBu-", ...)`` declares
  ``gnn`` to Python and ``+AGcAbgBu-`` to ``ast``. A pull request that only re-spelt the transfer
  reference ``gnn``'s declaration so ended it as read: the name, which has no reference folder, was dated
  at the commit read, and Mallory's hand-written ``gnn-m`` line, merged after, was shown under the
  reference's name once any later commit landed. Each version is now decoded as Python decodes it
  (``trust._python_text``; one Python would not decode is not read and ends no declaration).
* a package. The history followed was that of the file imported now: a pull request that moved
  ``perfgraphs/baselines/catalog.py`` into a package ``catalog/__init__.py`` (or added one beside the
  unchanged file, which Python then no longer imports) began every catalog name's history at that commit,
  and Mallory's ``gnn-m``, refused since it landed before, was shown under the reference's name. Each
  version is now read from the file Python would import the module from then, package or module file
  (``trust._module_files``).
* bytecode. Python runs a committed unchecked hash-based ``__pycache__/catalog.cpython-311.pyc`` in place
  of ``catalog.py`` whatever the source says (``catalog.__file__`` still the source), and a sourceless
  ``catalog/__init__.pyc`` before ``catalog.py``: a pull request that spelt ``gnn`` out of the source and
  committed either, compiled from the source before, kept ``gnn`` in the catalog Python imports while its
  declaration read as ended, and Mallory's ``gnn-m`` was shown under the reference's name once any later
  commit landed. A version holding such a file is not read (``trust._bytecode_files``,
  ``trust._module_files``): it ends no declaration.
"""

from __future__ import annotations

import importlib.machinery
import importlib.util
import py_compile
from pathlib import Path

import pytest

from test_leaderboard_review_36a import _git
from test_leaderboard_review_61a import _shown
from test_leaderboard_review_71a import _forget_tmp_references  # noqa: F401 — an autouse fixture
from test_leaderboard_review_77a import CATALOG, DECLARED, _add_line, _commit, _repo
from test_leaderboard_review_79a import assert_gnn_m_refused_unless

UTF7 = "# -*- coding: utf-7 -*-\n"
GNN_UTF7 = 'GNN = TransferBaseline("+AGcAbgBu-", make, VARIANTS)\n'  # "gnn" in UTF-7


def _as_utf8(data):
    return (data or b"").decode("utf-8", errors="replace")


@pytest.mark.parametrize("where", ["catalog", "imported module"])
def test_a_declaration_decoded_by_its_coding_line_frees_no_name(tmp_path, monkeypatch, capsys, where):
    """Attack: the catalog declares the transfer reference ``gnn`` (no folder); a pull request adds a
    ``utf-7`` coding line and spells the name ``"+AGcAbgBu-"`` (``"gnn"`` as Python imports it), in the
    catalog or in a module it imports; Mallory's ``gnn-m`` lands, then Zoe's ``zoe-mlp``. `leaderboard
    show` listed ``gnn-m`` under the reference's name. Now it stays refused. Control: each version read
    as UTF-8 (as before) shows her record."""
    from perfgraphs.baselines import catalog

    as_python = importlib.util.decode_source((UTF7 + GNN_UTF7).encode())  # what `import` compiles
    assert as_python.endswith('TransferBaseline("gnn", make, VARIANTS)\n')
    if where == "catalog":  # the whole file under the coding line: the names _repo writes, then gnn's
        names = "".join(f'X = "{n}"\n' for n in sorted(catalog.reference_names()))
        refactor = ("", {CATALOG: UTF7 + names + GNN_UTF7})
    else:
        refactor = ("from perfgraphs.baselines.transfer_refs import GNN\n",
                    {"perfgraphs/baselines/transfer_refs.py": UTF7 + GNN_UTF7})
    assert_gnn_m_refused_unless(tmp_path, monkeypatch, capsys, refactor, {"_python_text": _as_utf8})


@pytest.mark.parametrize("shadowing", [False, True], ids=["moved", "shadowing"])
def test_a_catalog_made_a_package_frees_no_name(tmp_path, monkeypatch, capsys, shadowing):
    """Attack: the catalog declares the transfer reference ``gnn`` (no folder) and Mallory's ``gnn-m``
    lands, refused; a pull request moves the catalog into a package ``catalog/__init__.py`` (or adds one
    beside the unchanged ``catalog.py``: Python imports the package first), and Python's import now
    reads the package. `leaderboard show` listed ``gnn-m`` under the reference's name. Now it stays
    refused. Control: the history of the file imported now alone (as before) shows her record."""
    from perfgraphs.leaderboard.records import trust

    repo = _repo(tmp_path, monkeypatch)
    _add_line(repo, "gnn-m", "Mal Lory")
    methods, skipped = _shown(repo, capsys)
    assert methods == [] and len(skipped) == 1 and "'gnn'" in skipped[0], skipped

    module = repo / CATALOG
    package = module.parent / "catalog" / "__init__.py"
    package.parent.mkdir()
    package.write_text(module.read_text())
    if not shadowing:
        module.unlink()
    _commit(repo, "baselines: the catalog made a package")
    spec = importlib.machinery.PathFinder.find_spec("perfgraphs.baselines.catalog", [str(module.parent)])
    assert spec.origin == str(package)  # what `import perfgraphs.baselines.catalog` runs, so catalog.__file__
    monkeypatch.setattr(trust, "catalog_file", lambda: package)
    _add_line(repo, "zoe-mlp", "Zoe Zed")  # any later commit
    for cached in (trust._catalog_arrivals, trust._catalog_runs):
        cached.cache_clear()
    methods, skipped = _shown(repo, capsys)
    assert methods == ["zoe-mlp"] and len(skipped) == 1 and "'gnn'" in skipped[0], skipped

    # the eighty-fifth pass's guard too
    monkeypatch.setattr(trust, "_declares", lambda name, declared, present: name in declared)
    monkeypatch.setattr(trust, "_module_files", lambda rel: (rel,))  # control: as before
    for cached in (trust._catalog_arrivals, trust._catalog_runs):
        cached.cache_clear()
    methods, skipped = _shown(repo, capsys)
    assert sorted(methods) == ["gnn-m", "zoe-mlp"] and not skipped, skipped


@pytest.mark.parametrize("sourceless", [False, True], ids=["cached", "sourceless package"])
def test_catalog_bytecode_frees_no_name(tmp_path, monkeypatch, capsys, sourceless):
    """Attack: the catalog declares the transfer reference ``gnn`` (no folder); a pull request takes
    ``gnn``'s declaration out of ``catalog.py`` and commits bytecode compiled from the file before (an
    unchecked hash-based ``__pycache__`` file, or a sourceless ``catalog/__init__.pyc``), which Python
    imports instead; Mallory's ``gnn-m`` lands, then Zoe's ``zoe-mlp``. `leaderboard show` listed ``gnn-m``
    under the reference's name. Now it stays refused. Control: bytecode and extension files not looked
    for (as before) show her record."""
    from perfgraphs.leaderboard.records import trust

    repo = _repo(tmp_path, monkeypatch)
    module = repo / CATALOG
    if sourceless:
        compiled = module.parent / "catalog" / "__init__.pyc"
        py_compile.compile(str(module), cfile=str(compiled), doraise=True)
    else:
        compiled = Path(importlib.util.cache_from_source(str(module)))
        py_compile.compile(str(module), cfile=str(compiled), doraise=True,
                           invalidation_mode=py_compile.PycInvalidationMode.UNCHECKED_HASH)
    module.write_text(module.read_text().replace(DECLARED, ""))
    _git(repo, "add", "-f", str(compiled.relative_to(repo)))
    _commit(repo, "catalog: the transfer reference gnn, re-spelt")
    spec = importlib.machinery.PathFinder.find_spec("perfgraphs.baselines.catalog", [str(module.parent)])
    assert "gnn" in spec.loader.get_code(spec.name).co_consts and '"gnn"' not in module.read_text()
    imported = Path(spec.origin)  # catalog.__file__: the source, or the package's .pyc
    assert imported == (compiled if sourceless else module)
    monkeypatch.setattr(trust, "catalog_file", lambda: imported)
    for cached in (trust._catalog_arrivals, trust._catalog_runs):
        cached.cache_clear()
    _add_line(repo, "gnn-m", "Mal Lory")
    _add_line(repo, "zoe-mlp", "Zoe Zed")  # any later commit
    methods, skipped = _shown(repo, capsys)
    assert methods == ["zoe-mlp"] and len(skipped) == 1 and "'gnn'" in skipped[0], skipped

    # the eighty-fifth pass's guard too
    monkeypatch.setattr(trust, "_declares", lambda name, declared, present: name in declared)
    monkeypatch.setattr(trust, "_bytecode_files", lambda path: ())  # control: as before
    monkeypatch.setattr(trust, "_module_files", lambda rel: (rel,))
    for cached in (trust._catalog_arrivals, trust._catalog_runs):
        cached.cache_clear()
    methods, skipped = _shown(repo, capsys)
    assert sorted(methods) == ["gnn-m", "zoe-mlp"] and not skipped, skipped


def test_an_unchanged_catalog_reads_as_before(tmp_path, monkeypatch, capsys):
    """Neighbour: with no package and plain UTF-8 files, the retired-and-declared-again history reads as
    before (Alice's ``gnn-x`` kept, Bob's ``gnn-y`` refused)."""
    from test_leaderboard_review_78a import declared_again_alice_kept

    repo = _repo(tmp_path, monkeypatch)
    source = repo / CATALOG
    source.write_text(source.read_text().replace(DECLARED, ""))
    _commit(repo, "catalog: transfer reference gnn retired")
    declared_again_alice_kept(repo, capsys, monkeypatch)
