"""The harness channel's stream mark: what was written before a hand-over is known without racing
the reader thread (the arrival time alone depends on when that thread gets to run)."""

from __future__ import annotations

import os

from perfgraphs.leaderboard.sandbox.channel import Receiver, send


def _frame_bytes(kind: str, payload: bytes = b"", **fields) -> int:
    """How many bytes one message takes in the stream (sent through a pipe of its own)."""
    r, w = os.pipe()
    send(w, kind, payload, **fields)
    frame = os.read(r, 1 << 16)
    os.close(r), os.close(w)
    return len(frame)


def test_bytes_waiting_in_the_pipe_count_as_written_before_the_mark():
    r, w = os.pipe()
    receiver = Receiver(r, max_payload=1 << 16)
    send(w, "fit_done")
    first = receiver.messages.get(timeout=10)
    assert first.kind == "fit_done" and first.start == 0
    # control: nothing written since, so the mark is where fit_done ended and a later message is after it
    mark_quiet = receiver.written()
    assert mark_quiet == _frame_bytes("fit_done")
    send(w, "pred", b"\0" * 80, shape=[10])
    late = receiver.messages.get(timeout=10)
    assert late.start == mark_quiet  # written after the mark: accepted by the harness's rule
    # the attack: a message written before the mark, however late the reader thread takes it
    send(w, "probe", b"\0" * 80, shape=[10])
    mark = receiver.written()
    early = receiver.messages.get(timeout=10)
    assert early.kind == "probe" and early.start < mark
    os.close(w)
    assert receiver.messages.get(timeout=10) is None
    # a closed channel still answers, with every byte taken. (A mark taken while the thread is inside
    # a message may lie a few bytes above this: the pipe is asked first, so a read in between counts
    # twice; it errs towards "written before", never below a message that was.)
    assert receiver.written() == early.start + _frame_bytes("probe", b"\0" * 80, shape=[10])
