"""Seventy-seventh adversarial pass (2026-12-06), read side: a name of the baseline catalog's code was
reserved from the OLDEST main-line commit whose ``perfgraphs/baselines/catalog.py`` declared it
(``trust._catalog_arrivals``), whether or not the declaration stayed. A transfer reference ``gnn``
taken out of the catalog (retired) leaves its name free: `check` accepts a team's ``gnn-x`` and every
board shows it. A later pull request declaring ``gnn`` in the catalog again dated the name from its
first declaration, before Alice's ``gnn-x``, and every board dropped her record (the gap the
seventy-sixth pass closed for reference folders). A catalog name is now reserved from the start of its
present declaration on the main line (``trust._catalog_runs``), and a line that arrived while an
earlier declaration held the name stays refused (``trust._recorded_while_held``). Also: a catalog name
built otherwise than ``Baseline("name"`` (the real ``trappm``) was dated at the commit read and its
reference folder not read, so a team's hand-written ``trappm-x`` was shown under the reference's name
once any later commit landed; a catalog name's folder now reserves it too (``trust._folder_reservation``)."""

from __future__ import annotations

import functools
import re

from test_leaderboard_review_36a import _git
from test_leaderboard_review_61a import _line, _shown
from test_leaderboard_review_71a import _commit, _forget_tmp_references  # noqa: F401 — an autouse fixture

CATALOG = "perfgraphs/baselines/catalog.py"
DECLARED = 'GNN = TransferBaseline("gnn", make, VARIANTS)\n'


def _declare(repo, present: bool) -> None:
    from perfgraphs.leaderboard.records import trust

    source = repo / CATALOG
    text = source.read_text()
    source.write_text(text + DECLARED if present else text.replace(DECLARED, ""))
    _commit(repo, "catalog: transfer reference gnn " + ("declared" if present else "retired"))
    trust._catalog_arrivals.cache_clear()
    trust._catalog_runs.cache_clear()


def _add_line(repo, method: str, authors: str) -> None:
    path = repo / "results" / "dippm.jsonl"
    path.write_text((path.read_text() if path.exists() else "") + _line(method, authors) + "\n")
    _commit(repo, f"{method} by {authors}")


def _repo(tmp_path, monkeypatch):
    """A repository holding the reference folder ``static-mlp`` and a catalog file declaring the transfer
    reference ``gnn`` (its first commit); the catalog's code read is that file's names and ``gnn``."""
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
    source.write_text("".join(f'X = "{n}"\n' for n in real) + DECLARED)
    _git(repo, "init", "-q", "-b", "main")
    _commit(repo, "references and the catalog")
    monkeypatch.setattr(trust, "REFERENCE_DIR", repo / "reference")
    monkeypatch.setattr(trust, "catalog_file", lambda: source)
    monkeypatch.setattr(catalog, "reference_names", lambda: set(real) | {"gnn"})
    return repo


def test_a_catalog_name_declared_again_does_not_take_a_name_recorded_while_it_was_gone(tmp_path, monkeypatch,
                                                                                       capsys):
    """Attack: the catalog's transfer reference ``gnn`` is retired; Alice's ``gnn-x`` lands and is shown;
    Mallory's pull request declares ``gnn`` in the catalog again. `leaderboard show` dropped Alice's
    record (the name dated from its first declaration). Now it is shown; Bob's ``gnn-y``, merged after
    the name came back, is refused. Control: the name dated from its first declaration again drops
    Alice's record too."""
    from perfgraphs.leaderboard.records import trust

    repo = _repo(tmp_path, monkeypatch)
    _declare(repo, present=False)
    _add_line(repo, "gnn-x", "Alice Author")
    from perfgraphs.baselines import catalog

    real_names = catalog.reference_names() - {"gnn"}
    with monkeypatch.context() as retired:  # while retired, the catalog's code holds no ``gnn``
        retired.setattr(catalog, "reference_names", lambda: real_names)
        trust.reference_spellings.cache_clear()
        methods, skipped = _shown(repo, capsys)
    assert methods == ["gnn-x"] and not skipped, skipped
    _declare(repo, present=True)  # Mallory's pull request
    _add_line(repo, "gnn-y", "Bob Builder")
    methods, skipped = _shown(repo, capsys)
    assert methods == ["gnn-x"] and len(skipped) == 1 and "'gnn'" in skipped[0], skipped

    real = trust._catalog_runs

    @functools.lru_cache(maxsize=8)  # conftest forgets the record caches when one is patched
    def first_declaration(top, rel, head):  # control: a name dated from its first declaration, as before
        return {name: ((r[0][0], r[-1][1]),) if r else r for name, r in real(top, rel, head).items()}

    monkeypatch.setattr(trust, "_catalog_runs", first_declaration)
    trust._catalog_arrivals.cache_clear()
    trust._catalog_runs.cache_clear()
    methods, skipped = _shown(repo, capsys)
    assert methods == [] and len(skipped) == 2, skipped


