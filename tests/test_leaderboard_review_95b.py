"""Ninety-fifth pass, side b (names, dates and who owns a method): a pull request of two commits dated
ahead took a method name from the team that recorded it in between.

The ninety-fourth pass lets a commit's time cap the earlier commits' (``check._capped_times``) only
when it lies on some longest non-decreasing run of the main line's times (``check._dated_with_the_line``):
a lone commit dated back caps nothing. The run is a vote, and a pull request can outvote the honest
commits that land while its records are dated in the future. Mal Lory's pull request, fast-forwarded
seven days ago, holds two commits dated five days ago (his ``gnn-x`` record and an ``AIice Author``
``mal-net`` one, dated the same, and a fixup);
Alice Author's honest ``gnn-x`` commit lands next, six days and 23 hours ago. The line's times read
[10, 5, 5, 7] days ago: the longest run (3) goes through Mal's commits, Alice's (2) is off it, so her
commit capped nothing, Mal's records stayed sure and first, and now her `check` of her own ``gnn-x`` was
refused ("method 'gnn-x' is recorded by 'Mal Lory'"), and so was her ``gnn-y`` ("author 'Alice
Author' reads like 'AIice Author'"), while Mal's passed: her method and her own name taken, where the ninety-first pass promised a
forger may share a name, never take it. (With one commit dated ahead the two runs tie,
Alice's caps, and she keeps it: the attack needs one commit more than the honest ones in its window.)

Now a record takes no method and no person from a later record when every line of it at its arrival is
dated after that later record's own commit (``check._first_seen_by``, asked by ``check_name_owner`` and
``_owned_people``): by that commit's time it was not on the boards. Alice keeps both; Mal shares them
(the ninety-first pass's undecidable pair). Limit, measured: the mirror history is the same data (Mal's
hand-written ``gnn-x`` line merged after Alice's in a lone commit dated back 30 days, past four commits),
so there Mal's next `check` of ``gnn-x`` now passes (shared) where it was refused; a look-alike of Alice
in such a commit is still refused, and a back-dated commit frees only its own lines, never a later one.
"""
import sys
from datetime import datetime, timedelta, timezone

from test_leaderboard_review_20261202 import _ALICE, _MAL, _git, _records_repo


def first_arrival_whatever_dated(arrivals, born, times, predicate, when):
    """``check._first_seen_by`` switched off (a control): the first arrival, its lines' dates aside."""
    return min((w for key, w in arrivals.items() if predicate(*key)), default=sys.maxsize)


def test_a_pull_request_dated_ahead_takes_no_name_from_the_team_recorded_in_between(tmp_path, monkeypatch):
    from perfgraphs.leaderboard.records import check
    from perfgraphs.leaderboard.records.check import check_name_owner

    now = datetime.now(timezone.utc).replace(microsecond=0)
    base, ahead, alice = ((now - timedelta(days=d)).isoformat() for d in (10, 5, 7 - 1 / 24))
    results, add = _records_repo(tmp_path)
    (results / "README").write_text("the results\n")
    _git(results, "add", "README")
    _git(results, "commit", "-q", "-m", "the results folder", date=base)
    add({**_ALICE, "authors": "Mal Lory", "run_identity": "mal-1", "date_utc": ahead},  # fast-forwarded
        {**_MAL, "date_utc": ahead}, date=ahead)
    (results / "README").write_text("the results, a fixup\n")
    _git(results, "commit", "-q", "-am", "fixup", date=ahead)  # the pull request's second commit
    add({**_ALICE, "date_utc": alice}, date=alice)  # Alice's honest commit, at the real time

    assert check_name_owner(results, None, "gnn-x", "Alice Author") == []
    assert check_name_owner(results, None, "gnn-y", "Alice Author") == []
    assert check_name_owner(results, None, "gnn-x", "Mal Lory") == []  # shared, not taken
    assert check_name_owner(results, None, "mal-net-2", "AIice Author") == []
    # control: the first arrival whatever its lines' dates, as before
    monkeypatch.setattr(check, "_first_seen_by", first_arrival_whatever_dated)
    assert "is recorded by 'Mal Lory'" in " ".join(check_name_owner(results, None, "gnn-x", "Alice Author"))
    assert "reads like 'AIice Author'" in " ".join(check_name_owner(results, None, "gnn-y", "Alice Author"))
