"""Seventy-eighth adversarial pass (2026-12-06), read side: a name of the baseline catalog's code is
reserved from the present run of its declaration in ``perfgraphs/baselines/catalog.py``, and that
declaration was found as the literal text ``Baseline("name"`` (``git log -S``). A pull request that only
re-spelled a transfer reference's declaration (a formatter wrapping ``TransferBaseline(`` onto two lines,
the name passed as ``name=``, or a module constant) left the name in the catalog's code but ended its
"declaration": the name, which has no reference folder, was dated at the commit read, and Mallory's
hand-written ``gnn-m`` line, refused when it landed, was shown under the reference's name on every board
once any later commit landed. The catalog's versions are now read as Python (``trust._declared_names``:
the first argument or ``name=`` of each ``...Baseline(`` call, a string or a module constant bound to
one), so a re-spelled declaration is the same declaration, and a comment is none."""

from __future__ import annotations

import pytest

from test_leaderboard_review_61a import _shown
from test_leaderboard_review_71a import _forget_tmp_references  # noqa: F401 — an autouse fixture
from test_leaderboard_review_77a import CATALOG, DECLARED, _add_line, _commit, _repo

RESPELT = {
    "wrapped": 'GNN = TransferBaseline(\n    "gnn", make, VARIANTS,\n)\n',
    "keyword": 'GNN = TransferBaseline(name="gnn", make=make, variants=VARIANTS)\n',
    "constant": 'GNN_NAME = "gnn"\nGNN = TransferBaseline(GNN_NAME, make, VARIANTS)\n',
}


def _respell(repo, spelt: str) -> None:
    from perfgraphs.leaderboard.records import trust

    source = repo / CATALOG
    source.write_text(source.read_text().replace(DECLARED, spelt))
    _commit(repo, "catalog: formatting (the transfer reference gnn, re-spelt)")
    trust._catalog_arrivals.cache_clear()
    trust._catalog_runs.cache_clear()


@pytest.mark.parametrize("spelling", sorted(RESPELT))
def test_a_respelt_catalog_declaration_frees_no_name(tmp_path, monkeypatch, capsys, spelling):
    """Attack: the catalog declares the transfer reference ``gnn`` (no folder); a pull request re-spells
    its declaration; Mallory's ``gnn-m`` lands (refused), then Zoe's ``zoe-mlp``. `leaderboard show`
    listed ``gnn-m`` under the reference's name. Now it stays refused. Control: the literal reading of
    the declaration (as before) shows her record."""
    from perfgraphs.leaderboard.records import trust

    repo = _repo(tmp_path, monkeypatch)
    _respell(repo, RESPELT[spelling])
    _add_line(repo, "gnn-m", "Mal Lory")
    _add_line(repo, "zoe-mlp", "Zoe Zed")  # any later commit
    methods, skipped = _shown(repo, capsys)
    assert methods == ["zoe-mlp"] and len(skipped) == 1 and "'gnn'" in skipped[0], skipped

    # the eighty-fifth pass's guard too
    monkeypatch.setattr(trust, "_declares", lambda name, declared, present: name in declared)
    monkeypatch.setattr(trust, "_declared_names",  # control: the literal text alone, as before
                        lambda text: frozenset(n for n in trust._catalog_names() if f'Baseline("{n}"' in text))
    methods, skipped = _shown(repo, capsys)
    assert sorted(methods) == ["gnn-m", "zoe-mlp"] and not skipped, skipped


def test_a_declaration_in_a_comment_reserves_no_name(tmp_path, monkeypatch, capsys):
    """Neighbour: a comment quoting ``Baseline("gnn"`` declares nothing. With the catalog's ``gnn``
    retired and only such a comment left, Alice's ``gnn-x`` is merged; when a pull request declares
    ``gnn`` again she keeps her record (the literal reading had the comment keep the name declared all
    along, and dropped it); Bob's ``gnn-y``, merged after, is refused."""
    repo = _repo(tmp_path, monkeypatch)
    source = repo / CATALOG
    source.write_text(source.read_text().replace(DECLARED, '# retired: GNN = TransferBaseline("gnn", make)\n'))
    _commit(repo, "catalog: transfer reference gnn retired")
    declared_again_alice_kept(repo, capsys, monkeypatch)


def declared_again_alice_kept(repo, capsys, monkeypatch) -> None:
    """With ``gnn`` not declared in ``repo``'s catalog: Alice's ``gnn-x`` lands, a pull request declares
    ``gnn`` again, Bob's ``gnn-y`` lands after; ``show`` keeps Alice's record and refuses Bob's."""
    from perfgraphs.baselines import catalog

    real_names = catalog.reference_names()
    _add_line(repo, "gnn-x", "Alice Author")
    source = repo / CATALOG
    source.write_text(source.read_text() + DECLARED)
    _commit(repo, "catalog: transfer reference gnn declared again")
    _add_line(repo, "gnn-y", "Bob Builder")
    monkeypatch.setattr(catalog, "reference_names", lambda: real_names)
    methods, skipped = _shown(repo, capsys)
    assert methods == ["gnn-x"] and len(skipped) == 1 and "'gnn-y'" in skipped[0], skipped
