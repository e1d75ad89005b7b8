"""Fortieth adversarial pass (2026-12-04), submit side: what a submission folder and its code
control, through `perfgraphs check` and `perfgraphs submit`. Each test is one attack that worked
before its fix, with a control that shows it working without the guard."""

from __future__ import annotations

import py_compile
import sys

import pytest

from perfgraphs.cli import main
from perfgraphs.leaderboard.sandbox import isolation
from test_submit import BOARD, only_the_layer_under_test, code_submission, env  # noqa: F401 — env is a fixture
from test_leaderboard_review_37b import MEDIAN

HONEST = MEDIAN  # the honest median predictor of the submit-side passes
# what runs instead: a predictor the reviewer never reads (it raises, to show that it ran)
SHIPPED = """
class Predictor:
    def __init__(self, target, seed=0, quick=False):
        raise RuntimeError("the shipped code ran, not predictor.py")
"""


def test_shipped_bytecode_does_not_replace_the_reviewed_source(env, capsys, tmp_path, monkeypatch):  # noqa: F811
    """Attack: a submission's `predictor.py` reads as an honest median predictor, and beside it
    `__pycache__/predictor.cpython-311.pyc`, compiled from other code with unchecked hash-based
    invalidation (PEP 552), which Python imports whatever the source says (a committed file: the
    fresh clone `reproduce --submission` scores has it too). The sandbox ran the bytecode; its
    refusal even pointed at `predictor.py:4`. What the code cannot tell (a predictor that times the
    given models, seeds it maps to picked ones) is enforced on review of the source, which never ran.
    Now the copy the sandbox runs leaves Python bytecode out (`harness.is_bytecode`): the source runs.
    Control: with the bytecode copied, the shipped code runs instead of predictor.py."""
    from perfgraphs.leaderboard.sandbox import harness

    sub = code_submission(tmp_path / "pyc", "median-pyc", HONEST)
    other = tmp_path / "other.py"
    other.write_text(SHIPPED)
    cache = sub / "__pycache__" / f"predictor.{sys.implementation.cache_tag}.pyc"
    py_compile.compile(str(other), cfile=str(cache), doraise=True,
                       invalidation_mode=py_compile.PycInvalidationMode.UNCHECKED_HASH)
    argv = ["check", str(sub), *BOARD, "--quick", "--seeds", "0", "--results", str(env["results"])]
    assert main(argv) == 0, capsys.readouterr().err
    assert "shipped code ran" not in capsys.readouterr().err

    monkeypatch.setattr(harness, "is_bytecode", lambda name: False)  # control: bytecode copied as before
    assert main(argv) == 1
    err = capsys.readouterr().err
    assert "RuntimeError: the shipped code ran, not predictor.py" in err, err


EXTENSION_C = r"""
#include <Python.h>
static struct PyModuleDef def = {PyModuleDef_HEAD_INIT, "predictor", NULL, -1, NULL};
PyMODINIT_FUNC PyInit_predictor(void) {
    PyObject *m = PyModule_Create(&def), *r;
    if (m == NULL) return NULL;
    r = PyRun_String("class Predictor:\n"
                     "    def __init__(self, target, seed=0, quick=False):\n"
                     "        raise RuntimeError('the shipped extension ran, not predictor.py')\n",
                     Py_file_input, PyModule_GetDict(m), PyModule_GetDict(m));
    if (r == NULL) { Py_DECREF(m); return NULL; }
    Py_DECREF(r);
    return m;
}
"""


def failed_past_noexec(argv: list[str], capsys, monkeypatch) -> str:
    """``check``'s error line for ``argv`` with a static check off (the caller's control): on a root harness the
    second layer, /submission bound noexec (116a), refuses the native code first; switched off too, the code runs."""
    assert main(argv) == 1
    err = capsys.readouterr().err
    if isolation.sandbox_user() is not None:
        assert "failed to map segment" in err, err
        monkeypatch.setattr(isolation, "NOEXEC_DATA", False)
        assert main(argv) == 1
        err = capsys.readouterr().err
    return err


