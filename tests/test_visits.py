"""Repeated labels for a board's test part (issue 31): the visits schedule, the plan generator of a
config's part, the split-half agreement of a store's rounds.

The generator is checked against the test part as the dataset loader serves it (its rows'
structure ids and batch sizes, not the store rows the generator maps them through), the agreement
against values worked out by hand.
"""

from __future__ import annotations

import json
import statistics
import subprocess
import sys
from pathlib import Path

import pyarrow.dataset as pads
import pytest
import yaml

from perfgraphs.collect.campaign import CampaignOptions, prepare_campaign, run_campaign
from perfgraphs.collect.errors import PlanError
from perfgraphs.collect.floor import split_half_of
from perfgraphs.collect.plan import load_plan, parse_plan
from perfgraphs.collect.rounds import VISIT_SPACING, blocks, schedule, visits
from perfgraphs.collect.store import MeasurementStore

REPO = Path(__file__).resolve().parents[1]
VISITS_PLAN = REPO / "plans" / "dippm-cpu-test-visits.yaml"
SOURCE_STORE = REPO / "data" / "measurements" / "dippm-cpu"


def _plan(schedule_kind: str | None = None, rounds: int = 3, sizes=(32, 40, 48), batches=(1, 2, 4)) -> dict:
    data = {"suite": "t-visits", "protocol": "tiny", "platforms": ["cpu-torch-fp32"], "timeout_s": 120, "core": 0,
            "rounds": rounds, "groups": [{"family": "resnet", "models": ["timm:resnet10t"],
                                          "input_sizes": list(sizes), "batch_sizes": list(batches)}]}
    if schedule_kind is not None:
        data["schedule"] = schedule_kind
    return data


# -- the visits schedule ---------------------------------------------------------------------------


def test_visits_are_shuffled_passes_over_all_units():
    units = [f"u{i:02d}" for i in range(40)]
    jobs = visits(units, 4, "suite-a")
    assert len(jobs) == 4 * len(units)
    passes = [[u for u, r in jobs[i * 40:(i + 1) * 40]] for i in range(4)]
    assert all(r == i + 1 for i in range(4) for _, r in jobs[i * 40:(i + 1) * 40])  # round r is pass r
    assert all(sorted(p) == units for p in passes)  # each a permutation of all the units
    assert len({tuple(p) for p in passes}) == 4 and passes[0] != units  # shuffled, differently per round
    # deterministic, whatever order the units come in; another suite draws other orders
    assert visits(list(reversed(units)), 4, "suite-a") == jobs == schedule(units, 4, kind="visits", seed="suite-a")
    assert visits(units, 4, "suite-b") != jobs
    # two visits of one unit lie at least half a pass apart, across round boundaries too
    last, gaps = {}, []
    for i, (u, _) in enumerate(jobs):
        if u in last:
            gaps.append(i - last[u])
        last[u] = i
    assert min(gaps) >= int(VISIT_SPACING * len(units)) == 20


def test_a_plan_without_schedule_keeps_the_blocks(tmp_path):
    """The control: existing plans (no ``schedule`` key) are ordered exactly as before."""
    units = [f"u{i:02d}" for i in range(50)]
    assert schedule(units, 2) == blocks(units, 2)
    assert schedule(units, 2)[:72] == [(u, r) for r in (1, 2) for u in units[:24]] + [(u, 1) for u in units[24:48]]
    for kind, expected in ((None, "blocks"), ("blocks", "blocks"), ("visits", "visits")):
        plan = parse_plan(_plan(kind), "t")
        assert plan.schedule == expected
        out = tmp_path / str(kind)
        state = prepare_campaign(plan, CampaignOptions(out=out), MeasurementStore(out), dry_run=True)
        if expected == "blocks":
            assert state.jobs == blocks(plan.configs, plan.rounds)
        else:
            assert state.jobs == visits(plan.configs, plan.rounds, plan.suite, key=lambda c: c.key)
            assert [sorted(c.key for c, r in state.jobs if r == k) for k in (1, 2, 3)] == \
                [sorted(c.key for c in plan.configs)] * 3


def test_a_bad_schedule_is_one_plan_error_line(tmp_path):
    with pytest.raises(PlanError) as err:
        parse_plan(_plan("shuffled"), "t")
    assert str(err.value) == "t: schedule must be one of blocks, visits, got 'shuffled'"
    path = tmp_path / "bad.yaml"
    path.write_text(yaml.safe_dump(_plan("visit")))
    result = subprocess.run([sys.executable, "-m", "perfgraphs", "collect", str(path), "--dry-run"],
                            capture_output=True, text=True, cwd=tmp_path)
    assert result.returncode != 0 and "Traceback" not in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1 and "schedule must be one of blocks, visits" in result.stderr


