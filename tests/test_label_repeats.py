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
    # the mean of 100, 110, 90 is 100, their sample standard deviation 10: standard error 10 / sqrt(3)
    assert found.mean_se_median_pct == pytest.approx(10 / 3 ** 0.5) and found.measurements == (3, 3)
    # control: visits equal to their label have no floor to show
    assert repeat_floor([[100.0, 100.0, 100.0]], "latency_ms").mape_pct == 0.0
    assert repeat_floor([[100.0], [7.0]], "latency_ms") is None  # nothing measured again


# (dataset, target, its store column, test rows, visits each test row has at least); llm's CPU
# config is cross-validated, so every row is a test row, and its campaign is under way (every row
# measured again at least once so far)
MEASURED_AGAIN = [("dippm", "latency_ms", "latency_median_ms", 300, 3),
                  ("trappm", "step_time_ms", "latency_median_ms", 199, 4),
                  ("llm", "latency_ms", "latency_median_ms", 377, 1)]


def _scored_rows(dataset, target):
    """The rows a board scores, in its order (a cross-validated board's: every row, fold by fold)."""
    from perfgraphs.evaluation.protocol import protocol_parts

    return protocol_parts(task(dataset, "cpu-torch-fp32", target))[1].test


def test_a_cross_validated_board_pairs_every_row_with_its_visits():
    """perfgraphs/llm's CPU config is cross-validated: its board scores every row, fold by fold, and
    its repetitions follow that order, under each of its protocols."""
    from dataclasses import replace

    from perfgraphs.evaluation.protocol import protocol_parts
    from perfgraphs.leaderboard.records.ranks import label_repetitions

    board = task("llm", "cpu-torch-fp32", "latency_ms")
    # control: without the store named, the rows are measured once
    assert label_repetitions(replace(board, config=replace(board.config, repeat_suite=None))) is None
    rows = _scored_rows("llm", "latency_ms")
    for protocol in board.config.split_protocols:
        found = label_repetitions(board, protocol=protocol)
        ordered = protocol_parts(board, protocol=protocol)[1].test
        assert len(found) == len(ordered) == len(rows) == 377
        assert list(found.labels) == list(ordered["latency_ms"]) and all(len(v) >= 2 for v in found.values)
        assert [v[0] for v in found.values] == list(ordered["latency_ms"])


@pytest.mark.parametrize(("dataset", "target", "column", "n_test", "n_visits"), MEASURED_AGAIN)
def test_test_labels_carry_their_visits(dataset, target, column, n_test, n_visits):
    ds = get_dataset(dataset)
    cfg = ds.config("cpu-torch-fp32")
    test = _scored_rows(dataset, target)
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
    found = label_repetitions(board)
    assert found is not None and len(found) >= n_test
    assert sum(len(r) >= 1 + n_visits for r in found.values) >= n_test
    assert list(found.labels) == [r[0] for r in found.values]  # the build's label is the first of its repetitions
    text, pct = labels_floor(board)
    assert "measured again" in text and f"**{pct:.1f} % MAPE**" in text
    # the floor is every visit, as measured, against its label
    ds = get_dataset(dataset)
    reps = repeat_values(ds, ds.config("cpu-torch-fp32"), target, list(_scored_rows(dataset, target)["measurement_id"]))
    apes = [abs(v - r[0]) / r[0] * 100 for r in reps for v in r[1:]]
    assert pct == pytest.approx(sum(apes) / len(apes))


