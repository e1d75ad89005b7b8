"""Eighty-seventh adversarial pass (2026-12-06), read side: the reader dated a catalog name from the
catalog file and the modules it imports, but Python runs more on the way to ``reference_names()``: the
catalog's packages (``perfgraphs/__init__.py``, ``perfgraphs/baselines/__init__.py``) run first, and any
of them, or the catalog itself, can change what the catalog exposes at import time without a
``...Baseline(`` call or a dict the 86th pass's reader sees changed (``catalog.reference_names = ...``,
``setattr(catalog, ...)``, ``sys.modules[...] = ...``, ``globals()["TRANSFER_BASELINES"] = ...``,
``exec(...)``). A pull request that took ``TransferBaseline("gnn", ...)`` out of the catalog and put
``gnn`` back from the package's ``__init__.py`` (or re-keyed the dict through ``globals()``), then one
restoring the plain declaration, showed Mallory's hand-written ``gnn-m``, merged between, under the
reference's name. Now the packages' ``__init__`` modules are read too, and a version of any module Python
runs on the way whose import-time code does more than the reader follows (calls other than declared
baselines, plain classes, a few builtins and ``dataclass``; any attribute or item stored, ``del``,
``global``, a statement other than an import, a binding, a definition) is a version not read: it ends no
declaration (``trust._import_runs_unread``, ``trust._package_inits``).
"""

from __future__ import annotations

import pytest

from test_leaderboard_review_61a import _shown
from test_leaderboard_review_71a import _forget_tmp_references  # noqa: F401 — an autouse fixture
from test_leaderboard_review_77a import DECLARED, _add_line, _repo
from test_leaderboard_review_79a import _refactor
from test_leaderboard_review_86a import PLAIN, _python_names, respelt_between

INIT = "perfgraphs/baselines/__init__.py"
PATCHED = {  # perfgraphs/baselines/__init__.py putting ``gnn`` back into what the catalog exposes
    "function rebound": ("from perfgraphs.baselines import catalog as _c\n"
                         '_c.reference_names = (lambda f: lambda: f() | {"gn" + "n"})(_c.reference_names)\n'),
    "setattr": ("from . import catalog as _c\n"
                'setattr(_c, "reference_names", (lambda f: lambda: f() | {"gn" + "n"})(_c.reference_names))\n'),
    "sys.modules": ("import sys\nimport types\n_m = types.ModuleType(\"perfgraphs.baselines.catalog\")\n"
                    'sys.modules["perfgraphs.baselines.catalog"] = _m\n'),
    "dict item": ("from perfgraphs.baselines import catalog as _c\n"
                  '_c.TRANSFER_BASELINES["gn" + "n"] = _c.TRANSFER_BASELINES.pop("other")\n'),
}
SELF = {  # the catalog itself re-keying its dict by its namespace (``gnn`` to Python in each)
    "globals": '\nglobals()["TRANSFER_BASELINES"] = {n[:3]: t for n, t in TRANSFER_BASELINES.items()}',
    "exec": '\nexec("TRANSFER_BASELINES = {n[:3]: t for n, t in TRANSFER_BASELINES.items()}")',
    "vars": '\nvars()["TRANSFER_BASELINES"] = {n[:3]: t for n, t in TRANSFER_BASELINES.items()}',
}


def _guards_off(monkeypatch) -> None:
    """The reader as before: the packages' ``__init__`` not followed, import-time code not read."""
    from perfgraphs.leaderboard.records import trust

    monkeypatch.setattr(trust, "_package_inits", lambda rel: ())
    monkeypatch.setattr(trust, "_import_runs_unread", lambda tree: False)


@pytest.mark.parametrize("how", sorted(PATCHED))
def test_a_name_put_back_by_the_package_frees_no_name(tmp_path, monkeypatch, capsys, how):
    """Attack, in two pull requests: the first takes ``TransferBaseline("gnn", ...)`` out of the catalog and
    puts ``gnn`` back from ``perfgraphs/baselines/__init__.py`` (Python exposes it all along); Mallory's
    ``gnn-m`` lands; the second restores the declaration and drops the patch; Zoe's ``zoe-mlp`` lands.
    `leaderboard show` listed ``gnn-m`` under the reference's name. Now she stays refused. Control: the
    reader as before shows her record."""
    repo = _repo(tmp_path, monkeypatch)
    _refactor(repo, "", {INIT: PATCHED[how]})
    _add_line(repo, "gnn-m", "Mal Lory")
    source = repo / "perfgraphs/baselines/catalog.py"
    source.write_text(source.read_text() + DECLARED)
    _refactor(repo, DECLARED, {INIT: ""})  # the declaration back, the patch gone
    _add_line(repo, "zoe-mlp", "Zoe Zed")
    methods, skipped = _shown(repo, capsys)
    assert methods == ["zoe-mlp"] and len(skipped) == 1 and "'gnn'" in skipped[0], skipped
    _shown_with_guards_off(repo, monkeypatch, capsys)