def test_a_catalog_name_taken_out_and_put_back_frees_no_name(tmp_path, monkeypatch, capsys):
    """Neighbour: Mallory's ``gnn-m`` lands while the catalog declares ``gnn`` (refused); a pull request
    of two commits, fast-forwarded, takes the declaration out and puts it back (an empty diff). Her line
    arrived while the name was declared, so it stays refused. Control: with the name dated from its
    present declaration alone, her record is shown under the reference's name."""
    from perfgraphs.leaderboard.records import trust

    repo = _repo(tmp_path, monkeypatch)
    _add_line(repo, "gnn-m", "Mal Lory")
    methods, skipped = _shown(repo, capsys)
    assert methods == [] and len(skipped) == 1, skipped
    _declare(repo, present=False)
    _declare(repo, present=True)
    methods, skipped = _shown(repo, capsys)
    assert methods == [] and len(skipped) == 1 and "'gnn'" in skipped[0], skipped

    monkeypatch.setattr(trust, "_recorded_while_held", lambda start, earlier: False)  # control
    methods, skipped = _shown(repo, capsys)
    assert methods == ["gnn-m"] and not skipped, skipped


def test_a_reference_folder_reserves_a_catalog_name_the_catalog_builds_otherwise(tmp_path, monkeypatch, capsys):
    """Attack: the catalog declares its reference through a constant (``Baseline(GNN_NAME, ...``, as the
    real catalog declares ``trappm``), so no version declares ``Baseline("gnn"``: the name was dated at
    the commit read, and its folder ``leaderboard/reference/gnn/``, there from the first commit, was
    not read for a catalog name at all. Mallory's hand-written ``gnn-m`` line was refused only until
    one more commit (any team's) landed on the main line: then every board showed it under the
    reference's name. Now the folder reserves the name as well. Control: a catalog name dated by the
    catalog alone (as before) shows her record."""
    from perfgraphs.leaderboard.records import trust

    repo = _repo(tmp_path, monkeypatch)
    source = repo / CATALOG
    # imported, as the real catalog's TRAPPM is (a constant of the file itself is read: seventy-eighth pass)
    source.write_text(source.read_text().replace(DECLARED, 'from names import GNN_NAME\nGNN = TransferBaseline('
                                                                    'GNN_NAME, make, VARIANTS)\n'))
    (repo / "reference" / "gnn").mkdir()
    (repo / "reference" / "gnn" / "README.md").write_text("the reference gnn\n")
    _git(repo, "commit", "-q", "--amend", "-a", "--no-edit")
    _git(repo, "add", "-A")
    _git(repo, "commit", "-q", "--amend", "--no-edit")
    _add_line(repo, "gnn-m", "Mal Lory")
    methods, skipped = _shown(repo, capsys)
    assert methods == [] and len(skipped) == 1 and "'gnn'" in skipped[0], skipped
    _add_line(repo, "zoe-mlp", "Zoe Zed")  # any later commit
    methods, skipped = _shown(repo, capsys)
    assert methods == ["zoe-mlp"] and len(skipped) == 1 and "'gnn-m'" in skipped[0], skipped

    monkeypatch.setattr(trust, "_folder_reservation", lambda name, folders, since: since)  # control
    methods, skipped = _shown(repo, capsys)
    assert sorted(methods) == ["gnn-m", "zoe-mlp"] and not skipped, skipped


def test_a_teams_entry_under_a_reference_name_lists_no_reference_on_a_hidden_board():
    """The seventy-seventh pass's lead, on the site's hidden-board line: a reference counted as
    "listed" on a hidden set wherever an entry's method was the reference's name, whatever its
    authors, so a team's keeper-signed `static-mlp (tuned)`, shown because it landed before the name
    was reserved, stood for the reference the set lacks. Now only the references' own records count
    (as `boards.missing_reference_entries` counts them on public boards). Control: by name alone, the
    team's entry hides that the reference is missing."""
    from dataclasses import replace

    from perfgraphs.leaderboard.records import boards
    from perfgraphs.leaderboard.records.boards import entry_groups, official
    from perfgraphs.leaderboard.records.results import RESULTS_DIR, RecordedBoards
    from perfgraphs.leaderboard.site import pages

    (key, current), = [(k, v) for k, v in entry_groups(RESULTS_DIR, RecordedBoards()).items()
                       if k[4] == "hidden" and k[5].startswith("4e45d0b9")]
    board = official(*key[:4])
    by_name = {e.method: e for e in current}
    team = replace(by_name["static-mlp (quick)"], method="static-mlp (tuned)", authors="Ada Wu")
    field = [e for e in current if e.method != "static-mlp (quick)"] + [team]
    def lacking(entries) -> list[str]:  # the references the site says the set lacks
        found = re.search(r"not yet scored on it: ([^;]*)", pages._reference_status(board, "hidden", entries, {}))
        return found.group(1).split(", ") if found else []

    assert "static-mlp" in lacking(field)
    assert "static-mlp" not in lacking(current)  # the reference's own record counts
    real = boards.REFERENCE_AUTHORS
    try:  # control: any authors count, as before
        pages.REFERENCE_AUTHORS = team.authors
        assert "static-mlp" not in lacking(field)
    finally:
        pages.REFERENCE_AUTHORS = real
