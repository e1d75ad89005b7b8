"""The harness stamps a hand-over before it tells the predictor, so an honest fast answer is never taken
for a forged one. A predictions message that arrives before the inputs were handed over is forged (a
predictor precomputing the public test graphs to fake its prediction time) and stops the seed. The hand-over
time was stamped after the write to the predictor's 'go' pipe: a harness thread the host descheduled
between the write and the stamp let the channel's reader thread stamp an honest answer earlier, and
``test_submit_tabular`` failed on a loaded machine with "sent predictions before the harness handed over
their inputs" (ninety-ninth pass's report). Now ``harness._hand_over`` returns the time just before its
write. The test stands in for the host's descheduling with a pause after the hand-over; its control stamps
after the pause, as before, and the same honest seed fails."""

from __future__ import annotations

import time

import pytest

from perfgraphs.leaderboard.sandbox import harness, isolation
from test_leaderboard_redteam import run_predictor
from test_leaderboard_adversarial import env, parts  # noqa: F401 — fixtures

pytestmark = pytest.mark.skipif(isolation.unavailable_reason() is not None,
                                reason=f"no isolation here: {isolation.unavailable_reason()}")

HONEST = "def attack(model):\n    pass\n"
PAUSE_S = 1.0  # far longer than the tiny board's predict takes


def test_an_answer_faster_than_the_harness_stamp_is_not_forged(env, parts, monkeypatch):  # noqa: F811
    told = harness._hand_over

    def descheduled(*args):  # the harness thread off the CPU right after telling the predictor
        told_at = told(*args)
        time.sleep(PAUSE_S)
        return told_at
    monkeypatch.setattr(harness, "_hand_over", descheduled)
    out, _, _ = run_predictor(env, parts, "fast-honest", HONEST)
    assert not isinstance(out, Exception), out

    def stamped_after(*args):  # the control: the stamp taken after the write, as before
        told(*args)
        time.sleep(PAUSE_S)
        return time.monotonic()
    monkeypatch.setattr(harness, "_hand_over", stamped_after)
    out, _, _ = run_predictor(env, parts, "fast-honest-before", HONEST)
    assert isinstance(out, Exception) and "before the harness handed over their inputs" in str(out), out
