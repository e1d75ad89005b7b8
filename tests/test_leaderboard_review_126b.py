"""Hundred-and-twenty-sixth adversarial pass (2026-12-08), side b (what a predictor reads during a hidden board's
scoring). Nothing found that leaks a hidden label; this module pins the guard the pass tested end to end.

Tried, in the sandbox of a root harness (bubblewrap + launcher + seccomp, as the keeper scores): the environment
(PASSED_ENV only, no path of the host's but the Python's), the file descriptors (0 ``/dev/null``, 1 and 2 the
seed's log, the two channel pipes: nothing else inherited), ``/proc/1/cmdline`` (the child itself, PID 1),
``/proc/self/mountinfo`` (host paths of the job, inbox, submission copy and staged code: temporary names, no
keeper), ``/proc`` (the allow-list), ``/sys`` (the three CPU files), ``/dev``, ``/tmp`` and ``/dev/shm`` (fresh
tmpfs per run), the job folder (``train``/``validation`` parquet of the public parts, ``job.json``), the inbox
(``no-new-programs.bpf``, then ``test_inputs.parquet`` and ``probe_inputs.parquet``: the allow-listed input
columns only; the schema metadata names the hidden file's label columns and their types, no value; rows in
``sample_id`` order), the file sizes, inode numbers and times of those files. The seed's log can be reopened
for reading through ``/proc/self/fd/1``: it holds only the run's own output. Inode numbers of the files the
harness makes for each run grow with the runs before it, a hint of a run's place in the secret order, too noisy
on a shared machine to tell (seed 0's run again shares its first run's log inode, which it cannot tell apart:
the log is truncated). The page-cache drop before every run still holds (``submit.run_parts``: five seeds and
the run again, one part).

Pinned here: a predictor that, once its test inputs are handed over, reads every Parquet file the sandbox can
reach (outside the system folders and the Python installation) and predicts any label it finds for a test row,
scores on a hidden-style board exactly as the median it falls back to (no label anywhere), while the same scan
run outside the sandbox on a folder holding the keeper's file finds all 31 labels. Control, in the sandbox: with
the label column let into the test inputs' allow-list (``submit._input_columns`` patched), the same predictor
finds every label in ``/inbox/test_inputs.parquet`` and its hidden record states 0 % MAPE on every seed.
"""

from __future__ import annotations

import importlib.util
import json

import numpy as np
import pyarrow.parquet as pq

from test_submit import BOARD, code_submission, commit_tiny_hidden_set, env, parts, run_cli  # noqa: F401

SRC = '''
import os
import sys

import numpy as np
import pyarrow.parquet as pq

SKIP = ("/proc", "/sys", "/usr", "/dev/pts", sys.prefix, sys.base_prefix, os.path.dirname(sys.executable))


def found_labels(roots, target):
    """sample_id -> label, from every Parquet file under roots holding both columns (outside SKIP)."""
    found = {}
    for root in roots:
        for folder, dirs, files in os.walk(root):
            dirs[:] = [d for d in dirs if not os.path.join(folder, d).startswith(SKIP)]
            for name in files:
                path = os.path.join(folder, name)
                try:
                    with open(path, "rb") as f:
                        if f.read(4) != b"PAR1":
                            continue
                    table = pq.read_table(path)
                except Exception:
                    continue
                if "sample_id" in table.column_names and target in table.column_names:
                    ids, ys = table.column("sample_id").to_pylist(), table.column(target).to_pylist()
                    found.update({str(i): float(y) for i, y in zip(ids, ys) if y is not None})
    return found


class Predictor:
    def __init__(self, target, seed=0, quick=False):
        self.target = target

    def fit(self, train, validation=None):
        self.level = float(np.median(np.asarray(train[self.target], dtype=float)))
        self.train_ids = set(map(str, train["sample_id"]))

    def predict(self, test):
        found = found_labels(["/"], self.target)
        return np.array([found.get(str(i), self.level) if str(i) not in self.train_ids else self.level
                         for i in test["sample_id"]])
'''


def _hidden_record(parts, env, capsys, git_commitments, monkeypatch) -> dict:
    """The label hunter scored on the tiny hidden-style board (committed before the draw), its one record."""
    # a hidden round fits only code committed before its set was drawn (seventy-ninth pass)
    folder = code_submission(git_commitments[0].parent.parent / "label-hunter", "label-hunter", SRC)
    git_commitments[1]("the submission, before the draw")
    commit_tiny_hidden_set(env["tmp"] / "keeper-126b", parts, git_commitments, capsys, monkeypatch)
    rc, err = run_cli(["submit", str(folder), *BOARD, "--quick", "--hidden-labels",
                       "--results", str(env["results"]), "--no-mlflow"], capsys)
    assert rc == 0, err
    (record,) = [json.loads(line) for line in (env["results"] / "dippm.jsonl").read_text().splitlines()]
    assert record["test_set"] == "hidden" and record["tier"] == "verified"
    return record


def _scan(folder):
    spec = importlib.util.spec_from_file_location("scan126b", folder / "predictor.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_a_hidden_board_run_reads_no_label_anywhere_in_its_sandbox(parts, env, capsys, git_commitments, monkeypatch):
    record = _hidden_record(parts, env, capsys, git_commitments, monkeypatch)
    y = np.asarray(parts.test["latency_ms"], dtype=float)
    level = float(np.median(np.asarray(parts.train["latency_ms"], dtype=float)))
    median_mape = float(np.mean(np.abs(level - y) / y) * 100)
    assert all(abs(s["mape_pct"] - median_mape) < 1e-6 * median_mape for s in record["per_seed"]), record["per_seed"]
    # the scan can find labels: outside the sandbox, on the keeper's folder, it finds every one
    keeper = env["tmp"] / "keeper-126b"
    found = _scan(git_commitments[0].parent.parent / "label-hunter").found_labels([str(keeper)], "latency_ms")
    table = pq.read_table(keeper / "dippm-cpu-torch-fp32.parquet")
    assert len(found) == table.num_rows == 31
    assert found == dict(zip(map(str, table.column("sample_id").to_pylist()), table.column("latency_ms").to_pylist()))


def test_control_a_label_column_let_into_the_inputs_is_found_in_the_sandbox(parts, env, capsys, git_commitments,
                                                                              monkeypatch):
    from perfgraphs.leaderboard import submit
    from perfgraphs.leaderboard.sandbox.harness import INPUT_COLUMNS

    monkeypatch.setattr(submit, "_input_columns", lambda board: ((*INPUT_COLUMNS, "latency_ms"), ("no-such-label",)))
    record = _hidden_record(parts, env, capsys, git_commitments, monkeypatch)
    assert all(s["mape_pct"] == 0.0 for s in record["per_seed"]), record["per_seed"]


def test_the_inputs_carry_no_schema_metadata():
    """Side b's lead: a part written by pandas carries, in its schema's metadata, every column's name and
    type, the labels' among them; the inputs a predictor reads now carry none (the columns' values only)."""
    import pandas as pd
    import pyarrow as pa

    from perfgraphs.leaderboard.sandbox.harness import input_table

    part = pa.Table.from_pandas(pd.DataFrame({"sample_id": ["a", "b"], "batch_size": [1, 2],
                                              "latency_ms": [3.5, 7.25]}))
    assert b"latency_ms" in part.schema.metadata[b"pandas"]
    inputs = input_table(part, ("sample_id", "batch_size"))
    assert inputs.schema.metadata is None and inputs.column_names == ["sample_id", "batch_size"]
    assert inputs.column("batch_size").to_pylist() == [1, 2]