def test_an_extension_module_does_not_replace_the_reviewed_source(env, capsys, tmp_path, monkeypatch):  # noqa: F811
    """Attack: beside an honest `predictor.py`, a `predictor.so` compiled from other code. Python's
    import system tries a folder's extension modules before its source, so the sandbox ran the
    native module, and what the review enforces (rule 3, no picked seeds) was read in code that
    never ran. Now `check` and `submit` refuse a source file an extension module (or a package
    folder) of the same name would replace, in one line before anything runs
    (`submission._shadowed`). Control: without that check the extension runs instead."""
    import shutil
    import subprocess
    import sysconfig

    from perfgraphs.leaderboard import submission

    gcc = shutil.which("gcc") or shutil.which("cc")
    if gcc is None:
        pytest.skip("no C compiler to build the extension module")
    sub = code_submission(tmp_path / "so", "median-so", HONEST)
    c = tmp_path / "ext.c"
    c.write_text(EXTENSION_C)
    subprocess.run([gcc, "-shared", "-fPIC", f"-I{sysconfig.get_paths()['include']}", "-o",
                    str(sub / "predictor.so"), str(c)], check=True)
    argv = ["check", str(sub), *BOARD, "--quick", "--seeds", "0", "--results", str(env["results"])]
    assert main(argv) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "predictor.py: Python would import predictor.so beside it in its place" in err, err

    monkeypatch.setattr(submission, "_shadowed", lambda path: None)  # control: the check off
    err = failed_past_noexec(argv, capsys, monkeypatch)
    assert "RuntimeError: the shipped extension ran, not predictor.py" in err, err


# every line reads as a median predictor; Python, decoding UTF-7, reads a line break at +AAo-
UTF7 = """# -*- coding: utf-7 -*-
import numpy as np
class Predictor:
    def __init__(self, target, seed=0, quick=False):
        self.target = target
    def fit(self, train, val):
        self.level = float(np.median(train[self.target]))
        # the median of the training labels +AAo-        raise RuntimeError('the hidden line ran')
    def predict(self, graphs):
        return np.full(len(graphs), self.level)
"""


def test_a_coding_declaration_does_not_hide_code_in_a_comment(env, capsys, tmp_path, monkeypatch):  # noqa: F811
    """Attack: `predictor.py` declares `# -*- coding: utf-7 -*-`; a comment
    `# the median of the training labels +AAo-        raise ...` is a comment in every UTF-8 viewer
    and two lines to Python (`+AAo-` is a line break in UTF-7), so code a reviewer reads as a comment
    ran in the sandbox. Now `check` and `submit` refuse a Python file that its declared codec makes
    read otherwise than as UTF-8, in one line before anything runs (`submission._read_otherwise`).
    Control: without that check the hidden line runs."""
    from perfgraphs.leaderboard import submission

    sub = code_submission(tmp_path / "utf7", "median-utf7", "")
    (sub / "predictor.py").write_bytes(UTF7.encode("ascii"))
    argv = ["check", str(sub), *BOARD, "--quick", "--seeds", "0", "--results", str(env["results"])]
    assert main(argv) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "predictor.py: its coding declaration (utf-7)" in err, err

    monkeypatch.setattr(submission, "_read_otherwise", lambda source: None)  # control: the check off
    assert main(argv) == 1
    err = capsys.readouterr().err
    assert "RuntimeError: the hidden line ran" in err, err


def test_an_entry_point_of_look_alike_letters_is_refused(env, capsys, tmp_path, monkeypatch):  # noqa: F811
    """Attack: submission.yaml's `entry_point: predict\u043er:Predictor` (a Cyrillic `о`) reads as
    `predictor:Predictor`, beside an honest `predictor.py`; the harness imported the other file,
    `predict\u043er.py`, which a reviewer takes for a copy. The pattern's `\\w` matched any script.
    Now the entry point is ASCII letters, digits and `_` (`submission.ENTRY_POINT`), refused in one
    line before anything runs. Control: with the old pattern the look-alike module runs."""
    only_the_layer_under_test(monkeypatch)  # its folder ships modules no source imports (refused since 50b)
    import re

    import yaml

    from perfgraphs.leaderboard import submission

    sub = code_submission(tmp_path / "look", "median-look", HONEST)
    meta = yaml.safe_load((sub / "submission.yaml").read_text())
    meta["entry_point"] = "predict\u043er:Predictor"
    (sub / "submission.yaml").write_text(yaml.safe_dump(meta, allow_unicode=True), encoding="utf-8")
    (sub / "predict\u043er.py").write_text(SHIPPED)
    argv = ["check", str(sub), *BOARD, "--quick", "--seeds", "0", "--results", str(env["results"])]
    assert main(argv) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "entry_point must look like 'module:ClassName' in ASCII" in err, err

    monkeypatch.setattr(submission, "ENTRY_POINT", re.compile(r"[A-Za-z_][\w.]*:[A-Za-z_]\w*"))  # control
    assert main(argv) == 1
    err = capsys.readouterr().err
    assert "RuntimeError: the shipped code ran, not predictor.py" in err, err
