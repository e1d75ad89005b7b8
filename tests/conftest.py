import os
import types

# Tests are CPU-only and offline; keep them from oversubscribing the 2-core machine.
os.environ.setdefault("OMP_NUM_THREADS", "1")
os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")

import pytest  # noqa: E402


def _forget_record_checks() -> None:
    """The record lines and names remembered as checked, and the reference caches, forgotten."""
    from perfgraphs.leaderboard.records import results

    results.forget_checked()
    _forget_reference_caches()


def _forget_reference_caches() -> None:
    from perfgraphs.leaderboard.records import trust

    for cached in (trust.reference_spellings, trust._reference_code_problem, trust._reference_files,
                   trust._catalog_arrivals, trust._catalog_runs):
        cached.cache_clear()


_RECORD_CHECKS = "perfgraphs.leaderboard.records"


def _owner(target) -> str:
    """The module a patched object belongs to (a dotted path names it; a module is its own)."""
    if isinstance(target, str):
        return target
    if isinstance(target, types.ModuleType):
        return target.__name__
    return getattr(target, "__module__", None) or type(target).__module__ or ""


class _RecordCheckAwareMonkeyPatch(pytest.MonkeyPatch):
    """``monkeypatch`` that forgets what the record reader remembered as checked
    (:func:`perfgraphs.leaderboard.records.results.forget_checked`, the reference caches of
    :mod:`perfgraphs.leaderboard.records.trust`) when a test patches anything of
    :mod:`perfgraphs.leaderboard.records`, and again when the patch is undone: a control that switches
    a check off (or points ``REFERENCE_DIR`` at a tmp folder) is neither answered from before the
    patch nor leaves its passes for the next test. A test that patches nothing there (an environment
    variable, the harness, a scan) keeps the checks already made: they are functions of the line,
    and re-checking every committed record in each such test cost about a minute of the suite."""

    patched_checks = False

    def _noted(self, target) -> None:
        owner = _owner(target)
        if owner == _RECORD_CHECKS or owner.startswith(_RECORD_CHECKS + "."):
            self.patched_checks = True
            _forget_record_checks()

    def setattr(self, target, *args, **kwargs) -> None:
        super().setattr(target, *args, **kwargs)
        self._noted(target)

    def delattr(self, target, *args, **kwargs) -> None:
        super().delattr(target, *args, **kwargs)
        self._noted(target)

    def undo(self) -> None:
        super().undo()
        if self.patched_checks:
            self.patched_checks = False
            _forget_record_checks()


from machine_share import pytest_configure, pytest_runtest_protocol  # noqa: E402,F401 — the suite's hooks


@pytest.fixture
def monkeypatch():
    """pytest's ``monkeypatch``, aware of the record checks (:class:`_RecordCheckAwareMonkeyPatch`)."""
    patch = _RecordCheckAwareMonkeyPatch()
    yield patch
    patch.undo()


@pytest.fixture
def weakened_filter(monkeypatch):
    """For a control: ``weakened_filter(name=value, ...)`` compiles the sandbox's seccomp filter again with those
    attributes of ``confine`` replaced (a rule function returning ``[]``, a comparison as it was before a pass). The
    compiled program is cached, so it is compiled again both ways and never left weakened for another test."""
    from perfgraphs.leaderboard.sandbox import confine

    def weaken(**replaced) -> None:
        for name, value in replaced.items():
            monkeypatch.setattr(confine, name, value)
        confine._compiled.cache_clear()
    yield weaken
    monkeypatch.undo()
    confine._compiled.cache_clear()


@pytest.fixture(scope="session")
def resnet18_template():
    from perfgraphs.graph import graph_template

    return graph_template("timm:resnet18", image_shape=(3, 96, 96))


def _find_external() -> str | None:
    from perfgraphs.paths import shared_external_dir

    found = shared_external_dir()
    return str(found) if found else None


# The public measurement sources are read from the shared copies beside the checkout, never
# downloaded by tests.
if "PERFGRAPHS_EXTERNAL_DIR" not in os.environ and _find_external():
    os.environ["PERFGRAPHS_EXTERNAL_DIR"] = _find_external()


