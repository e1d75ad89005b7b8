"""Hundred-and-twenty-sixth pass (2026-12-08), side f: name ownership through a fast-forwarded merge of main.

Lead (side c of this pass), reproduced: Eve's pull-request branch forked before Alice Author's ``gnn-x`` record
landed; Eve committed her own ``gnn-x`` (authors ``Eve Evil``), merged main keeping both lines, and the pull
request landed by fast-forward. ``check_name_owner(..., "gnn-x", "Eve Evil")`` passed (0 problems) and Alice
was refused her own method ("is recorded by 'Eve Evil'"): on the first-parent line Eve's commit comes before
the merge that brought Alice's line.

Not fixed, and why: that history is the same graph, commit for commit and date for date, as an honest one
RULES asks for, a squatter's branch (Mal Lory's ``gnn-x``) forked before Alice's record and merged with a merge
commit after it, which the thirteenth pass refuses (Alice owns). In both, one side of the merge added the first
``gnn-x`` on the first-parent line and the other side, concurrent with it (neither commit an ancestor of the
other), the second. Any reading of history that frees Alice in the first frees Mal in the second; the ancestry
rule weighed here (a line owns a name only over lines added in descendants of its own commit; concurrent claims
shared) would pass Mal's ``check`` at his pull request's merge, with no rule broken, since any branch can fork
from an old commit. Only RULES' "never fast-forwarded" stops the attack; these tests pin both readings so that
a later pass sees the trade before changing either.
"""

from __future__ import annotations

from test_leaderboard_review_20261202 import _ALICE, _git, _records_repo

_SEED = {**_ALICE, "method": "seed", "authors": "Sam Seed", "run_identity": "seed-1"}
_DATES = ("2026-12-01T10:00:00+00:00", "2026-12-01T11:00:00+00:00", "2026-12-01T12:00:00+00:00",
          "2026-12-01T13:00:00+00:00")


def _history(tmp_path, first_parent: dict, second_parent: dict):
    """A results folder: a seed record, then ``first_parent``'s record on one line and ``second_parent``'s on a
    line forked beside it, and a merge of the second into the first (dates fixed, so two calls differ in the
    records alone)."""
    tmp_path.mkdir()
    results, add = _records_repo(tmp_path)
    add(_SEED, date=_DATES[0])
    _git(results, "branch", "side")
    add(second_parent, date=_DATES[1])
    _git(results, "checkout", "-q", "side")
    add(first_parent, first=True, date=_DATES[2])
    _git(results, "merge", "-q", "--no-ff", "-m", "merge", "main", date=_DATES[3])
    _git(results, "checkout", "-q", "main")
    _git(results, "merge", "-q", "--ff-only", "side")
    return results


def _shape(results) -> list[int]:
    """The parents' count of each commit, newest first, and whether the merge's two sides are concurrent."""
    counts = [len(line.split()) - 1 for line in _git(results, "log", "--format=%H %P").splitlines()]
    concurrent = all(_git_ok(results, "merge-base", "--is-ancestor", a, b) is False
                     for a, b in (("HEAD^1", "HEAD^2"), ("HEAD^2", "HEAD^1")))
    return [*counts, concurrent]


def _git_ok(results, *args: str) -> bool:
    import subprocess

    return subprocess.run(["git", "-C", str(results), *args], capture_output=True).returncode == 0


def test_a_fast_forwarded_merge_of_main_reads_as_a_squatter_merged_after(tmp_path):
    """Attack (lead of side c): Eve's fast-forwarded branch owns ``gnn-x`` and Alice is refused. Control: the
    same graph, dates and all, with Alice on the first-parent side and Mal's branch merged after her: Alice
    owns, Mal is refused, as the thirteenth pass has it. The two sides are concurrent in both."""
    from perfgraphs.leaderboard.records.check import check_name_owner
    from perfgraphs.registry import task

    board = task("perfgraphs/dippm", "h200-torch-fp32", "latency_ms")
    eve = {"method": "gnn-x", "authors": "Eve Evil", "run_identity": "eve-1"}
    mal = {"method": "gnn-x", "authors": "Mal Lory", "run_identity": "mal-1"}
    attack = _history(tmp_path / "attack", eve, _ALICE)
    honest = _history(tmp_path / "honest", _ALICE, mal)
    assert _shape(attack) == _shape(honest) == [2, 1, 1, 0, True]
    # the known limit: the first-parent side's record owns the name in both
    assert check_name_owner(attack, board, "gnn-x", "Eve Evil") == []
    assert "is recorded by 'Eve Evil'" in " ".join(check_name_owner(attack, board, "gnn-x", "Alice Author"))
    assert check_name_owner(honest, board, "gnn-x", "Alice Author") == []
    assert "is recorded by 'Alice Author'" in " ".join(check_name_owner(honest, board, "gnn-x", "Mal Lory"))