@pytest.mark.parametrize("how", sorted(SELF))
def test_a_catalog_rekeying_its_namespace_frees_no_name(tmp_path, monkeypatch, capsys, how):
    """Attack: as the 86th pass's, the dict re-keyed to ``gnn`` over ``TransferBaseline("gnn-ref", ...)``,
    through the module's namespace (``globals()``, ``exec``, ``vars()``) where the reader sees no change
    to the dict. Now Mallory's ``gnn-m`` stays refused. Control: the reader as before shows it."""
    declared = 'GNN = TransferBaseline("gnn-ref", make, VARIANTS)\n'
    exposed = (PLAIN[0] + SELF[how], PLAIN[1])
    assert _python_names(declared, exposed) == {"gnn"}
    repo = respelt_between(tmp_path, monkeypatch, capsys, declared, exposed)
    _shown_with_guards_off(repo, monkeypatch, capsys)


def test_a_plain_package_init_frees_a_retired_name(tmp_path, monkeypatch, capsys):
    """Neighbour: a package ``__init__`` of plain bindings and imports is read; retiring ``gnn`` then
    frees the name, and Alice's ``gnn-x``, merged while it was gone, stays shown when it comes back."""
    repo = _repo(tmp_path, monkeypatch)
    _refactor(repo, "", {INIT: '"""Baselines."""\n\nimport importlib\n\n_HOMES = {"A": ".a"}\n'
                               '__all__ = sorted(_HOMES)\n'})
    _add_line(repo, "gnn-x", "Alice Ash")
    source = repo / "perfgraphs/baselines/catalog.py"
    source.write_text(source.read_text() + DECLARED)
    _refactor(repo, DECLARED, {})
    methods, skipped = _shown(repo, capsys)
    assert methods == ["gnn-x"] and not skipped, skipped


def test_the_real_catalog_runs_as_read():
    """The real catalog's own import-time code is read by the new rule."""
    import ast
    from pathlib import Path

    from perfgraphs.baselines import catalog
    from perfgraphs.leaderboard.records import trust

    assert not trust._import_runs_unread(ast.parse(Path(catalog.__file__).read_text()))


@pytest.mark.parametrize("text, unread", [
    ("class P:\n    __init__ = print\n\n\nX = P()\n", True),  # a dunder bound otherwise than by ``def``
    ("from dataclasses import dataclass, field\n\n\n@dataclass\nclass B:\n    x: object = field(default_factory=_f)\n"
     "\n\nX = B()\n", True),  # a factory Python calls on instantiation
    ("from dataclasses import dataclass, field\n\n\n@dataclass\nclass B:\n    x: dict = field(default_factory=dict)\n"
     "\n\nX = B()\n", False),
    ('from elsewhere import TransferBaseline\n\nG = TransferBaseline("g")\n', True),  # its class not read here
    ('import builtins\n\nbuiltins.set = list\n', True),
    ('_HOMES = {"A": ".a"}\n__all__ = sorted(_HOMES)\n', False),
    ('sorted = print\n__all__ = sorted(())\n', True),
])
def test_what_an_import_runs_is_read_positively(text, unread):
    """Neighbours of the rule: what it reads, and what runs on import that it does not."""
    import ast

    from perfgraphs.leaderboard.records import trust

    assert trust._import_runs_unread(ast.parse(text)) is unread


def _shown_with_guards_off(repo, monkeypatch, capsys) -> None:
    """The control: with the reader as it was, Mallory's ``gnn-m`` is shown beside Zoe's ``zoe-mlp``."""
    _guards_off(monkeypatch)
    methods, skipped = _shown(repo, capsys)
    assert sorted(methods) == ["gnn-m", "zoe-mlp"] and not skipped, skipped
