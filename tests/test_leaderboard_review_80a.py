"""Eightieth adversarial pass (2026-12-06), read side: a name of the baseline catalog's code is reserved
from the present run of its declaration, read from each main-line version of the catalog (and the
modules it imports) as Python, never run. A pull request that only re-spelt the transfer reference
``gnn``'s declaration so that its name is built when the catalog is imported (``"g" + "nn"``, an
f-string, ``.format``, a ``join``, a constant built so, a name read from a data file) left ``gnn`` in
the catalog's code but ended its declaration as read: the name, which has no reference folder, was
dated at the commit read, and Mallory's hand-written ``gnn-m`` line, merged after the re-spelling, was
shown under the reference's name on every board once any later commit landed. A version whose
``...Baseline(`` call names a baseline by an expression that cannot be read without running it now
ends no declaration (``trust._unread_declaration``): the names the version before declared stay."""

from __future__ import annotations

import pytest

from test_leaderboard_review_61a import _shown
from test_leaderboard_review_71a import _forget_tmp_references  # noqa: F401 — an autouse fixture
from test_leaderboard_review_77a import _add_line, _repo
from test_leaderboard_review_79a import _refactor

BUILT = {
    "concatenation": 'GNN = TransferBaseline("g" + "nn", make, VARIANTS)\n',
    "data file": 'import json\nGNN = TransferBaseline(json.load(open("refs.json"))["name"], make, VARIANTS)\n',
}


@pytest.mark.parametrize("how", sorted(BUILT))
def test_a_catalog_name_built_at_run_time_frees_no_name(tmp_path, monkeypatch, capsys, how):
    """Attack: the catalog declares the transfer reference ``gnn`` (no folder); a pull request re-spells
    the declaration so the name is built at import; Mallory's ``gnn-m`` lands, then Zoe's ``zoe-mlp``.
    `leaderboard show` listed ``gnn-m`` under the reference's name. Now it stays refused. Control: with
    an unread declaration ending the name's run (as before), her record is shown."""
    from perfgraphs.leaderboard.records import trust

    repo = _repo(tmp_path, monkeypatch)
    _refactor(repo, BUILT[how], {})
    _add_line(repo, "gnn-m", "Mal Lory")
    _add_line(repo, "zoe-mlp", "Zoe Zed")  # any later commit
    methods, skipped = _shown(repo, capsys)
    assert methods == ["zoe-mlp"] and len(skipped) == 1 and "'gnn'" in skipped[0], skipped

    # the eighty-fifth pass's guard too
    monkeypatch.setattr(trust, "_declares", lambda name, declared, present: name in declared)
    monkeypatch.setattr(trust, "_unread_declaration", lambda text: False)  # control: as before
    monkeypatch.setattr(trust, "_import_runs_unread", lambda tree: False)  # the eighty-seventh pass's guard too
    methods, skipped = _shown(repo, capsys)
    assert sorted(methods) == ["gnn-m", "zoe-mlp"] and not skipped, skipped
