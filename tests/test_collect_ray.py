"""The --ray route against a real Ray cluster on this machine (issue 17).

``ray.cluster_utils.Cluster`` starts real node processes (a GCS and a raylet per node, each with its
own Ray workers); the driver is ``perfgraphs collect PLAN --ray ADDRESS`` in a subprocess, killed and
resumed as an operator's would be. Two custom-resource sets stand in for two platforms: the head
offers ``cpu-torch-fp32`` on one core, the second node ``cpu-torch-bf16`` on another, so where a row
was measured is checked, not assumed. The nodes bind to this machine's own address (Ray 2.60 turns
a 127.0.0.1 bootstrap address into the machine's address, so a loopback-only cluster cannot be
joined by a driver); everything still runs on this machine.

The hardware probe is seeded (as in test_collect_lifecycle) where it is not what a test is about:
it costs tens of seconds per platform on a 2-core machine.
"""

from __future__ import annotations

import collections
import contextlib
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest
import yaml

ray = pytest.importorskip("ray", reason="Ray is not installed (pip install -e '.[ray]'): the --ray route is not tested")
from ray._private import ray_constants  # noqa: E402
from ray.cluster_utils import Cluster  # noqa: E402

from perfgraphs.collect.errors import PlatformUnavailableError  # noqa: E402
from perfgraphs.collect.environment import machine_id  # noqa: E402
from perfgraphs.collect.plan import load_plan  # noqa: E402
from perfgraphs.collect.raycluster import (CORE_RESOURCE, CPU_SLOTS, MACHINE_RESOURCE,  # noqa: E402
                                           PLATFORM_RESOURCE, node_resources)
from perfgraphs.collect.store import MeasurementStore  # noqa: E402

REPO = Path(__file__).resolve().parents[1]
ALLOWED = sorted(os.sched_getaffinity(0))
HEAD_CORE, B_CORE = ALLOWED[0], ALLOWED[-1]
# a dead node is declared dead after ~2 s instead of ~15 s
FAST_HEALTH = {"health_check_period_ms": 500, "health_check_failure_threshold": 4,
               "health_check_initial_delay_ms": 0}


@pytest.fixture(scope="module")
def cluster():
    try:
        c = Cluster(initialize_head=True, head_node_args={
            "num_cpus": 1, "resources": node_resources(["cpu-torch-fp32"], [HEAD_CORE]),
            "include_dashboard": False, "_system_config": FAST_HEALTH})
    except Exception as exc:  # a machine whose network or limits keep Ray's GCS from starting
        pytest.skip(f"no local Ray cluster can start on this machine: {type(exc).__name__}: {str(exc)[:200]}")
    yield c
    c.shutdown()


def b_resources() -> dict:
    return node_resources(["cpu-torch-bf16"], [B_CORE])


def kill_node(cluster, node) -> None:
    """The node's machine dies: its raylet and every worker process under it at once (SIGKILL).

    ``Cluster.remove_node`` alone kills the raylet but leaves its workers orphaned for a moment;
    a running task of a few hundred ms then finishes and its result still reaches the driver, so
    nothing is lost and the test measured the race instead of the driver (it failed that way on a
    quiet machine and in CI)."""
    import psutil

    raylet = psutil.Process(node.all_processes[ray_constants.PROCESS_TYPE_RAYLET][0].process.pid)
    for proc in raylet.children(recursive=True):
        with contextlib.suppress(psutil.NoSuchProcess):
            proc.kill()
    cluster.remove_node(node, allow_graceful=False)


def write_plan(path: Path, platforms: list[str], groups: list[dict], **top) -> Path:
    path.write_text(yaml.safe_dump({"suite": "t", "protocol": "tiny", "platforms": platforms,
                                    "timeout_s": 120, **top, "groups": groups}))
    return path


def seeded(root: Path, platforms: list[str]) -> MeasurementStore:
    store = MeasurementStore(root)
    store.save_metadata({"suite": "t", "ref_baseline_ms": {"cpu": 20.0}})
    for p in platforms:
        store.save_hardware(p, {"peak_gflops_measured": 50.0, "machine_id": machine_id()})
    return store


def collect(*args: str, timeout: float = 400, **kwargs) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "perfgraphs", "collect", *args], cwd=REPO,
                          capture_output=True, text=True, timeout=timeout, **kwargs)


def wait_for(predicate, timeout_s: float, what: str, log: Path | None = None):
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        found = predicate()
        if found:
            return found
        time.sleep(0.5)
    raise AssertionError(f"timed out waiting for {what}" + (f"; driver log:\n{log.read_text()[-3000:]}" if log else ""))


def test_node_resources_come_from_this_machine():
    res = node_resources(["cpu-torch-fp32"], [HEAD_CORE])
    assert res == {f"{PLATFORM_RESOURCE}cpu-torch-fp32": 1.0, f"{MACHINE_RESOURCE}{machine_id()}": 1.0,
                   CPU_SLOTS: 1.0, f"{CORE_RESOURCE}{HEAD_CORE}": 1.0}
    import torch

    if not torch.cuda.is_available():  # a platform this machine cannot run is not offered
        with pytest.raises(PlatformUnavailableError):
            node_resources(["cuda-torch-fp32"])
        assert not any("cuda" in k for k in node_resources())


