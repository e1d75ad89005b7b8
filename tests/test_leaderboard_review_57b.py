"""Fifty-seventh adversarial pass (2026-12-05), submit side: machine code kept in the folder in a form
no static check reads as machine code (``scale.gz``, a gzip of a library: no ELF file to
``extension_modules``, no zip, no pickle), written by the predictor to a place the sandbox may write
(``/tmp``, ``/dev/shm``, bubblewrap's root, a ``memfd``) and loaded with ``ctypes.CDLL``: the library's
constructor ran in the sandbox under a median predictor that passed every check. Another static
format check would only move the carrier (bz2, base64 text, a library split in parts), so the fix is
a runtime layer: the writable places are tmpfs mounts with ``noexec`` (``isolation.SCRATCH_DIRS``,
mounted by the root harness's launcher), bubblewrap's root and ``/dev`` are read-only once built,
and the seccomp filter refuses ``memfd_create``; the kernel then refuses the library's executable
mapping whichever loader asks (``ctypes``, ``torch.ops.load_library``, a C++ ``dlopen``)."""

from __future__ import annotations

import gzip
import subprocess

import pytest

from perfgraphs.cli import main
from perfgraphs.leaderboard.sandbox import confine, isolation
from perfgraphs.leaderboard.submission import extension_modules
from test_leaderboard_review_56b import CC, HIDDEN_C, needs_cc  # the library whose constructor says it ran
from test_submit import BOARD, code_submission, env  # noqa: F401 — env is a fixture

HEAD = ("import base64, ctypes, gzip, os\n"
        "from pathlib import Path\n"
        "import numpy as np\n"
        "HERE = Path(__file__).parent\n")
TAIL = ("class Predictor:\n"
        "    def __init__(self, target, seed=0, quick=False):\n"
        "        self.target = target\n"
        "        self.scale = load_scale()\n"
        "    def fit(self, train, val):\n"
        "        self.level = float(np.median(train[self.target]))\n"
        "    def predict(self, graphs):\n"
        "        return np.full(len(graphs), self.level)\n")
LOADERS = {
    "tmp": ("def load_scale():\n"
            "    path = Path('/tmp/scale.bin')\n"
            "    path.write_bytes(gzip.decompress((HERE / 'scale.gz').read_bytes()))\n"
            "    return ctypes.CDLL(str(path))\n"),
    "devshm": ("def load_scale():\n"
               "    path = Path('/dev/shm/scale.bin')\n"
               "    path.write_bytes(gzip.decompress((HERE / 'scale.gz').read_bytes()))\n"
               "    return ctypes.CDLL(str(path))\n"),
    "root": ("def load_scale():\n"
             "    path = Path('/scale.bin')\n"
             "    path.write_bytes(gzip.decompress((HERE / 'scale.gz').read_bytes()))\n"
             "    return ctypes.CDLL(str(path))\n"),
    "memfd": ("def load_scale():\n"
              "    fd = os.memfd_create('scale')\n"
              "    os.write(fd, gzip.decompress((HERE / 'scale.gz').read_bytes()))\n"
              "    return ctypes.CDLL(f'/proc/self/fd/{fd}')\n"),
}


def _library(tmp_path) -> bytes:
    tmp_path.mkdir(exist_ok=True)
    (tmp_path / "hidden.c").write_bytes(HIDDEN_C)
    subprocess.run([CC, "-shared", "-fPIC", "-o", str(tmp_path / "hidden.so"), str(tmp_path / "hidden.c")], check=True)
    return (tmp_path / "hidden.so").read_bytes()



# what each route meets now: the kernel's refusal of an executable mapping, a read-only root, EPERM
REFUSED = {"tmp": "/tmp/scale.bin: failed to map segment", "devshm": "/dev/shm/scale.bin: failed to map segment",
           "root": "Read-only file system", "memfd": "PermissionError: [Errno 1] Operation not permitted"}
sandboxed = pytest.mark.skipif(isolation.unavailable_reason() is not None, reason="no bubblewrap sandbox here")


def _argv(sub, env):  # noqa: F811
    return ["check", str(sub), *BOARD, "--quick", "--seeds", "0", "--results", str(env["results"])]


@needs_cc
@sandboxed
@pytest.mark.parametrize("where", sorted(LOADERS))
def test_a_library_written_to_a_writable_place_does_not_load(env, capsys, tmp_path, monkeypatch, where):  # noqa: F811
    """Attack: `scale.gz` (a gzipped library whose constructor says so and exits) passes every static
    check; the predictor writes it out and calls `ctypes.CDLL` on it. Now the load fails where the
    kernel maps it. Control: with the noexec places and the memfd refusal off, the constructor runs."""
    if where in ("tmp", "devshm") and isolation.sandbox_user() is None:
        pytest.skip("the noexec scratch mounts are the root harness's launcher's")
    sub = code_submission(tmp_path / "sub", "median-scaler", "")
    (sub / "predictor.py").write_text(HEAD + LOADERS[where] + TAIL)
    (sub / "scale.gz").write_bytes(gzip.compress(_library(tmp_path / "lib")))
    assert extension_modules(sub) == []  # no ELF file, no zip: nothing for the static check
    assert main(_argv(sub, env)) == 1
    err = capsys.readouterr().err
    assert REFUSED[where] in err and "hidden native" not in err, err

    monkeypatch.setattr(isolation, "NOEXEC_SCRATCH", False)  # control: both runtime layers off
    monkeypatch.setattr(confine, "BLOCKED_SYSCALLS", tuple(c for c in confine.BLOCKED_SYSCALLS if c != "memfd_create"))
    confine._compiled.cache_clear()
    try:
        assert main(_argv(sub, env)) == 1
    finally:
        monkeypatch.undo()
        confine._compiled.cache_clear()
    err = capsys.readouterr().err
    assert "the hidden native code ran" in err, err


HONEST = ("import multiprocessing, os, tempfile\n"
          "from multiprocessing import shared_memory\n"
          "from pathlib import Path\n"
          "import numpy as np\n"
          "class Predictor:\n"
          "    def __init__(self, target, seed=0, quick=False):\n"
          "        self.target = target\n"
          "    def fit(self, train, val):\n"
          "        level = float(np.median(train[self.target]))\n"
          "        np.save('level.npy', np.array([level]))  # the working folder, under /tmp\n"
          "        with tempfile.NamedTemporaryFile(dir='/dev/shm') as f:\n"
          "            f.write(b'x')\n"
          "        lock = multiprocessing.Lock()  # a POSIX semaphore in /dev/shm\n"
          "        with lock:\n"
          "            block = shared_memory.SharedMemory(create=True, size=8)\n"
          "            block.close(); block.unlink()\n"
          "        self.level = float(np.load('level.npy')[0])\n"
          "    def predict(self, graphs):\n"
          "        return np.full(len(graphs), self.level)\n")


@sandboxed
def test_the_writable_places_still_take_files_semaphores_and_shared_memory(env, capsys, tmp_path):  # noqa: F811
    """Control (no false positive): a predictor that writes files in its working folder and
    `/dev/shm`, takes a multiprocessing lock and a shared-memory block passes `check`."""
    sub = code_submission(tmp_path / "sub", "median-scaler", "")
    (sub / "predictor.py").write_text(HONEST)
    assert main(_argv(sub, env)) == 0, capsys.readouterr().err
