"""Open leads of the adversarial passes of 2026-12-04, closed: a team's name a later reference folder
shadows, and a hand-written record with picked seeds."""

from __future__ import annotations

import json

from test_leaderboard_review_36a import _git, _public_record


def test_a_team_may_submit_again_a_name_recorded_before_its_reference_arrived(tmp_path, monkeypatch):
    """Lead: Alice Author's ``gnn-x`` was merged before a pull request added
    ``leaderboard/reference/gnn/``; the readers show her record (thirty-sixth pass), but ``submit``
    refused her next entry under ``gnn-x`` as taking the reference's name. Now the name is hers to
    submit again; a new name that takes ``gnn`` (her ``gnn-y``) and ``gnn-x`` under other authors are
    still refused. Control: without the check of her record (the helper returning False) her
    re-submission is refused."""
    from perfgraphs.leaderboard.records import check, results, trust

    repo = tmp_path / "repo"
    (repo / "results").mkdir(parents=True)
    (repo / "reference").mkdir()
    _git(repo, "init", "-q", "-b", "main")
    (repo / "results" / "dippm.jsonl").write_text(json.dumps(_public_record(
        method="gnn-x", authors="Alice Author", run_identity="alice-1", tier="reproduced"), sort_keys=True) + "\n")
    _git(repo, "add", "-A")
    _git(repo, "commit", "-q", "-m", "gnn-x by Alice")
    (repo / "reference" / "gnn").mkdir()
    (repo / "reference" / "gnn" / "README.md").write_text("a reference baseline, coming soon\n")
    _git(repo, "add", "-A")
    _git(repo, "commit", "-q", "-m", "reference gnn")
    for module in (trust, check):
        monkeypatch.setattr(module, "REFERENCE_DIR", repo / "reference")
    submission = tmp_path / "alice"
    submission.mkdir()

    def refused(method: str, authors: str) -> list[str]:
        trust.reference_spellings.cache_clear()
        results.forget_checked()
        return check.check_reserved(method, authors, submission, repo / "results")

    try:
        assert refused("gnn-x", "Alice Author") == []
        assert refused("gnn-x (quick)", "Alice Author") == []
        for method, authors in (("gnn-y", "Alice Author"), ("gnn-x", "Bob Builder")):
            why = refused(method, authors)
            assert len(why) == 1 and "takes the reference baseline name 'gnn'" in why[0], (method, authors, why)
        monkeypatch.setattr(check, "_recorded_before_its_reference", lambda *a: False)  # control
        assert "takes the reference baseline name 'gnn'" in refused("gnn-x", "Alice Author")[0]
    finally:  # what was read under the tmp reference folder (the committed records' verdicts too) is forgotten
        for cached in (trust.reference_spellings, trust._reference_code_problem, trust._reference_files):
            cached.cache_clear()
        results.forget_checked()


def test_a_hand_written_record_with_picked_seeds_is_not_read(tmp_path, monkeypatch):
    """Lead: ``submit`` takes a code submission's seeds 0 to n-1 only (thirty-ninth pass), but a line
    written by hand with seeds 3 8 11 17 42 (the best five of forty ``check`` runs) was read as
    reproduced and ranked until a reviewer ran ``leaderboard reproduce``. Now the readers skip it in
    one line; the same record with seeds 0-4, and a self-reported record with its files' seeds, are
    read. Control: without the rule the picked record is read."""
    from perfgraphs.leaderboard.records import record_check, results

    def with_seeds(seeds, **changes) -> dict:
        r = _public_record(method="gnn-x", authors="Alice Author", run_identity=f"alice-{seeds[0]}", **changes)
        r["per_seed"] = [{**s, "seed": seed} for s, seed in zip(r["per_seed"], seeds)]
        return r

    def read(*records: dict) -> tuple[list[list[int]], list[str]]:
        results.forget_checked()
        skipped: list[str] = []
        folder = tmp_path / f"r{len(list(tmp_path.iterdir()))}"
        folder.mkdir()
        (folder / "dippm.jsonl").write_text("".join(json.dumps(r, sort_keys=True) + "\n" for r in records))
        return [sorted(s["seed"] for s in e.per_seed) for e in results.read_entries("dippm", folder, skipped)], skipped

    picked = with_seeds([3, 8, 11, 17, 42], tier="reproduced")
    shown, skipped = read(picked)
    assert shown == [] and len(skipped) == 1 and "seeds 3 8 11 17 42" in skipped[0], skipped
    assert read(with_seeds([0, 1, 2, 3, 4], tier="reproduced"))[0] == [[0, 1, 2, 3, 4]]
    # as submit writes a predictions-files record: nothing measured here (fortieth pass)
    self_reported = with_seeds([3, 8, 11, 17, 42], tier="self-reported", isolation="",
                               **{k: None for k in results.HARNESS_ONLY})
    shown, skipped = read(self_reported)
    assert shown == [[3, 8, 11, 17, 42]], skipped

    monkeypatch.setattr(record_check, "_picked_seeds_problem", lambda record: None)  # control: the rule away
    assert read(picked)[0] == [[3, 8, 11, 17, 42]]
