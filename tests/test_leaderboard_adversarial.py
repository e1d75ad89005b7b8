"""A hostile submitter against the harness: every cheat of issue 12 and more, each in a real
sandboxed predictor process (bubblewrap), on the tiny real dataset of ``conftest``.

Each label-stealing predictor tries its cheat and falls back to an honest constant (the geometric
mean of the training labels) when the cheat finds nothing; it prints what it saw. A cheat is
defeated when the predictions are exactly the honest constant, so it scores no better than honest,
and nothing outside the harness was written. Writers and forgers must leave the results files, the
Python environment and the timings untouched.
"""

from __future__ import annotations

import json
import socket
import textwrap
import time
from pathlib import Path

import numpy as np
import pytest

from perfgraphs.leaderboard.sandbox import isolation

REPO = Path(__file__).resolve().parents[1]
BOARD = ["--dataset", "dippm", "--config", "cpu-torch-fp32", "--target", "latency_ms"]

pytestmark = pytest.mark.skipif(isolation.unavailable_reason() is not None,
                                reason=f"no isolation here: {isolation.unavailable_reason()}")

CHEATER = """
    import glob, json, os, sys, time
    from pathlib import Path
    import numpy as np

    HOME, REPO, RESULTS, HELD = {home!r}, {repo!r}, {results!r}, {held!r}

    def lookup(tables, graphs, target):
        # labels of the test graphs, keyed by what identifies a test row without its id
        keys = ("structure_id", "batch_size", "img_size")
        labels = {{}}
        for t in tables:
            cols = t.column_names
            if target in cols and all(k in cols for k in keys):
                for row in zip(*(t[k] for k in keys), t[target]):
                    labels[tuple(row[:-1])] = row[-1]
        rows = list(zip(*(graphs[k] for k in keys)))
        if not labels or not all(r in labels for r in rows):
            return None
        return [labels[r] for r in rows]

    def parquet_tables(paths):
        import pyarrow.parquet as pq
        out = []
        for p in paths:
            try:
                out.append(pq.read_table(p).to_pydict())
            except Exception:
                pass
        return [type("T", (), {{"column_names": list(d), "__getitem__": lambda self, k, d=d: d[k]}})() for d in out]

    {cheat}

    class Predictor:
        def __init__(self, target, seed=0, quick=False):
            self.target, self.seed = target, seed

        def fit(self, train, val):
            self.level = float(np.exp(np.mean(np.log(train[self.target]))))
            before_fit(self)

        def predict(self, graphs):
            try:
                found = cheat(graphs, self.target)
            except Exception as exc:
                print("cheat failed:", type(exc).__name__, str(exc)[:200], flush=True)
                found = None
            if found is not None:
                print("CHEAT SUCCEEDED", flush=True)
                return np.asarray(found, dtype=float)
            return np.full(len(graphs), self.level)
"""

NO_FIT_HOOK = "def before_fit(model):\n    pass\n"


def cheat_source(cheat: str, env: dict, held: Path, fit_hook: str = NO_FIT_HOOK) -> str:
    # the template is dedented first; the cheat and the hook go in at column 0
    body = textwrap.dedent(cheat) + "\n" + textwrap.dedent(fit_hook)
    return textwrap.dedent(CHEATER).format(home=str(env["home"]), repo=str(REPO), results=str(env["results"]),
                                           held=str(held), cheat=body)


def _existing_record() -> str:
    from dataclasses import asdict

    from perfgraphs.leaderboard.records.results import Entry

    e = Entry(method="existing", authors="test author", dataset="perfgraphs/dippm", dataset_version="0.1.0", dataset_content_hash="h",
              config="cpu-torch-fp32", target="latency_ms", tier="verified", division="closed", code_commit="c0ffee",
              per_seed=[{"seed": i, "n": 31, "mape_pct": 50.0 + i, "rmse": 1.0, "acc_10_pct": 5.0, "kendall_tau": 0.1}
                        for i in range(5)],
              fit_seconds=1.0, predictions_per_second=100.0, num_params=None, hardware="cpu", run_identity="existing",
              date_utc="2026-11-01T00:00:00+00:00")
    return json.dumps(asdict(e), sort_keys=True) + "\n"


EXISTING = _existing_record()


