"""Seventy-ninth adversarial pass (2026-12-06), read side: a name of the baseline catalog's code is
reserved from the present run of its declaration, read from each main-line version of
``perfgraphs/baselines/catalog.py`` as the first argument (or ``name=``) of a ``...Baseline(`` call.
A pull request that only moved code (the transfer reference ``gnn``'s ``TransferBaseline("gnn", ...)``
into a module the catalog imports, or its name passed through a helper ``_transfer("gnn")``, a loop over
names, or a dict of specs unpacked into ``TransferBaseline(**spec)``) left the name in the catalog's code
but ended its "declaration": the name, which has no reference folder, was dated at the commit read, and
Mallory's hand-written ``gnn-m`` line, merged after the refactor, was shown under the reference's name on
every board once any later commit landed. Each version is now read with the repository modules the
catalog imports (``trust._catalog_versions``, ``trust._imported_paths``), and a module that declares
baselines declares every string it holds (``trust._strings``); a module of plain constants (the
registry) declares none."""

from __future__ import annotations

import pytest

from test_leaderboard_review_61a import _shown
from test_leaderboard_review_71a import _forget_tmp_references  # noqa: F401 — an autouse fixture
from test_leaderboard_review_77a import CATALOG, DECLARED, _add_line, _commit, _repo
from test_leaderboard_review_78a import declared_again_alice_kept

MOVED = {
    "module": ("from perfgraphs.baselines.transfer_refs import GNN\n",
               {"perfgraphs/baselines/transfer_refs.py": DECLARED}),
    "relative module": ("from .transfer_refs import GNN\n", {"perfgraphs/baselines/transfer_refs.py": DECLARED}),
    "helper": ('def _transfer(name):\n    return TransferBaseline(name, make, VARIANTS)\n\n\nGNN = _transfer("gnn")\n',
               {}),
    "loop": ('REFS = [TransferBaseline(n, make, VARIANTS) for n in ("gnn",)]\n', {}),
    "specs": ('SPECS = {"gnn": dict(make=make, variants=VARIANTS)}\n'
              'REFS = [TransferBaseline(name=n, **spec) for n, spec in SPECS.items()]\n', {}),
}


def _refactor(repo, spelt: str, files: dict[str, str]) -> None:
    from perfgraphs.leaderboard.records import trust

    source = repo / CATALOG
    source.write_text(source.read_text().replace(DECLARED, spelt))
    for path, text in files.items():
        (repo / path).write_text(text)
    _commit(repo, "catalog: refactor (the transfer reference gnn, moved)")
    trust._catalog_arrivals.cache_clear()
    trust._catalog_runs.cache_clear()


@pytest.mark.parametrize("how", sorted(MOVED))
def test_a_catalog_declaration_moved_frees_no_name(tmp_path, monkeypatch, capsys, how):
    """Attack: the catalog declares the transfer reference ``gnn`` (no folder); a pull request moves the
    declaration (to an imported module, a helper, a loop, a dict of specs); Mallory's ``gnn-m`` lands,
    then Zoe's ``zoe-mlp``. `leaderboard show` listed ``gnn-m`` under the reference's name. Now it stays
    refused. Control: the catalog file's ``...Baseline(`` arguments alone (as before) show her record."""
    assert_gnn_m_refused_unless(tmp_path, monkeypatch, capsys, MOVED[how], {
        "_imported_paths": lambda text, rel: set(), "_strings": lambda tree: set(),
        "_unread_declaration": lambda text: False})  # the eightieth pass's guard too


def assert_gnn_m_refused_unless(tmp_path, monkeypatch, capsys, refactor: tuple, guards_off: dict) -> None:
    """The catalog's declaration of ``gnn`` re-written by ``refactor`` (:func:`_refactor`'s arguments), then
    Mallory's ``gnn-m`` and Zoe's ``zoe-mlp`` land: ``show`` refuses ``gnn-m`` under the reference's name;
    with ``trust``'s functions ``guards_off`` replaced (the control), it is shown."""
    from perfgraphs.leaderboard.records import trust

    repo = _repo(tmp_path, monkeypatch)
    _refactor(repo, *refactor)
    _add_line(repo, "gnn-m", "Mal Lory")
    _add_line(repo, "zoe-mlp", "Zoe Zed")  # any later commit
    methods, skipped = _shown(repo, capsys)
    assert methods == ["zoe-mlp"] and len(skipped) == 1 and "'gnn'" in skipped[0], skipped

    # the eighty-fifth pass's guard too
    monkeypatch.setattr(trust, "_declares", lambda name, declared, present: name in declared)
    monkeypatch.setattr(trust, "_import_runs_unread", lambda tree: False)  # the eighty-seventh pass's guard too
    for name, replacement in guards_off.items():  # control: as before
        monkeypatch.setattr(trust, name, replacement)
    methods, skipped = _shown(repo, capsys)
    assert sorted(methods) == ["gnn-m", "zoe-mlp"] and not skipped, skipped


def test_a_plain_constant_in_an_imported_module_declares_no_name(tmp_path, monkeypatch, capsys):
    """Neighbour: the catalog's ``gnn`` is retired, and a module of plain constants it imports holds the
    string ``"gnn"`` (a model family). Alice's ``gnn-x`` is merged; a pull request declares ``gnn``
    again. She keeps her record (the name dates from the declaration, not from the constant); Bob's
    ``gnn-y``, merged after, is refused. Control: counting the plain module's strings dates the name
    from the constant and drops her record."""
    from perfgraphs.leaderboard.records import trust

    repo = _repo(tmp_path, monkeypatch)
    (repo / "perfgraphs" / "families.py").write_text('FAMILIES = ("gnn", "mlp")\n')
    _refactor(repo, "from perfgraphs.families import FAMILIES\n"
                    'MLP = Baseline("static-mlp", "m:C", "static", "static")\n', {})
    declared_again_alice_kept(repo, capsys, monkeypatch)

    real = trust._declared_names
    monkeypatch.setattr(trust, "_declared_names",  # control: every module's strings count
                        lambda text: real(text) | ({"gnn"} if '"gnn"' in text else set()))
    methods, skipped = _shown(repo, capsys)
    assert methods == [] and len(skipped) == 2, skipped
