"""Eighty-ninth adversarial pass (2026-12-06), side a (read/parse): the values of a predictions file.

A self-reported submission's ``seed-<k>.parquet`` is sized and read in a forked child
(``submit._read_prediction_table``: nested and extension columns, too many rows, long strings refused
in one line), and the parent then reads its ``target``, ``sample_id`` and ``value`` columns with
pyarrow's ``to_pylist`` outside any ``try`` but the value column's TypeError/ValueError. A temporal
column converts to ``datetime``, whose range ends at the year 9999: the example's five prediction files
with seed 0's ``target`` (or ``sample_id``, or ``value``) column rewritten as ``timestamp[ms]`` of
2**60 (a 4 KB file) stopped ``perfgraphs check`` with ``perfgraphs: internal error: OverflowError: Python
int too large to convert to C int`` where a defective file is refused in one line naming it. The child
now reads every value before it hands the table back and refuses a column that does not convert
(``submit._unreadable_values``).

Leads tried and found closed (no test): the tabular folds' pooled order is the parent's (whole.test is
the folds' test parts concatenated, each run predicts its own handed inputs by position: a predictor
chooses no pairing); the channel's reader, fed 318 byte strings (18 crafted headers: bool, float, NaN
and 23-digit sizes, bad UTF-8, a lone surrogate, 5,000-deep lists, 4,400-digit ints, bytes after the
result; 300 random), ended each in a message, a close or a ChannelError (a surrogate reaches the terminal
escaped); 12,000 byte-mutated zip, tar and gzip archives raised nothing but Unscannable from
``label_scan._members``; a source of 9,000 '-' signs or 200,000 '+1' terms is one line (MemoryError,
RecursionError). Without a memory cgroup a 600 MB burst then ``clear_refs`` in the fit was still caught
by the polls (793 MB stated, ``isolation: bubblewrap+seccomp``; with the cgroup 731 MB). Run time: about 4 s, 14 s with the fixtures' setup (one `check` of a predictions submission and its guard-off control, the reader's verdict on each column; no sandbox).
"""

from __future__ import annotations

import pyarrow as pa
import pyarrow.parquet as pq

from perfgraphs.leaderboard import submit
from test_submit import env, parts, predictions_submission, rewrite_seed, run_cli  # noqa: F401 — fixtures


def _far_timestamps(column: str):
    """An edit of a predictions table: ``column`` as ``timestamp[ms]`` values past datetime's range."""
    def edit(table: pa.Table) -> pa.Table:
        far = pa.array([2 ** 60] * table.num_rows, pa.int64()).cast(pa.timestamp("ms"), safe=False)
        return table.set_column(table.column_names.index(column), column, far)
    return edit


def test_a_timestamp_column_past_year_9999_is_refused_in_one_line(parts, env, capsys, monkeypatch):
    # end to end through `check` for one column; the reader's verdict on each of the three
    folder = predictions_submission(env["tmp"] / "far", parts)
    rewrite_seed(folder, 0, _far_timestamps("value"))
    rc, err = run_cli(["check", str(folder)], capsys)
    assert rc == 1 and len(err) == 1, err
    assert "internal error" not in err[0] and "seed-0.parquet" in err[0] and "column value" in err[0], err
    clean = (folder / "predictions" / "seed-1.parquet").read_bytes()
    n_test = pq.read_table(pa.BufferReader(clean)).num_rows
    for column in ("target", "sample_id", "value"):
        sink = pa.BufferOutputStream()
        pq.write_table(_far_timestamps(column)(pq.read_table(pa.BufferReader(clean))), sink)
        table, problem = submit._read_prediction_table("seed-1.parquet", sink.getvalue().to_pybytes(), n_test, "{}")
        assert table is None and problem is not None and f"column {column}" in problem, problem
    monkeypatch.setattr(submit, "_unreadable_values", lambda label, table: None)  # control: the guard off
    rc, err = run_cli(["check", str(folder)], capsys)
    assert rc == 1 and len(err) == 1 and "internal error: OverflowError" in err[0], err