@pytest.fixture
def env(tiny_labeled_home, tmp_path, monkeypatch):
    monkeypatch.setenv("PERFGRAPHS_HOME", str(tiny_labeled_home))
    mlflow_db = tmp_path / "mlflow.db"
    monkeypatch.setenv("MLFLOW_TRACKING_URI", f"sqlite:///{mlflow_db}")
    results = tmp_path / "results"
    results.mkdir()
    # a board that already has a record: a cheat that reaches it could rewrite or add to it
    (results / "dippm.jsonl").write_text(EXISTING)
    return {"results": results, "mlflow_db": mlflow_db, "home": tiny_labeled_home, "tmp": tmp_path}


@pytest.fixture(scope="module")
def parts(tiny_labeled_home):
    from perfgraphs.evaluation.protocol import load_protocol

    return load_protocol("dippm", "cpu-torch-fp32", tiny_labeled_home)


def write_submission(folder: Path, method: str, source: str) -> Path:
    import hashlib

    import yaml

    folder.mkdir(parents=True, exist_ok=True)
    (folder / "predictor.py").write_text(source)
    meta = {"method": method, "authors": ["hostile"], "contact": "h@example.org",
            "code": {"url": "https://example.org", "commit": hashlib.sha1(method.encode()).hexdigest()},
            "paper": None, "external_data": False, "division": "closed",
            "hyperparameters": {"grid": {}, "chosen": {}}, "entry_point": "predictor:Predictor"}
    (folder / "submission.yaml").write_text(yaml.safe_dump(meta))
    return folder


def run_one_seed(env, parts, name: str, cheat: str, fit_hook: str = NO_FIT_HOOK, prepare=None, isolated=True):
    """One isolated seed of a cheating predictor; returns (output or SeedFailed, its stdout)."""
    from perfgraphs.leaderboard.sandbox.harness import Limits, SeedFailed, prepare_job, run_seed

    job_dir = env["tmp"] / f"job-{name}"
    sub_dir = env["tmp"] / f"sub-{name}"
    sub = write_submission(sub_dir, name, cheat_source(cheat, env, job_dir / "held", fit_hook))
    if prepare is not None:
        prepare(sub)
    job = prepare_job(job_dir, sub, "predictor:Predictor", "latency_ms", True, parts.train, parts.validation,
                      parts.test, Limits())
    code = isolation.staged_code_dir(env["tmp"]) if isolated else None
    try:
        out = run_seed(job, 0, Limits(time_limit_s=120), code)
    except SeedFailed as exc:
        out = exc
    log = (job_dir / "seed-0.log").read_text(errors="replace")
    return out, log


def honest_level(parts) -> float:
    return float(np.exp(np.mean(np.log(np.asarray(parts.train["latency_ms"], dtype=float)))))


def assert_defeated(out, log, parts, env) -> None:
    assert "CHEAT SUCCEEDED" not in log, log
    if not isinstance(out, Exception):
        np.testing.assert_array_equal(out.pred, np.full(len(parts.test), honest_level(parts)))
    assert (env["results"] / "dippm.jsonl").read_text() == EXISTING
    assert sorted(p.name for p in env["results"].iterdir()) == ["dippm.jsonl"]


# -- the cheats of the issue ---------------------------------------------------------------

LOAD_DATASET = """
    def cheat(graphs, target):
        os.environ["PERFGRAPHS_HOME"] = HOME
        import perfgraphs
        test = perfgraphs.load_dataset("perfgraphs/dippm", config="cpu-torch-fp32")["test"]
        return lookup([test], graphs, target)
"""

CACHED_PARQUET = """
    def cheat(graphs, target):
        paths = glob.glob(HOME + "/**/*.parquet", recursive=True) + glob.glob(HOME + "/**/*.arrow", recursive=True)
        print("saw", len(paths), "files under PERFGRAPHS_HOME", flush=True)
        return lookup(parquet_tables(paths), graphs, target)
"""

RAW_SHARDS = """
    def cheat(graphs, target):
        paths = glob.glob(REPO + "/data/measurements/**/*.parquet", recursive=True)
        print("saw", len(paths), "measurement shards", flush=True)
        assert not paths, "the repository is visible"
        return None
"""

INTERNALS = """
    def cheat(graphs, target):
        from perfgraphs.evaluation.protocol import load_protocol
        data = load_protocol("dippm", "cpu-torch-fp32", Path(HOME))
        return lookup([data.test], graphs, target)
"""