def test_without_ray_the_flag_is_one_line_saying_how_to_install(tmp_path):
    plan = write_plan(tmp_path / "plan.yaml", ["cpu-torch-fp32"],
                      [{"family": "r", "models": ["timm:resnet10t"], "input_sizes": [32]}])
    code = ("import sys; sys.modules['ray'] = None; from perfgraphs.cli import main; "
            f"sys.exit(main(['collect', {str(plan)!r}, '--out', {str(tmp_path / 'o')!r}, '--ray']))")
    result = subprocess.run([sys.executable, "-c", code], cwd=REPO, capture_output=True, text=True, timeout=120)
    assert result.returncode != 0
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and "pip install -e '.[ray]'" in lines[0] and "Traceback" not in result.stderr
    assert not (tmp_path / "o").exists()  # refused before anything was created


def test_node_death_and_driver_kill_lose_and_duplicate_nothing(cluster, tmp_path):
    groups = [{"family": "r", "models": ["timm:resnet10t"], "input_sizes": [32], "batch_sizes": [1, 2, 4]},
              {"family": "m", "models": ["timm:mobilenetv3_small_050"], "input_sizes": [32],
               "batch_sizes": [1, 2, 4]}]
    platforms = ["cpu-torch-fp32", "cpu-torch-bf16"]
    plan_path = write_plan(tmp_path / "plan.yaml", platforms, groups)
    plan = load_plan(plan_path)
    out = tmp_path / "out"
    store = seeded(out, platforms)
    node_b = cluster.add_node(num_cpus=1, resources=b_resources())
    log = tmp_path / "driver.log"
    # every row flushed: the run's record of a lost attempt reaches campaign.json with the next row
    # (with a flush every 3 rows the SIGKILL below could come first)
    args = [str(plan_path), "--out", str(out), "--ray", cluster.address, "--flush-every", "1"]
    with open(log, "w") as f:
        driver = subprocess.Popen([sys.executable, "-m", "perfgraphs", "collect", *args], cwd=REPO,
                                  stdout=f, stderr=subprocess.STDOUT, text=True)
    try:
        # node B dies while it measures: after its first row, with its next task already running
        wait_for(lambda: f"/{node_b.node_id[:8]}" in log.read_text(), 240, "a row from node B", log)
        kill_node(cluster, node_b)
        wait_for(lambda: "lost on node" in log.read_text() or "no alive node offers" in log.read_text(),
                 120, "the driver to notice node B's death", log)
        node_b2 = cluster.add_node(num_cpus=1, resources=b_resources())  # a replacement joins
        wait_for(lambda: f"/{node_b2.node_id[:8]}" in log.read_text(), 240, "a row from node B2", log)
        driver.kill()  # SIGKILL: no cleanup of any kind
        driver.wait(30)
    finally:
        if driver.poll() is None:
            driver.kill()
    before = {(r["key"], r["round"]) for r in store.round_rows()}
    assert 0 < len(before) < len(plan.configs), "the driver was killed with nothing or everything done"

    resumed = collect(*args)
    assert resumed.returncode == 0, resumed.stdout[-2000:] + resumed.stderr[-2000:]
    assert f"{len(before)} already finished" in resumed.stdout

    verified = collect("verify", str(out))
    assert verified.returncode == 0, verified.stderr
    assert f"{len(plan.configs)} rows (ok={len(plan.configs)})" in verified.stdout
    rows = store.read(latest=False).to_pylist()  # every row ever written, not one per configuration
    counts = collections.Counter((r["key"], r["round"]) for r in rows)
    assert set(counts) == {(c.key, 1) for c in plan.configs} and set(counts.values()) == {1}, counts
    head = cluster.head_node.node_id
    on_b = {node_b.node_id, node_b2.node_id}
    for r in rows:
        assert r["status"] == "ok", r["error"]
        assert r["node_ip"] and r["machine_id"] == machine_id()
        # each platform's rows come from the nodes that offer it, and only from those
        assert r["node_id"] in ({head} if r["platform"] == "cpu-torch-fp32" else on_b), r["platform"]
        assert r["core"] == (HEAD_CORE if r["platform"] == "cpu-torch-fp32" else B_CORE)
    assert {r["node_id"] for r in rows if r["platform"] == "cpu-torch-bf16"} == on_b
    runs = store.metadata()["runs"]
    lost = [x for run in runs for x in run["ray"]["lost"]]
    assert lost, "node B died with a task in flight, yet no lost attempt was recorded"
    status = collect("status", str(out), "--plan", str(plan_path))
    assert status.returncode == 0, status.stderr
    for node in (head, *on_b):
        assert f"/{node[:8]}: ok=" in status.stdout
    assert "attempt(s) lost" in status.stdout
    assert status.stdout.count(" 0 to do") == 2


