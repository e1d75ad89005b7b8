"""`make_results --rerun`: rows of the baselines not rerun come back from the table's CSV, typed,
and only when they are comparable (same number of seeds, current table format)."""

from __future__ import annotations

import csv

from perfgraphs.benchmarks.make_results import ROW_FIELDS, kept_rows


def _row(baseline: str, seeds: int) -> dict:
    row = {k: 0.5 for k in ROW_FIELDS}
    row.update(baseline=baseline, seeds=seeds, wall_clock_s=12.3, mape_pct_mean=11.5222, predictions_per_s=450,
               n_scored=377)
    return row


def _write(path, rows, fields=ROW_FIELDS):
    with open(path, "w", newline="") as f:
        writer = csv.DictWriter(f, fieldnames=list(fields), extrasaction="ignore")
        writer.writeheader()
        writer.writerows(rows)


def test_kept_rows_round_trip_typed(tmp_path):
    path = tmp_path / "t.csv"
    _write(path, [_row("static-mlp", 3), _row("llm-xgboost", 5)])
    kept = kept_rows(path, 3)
    assert list(kept) == ["static-mlp"]  # the 5-seed row is not comparable with a 3-seed rerun
    row = kept["static-mlp"]
    assert row == _row("static-mlp", 3)
    assert isinstance(row["seeds"], int) and isinstance(row["n_scored"], int) and isinstance(row["mape_pct_mean"], float)


def test_kept_rows_drop_an_older_table_format(tmp_path):
    path = tmp_path / "t.csv"
    _write(path, [_row("static-mlp", 3)], fields=[f for f in ROW_FIELDS if f != "n_scored"])
    assert kept_rows(path, 3) == {}
    assert kept_rows(tmp_path / "missing.csv", 3) == {}


def test_refresh_noise_floor_rewrites_only_that_sentence(tmp_path):
    import pytest

    from perfgraphs.benchmarks.make_results import refresh_noise_floor

    table = tmp_path / "t.md"
    body = ["# dippm · cpu-torch-fp32 · latency_ms", "", "Test part; seeds 0.", "",
            "Noise floor of the labels (24 configurations): **22.3 % MAPE raw, 12.9 % calibrated**.", "",
            "| baseline | MAPE % |", "|---|---|", "| static-mlp | 16.3 ± 1.6 |", "", "Reading (kept)."]
    table.write_text("\n".join(body) + "\n")
    new = "Noise floor of the labels (100 configurations): **23.0 % MAPE raw, 12.2 % calibrated**."
    assert refresh_noise_floor(table, new) is True
    assert table.read_text().splitlines() == body[:4] + [new] + body[5:]
    assert refresh_noise_floor(table, new) is False  # already current: nothing rewritten
    with pytest.raises(SystemExit, match="does not exist"):
        refresh_noise_floor(tmp_path / "missing.md", new)
    table.write_text("no noise sentence here\n")
    with pytest.raises(SystemExit, match="0 noise-floor sentences"):
        refresh_noise_floor(table, new)
    assert table.read_text() == "no noise sentence here\n"  # a refused refresh writes nothing


def test_a_dataset_quotes_its_own_suites_noise_probe(tmp_path, monkeypatch):
    """perfgraphs/llm's CPU rows cite the LLM suite's probe once it exists and before it only their
    own visits (another suite's probe measured other configurations); perfgraphs/dippm cites its own; a target the probe
    did not measure (trappm's training steps) has none; dippm's peak memory has its test part's
    visits (the test labels measured again) instead."""
    import json

    from perfgraphs import paths
    from perfgraphs.evaluation import label_noise
    from perfgraphs.registry import task

    def probe(plan: str, raw: float, cal: float, n: int) -> None:
        report = {"plan": plan, "probe": [{}] * n, "mape_raw_pct": raw, "mape_calibrated_pct": cal}
        (tmp_path / f"noise-floor-{plan}.json").write_text(json.dumps(report))

    monkeypatch.setattr(paths, "noise_floor_dir", lambda: tmp_path)
    probe("dippm-cpu", 24.9, 13.2, 100)
    llm = label_noise.noise_floor_note(task("llm", "cpu-torch-fp32", "latency_ms"))
    assert "measured again" in llm and "llm-cpu-all-visits" in llm and "probe" not in llm  # its rows' visits only
    dippm = label_noise.noise_floor_note(task("dippm", "cpu-torch-fp32", "latency_ms"))
    assert "100 configurations of the dippm-cpu plan" in dippm and "24.9 % MAPE raw, 13.2 % calibrated" in dippm
    # peak memory: no probe measured it, but the test part measured again did (its visits), and
    # only that floor is stated
    memory = label_noise.noise_floor_note(task("dippm", "cpu-torch-fp32", "peak_memory_mb"))
    assert "measured again" in memory and "probe" not in memory
    # trappm's training steps: no probe measured them, its test part measured again did
    steps = label_noise.noise_floor_note(task("trappm", "cpu-torch-fp32", "step_time_ms"))
    assert "measured again" in steps and "trappm-cpu-test-visits" in steps and "probe" not in steps
    probe("llm-cpu", 6.1, 3.4, 40)
    assert "40 configurations of the llm-cpu plan" in label_noise.noise_floor_note(task("llm", "cpu-torch-fp32", "latency_ms"))
    assert "dippm-cpu plan" in label_noise.noise_floor_note(task("dippm", "cpu-torch-fp32", "latency_ms"))


def test_a_transfer_board_states_its_platforms_floors():
    """A target scored on every platform's column at once (nnlqp's transfer boards) states the range
    of the platforms' own floors, each read from the sentence its own board shows, and names the
    platforms without one; an extreme floor or a missing one must show in it."""
    import re

    import pytest

    from perfgraphs.data.platforms import config_platforms
    from perfgraphs.evaluation import label_noise
    from perfgraphs.loaders.sources import ExternalSourceError
    from perfgraphs.registry import get_dataset, task

    cfg = get_dataset("nnlqp").config("timm-platforms")
    try:
        per = {p.name: label_noise.noise_floor_note(task("nnlqp", cfg.name, f"latency_per_sample_ms__{p.name}"))
               for p in config_platforms(cfg)}
    except ExternalSourceError as exc:
        pytest.skip(f"timm results not available offline: {exc}")
    floors = {n: float(m.group(1)) for n, note in per.items() if note and (m := re.search(r"\*\*([0-9.]+) %", note))}
    note = label_noise.noise_floor_note(task("nnlqp", cfg.name, "latency_per_sample_ms"))
    assert floors and f"{min(floors.values()):.1f}–{max(floors.values()):.1f} % MAPE" in note
    assert f"{len(floors)} of {len(per)} platforms" in note
    assert all(n in note for n in per if n not in floors)
