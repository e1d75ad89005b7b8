"""Forty-first adversarial pass (2026-12-04), submit side: what a submission folder and its code
control, through `perfgraphs check` and `perfgraphs submit`. Each test is one attack that worked
before its fix, with a control that shows it working without the guard."""

from __future__ import annotations


from perfgraphs.cli import main
from test_submit import BOARD, code_submission, env  # noqa: F401 — env is a fixture

# what a reviewer reads of the helper module: the median of the training labels
HELPER = """
import numpy as np
def level(train, target):
    return float(np.median(train[target]))
"""
# what runs instead (it raises, to show that it ran)
SHIPPED = """
def level(train, target):
    raise RuntimeError("the shipped code ran, not the helper a reviewer reads")
"""


def _predictor(folder: str) -> str:
    return f"""
    import sys
    from pathlib import Path
    import numpy as np
    sys.path.insert(0, str(Path(__file__).parent / {folder!r}))
    from helpers import level
    class Predictor:
        def __init__(self, target, seed=0, quick=False):
            self.target = target
        def fit(self, train, val):
            self.level = level(train, self.target)
        def predict(self, graphs):
            return np.full(len(graphs), self.level)
    """


def test_a_dot_folder_does_not_hide_python_files_from_the_checks(env, capsys, tmp_path, monkeypatch):  # noqa: F811
    """Attack: the checks of a submission's Python files (coding declarations, a lone carriage
    return, bidirectional controls, unpickling, shadowing: the fortieth pass's) skipped every file
    under a folder whose name starts with a dot, which the sandbox's copy holds and Python imports
    all the same: `predictor.py` puts `.lib` on `sys.path`, and in `.lib/helpers.py` a comment
    `# the median<CR>    raise ...` hid a line of code that ran. Now every `.py` file is checked
    (`submission.python_sources`): refused in one line before anything runs. Control: with dot
    folders skipped as before, the hidden line runs."""
    from perfgraphs.leaderboard import submission

    sub = code_submission(tmp_path / "dot", "median-dot", _predictor(".lib"))
    (sub / ".lib").mkdir()
    hidden = HELPER.replace("    return", "    # the median\r    raise RuntimeError('the hidden line ran')\n    return")
    (sub / ".lib" / "helpers.py").write_bytes(hidden.encode())
    argv = ["check", str(sub), *BOARD, "--quick", "--seeds", "0", "--results", str(env["results"])]
    assert main(argv) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and ".lib/helpers.py: holds a lone carriage return" in err, err

    every = submission.python_sources
    monkeypatch.setattr(submission, "python_sources",  # control: dot folders skipped, as before
                        lambda root: [p for p in every(root)
                                      if not any(part.startswith(".") for part in p.relative_to(root).parts)])
    assert main(argv) == 1
    err = capsys.readouterr().err
    assert "RuntimeError: the hidden line ran" in err, err