@pytest.mark.parametrize(("dataset", "target", "column", "n_test", "n_visits"), MEASURED_AGAIN[:2])
def test_the_ranks_put_each_visit_on_the_labels_level(dataset, target, column, n_test, n_visits):
    """Each visit was one pass over the test part in one state of the host: the ranks divide its
    values by the pass's median ratio to the labels (recomputed here from the stores' files), so
    every pass sits at the labels' level, where as measured some passes ran 5-12 % faster."""
    import statistics

    from perfgraphs.leaderboard.records.ranks import label_repetitions

    cfg = get_dataset(dataset).config("cpu-torch-fp32")
    test = _scored_rows(dataset, target)
    own = {r["measurement_id"]: r["key"] for r in _parquet_rows(paths.measurement_store(cfg.suite) / cfg.platform,
                                                                ["measurement_id", "key"])}
    keys = [own[m] for m in test["measurement_id"]]
    labels = dict(zip(keys, test[target]))
    latest: dict[tuple[str, int], dict] = {}
    for r in sorted(_parquet_rows(paths.measurement_store(cfg.repeat_suite) / cfg.platform,
                                  ["key", "status", column, "round", "gate_flagged", "measured_at_utc"]),
                    key=lambda r: r["measured_at_utc"]):
        if r["status"] == "ok" and not r["gate_flagged"] and r["key"] in labels:
            latest[(r["key"], r["round"])] = r
    level = {n: statistics.median(r[column] / labels[k] for (k, m), r in latest.items() if m == n)
             for n in {n for _, n in latest}}
    assert max(abs(v - 1) for v in level.values()) > 0.05  # control: as measured, the passes sit apart
    found = label_repetitions(task(dataset, "cpu-torch-fp32", target))
    for i in (0, len(keys) // 3, len(keys) - 1):
        mine = sorted((n, r[column] / level[n]) for (k, n), r in latest.items() if k == keys[i])
        assert list(found.values[i][1:]) == pytest.approx([v for _, v in mine], rel=1e-9)
    on_scale = {n: statistics.median(found.values[i][1 + j] / found.labels[i] for i in range(len(keys))
                                     if len(found.values[i]) > 1 + j) for j, n in enumerate(sorted(level))}
    assert all(abs(v - 1) < 0.01 for v in on_scale.values())


def test_a_board_whose_labels_were_measured_once_has_no_repetitions():
    from perfgraphs.leaderboard.records.ranks import label_repetitions

    assert label_repetitions(task("dippm", "h200-torch-fp32", "latency_ms")) is None


def test_load_repetitions_as_the_readme_shows_it():
    """The README's snippet, executed as written; its rows against the two stores' values."""
    import re
    import statistics
    from pathlib import Path

    import perfgraphs
    from perfgraphs.data.repeats import NoRepetitionsError

    readme = (Path(__file__).resolve().parents[1] / "README.md").read_text()
    snippet = next(block for block in re.findall(r"```python\n(.*?)```", readme, re.S) if "load_repetitions" in block)
    namespace: dict = {"perfgraphs": perfgraphs}
    exec(compile(snippet, "README.md", "exec"), namespace)
    reps, test = namespace["reps"], namespace["test"]
    ds = get_dataset("dippm")
    cfg = ds.config("cpu-torch-fp32")
    scored = _scored_rows("dippm", "latency_ms")
    assert list(test["measurement_id"]) == list(scored["measurement_id"])  # the test part, in its order
    assert list(test["repetitions"]) == repeat_values(ds, cfg, "latency_ms", list(scored["measurement_id"]))
    for row in test.select(range(0, len(test), 50)):
        values, on_scale = row["repetitions"], row["repetitions_on_label_scale"]
        assert values[0] == on_scale[0] == row["latency_ms"] and row["n_repetitions"] == len(values) == len(on_scale) >= 4
        assert row["repetitions_mean"] == pytest.approx(statistics.fmean(on_scale))
        assert row["repetitions_std"] == pytest.approx(statistics.stdev(on_scale))
    # the training part was measured once: each row its label alone
    train = reps.filter(lambda r: r["split"] == "train")
    assert len(train) > 1000 and set(train["n_repetitions"]) == {1} and set(train["repetitions_std"]) == {None}
    # control: a config measured once says so in one typed line
    with pytest.raises(NoRepetitionsError, match="measured once"):
        perfgraphs.load_repetitions("perfgraphs/dippm", "h200-torch-fp32", "latency_ms")
    with pytest.raises(perfgraphs.PerfgraphsError, match="has no target 'energy_j'"):  # CPU energy: no RAPL
        perfgraphs.load_repetitions("perfgraphs/dippm", "cpu-torch-fp32", "energy_j")
