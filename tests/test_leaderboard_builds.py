"""The build a board ranks (``leaderboard/builds.json``) is the build a fresh clone produces, and
``check``/``submit`` say so, or say why not, in one line."""

from __future__ import annotations

import json

import pytest

from perfgraphs.leaderboard.records.builds import BUILDS_FILE, mismatch, read_pins
from perfgraphs.registry import task

# Rebuilt from this checkout in a fresh PERFGRAPHS_HOME (the two CPU boards' configs: minutes,
# not the GPU or external ones, which the same code path builds)
REBUILT = ("perfgraphs/dippm cpu-torch-fp32", "perfgraphs/trappm cpu-torch-fp32")


@pytest.mark.parametrize("key", REBUILT)
def test_a_fresh_build_is_the_pinned_build(key, tmp_path):
    from perfgraphs.evaluation.protocol import load_protocol

    pin = read_pins()[key]
    dataset, config = key.split(" ")
    target = next(iter(pin["test_n"]))
    data = load_protocol(dataset, config, tmp_path / "home")
    assert data.content_hash == pin["content_hash"], mismatch(task(dataset, config, target), data.content_hash,
                                                              data.generators)
    assert len(load_protocol(dataset, config, tmp_path / "home", target=target).test) == pin["test_n"][target]


def test_every_official_board_is_pinned_with_its_test_size():
    from perfgraphs.leaderboard.records.boards import BOARDS

    pins = read_pins()
    for board in BOARDS:
        pin = pins[f"{board.dataset} {board.config}"]
        assert len(pin["content_hash"]) == 64 and pin["test_n"][board.target] > 0
        assert "noise_floor" not in pin  # derived from the measurements where shown, never copied here


def test_a_build_other_than_the_boards_is_named_with_the_reason(tmp_path):
    pins = tmp_path / "builds.json"
    pins.write_text(json.dumps({"perfgraphs/dippm cpu-torch-fp32": {
        "content_hash": "a" * 64, "generators": {"pyarrow": "1.0", "torch": "2.14.1"}, "test_n": {}}}))
    board = task("perfgraphs/dippm", "cpu-torch-fp32", "latency_ms")
    why = mismatch(board, "b" * 64, {"pyarrow": "23.0", "torch": "2.14.1"}, pins)
    assert why.startswith("this checkout builds perfgraphs/dippm/cpu-torch-fp32 as bbbbbbbbbbbb but the board ranks "
                          "build aaaaaaaaaaaa") and "pyarrow 23.0 here vs 1.0 for the board" in why
    same = mismatch(board, "b" * 64, {"pyarrow": "1.0", "torch": "2.14.1"}, pins)
    assert "the sources differ" in same
    assert mismatch(board, "a" * 64, {}, pins) is None
    unpinned = task("perfgraphs/trappm", "cpu-torch-fp32", "step_time_ms")
    assert mismatch(unpinned, "b" * 64, {}, pins) is None  # nothing pinned


def test_submit_refuses_and_check_warns_on_another_build(tiny_labeled_home, tmp_path, monkeypatch, capsys):
    """The tiny home is a build of its own: with the board pinned to another, ``submit`` records
    nothing and says why in one line; ``check`` scores and warns."""
    import shutil

    from perfgraphs.cli import main

    monkeypatch.setenv("PERFGRAPHS_HOME", str(tiny_labeled_home))
    monkeypatch.setenv("MLFLOW_TRACKING_URI", f"sqlite:///{tmp_path / 'mlflow.db'}")
    results = tmp_path / "board" / "results"
    results.mkdir(parents=True)
    shutil.copyfile(BUILDS_FILE, results.parent / "builds.json")
    example = BUILDS_FILE.parent / "examples" / "ridge"
    board = ["--dataset", "dippm", "--config", "cpu-torch-fp32", "--target", "latency_ms", "--quick"]
    assert main(["submit", str(example), *board, "--results", str(results)]) == 1
    err = [line for line in capsys.readouterr().err.splitlines() if line.startswith("perfgraphs")]
    assert len(err) == 1 and "but the board ranks build" in err[0] and "would not be ranked" in err[0], err
    assert not any(results.iterdir()) and not (tmp_path / "mlflow.db").exists()
    assert main(["check", str(example), *board, "--seeds", "0", "--results", str(results)]) == 0
    err = capsys.readouterr().err
    assert "warning" in err and "not comparable with the board's" in err