HELD_INPUTS = """
    def cheat(graphs, target):
        # the harness's own copy of the test rows, and anything on the visible file system
        found = []
        for root, dirs, files in os.walk("/"):
            dirs[:] = [d for d in dirs if os.path.join(root, d) not in ("/proc", "/sys", "/dev")]
            found += [os.path.join(root, f) for f in files if f.endswith((".parquet", ".arrow", ".jsonl"))]
        print("VISIBLE", json.dumps(sorted(found)), flush=True)
        return lookup(parquet_tables(found + glob.glob(HELD + "/*")), graphs, target)
"""

PROC_ENVIRON = """
    def cheat(graphs, target):
        leaked = []
        for path in glob.glob("/proc/[0-9]*/environ"):
            try:
                data = open(path, "rb").read()
            except OSError:
                continue
            leaked += [v.decode() for v in data.split(b"\\0") if v.startswith((b"PERFGRAPHS_HOME=", b"MLFLOW"))]
        print("PIDS", sorted(os.listdir("/proc"), key=str)[:0], len(glob.glob("/proc/[0-9]*")), flush=True)
        print("LEAKED", leaked, flush=True)
        homes = [v.split("=", 1)[1] for v in leaked if v.startswith("PERFGRAPHS_HOME=")]
        paths = [p for h in homes for p in glob.glob(h + "/**/*.parquet", recursive=True)]
        return lookup(parquet_tables(paths), graphs, target)
"""

SYMLINK = """
    def cheat(graphs, target):
        here = Path(__file__).resolve().parent
        paths = glob.glob(str(here / "leak") + "/**/*.parquet", recursive=True)
        print("through the symlink:", len(paths), flush=True)
        return lookup(parquet_tables(paths), graphs, target)
"""

PARENT_CMDLINE = """
    def cheat(graphs, target):
        # find the results folder from the parent's command line, as the issue's cheat did
        args = open(f"/proc/{os.getppid()}/cmdline", "rb").read().split(b"\\0")
        targets = [a.decode() for a in args if b"results" in a] + [RESULTS]
        for folder in targets:
            try:
                with open(os.path.join(folder, "dippm.jsonl"), "a") as f:
                    f.write(json.dumps({"method": "fake", "mape": 0.5}) + "\\n")
                print("APPENDED to", folder, flush=True)
            except OSError as exc:
                print("could not append:", exc, flush=True)
        return None
"""


@pytest.mark.parametrize("cheat", [LOAD_DATASET, CACHED_PARQUET, RAW_SHARDS, INTERNALS, HELD_INPUTS, PROC_ENVIRON,
                                   PARENT_CMDLINE],
                         ids=["load_dataset", "cached-parquet", "repository-shards", "perfgraphs-internals",
                              "walk-the-file-system", "proc-environ", "parent-cmdline-results"])
def test_label_stealing_cheats_score_no_better_than_honest(env, parts, cheat):
    out, log = run_one_seed(env, parts, "cheat", cheat)
    assert not isinstance(out, Exception), out
    assert_defeated(out, log, parts, env)
    assert "APPENDED" not in log


@pytest.mark.parametrize("cheat", [LOAD_DATASET, CACHED_PARQUET, INTERNALS, PARENT_CMDLINE],
                         ids=["load_dataset", "cached-parquet", "perfgraphs-internals", "parent-cmdline-results"])
def test_the_cheats_work_without_isolation(env, parts, cheat):
    """The control: the same predictors in a plain child process (what `check` falls back to without
    bubblewrap) do get the labels or write a record, so the tests above can fail."""
    out, log = run_one_seed(env, parts, "control", cheat, isolated=False)
    if cheat is PARENT_CMDLINE:
        assert "APPENDED to " + str(env["results"]) in log, log
    else:
        assert "CHEAT SUCCEEDED" in log, log
        np.testing.assert_allclose(out.pred, np.asarray(parts.test["latency_ms"], dtype=float))


def test_the_file_system_a_predictor_sees_holds_no_test_label(env, parts):
    import sys

    out, log = run_one_seed(env, parts, "walker", HELD_INPUTS)
    visible = json.loads(next(line for line in log.splitlines() if line.startswith("VISIBLE"))[len("VISIBLE "):])
    data_files = [p for p in visible if "site-packages" not in p
                  and not p.startswith(("/usr/", sys.base_prefix + "/", sys.prefix + "/"))]
    assert sorted(data_files) == ["/inbox/test_inputs.parquet", "/job/train.parquet", "/job/validation.parquet"]
    assert_defeated(out, log, parts, env)


