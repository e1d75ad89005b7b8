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
