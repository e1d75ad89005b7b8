"""A config's test labels measured again (issue 31): each label's repetitions are its own value and
its visits' values, read through the keys of the two stores; the boards resample them and the floor
of the test part is measured on them. Values are checked against the stores' Parquet read here with
pyarrow alone."""

from __future__ import annotations

import pyarrow.dataset as pads
import pytest

from perfgraphs import paths
from perfgraphs.data.repeats import repeat_floor, repeat_values
from perfgraphs.registry import get_dataset, task


def _parquet_rows(store, columns):
    """Every row of a store's files (shards and parts), each measurement once."""
    files = sorted(str(f) for f in store.rglob("*.parquet"))
    rows = pads.dataset(files, format="parquet").to_table(columns=["measurement_id", *columns]).to_pylist()
    return list({r["measurement_id"]: r for r in rows}.values())


def test_repeat_floor_of_known_values():
    # label 100, visits 110 and 90: each visit 10 % off the label; the second visit 18.2 % off the first
    found = repeat_floor([[100.0, 110.0, 90.0], [50.0]], "latency_ms")
    assert (found.n_configs, found.n_visits) == (1, 2)
    assert found.mape_pct == pytest.approx(10.0) and found.median_ape_pct == pytest.approx(10.0)
    assert found.visits_mape_pct == pytest.approx(20 / 110 * 100)
    # control: visits equal to their label have no floor to show
    assert repeat_floor([[100.0, 100.0, 100.0]], "latency_ms").mape_pct == 0.0
    assert repeat_floor([[100.0], [7.0]], "latency_ms") is None  # nothing measured again


# (dataset, target, its store column, test rows, visits each test row has at least)
MEASURED_AGAIN = [("dippm", "latency_ms", "latency_median_ms", 300, 3),
                  ("trappm", "step_time_ms", "latency_median_ms", 199, 4)]


@pytest.mark.parametrize(("dataset", "target", "column", "n_test", "n_visits"), MEASURED_AGAIN)
def test_test_labels_carry_their_visits(dataset, target, column, n_test, n_visits):
    from perfgraphs.data.load import load_dataset

    ds = get_dataset(dataset)
    cfg = ds.config("cpu-torch-fp32")
    test = load_dataset(ds.name, cfg.name, split="test")
    values = repeat_values(ds, cfg, target, list(test["measurement_id"]))
    assert len(values) == len(test) >= n_test
    # the first repetition is the label the board scores
    assert [v[0] for v in values] == pytest.approx(list(test[target]), rel=0, abs=0)
    assert sum(len(v) >= 1 + n_visits for v in values) >= n_test  # the label and its visits
    # independent read: the visits of one test configuration, straight from the two stores' files
    own = {r["measurement_id"]: r["key"] for r in _parquet_rows(paths.measurement_store(cfg.suite) / cfg.platform,
                                                                ["measurement_id", "key"])}
    latest: dict[tuple[str, int], dict] = {}  # a re-queued round: its most recent ok attempt stands
    for r in sorted(_parquet_rows(paths.measurement_store(cfg.repeat_suite) / cfg.platform,
                                  ["key", "status", column, "round", "gate_flagged", "measured_at_utc"]),
                    key=lambda r: r["measured_at_utc"]):
        if r["status"] == "ok":
            latest[(r["key"], r["round"])] = r
    for i in (0, len(test) // 2, len(test) - 1):
        key = own[test[i]["measurement_id"]]
        mine = sorted((rnd, r[column]) for (k, rnd), r in latest.items() if k == key and not r["gate_flagged"])
        assert len(mine) >= n_visits and values[i][1:] == [v for _, v in mine]
    # memory has repetitions too; a target no CPU store measures (energy: no RAPL) has none
    assert len(repeat_values(ds, cfg, "peak_memory_mb", list(test["measurement_id"]))[0]) >= 2
    assert repeat_values(ds, cfg, "energy_j", list(test["measurement_id"])) is None


def test_calibrated_visits_are_put_on_the_labels_baseline():
    """Two campaigns calibrate against their own first reference measurement (18.4 and 14.6 ms
    here): a visit's calibrated latency is rescaled by the ratio of the two rows' baselines, and the
    rescaled visits then lie near their label (a median 1.06x; unscaled they would sit at 0.85x)."""
    import statistics

    from perfgraphs.data.load import load_dataset

    ds = get_dataset("dippm")
    cfg = ds.config("cpu-torch-fp32")
    test = load_dataset(ds.name, cfg.name, split="test")
    ids = list(test["measurement_id"])
    values = repeat_values(ds, cfg, "latency_calibrated_ms", ids)
    assert [v[0] for v in values] == list(test["latency_calibrated_ms"])
    own = {r["measurement_id"]: r for r in _parquet_rows(paths.measurement_store(cfg.suite) / cfg.platform,
                                                         ["key", "ref_baseline_ms"])}
    again = {r["key"]: r for r in _parquet_rows(paths.measurement_store(cfg.repeat_suite) / cfg.platform,
                                                ["key", "round", "status", "latency_calibrated_ms", "ref_baseline_ms"])
             if r["round"] == 1 and r["status"] == "ok"}
    row, visit = own[ids[0]], again[own[ids[0]]["key"]]
    assert row["ref_baseline_ms"] != visit["ref_baseline_ms"]
    assert values[0][1] == pytest.approx(visit["latency_calibrated_ms"] * row["ref_baseline_ms"] / visit["ref_baseline_ms"])
    ratios = [statistics.median(v[1:]) / v[0] for v in values if len(v) > 1]
    assert 0.9 < statistics.median(ratios) < 1.15  # unscaled: 0.85; scaled the wrong way: 0.67


@pytest.mark.parametrize(("dataset", "target", "column", "n_test", "n_visits"), MEASURED_AGAIN)
def test_boards_resample_the_visits_and_state_their_floor(dataset, target, column, n_test, n_visits):
    from perfgraphs.evaluation.label_noise import labels_floor
    from perfgraphs.leaderboard.records.ranks import label_repetitions

    board = task(dataset, "cpu-torch-fp32", target)
    reps = label_repetitions(board)
    assert reps is not None and len(reps) >= n_test and sum(len(r) >= 1 + n_visits for r in reps) >= n_test
    text, pct = labels_floor(board)
    assert "measured again" in text and f"**{pct:.1f} % MAPE**" in text
    # the floor is every visit against its label, recomputed here from the repetitions
    apes = [abs(v - r[0]) / r[0] * 100 for r in reps for v in r[1:]]
    assert pct == pytest.approx(sum(apes) / len(apes))


def test_a_board_whose_labels_were_measured_once_has_no_repetitions():
    from perfgraphs.leaderboard.records.ranks import label_repetitions

    assert label_repetitions(task("dippm", "h200-torch-fp32", "latency_ms")) is None
