"""Ninety-first pass, side c (names and dates): who owns a method name when a committer chooses
the commit's time.

The twenty-fifth pass made a record dated more than an hour after the commit that brought it
claim nothing (``check._first_additions``): Eve's ``gnn-x`` dated three days ahead is skipped by
the boards until then, so Alice, who records ``gnn-x`` in between, keeps it. But the commit's time
is its committer's (``GIT_COMMITTER_DATE``), and a fast-forward or rebase landing keeps it: Eve's
pull request commit dated three days ahead, with her record dated the same, was "not after its
commit". Alice's honest commit came next, at the real time; three days and an hour later her
``check`` of ``gnn-x`` was refused ("method 'gnn-x' is recorded by 'Eve Evil' ... (gnn-x,
<date three days on>)") and Eve's passed.

Now a commit's time is capped by every later main-line commit's and by now
(``check._capped_times``, a suffix minimum): Alice's real commit caps Eve's forged one. A later
commit can be dated back too (a pull request's commit two hours in the past, holding ``gnn-x``
under Eve's name dated the same, would make Alice's earlier record "dated after" it under a plain
suffix minimum, and Eve's the first), and the two cases leave the same history, so a record dated
after its capped time but not after its own commit's is *unsure*: it stays its own team's and
blocks nobody. Either way Alice keeps ``gnn-x``; the forger may share it (two author lists under
one name, noted under the board), never take it.
"""
from datetime import datetime, timedelta, timezone

from test_leaderboard_review_20261202 import _ALICE, _records_repo
from test_leaderboard_review_95b import first_arrival_whatever_dated


def _three_days_on(monkeypatch) -> None:
    from perfgraphs.leaderboard.records import record_check

    class Later(datetime):
        @classmethod
        def now(cls, tz=None):
            return datetime.now(tz) + timedelta(days=3, hours=1)

    monkeypatch.setattr(record_check, "datetime", Later)


def test_a_commit_dated_ahead_takes_no_name_from_the_team_recorded_in_between(tmp_path, monkeypatch):
    from perfgraphs.leaderboard.records import check
    from perfgraphs.leaderboard.records.check import check_name_owner

    now = datetime.now(timezone.utc).replace(microsecond=0)
    ahead = (now + timedelta(days=3)).isoformat()
    results, add = _records_repo(tmp_path)
    add({**_ALICE, "authors": "Eve Evil", "run_identity": "eve-1", "date_utc": ahead}, date=ahead)  # landed as is
    add({**_ALICE, "date_utc": now.isoformat()})
    _three_days_on(monkeypatch)
    assert check_name_owner(results, None, "gnn-x", "Alice Author") == []
    assert check_name_owner(results, None, "gnn-x", "Eve Evil") == []  # unsure: shared, not taken
    monkeypatch.setattr(check, "_capped_times", lambda times: times)  # control: the commits' own times,
    monkeypatch.setattr(check, "_first_seen_by", first_arrival_whatever_dated)  # and the 95th pass's guard off
    assert "recorded by 'Eve Evil'" in " ".join(check_name_owner(results, None, "gnn-x", "Alice Author"))


def test_a_later_commit_dated_back_takes_no_name_from_the_team_before_it(tmp_path, monkeypatch):
    """The other side of the cap: a commit after Alice's dated two hours back, holding Eve's
    ``gnn-x`` dated the same, leaves Alice hers (a plain suffix minimum would have made her record
    dated after its commit, claiming nothing)."""
    from perfgraphs.leaderboard.records.check import check_name_owner

    now = datetime.now(timezone.utc).replace(microsecond=0)
    back = (now - timedelta(hours=2)).isoformat()
    results, add = _records_repo(tmp_path)
    add({**_ALICE, "date_utc": now.isoformat()})
    add({**_ALICE, "authors": "Eve Evil", "run_identity": "eve-1", "date_utc": back}, date=back)
    assert check_name_owner(results, None, "gnn-x", "Alice Author") == []
