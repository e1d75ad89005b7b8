"""Seventy-first adversarial pass (2026-12-06), read side: the baseline catalog's code
(``perfgraphs/baselines/catalog.py``) was read as it stands, and every name it holds was reserved from
the start (the sixty-fifth pass's rule for a transfer reference with no folder). A pull request that
only added a transfer reference ``gnn`` to the catalog (code; no results file, no reference folder
touched) made the ``gnn-x`` record a team had merged long before "take the reference baseline name",
and every board dropped it, where a reference folder of that name is dated from its first commit (the
thirty-sixth pass). A catalog name is now dated from the first main-line commit whose catalog file held
it (``trust._catalog_name_since``)."""

from __future__ import annotations

import pytest

from test_leaderboard_review_36a import _git
from test_leaderboard_review_61a import _line, _shown

CATALOG = "perfgraphs/baselines/catalog.py"


@pytest.fixture(autouse=True)
def _forget_tmp_references():
    from perfgraphs.leaderboard.records import history, results, trust

    yield
    for cached in (trust.reference_spellings, trust._reference_code_problem, trust._reference_files,
                   trust._catalog_arrivals, trust._catalog_runs, history._folder_arrivals):
        cached.cache_clear()
    results.forget_checked()


def _commit(repo, message: str) -> None:
    _git(repo, "add", "-A")
    _git(repo, "commit", "-q", "-m", message)


def _repo(tmp_path, monkeypatch, spelt: str = '"gnn"', earlier: str = ""):
    """A repository holding the reference folder ``static-mlp`` and a catalog file (its first commit),
    then Alice's ``gnn-x`` line, then Mallory's pull request adding the transfer reference ``gnn`` to the
    catalog; the catalog's code read is that file's (its names, the real ones and ``gnn``)."""
    from perfgraphs.baselines import catalog
    from perfgraphs.leaderboard.records import trust

    monkeypatch.setenv("COLUMNS", "200")
    repo = tmp_path / "repo"
    (repo / "results").mkdir(parents=True)
    (repo / "reference" / "static-mlp").mkdir(parents=True)
    (repo / "reference" / "static-mlp" / "README.md").write_text("the static MLP reference\n")
    source = repo / CATALOG
    source.parent.mkdir(parents=True)
    real = sorted(catalog.reference_names())
    source.write_text("".join(f'X = "{n}"\n' for n in real) + earlier)
    _git(repo, "init", "-q", "-b", "main")
    _commit(repo, "references and the catalog")
    (repo / "results" / "dippm.jsonl").write_text(_line("gnn-x", "Alice Able") + "\n")
    _commit(repo, "gnn-x by Alice")
    source.write_text(source.read_text() + f"GNN = TransferBaseline({spelt}, make, VARIANTS)\n")
    _commit(repo, "a transfer reference gnn (Mallory's pull request)")
    monkeypatch.setattr(trust, "REFERENCE_DIR", repo / "reference")
    monkeypatch.setattr(trust, "catalog_file", lambda: source)
    monkeypatch.setattr(catalog, "reference_names", lambda: set(real) | {"gnn"})
    return repo


def _add_line(repo, method: str, authors: str) -> None:
    path = repo / "results" / "dippm.jsonl"
    path.write_text(path.read_text() + _line(method, authors) + "\n")
    _commit(repo, f"{method} by {authors}")


def test_a_name_added_to_the_catalog_does_not_take_a_teams_earlier_record(tmp_path, monkeypatch, capsys):
    """Attack: Mallory's pull request adds ``gnn`` to the catalog's code after Alice's ``gnn-x`` was
    merged; `leaderboard show` dropped Alice's record (the name reserved from the start). Now it is
    shown; Bob's ``gnn-y``, merged after the catalog entry, is still refused. Control: with catalog
    names reserved from the start again, Alice's record is dropped."""
    from perfgraphs.leaderboard.records import trust

    repo = _repo(tmp_path, monkeypatch)
    methods, skipped = _shown(repo, capsys)
    assert methods == ["gnn-x"] and not skipped, skipped
    _add_line(repo, "gnn-y", "Bob Baker")
    methods, skipped = _shown(repo, capsys)
    assert methods == ["gnn-x"] and len(skipped) == 1 and "takes the reference baseline name 'gnn'" in skipped[0]

    monkeypatch.setattr(trust, "_catalog_name_since", lambda name, top: 0)  # control: the unfixed rule
    methods, skipped = _shown(repo, capsys)
    assert methods == [] and len(skipped) == 2, skipped


@pytest.mark.parametrize("spelt, earlier", [('"g" + "nn"', ""), ('"gnn"', 'FAMILIES = ("gnn",)\n')],
                         ids=["built-otherwise", "an-earlier-string"])
def test_a_name_is_dated_from_its_declaration_or_the_commit_read(tmp_path, monkeypatch, capsys, spelt, earlier):
    """A catalog name no committed version of the file declares literally (built otherwise) is dated at
    the commit read; one the file held long before as another string (a dependency's or a family's name,
    as the real file holds ``"xgboost"`` and ``"torch"``) is dated from its declaration
    (``Baseline("gnn"``): dated from the quoted name alone, a reference ``gnn`` declared later took
    Alice's earlier ``gnn-x`` (review of the fix). Either way Alice's line merged before it keeps its
    name, and Bob's line merged last does not."""
    repo = _repo(tmp_path, monkeypatch, spelt=spelt, earlier=earlier)
    methods, skipped = _shown(repo, capsys)
    assert methods == ["gnn-x"] and not skipped, skipped
    _add_line(repo, "gnn-y", "Bob Baker")
    methods, skipped = _shown(repo, capsys)
    assert methods == ["gnn-x"] and len(skipped) == 1 and "'gnn'" in skipped[0], skipped


def test_the_real_catalogs_names_are_found_in_its_history():
    """Every reference name this checkout's catalog declares is dated by a commit of its catalog file (or a
    module it imports) before the commit read, where the checkout has the file's history: one declared
    literally (``Baseline("name"``), and since the eighty-first pass one declared through a constant the
    registry binds to a string (``trappm``, dated at the commit read before)."""
    from perfgraphs.leaderboard.records import history, trust

    top = history.git(trust.catalog_file().parent, "rev-parse", "--show-toplevel")
    if not top or not history.full_history(trust.catalog_file().parent):
        pytest.skip("no history of the catalog file here")
    top = top.strip()
    head = history.git(trust.catalog_file().parent, "rev-parse", "HEAD").strip()
    from pathlib import Path

    rel = trust.catalog_file().resolve().relative_to(Path(top).resolve()).as_posix()
    found = trust._catalog_arrivals(Path(top).resolve(), rel, head)
    chain = history.git(Path(top), "rev-list", "--first-parent", "--count", head).strip()
    assert found and all(0 <= when < int(chain) for when in found.values()), found
    for name, when in found.items():
        assert when < int(chain) - 1, (name, when, chain)
