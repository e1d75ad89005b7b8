"""The one channel between a predictor process and the harness: framed messages on a pipe.

Every message is one JSON header line (``{"kind": ..., "bytes": n, ...}``) followed by ``n`` bytes
of payload (predictions as little-endian float64). The harness timestamps each message on its
own clock when it arrives, so the timings of a record never come from the predictor's process:
a predictor can send a message early, but it cannot make its predictions arrive before it has
computed them, and it never sees the test inputs before the harness hands them over.

Kinds, in the only order the harness accepts: ``ready`` (data loaded, the clock starts),
``fit_done``, ``pred`` (test predictions), ``probe`` (the invariance probe's predictions),
``result`` (the self-reported parameter count and config); ``error`` ends a run at any point. A
run that freezes its fit (``perfgraphs submit --freeze``) sends ``state`` (the fitted predictor's
numbers, an ``.npz``) between ``ready`` and ``fit_done``: :data:`FREEZE_ORDER`. Inside the fit
phase, so the fit's clocks count every second ``state()`` takes and the state exists before any
test input is handed over (sent after the probe, a fit done in ``state()`` froze as milliseconds:
fifty-first pass).
"""

from __future__ import annotations

import fcntl
import json
import os
import queue
import termios
import threading
import time
from dataclasses import dataclass, field

ORDER = ("ready", "fit_done", "pred", "probe", "result")
FREEZE_ORDER = ("ready", "state", "fit_done", "pred", "probe", "result")
MAX_STATE_PAYLOAD = 256 << 20  # a frozen fit's weights (a paper-sized graph network: tens of MB)
# where a frozen run finds its own seed's state: in its inbox, which no other run reads (sixty-third pass)
FROZEN_STATE = "frozen-state.npz"
# the filter a sandboxed run loads before its predictor's folder is on sys.path (confine.no_new_programs_filter)
NO_NEW_PROGRAMS = "no-new-programs.bpf"
MAX_HEADER_BYTES = 1 << 20
MAX_SMALL_PAYLOAD = 1 << 20  # anything but predictions
# A header is a flat object; only the predictor's ``config`` nests (hyper-parameters, as deep as
# submission.yaml's 32 levels). A header of lists 980 deep was read here (json's own limit is the
# interpreter's recursion limit, in this reader thread's shallow stack) and then stopped `check`
# with "internal error: RecursionError" when the harness quoted it (thirty-sixth pass).
MAX_HEADER_DEPTH = 64


class ChannelError(Exception):
    """The predictor process broke the protocol (a forged, reordered or oversized message)."""


def send(fd: int, kind: str, payload: bytes = b"", **fields) -> None:
    """Runner side: write one message (blocking until the pipe has taken all of it)."""
    header = json.dumps({"kind": kind, "bytes": len(payload), **fields}, default=repr).encode() + b"\n"
    data = memoryview(header + payload)
    while data:
        written = os.write(fd, data)
        data = data[written:]


@dataclass
class Message:
    kind: str
    at: float  # time.monotonic() in the harness when the whole message had arrived
    fields: dict = field(default_factory=dict)
    payload: bytes = b""
    start: int = 0  # offset of its first byte in the stream: what was written before it


class Receiver:
    """Harness side: a thread reads the pipe and queues timestamped messages; ``ChannelError``
    (queued as an ``Exception``) ends the stream at the first malformed message."""

    def __init__(self, fd: int, max_payload: int, max_state: int = 0):
        self._file = os.fdopen(fd, "rb", buffering=0)
        self._max_payload = max_payload
        self._max_state = max_state  # 0 unless the run freezes its fit: no other run sends a state
        self._offset = 0  # bytes taken from the pipe so far (only the reader thread moves it)
        self.messages: queue.Queue = queue.Queue()
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()

    def written(self) -> int:
        """Bytes written into the channel so far: read by the thread, or still waiting in the pipe.
        A message that starts below this mark was (at least in part) written before it was taken:
        unlike the arrival time, which depends on when the reader thread gets to run, the mark does
        not race. The pipe is asked first, so a read in between can only raise the mark."""
        try:
            pending = int.from_bytes(fcntl.ioctl(self._file.fileno(), termios.FIONREAD, b"\0" * 4), "little")
        except (OSError, ValueError):  # the channel is closed: nothing waits in it
            pending = 0
        return self._offset + pending

    def _read_exact(self, n: int) -> bytes:
        chunks, left = [], n
        while left:
            chunk = self._file.read(min(left, 1 << 20))
            if not chunk:
                raise EOFError
            self._offset += len(chunk)
            chunks.append(chunk)
            left -= len(chunk)
        return b"".join(chunks)

    def _readline(self) -> bytes:
        line = bytearray()
        while not line.endswith(b"\n"):
            ch = self._file.read(1)
            if not ch:
                raise EOFError
            self._offset += 1
            line += ch
            if len(line) > MAX_HEADER_BYTES:
                raise ChannelError("a message header longer than 1 MB")
        return bytes(line)

    def _run(self) -> None:
        try:
            while True:
                start = self._offset
                header = json.loads(self._readline())
                if not isinstance(header, dict) or not isinstance(header.get("kind"), str):
                    raise ChannelError("a message without a kind")
                if _deeper_than(header, MAX_HEADER_DEPTH):
                    raise ChannelError(f"a message header nested deeper than {MAX_HEADER_DEPTH} levels")
                n = header.get("bytes", 0)
                limit = (self._max_payload if header["kind"] in ("pred", "probe") else
                         self._max_state if header["kind"] == "state" else MAX_SMALL_PAYLOAD)
                if not isinstance(n, int) or not 0 <= n <= limit:
                    raise ChannelError(f"a {header['kind']!r} message of {n!r} bytes (at most {limit})")
                payload = self._read_exact(n)
                self.messages.put(Message(header.pop("kind"), time.monotonic(), header, payload, start))
        except EOFError:
            self.messages.put(None)  # the process closed the channel (exited or was killed)
        except Exception as exc:  # noqa: BLE001 — a nesting bomb (RecursionError) too: never a silent dead reader
            self.messages.put(ChannelError(str(exc) if isinstance(exc, ChannelError) else
                                           f"a malformed message ({type(exc).__name__})"))
        finally:
            self._file.close()


def _deeper_than(value, limit: int) -> bool:
    """Whether ``value`` (decoded JSON) nests lists and objects more than ``limit`` levels deep,
    found without recursion (the value may be as deep as the decoder allowed). The records' own
    ``record_check.deeper_than`` does the same, but the sandbox and the records are layers that never
    import each other (pyproject's import contract: the harness never reads a record), and this
    module runs inside the sandbox too."""
    stack = [(value, 1)]
    while stack:
        item, depth = stack.pop()
        if isinstance(item, (dict, list)):
            if depth > limit:
                return True
            stack.extend((child, depth + 1) for child in (item.values() if isinstance(item, dict) else item))
    return False
