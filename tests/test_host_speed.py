"""The probe of a machine's speed against its public labels' day (perfgraphs.collect.host_speed).

The hidden round of 2026-12-05 ran at 0.62x its public labels' latency and its latency board
scored that drift; a CPU round now probes first and refuses a day outside the band."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from perfgraphs import paths
from perfgraphs.collect.floor import TARGET_COLUMNS
from perfgraphs.collect.host_speed import PROBE_LATENCY_MS, host_speed, probe_plan
from perfgraphs.collect.plan import parse_plan
from perfgraphs.collect.store import MeasurementStore, load_measurements

COLUMN = TARGET_COLUMNS["latency_ms"]


@pytest.fixture(scope="module")
def public_rows() -> list[dict]:
    table = load_measurements(paths.measurement_store("dippm-cpu"))
    return [r for r in table.slice(0, 300).to_pylist() if r["status"] == "ok"]


def _probe(rows: list[dict], factors: list[float]) -> list[dict]:
    """Two visits of each row's configuration at ``factor`` x its label, 2 % either side (median: the factor)."""
    out = []
    for r, f in zip(rows, factors):
        for visit, wobble in ((1, 0.98), (2, 1.02)):
            out.append({**r, "round": visit, COLUMN: r[COLUMN] * f * wobble,
                        "measurement_id": f"visit{visit}-{r['measurement_id']}",
                        "measured_at_utc": f"2026-12-05T0{visit}:00:00+00:00"})
    return out


def test_ratio_quartiles_match_a_hand_computed_example(public_rows):
    """Five configurations at 0.6, 0.7, 0.8, 0.9 and 1.0x: median 0.8, quartiles 0.7 and 0.9; a
    failed row and a configuration the public store lacks change nothing."""
    rows = public_rows[:5]
    probe = _probe(rows, [0.6, 0.7, 0.8, 0.9, 1.0])
    extra = [{**rows[0], "status": "error", COLUMN: 1e6}, {**rows[1], "key": "not-a-public-key", COLUMN: 1e6}]
    speed = host_speed(probe + extra, public_rows)
    assert speed is not None
    assert (speed.configurations, speed.median_ratio, speed.q1_ratio, speed.q3_ratio) == (5, 0.8, 0.7, 0.9)
    assert speed.measured_from_utc.startswith("2026-12-05T01") and speed.measured_to_utc.startswith("2026-12-05T02")
    # control: without the public rows nothing compares
    assert host_speed(probe, []) is None


def test_probe_plan_is_fixed_public_and_spread_over_families():
    """The probe re-measures labelled public configurations of moderate latency, the same ones every
    time (rounds compare), several families, a plan the collector accepts."""
    source, public = paths.plans_dir() / "dippm-cpu.yaml", paths.measurement_store("dippm-cpu")
    plan = probe_plan(source, public)
    assert plan == probe_plan(source, public)
    parsed = parse_plan(plan, name=plan["suite"])
    labels = {r["key"]: r[COLUMN] for r in MeasurementStore(public).round_rows() if r["status"] == "ok"}
    assert len(parsed.configs) == 40 and parsed.rounds == 2
    assert all(PROBE_LATENCY_MS[0] <= labels[c.key] <= PROBE_LATENCY_MS[1] for c in parsed.configs)
    assert len({c.family for c in parsed.configs}) >= 8


def _store(path, rows):
    store = MeasurementStore(path)
    for r in rows:
        store.append(r)
    return store.root


def test_a_slow_day_is_refused_in_one_line_and_a_normal_day_passes(tmp_path, public_rows):
    """A day at 0.62x (the 2026-12-05 round's) exits 3 with one line; the same probe at 1.0x exits 0.
    Both write the definition's host_speed block."""
    rows = public_rows[:6]
    public = _store(tmp_path / "public", rows)
    for name, factor, code in (("slow", 0.62, 3), ("normal", 1.0, 0)):
        probe = _store(tmp_path / name, _probe(rows, [factor] * 6))
        out = tmp_path / f"{name}.json"
        run = subprocess.run([sys.executable, "-m", "perfgraphs.collect.host_speed", "ratio", str(probe),
                              "--public", str(public), "--out", str(out)], capture_output=True, text=True, timeout=120)
        assert run.returncode == code, run.stderr
        assert len(run.stderr.strip().splitlines()) == (1 if code else 0), run.stderr
        block = json.loads(out.read_text())["host_speed"]["latency_ms"]
        assert block["median_ratio"] == pytest.approx(factor) and block["configurations"] == 6
