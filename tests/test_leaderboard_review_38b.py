"""Thirty-eighth adversarial pass (2026-12-04), submit side: what a submission folder and its code
control in `perfgraphs check`, `perfgraphs submit` and `leaderboard reproduce --submission`, against
what is then stored. Each test is one attack that worked before its fix, with a control that shows
it working without the guard."""

from __future__ import annotations

import json
import math
import sqlite3

import pytest
import yaml

from perfgraphs.cli import main
from perfgraphs.errors import PerfgraphsError
from perfgraphs.leaderboard.records.results import read_entries
from perfgraphs.leaderboard.sandbox import limits
from test_submit import BOARD, EXAMPLE, code_submission, env  # noqa: F401 — env is a fixture
from test_leaderboard_review_37b import MEDIAN  # the median predictor of the submit-side passes


class _NoAliases(yaml.SafeDumper):
    def ignore_aliases(self, data):  # the grid and chosen hold equal lists: written out, as the loader wants
        return True


def test_a_hyper_parameter_value_mlflow_would_cut_is_one_line_before_anything_runs(env, capsys, tmp_path, monkeypatch):  # noqa: F811
    """Attack: ``chosen: {q: ['"' * 3000]}`` reads on the record's page as ``q=['""…']``, 3,006
    characters, within the 4,096 the record allows; but the MLflow run logs a list as JSON, which
    escapes every quote: 6,004 characters, over MLflow's 6,000. `submit` ran every seed, appended
    the record whole and logged ``hp.q`` cut to 6,000 characters (no longer JSON), with MLflow's
    warning. Now a chosen value is checked as the run will log it, when submission.yaml is read:
    one line, no seed runs, nothing is written. Control: without that check the record lands and
    the run holds a value that is not the record's."""
    from perfgraphs.evaluation import mlflow_log
    from perfgraphs.leaderboard import submission

    import mlflow.utils.validation as validation

    assert mlflow_log.MLFLOW_PARAM_CHARS == validation.MAX_PARAM_VAL_LENGTH  # the installed MLflow's limit
    sub = code_submission(tmp_path / "quotes", "median-quotes", MEDIAN)
    meta = yaml.safe_load((sub / "submission.yaml").read_text())
    quotes = ['"' * 3000]
    meta["hyperparameters"] = {"grid": {"q": [quotes]}, "chosen": {"q": quotes}}
    (sub / "submission.yaml").write_text(yaml.dump(meta, Dumper=_NoAliases, width=10**6))
    argv = ["submit", str(sub), *BOARD, "--quick", "--results", str(env["results"])]
    assert main(argv) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "6004 characters as MLflow logs it" in err, err
    assert not (env["results"] / "dippm.jsonl").exists() and not env["mlflow_db"].exists()

    monkeypatch.setattr(submission, "_logged_value_problems", lambda chosen: [])  # control
    assert main(argv) == 0
    capsys.readouterr()
    [entry] = read_entries("dippm", env["results"])
    assert len(json.dumps(entry.hyperparameters["q"])) == 6004
    with sqlite3.connect(env["mlflow_db"]) as db:
        [(logged,)] = db.execute("select value from params where key = 'hp.q'").fetchall()
    assert len(logged) == 6000 and logged != json.dumps(quotes)


def test_a_memory_limit_of_hundreds_of_digits_is_one_clear_line(env, capsys, monkeypatch):  # noqa: F811
    """Attack: `perfgraphs check EXAMPLE --memory-mb 1000…0` (401 digits: argparse reads any integer)
    stopped with "internal error: OverflowError": :class:`Limits` (thirty-sixth pass) tested the
    value with ``math.isfinite``, which converts an integer to a float first. Now an integer is
    compared as it is: one line naming the option, exit 2, no seed run (typed: PerfgraphsError, also
    for an integer too long to print). Control: with ``math.isfinite`` back, the internal error."""
    argv = ["check", str(EXAMPLE), *BOARD, "--seeds", "0", "--memory-mb", "1" + "0" * 400,
            "--results", str(env["results"])]
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "--memory-mb 1000" in err and "give a positive number" in err, err
    with pytest.raises(PerfgraphsError, match="integer of thousands of digits"):
        limits.Limits(memory_mb=10**5000)

    monkeypatch.setattr(limits, "_within", lambda value, most: math.isfinite(value) and 0 < value <= most)  # control
    assert main(argv) == 1
    assert "internal error: OverflowError" in capsys.readouterr().err
