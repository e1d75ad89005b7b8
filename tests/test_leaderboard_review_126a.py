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

Found beside it, the same way in: the draw took the source's top-level ``mode``, ``protocol``, ``platforms`` and
``core``, and a group (or model) overrides those for its own configurations. A pull request that set
``plans/dippm-cuda.yaml``'s top-level ``mode`` to ``train`` and gave each of its groups ``mode: inference`` left
the public plan's 2,297 configuration keys as they were (``test_gpu_plan_mirrors_the_cpu_plan`` passes) and had
the draw (the CLI) write a plan of 120 configurations, every one a training step (forward and backward), which a GPU round
measures with no probe of the public labels and ``build-hidden`` reads as latency: every predictor of inference
latency would be scored against step times, and one committed before the draw that scaled its predictions up
would rank first; ``protocol: tiny`` so written cut every label to 3 timed runs. Now the draw is refused in one
line unless the drawn configurations' (mode, protocol, platform, core) are those the source's groups of the drawn
families measure (``variants.settings_not_measured``).
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


def _overridden(tmp_path, key: str, top: str, group: str):
    """The pull request's GPU source plan: a top-level ``key`` of ``top``, every group keeping ``group``."""
    text = (REPO / "plans" / "dippm-cuda.yaml").read_text()
    assert text.count(f"\n{key}: {group}\n") == 1
    text = text.replace(f"\n{key}: {group}\n", f"\n{key}: {top}\n").replace("\n- family: ", f"\n- {key}: {group}\n  family: ")
    source = tmp_path / "dippm-cuda.yaml"
    source.write_text(text)
    public = load_plan(REPO / "plans" / "dippm-cuda.yaml").configs
    assert sorted(c.key for c in load_plan(source).configs) == sorted(c.key for c in public) and len(public) == 2297
    return source


def test_a_top_level_mode_its_groups_override_is_refused_in_one_line(tmp_path, capsys):
    source = _overridden(tmp_path, "mode", "train", "inference")
    out = tmp_path / "keeper" / "round"
    assert variants.main(["--source", str(source), "--per-family", "5", "--out", str(out)]) == 1
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "its groups of the drawn families measure otherwise" in err
    assert not (out / "hidden-plan.yaml").exists()


def test_control_without_the_check_the_round_measures_training_steps(tmp_path, monkeypatch):
    monkeypatch.setattr(variants, "settings_not_measured", lambda public, drawn: None)
    source = _overridden(tmp_path, "mode", "train", "inference")
    out = tmp_path / "keeper" / "round"
    assert variants.main(["--source", str(source), "--per-family", "5", "--out", str(out)]) == 0
    configs = load_plan(out / "hidden-plan.yaml").configs
    assert len(configs) == 120 and {c.mode for c in configs} == {"train"}


def test_a_top_level_protocol_its_groups_override_is_refused_and_the_control_draws_it(tmp_path, monkeypatch):
    import pytest

    from perfgraphs.collect.errors import PlanError

    source = _overridden(tmp_path, "protocol", "tiny", "dippm")
    with pytest.raises(PlanError, match="measure otherwise"):
        variants.hidden_plan(source, 0, 5)
    monkeypatch.setattr(variants, "settings_not_measured", lambda public, drawn: None)
    drawn = load_plan_of(variants.hidden_plan(source, 0, 5))
    assert {(c.protocol.name, c.protocol.timed_runs) for c in drawn} == {("tiny", 3)}


def load_plan_of(doc: dict):
    from perfgraphs.collect.plan import parse_plan

    return parse_plan(doc, name=doc["suite"]).configs


def test_the_committed_sources_draw_as_their_groups_measure():
    for name in ("dippm-cuda.yaml", "dippm-cpu.yaml"):
        source = REPO / "plans" / name
        drawn = load_plan_of(variants.hidden_plan(source, 0, 5))
        assert {c.mode for c in drawn} == {"inference"} and {c.timeout_s for c in drawn} == {600}
