"""Fortieth adversarial pass (2026-12-04), submit side, the leads it left open, closed: code a
reviewer does not read, through a lone carriage return (or a bidirectional control) in the source and
through a pickle the predictor loads. Each test is one attack that worked before its fix, with a
control that shows it working without the guard."""

from __future__ import annotations

import pickle

from perfgraphs.cli import main
from test_submit import BOARD, code_submission, env  # noqa: F401 — env is a fixture

CARRIAGE = (b"import numpy as np\n"
            b"class Predictor:\n"
            b"    def __init__(self, target, seed=0, quick=False):\n"
            b"        self.target = target\n"
            b"    def fit(self, train, val):\n"
            b"        self.level = float(np.median(train[self.target]))\n"
            b"        # the median of the training labels\r        raise RuntimeError('the hidden line ran')\n"
            b"    def predict(self, graphs):\n"
            b"        return np.full(len(graphs), self.level)\n")

UNPICKLING = """
    import pickle
    from pathlib import Path
    import numpy as np
    class Predictor:
        def __init__(self, target, seed=0, quick=False):
            self.target = target
        def fit(self, train, val):
            with open(Path(__file__).with_name("prior.pkl"), "rb") as f:
                self.prior = pickle.load(f)  # a table of priors, to a reviewer
            self.level = float(np.median(train[self.target]))
        def predict(self, graphs):
            return np.full(len(graphs), self.level)
"""


class _Payload:
    """What ``prior.pkl`` holds: unpickling it runs code (``exec``) that is in no source file."""

    def __reduce__(self):
        return exec, ("raise RuntimeError('the pickled code ran')",)


def test_a_lone_carriage_return_does_not_hide_code_in_a_comment(env, capsys, tmp_path, monkeypatch):  # noqa: F811
    """Attack: in `predictor.py`, `# the median of the training labels<CR>        raise ...`: a
    lone carriage return ends a line for Python, and a terminal overprints the line after it (a
    reviewer's `cat` or `less -r` shows one comment line), so code ran that read as a comment.
    Bidirectional controls (Trojan Source, CVE-2021-42574) do the same in a viewer. Now `check`
    and `submit` refuse a Python file that holds one, in one line before anything runs
    (`submission._deceiving_characters`); a U+202E is refused alike. Control: without that check
    the hidden line runs."""
    from perfgraphs.leaderboard import submission

    sub = code_submission(tmp_path / "cr", "median-cr", "")
    (sub / "predictor.py").write_bytes(CARRIAGE)
    argv = ["check", str(sub), *BOARD, "--quick", "--seeds", "0", "--results", str(env["results"])]
    assert main(argv) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "predictor.py: holds a lone carriage return" in err, err
    (sub / "predictor.py").write_bytes(CARRIAGE.replace(b"\r", b"\xe2\x80\xae\n"))  # U+202E, then the code shown
    assert main(argv) == 1
    assert "predictor.py: holds U+202E" in capsys.readouterr().err

    (sub / "predictor.py").write_bytes(CARRIAGE)
    monkeypatch.setattr(submission, "_deceiving_characters", lambda source: None)  # control: the check off
    assert main(argv) == 1
    err = capsys.readouterr().err
    assert "RuntimeError: the hidden line ran" in err, err


def test_a_pickle_the_predictor_loads_is_refused(env, capsys, tmp_path, monkeypatch):  # noqa: F811
    """Attack: a predictor that reads as a median loads `prior.pkl` ("a table of priors") with
    `pickle.load`; the pickle names `exec` and a line of code, which ran in the sandbox though no
    source file holds it (what the review enforces, rule 3 and no picked seeds, read other code).
    Now `check` and `submit` refuse, in one line before anything runs, a source that unpickles
    (`pickle`/`dill`/`joblib` loads, `np.load(allow_pickle=True)`, `torch.load(weights_only=False)`:
    `submission._unpickles`); RULES.md makes it a review rule. Control: without the check the
    pickled code runs."""
    from perfgraphs.leaderboard import submission

    sub = code_submission(tmp_path / "pkl", "median-pkl", UNPICKLING)
    (sub / "prior.pkl").write_bytes(pickle.dumps(_Payload()))
    argv = ["check", str(sub), *BOARD, "--quick", "--seeds", "0", "--results", str(env["results"])]
    assert main(argv) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "predictor.py: pickle.load runs whatever a data file names" in err, err

    monkeypatch.setattr(submission, "_unpickles", lambda tree: None)  # control: the check off
    assert main(argv) == 1
    err = capsys.readouterr().err
    assert "RuntimeError: the pickled code ran" in err, err
