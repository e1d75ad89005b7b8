"""The hundredth pass's lead, closed (2026-12-07): a store committed at the device's store path that holds
ONLY configurations the drawn plan measures passes ``hidden.round_store_problem``'s plan check, and the
device's collector skips those configurations as finished: the round's labels are the commit's. A writer
guesses the draw (a family whose every remaining structure it measured, or luck), commits rows of them at
``data/measurements/dippm-cuda-hidden-h200`` with the labels it wants, and ``finish`` reads them as the
keeper's. Now ``finish`` refuses a store whose path any commit of the main line ever held
(``hidden.committed_at_device_path``: the keeper's own stores are never committed). Control: that check off,
``finish`` verifies the writer's rows and reaches ``build-hidden`` with the writer's labels."""

from __future__ import annotations

import os
import shutil
import subprocess

import yaml

from test_hidden_variants import REPO
from test_leaderboard_review_100b import STORE, SUITE, _drawn_plan, _finish, _visits, drawn_at

WRITERS_MS = 2.0


def _checkout_with_a_guessed_store(tmp_path, plan: dict):
    """A clone of the repository whose main line holds a store at the device's path, of the drawn plan's own
    configurations at the writer's labels; the device's archive of it (nothing left to measure)."""
    from perfgraphs import paths
    from perfgraphs.collect.plan import parse_plan
    from perfgraphs.collect.store import MeasurementStore

    clone = tmp_path / "checkout"
    subprocess.run(["git", "clone", "-q", "--shared", str(REPO), str(clone)], check=True)
    for code in ("perfgraphs", "plans"):  # the code under test as it is here, committed or not (the script's
        shutil.copytree(REPO / code, clone / code, dirs_exist_ok=True)  # Python imports the checkout's package)
    template = next(r for r in MeasurementStore(paths.measurement_store("dippm-h200")).round_rows()
                    if r["family"] == "resnet" and r["status"] == "ok")
    guessed = [{"key": c.key, "model": c.model, "image_size": c.image_size, "input": c.input_label,
                "batch_size": c.batch_size, "latency_median_ms": WRITERS_MS, "structure_hash": None}
               for c in parse_plan(plan, name=SUITE).configs]
    _visits(MeasurementStore(clone / STORE), template, guessed, (1.0, 1.0, 1.0))
    git = ["git", "-C", str(clone), "-c", "user.name=w", "-c", "user.email=w@x"]
    subprocess.run([*git, "add", "-f", STORE], check=True)
    subprocess.run([*git, "commit", "-q", "-m", "a sweep of resnet variants"], check=True)
    out = tmp_path / "files_at"
    out.mkdir()
    line = next(x for x in (REPO / "plans" / "run-on-gpu.sh").read_text().splitlines() if x.startswith("tar czf"))
    subprocess.run(["bash", "-c", line.split(" && ")[0]], cwd=clone, check=True,
                   env={**os.environ, "out": str(out), "store": STORE})
    return clone, out


def test_a_committed_store_of_the_drawn_configurations_is_not_the_round(tmp_path):
    from perfgraphs.collect.store import MeasurementStore

    plan = _drawn_plan()
    keeper = tmp_path / "keeper"
    (keeper / "round-dippm-h200-torch-fp32").mkdir(parents=True)
    (keeper / "round-dippm-h200-torch-fp32" / "hidden-plan.yaml").write_text(yaml.safe_dump(plan, sort_keys=False))
    clone, files_at = _checkout_with_a_guessed_store(tmp_path, plan)
    drawn_at(keeper / "round-dippm-h200-torch-fp32", clone)  # the store was merged before the draw
    path = os.environ.get("PYTHONPATH", "")
    run = _finish(tmp_path, keeper, files_at, path, checkout=clone)
    assert run.returncode == 2, run.stderr
    lines = run.stderr.strip().splitlines()
    assert len(lines) == 1 and f"{STORE} was committed in the repository" in lines[0], run.stderr
    assert "reached" not in run.stderr

    off = tmp_path / "off"  # control: the plan check alone, as the hundredth pass left it
    off.mkdir()
    (off / "sitecustomize.py").write_text("from perfgraphs.leaderboard.records import hidden\n"
                                          "hidden.committed_at_device_path = lambda name, repo=None: None\n")
    run = _finish(tmp_path, keeper, files_at, os.pathsep.join([str(off), path]), checkout=clone)
    assert run.returncode == 3 and "reached: perfgraphs leaderboard build-hidden" in run.stderr, run.stderr
    rows = MeasurementStore(keeper / "round-dippm-h200-torch-fp32" / STORE).round_rows()
    assert rows and {r["latency_median_ms"] for r in rows} == {WRITERS_MS}  # the round's labels: the writer's
