"""Thirty-sixth adversarial pass (2026-12-04), submit side: what a predictor's process sends back
and what a submission folder holds, through `perfgraphs check` and `perfgraphs submit`. Each test
is one attack that worked before its fix, with a control that shows it working without the guard."""

from __future__ import annotations

import math

import pytest

import yaml

from perfgraphs.cli import main
from perfgraphs.leaderboard import submit as submit_mod
from perfgraphs.leaderboard.records import check
from perfgraphs.leaderboard.sandbox import channel
from perfgraphs.leaderboard.sandbox.limits import Limits
from test_submit import BOARD, EXAMPLE, code_submission, env  # noqa: F401 — env is a fixture

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


def seeds_run(monkeypatch) -> list[int]:
    """The seeds ``submit`` runs from now on, appended as each starts (the harness itself runs them)."""
    ran: list[int] = []
    real = submit_mod.run_seed

    def counted(job, seed, *args, **kwargs):
        ran.append(seed)
        return real(job, seed, *args, **kwargs)

    monkeypatch.setattr(submit_mod, "run_seed", counted)
    return ran


def test_a_seed_no_record_holds_is_refused_before_any_seed_runs(env, capsys, monkeypatch):  # noqa: F811
    """Attack: `perfgraphs submit EXAMPLE --seeds -1 0 1 2 3` (or a seed of 2**32) passed every
    check made before the predictor runs, ran all five seeds in the sandbox (up to --time-limit-s,
    30 minutes, each) and was then refused by the record check ("every per_seed item must be an
    object with an integer seed from 0 to 2**32 - 1"), `check` alike. Now the seeds are checked with
    the others before anything runs, one line naming them. Control: without that check the seeds
    run, and the record check refuses at the end."""
    ran = seeds_run(monkeypatch)
    for seeds in (["-1", "0", "1", "2", "3"], ["0", "1", "2", "3", str(2**32)]):
        argv = ["submit", str(EXAMPLE), *BOARD, "--seeds", *seeds, "--results", str(env["results"]), "--no-mlflow"]
        assert main(argv) == 1
        err = capsys.readouterr().err
        assert err.count("\n") == 1 and "outside 0 to 4294967295" in err, err
        assert ran == [] and not env["results"].exists()
    monkeypatch.setattr(check, "check_seed_range", lambda seeds: [])  # control: the guard off
    assert main(["check", str(EXAMPLE), *BOARD, "--seeds", "-1", "0", "1", "2", "3",
                 "--results", str(env["results"])]) == 1
    assert "integer seed from 0 to 2**32 - 1" in capsys.readouterr().err
    assert sorted(ran) == [-1, 0, 1, 2, 3]  # every seed ran before the refusal


DEEP_MESSAGE = """
    import sys
    import time
    from perfgraphs.leaderboard.sandbox import channel
    class Predictor:
        def __init__(self, target, seed=0, quick=False):
            pass
        def fit(self, train, val):
            deep = []
            for _ in range(980):  # within json's limit in the harness's reader thread, past it where quoted
                deep = [deep]
            channel.send(int(sys.argv[5]), "error", error_kind="crash", message=deep)  # the channel's fd
            time.sleep(30)
        def predict(self, graphs):
            return [1.0] * len(graphs)
"""


def test_a_deeply_nested_message_from_the_predictor_is_one_line(env, capsys, tmp_path, monkeypatch):  # noqa: F811
    """Attack: the predictor writes its own ``error`` message on the harness channel (its fd is in
    the runner's argv) whose ``message`` is a list nested 980 deep (a ``config`` of that depth does
    the same through the ``result`` message). The channel's reader decoded it (json's limit is the
    recursion limit, and the reader thread's stack is shallow), and quoting it in the refusal
    stopped `perfgraphs check` with "internal error: RecursionError". Now a header nested deeper
    than 64 levels breaks the channel: one line, the predictor stopped. Control: without the depth
    check the same folder stops `check` with the internal error."""
    sub = code_submission(tmp_path / "deep", "deep-message", DEEP_MESSAGE)
    argv = ["check", str(sub), *BOARD, "--seeds", "0", "--results", str(env["results"])]
    assert main(argv) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "nested deeper than 64 levels" in err and "internal error" not in err, err
    monkeypatch.setattr(channel, "_deeper_than", lambda value, limit: False)  # control: the guard off
    assert main(argv) == 1
    assert "internal error: RecursionError" in capsys.readouterr().err


@pytest.mark.parametrize("option, value, internal", [("--time-limit-s", "nan", "ValueError"),
                                                     ("--time-limit-s", "inf", "OverflowError"),
                                                     ("--memory-mb", str(10**20), None)])
def test_a_limit_no_seed_can_run_under_is_one_clear_line(env, capsys, monkeypatch, option, value, internal):  # noqa: F811
    """Attack: `perfgraphs check EXAMPLE --time-limit-s nan` (or ``inf``) passed the command's
    ``<= 0`` test and stopped with "internal error: ValueError/OverflowError" where the job's CPU
    seconds are made an integer; `--memory-mb 1e20` ran the seed, whose setrlimit overflowed, and
    was refused as the predictor's fault ("do not call os._exit or kill the interpreter"). Now
    :class:`Limits` refuses a limit that is not a finite positive number within a week of one seed or
    16 TiB: one line naming the option (typed: PerfgraphsError). Control: without that check, the
    internal error, or the predictor blamed."""
    argv = ["check", str(EXAMPLE), *BOARD, "--seeds", "0", option, value, "--results", str(env["results"])]
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and f"{option} " in err and "give a positive number" in err, err
    monkeypatch.setattr(Limits, "__post_init__", lambda self: None)  # control: the guard off
    assert main(argv) == 1
    err = capsys.readouterr().err
    assert (f"internal error: {internal}" in err) if internal else ("do not call os._exit" in err), err
