"""Thirty-seventh adversarial pass (2026-12-04), submit side: what `perfgraphs check` and
`perfgraphs submit` accept from a submission folder and its options, against what the record
readers then show. Each test is one attack that worked before its fix, with a control that shows
it working without the guard."""

from __future__ import annotations

from perfgraphs.cli import main
from perfgraphs.leaderboard import submit as submit_mod
from perfgraphs.leaderboard.records.results import read_entries
from test_submit import BOARD, code_submission, env  # noqa: F401 — env is a fixture

MEDIAN = """
    import numpy as np
    class Predictor:
        def __init__(self, target, seed=0, quick=False):
            self.target = target
        def fit(self, train, val):
            self.level = float(np.median(train[self.target]))
        def predict(self, graphs):
            return np.full(len(graphs), self.level)
"""


def test_a_quick_record_s_method_is_checked_with_its_suffix(env, capsys, tmp_path, monkeypatch):  # noqa: F811
    """Attack: a method of 64 characters (submission.yaml's limit) submitted with `--quick` is
    recorded as `<method> (quick)`, 72 characters: `submit` ran every seed, appended the record and
    exited 0, and every reader (`show`, `build`, the ranks) then skipped that line with a warning,
    "method is 72 characters long". Now the recorded name is checked as the readers check it, before
    any seed runs: one line, nothing written. Control: without that check the record is appended
    and read back as no entry at all."""
    sub = code_submission(tmp_path / "long", "m" * 60 + "-gnn", MEDIAN)
    argv = ["submit", str(sub), *BOARD, "--quick", "--results", str(env["results"]), "--no-mlflow"]
    ran: list[int] = []
    real = submit_mod.run_seed
    monkeypatch.setattr(submit_mod, "run_seed", lambda job, seed, *a, **k: ran.append(seed) or real(job, seed, *a, **k))
    assert main(argv) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "at most 56 characters for a --quick run" in err, err
    assert ran == [] and not (env["results"] / "dippm.jsonl").exists()

    monkeypatch.setattr(submit_mod, "_recorded_name_problems", lambda written, method: [])  # control
    assert main(argv) == 0
    capsys.readouterr()
    skipped: list[str] = []
    assert read_entries("dippm", env["results"], skipped) == []
    assert len(skipped) == 1 and "method is 72 characters long" in skipped[0], skipped


def test_a_quick_suffix_names_no_author_surnamed_quick(monkeypatch):
    """Attack: a team whose author is surnamed Quick (`Anna Quick`, any recorded entry) made every
    other team's `--quick` record, `gnn-x (quick)` by Bob Builder (the suffix `submit --quick`
    writes), read as naming her: `named_person` took the suffix for a parenthesised surname, and
    every board holding such an entry carried the note "a method names another entry's author".
    Now the suffix is set aside before names are looked for. Control: without that, the note is back;
    and a method that names her in its own words is still caught."""
    from perfgraphs.leaderboard.records import names

    assert names.named_person("gnn-x (quick)", "Bob Builder", "Anna Quick") is None
    assert names.named_person("gnn-x (Quick, 400 training graphs)", "Bob Builder", "Anna Quick") is None
    assert names.named_person("gnn-x (Anna Quick)", "Bob Builder", "Anna Quick") == "Anna Quick"
    assert names.lookalike_notes([("gnn-x (quick)", "Bob Builder"), ("mlp-q", "Anna Quick")]) == []

    monkeypatch.setattr(names, "without_quick", lambda method: method)  # control: the suffix read as a name
    assert names.named_person("gnn-x (quick)", "Bob Builder", "Anna Quick") == "Anna Quick"


def test_a_hyper_parameter_name_mlflow_refuses_is_one_line_before_anything_runs(env, capsys, tmp_path, monkeypatch):  # noqa: F811
    """Attack: ``hyperparameters: {grid: {"a!b": [1]}, chosen: {"a!b": 1}}`` passed every check; the
    seeds ran, the record was appended, and its MLflow run (``hp.a!b``, a key MLflow refuses) ended
    failed and half-logged, with a warning. Now a name outside MLflow's character set is refused in
    one line when submission.yaml is read: no seed runs, nothing is written. Control: with any name
    allowed, the record lands and the run fails."""
    import re

    import yaml

    from perfgraphs.leaderboard import submission

    sub = code_submission(tmp_path / "odd", "median-hp", MEDIAN)
    meta = yaml.safe_load((sub / "submission.yaml").read_text())
    meta["hyperparameters"] = {"grid": {"a!b": [1]}, "chosen": {"a!b": 1}}
    (sub / "submission.yaml").write_text(yaml.safe_dump(meta))
    argv = ["submit", str(sub), *BOARD, "--quick", "--results", str(env["results"])]
    assert main(argv) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "'a!b'" in err and "MLflow" in err, err
    assert not (env["results"] / "dippm.jsonl").exists() and not env["mlflow_db"].exists()

    monkeypatch.setattr(submission, "_HYPERPARAMETER_NAME", re.compile(r".+"))  # control
    assert main(argv) == 0
    assert "MLflow logging failed" in capsys.readouterr().err
    assert len(read_entries("dippm", env["results"])) == 1
