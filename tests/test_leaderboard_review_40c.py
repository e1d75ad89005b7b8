"""Fortieth adversarial pass (2026-12-04), submit side, a lead it left open, closed: code a reviewer
does not read, through a lone carriage return (or a bidirectional control) in the source. The test is
an attack that worked before its fix, with a control that shows it working without the guard. (The
other lead, a pickle the predictor loads, is closed by tests/test_leaderboard_pickle_scan.py.)"""

from __future__ import annotations

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
