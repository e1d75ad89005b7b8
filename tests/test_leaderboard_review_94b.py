"""Ninety-fourth pass, side b (hidden rounds: landings and dates): one commit dated back turned the name
rules off for every record before it.

The ninety-first pass (side c) capped each main-line commit's time by every later one's
(``check._capped_times``, a suffix minimum), and a record dated after its capped time is *unsure*: it
stays its team's and blocks nobody. One fast-forwarded commit with ``GIT_COMMITTER_DATE`` of
2020-01-01 (a README typo fix, no record in it) capped every earlier commit to 2020: Alice Author's
``gnn-x`` (dated with its commit) became unsure, and ``AIice Author`` (a capital I) and Mal Lory's
``GNN_X``, merged after it at the real time, both passed `check` (0 problems each), where without the
back-dated commit each is refused (the thirteenth pass: a look-alike merged after the original owns
nothing).

Now a commit's time caps the earlier ones only when it lies on some longest non-decreasing run of the
main line's times (``check._dated_with_the_line``), as an honest line's commits do: the lone commit
dated back caps nothing, and both are refused again. Landings tried besides (not findings): a squash
and a rebase landing of a branch keeping the keeper's withdrawn ``gnn-mal`` line read it as withdrawn,
and a squashed definition stating a 60 % floor left the keeper's first-stated 5.5 % on the board.
"""
from test_leaderboard_review_20261202 import _ALICE, _MAL, _SQUAT, _git, _records_repo


def test_one_commit_dated_back_turns_no_name_rule_off(tmp_path, monkeypatch):
    from perfgraphs.leaderboard.records import check
    from perfgraphs.leaderboard.records.check import check_name_owner
    from perfgraphs.registry import task

    board = task("perfgraphs/dippm", "h200-torch-fp32", "latency_ms")
    results, add = _records_repo(tmp_path)
    (results / "README").write_text("the results\n")
    _git(results, "add", "README")
    _git(results, "commit", "-q", "-m", "the results folder")  # a line with a history before Alice's record
    add(_ALICE)
    (results / "README").write_text("the results, a typo fixed\n")
    _git(results, "commit", "-q", "-am", "typo", date="2020-01-01T00:00:00+00:00")  # landed by fast-forward
    add(_MAL, _SQUAT)  # merged at the real time

    def verdicts():
        return (" ".join(check_name_owner(results, board, "mal-net-2", "AIice Author")),
                " ".join(check_name_owner(results, board, "gnn-x", "Mal Lory")),
                check_name_owner(results, board, "gnn-x", "Alice Author"))

    look_alike, squat, alice = verdicts()
    assert "reads like 'Alice Author'" in look_alike and "is recorded by 'Alice Author'" in squat, (look_alike, squat)
    assert alice == []
    # control: every later commit's time caps the earlier ones, as before
    monkeypatch.setattr(check, "_dated_with_the_line", lambda times: [True] * len(times))
    assert verdicts() == ("", "", [])
