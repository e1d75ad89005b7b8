"""Hundred-and-sixth adversarial pass, side b (what a pull request commits that the keeper's process runs).

The hundred-and-fifth pass refused tracked bytecode, but Python imports a compiled extension module before
both: a folder's ``FileFinder`` tries ``<module>.cpython-311-x86_64-linux-gnu.so`` (and ``.abi3.so``,
``.so``) ahead of ``<module>.py``. ``.gitignore`` does not even name ``*.so``, so a pull request after the
draw that adds ``perfgraphs/evaluation/evaluator.cpython-311-x86_64-linux-gnu.so`` with a plain ``git add``
(binary: no review reads it; here 28 KB, the planted evaluator's source inside) leaves every source
as it was, and the keeper's own process (``perfgraphs submit --hidden-labels``, the package installed
editable from the checkout) imports the extension in place of ``evaluator.py``. No check looked at it:
``bytecode_tracked`` asks for ``__pycache__`` and ``.pyc``, ``bound_files_tracked`` for the interpreter's
folders, ``package_data_before`` for the tables. Here the tiny board's ridge, committed before the draw,
got a keeper-signed *verified* record on the 31 hidden labels at 4.06 % MAPE, a tenth of the 40.6 % its
predictions earn.
Now a hidden run is refused while the commitments' repository tracks a file of an extension module's
suffix (``frozen_fits.extension_modules_tracked``, beside ``bytecode_tracked`` in ``package_data_before``:
both the harness-fitted and the ``--frozen`` route). As there, an extension that replaces the checking
module itself runs before the check: ``test_this_checkout_tracks_no_extension_module`` asks git itself.
"""

from __future__ import annotations

import importlib.machinery
import importlib.util
import shutil
import subprocess
import sysconfig
from pathlib import Path

import pytest

import perfgraphs.evaluation.evaluator as evaluator
from perfgraphs.leaderboard import frozen_fits
from test_leaderboard_review_82b import _git
from test_leaderboard_review_105b import (PLANTED, _git_status, assert_signed_at_a_tenth, hidden_round, keepers_checkout,
                                         refused_in_one_line)
from test_submit import BOARD, commit_tiny_hidden_set, env, example_copy, parts, run_cli  # noqa: F401 — fixtures

HONEST = "mape_pct=float(np.mean(rel_err) * 100.0),"

_C = """#include <Python.h>
static const unsigned char SRC[] = {%(bytes)s, 0};
static int run(PyObject *m) {
    PyObject *d = PyModule_GetDict(m);
    if (PyDict_SetItemString(d, "__builtins__", PyEval_GetBuiltins()) < 0) return -1;
    PyObject *code = Py_CompileString((const char *)SRC, "%(file)s", Py_file_input);
    if (!code) return -1;
    PyObject *r = PyEval_EvalCode(code, d, d);
    Py_DECREF(code);
    if (!r) return -1;
    Py_DECREF(r);
    return 0;
}
static PyModuleDef_Slot slots[] = {{Py_mod_exec, run}, {0, NULL}};
static struct PyModuleDef def = {PyModuleDef_HEAD_INIT, "evaluator", NULL, 0, NULL, slots};
PyMODINIT_FUNC PyInit_evaluator(void) { return PyModuleDef_Init(&def); }
"""


def _extension(source: str, file: Path, out: Path) -> Path:
    """Build ``out``, an extension module ``evaluator`` whose import runs ``source`` (shown as ``file``)."""
    c = out.with_name("evaluator_ext.c")
    c.write_text(_C % {"bytes": ", ".join(str(b) for b in source.encode()), "file": str(file)})
    cc = (sysconfig.get_config_var("CC") or "cc").split()[0]
    subprocess.run([cc, "-shared", "-fPIC", "-O0", f"-I{sysconfig.get_paths()['include']}", str(c), "-o", str(out)],
                   check=True, capture_output=True)
    return out


def _can_build() -> bool:
    cc = (sysconfig.get_config_var("CC") or "cc").split()[0]
    return shutil.which(cc) is not None and (Path(sysconfig.get_paths()["include"]) / "Python.h").exists()


@hidden_round
@pytest.mark.skipif(not _can_build(), reason="builds an extension module: needs a C compiler and Python.h")
def test_an_extension_module_a_pull_request_commits_is_not_run_by_a_hidden_round(env, parts, capsys, git_commitments,
                                                                                  monkeypatch, tmp_path):
    """Attack: the keeper's checkout holds the package and a ridge committed before the draw; a pull request
    after it commits (plain ``git add``) an extension module beside ``evaluator.py`` (its source unchanged);
    the hidden run is refused in one line. Control: with the check off, the keeper's process importing the
    evaluator from that checkout runs the extension, and the keeper signs a verified record at a tenth of
    the MAPE the ridge's predictions earn."""
    gitignore = Path(__file__).resolve().parent.parent.joinpath(".gitignore").read_text()  # the project's own
    repo, source, folder = keepers_checkout(gitignore, "ridge-106b", env, parts, capsys, git_commitments, monkeypatch)

    text = source.read_text()
    assert text.count(HONEST) == 1
    suffix = importlib.machinery.EXTENSION_SUFFIXES[0]
    built = _extension(text.replace(HONEST, PLANTED), source, tmp_path / f"evaluator{suffix}")
    shutil.copyfile(built, source.with_name(f"evaluator{suffix}"))
    _git(repo, "add", source.with_name(f"evaluator{suffix}"))  # not even ignored
    _git(repo, "commit", "-q", "-m", "a pull request after the draw: only a binary file")
    assert source.read_text() == text and _git_status(repo) == ""

    submit = refused_in_one_line(folder, "ridge-106b",
                                 f"git tracks a compiled extension module (perfgraphs/evaluation/evaluator{suffix}", env, capsys)

    # control: the check off; the keeper's process imports the evaluator from its checkout: the extension
    monkeypatch.setattr(frozen_fits, "extension_modules_tracked", lambda top: None)
    spec = importlib.machinery.PathFinder.find_spec(evaluator.__name__, [str(source.parent)])
    assert spec.origin == str(source.with_name(f"evaluator{suffix}")), spec.origin  # ahead of evaluator.py
    imported = importlib.util.module_from_spec(spec)
    monkeypatch.setitem(__import__("sys").modules, evaluator.__name__, imported)
    spec.loader.exec_module(imported)
    monkeypatch.setitem(__import__("sys").modules, evaluator.__name__, evaluator)
    assert_signed_at_a_tenth(imported, submit, env, "ridge-106b", capsys, monkeypatch)


def test_this_checkout_tracks_no_extension_module():
    """The half the keeper's process cannot do itself: an extension module that replaces ``frozen_fits`` runs
    before its check does. Asked of git here, in the suite's own code, so a pull request's run of the suite
    refuses any tracked extension module (not the finding: it passes on the unfixed code, as the checkout
    tracks none)."""
    top = Path(__file__).resolve().parent.parent
    listed = subprocess.run(["git", "-C", str(top), "ls-files", "-z"], capture_output=True, check=True).stdout
    names = [n.decode() for n in listed.split(b"\0") if n]
    tracked = [n for n in names if n.endswith((*importlib.machinery.EXTENSION_SUFFIXES, ".pyd"))]
    assert names and not tracked, tracked