def test_a_symlink_out_of_the_submission_leads_nowhere(env, parts):
    def plant(sub: Path) -> None:
        (sub / "leak").symlink_to(env["home"])

    out, log = run_one_seed(env, parts, "symlink", SYMLINK, prepare=plant)
    assert "through the symlink: 0" in log, log
    assert_defeated(out, log, parts, env)


def test_proc_shows_only_the_sandbox_and_no_environment_of_the_parent(env, parts):
    out, log = run_one_seed(env, parts, "environ", PROC_ENVIRON)
    assert "LEAKED []" in log, log
    assert_defeated(out, log, parts, env)


# -- writers, forgers, escapees -------------------------------------------------------------

WRITE_ENVIRONMENT = """
    def cheat(graphs, target):
        import site, sysconfig
        for folder in set(site.getsitepackages() + [sysconfig.get_paths()["purelib"]] + sys.path):
            if folder.startswith("/tmp/"):  # the sandbox's private scratch: gone with it
                continue
            try:
                Path(folder, "sitecustomize.py").write_text("print('owned')\\n")
                print("WROTE", folder, flush=True)
            except OSError:
                pass
        return None
"""


def test_the_python_environment_is_read_only(env, parts):
    import site

    out, log = run_one_seed(env, parts, "writer", WRITE_ENVIRONMENT)
    assert "WROTE" not in log, log
    for folder in site.getsitepackages():
        assert not Path(folder, "sitecustomize.py").exists()
    assert_defeated(out, log, parts, env)


ESCAPEE = """
    def cheat(graphs, target):
        import ctypes
        if os.fork() == 0:  # a grandchild in its own session, renamed, that sleeps past the harness
            os.setsid()
            if os.fork() == 0:
                ctypes.CDLL(None).prctl(15, b"pg-escapee", 0, 0, 0)  # PR_SET_NAME
                time.sleep(60)
                os._exit(0)
            os._exit(0)
        return None
"""


def test_a_forked_process_does_not_outlive_the_harness(env, parts):
    import psutil

    out, log = run_one_seed(env, parts, "escapee", ESCAPEE)
    deadline = time.monotonic() + 1.0
    while time.monotonic() < deadline and any(p.info["name"] == "pg-escapee" for p in psutil.process_iter(["name"])):
        time.sleep(0.05)
    assert not any(p.info["name"] == "pg-escapee" for p in psutil.process_iter(["name"]))
    assert_defeated(out, log, parts, env)


NETWORK = """
    def cheat(graphs, target):
        import socket
        try:
            socket.create_connection(("127.0.0.1", {port}), timeout=2).sendall(b"labels please")
            print("CONNECTED", flush=True)
        except OSError as exc:
            print("no network:", exc, flush=True)
        return None
"""


def test_no_network(env, parts):
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen(1)
    server.settimeout(0.5)
    port = server.getsockname()[1]
    out, log = run_one_seed(env, parts, "network", NETWORK.replace("{port}", str(port)))
    with pytest.raises(socket.timeout):
        server.accept()
    server.close()
    assert "CONNECTED" not in log
    assert_defeated(out, log, parts, env)


# Registered at import: runs when the interpreter exits, after the predictions were sent.
ATEXIT_FORGER = """
    import atexit

    def forge():
        for fd in range(3, 64):  # every descriptor the runner could hold, the channel among them
            try:
                os.write(fd, json.dumps({"kind": "result", "bytes": 0, "num_params": 1}).encode() + b"\\n")
            except OSError:
                pass
        for path in ("result.json", "/inbox/result.json", "/job/result.json"):
            try:
                Path(path).write_text(json.dumps({"ok": True, "fit_seconds": 0.0, "predict_seconds": 1e-12}))
            except OSError:
                pass

    atexit.register(forge)

    def cheat(graphs, target):
        time.sleep(0.4)
        return None
"""

SLOW_FIT = """
    def before_fit(model):
        time.sleep(0.6)
"""


