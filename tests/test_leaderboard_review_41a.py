"""Forty-first adversarial pass (2026-12-04), read side: the committed files a board quotes besides
its records (a noise probe under data/measurements/noise-floor/), read as data a pull request can
change."""

from __future__ import annotations

import json

import pytest


def _probe(folder, name: str, **changes) -> None:
    """A noise probe file as ``perfgraphs collect noise-floor`` writes one, with ``changes``."""
    doc = {"plan": "dippm-cpu", "core": 1, "probe": [{"model": "timm:resnet18", "round1_ms": 1.0, "round2_ms": 1.1}],
           "mape_raw_pct": 24.9, "mape_calibrated_pct": 13.2, **changes}
    (folder / name).write_text(json.dumps(doc))


def test_a_noise_probe_file_is_read_as_data_not_trusted(tmp_path, monkeypatch):
    """Attack: a pull request edits the dippm CPU noise probe (data/measurements/noise-floor/, outside
    the organisers' folder) that every dippm CPU latency board quotes: a plan of ``dippm-cpu[/bold]``
    stopped `leaderboard show` with "internal error: MarkupError" (the sentence was printed as rich
    markup, unlike every other caption line), ``"mape_raw_pct": "24.9"`` stopped `show` and `build`
    with "internal error: ValueError", and a plan holding a line break printed a line of its own
    under the board's table. Now the probe is checked when read (a suite's name, a list of
    configurations, finite MAPEs ≥ 0): a malformed one reads as one sentence saying the floor is not
    shown and why, and `show` prints the noise sentence escaped. Control: the file as written is
    quoted; without the check the malformed one stops the reader."""
    from perfgraphs import paths
    from perfgraphs.evaluation import label_noise
    from perfgraphs.registry import get_dataset

    cfg = get_dataset("perfgraphs/dippm").config("cpu-torch-fp32")
    monkeypatch.setattr(paths, "noise_floor_dir", lambda: tmp_path)
    name = cfg.noise_probe_file
    _probe(tmp_path, name)
    sentence, floor = label_noise.probe_floor(cfg, "latency_ms")
    assert floor == 24.9 and "dippm-cpu plan" in sentence
    for bad in ({"mape_raw_pct": "24.9"}, {"plan": "dippm-cpu[/bold]"}, {"plan": "dippm-cpu\n 1 | evil | verified"},
                {"mape_calibrated_pct": float("nan")}, {"probe": 3}):
        _probe(tmp_path, name, **bad)
        sentence, floor = label_noise.probe_floor(cfg, "latency_ms")
        assert floor is None and "not shown" in sentence and "\n" not in sentence and "[/" not in sentence, bad
    (tmp_path / name).write_bytes(b"\xff{")
    assert label_noise.probe_floor(cfg, "latency_ms")[1] is None

    # control: a reader that trusts the file, as before
    _probe(tmp_path, name, mape_raw_pct="24.9")
    monkeypatch.setattr(label_noise, "read_probe", lambda path: (json.loads(path.read_text()), ""))
    with pytest.raises(ValueError):
        label_noise.probe_floor(cfg, "latency_ms")
