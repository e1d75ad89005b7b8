"""Hundredth adversarial pass (2026-12-07), side b (hidden rounds: files the keeper's steps write and
unpack): a GPU round is measured on a device that copies the checkout, into
``data/measurements/<suite>-<gpu>`` (``plans/run-on-gpu.sh``; ``dippm-cuda-hidden-h200`` for the default
source plan, a path anyone can work out), and the collector resumes whatever store is there. A pull
request merged before the round that commits a store at that path (``campaign.json`` naming the hidden
suite, rows of eight public resnet configurations, three visits 1.0x / 1.6x / 1.0x apart) has those rows
archived with the round's by the device's ``tar czf`` and unpacked by ``hidden-round.sh finish``, which
read the store as the keeper's: ``build-hidden`` leaves the rows out (their names are public), but the
definition's noise floor is computed from every row of the store, and the hidden board would print the
writer's floor, 24.2 % MAPE between two visits, for the round's own 1.0 %. Now ``finish`` refuses, in
one line and before anything is written, a store holding a link or a configuration the drawn plan does
not measure (``hidden.round_store_problem``). Control: with that check switched off, ``finish`` goes on
to verify that store (it passes) and reaches ``build-hidden``, and the floor the definition computes
from it is the writer's.

Not found (run, not kept as tests): a committed ``.gitignore`` line ``!/.hidden/`` does override
``.git/info/exclude`` (the drawn plan shows as untracked), but the keeper adds only ``leaderboard/hidden``
and the plan holds names, no label; a committed link at ``leaderboard/hidden/<stem>.tmp`` has
``commit-hidden`` write the (public) hash through it and rename the link over the ``.sha256``, a visible
break of the round, no false verified record (and a change there is refused on review);
``PERFGRAPHS_HIDDEN_DIR`` unset (exit 1), relative or absolute inside the checkout (the script exits 2,
``keeper_dir`` refuses)."""

from __future__ import annotations

import os
import subprocess
import sys
import uuid

import yaml

from test_hidden_variants import REPO, SOURCE

SUITE = "dippm-cuda-hidden"  # variants.hidden_plan: the source plan's suite + "-hidden"
STORE = f"data/measurements/{SUITE}-h200"  # run-on-gpu.sh: data/measurements/${suite%-cuda}-<gpu>


def _drawn_plan() -> dict:
    raw = yaml.safe_load(SOURCE.read_text())
    return {"suite": SUITE, "description": "hidden structure variants", "mode": raw.get("mode", "inference"),
            "protocol": raw["protocol"], "platforms": raw["platforms"], "timeout_s": 300, "rounds": 3,
            "schedule": "visits", "groups": [{"family": "resnet", "models": [
                {"name": "timm:resnet26+layers=1x1x2x1", "input_sizes": [160], "batch_sizes": [1, 4]}]}]}


def _visits(store, template: dict, configs: list[dict], factors: tuple[float, ...]) -> None:
    """A campaign of three visits of each configuration, as the collector records it (its run in
    ``campaign.json``, its rows appended; the label's spread: ``factors``)."""
    campaign = uuid.uuid4().hex[:12]
    meta = store.metadata()
    store.save_metadata({**meta, "suite": SUITE, "runs": [*meta.get("runs", []), {"campaign_id": campaign}]})
    for c in configs:
        for visit, factor in enumerate(factors, start=1):
            store.append({**template, **c, "suite": SUITE, "plan_name": SUITE, "round": visit, "campaign_id": campaign,
                          "measurement_id": uuid.uuid4().hex, "latency_median_ms": c["latency_median_ms"] * factor})


def _device_archive(tmp_path, plan: dict):
    """The device's tree: the pull request's committed store at the device's path, the round measured
    into it (the collector resumes it), then run-on-gpu.sh's own archive line."""
    from perfgraphs import paths
    from perfgraphs.collect.plan import parse_plan
    from perfgraphs.collect.store import MeasurementStore

    device, out = tmp_path / "device", tmp_path / "files_at"
    out.mkdir()
    public = [r for r in MeasurementStore(paths.measurement_store("dippm-h200")).round_rows()
              if r["family"] == "resnet" and r["status"] == "ok"][:8]
    store = MeasurementStore(device / STORE)
    _visits(store, public[0], [{k: r[k] for k in ("key", "model", "image_size", "input", "batch_size",
                                                  "latency_median_ms")} for r in public], (1.0, 1.6, 1.0))
    drawn = [{"key": c.key, "model": c.model, "image_size": c.image_size, "input": c.input_label,
              "batch_size": c.batch_size, "latency_median_ms": 2.0, "structure_hash": None}
             for c in parse_plan(plan, name=SUITE).configs]
    _visits(store, public[0], drawn, (1.0, 1.01, 0.99))
    line = next(x for x in (REPO / "plans" / "run-on-gpu.sh").read_text().splitlines() if x.startswith("tar czf"))
    subprocess.run(["bash", "-c", line.split(" && ")[0]], cwd=device, check=True,
                   env={**os.environ, "out": str(out), "store": STORE})
    return out