def test_a_hung_configuration_is_stopped_by_its_worker_timeout(cluster, tmp_path):
    plan_path = write_plan(tmp_path / "plan.yaml", ["cpu-torch-fp32"],
                           [{"family": "r", "models": ["timm:resnet10t"], "input_sizes": [32]}],
                           protocol={"name": "endless", "warmup_runs": 1, "timed_runs": 1_000_000}, timeout_s=4)
    out = tmp_path / "out"
    store = seeded(out, ["cpu-torch-fp32"])
    result = collect(str(plan_path), "--out", str(out), "--ray", cluster.address, timeout=300)
    assert result.returncode == 0, result.stdout[-2000:] + result.stderr[-2000:]
    (row,) = store.read(latest=False).to_pylist()
    assert row["status"] == "error" and "timed out after 4 s" in row["error"]
    assert row["node_id"] == cluster.head_node.node_id


def test_the_local_path_and_ray_give_the_same_rows(cluster, tmp_path):
    """Same plan, both routes, the real hardware probe on each: same configurations, same
    statuses, same columns filled, except the two that say which Ray node measured."""
    plan_path = write_plan(tmp_path / "plan.yaml", ["cpu-torch-fp32"], [
        {"family": "r", "models": ["timm:resnet10t"], "input_sizes": [32], "batch_sizes": [1, 2]},
        {"family": "s", "models": ["torchvision:squeezenet1_1"], "input_sizes": [32], "batch_sizes": [1]}])
    local = collect(str(plan_path), "--out", str(tmp_path / "local"), "--core", str(HEAD_CORE))
    assert local.returncode == 0, local.stderr[-2000:]
    on_ray = collect(str(plan_path), "--out", str(tmp_path / "ray"), "--ray", cluster.address)
    assert on_ray.returncode == 0, on_ray.stdout[-2000:] + on_ray.stderr[-2000:]
    rows = {name: MeasurementStore(tmp_path / name).read(latest=False).to_pylist() for name in ("local", "ray")}
    assert len(rows["local"]) == len(load_plan(plan_path).configs) == len(rows["ray"])
    assert ({(r["key"], r["round"], r["status"]) for r in rows["local"]}
            == {(r["key"], r["round"], r["status"]) for r in rows["ray"]})
    # gate_reason is filled only when the quiet gate saw other work during a configuration: what
    # else ran on the machine then, not the route (the full test suite runs beside this test)
    filled = {name: {k for r in rs for k, v in r.items() if v is not None} - {"gate_reason"}
              for name, rs in rows.items()}
    assert filled["ray"] - filled["local"] == {"node_id", "node_ip"}
    assert filled["local"] - filled["ray"] == set()
    for name in ("local", "ray"):  # the probe ran where the measurements did: this machine
        assert MeasurementStore(tmp_path / name).hardware("cpu-torch-fp32")["machine_id"] == machine_id()


def test_retries_are_bounded_and_end_in_an_error_row(cluster, tmp_path):
    """A misconfigured node (it offers a platform but no measuring core) fails every task it gets:
    the driver submits each again --ray-retries times, then stores an error row and moves on."""
    res = node_resources(["cpu-ort-int8"], [HEAD_CORE])
    broken = {k: v for k, v in res.items() if not k.startswith(CORE_RESOURCE)}
    node_c = cluster.add_node(num_cpus=1, resources=broken)
    try:
        plan_path = write_plan(tmp_path / "plan.yaml", ["cpu-ort-int8"],
                               [{"family": "r", "models": ["timm:resnet10t"], "input_sizes": [32]}])
        out = tmp_path / "out"
        store = seeded(out, ["cpu-ort-int8"])
        result = collect(str(plan_path), "--out", str(out), "--ray", cluster.address, "--ray-retries", "1",
                         timeout=300)
        assert result.returncode == 0, result.stdout[-2000:] + result.stderr[-2000:]
        (row,) = store.read(latest=False).to_pylist()
        assert row["status"] == "error" and row["attempts"] == 2
        assert row["error"].startswith("ray: task lost 2 times") and "declares no measuring core" in row["error"]
        (run,) = store.metadata()["runs"]
        assert len(run["ray"]["lost"]) == 2
        assert all(x["node"].endswith(f"/{node_c.node_id[:8]}") for x in run["ray"]["lost"])  # counted against it
        status = collect("status", str(out))
        assert f"/{node_c.node_id[:8]}: no rows; 2 attempt(s) lost" in status.stdout
        assert "no node (lost on the cluster): error=1" in status.stdout
    finally:
        cluster.remove_node(node_c)


def test_no_cluster_at_the_address_is_one_line_at_once(tmp_path):
    plan = write_plan(tmp_path / "plan.yaml", ["cpu-torch-fp32"],
                      [{"family": "r", "models": ["timm:resnet10t"], "input_sizes": [32]}])
    started = time.monotonic()
    result = collect(str(plan), "--out", str(tmp_path / "o"), "--ray", "127.0.0.1:1", timeout=120)
    assert result.returncode != 0 and time.monotonic() - started < 60
    lines = [ln for ln in result.stderr.splitlines() if ln.startswith("perfgraphs:")]
    assert lines == [lines[0]] and "no Ray cluster answers at 127.0.0.1:1" in lines[0]
    assert "Traceback" not in result.stderr
