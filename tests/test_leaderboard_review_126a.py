"""Hundred-and-twenty-sixth pass (2026-12-08), side a: the drawn plan's time per configuration was the source plan's.

Found: the keeper's draw (``python -m perfgraphs.collect.variants --source plans/dippm-cpu.yaml``, run by
``plans/hidden-round.sh prepare``) copied the source plan's ``timeout_s`` into the drawn plan as it was. The source
is a committed file whose campaign has ended (the public labels are measured), so a pull request may edit it
without any test failing (``test_gpu_plan_mirrors_the_cpu_plan`` pins its configurations, not its timeout). The
collector records a configuration that runs over its time as timed out, ``build-hidden`` keeps successful rows
only, and the board says nothing: the definition's ``left_out`` names whole architectures, and a round that lost a
fifth of its configurations would read "The round holds all 20 architectures its draw took." A pull request setting
``timeout_s: 600`` to ``timeout_s: 10``, nothing else touched, had the draw (the CLI, this repository's plans and
definitions) write ``timeout_s: 10`` into a plan of 120 configurations of 20 architectures, of which 23 of the 118
whose kind the public store holds run over 10 s in the ``dippm-cpu`` protocol's 7 runs alone there (their public
median over 1.43 s a run; densenet 224 px batch 16: 4.1 s): each would time out, and the round would keep the
faster configurations only (317 of the public store's 2,031 are so slow). On the public test part, scoring only
the configurations under 1.43 s reorders the board: ``dippm-sage (quick)`` 15.25 % -> 14.90 % MAPE goes from third
to second, ``roofline-sage (quick)`` 14.77 % -> 15.26 % from second to fourth, so whoever chose the round's
configurations chose its verified board's order. Now the drawn plan gives each configuration at least the public campaign's 600 s (``variants.round_timeout_s``); a longer
source timeout is kept.
"""

from __future__ import annotations

import yaml

from perfgraphs.collect import variants
from perfgraphs.collect.plan import load_plan

from test_hidden_variants import REPO

SOURCE = REPO / "plans" / "dippm-cpu.yaml"


def _shortened(tmp_path, seconds: int):
    """The pull request's source plan: ``plans/dippm-cpu.yaml`` with its ``timeout_s`` lowered, nothing else."""
    text = SOURCE.read_text()
    assert text.count("\ntimeout_s: 600\n") == 1
    source = tmp_path / "dippm-cpu.yaml"
    source.write_text(text.replace("\ntimeout_s: 600\n", f"\ntimeout_s: {seconds}\n"))
    return source


def _draw(tmp_path, source) -> set[float]:
    out = tmp_path / "keeper" / "round"
    assert variants.main(["--source", str(source), "--per-family", "5", "--out", str(out)]) == 0
    plan = out / "hidden-plan.yaml"
    assert load_plan(plan).configs
    return {c.timeout_s for c in load_plan(plan).configs} | {yaml.safe_load(plan.read_text())["timeout_s"]}


def test_a_shortened_source_timeout_gives_the_round_the_public_campaigns_time(tmp_path):
    assert _draw(tmp_path, _shortened(tmp_path, 10)) == {600}


def test_control_without_the_floor_the_round_times_out_at_the_pull_requests_10_s(tmp_path, monkeypatch):
    monkeypatch.setattr(variants, "round_timeout_s", lambda raw: raw.get("timeout_s", 300))
    assert _draw(tmp_path, _shortened(tmp_path, 10)) == {10}


def test_a_longer_source_timeout_is_kept_and_a_bad_one_reads_as_the_floor():
    assert variants.round_timeout_s({"timeout_s": 900}) == 900
    assert variants.round_timeout_s({"timeout_s": 300}) == variants.ROUND_TIMEOUT_S == 600
    for bad in (True, "5", float("nan"), -1, 0):
        assert variants.round_timeout_s({"timeout_s": bad}) == 600
    assert variants.round_timeout_s({}) == 600


def test_the_public_labels_hold_configurations_a_10_s_timeout_would_cut():
    """The numbers of the docstring: the public store's slow configurations (over 1 s a run, 7 runs at least)."""
    from perfgraphs.collect.protocols import get_protocol
    from perfgraphs.collect.store import load_measurements

    rows = [r for r in load_measurements(REPO / "data" / "measurements" / "dippm-cpu").to_pylist() if r["status"] == "ok"]
    protocol = get_protocol("dippm-cpu")
    runs = protocol.min_warmup_runs + protocol.min_timed_runs
    assert runs == 7 and sum(r["latency_median_ms"] * runs > 10_000 for r in rows) == 317 and len(rows) == 2031
