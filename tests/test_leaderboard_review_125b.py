"""Hundred-and-twenty-fifth adversarial pass (2026-12-08), side b (what runs in the child without its guards): a
sub-interpreter is a fresh interpreter inside the child's own process, and it had none of the child's guards.

122b made the child load a filter refusing ``execve`` because a fresh interpreter (a ``spawn`` pool's worker) has
none of the guards the child puts in place in its process (unpickling, TorchScript, logging configurations, SymPy,
pandas expressions, templates, YAML tags, type hints); 124b left no process in the sandbox without that filter.
A fresh interpreter needs no new program: CPython's ``_xxsubinterpreters`` (in the standard library's
``lib-dynload``, importable in the sandbox) creates one in the same process with a module state of its own, and
``run_string`` runs source in it. Its ``pickle`` is imported afresh, not the guarded one, and no system call
tells it apart. A median that read its ``prior.bin`` (an 8-byte header, then ``pickle.load``: no form the static
scan reads) in such an interpreter, the source it ran a plain ``pickle.load`` of a dict of settings, ran the
pickle's ``eval`` of a line no source holds, and ``check --seeds 0`` passed ("passes every check") with every
prediction 1.5 times the median (MAPE 73.06 % on the tiny board, where the median alone scores 63.77 %).

Now the child, before the predictor's folder is on ``sys.path``, adds an audit hook (``sys.addaudithook``, which
no Python code removes) refusing the event ``cpython.PyInterpreterState_New`` that CPython raises before making
any interpreter (``child._refuse_subinterpreters``): ``_xxsubinterpreters.create`` fails with "interpreter
creation failed", as does ``ctypes.pythonapi.Py_NewInterpreter``, and a re-import of the module changes nothing.
Control: with the hook off (``harness.REFUSE_SUBINTERPRETERS``), the same predictor scores 73.06 % again.

Also found, in the child's start: ``python -m`` put the child's working folder (``/tmp/work``, a writable tmpfs)
second on ``sys.path``, before the standard library and every installed package, so a file the predictor writes
there is a module to every later import, one no check reads. A median that extracted its ``prior.tar`` (a
``scale.txt`` of 1.0 and an ``opt_einsum.py``: the static check refuses such a module in the folder,
``submission.unimported_modules``, not in an archive) into its working folder and imported torch, which tries the
optional ``opt_einsum``, ran the archive's module, which wrote 1.5 to ``scale.txt``, and ``check`` passed at
73.06 %. Now the child takes its working folder off ``sys.path`` first thing (``child._no_working_folder_on_path``):
the same check passes at the median's 63.77 %; control (``harness.NO_WORKING_FOLDER_ON_PATH`` off): 73.06 %.
"""

from __future__ import annotations

import pickle
import textwrap

from perfgraphs.cli import main
from perfgraphs.leaderboard.pickle_scan import shipped_pickle_problems
from perfgraphs.leaderboard.sandbox import harness
from test_leaderboard_review_57b import _argv, sandboxed
from test_submit import code_submission, env  # noqa: F401 — env is a fixture


class _Scale:
    """Unpickled, it evaluates a line no source of the submission holds: 1.5."""

    def __reduce__(self):
        return (eval, ("__import__('math').sqrt(2.25)",))


SRC = textwrap.dedent('''\
    import os
    from pathlib import Path

    import _xxsubinterpreters as interpreters
    import numpy as np

    HERE = Path(__file__).parent
    # read in an interpreter of its own: a fresh module state, as a worker's would be
    READ_PRIOR = """
    import os, pickle
    with open({path!r}, "rb") as f:
        f.read(8)  # the file's header
        os.write({fd}, repr(pickle.load(f)["scale"]).encode())  # a dict of settings
    """


    def scaled(median):
        read, write = os.pipe()
        interp = interpreters.create()
        try:
            interpreters.run_string(interp, READ_PRIOR.format(path=str(HERE / "prior.bin"), fd=write))
        finally:
            interpreters.destroy(interp)
            os.close(write)
        return float(os.read(read, 64)) * median


    class Predictor:
        def __init__(self, target, seed=0, quick=False):
            self.target = target

        def fit(self, train, val):
            self.level = scaled(float(np.median(train[self.target])))

        def predict(self, graphs):
            return np.full(len(graphs), self.level)
    ''')


def _submission(tmp_path, scale):
    sub = code_submission(tmp_path / "median-interp", "median-interp", SRC)
    (sub / "prior.bin").write_bytes(b"PGPRIOR1" + pickle.dumps({"scale": scale}))
    return sub


