"""Hundred-and-twenty-second adversarial pass (2026-12-07), side b (native code, other loaders): a fresh
interpreter in the sandbox had none of the child's guards.

The sandbox's child puts its runtime guards in place in its own process before the predictor is imported:
unpickling names only listed classes (``sandbox.unpickling``), no TorchScript program loads, logging
configurations, SymPy formulas, pandas expressions, templates and YAML tags run nothing. A process forked
from it keeps them; a process that *executes* a new program does not, and the sandbox let one start: the
Python of the environment is bound with execution allowed, and nothing refused ``execve``. A median that
read its ``prior.bin`` (an 8-byte header, then ``pickle.load``: no form the static scan reads, so only the
guard stood in its way, as in session 46) in a ``multiprocessing`` pool started with
``get_context("spawn")`` ran the pickle's ``eval`` of a line no source holds in the pool's worker, and
``check --seeds 0`` passed ("passes every check") with every prediction 1.5 times the median (MAPE 73.06 %
on the tiny board, where the median alone scores 63.77 %: the factor shows that the line ran). A median that
parsed a prior formula (``prior.txt``) with ``sympy.sympify`` in such a worker did the same, a route the static
check does not read at all. With a ``fork`` pool the same ``prior.bin`` is refused (``the sandbox refused to
unpickle builtins.eval``).

Now the harness hands a sandboxed run a second seccomp filter (``confine.no_new_programs_filter``: ``execve``
and ``execveat`` refused, and every ``seccomp(2)`` after it), which the child loads on all its threads before
the predictor's folder is on ``sys.path`` (``child._refuse_new_programs``); the sandbox's own filter lets that
one ``seccomp(SECCOMP_SET_MODE_FILTER, SECCOMP_FILTER_FLAG_TSYNC)`` through
(``confine._but_the_childs_own_filter``). The spawn pool's worker never starts and ``check`` fails at once, in
one line (``multiprocessing`` never reads a failed ``execve``'s error and forked the worker again and again, so
the child makes ``_posixsubprocess.fork_exec`` raise); ``multiprocessing``'s resource tracker, a program of its
own that a ``SharedMemory`` block starts, tracks nothing in the sandbox, whose ``/dev/shm`` goes with it. Forked
pools (Python's default here, ``datasets``' ``num_proc``, torch's ``DataLoader``) still run, and so did the
``static-xgboost``, ``layerwise-boost``, ``dippm-sage`` and ``roofline-sage`` references under ``check --quick``.

What else was tried in this pass, and held: ``ctypes.CDLL``, ``torch.ops.load_library``, ONNX Runtime's
``register_custom_ops_library`` and ``torch.utils.cpp_extension`` all need a library file mapped executable, and
every place a sandbox writes or reads from the job is ``noexec`` (57b, 116a) while ``memfd_create`` is refused;
an ELF file anywhere in the folder is refused by ``check``. Anonymous writable and executable memory (``mmap``
through ``ctypes``, libffi closures) still runs machine code, the limit RULES states since 116a: it needs code
in the predictor's source that maps it and calls an address. ``exec``, ``compile``, ``marshal.loads`` and
``types.CodeType`` of data are calls in the source, the review's to read, as RULES says of ``marshal``.
"""

from __future__ import annotations

import pickle
import subprocess
import sys
import textwrap

import pytest

from perfgraphs.cli import main
from perfgraphs.leaderboard.pickle_scan import shipped_pickle_problems
from perfgraphs.leaderboard.sandbox import confine, harness
from test_leaderboard_review_57b import _argv, sandboxed
from test_submit import code_submission, env  # noqa: F401 — env is a fixture

with_seccomp = pytest.mark.skipif(confine.seccomp_program() is None or confine.no_new_programs_filter() is None,
                                  reason="no seccomp filter here")


class _Scale:
    """Unpickled, it evaluates a line no source of the submission holds: 1.5."""

    def __reduce__(self):
        return (eval, ("__import__('math').sqrt(2.25)",))


HEAD = textwrap.dedent("""\
    import multiprocessing, pickle
    from pathlib import Path
    import numpy as np
    HERE = Path(__file__).parent
    """)
# the worker's function, for each route: the level scaled by what a file of the folder says
WORKERS = {
    "pickle": textwrap.dedent("""\
        def scaled(median):
            with open(HERE / "prior.bin", "rb") as f:
                f.read(8)  # the file's header
                prior = pickle.load(f)  # a dict of settings
            return prior["scale"] * median
        """),
    "sympy": textwrap.dedent("""\
        def scaled(median):
            import sympy
            prior = sympy.sympify((HERE / "prior.txt").read_text())  # the prior's formula
            return float(prior.subs("median", median))
        """),
}
FILES = {"pickle": ("prior.bin", b"PGPRIOR1" + pickle.dumps({"scale": _Scale()})),
         "sympy": ("prior.txt", b"eval(\"__import__('math').sqrt(2.25)\") * median\n")}
