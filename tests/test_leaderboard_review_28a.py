"""Twenty-eighth adversarial pass (2026-12-03), read side: what a pull request's hand-written files in
``leaderboard/hidden/`` and ``leaderboard/results/`` made the boards show."""

from __future__ import annotations

import json
from datetime import datetime, timedelta, timezone

from perfgraphs.leaderboard.records.results import read_entries

from test_leaderboard_trust import good_record


def test_a_line_added_to_the_frozen_unsigned_records_frees_nothing(tmp_path, git_commitments, monkeypatch):
    """Attack: the live hidden set ``2ee8d095`` was committed before keeper keys, so its records are
    read only when ``leaderboard/hidden/unsigned-records.txt`` lists their digest. The reader took the
    file as it is: a pull request adding (or swapping in for a merged one, which keeps the test that
    counts its 13 lines green) the digest of a hand-written record on that set made
    ``mallory-oracle by Mal Lory`` read as **verified** on the hidden board, above every reference.
    Now a line counts only if the main line's first commit of the file has it (and the file still does)."""
    from perfgraphs.leaderboard.records.digest import record_sha256
    from perfgraphs.leaderboard.records.keeper_key import UNSIGNED_RECORDS

    commitments, commit = git_commitments
    (commitments / "dippm-cpu-torch-fp32.sha256").write_text("ab" * 32 + "  dippm-cpu-torch-fp32.parquet\n")
    commit()
    # after the commitment's commit, and not ahead of the reader's clock (a future date is skipped)
    when = (datetime.now(timezone.utc) + timedelta(seconds=1)).isoformat(timespec="seconds")

    def hidden(method: str) -> dict:
        return good_record(method, mapes=(1.0, 1.1, 0.9, 1.0, 1.0), tier="verified", test_set="hidden",
                           hidden_labels_sha256="ab" * 32, date_utc=when)

    merged, forged = hidden("honest-merged"), hidden("mallory-oracle")
    results = tmp_path / "results"
    results.mkdir()
    (results / "dippm.jsonl").write_text(json.dumps(merged) + "\n" + json.dumps(forged) + "\n")
    frozen = commitments / UNSIGNED_RECORDS
    frozen.write_text(f"{'ab' * 32} {record_sha256(merged)}\n")
    commit("records frozen as merged")
    # the pull request: the forged record's digest added to the frozen list, and merged
    frozen.write_text(frozen.read_text() + f"{'ab' * 32} {record_sha256(forged)}\n")
    commit("merge a pull request")
    skipped: list[str] = []
    entries = read_entries("dippm", results, skipped)
    assert [(e.method, e.tier) for e in entries] == [("honest-merged", "verified")], entries
    assert len(skipped) == 1 and ":2: skipped" in skipped[0] and UNSIGNED_RECORDS in skipped[0], skipped
    # a line the file no longer holds frees nothing either (a withdrawn record stays withdrawn)
    frozen.write_text(f"{'ab' * 32} {record_sha256(forged)}\n")
    assert read_entries("dippm", results, []) == []
    # control: the guard off (the file's lines as they are, as read before), the forged record reads verified
    from perfgraphs.leaderboard.records import keeper_key

    frozen.write_text(f"{'ab' * 32} {record_sha256(merged)}\n{'ab' * 32} {record_sha256(forged)}\n")
    monkeypatch.setattr(keeper_key, "_first_committed", lambda folder, head: keeper_key._pairs(frozen.read_text()))
    assert [(e.method, e.tier) for e in read_entries("dippm", results, [])] == [
        ("honest-merged", "verified"), ("mallory-oracle", "verified")]


