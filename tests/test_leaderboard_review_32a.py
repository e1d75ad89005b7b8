"""Thirty-second adversarial pass (2026-12-03), read side: what a pull request's hand-written files in
``leaderboard/hidden/`` and ``leaderboard/results/`` made the hidden boards show."""

from __future__ import annotations

import json
from datetime import datetime, timedelta, timezone

from perfgraphs.leaderboard.records.results import read_entries

from test_leaderboard_review_20261202 import _commit_set_with_key, _fresh_history
from test_leaderboard_trust import good_record


def test_a_key_rewritten_after_its_commitment_signs_nothing(tmp_path, git_commitments, monkeypatch):
    """Attack: a keyed set's key counted when it was *added* with the set's commitment and git tracks
    it as it is; a pull request that overwrote the ``.pub`` with a key of its own (a change, not an
    addition) kept both true, and its writer's self-signed record read as **verified** on the set's
    board while the keeper's own record was no longer read. Now signatures are checked against the
    key as the main line first committed it: the keeper's record still reads, the forger's does not."""
    from perfgraphs.leaderboard.records import keeper_key
    from perfgraphs.leaderboard.records.digest import record_sha256
    from perfgraphs.leaderboard.records.keeper_key import record_message, sign, write_public_key

    commitments, commit = git_commitments
    sha = "ab" * 32
    _commit_set_with_key(tmp_path, git_commitments, sha)
    keeper, forger = tmp_path / f"keeper-{sha[:4]}", tmp_path / "forger"
    forger.mkdir()
    write_public_key(forger, "dippm", "cpu-torch-fp32", sha, commitments)  # the pull request: the key swapped
    commit("merge a pull request")
    _fresh_history()
    when = (datetime.now(timezone.utc) + timedelta(seconds=1)).isoformat(timespec="seconds")

    def signed(method: str, by) -> dict:
        record = good_record(method, mapes=(1.0, 1.1, 0.9, 1.0, 1.0), tier="verified", test_set="hidden",
                             hidden_labels_sha256=sha, date_utc=when)
        return {**record, "keeper_signature": sign(by, record_message(record_sha256(record), "verified"))}

    results = tmp_path / "results"
    results.mkdir()
    (results / "dippm.jsonl").write_text(json.dumps(signed("honest", keeper)) + "\n"
                                         + json.dumps(signed("mallory-oracle", forger)) + "\n")
    skipped: list[str] = []
    assert [(e.method, e.tier) for e in read_entries("dippm", results, skipped)] == [("honest", "verified")]
    assert len(skipped) == 1 and ":2: skipped" in skipped[0] and "not signed by" in skipped[0], skipped
    # control: the key read from the file as it is (as before), the forger's record reads verified
    monkeypatch.setattr(keeper_key, "_first_committed_key",
                        lambda folder, name, head: keeper_key.serialization.load_pem_public_key((folder / name).read_bytes()))
    assert [(e.method, e.tier) for e in read_entries("dippm", results, [])] == [("mallory-oracle", "verified")]


def test_a_frozen_record_copied_with_a_signature_added_is_not_read(monkeypatch):
    """Attack: a record of the keyless live set ``2ee8d095`` is read when its digest is frozen in
    ``unsigned-records.txt``; the digest leaves out ``keeper_signature``. A pull request appending a
    copy of ``layerwise-linear``'s frozen record with ``"keeper_signature": "00"`` added: the copy read
    as the same frozen record, newer, so it became the ranked row and the original's page said
    "Superseded ... Not ranked". Now a record of a set without a key holds no signature. Control: the
    frozen record itself still reads as verified, and the copy read before the guard."""
    from perfgraphs.leaderboard.records import keeper_key
    from perfgraphs.leaderboard.records.digest import record_sha256
    from perfgraphs.leaderboard.records.results import RESULTS_DIR, _parse_record, read_line
    from perfgraphs.leaderboard.site.pages import current_and_superseded

    lines = (RESULTS_DIR / "dippm.jsonl").read_text().splitlines()
    frozen = next(json.loads(x) for x in lines if '"2ee8d095' in x and '"layerwise-linear"' in x)
    copy = {**frozen, "keeper_signature": "00"}
    assert record_sha256(copy) == record_sha256(frozen)
    path = RESULTS_DIR / "dippm.jsonl"
    assert read_line(json.dumps(frozen), path)[1] is None  # the honest frozen record still reads
    why = read_line(json.dumps(copy), path)[1]
    assert why is not None and "unsigned-records.txt" in why, why
    # control: without the guard (the signature ignored on a keyless set), the copy was read and
    # took the original's place
    real = keeper_key.record_signature_problem
    monkeypatch.setattr(keeper_key, "record_signature_problem",
                        lambda record, digest, root=None: real({**record, "keeper_signature": ""}, digest, root))
    assert read_line(json.dumps(copy), path)[1] is None
    from perfgraphs.leaderboard.records.results import Entry

    entries = [Entry(**_parse_record(json.dumps(r))[0]) for r in (frozen, copy)]
    current, earlier = current_and_superseded(entries)
    assert [e.keeper_signature for e in current] == ["00"] and [e.keeper_signature for v in earlier.values() for e in v] == [""]
