"""Eighty-first adversarial pass (2026-12-06), read side: a name of the baseline catalog's code is
reserved from the present run of its declaration, read from each main-line version of the catalog and
the repository modules it imports as Python, never run. A pull request that only re-spelt the transfer
reference ``gnn``'s declaration so that no ``...Baseline(`` call names it readably (the class called
under another name: ``B = TransferBaseline; B("gnn", ...)``, ``functools.partial(TransferBaseline,
"gnn")``, ``getattr(module, "TransferBaseline")("gnn", ...)``, a class method ``TransferBaseline.named(
"gnn", ...)``; or its name a constant built in a module the catalog imports, ``NAME = "g" + "nn"``)
ended its declaration as read: the name, which has no reference folder, was dated at the commit read,
and Mallory's hand-written ``gnn-m`` line, merged after the re-spelling, was shown under the reference's
name on every board once any later commit landed. Such a version is now one the reader cannot fully read,
and it ends no declaration: a ``...Baseline`` class named anywhere but as a call's callee or an
annotation (``trust._baseline_passed_around``), and an imported name passed as a baseline's name that
the imported module does not bind to a string (``trust._imported_names``, resolved in
``trust._declared_at``)."""

from __future__ import annotations

import pytest

from test_leaderboard_review_61a import _shown
from test_leaderboard_review_71a import _forget_tmp_references  # noqa: F401 — an autouse fixture
from test_leaderboard_review_77a import CATALOG, _add_line, _commit, _repo
from test_leaderboard_review_79a import _refactor, assert_gnn_m_refused_unless

RESPELT = {
    "alias": ('B = TransferBaseline\nGNN = B("gnn", make, VARIANTS)\n', {}),
    "partial": ('import functools\nGNN = functools.partial(TransferBaseline, "gnn")(make, VARIANTS)\n', {}),
    "getattr": ('import sys\nGNN = getattr(sys.modules[__name__], "TransferBaseline")("gnn", make, VARIANTS)\n', {}),
    "class method": ('GNN = TransferBaseline.named("gnn", make, VARIANTS)\n', {}),
    "imported constant": ("from perfgraphs.baselines.refnames import NAME\nGNN = TransferBaseline(NAME, make, VARIANTS)\n",
                          {"perfgraphs/baselines/refnames.py": 'NAME = "g" + "nn"\n'}),
}


@pytest.mark.parametrize("how", sorted(RESPELT))
def test_a_catalog_declaration_respelt_unreadably_frees_no_name(tmp_path, monkeypatch, capsys, how):
    """Attack: the catalog declares the transfer reference ``gnn`` (no folder); a pull request re-spells
    the declaration (an alias, a partial, getattr, a class method, a constant built in an imported
    module); Mallory's ``gnn-m`` lands, then Zoe's ``zoe-mlp``. `leaderboard show` listed ``gnn-m`` under
    the reference's name. Now it stays refused. Control: with both readings off (as before), her record
    is shown."""
    assert_gnn_m_refused_unless(tmp_path, monkeypatch, capsys, RESPELT[how], {
        "_baseline_passed_around": lambda tree: False, "_imported_names": lambda tree, rel: ()})


def test_a_constant_imported_from_a_module_of_strings_is_read(tmp_path, monkeypatch, capsys):
    """Neighbour: the catalog's ``gnn`` is retired and Alice's ``gnn-x`` lands; a pull request declares it
    again by a constant of a module of plain strings the catalog imports (as the real catalog names
    ``trappm`` by the registry's ``TRAPPM``), and Bob's ``gnn-y`` lands after. The constant is read (its
    module binds it to a string): Alice keeps her record, Bob's is refused. Control: the imported
    module's strings unread, the name was dated at the commit read and Bob's record was shown too."""
    from perfgraphs.baselines import catalog
    from perfgraphs.leaderboard.records import trust

    repo = _repo(tmp_path, monkeypatch)
    real_names = catalog.reference_names()
    _refactor(repo, "", {"perfgraphs/refnames.py": 'MLP_NAME, GNN_NAME = "mlp", "gnn"\n'})  # retired
    _add_line(repo, "gnn-x", "Alice Author")
    source = repo / CATALOG
    source.write_text(source.read_text() + "from perfgraphs.refnames import GNN_NAME\n"
                      "GNN = TransferBaseline(GNN_NAME, make, VARIANTS)\n")
    _commit(repo, "catalog: transfer reference gnn declared again")
    _add_line(repo, "gnn-y", "Bob Builder")
    _add_line(repo, "zoe-mlp", "Zoe Zed")  # any later commit
    monkeypatch.setattr(catalog, "reference_names", lambda: real_names)
    methods, skipped = _shown(repo, capsys)
    assert sorted(methods) == ["gnn-x", "zoe-mlp"] and len(skipped) == 1 and "'gnn-y'" in skipped[0], skipped

    real = trust._module_reading
    monkeypatch.setattr(trust, "_module_reading", lambda text, rel: (*real(text, rel)[:3], {}, real(text, rel)[4]))
    methods, skipped = _shown(repo, capsys)
    assert sorted(methods) == ["gnn-x", "gnn-y", "zoe-mlp"] and not skipped, skipped