@pytest.fixture(scope="session")
def tiny_labeled_sources(tmp_path_factory):
    """(measured rows, graph pool folder) of a tiny perfgraphs/dippm cpu-torch-fp32 config from real
    data: the committed CPU measurements of the smallest measured model of each family, and their
    committed graph structures (no export, no new measurement). One structure group per family,
    so the 70/15/15 split leaves every part non-empty."""
    import pyarrow as pa
    import pyarrow.compute as pc
    import pyarrow.parquet as pq

    from perfgraphs.collect.store import load_measurements
    from perfgraphs import paths
    from perfgraphs.data.build import measurement_root
    from perfgraphs.pool.structures import structure_id
    from perfgraphs.registry import get_dataset

    ds = get_dataset("dippm")
    cfg = ds.config("cpu-torch-fp32")
    measured = [r for r in load_measurements(measurement_root(ds, cfg)).to_pylist()
                if r["status"] == "ok" and r["platform"] == cfg.platform]
    files = sorted(paths.graph_pool_dir().glob("*.parquet"))
    if not measured or not files:
        pytest.skip("no committed measurements or graph pool in this checkout")
    index = pa.concat_tables([pq.read_table(f, columns=["structure_id", "num_nodes"]) for f in files])
    nodes = dict(zip(index.column("structure_id").to_pylist(), index.column("num_nodes").to_pylist()))
    best: dict[str, tuple[int, str]] = {}
    for r in measured:
        sid = structure_id(r["model"], r["image_size"], r["seq_len"])
        if sid in nodes:
            best[r["family"]] = min(best.get(r["family"], (nodes[sid], r["model"])), (nodes[sid], r["model"]))
    models = {model for _, model in best.values()}
    rows = [r for r in measured if r["model"] in models
            and structure_id(r["model"], r["image_size"], r["seq_len"]) in nodes]
    if len(best) < 7:
        pytest.skip(f"only {len(best)} families measured so far; the tiny split needs 7")
    wanted = pa.array(sorted({structure_id(r["model"], r["image_size"], r["seq_len"]) for r in rows}))
    pool_dir = tmp_path_factory.mktemp("tiny-pool")
    pool_rows = pa.concat_tables([t.filter(pc.is_in(t.column("structure_id"), wanted))
                                  for t in (pq.read_table(f) for f in files)])
    pq.write_table(pool_rows, pool_dir / "part-00000.parquet")
    return rows, pool_dir


@pytest.fixture(scope="session")
def tiny_labeled_home(tiny_labeled_sources, tmp_path_factory):
    """PERFGRAPHS_HOME with the tiny perfgraphs/dippm cpu-torch-fp32 config of
    ``tiny_labeled_sources`` built in it."""
    from perfgraphs.collect.store import MeasurementStore
    from perfgraphs.data.build import build_labeled_config
    from perfgraphs.pool.graph_pool import GraphPool
    from perfgraphs.registry import get_dataset

    rows, pool_dir = tiny_labeled_sources
    root = tmp_path_factory.mktemp("tiny-labeled")
    store = MeasurementStore(root / "measurements")
    for r in rows:
        store.append(r)
    ds = get_dataset("dippm")
    home = root / "home"
    build_labeled_config(ds, ds.config("cpu-torch-fp32"), pool=GraphPool(pool_dir), home=home,
                         measurements=root / "measurements")
    return home


# Two families x two structures x 16 batches of perfgraphs/dippm's graphs: the small graph set the
# baseline tests train on (built once per session; Hugging Face datasets are immutable).
TINY_GRAPH_COUNTS = {"mnasnet": 32, "mobilenet": 32}


@pytest.fixture(scope="session")
def tiny_dippm_rows(tmp_path_factory):
    import datasets

    from perfgraphs.data.build import build_graph_config
    from perfgraphs.data.load import load_dataset
    from perfgraphs.pool.graph_pool import GraphPool
    from perfgraphs.registry import get_dataset

    pool = GraphPool(tmp_path_factory.mktemp("pool"))
    pool.build(TINY_GRAPH_COUNTS)
    home = tmp_path_factory.mktemp("home")
    ds = get_dataset("dippm")
    build_graph_config(ds, ds.config("graphs"), pool=pool, home=home, counts=TINY_GRAPH_COUNTS)
    parts = load_dataset("dippm", "graphs", home=home)
    return datasets.concatenate_datasets([parts[k] for k in sorted(parts)])


@pytest.fixture
def git_commitments(tmp_path, monkeypatch):
    """A commitments folder inside a git repository of its own, standing in for the repository's
    ``leaderboard/hidden/``: ``commit()`` commits whatever was written there (as the organisers do
    before scoring). Returns (folder, commit)."""
    from perfgraphs.leaderboard.records import hidden
    from relay_round import organisers_repository

    folder, commit = organisers_repository(tmp_path)
    monkeypatch.setattr(hidden, "COMMITMENTS_DIR", folder)
    return folder, commit


@pytest.fixture(scope="session")
def relay_round(tiny_labeled_home, tmp_path_factory):
    """The relay passes' shared frozen hidden round (:mod:`relay_round`): frozen and scored with every
    guard on once a session; each relay test asserts its record and runs its own control."""
    from relay_round import freeze_relay_round

    patch = _RecordCheckAwareMonkeyPatch()
    try:
        return freeze_relay_round(tmp_path_factory.mktemp("relays"), tiny_labeled_home, patch)
    finally:
        patch.undo()


def shallow_clone() -> bool:
    """This checkout lacks its history (a CI clone with --depth): commit checks have nothing to
    check against and say so (perfgraphs.leaderboard.records.trust)."""
    import subprocess
    from pathlib import Path

    out = subprocess.run(["git", "-C", str(Path(__file__).resolve().parent), "rev-parse", "--is-shallow-repository"],
                         capture_output=True, text=True)
    return out.stdout.strip() != "false"
