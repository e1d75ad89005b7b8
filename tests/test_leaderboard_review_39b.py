"""Thirty-ninth adversarial pass (2026-12-04), submit side: what a submission folder, its code and
the options of `perfgraphs check` / `perfgraphs submit` control, against what is then recorded and
what a reviewer can score again. Each test is one attack that worked before its fix, with a control
that shows it working without the guard."""

from __future__ import annotations

import pytest

from perfgraphs.cli import main
from perfgraphs.leaderboard import reproduce
from perfgraphs.leaderboard.records import check, record_check
from perfgraphs.leaderboard.records.results import read_entries
from test_leaderboard_review_36b import seeds_run
from test_submit import BOARD, code_submission, env  # noqa: F401 — env is a fixture

# a seed-sensitive predictor: each seed scales its level, so some seeds score better than others
SEEDED = """
    import numpy as np
    class Predictor:
        def __init__(self, target, seed=0, quick=False):
            self.target, self.scale = target, 1.0 + 0.05 * (seed % 7)
        def fit(self, train, val):
            self.level = float(np.median(train[self.target])) * self.scale
        def predict(self, graphs):
            return np.full(len(graphs), self.level)
"""


def test_a_submission_cannot_pick_its_seeds(env, capsys, tmp_path, monkeypatch):  # noqa: F811
    """Attack: `check --seeds k` scores one seed at a time, so a contributor scored seeds 0-39 of a
    seed-sensitive predictor and ran `submit --seeds` with the five best: `submit` recorded them as
    *reproduced* with a lower mean MAPE than the predictor's seeds 0-4 earn, the boards ranked it,
    and the reviewer's `leaderboard reproduce --submission` refused to score it again ("scored on
    seeds [...], not 0-4": it scores the harness's seeds 0 to n-1 only). Now `submit` takes a code
    submission's seeds as 0 to n-1 only, one line before anything runs (`check` warns and scores
    them). Control: without that check the picked seeds are recorded, and reproduce refuses them."""
    sub = code_submission(tmp_path / "seeded", "median-seeded", SEEDED)
    ran = seeds_run(monkeypatch)
    picked = ["0", "7", "14", "21", "28"]  # seed % 7 == 0: the lowest level, here the best MAPE
    argv = ["submit", str(sub), *BOARD, "--quick", "--seeds", *picked, "--results", str(env["results"]), "--no-mlflow"]
    assert main(argv) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "a record's seeds are 0 to n-1" in err and "--seeds 0 1 2 3 4" in err, err
    assert ran == [] and not (env["results"] / "dippm.jsonl").exists()
    assert main(["check", str(sub), *BOARD, "--quick", "--seeds", "7", "--results", str(env["results"])]) == 0
    assert "warning: seeds 7: a record's seeds are 0 to n-1" in capsys.readouterr().err  # check scores, and says so

    monkeypatch.setattr(check, "check_seeds_from_zero", lambda seeds: [])  # control: the guard off
    # ... and the record check's twin (a hand-written line with picked seeds: open lead, 2026-12-04)
    monkeypatch.setattr(record_check, "_picked_seeds_problem", lambda record: None)
    assert main(argv) == 0
    capsys.readouterr()
    [entry] = read_entries("dippm", env["results"])
    assert [s["seed"] for s in entry.per_seed] == [0, 7, 14, 21, 28]
    with pytest.raises(reproduce.ReproduceError, match="not 0-4"):
        reproduce._check_contributor({"method": entry.method, "authors": entry.authors, "tier": entry.tier,
                                      "test_set": entry.test_set, "per_seed": entry.per_seed}, sub)
