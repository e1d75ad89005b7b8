"""Thirty-sixth adversarial pass (2026-12-04), submit side: what a predictor's process sends back
and what a submission folder holds, through `perfgraphs check` and `perfgraphs submit`. Each test
is one attack that worked before its fix, with a control that shows it working without the guard."""

from __future__ import annotations

import math

import yaml

from perfgraphs.cli import main
from perfgraphs.leaderboard.records import check
from test_submit import BOARD, code_submission, env  # noqa: F401 — env is a fixture

HUGE_CONFIG = """
    import numpy as np
    class Predictor:
        def __init__(self, target, seed=0, quick=False):
            self.target = target
            self.config = {"alpha": 10 ** 4000}  # JSON carries an integer of 4,001 digits whole
        def fit(self, train, val):
            self.level = float(np.median(train[self.target]))
        def predict(self, graphs):
            return np.full(len(graphs), self.level)
"""


def test_a_predictor_s_config_of_a_huge_integer_is_one_line(env, capsys, tmp_path, monkeypatch):  # noqa: F811
    """Attack: the predictor's ``config`` (its own report, compared with ``hyperparameters.chosen``)
    says ``alpha = 10**4000``; the comparison's ``float()`` raised OverflowError and `perfgraphs
    check` stopped with "internal error: OverflowError". Now the value is a mismatch like any other,
    refused in one line that quotes at most 200 characters of it. Control: with the comparison as it
    was, the same folder stops `check` with the internal error."""
    sub = code_submission(tmp_path / "huge", "huge-config", HUGE_CONFIG)
    meta = yaml.safe_load((sub / "submission.yaml").read_text())
    meta["hyperparameters"] = {"grid": {"alpha": [0.01]}, "chosen": {"alpha": 0.01}}
    (sub / "submission.yaml").write_text(yaml.safe_dump(meta))
    argv = ["check", str(sub), *BOARD, "--results", str(env["results"])]
    assert main(argv) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "internal error" not in err, err
    assert "alpha = 0.01 but the predictor's config has 1000" in err and "(4001 characters)" in err, err

    def as_before(a, b) -> bool:  # control: the comparison without the guard
        try:
            return math.isclose(float(a), float(b), rel_tol=1e-9)
        except (TypeError, ValueError):
            return False

    monkeypatch.setattr(check, "_close", as_before)
    assert main(argv) == 1
    assert "internal error: OverflowError" in capsys.readouterr().err