def test_a_tiny_visits_campaign_measures_in_schedule_order_and_verify_prints_the_halves(tmp_path):
    plan = parse_plan(_plan("visits", rounds=4, sizes=(32,), batches=(1, 2)), "t")
    out = tmp_path / "store"
    store = MeasurementStore(out)
    opts = CampaignOptions(out=out, quiet_wait_s=0.0)
    state = prepare_campaign(plan, opts, store)
    written = []
    run_campaign(plan, opts, state, store, notify=lambda _m: None,
                 on_result=lambda c, row, _s: written.append((c.key, row["round"])))
    assert written == [(c.key, r) for c, r in state.jobs] and len(written) == 8
    rows = store.round_rows()
    assert sorted((r["key"], r["round"]) for r in rows) == sorted(written)
    assert all(r["status"] == "ok" for r in rows)
    verify = subprocess.run([sys.executable, "-m", "perfgraphs", "collect", "verify", str(out)],
                            capture_output=True, text=True)
    assert verify.returncode == 0, verify.stderr
    half = split_half_of(rows, "latency_ms")
    assert half.n_configs == 2 and split_half_of(MeasurementStore(out).round_rows(), "latency_ms") == half
    assert (f"split-half agreement latency_ms: median {half.median_pct:.2f} %, mean {half.mean_pct:.2f} % "
            f"between the labels (each the mean of its rounds) of the odd and the even rounds (n=2)") in verify.stdout


# -- split-half agreement ------------------------------------------------------------------------


def _row(key, rnd, ms, status="ok", **extra):
    return {"key": key, "round": rnd, "status": status, "latency_median_ms": ms, **extra}


def test_split_half_against_hand_computed_values():
    rows = [
        # odd rounds 10, 11 -> 10.5; even 12, 13 -> 12.5: 19.048 %
        *(_row("a", r, v) for r, v in ((1, 10.0), (2, 12.0), (3, 11.0), (4, 13.0))),
        # odd 20, 18 -> 19; even 22: 15.789 %
        *(_row("b", r, v) for r, v in ((1, 20.0), (2, 22.0), (3, 18.0))),
        _row("c", 1, 100.0), _row("c", 2, 101.0),  # 1 %
        # three rounds a half: odd 10, 10, 16 -> mean 12 (median 10); even 12 x 3 -> 12: 0 % (median: 20 %)
        *(_row("h", r, v) for r, v in ((1, 10.0), (2, 12.0), (3, 10.0), (4, 12.0), (5, 16.0), (6, 12.0))),
        _row("d", 1, 5.0), _row("d", 3, 6.0),  # odd rounds only: no even half
        _row("e", 1, 5.0), _row("e", 2, 9.0, gate_flagged=True),  # the flagged round does not count
        _row("f", 1, 5.0), _row("f", 2, None, status="error"),  # nor a failed one
        _row("g", 3, 7.0), _row("g", 4, 7.0, status="oom"),
    ]
    half = split_half_of(rows, "latency_ms")
    diffs = [2 / 10.5 * 100, 3 / 19 * 100, 1.0, 0.0]
    assert half.target == "latency_ms" and half.n_configs == 4
    assert half.median_pct == pytest.approx(statistics.median(diffs)) == pytest.approx(8.395, abs=1e-3)
    assert half.mean_pct == pytest.approx(sum(diffs) / 4) == pytest.approx(8.959, abs=1e-3)
    assert split_half_of(rows, "cpu_time_ms") is None  # no values of it
    assert split_half_of([_row("a", 1, 1.0)], "latency_ms") is None


def test_split_half_with_each_rounds_level_taken_out():
    from perfgraphs.collect.floor import round_levels

    # round 2 ran at twice the speed of round 1 on every configuration: as measured the halves are
    # 100 % apart; each round on its level (1/1.5 and 2/1.5 of the configurations' means) they agree
    rows = [_row("a", 1, 10.0), _row("a", 2, 20.0), _row("b", 1, 100.0), _row("b", 2, 200.0),
            _row("c", 1, 40.0), _row("c", 2, 100.0)]
    levels = round_levels(rows, "latency_ms")
    assert levels[1] == pytest.approx(2 / 3) and levels[2] == pytest.approx(4 / 3)  # c: 40/70, 100/70 off the median
    raw = split_half_of(rows, "latency_ms")
    assert raw.median_pct == pytest.approx(100.0)
    level = split_half_of(rows, "latency_ms", levels)
    # a and b agree exactly; c's own difference stays: (100/(4/3)) / (40/(2/3)) - 1 = 25 %
    assert level.median_pct == pytest.approx(0.0) and level.mean_pct == pytest.approx(25 / 3)
    assert round_levels([_row("a", 1, 10.0)], "latency_ms") == {}  # one round: no mean to compare with


# -- the plan of a config's test part ------------------------------------------------------------


def _needs_sources():
    if not SOURCE_STORE.is_dir() or not VISITS_PLAN.is_file():
        pytest.skip("no dippm-cpu store or visits plan in this checkout")