def test_the_repository_results_folder_is_never_a_preview(tmp_path, monkeypatch):
    """Attack: a ``PREVIEW`` file (``perfgraphs quickstart``'s marker of a local one-seed preview) added
    to ``leaderboard/results/`` by a pull request made the reader skip the evidence tripwire: a
    hand-written record with ``hardware: not measured (self-reported)`` and null timings, tier
    ``reproduced``, was listed as *reproduced* by `leaderboard show`, which says nothing of a preview
    (only the site's banner does). The committed results folder is now never a preview; a folder
    elsewhere (quickstart's, under the user's home) still is."""
    from perfgraphs.leaderboard.records import results as results_module
    from perfgraphs.leaderboard.records.results import PREVIEW_MARKER, min_seeds_of

    nothing_ran = good_record("mallory-nothing-ran", tier="reproduced", hardware="not measured (self-reported)",
                              fit_seconds=None, predictions_per_second=None)
    for name in ("repo-results", "preview"):
        folder = tmp_path / name
        folder.mkdir()
        (folder / PREVIEW_MARKER).write_text("x\n")
        (folder / "dippm.jsonl").write_text(json.dumps(nothing_ran) + "\n")
    monkeypatch.setattr(results_module, "RESULTS_DIR", tmp_path / "repo-results")
    results_module._WELL_FORMED.clear()
    skipped: list[str] = []
    assert min_seeds_of(tmp_path / "repo-results") is None
    assert read_entries("dippm", tmp_path / "repo-results", skipped) == []
    assert len(skipped) == 1 and "nothing was measured" in skipped[0], skipped
    # control: the same marker and record in a preview folder elsewhere (quickstart's) read as before
    assert min_seeds_of(tmp_path / "preview") == 1
    assert [e.tier for e in read_entries("dippm", tmp_path / "preview", [])] == ["reproduced"]


def test_a_compromise_is_declared_in_the_sets_own_definition(git_commitments, monkeypatch):
    """Attack: every ``leaderboard/hidden/*.json`` was read for compromised declarations, so a
    ``zz-note.json`` a pull request added with ``{"compromised": {"sha256": <the live set 2ee8d095>}}``
    withdrew the live set: its ten *verified* rows (the reference baselines') read as reproduced and
    its board as withdrawn. A declaration now counts in the definition of the config the hash was
    committed for (``<dataset>-<config>.json``, where the organisers' ``rounds`` keep it)."""
    from perfgraphs.leaderboard.records import hidden
    from perfgraphs.leaderboard.records.tiers import honest_tier

    commitments, commit = git_commitments
    (commitments / "dippm-cpu-torch-fp32.sha256").write_text("ab" * 32 + "  dippm-cpu-torch-fp32.parquet\n")
    commit()

    def declared_in(name: str) -> frozenset[str]:
        for old in commitments.glob("*.json"):
            old.unlink()
        (commitments / name).write_text(json.dumps({"compromised": {"sha256": "ab" * 32}}))
        hidden._compromised.cache_clear()
        return hidden.compromised_hashes()

    assert "ab" * 32 not in declared_in("zz-note.json")
    assert honest_tier("verified", "hidden", "ab" * 32) == "verified"
    # the guard off (every file's declaration counted, as before): the stray note withdraws the set
    with monkeypatch.context() as m:
        m.setattr(hidden, "commitment_history", lambda root=None: None)
        assert "ab" * 32 in declared_in("zz-note.json")
        assert honest_tier("verified", "hidden", "ab" * 32) == "reproduced"
    assert "ab" * 32 not in declared_in("zz-note.json")
    # another config's definition withdraws nothing of this one either
    assert "ab" * 32 not in declared_in("trappm-cpu-torch-fp32.json")
    # control: declared in its own config's definition, the set is withdrawn and its records reproduced
    assert "ab" * 32 in declared_in("dippm-cpu-torch-fp32.json")
    assert honest_tier("verified", "hidden", "ab" * 32) == "reproduced"
    # a hash committed for no config counts wherever it is declared (its records are not read anyway)
    (commitments / "zz-note.json").write_text(json.dumps({"compromised": {"sha256": "cd" * 32}}))
    hidden._compromised.cache_clear()
    assert "cd" * 32 in hidden.compromised_hashes()
    hidden._compromised.cache_clear()
