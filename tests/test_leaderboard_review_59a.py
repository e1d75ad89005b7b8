"""Fifty-ninth adversarial pass (2026-12-05), read side: a record by other authors under a reference's
name is shown when its line reached the main line before the reference's folder did (thirty-sixth
pass), and the line's arrival was looked up by its text. A later commit that respelled another team's
line, the same record (a tab for a space, which a diff on a terminal shows as the same line, or the
keys reordered, as a rewrite of the file does), gave it a new text that "arrived" with that commit,
after the folder: every board stopped showing the team's record, though rule 5 says an edit of a line
in one commit re-dates nothing. A line's arrival is now that of the record it reads as
(``results.line_key``)."""

from __future__ import annotations

import json

import pytest

from test_leaderboard_review_36a import _git
from test_leaderboard_review_37a import _public_record, _show


@pytest.fixture(autouse=True)
def _forget_tmp_references():
    """What was cached under a test's tmp reference folder is forgotten after it
    (test_leaderboard_review_40a's fixture)."""
    from perfgraphs.leaderboard.records import results, trust

    yield
    for cached in (trust.reference_spellings, trust._reference_code_problem, trust._reference_files):
        cached.cache_clear()
    results.forget_checked()


def _looks_the_same_in_a_diff(line: str) -> str:
    """``line`` with one separating space turned into a tab that a diff (a one-character ``+``/``-``
    before the line, tab stops every 8 columns) shows one column wide: the same line to the eye."""
    at = next(i for i, c in enumerate(line) if c == " " and line[i - 1] in ":," and (i + 1) % 8 == 7)
    return line[:at] + "\t" + line[at + 1:]


RESPELLINGS = {
    "a-tab-for-a-space": _looks_the_same_in_a_diff,
    "keys-reordered": lambda line: json.dumps(dict(reversed(json.loads(line).items()))),
}


def _repo(tmp_path, monkeypatch, *earlier: str):
    """A repository whose results hold Alice's ``gnn-x`` and Carol's ``carol-net`` (and the lines
    ``earlier``), with a reference folder ``gnn`` merged after them (``gnn-x`` takes its name, and was
    recorded first)."""
    from perfgraphs.leaderboard.records import trust

    repo = tmp_path / "repo"
    (repo / "results").mkdir(parents=True)
    (repo / "reference").mkdir()
    _git(repo, "init", "-q", "-b", "main")
    path = repo / "results" / "dippm.jsonl"
    alice = json.dumps(_public_record("static-mlp", method="gnn-x", authors="Alice Author", run_identity="alice-1",
                                      tier="reproduced"), sort_keys=True)
    carol = json.dumps(_public_record("static-mlp", method="carol-net", authors="Carol Coder",
                                      run_identity="carol-1", tier="reproduced"), sort_keys=True)

    def commit(*lines: str) -> None:
        if lines:
            path.write_text("".join(line + "\n" for line in lines))
        _git(repo, "add", "-A")
        _git(repo, "commit", "-q", "--allow-empty", "-m", "change")

    commit(alice, carol, *earlier)
    (repo / "reference" / "gnn").mkdir()
    (repo / "reference" / "gnn" / "README.md").write_text("a reference baseline, coming soon\n")
    commit()
    monkeypatch.setattr(trust, "REFERENCE_DIR", repo / "reference")
    return repo, commit, alice, carol


def _shown(repo) -> tuple[list[str], list[str]]:
    from perfgraphs.leaderboard.records import results, trust

    trust.reference_spellings.cache_clear()
    results.forget_checked()
    skipped: list[str] = []
    return [e.method for e in results.read_entries("dippm", repo / "results", skipped)], skipped


@pytest.mark.parametrize("respelling", sorted(RESPELLINGS))
def test_a_respelled_line_keeps_its_place_before_a_later_reference(tmp_path, monkeypatch, capsys, respelling):
    """Attack: Alice's ``gnn-x`` was recorded before the reference folder ``gnn`` arrived, so every
    board shows it. Mal's pull request adds his own record and respells Alice's line, the same record
    (one space after a separator turned into a tab, which ``git diff`` on a terminal shows as the
    same line; or the keys reordered). Her line's text then first reached the main line with Mal's
    commit, after the folder: every board skipped her record as taking the reference's name. Control:
    with the line looked up by its text (as before), her record is skipped."""
    from perfgraphs.leaderboard.records import history, results

    repo, commit, alice, carol = _repo(tmp_path, monkeypatch)
    assert _shown(repo) == (["gnn-x", "carol-net"], [])
    respelled = RESPELLINGS[respelling](alice)
    assert respelled != alice and json.loads(respelled) == json.loads(alice)
    mal = json.dumps(_public_record("static-mlp", method="mal-net", authors="Mal Lory", run_identity="mal-1",
                                    tier="reproduced"), sort_keys=True)
    commit(respelled, carol, mal)
    methods, skipped = _shown(repo)
    assert methods == ["gnn-x", "carol-net", "mal-net"], skipped
    assert not skipped
    shown = _show(repo / "results", capsys)  # `leaderboard show`
    assert all(f"│ {m} " in shown for m in ("gnn-x", "carol-net", "mal-net")), shown

    # control: the line's arrival looked up by its text, as before
    monkeypatch.setattr(results, "line_key", lambda line: results.as_shown(line))
    history._line_arrivals.cache_clear()
    methods, skipped = _shown(repo)
    assert methods == ["carol-net", "mal-net"]
    assert "gnn-x" not in _show(repo / "results", capsys)
    assert len(skipped) == 1 and "takes the reference baseline name 'gnn'" in skipped[0], skipped
    history._line_arrivals.cache_clear()


def test_a_record_first_written_after_a_reference_still_takes_no_name(tmp_path, monkeypatch):
    """Control of the fix: a record whose content reached the main line only after the folder (Bob's
    ``gnn-y``), or in a line no board read then (Eve's ``gnn-w``, a carriage return inside), or not
    committed (Dan's ``gnn-z``), is still refused, however it is spelled."""
    def record(method: str, authors: str) -> dict:
        return _public_record("static-mlp", method=method, authors=authors, run_identity=method, tier="reproduced")

    eve = json.dumps(record("gnn-w", "Eve Evans"), sort_keys=True)
    repo, commit, alice, carol = _repo(tmp_path, monkeypatch, eve.replace(', "', ',\r "', 1))
    bob = record("gnn-y", "Bob Builder")
    commit(alice, carol, json.dumps(bob, sort_keys=True), eve)
    with (repo / "results" / "dippm.jsonl").open("a") as f:  # Bob's respelled, Dan's not committed
        f.write(json.dumps(dict(reversed(bob.items()))) + "\n" + json.dumps(record("gnn-z", "Dan Dev")) + "\n")
    methods, skipped = _shown(repo)
    assert methods == ["gnn-x", "carol-net"], skipped
    assert len(skipped) == 4 and all("takes the reference baseline name 'gnn'" in s for s in skipped), skipped
