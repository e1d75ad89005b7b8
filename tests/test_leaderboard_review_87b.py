"""Eighty-seventh adversarial pass (2026-12-06), submit side (hidden rounds): a hidden run was dated against
the commit that first published its set's hash on the main line's first-parent history (``git log
--first-parent -S<hash>``), and read the state "just before the draw" as that commit's first parent. A pull
request branch forked before the draw, that committed a folder after the draw and then merged main (the draw
in it), landed by fast-forward (RULES forbids it; the code cannot see how a history was made), made its merge
the first-parent "publishing" commit, whose first parent holds the post-draw folder: the 79b folder holding
three labels the probe's record solved, written after the draw, read as code of before the draw and scored a
keeper-signed *verified* record better than its ridge earns (printed by the test). Now every hidden lookup
dates the set from the one commit, in any-parent history, that added the hash to the commitment file, an
ancestor of every other that did (``frozen_fits.publishing_commit``); none such: refused."""

from __future__ import annotations

import os
import shutil
import subprocess

import pytest

from perfgraphs.leaderboard import frozen_fits
from test_leaderboard_review_67b import _predict, _refit
from test_leaderboard_review_79b import _holding, _probe, _record, _submit, row_buckets, solved_by_the_probe
from test_submit import commit_tiny_hidden_set, env, example_copy, numpy_mape, parts  # noqa: F401 — fixtures

pytestmark = pytest.mark.skipif(os.geteuid() != 0 or shutil.which("bwrap") is None,
                                reason="a hidden board's runs drop the page cache and run in the sandbox")


def test_a_fast_forwarded_branch_that_merged_the_draw_does_not_date_its_code_before_it(env, parts, capsys,
                                                                                        git_commitments, monkeypatch):
    """Attack: the probe and the draw on main; the probe's record solves three labels; a branch forked before
    the draw commits a folder holding them, merges main and lands by fast-forward; the folder is refused in
    one line. Control: with the lookup as it was (first-parent) it scores a verified record better than the
    ridge it is."""
    commitments, commit = git_commitments
    repo = commitments.parent.parent
    git = ["git", "-C", str(repo), "-c", "user.name=mallory", "-c", "user.email=m@example.org"]
    probe = example_copy(repo / "submissions" / "probe", "probe-87b", _probe)
    commit("a team's probe, before the draw")
    commit_tiny_hidden_set(env["tmp"] / "keeper", parts, git_commitments, capsys, monkeypatch)
    main = subprocess.run([*git, "symbolic-ref", "--short", "HEAD"], capture_output=True, text=True).stdout.strip()
    subprocess.run([*git, "branch", "pr", "HEAD~1"], check=True)  # forked before the draw
    rc, err = _submit(probe, env, capsys)
    assert rc == 0, err
    y, solved = solved_by_the_probe(env, "probe-87b", parts)
    assert len(solved) == 3

    subprocess.run([*git, "checkout", "-q", "pr"], check=True)
    after = example_copy(repo / "submissions" / "after", "after-87b", _holding(solved))
    subprocess.run([*git, "add", "-A"], check=True)
    subprocess.run([*git, "commit", "-q", "-m", "after the probe's record"], check=True)
    subprocess.run([*git, "merge", "-q", "--no-edit", main], check=True)  # the branch merges main (the draw)
    subprocess.run([*git, "checkout", "-q", main], check=True)
    subprocess.run([*git, "merge", "-q", "--ff-only", "pr"], check=True)  # landed by fast-forward
    rc, err = _submit(after, env, capsys)
    # the probe's record, its draw now off the first-parent line, is not read either (eighty-ninth pass)
    assert rc == 1 and "before its set was drawn" in err[-1], err
    # (or, when the branch's merge of main fell a second after the probe's score, dated before the commitment as the
    # main line now holds it: a subset run on 52e815b met it; either way the record is skipped)
    assert all("not on its first-parent line" in e or "before its commitment was committed" in e for e in err[:-1]), \
        "\n".join(err)
    assert "after-87b" not in (env["results"] / "dippm.jsonl").read_text()

    def first_parent(top, head, set_sha256, published_at):  # the lookup as it was: the check off
        from perfgraphs.leaderboard.records.history import git as run_git
        out = run_git(top, "log", "--first-parent", "--diff-merges=first-parent", "--reverse", "--format=%H",
                      f"-S{set_sha256}", head, "--", f":(literal){published_at}") or ""
        return (out.split() or [None])[0]

    monkeypatch.setattr(frozen_fits, "publishing_commit", first_parent)
    rc, err = _submit(after, env, capsys)
    assert rc == 0, err
    record = _record(env, "after-87b")
    keys = row_buckets(parts)[1]
    honest = _predict(_refit(parts.train), parts.test)
    held = honest.copy()
    for b in solved:
        held[keys == b] = y[keys == b]
    assert record["tier"] == "verified" and record["keeper_signature"]
    for s in record["per_seed"]:
        assert s["mape_pct"] == pytest.approx(numpy_mape(y, held), rel=1e-6)
        assert s["mape_pct"] < numpy_mape(y, honest) - 1.0, (s["mape_pct"], numpy_mape(y, honest))
    print(f"87b: verified {record['per_seed'][0]['mape_pct']:.2f} % where the ridge earns {numpy_mape(y, honest):.2f} %")
