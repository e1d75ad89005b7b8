"""Forty-first adversarial pass (2026-12-04), submit side: what a submission folder and its code
control, through `perfgraphs check`, `perfgraphs submit` and `leaderboard reproduce --submission`:
code that runs other than the code a reviewer reads, through a folder whose name starts with a dot,
bytecode in a zip on `sys.path`, a committed `.gitattributes` that converts a file on checkout, and
terminal controls (escape sequences, backspaces) in a comment.
Each test is one attack that worked before its fix, with a control that shows it working without
the guard."""

from __future__ import annotations

import py_compile
import re
import shutil
import subprocess
import zipfile
from pathlib import Path

import pytest

from perfgraphs.cli import main
from perfgraphs.leaderboard.sandbox import harness
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
    # and `.lib/helpers.py` copied into the sandbox, which now leaves source of no Python name out
    monkeypatch.setattr(harness, "is_helper_script", lambda rel: False)
    assert main(argv) == 1
    err = capsys.readouterr().err
    assert "RuntimeError: the hidden line ran" in err, err


def test_reproduce_checks_the_commit_out_byte_for_byte(tmp_path, monkeypatch):
    """Attack: a contributor's repository commits a `.gitattributes` line `units.py
    working-tree-encoding=SHIFT_JIS`. The commit holds `UNIT = "<yen sign>"  # "; raise ...`, which
    `git show`, a pull request and the code host show a reviewer as a string and a comment; the
    fresh clone `leaderboard reproduce --submission` scores checked it out in Shift_JIS, whose byte
    for the yen sign is a backslash: `UNIT = "\\"  # "; raise ...`, where the string swallows the
    comment sign and the raise runs (git status clean, every check passed). Now the fresh clone's
    own `info/attributes` turns every conversion off (`reproduce._checkout_as_committed`): the files
    scored are the commit's bytes. Control: without it the scored file is the converted one, and its
    hidden line runs."""
    from perfgraphs.leaderboard import reproduce
    from perfgraphs.leaderboard.records.results import RESULTS_DIR
    from test_leaderboard_review_30b import _git

    def clone(where: Path) -> tuple[Path, str]:
        shutil.copytree(Path(RESULTS_DIR).parent / "examples" / "ridge", where)
        (where / ".gitattributes").write_text("units.py working-tree-encoding=SHIFT_JIS\n")
        (where / "units.py").write_bytes(b'UNIT = "\\"  # "; raise RuntimeError("the hidden line ran")\n')
        _git(where, "init", "-q")
        _git(where, "add", "-A")
        _git(where, "commit", "-qm", "units")
        return where, _git(where, "rev-parse", "HEAD").strip()

    top, commit = clone(tmp_path / "clone")
    committed = subprocess.run(["git", "show", f"{commit}:units.py"], cwd=top, capture_output=True, check=True).stdout
    exec(compile(committed, "units.py", "exec"), {})  # what a reviewer reads: a string and a comment
    record = {"method": "tweak-ridge", "authors": "Zed Q. Tester", "tier": "reproduced", "test_set": "public",
              "code_commit": commit, "dataset": "dippm", "config": "cpu-torch-fp32", "target": "latency_ms",
              "per_seed": [{"seed": s, "mape_pct": 10.0} for s in range(5)]}
    scored: list[bytes] = []

    def score_once(cmd, cwd, tmp, commit_):
        scored.append((Path(cmd[cmd.index("submit") + 1]) / "units.py").read_bytes())
        return dict(record)

    monkeypatch.setattr(reproduce, "read_record", lambda *a, **k: record)
    monkeypatch.setattr(reproduce, "_score_once", score_once)
    assert reproduce.reproduce("dippm", 1, submission=top).ok
    assert scored[-1] == committed

    monkeypatch.setattr(reproduce, "_checkout_as_committed", lambda dest: True)  # control: converted, as before
    reproduce.reproduce("dippm", 1, submission=top)
    assert scored[-1] != committed and scored[-1] == (top / "units.py").read_bytes()
    with pytest.raises(RuntimeError, match="the hidden line ran"):
        exec(compile(scored[-1], "units.py", "exec"), {})


# a terminal shows the median line (erase the line, back to its start, then the comment's text);
# Python runs the raise before the comment sign
ERASED = (b"import numpy as np\n"
          b"class Predictor:\n"
          b"    def __init__(self, target, seed=0, quick=False):\n"
          b"        self.target = target\n"
          b"    def fit(self, train, val):\n"
          b"        raise RuntimeError('the hidden line ran')  # \x1b[2K\x1b[G"
          b"        self.level = float(np.median(train[self.target]))\n"
          b"    def predict(self, graphs):\n"
          b"        return np.full(len(graphs), self.level)\n")


def test_terminal_controls_in_a_comment_do_not_hide_code(env, capsys, tmp_path, monkeypatch):  # noqa: F811
    """Attack: the fortieth pass refuses a lone carriage return (a terminal overprints the line);
    other control characters do the same: `raise ...  # ESC[2K ESC[G        self.level = median`
    erases the line on a reviewer's `cat` and shows the median assignment in its place, and
    Python ran the raise (backspaces overwrite alike; a vertical tab and C1 controls move or act).
    Now `check` and `submit` refuse a Python file holding a control character other than tab, line
    feed, CR LF and a form feed that starts a line (`submission._DECEIVING`), in one line before
    anything runs; backspaces alike. Control: with the fortieth pass's characters only, the hidden
    line runs."""
    from perfgraphs.leaderboard import submission

    sub = code_submission(tmp_path / "esc", "median-esc", "")
    (sub / "predictor.py").write_bytes(ERASED)
    argv = ["check", str(sub), *BOARD, "--quick", "--seeds", "0", "--results", str(env["results"])]
    assert main(argv) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "predictor.py: holds U+001B" in err, err
    (sub / "predictor.py").write_bytes(ERASED.replace(b"\x1b[2K\x1b[G", b"\x08" * 60))
    assert main(argv) == 1
    assert "predictor.py: holds U+0008" in capsys.readouterr().err

    (sub / "predictor.py").write_bytes(ERASED)
    # control: the fortieth pass's characters only (a lone carriage return, bidi controls, separators)
    monkeypatch.setattr(submission, "_DECEIVING",
                        re.compile("[\u202a-\u202e\u2066-\u2069\u200e\u200f\u061c\u2028\u2029]|\r(?!\n)"))
    assert main(argv) == 1
    err = capsys.readouterr().err
    assert "RuntimeError: the hidden line ran" in err, err