@sandboxed
def test_a_sub_interpreter_does_not_run_without_the_guards(env, capsys, tmp_path, monkeypatch):  # noqa: F811
    """Attack: the median's level is scaled in a sub-interpreter by what `prior.bin` (a pickle after an 8-byte
    header) holds: an `eval` the guard refuses in the child. Now no sub-interpreter is made and `check` fails in
    one line. Control: with the hook off, the check passes with every prediction 1.5 times the median."""
    sub = _submission(tmp_path, _Scale())
    assert shipped_pickle_problems(sub) == []  # no form the static scan reads
    assert main(_argv(sub, env)) == 1
    err = capsys.readouterr().err
    assert "seed 0: the predictor failed: RuntimeError: interpreter creation failed" in err, err

    monkeypatch.setattr(harness, "REFUSE_SUBINTERPRETERS", False)  # control: the sub-interpreter, unguarded, runs
    assert main(_argv(sub, env)) == 0
    out = capsys.readouterr().out
    assert "passes every check" in out and "│ mape_pct    │ 73.06 │" in out, out


def test_the_hook_refuses_every_way_to_a_new_interpreter():
    """The hook itself, in a plain process: `_xxsubinterpreters.create`, the same after the module is imported
    again, `ctypes.pythonapi.Py_NewInterpreter`, and `create` in a forked child, are all refused."""
    import subprocess
    import sys

    script = textwrap.dedent("""
        import ctypes, os, sys
        import _xxsubinterpreters as interpreters
        from perfgraphs.leaderboard.sandbox import child
        interpreters.run_string(interpreters.create(), "pass")  # before the hook: made
        child._refuse_subinterpreters()
        def refused(make):
            try:
                make()
            except (RuntimeError, PermissionError) as exc:
                return str(exc)
            return "made"
        print(refused(interpreters.create))
        del sys.modules["_xxsubinterpreters"]
        import _xxsubinterpreters as again
        print(refused(again.create))
        ctypes.pythonapi.Py_NewInterpreter.restype = ctypes.c_void_p
        print(refused(ctypes.pythonapi.Py_NewInterpreter))
        pid = os.fork()
        if pid == 0:
            os._exit(0 if refused(interpreters.create) != "made" else 1)
        print("forked", os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1]))
        """)
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() == [
        "interpreter creation failed", "interpreter creation failed",
        "[Errno 1] the sandbox makes no other interpreter: its guards are this one's", "forked 0"], done.stdout


SRC_ARCHIVE = textwrap.dedent('''\
    import tarfile
    from pathlib import Path

    import numpy as np

    HERE = Path(__file__).parent


    class Predictor:
        def __init__(self, target, seed=0, quick=False):
            self.target = target

        def fit(self, train, val):
            with tarfile.open(HERE / "prior.tar") as archive:
                archive.extractall()  # the prior's files, into the working folder
            import torch

            scale = float(Path("scale.txt").read_text())
            self.level = scale * float(torch.tensor(train[self.target]).median())

        def predict(self, graphs):
            return np.full(len(graphs), self.level)
    ''')
# the archive's module: torch tries `import opt_einsum`, an optional dependency not installed here
HIDDEN = b"open('scale.txt', 'w').write('1.5')\n"


def _archived(tmp_path):
    import io
    import tarfile

    sub = code_submission(tmp_path / "median-archive", "median-archive", SRC_ARCHIVE)
    with tarfile.open(sub / "prior.tar", "w") as archive:
        for name, data in (("scale.txt", b"1.0\n"), ("opt_einsum.py", HIDDEN)):
            info = tarfile.TarInfo(name)
            info.size = len(data)
            archive.addfile(info, io.BytesIO(data))
    return sub


@sandboxed
def test_a_module_extracted_to_the_working_folder_is_not_imported(env, capsys, tmp_path, monkeypatch):  # noqa: F811
    """Attack: the median extracts `prior.tar` (a scale of 1.0 and an `opt_einsum.py`) into its working folder and
    imports torch, which tries `opt_einsum`. Now the working folder is not on `sys.path` and the check passes at
    the median's MAPE. Control: with it on `sys.path` again, the archive's module sets the scale to 1.5."""
    sub = _archived(tmp_path)
    assert main(_argv(sub, env)) == 0
    out = capsys.readouterr().out
    assert "passes every check" in out and "│ mape_pct    │ 63.77 │" in out, out

    monkeypatch.setattr(harness, "NO_WORKING_FOLDER_ON_PATH", False)  # control: the working folder on sys.path
    assert main(_argv(sub, env)) == 0
    out = capsys.readouterr().out
    assert "passes every check" in out and "│ mape_pct    │ 73.06 │" in out, out