def test_timings_come_from_the_harness_not_from_the_predictor(env, parts):
    out, log = run_one_seed(env, parts, "atexit", ATEXIT_FORGER, fit_hook=SLOW_FIT)
    assert not isinstance(out, Exception), out
    assert out.fit_seconds >= 0.6 and out.predict_seconds >= 0.4
    assert_defeated(out, log, parts, env)


EARLY_FIT_DONE = """
    def cheat(graphs, target):
        return None
"""

FORGE_FIT_DONE = """
    def before_fit(model):
        # claim fit is done at once and silence the runner's own message, then keep fitting:
        # the time can move from fit to predict, never disappear
        import perfgraphs.leaderboard.sandbox.channel as channel
        fd = int(sys.argv[5])
        channel.send(fd, "fit_done")
        channel.send = lambda *a, **k: None if a[1] == "fit_done" else ORIGINAL(*a, **k)
        time.sleep(0.8)

    import perfgraphs.leaderboard.sandbox.channel as _channel
    ORIGINAL = _channel.send
"""


def test_forged_phase_messages_cannot_hide_time(env, parts):
    out, log = run_one_seed(env, parts, "forger", EARLY_FIT_DONE, fit_hook=FORGE_FIT_DONE)
    if not isinstance(out, Exception):  # accepted: the sleep is still inside fit + predict
        assert out.fit_seconds + out.predict_seconds >= 0.8
    assert_defeated(out, log, parts, env)


GARBAGE_ON_CHANNEL = """
    def before_fit(model):
        os.write(int(sys.argv[5]), b"not a message\\n")
"""


def test_garbage_on_the_channel_rejects_the_run(env, parts):
    from perfgraphs.leaderboard.sandbox.harness import SeedFailed

    out, log = run_one_seed(env, parts, "garbage", EARLY_FIT_DONE, fit_hook=GARBAGE_ON_CHANNEL)
    assert isinstance(out, SeedFailed) and "harness channel" in str(out)


# -- whole submissions: nothing written unless everything holds -------------------------------

def run_cli(args, capsys):
    from perfgraphs.cli import main

    rc = main(args)
    return rc, [line for line in capsys.readouterr().err.splitlines() if line.strip()]


WRITE_THEN_RAISE = """
    def before_fit(model):
        try:
            open(os.path.join(RESULTS, "dippm.jsonl"), "a").write('{"method": "fake"}\\n')
        except OSError:
            pass
        raise RuntimeError("written, now failing")
"""


def test_a_predictor_that_writes_then_raises_leaves_no_record(env, parts, capsys):
    sub = write_submission(env["tmp"] / "wtr", "write-then-raise",
                           cheat_source(EARLY_FIT_DONE, env, env["tmp"], WRITE_THEN_RAISE))
    before = (env["results"] / "dippm.jsonl").read_bytes()
    rc, err = run_cli(["submit", str(sub), *BOARD, "--quick", "--results", str(env["results"])], capsys)
    err = [line for line in err if line.startswith("perfgraphs")]
    assert rc == 1 and len(err) == 1 and "written, now failing" in err[0], err
    assert (env["results"] / "dippm.jsonl").read_bytes() == before
    assert not env["mlflow_db"].exists()


def test_check_writes_nowhere(env, parts, capsys, tmp_path):
    sub = write_submission(tmp_path / "honest", "honest", cheat_source("    def cheat(graphs, target):\n"
                                                                        "        return None\n", env, tmp_path))
    results = tmp_path / "never-created"
    rc, err = run_cli(["check", str(sub), *BOARD, "--quick", "--seeds", "0", "--results", str(results)], capsys)
    assert rc == 0, err
    assert not results.exists() and not env["mlflow_db"].exists()


@pytest.mark.parametrize("edit", ["rewrite", "garbage"])
def test_a_results_file_changed_during_the_submission_is_refused(env, parts, capsys, monkeypatch, edit):
    """A record rewritten (a score changed) or a malformed line added while the submission runs (here as
    its first seed starts, not after a sleep: the check compares the file at the end with the file at the
    start, whenever the edit fell between): refused. (A whole valid record appended meanwhile is another
    submission's, and is fine.)"""
    from perfgraphs.leaderboard import submit

    sub = write_submission(env["tmp"] / "honest", "honest", cheat_source("    def cheat(graphs, target):\n"
                                                                          "        return None\n", env, env["tmp"]))
    path = env["results"] / "dippm.jsonl"
    tampered = (EXISTING.replace('"mape_pct": 50.0', '"mape_pct": 0.5') if edit == "rewrite"
                else EXISTING + '{"method": "fake"\n')
    run_seed = submit.run_seed

    def tamper_then_run(*args, **kwargs):
        if path.read_text() != tampered:
            path.write_text(tampered)
        return run_seed(*args, **kwargs)

    monkeypatch.setattr(submit, "run_seed", tamper_then_run)
    rc, err = run_cli(["submit", str(sub), *BOARD, "--quick", "--results", str(env["results"])], capsys)
    assert rc == 1 and len(err) == 1 and "changed while the submission was scored" in err[0], err
    assert path.read_text() == tampered  # no new record


