"""Forty-first adversarial pass (2026-12-04), submit side: what a submission folder and its code
control, through `perfgraphs check` and `perfgraphs submit`. Each test is one attack that worked
before its fix, with a control that shows it working without the guard."""

from __future__ import annotations

import py_compile
import zipfile

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


def test_bytecode_in_a_zip_on_sys_path_does_not_replace_the_reviewed_source(env, capsys, tmp_path,  # noqa: F811
                                                                             monkeypatch):
    """Attack: the fortieth pass leaves shipped bytecode out of the sandbox's copy of the folder;
    the submission ships it in an archive instead. `predictor.py` puts `helpers.zip` on `sys.path`
    and imports `helpers`; the zip holds `helpers.py` (a median, what a reviewer unzips and reads)
    and `helpers.pyc`, compiled from other code with unchecked hash-based invalidation, which
    Python's zip importer takes before the source: the other code ran. Now `check` and `submit`
    refuse, in one line before anything runs, a file the zip importer opens that holds a module
    (`submission.zipped_modules`, whatever the file is named). Control: without that check the
    shipped bytecode runs."""
    from perfgraphs.leaderboard import submission

    sub = code_submission(tmp_path / "zip", "median-zip", _predictor("helpers.zip"))
    other = tmp_path / "other.py"
    other.write_text(SHIPPED)
    pyc = tmp_path / "helpers.pyc"
    py_compile.compile(str(other), cfile=str(pyc), doraise=True,
                       invalidation_mode=py_compile.PycInvalidationMode.UNCHECKED_HASH)
    with zipfile.ZipFile(sub / "helpers.zip", "w") as z:
        z.writestr("helpers.py", HELPER)
        z.write(pyc, "helpers.pyc")
    argv = ["check", str(sub), *BOARD, "--quick", "--seeds", "0", "--results", str(env["results"])]
    assert main(argv) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "helpers.zip: a zip archive Python imports modules from (helpers.py" in err, err

    monkeypatch.setattr(submission, "zipped_modules", lambda root: [])  # control: the archive unread, as before
    assert main(argv) == 1
    err = capsys.readouterr().err
    assert "RuntimeError: the shipped code ran, not the helper a reviewer reads" in err, err


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