TAIL = textwrap.dedent("""\
    class Predictor:
        def __init__(self, target, seed=0, quick=False):
            self.target = target
        def fit(self, train, val):
            with multiprocessing.get_context("spawn").Pool(1) as pool:
                self.level = pool.apply(scaled, (float(np.median(train[self.target])),))
        def predict(self, graphs):
            return np.full(len(graphs), self.level)
    """)


def _submission(tmp_path, route: str, start: str = "spawn"):
    sub = code_submission(tmp_path / route, f"median-{route}", (HEAD + WORKERS[route] + TAIL).replace("spawn", start))
    name, data = FILES[route]
    (sub / name).write_bytes(data)
    return sub


@sandboxed
@with_seccomp
@pytest.mark.parametrize("route", sorted(WORKERS))
def test_a_spawned_interpreter_does_not_run_without_the_guards(env, capsys, tmp_path, monkeypatch, route):  # noqa: F811
    """Attack: the median's level is scaled in a `spawn` pool's worker by what `prior.bin` (a pickle after an
    8-byte header) or `prior.txt` (a SymPy formula) holds: a line no source holds, which the guards refuse in
    the child. Now the worker does not start and `check` fails at the pool. Control: with the filter of new
    programs off, the check passes with every prediction 1.5 times the median (73.06 % MAPE)."""
    sub = _submission(tmp_path, route)
    assert shipped_pickle_problems(sub) == []  # no form the static scan reads
    assert main(_argv(sub, env)) == 1
    err = capsys.readouterr().err
    assert "seed 0: the predictor failed: PermissionError: [Errno 1] the sandbox starts no other program" in err, err

    monkeypatch.setattr(harness, "REFUSE_NEW_PROGRAMS", False)  # control: the worker, a fresh interpreter, runs
    assert main(_argv(sub, env)) == 0
    out = capsys.readouterr().out
    assert "passes every check" in out and "│ mape_pct    │ 73.06 │" in out, out


@sandboxed
@with_seccomp
def test_a_forked_pool_runs_and_keeps_the_guards(env, capsys, tmp_path):  # noqa: F811
    """Control for the fix: the same pool started by `fork` runs under the filter (with a `prior.bin` of plain
    settings the check passes, at the median's MAPE), and its worker, forked from the guarded child, refuses
    the pickle's `eval` as the child does."""
    sub = _submission(tmp_path, "pickle", start="fork")
    (sub / "prior.bin").write_bytes(b"PGPRIOR1" + pickle.dumps({"scale": 1.0}))
    assert main(_argv(sub, env)) == 0
    out = capsys.readouterr().out
    assert "passes every check" in out and "│ mape_pct    │ 63.77 │" in out, out

    (sub / "prior.bin").write_bytes(FILES["pickle"][1])
    assert main(_argv(sub, env)) == 1
    err = capsys.readouterr().err
    assert "the sandbox refused to unpickle builtins.eval" in err, err


def test_the_filter_refuses_new_programs_and_filters_but_not_forks(tmp_path):
    """The filter itself, loaded in a process that has no_new_privs as the sandbox has: `execve` of any
    program and any further `seccomp(2)` or `prctl(PR_SET_SECCOMP)` are refused with EPERM, on a thread that
    was running before it too; a forked pool still maps."""
    if confine.no_new_programs_filter() is None:
        pytest.skip("no seccomp filter here")
    script = textwrap.dedent("""
        import ctypes, multiprocessing, subprocess, sys, threading
        from perfgraphs.leaderboard.sandbox import confine
        libc = ctypes.CDLL(None, use_errno=True)
        assert libc.prctl(38, 1, 0, 0, 0) == 0  # PR_SET_NO_NEW_PRIVS, as bubblewrap sets it
        go, done, seen = threading.Event(), threading.Event(), []
        def early():  # started before the filter: TSYNC filters it too
            go.wait()
            try:
                subprocess.run(["/bin/true"])
            except PermissionError:
                seen.append("refused")
            done.set()
        threading.Thread(target=early).start()
        confine.load_own_filter(confine.no_new_programs_filter())
        go.set(); done.wait()
        try:
            subprocess.run([sys.executable, "-c", "pass"])
            sys.exit("exec ran")
        except PermissionError:
            pass
        nr = confine.SECCOMP_SYSCALL[__import__("os").uname().machine]
        assert libc.syscall(nr, 1, 1, None) == -1 and ctypes.get_errno() == 1
        assert libc.prctl(22, 2, None, 0, 0) == -1 and ctypes.get_errno() == 1
        with multiprocessing.get_context("fork").Pool(2) as pool:
            assert pool.map(abs, [-1, -2]) == [1, 2]
        print("ok", seen)
    """)
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120, cwd=tmp_path)
    assert out.returncode == 0 and out.stdout.strip() == "ok ['refused']", out.stderr[-2000:]