def test_the_visits_plan_is_exactly_the_boards_test_part():
    _needs_sources()
    import perfgraphs
    from perfgraphs.pool.structures import structure_id

    plan = load_plan(VISITS_PLAN)
    source = load_plan(REPO / "plans" / "dippm-cpu.yaml")
    test = perfgraphs.load_dataset("perfgraphs/dippm", "cpu-torch-fp32", split="test")
    wanted = sorted(zip(test["structure_id"], test["batch_size"]))
    got = sorted((structure_id(c.model, c.image_size, c.seq_len), c.batch_size) for c in plan.configs)
    assert got == wanted and len(got) == len(test) == 311
    assert plan.suite == "dippm-cpu-test-visits" and plan.rounds == 6 and plan.schedule == "visits"
    assert {(c.protocol, c.platform, c.mode, c.core) for c in plan.configs} == \
        {(c.protocol, c.platform, c.mode, c.core) for c in source.configs}
    stored = set(MeasurementStore(SOURCE_STORE).read().column("key").to_pylist())
    assert {c.key for c in plan.configs} <= stored  # every key is the key of the row it measures again
    assert {c.key for c in plan.configs} <= {c.key for c in source.configs}


def test_the_generator_writes_the_committed_plan():
    _needs_sources()
    from perfgraphs.data import visits_plan as plangen_visits

    plan, facts = plangen_visits.build("perfgraphs/dippm", "cpu-torch-fp32", "test", 6)
    assert plan == yaml.safe_load(VISITS_PLAN.read_text())
    assert facts["rows"] == 311 and facts["suite"] == "dippm-cpu"
    text = plangen_visits.render(plan, facts, "cmd")
    assert yaml.safe_load(text) == plan and "Size: 311 configurations x 6 visits = 1,866 measurements" in text


@pytest.mark.parametrize("dataset, part, plan_file, rows", [
    ("perfgraphs/trappm", "test", "trappm-cpu-test-visits.yaml", 199),
    # cross-validated: every row is a test row of one fold, so the whole config is measured again
    ("perfgraphs/llm", "all", "llm-cpu-all-visits.yaml", 377)])
def test_the_other_cpu_boards_plans_are_their_rows_and_what_the_generator_writes(dataset, part, plan_file, rows):
    import perfgraphs
    from perfgraphs.data import visits_plan as plangen_visits
    from perfgraphs.data.build import measurement_root
    from perfgraphs.registry import get_dataset

    committed = REPO / "plans" / plan_file
    ds = get_dataset(dataset)
    cfg = ds.config("cpu-torch-fp32")
    if not committed.is_file() or not measurement_root(ds, cfg).is_dir():
        pytest.skip("no source store or visits plan in this checkout")
    plan, facts = plangen_visits.build(dataset, "cpu-torch-fp32", part, 4)
    assert plan == yaml.safe_load(committed.read_text()) and facts["rows"] == rows
    # independent: the keys of the served rows, read from the store's Parquet files by measurement_id
    served = perfgraphs.load_dataset(dataset, "cpu-torch-fp32")
    ids = {i for name, split in served.items() if part == "all" or name == part for i in split["measurement_id"]}
    files = sorted(str(f) for f in measurement_root(ds, cfg).rglob("*.parquet"))
    keys = {r["key"] for r in pads.dataset(files, format="parquet").to_table(columns=["measurement_id", "key"]).to_pylist()
            if r["measurement_id"] in ids}
    assert len(ids) == rows and {c.key for c in load_plan(committed).configs} == keys
    # control: a cross-validated config has no test part to name
    if part == "all":
        from perfgraphs.errors import PerfgraphsError

        with pytest.raises(PerfgraphsError, match="no split 'test'"):
            plangen_visits.build(dataset, "cpu-torch-fp32", "test", 4)


def test_cut_plan_keeps_exactly_the_keys_and_refuses_others():
    from perfgraphs.data.visits_plan import cut_plan

    source = _plan(rounds=1)
    configs = parse_plan(source, "t").configs
    picked = {(32, 1), (32, 4), (40, 1), (40, 4), (48, 2)}
    chosen = {c.key for c in configs if (c.image_size, c.batch_size) in picked}
    cut = cut_plan(source, chosen, "t-cut")
    assert {c.key for c in parse_plan(cut, "t-cut").configs} == chosen
    assert [(m["input_sizes"], m["batch_sizes"]) for m in cut["groups"][0]["models"]] == [([32, 40], [1, 4]), ([48], [2])]
    with pytest.raises(PlanError, match="1 not in the source plan"):
        cut_plan(source, chosen | {"0" * 20}, "t-cut")
    from perfgraphs.data.visits_plan import build

    with pytest.raises(PlanError, match="--visits must be from 2 to 10"):
        build("perfgraphs/dippm", "cpu-torch-fp32", visits=1)


def test_no_dataset_reads_the_visits_store(tmp_path):
    """The store measures rows a dataset already has again: store discovery skips it."""
    from perfgraphs.data.platforms import dataset_stores

    for name, suite in (("dippm-cpu-test-visits-amd-epyc-23059b2f", "dippm-cpu-test-visits"), ("other", "other")):
        (tmp_path / name / "cpu-torch-fp32").mkdir(parents=True)
        (tmp_path / name / "campaign.json").write_text(json.dumps({"suite": suite}))
    assert [p.name for p in dataset_stores(tmp_path)] == ["other"]
