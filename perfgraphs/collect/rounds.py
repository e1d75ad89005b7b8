"""Rounds: every configuration is measured in several separate workers, apart in time; the label
is the mean of its rounds, and the spread between rounds is its noise.

A round is one worker process measuring the configuration (warm-up + timed runs). Rounds of one
configuration are separated by a block of other configurations (see :func:`schedule`), so what
varies slowly — the neighbours on the machine, the hypervisor, the process's memory layout — varies
between them as it varies between two campaigns. That is the floor no predictor can beat, and it is
measured on every configuration (:mod:`perfgraphs.collect.floor`), not on a probe set.

A plan's ``schedule`` says how rounds are ordered: ``blocks`` (the default, :func:`blocks`) or
``visits`` (:func:`visits`): round r is one pass over every configuration of the plan, so the
rounds of one configuration lie a pass apart (tens of minutes), not a block apart.

Rows written before rounds existed have ``round`` null: they read as round 1.
"""

from __future__ import annotations

import hashlib
import statistics
from typing import Callable, Iterable, TypeVar

T = TypeVar("T")

# Label columns folded over rounds: the label is the mean of the rounds' values. Why the mean: on the
# dippm test part measured in 6 visits (311 configurations), labels of 3 visits against labels of the
# other 3 agree within a median 3.75 % / mean 5.18 % as means and 4.55 / 6.33 % as medians
# (latency_calibrated_ms; raw latency 8.1 / 9.8 against 10.3 / 12.5 %, CPU time 7.9 / 9.7 against
# 10.2 / 12.4 %): a visit's deviation is symmetric (skew 0.00) with mild tails (excess kurtosis 1.2),
# where the median of a few values throws information away. A round the quiet gate flags never
# enters. With two rounds the two are the same number, bit for bit.
FOLDED = ("latency_median_ms", "latency_calibrated_ms", "cpu_time_ms", "peak_memory_mb",
          "energy_j", "energy_per_sample_j", "power_w", "gpu_memory_used_mb")
BLOCK = 24  # configurations between the rounds of one configuration
SCHEDULES = ("blocks", "visits")  # a plan's ``schedule`` (the first is the default)
VISIT_SPACING = 0.5  # visits: the least distance between two visits of a unit, in passes


def round_of(row: dict) -> int:
    return row.get("round") or 1


def schedule(units: list[T], rounds: int, block: int = BLOCK, kind: str = "blocks", seed: str = "",
             key: Callable[[T], str] = str) -> list[tuple[T, int]]:
    """``(unit, round)`` pairs in measuring order: :func:`blocks` or, with ``kind="visits"``,
    :func:`visits` (shuffled by ``seed`` and each unit's ``key``)."""
    if kind == "visits":
        return visits(units, rounds, seed, key)
    if kind != "blocks":
        raise ValueError(f"unknown schedule {kind!r} (known: {', '.join(SCHEDULES)})")
    return blocks(units, rounds, block)


def blocks(units: list[T], rounds: int, block: int = BLOCK) -> list[tuple[T, int]]:
    """``(unit, round)`` pairs: the units in blocks of ``block``, each block measured round after
    round. Two rounds of one unit are then ``block`` units apart (minutes), not back to back, and a
    campaign stopped anywhere has both rounds of all but one block."""
    out: list[tuple[T, int]] = []
    for start in range(0, len(units), block):
        chunk = units[start:start + block]
        for r in range(1, rounds + 1):
            out.extend((u, r) for u in chunk)
    return out


def visits(units: list[T], rounds: int, seed: str, key: Callable[[T], str] = str) -> list[tuple[T, int]]:
    """``(unit, round)`` pairs: round r is one pass (a *visit*) over all units, in an order drawn
    from ``(seed, r)`` and each unit's ``key`` alone, so a resumed campaign (or a subset of the
    units) keeps it. A unit is taken in that order unless its previous visit is less than
    :data:`VISIT_SPACING` of a pass ago; then the next unit that is far enough goes first (one
    always is). So the rounds of one unit lie at least half a pass apart, also across the boundary
    of two rounds, and a campaign stopped anywhere has as many rounds of every unit, give or take
    one. (A multi-platform plan's configurations of one input are no longer adjacent.)"""
    keyed = [(key(u), u) for u in units]
    spacing = int(VISIT_SPACING * len(keyed))
    last: dict[str, int] = {}  # unit key -> its position in the schedule
    out: list[tuple[T, int]] = []
    for r in range(1, rounds + 1):
        order = sorted(keyed, key=lambda ku: hashlib.sha256(f"{seed}:{r}:{ku[0]}".encode()).digest())
        while order:
            i = next((i for i, (k, _) in enumerate(order) if len(out) - last.get(k, -spacing) >= spacing), 0)
            k, unit = order.pop(i)
            last[k] = len(out)
            out.append((unit, r))
    return out


def round_label(values: Iterable[float | None]) -> float | None:
    """The label of one configuration's rounds (the mean, see :data:`FOLDED`); None when none has
    a value."""
    vals = [v for v in values if v is not None]
    return statistics.fmean(vals) if vals else None


def _spread(values: list[float | None]) -> float | None:
    """(max - min) / median of the rounds' values; None with fewer than two."""
    vals = [v for v in values if v is not None]
    if len(vals) < 2:
        return None
    mid = statistics.median(vals)
    return (max(vals) - min(vals)) / mid if mid > 0 else None


def fold(rows: list[dict]) -> dict:
    """One configuration's label row from its rounds' rows (each the best attempt of its round).

    Identity and provenance come from the first ok round; each column of :data:`FOLDED` is the
    mean over ok rounds; per-round values and the between-round spread are kept beside it.
    With no ok round, the most recent row stands as it is (its status says why)."""
    ok = sorted((r for r in rows if r["status"] == "ok"), key=round_of)
    if not ok:
        return max(rows, key=lambda r: r.get("measured_at_utc") or "")
    label = dict(ok[0])
    if len(ok) > 1:  # a single round stands as measured (bit for bit)
        for col in FOLDED:
            label[col] = round_label(r.get(col) for r in ok)
        if label.get("latency_median_ms") and label.get("batch_size"):
            label["throughput_samples_per_s"] = label["batch_size"] / (label["latency_median_ms"] / 1e3)
    cpu = [r.get("cpu_time_ms") for r in ok]
    wall = [r.get("latency_median_ms") for r in ok]
    label.update(n_rounds=len(ok), round_cpu_time_ms=cpu if any(v is not None for v in cpu) else None,
                 round_latency_ms=wall, cpu_time_round_spread=_spread(cpu),
                 latency_round_spread=_spread(wall), round=None,
                 gate_flagged=any(bool(r.get("gate_flagged")) for r in ok))
    return label
