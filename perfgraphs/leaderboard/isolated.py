"""Run a reader of a submitter's file in a forked child, so that the file cannot end the process.

pyarrow aborts the whole process (a C++ exception thrown where nothing catches it: exit 134,
"Definition level histogram size mismatch") when the metadata of a 2.2 KB Parquet file with one
footer byte changed is read (``RowGroupMetaData.column``): no ``try`` in Python can catch that, and
``perfgraphs submit``/``check`` and the label scan died on it (twenty-fourth pass of 2026-12-02).
So the readers of Parquet, Arrow and ORC files run in a child forked for the call (fork: the modules
are already imported, so a call costs a few milliseconds, not an interpreter start); the child
sends its result back pickled through a pipe. A child that dies, runs past its time or cannot send
its result raises :class:`ChildFailed`, which the callers turn into a one-line refusal.
"""

from __future__ import annotations

import faulthandler
import os
import pickle
import select
import signal
import time


class ChildFailed(Exception):
    """The child died (a signal, an abort inside a C++ library), ran past its time, or sent nothing
    readable."""


def _child(fn, args, w: int) -> None:
    """The forked side: call, pickle the result or the exception, write it, and leave at once
    (``os._exit``: the parent's atexit handlers, buffers and test fixtures are not the child's)."""
    code = 0
    try:
        # an abort prints C++'s own message on stderr, and faulthandler (pytest enables it, on a
        # copy of stderr) a traceback: the refusal line says what happened instead
        faulthandler.disable()
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, 2)
        try:
            out = (True, fn(*args))
        except BaseException as exc:  # an exception is the caller's to raise, in the parent
            out = (False, exc)
        try:
            payload = pickle.dumps(out, protocol=pickle.HIGHEST_PROTOCOL)
        except Exception:
            payload = pickle.dumps((False, ChildFailed(f"{type(out[1]).__name__}: {out[1]}")))
        view = memoryview(payload)
        while view:
            view = view[os.write(w, view):]
    except BaseException:
        code = 1
    finally:
        os._exit(code)


def _received(r: int, pid: int, timeout: float) -> bytes:
    """Everything the child writes, until it closes the pipe; past ``timeout`` it is killed."""
    deadline = time.monotonic() + timeout
    chunks = []
    while True:
        wait = deadline - time.monotonic()
        if wait <= 0 or not select.select([r], [], [], wait)[0]:
            os.kill(pid, signal.SIGKILL)
            raise ChildFailed(f"its reader ran past {timeout:g} s")
        chunk = os.read(r, 1 << 20)
        if not chunk:
            return b"".join(chunks)
        chunks.append(chunk)


def in_child(fn, *args, timeout: float = 600.0):
    """``fn(*args)`` run in a forked child: its result, or its exception raised here. Where the
    system cannot fork (not Linux or macOS), it runs in this process."""
    if not hasattr(os, "fork"):
        return fn(*args)
    r, w = os.pipe()
    try:
        import fcntl
        fcntl.fcntl(r, getattr(fcntl, "F_SETPIPE_SZ", 1031), 1 << 20)  # fewer round trips for a large result
    except (ImportError, OSError):
        pass
    pid = os.fork()
    if pid == 0:
        os.close(r)
        _child(fn, args, w)
    os.close(w)
    try:
        payload = _received(r, pid, timeout)
    finally:
        os.close(r)
        _, status = os.waitpid(pid, 0)
    if os.WIFSIGNALED(status):
        try:
            name = signal.Signals(os.WTERMSIG(status)).name
        except ValueError:
            name = f"signal {os.WTERMSIG(status)}"
        raise ChildFailed(f"its reader died ({name})")
    try:
        ok, value = pickle.loads(payload)
    except Exception:
        raise ChildFailed(f"its reader sent no result (exit status {os.WEXITSTATUS(status)})") from None
    if not ok:
        raise value
    return value
