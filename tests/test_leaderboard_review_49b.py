"""Forty-ninth adversarial pass (2026-12-05), submit side: a compiled extension module shipped with
no `.py` of its name beside it passed every check, and Python imported it from the submission folder
(first on the sandbox's `sys.path`) in place of a standard module the harness imports after that
point: native code ran that no review reads, before the predictor was imported."""

from __future__ import annotations

import importlib.machinery
import shutil
import subprocess
import sysconfig
from pathlib import Path

import pytest

from perfgraphs.cli import main
from test_leaderboard_review_40b import failed_past_noexec
from test_submit import BOARD, code_submission, env  # noqa: F401 — env is a fixture



MEDIAN = (
    "import numpy as np\n"
    "class Predictor:\n"
    "    def __init__(self, target, seed=0, quick=False):\n"
    "        self.target = target\n"
    "    def fit(self, train, val):\n"
    "        self.level = float(np.median(train[self.target]))\n"
    "    def predict(self, graphs):\n"
    "        return np.full(len(graphs), self.level)\n")

# an extension module whose initialisation runs a line of Python that no file of the folder shows
EXTENSION_C = r"""
#include <Python.h>
PyMODINIT_FUNC PyInit_%(name)s(void) {
    PyObject *globals = PyDict_New();
    PyDict_SetItemString(globals, "__builtins__", PyEval_GetBuiltins());
    PyObject *out = PyRun_String("raise RuntimeError('the native code ran')", Py_file_input, globals, globals);
    Py_DECREF(globals);
    Py_XDECREF(out);
    return NULL;
}
"""


def _extension(folder: Path, name: str) -> Path:
    """``name`` compiled as an extension module of this interpreter, in ``folder``; skips without a C
    compiler or Python's headers."""
    include = sysconfig.get_paths()["include"]
    compiler = shutil.which("gcc") or shutil.which("cc")
    if compiler is None or not Path(include, "Python.h").exists():
        pytest.skip("no C compiler or Python headers to build an extension module")
    folder.mkdir(parents=True, exist_ok=True)
    source = folder / f"{name}.c"
    source.write_text(EXTENSION_C % {"name": name})
    built = folder / f"{name}{importlib.machinery.EXTENSION_SUFFIXES[0]}"
    subprocess.run([compiler, "-shared", "-fPIC", f"-I{include}", str(source), "-o", str(built)], check=True)
    return built


def test_an_extension_module_without_a_source_beside_it_is_refused(env, capsys, tmp_path, monkeypatch):  # noqa: F811
    """Attack: `predictor.py` is a median that imports nothing of the folder, and beside it lies
    `pickletools.cpython-311-x86_64-linux-gnu.so`, a binary file no review reads. The fortieth pass
    refused an extension module only beside a `.py` of its name; this one has none. The sandbox child
    puts the folder first on `sys.path`, then its unpickling guard imports `pickle_scan`, whose
    `import pickletools` (a standard module nothing had imported yet) loaded the shipped binary: its
    code ran before the predictor was imported (here it raises, so the run fails with its message).
    Now `check` refuses any file Python would import as an extension module, in one line. Control:
    without the binary the folder scores; with the refusal off, the binary's code runs."""
    from perfgraphs.leaderboard import submission

    sub = code_submission(tmp_path / "native", "median-native", MEDIAN)
    argv = ["check", str(sub), *BOARD, "--quick", "--seeds", "0", "--results", str(env["results"])]
    assert main(argv) == 0, capsys.readouterr().err  # control: the median alone scores
    capsys.readouterr()

    built = _extension(tmp_path / "build", "pickletools")
    shutil.copy(built, sub / built.name)
    assert main(argv) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "pickletools" in err and "extension module" in err, err
    assert "the native code ran" not in err

    monkeypatch.setattr(submission, "extension_modules", lambda root: [])  # control: the refusal off
    assert "RuntimeError: the native code ran" in failed_past_noexec(argv, capsys, monkeypatch)
