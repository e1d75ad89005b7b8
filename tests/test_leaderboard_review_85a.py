"""Eighty-fifth adversarial pass (2026-12-06), read side: the names the boards reserve are those Python
exposes (``catalog.reference_names()``: the *keys* of ``TRANSFER_BASELINES`` as Python builds them),
while the reader dates the *strings* a version of the catalog passes to the ``...Baseline(``
constructors (``trust._declared_names``). A pull request that only re-spelt the transfer reference
``gnn``'s declaration as ``TransferBaseline("GNN", ...)`` with the dict keyed ``{t.name.lower(): t ...}``
(or keyed by any expression of the declared string: ``.replace("_", "-")``, a slice) kept ``gnn`` among
the names Python exposes, but no version read declared ``gnn`` from then on: the name, which has no
reference folder, was dated at the commit read, and Mallory's hand-written ``gnn-m``, merged after, was
shown under the reference's name once any later commit landed. Now a version declares a name whose
canonical form (:func:`perfgraphs.leaderboard.records.names.canonical`, the form the boards compare
names in) it declares, and the present version of the catalog, which is what Python imports, ends no
declaration of a name Python exposes that it is not read to declare (``trust._declares``).
"""

from __future__ import annotations

import dataclasses

import pytest

from test_leaderboard_review_61a import _shown
from test_leaderboard_review_71a import _forget_tmp_references  # noqa: F401 — an autouse fixture
from test_leaderboard_review_77a import CATALOG, DECLARED, _add_line, _repo
from test_leaderboard_review_79a import _refactor, assert_gnn_m_refused_unless

KEYED = "TRANSFER_BASELINES = {{{key}: t for t in (GNN,)}}\n"
RESPELT = {  # (the declaration, the dict key Python builds from the declared name)
    "lowercased": ('GNN = TransferBaseline("GNN", make, VARIANTS)\n', "t.name.lower()"),
    "separator": ('GNN = TransferBaseline("g_nn", make, VARIANTS)\n', 't.name.replace("_", "")'),
    "sliced": ('GNN = TransferBaseline("gnn-ref", make, VARIANTS)\n', "t.name[:3]"),
}


def python_scope(text: str) -> dict:
    """The names a catalog tail ``text`` binds when Python runs it (beside a stand-in ``TransferBaseline``)."""
    @dataclasses.dataclass(frozen=True)
    class TransferBaseline:
        name: str
        make: object
        variants: tuple

    scope = {"TransferBaseline": TransferBaseline, "make": None, "VARIANTS": ()}
    exec(text, scope)  # noqa: S102 - the test's own text
    return scope


def _python_keys(text: str) -> set[str]:
    """The keys ``TRANSFER_BASELINES`` has when Python runs ``text`` (what ``reference_names()`` returns)."""
    return set(python_scope(text)["TRANSFER_BASELINES"])


@pytest.mark.parametrize("how", sorted(RESPELT))
def test_a_declaration_python_keys_otherwise_frees_no_name(tmp_path, monkeypatch, capsys, how):
    """Attack: the catalog declares the transfer reference ``gnn`` (no folder); a pull request declares it
    as another string and keys the dict by an expression of it (``gnn`` to Python, as before); Mallory's
    ``gnn-m`` lands, then Zoe's ``zoe-mlp``. `leaderboard show` listed ``gnn-m`` under the reference's name.
    Now it stays refused. Control: names dated by the exact declared string (as before) show her record."""

    declared, key = RESPELT[how]
    spelt = declared + KEYED.format(key=key)
    assert _python_keys(DECLARED + KEYED.format(key="t.name")) == _python_keys(spelt) == {"gnn"}
    assert '"gnn"' not in spelt
    assert_gnn_m_refused_unless(tmp_path, monkeypatch, capsys, (spelt, {}), {
        "_declares": lambda name, declared, present: name in declared})


def test_a_declaration_keyed_otherwise_then_restored_frees_no_name(tmp_path, monkeypatch, capsys):
    """Attack, in two pull requests: the first declares ``gnn`` as ``"GNN"`` keyed by ``.lower()`` (``gnn``
    to Python throughout); Mallory's ``gnn-m`` lands; the second restores ``TransferBaseline("gnn", ...)``.
    Read by the exact string, the first ended the declaration and the second began a new one after her
    line, which `leaderboard show` then listed under the reference's name. Now ``"GNN"`` declares ``gnn``
    (its canonical form) and she stays refused. Control: exact strings, the present version still read
    as Python exposes it, show her record."""
    from perfgraphs.leaderboard.records import trust

    declared, key = RESPELT["lowercased"]
    spelt = declared + KEYED.format(key=key)
    repo = _repo(tmp_path, monkeypatch)
    _refactor(repo, spelt, {})
    _add_line(repo, "gnn-m", "Mal Lory")
    source = repo / CATALOG
    source.write_text(source.read_text().replace(spelt, DECLARED))  # the declaration as it was
    _refactor(repo, DECLARED, {})
    assert source.read_text().endswith(DECLARED)
    _add_line(repo, "zoe-mlp", "Zoe Zed")
    methods, skipped = _shown(repo, capsys)
    assert methods == ["zoe-mlp"] and len(skipped) == 1 and "'gnn'" in skipped[0], skipped

    monkeypatch.setattr(trust, "_declares",  # control: the exact string, the present-version rule kept
                        lambda name, declared, present: True if name in declared else None if present else False)
    monkeypatch.setattr(trust, "_import_runs_unread", lambda tree: False)  # the eighty-seventh pass's guard too
    methods, skipped = _shown(repo, capsys)
    assert sorted(methods) == ["gnn-m", "zoe-mlp"] and not skipped, skipped
