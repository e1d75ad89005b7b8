"""Fortieth adversarial pass (2026-12-04), read side: what a record says about how it was scored,
against its own tier."""

from __future__ import annotations

import json

from test_leaderboard_review_37a import _public_record  # noqa: F401 — shared helpers


def _self_reported(**changes) -> dict:
    """A predictions-files record as ``submit`` writes one: nothing measured (dippm CPU latency)."""
    return _public_record("static-mlp", **{
        "method": "mal-net", "authors": "Mal Lory", "run_identity": "mal-1", "code_commit": "1" * 40,
        "tier": "self-reported", "hardware": "not measured (self-reported)", "isolation": "", "fit_seconds": None,
        "fit_cpu_seconds": None, "cores": None, "predictions_per_second": None, "num_params": None,
        "peak_memory_mb": None, **changes})


def test_a_self_reported_record_does_not_claim_the_harness_measured_it(tmp_path, monkeypatch):
    """Attack: a pull request adds a *self-reported* record (predictions files: nothing ran here)
    that also writes what only the harness measures: ``peak_memory_mb: 12``, ``isolation:
    bubblewrap``, a 0.1 s fit and 10**6 predictions/s. Every reader showed it: its page said
    "12 MB (measured by the harness)" and "isolation bubblewrap", and its row led the board's
    predictions/s and fit-time columns beside the measurements of the entries the harness ran. (The
    twenty-sixth pass refused the converse, a harness tier whose fields say nothing ran.) Now such a
    record is skipped with one warning naming what it claims. Control: without that check it is read
    and its page says the harness measured it; the same record as ``submit`` writes it is read."""
    from perfgraphs.leaderboard.records import results
    from perfgraphs.leaderboard.site.pages import _entry_page

    folder = tmp_path / "results"
    folder.mkdir()
    path = folder / "dippm.jsonl"
    honest = _self_reported()
    claims = _self_reported(peak_memory_mb=12.0, isolation="bubblewrap", fit_seconds=0.1,
                            predictions_per_second=1e6, run_identity="mal-2")
    assert results.read_line(json.dumps(honest), path)[1] is None
    record, why = results.read_line(json.dumps(claims), path)
    assert why is not None and "says nothing ran here" in why and "peak_memory_mb" in why and "bubblewrap" in why, why
    path.write_text(json.dumps(honest) + "\n" + json.dumps(claims) + "\n")
    skipped: list[str] = []
    assert [e.run_identity for e in results.read_entries("dippm", folder, skipped)] == ["mal-1"]
    assert len(skipped) == 1 and "dippm.jsonl:2:" in skipped[0] and "\n" not in skipped[0], skipped

    # control: without the check, the record is read and its page credits the harness
    monkeypatch.setattr(results, "_measured_problem", lambda record: None)
    record, why = results.read_line(json.dumps(claims), path)
    assert why is None
    page = _entry_page(results.Entry(**record), "", "")
    assert "12 MB (measured by the harness)" in page and "bubblewrap" in page and "tier self-reported" in page

