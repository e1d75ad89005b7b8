"""A hidden set is labelled on the hardware of its config's public labels (2026-12-04).

Sessions draw their machine: two 2-vCPU KVM guests both named "AMD EPYC" held different CPUs (the
public labels' with 512 KiB of L2 a core, another with 1 MiB and AVX-512; ``machine_tag`` told them
apart, nothing in the hidden round did). A round measured on the other one would score every
predictor on the machines' difference and read as verified."""

from __future__ import annotations

import subprocess
import sys

from perfgraphs import paths
from perfgraphs.collect.store import MeasurementStore, load_measurements
from perfgraphs.leaderboard.records import hidden
from perfgraphs.registry import get_dataset


def _public_rows(n: int = 3) -> list[dict]:
    table = load_measurements(paths.measurement_store("dippm-cpu"))
    return [r for r in table.slice(0, 200).to_pylist() if r["status"] == "ok"][:n]


def test_a_hidden_store_measured_on_another_machine_is_refused_in_one_line(tmp_path):
    """Attack (by accident as much as on purpose): ``hidden-round.sh measure`` run on a machine other
    than the public labels', its store handed to ``build-hidden``. Now refused in one line, exit 2,
    naming both machines, before anything is written to the keeper folder. Control: the public
    labels' own rows pass the check."""
    rows = _public_rows()
    foreign = MeasurementStore(tmp_path / "dippm-cpu-hidden-elsewhere")
    for r in rows:
        foreign.append({**r, "machine_id": "16998a49aaaaaaaa"})
    keeper = tmp_path / "keeper"
    keeper.mkdir()
    run = subprocess.run([sys.executable, "-m", "perfgraphs", "leaderboard", "build-hidden", str(foreign.root),
                          str(keeper), "--dataset", "dippm", "--config", "cpu-torch-fp32"],
                         capture_output=True, text=True, timeout=300)
    assert run.returncode == 2, run.stderr
    lines = run.stderr.strip().splitlines()
    assert len(lines) == 1 and "16998a49" in lines[0] and "23059b2f" in lines[0], run.stderr
    assert not list(keeper.iterdir())
    # control: rows of the public labels' machine are not refused by the check
    cfg = get_dataset("dippm").config("cpu-torch-fp32")
    assert hidden.foreign_hardware(cfg, rows) is None
    assert hidden.foreign_hardware(cfg, [*rows, {**rows[0], "machine_id": "16998a49aaaaaaaa"}]) is not None


def test_a_gpu_hidden_round_on_another_gpu_is_refused():
    """An H100 loan measuring the H200 config's hidden round: refused; the H200 is not."""
    cfg = get_dataset("dippm").config("h200-torch-fp32")
    row = {"device": "cuda", "gpu_name": "NVIDIA H100 80GB HBM3"}
    assert "H100" in hidden.foreign_hardware(cfg, [row])
    assert hidden.foreign_hardware(cfg, [{**row, "gpu_name": "NVIDIA H200"}]) is None