def drawn_at(round_folder, checkout, commit: str | None = None) -> str:
    """What ``prepare`` writes beside the drawn plan: the commit the draw read (``checkout``'s HEAD, or
    ``commit``)."""
    commit = commit or subprocess.run(["git", "-C", str(checkout), "rev-parse", "HEAD"], capture_output=True,
                                      text=True, check=True).stdout.strip()
    (round_folder / "drawn-at-commit").write_text(commit + "\n")
    return commit


def _finish(tmp_path, keeper, files_at, pythonpath: str, checkout=REPO):
    stub = tmp_path / "perfgraphs-stub"
    # the real CLI verifies the store; the steps that write (build-hidden, commit-hidden) stop here
    stub.write_text(f'#!/bin/sh\n[ "$1" = collect ] && exec {sys.executable} -m perfgraphs "$@"\n'
                    'echo "reached: perfgraphs $*" >&2\nexit 3\n')
    stub.chmod(0o755)
    env = {**os.environ, "PERFGRAPHS_HIDDEN_DIR": str(keeper), "PYTHON": sys.executable, "PERFGRAPHS": str(stub),
           "PYTHONPATH": pythonpath}
    return subprocess.run(["bash", "plans/hidden-round.sh", "finish", str(files_at)], cwd=checkout, env=env,
                          capture_output=True, text=True, timeout=120)


def test_a_store_committed_at_the_devices_path_is_not_read_as_the_round(tmp_path):
    from perfgraphs.collect.floor import floor_of, store_floor
    from perfgraphs.collect.plan import parse_plan
    from perfgraphs.collect.store import MeasurementStore

    plan = _drawn_plan()
    keeper = tmp_path / "keeper"
    (keeper / "round-dippm-h200-torch-fp32").mkdir(parents=True)  # prepare: the drawn plan in the keeper's round
    (keeper / "round-dippm-h200-torch-fp32" / "hidden-plan.yaml").write_text(yaml.safe_dump(plan, sort_keys=False))
    drawn_at(keeper / "round-dippm-h200-torch-fp32", REPO)  # prepare: the commit the draw read (112c)
    files_at = _device_archive(tmp_path, plan)
    path = os.pathsep.join([str(REPO), os.environ.get("PYTHONPATH", "")])
    run = _finish(tmp_path, keeper, files_at, path)
    assert run.returncode == 2, run.stderr
    lines = run.stderr.strip().splitlines()
    assert len(lines) == 1 and "8 configuration(s) the drawn plan" in lines[0] and "timm:resnet" in lines[0], run.stderr
    assert "reached" not in run.stderr and not list(keeper.glob("*.parquet"))
    # control: the check switched off, finish reads the store as the round's: it verifies, and build-hidden is next
    off = tmp_path / "off"
    off.mkdir()
    (off / "sitecustomize.py").write_text("from perfgraphs.leaderboard.records import hidden\n"
                                          "hidden.round_store_problem = lambda store, plan: None\n")
    run = _finish(tmp_path, keeper, files_at, os.pathsep.join([str(off), path]))
    assert run.returncode == 3 and "reached: perfgraphs leaderboard build-hidden" in run.stderr, run.stderr
    store = keeper / "round-dippm-h200-torch-fp32" / STORE
    stated = store_floor(store, ("latency_ms",))["latency_ms"].mape_pct  # finish's definition: every row
    keys = {c.key for c in parse_plan(plan, name=SUITE).configs}
    own = floor_of([r for r in MeasurementStore(store).round_rows() if r["key"] in keys], "latency_ms").mape_pct
    assert round(own, 1) == 1.0 and round(stated, 1) == 24.2, (own, stated)
