"""The thirty-first adversarial pass of 2026-12-03, read side: what it found, with a control each."""

from __future__ import annotations

import json

from perfgraphs.leaderboard.records import record_check
from perfgraphs.leaderboard.records.results import RESULTS_DIR, read_entries
from perfgraphs.leaderboard.site.pages import current_and_superseded

LIVE_SET = "2ee8d095"


def _frozen_hidden_record() -> dict:
    """A verified record of the live hidden set, as committed (one of the frozen, keyless ones)."""
    for line in (RESULTS_DIR / "dippm.jsonl").read_text().splitlines():
        record = json.loads(line)
        if record.get("hidden_labels_sha256", "").startswith(LIVE_SET) and record["target"] == "peak_memory_mb":
            return record
    raise AssertionError("no record of the live hidden set")


def test_a_frozen_hidden_record_copied_with_pairs_added_supersedes_nothing(tmp_path, monkeypatch):
    """Attack: a copy of a frozen verified record of the live hidden set with ``actual_vs_predicted``
    pairs added (made to imply the seed's MAPE). The pairs are outside the record's digest, so the
    copy read as the frozen record itself; written after it in the file, it became the board's current row and the
    original's page said "Superseded … Not ranked". Now a hidden-set record with pairs is refused
    when read (they would be its labels; `submit` writes none). Control: the record as committed is
    read, current, and a public record keeps its pairs."""
    record = _frozen_hidden_record()
    seed = record["per_seed"][0]
    # pairs whose mean error is the seed's MAPE and whose RMSE its RMSE: label L, prediction L (1 + MAPE),
    # L = RMSE / MAPE (the readers tie both to the pairs: hundred-and-eleventh pass, side c)
    label = seed["rmse"] / (seed["mape_pct"] / 100.0)
    pairs = [[label, label * (1.0 + seed["mape_pct"] / 100.0)]] * 10
    copy = {**record, "actual_vs_predicted": pairs}  # the date and every digested field as committed
    results = tmp_path / "results"
    results.mkdir()
    (results / "dippm.jsonl").write_text(json.dumps(record) + "\n" + json.dumps(copy) + "\n")

    skipped: list[str] = []
    entries = read_entries("perfgraphs/dippm", results, skipped)
    assert len(entries) == 1 and entries[0].actual_vs_predicted == [], skipped
    assert len(skipped) == 1 and "holds no actual_vs_predicted" in skipped[0]
    current, superseded = current_and_superseded(entries)
    assert len(current) == 1 and not any(superseded.values())

    public = {**copy, "test_set": "public", "hidden_labels_sha256": ""}
    assert record_check._pairs_problem(public) is None  # a public record's pairs are its public labels

    # control: without the rule the copy is read as the frozen record and supersedes the original
    checked = record_check._pairs_problem
    monkeypatch.setattr(record_check, "_pairs_problem", lambda r: checked({**r, "test_set": "public"}))
    off: list[str] = []
    entries = read_entries("perfgraphs/dippm", results, off)
    current, superseded = current_and_superseded(entries)
    assert len(entries) == 2, off
    assert current[0].actual_vs_predicted == pairs
    assert [e.actual_vs_predicted for group in superseded.values() for e in group] == [[]]
