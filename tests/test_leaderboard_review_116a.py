"""Hundred-and-sixteenth adversarial pass (2026-12-07), side a (native code from data).

Machine code ran in the sandbox straight from the submission's folder, with no library anywhere. The
fifty-seventh pass made the places a sandbox *writes* ``noexec`` and ``extension_modules`` refuses any ELF
file, but the root harness's launcher bound the folders it only *reads* (the submission, the package code,
the job and the inbox) with execution allowed. A median kept 24 bytes of x86-64 code (``mulsd`` by a
constant: no ELF, no pickle, no zip, data to every check) in a ``scale.bin``, mapped the file with
``mmap(PROT_READ | PROT_EXEC, MAP_PRIVATE)`` from ``/submission`` and called it through ``ctypes``:
``check --seeds 0`` passed ("passes every check") with every prediction 1.5 times the median (MAPE 73.06 %
on the tiny board), a factor no source holds. Now the launcher binds every staged folder but the Python
environment's ``noexec`` (``isolation.NOEXEC_DATA``, ``launch.py``), and the kernel refuses the mapping (EPERM).

Not closed (stated in leaderboard/RULES.md): the same bytes copied into *anonymous* memory mapped
writable and executable (``mmap.mmap(-1, 4096, prot=READ | WRITE | EXEC)``, or libc's ``mmap`` through
``ctypes``) run, and so do bytes written over a library's code through ``/proc/self/mem``. A seccomp rule
refusing anonymous or writable executable mappings and ``mprotect(PROT_EXEC)`` closed the first (tried in
this pass) but broke what legitimately writes code at run time: libffi's ``ctypes`` callbacks (XGBoost's
import makes one and raised MemoryError, so the ``static-xgboost`` and ``llm-xgboost`` references could not
run) and torch's oneDNN convolutions ("could not create a primitive"). Those routes need code in the
predictor's source that maps executable memory and calls an address: the review reads that.
"""

from __future__ import annotations

import os
import struct

import pytest

from perfgraphs.cli import main
from perfgraphs.leaderboard.sandbox import isolation
from test_leaderboard_review_57b import HEAD, TAIL, sandboxed
from test_submit import BOARD, code_submission, env  # noqa: F401 — env is a fixture

# movabs rax, 1.5; movq xmm1, rax; mulsd xmm0, xmm1; ret: double scale(double x) { return 1.5 * x; }
CODE = b"\x48\xb8" + struct.pack("<d", 1.5) + b"\x66\x48\x0f\x6e\xc8\xf2\x0f\x59\xc1\xc3"
KERNEL = ("import mmap\n"
          "def load_scale():\n"
          "    with open(HERE / 'scale.bin', 'rb') as f:\n"
          "        page = mmap.mmap(f.fileno(), 0, prot=mmap.PROT_READ | mmap.PROT_EXEC, flags=mmap.MAP_PRIVATE)\n"
          "    scale = ctypes.CFUNCTYPE(ctypes.c_double, ctypes.c_double)(np.frombuffer(page, np.uint8).ctypes.data)\n"
          "    return page, scale\n")
# 57b's median, its level passed through the kernel the folder keeps
SOURCE = HEAD + KERNEL + TAIL.replace("self.scale = load_scale()", "self.page, self.scale = load_scale()").replace(
    "self.level = float(np.median(train[self.target]))", "self.level = self.scale(float(np.median(train[self.target])))")


def _argv(sub, env):  # noqa: F811
    return ["check", str(sub), *BOARD, "--quick", "--seeds", "0", "--results", str(env["results"])]


@pytest.mark.skipif(os.uname().machine != "x86_64", reason="x86-64 code")
@sandboxed
def test_machine_code_in_the_folder_is_not_mapped_executable(env, capsys, tmp_path, monkeypatch):  # noqa: F811
    """Attack: the median's `scale.bin` holds machine code, mapped executable from `/submission` and
    called. Now the mapping fails (EPERM). Control: with the submission bound as before (exec allowed),
    the check passes with every prediction 1.5 times the median."""
    if isolation.sandbox_user() is None:
        pytest.skip("the noexec binds are the root harness's launcher's")
    sub = code_submission(tmp_path / "sub", "median-scaler", SOURCE)
    (sub / "scale.bin").write_bytes(CODE)
    assert main(_argv(sub, env)) == 1
    err = capsys.readouterr().err
    assert "PermissionError: [Errno 1] Operation not permitted at predictor.py:8" in err, err

    monkeypatch.setattr(isolation, "NOEXEC_DATA", False)  # control: the folder bound as before, the code runs
    assert main(_argv(sub, env)) == 0
    out = capsys.readouterr().out
    assert "passes every check" in out and "│ mape_pct    │ 73.06 │" in out, out