def test_without_isolation_submit_refuses_a_verified_entry(env, parts, capsys, monkeypatch, tmp_path):
    sub = write_submission(tmp_path / "honest", "honest", cheat_source("    def cheat(graphs, target):\n"
                                                                        "        return None\n", env, tmp_path))
    monkeypatch.setenv("PATH", str(tmp_path / "no-bwrap-here"))
    isolation.unavailable_reason.cache_clear()
    try:
        before = (env["results"] / "dippm.jsonl").read_bytes()
        rc, err = run_cli(["submit", str(sub), *BOARD, "--quick", "--results", str(env["results"])], capsys)
        assert rc == 1 and len(err) == 1 and "cannot record a verified entry" in err[0] and "bubblewrap" in err[0]
        assert (env["results"] / "dippm.jsonl").read_bytes() == before and not env["mlflow_db"].exists()
    finally:
        monkeypatch.undo()
        isolation.unavailable_reason.cache_clear()


FORGE_EARLY_PREDICTIONS = """
    def before_fit(model):
        # claim fit done and send constant predictions at once, before any test input exists, to
        # book a near-zero prediction time; then silence the runner's own messages
        import perfgraphs.leaderboard.sandbox.channel as channel
        fd = int(sys.argv[5])
        n = 31
        pred = np.full(n, model.level).astype("<f8").tobytes()
        # both frames in one write of under PIPE_BUF bytes, which a pipe takes atomically: the
        # forged pred is in the pipe before the harness can take fit_done, whatever the scheduling
        os.write(fd, json.dumps({"kind": "fit_done", "bytes": 0}).encode() + b"\\n"
                 + json.dumps({"kind": "pred", "bytes": len(pred), "shape": [n]}).encode() + b"\\n" + pred)
        channel.send = lambda *a, **k: None
        time.sleep(30)  # alive until the harness reads the early message (it kills the run then)
"""


def test_predictions_sent_before_their_inputs_are_rejected(env, parts):
    from perfgraphs.leaderboard.sandbox.harness import SeedFailed

    out, log = run_one_seed(env, parts, "early", EARLY_FIT_DONE, fit_hook=FORGE_EARLY_PREDICTIONS)
    assert isinstance(out, SeedFailed) and "before the harness handed over their inputs" in str(out), out


CONSTANT = """
    def cheat(graphs, target):
        return None  # the honest fallback: one constant for every graph
"""


def test_a_constant_predictor_is_scored_with_an_undefined_tau(env, parts, capsys, tmp_path):
    """Kendall's τ of constant predictions is undefined: recorded as null, shown as "–", and neither
    submit nor the site build stumbles on it (it crashed all three before)."""
    from perfgraphs.leaderboard.site.pages import build_site

    sub = write_submission(tmp_path / "constant", "constant", cheat_source(CONSTANT, env, tmp_path))
    rc, err = run_cli(["submit", str(sub), *BOARD, "--quick", "--results", str(env["results"])], capsys)
    assert rc == 0, err
    record = json.loads((env["results"] / "dippm.jsonl").read_text().splitlines()[-1])
    assert record["method"] == "constant (quick)" and all(s["kendall_tau"] is None for s in record["per_seed"])
    y = np.asarray(parts.test["latency_ms"], dtype=float)
    expected = float(np.mean(np.abs(y - honest_level(parts)) / y) * 100)
    assert record["per_seed"][0]["mape_pct"] == pytest.approx(expected, rel=1e-9)
    assert len(record["per_seed"][0]["predictions_sha256"]) == 64 and record["isolation"].startswith("bubblewrap")
    html = build_site(tmp_path / "site", env["results"]).read_text()
    assert "constant (quick)" in html and ">–</td>" in html
