"""Releases, generated cards, Hub-ready exports, and a wheel installed outside the checkout.

One data directory of the tests' own (``PERFGRAPHS_DATA_DIR`` semantics through
``load_dataset(data_dir=...)``): the committed H200 store of perfgraphs/dippm without its last
shard (the campaign before its last 23 rows), the committed graph pool and split files linked.
Version 0.1.0 is released from it; then the last shard arrives (the campaign grew), so the
measurements a release was built from are no longer those of the data directory.

Ground truth is independent of the code under test: the content hash recorded at release time
(a later rebuild must reproduce it byte for byte), the rows of the committed store (170 then 193
measurements), and Hugging Face's own ``datasets.load_dataset`` reading the exported folder.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
import yaml

from perfgraphs import paths
from perfgraphs.registry import get_dataset

REPO = Path(__file__).resolve().parents[1]
DATASET, CONFIG = "perfgraphs/dippm", "h200-torch-fp32"
LAST_SHARD = "shard-00006-"  # the first loan's last shard: the store as of that loan is shards 0-6


def _after_first_loan(name: str) -> bool:
    """Files of the H200 store written after its first loan's last shard (later loans' shards and
    uncompacted parts): never copied, so this test's store is the one it was written against."""
    return name == "parts" or (name.startswith("shard-") and int(name[6:11]) > int(LAST_SHARD[6:11]))


def _copy_first_loan_store(store: Path, dest: Path, without_last_shard: bool = False) -> None:
    """The H200 store as its first loan left it (optionally without that loan's last shard). The
    committed store records every shard (campaign.json's inventory), so a copy of part of it is
    refused as damaged; as written before the inventory, it reads as the store of that moment, and
    a shard copied in later reads as the campaign's growth."""
    shutil.copytree(store, dest, ignore=lambda folder, names: [
        n for n in names if _after_first_loan(n) or (without_last_shard and n.startswith(LAST_SHARD))])
    for path in [dest / "campaign.json", *dest.glob("*/hardware.json")]:
        body = {k: v for k, v in json.loads(path.read_text()).items() if k not in ("sha256", "store")}
        path.write_text(json.dumps(body, indent=2))


@pytest.fixture(scope="module")
def data_dir(tmp_path_factory) -> Path:
    src = paths.data_dir()
    store = src / "measurements" / "dippm-h200"
    if not (store / "cuda-torch-fp32").is_dir() or not any((store / "cuda-torch-fp32").glob(f"{LAST_SHARD}*")):
        pytest.skip("the committed H200 store is not in this checkout")
    root = tmp_path_factory.mktemp("data")
    _copy_first_loan_store(store, root / "measurements" / "dippm-h200", without_last_shard=True)
    (root / "graphs").symlink_to(src / "graphs", target_is_directory=True)
    (root / "splits").symlink_to(src / "splits", target_is_directory=True)
    return root


@pytest.fixture(scope="module")
def released(data_dir, tmp_path_factory):
    """(data dir, home, record of 0.1.0, manifest of the build it was made from)."""
    from perfgraphs.data.load import current_build
    from perfgraphs.data.publish import release

    home = tmp_path_factory.mktemp("home")
    ds = get_dataset(DATASET)
    with paths.using(data_dir=data_dir):
        version, records = release(ds, [ds.config(CONFIG)], home=home)
        _, manifest = current_build(ds, ds.config(CONFIG), home, build=False)
    assert version == "0.1.0"  # a first release takes the registry's version
    return data_dir, home, records[CONFIG], manifest


def _rows(dataset_dict) -> dict[str, list]:
    return {split: sorted(zip(part["sample_id"], part["latency_ms"])) for split, part in dataset_dict.items()}


def test_release_records_the_build_by_content(released):
    from perfgraphs.data.publish import release
    from perfgraphs.data.releases import read_index

    data_dir, home, record, manifest = released
    assert record.content_hash == manifest["content_hash"] and record.manifest_sha256 == manifest["manifest_sha256"]
    # every ok measurement of the store's first 170 rows whose structure the pool holds, once
    from perfgraphs.collect.store import load_measurements
    from perfgraphs.pool.graph_pool import GraphPool
    from perfgraphs.pool.structures import structure_id

    pooled = GraphPool(data_dir / "graphs" / "timm").rows()
    measured = load_measurements(data_dir / "measurements" / "dippm-h200").to_pylist()
    assert len(measured) == 170
    expected = {(r["model"], r["image_size"], r["batch_size"]) for r in measured
                if r["status"] == "ok" and structure_id(r["model"], r["image_size"], r["seq_len"]) in pooled}
    assert sum(record.row_counts.values()) == len(expected)
    index_before = (data_dir / "releases.json").read_bytes()
    ds = get_dataset(DATASET)
    with paths.using(data_dir=data_dir):
        assert release(ds, [ds.config(CONFIG)], home=home)[0] is None  # same content: no new version
    assert (data_dir / "releases.json").read_bytes() == index_before
    with paths.using(data_dir=data_dir):
        assert list(read_index()[DATASET]) == ["0.1.0"]


def test_released_version_is_rebuilt_only_from_its_own_sources(released):
    import perfgraphs
    from perfgraphs.data.build import dataset_folder
    from perfgraphs.data.manifest import read_manifest
    from perfgraphs.data.releases import ReleaseNotReproducibleError, kept_folder

    data_dir, home, record, _ = released
    ds = get_dataset(DATASET)
    working, kept = dataset_folder(ds, ds.config(CONFIG), home), kept_folder(ds, CONFIG, "0.1.0", home)
    first = _rows(perfgraphs.load_dataset(DATASET, CONFIG, version="0.1.0", data_dir=data_dir, home=home))

    # Nothing of the release left on this machine, sources unchanged: rebuilt, byte for byte.
    shutil.rmtree(working)
    shutil.rmtree(kept)
    again = perfgraphs.load_dataset(DATASET, CONFIG, version="0.1.0", data_dir=data_dir, home=home)
    assert read_manifest(kept)["content_hash"] == record.content_hash
    assert _rows(again) == first

    # The campaign grows: the current build changes, the release does not.
    store = data_dir / "measurements" / "dippm-h200" / "cuda-torch-fp32"
    for path in (REPO / "data" / "measurements" / "dippm-h200" / "cuda-torch-fp32").glob(f"{LAST_SHARD}*"):
        shutil.copy2(path, store / path.name)
    grown = perfgraphs.load_dataset(DATASET, CONFIG, data_dir=data_dir, home=home)
    assert sum(len(part) for part in grown.values()) > sum(record.row_counts.values())
    kept_copy = perfgraphs.load_dataset(DATASET, CONFIG, version="0.1.0", data_dir=data_dir, home=home)
    assert _rows(kept_copy) == first  # served from the release kept in the cache, not from the grown build

    # Kept copy gone: the release cannot be made from these measurements, and says so in one line.
    shutil.rmtree(kept)
    with pytest.raises(ReleaseNotReproducibleError) as exc:
        perfgraphs.load_dataset(DATASET, CONFIG, version="0.1.0", data_dir=data_dir, home=home)
    message = str(exc.value)
    assert "\n" not in message and "0.1.0" in message and "measurements" in message and "dippm-h200" in message
    assert read_manifest(working)["content_hash"] != record.content_hash  # the grown build was not replaced

    # Releasing the grown content makes a new minor version; the card follows.
    from perfgraphs.data.cards import render
    from perfgraphs.data.publish import release
    from perfgraphs.data.releases import read_index

    with paths.using(data_dir=data_dir):
        version, records = release(ds, [ds.config(CONFIG)], home=home)
        index = read_index()
    assert version == "0.2.0" and list(index[DATASET]) == ["0.1.0", "0.2.0"]
    assert index[DATASET]["0.1.0"][CONFIG]["content_hash"] == record.content_hash
    card = render(ds, index=index)
    assert "version **0.2.0**" in card and records[CONFIG].content_hash[:16] in card


def test_unknown_version_names_the_released_ones(released):
    import perfgraphs
    from perfgraphs.data.releases import UnknownReleaseError

    data_dir, home, _, _ = released
    with pytest.raises(UnknownReleaseError, match=r"no released version 9\.9\.9 \(released: 0\.1\.0"):
        perfgraphs.load_dataset(DATASET, CONFIG, version="9.9.9", data_dir=data_dir, home=home)


@pytest.fixture(scope="module")
def exported(released, tmp_path_factory):
    """An export of the latest release (after the tests above: 0.2.0 when run in order, else 0.1.0)."""
    from perfgraphs.data.publish import export_release

    data_dir, home, _, _ = released
    out = tmp_path_factory.mktemp("export")
    with paths.using(data_dir=data_dir):
        folder = export_release(out, get_dataset(DATASET), home=home)
    return out, folder


def test_export_is_hub_ready(released, exported, tmp_path, monkeypatch):
    import datasets

    import perfgraphs

    data_dir, home, _, _ = released
    out, folder = exported
    index = json.loads((folder / "releases.json").read_text())["datasets"][DATASET]
    (version, configs), = index.items()
    readme = (folder / "README.md").read_text()
    front = yaml.safe_load(readme.split("---\n")[1])
    assert [c["config_name"] for c in front["configs"]] == [CONFIG]
    hub = datasets.load_dataset(str(folder), CONFIG, cache_dir=str(tmp_path / "hf"))
    assert {s: len(p) for s, p in hub.items()} == configs[CONFIG]["row_counts"]
    ours = perfgraphs.load_dataset(DATASET, CONFIG, version=version, data_dir=data_dir, home=home)
    assert _rows(hub) == _rows(ours)
    default = datasets.load_dataset(str(folder), cache_dir=str(tmp_path / "hf"))  # the card's default config
    assert _rows(default) == _rows(ours)
    # the export serves as a release folder, verified like a build
    monkeypatch.setenv("PERFGRAPHS_HOME", str(tmp_path / "empty-home"))
    served = perfgraphs.load_dataset(DATASET, CONFIG, release_dir=out)
    assert _rows(served) == _rows(ours)
    assert not [p for p in out.rglob(".*")]  # loading left nothing in the folder to upload (no cache)


def test_committed_cards_are_generated_and_current(tmp_path):
    from perfgraphs.data.cards import render, stale_cards, write_cards
    from perfgraphs.registry import DATASETS

    assert stale_cards() == [], "run `perfgraphs datasets cards`"
    for ds in DATASETS.values():
        front = yaml.safe_load(render(ds).split("---\n")[1])
        assert [c["config_name"] for c in front["configs"]] == [c.name for c in ds.configs]
        assert all(f["path"].startswith(f"{c['config_name']}/data/") for c in front["configs"] for f in c["data_files"])
    # adversarial: a hand edit or a registry change makes a card stale
    write_cards(tmp_path)
    assert stale_cards(tmp_path) == []
    card = tmp_path / "dippm.md"
    card.write_text(card.read_text().replace("h200-torch-fp32", "a100-torch-fp32", 1))
    assert stale_cards(tmp_path) == [card]


def test_data_dir_setting_is_checked():
    from perfgraphs.paths import DataDirNotFoundError

    with pytest.raises(DataDirNotFoundError, match="does not exist"):
        with paths.using(data_dir="/nonexistent/perfgraphs-data"):
            paths.graph_pool_dir()


def _site_dirs() -> list[str]:
    """The running interpreter's site-packages folders: a fresh venv layered on them (a .pth) has
    torch and the rest without installing anything."""
    import site

    found = [*site.getsitepackages(), *[p for p in sys.path if p.rstrip("/").endswith("site-packages")]]
    return list(dict.fromkeys(p for p in found if Path(p).is_dir()))


def _wheel_build() -> tuple[list[str], dict]:
    """(pip arguments, environment) that build the wheel offline when a setuptools able to build
    wheels by itself (>= 70.1) is installed (put first on PYTHONPATH); else pip's isolated build
    (which fetches setuptools from the package index)."""
    import os
    from importlib.metadata import distributions

    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    for folder in _site_dirs():
        for dist in distributions(path=[folder]):
            if dist.metadata["Name"] == "setuptools" and tuple(int(x) for x in dist.version.split(".")[:2]) >= (70, 1):
                return ["--no-build-isolation"], {**env, "PYTHONPATH": folder}
    return [], env


def test_installed_wheel_loads_without_the_checkout(released, exported, tmp_path):
    """Build the wheel, install it into a fresh venv outside the checkout, and load from there."""
    data_dir, home, _, _ = released
    out, _ = exported
    src = tmp_path / "src"
    listed = subprocess.run(["git", "-C", str(REPO), "ls-files", "-co", "--exclude-standard"], capture_output=True,
                            text=True, check=True).stdout.split("\n")
    for rel in listed:  # the source tree a wheel is built from: no measurements, no graph pool, no tests
        if rel and not rel.startswith(("data/measurements/", "data/graphs/", "tests/")) or "noise-floor" in rel:
            if (REPO / rel).is_file():
                (src / rel).parent.mkdir(parents=True, exist_ok=True)
                shutil.copy2(REPO / rel, src / rel)
    isolation, build_env = _wheel_build()
    build = subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", *isolation, "-q", "-w",
                            str(tmp_path / "wheel"), str(src)], capture_output=True, text=True, env=build_env,
                           cwd=tmp_path)
    assert build.returncode == 0, build.stderr[-2000:]
    wheel, = (tmp_path / "wheel").glob("perfgraphs-*.whl")
    import zipfile

    names = set(zipfile.ZipFile(wheel).namelist())
    for needed in ("perfgraphs/committed_data/splits/dippm/random-70-15-15-seed0.json",
                   "perfgraphs/committed_data/splits/llm/cpu-torch-fp32/stratified-5-fold-seed0.json",
                   "perfgraphs/committed_data/measurements/noise-floor/noise-floor-dippm-cpu.json",
                   "perfgraphs/data/card_text/dippm.md", "perfgraphs/graph/hf_configs/bert-base-uncased.json",
                   "perfgraphs/paths.py", "perfgraphs/leaderboard/__init__.py", "perfgraphs/loaders/__init__.py",
                   "perfgraphs/leaderboard_data/builds.json", "perfgraphs/leaderboard_data/results/dippm.jsonl",
                   "perfgraphs/leaderboard_data/reference/dippm-sage/predictor.py", "perfgraphs/pool/graph_pool.py",
                   "perfgraphs/data/recipes/graph_set.py", "perfgraphs/evaluation/protocol.py"):
        assert needed in names, needed
    assert not any("/measurements/dippm" in n or "/graphs/timm" in n for n in names)

    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
    python = venv / "bin" / "python"
    purelib = subprocess.run([str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                             capture_output=True, text=True, check=True).stdout.strip()
    Path(purelib, "layered-on-test-env.pth").write_text("\n".join(_site_dirs()) + "\n")
    subprocess.run([str(python), "-m", "pip", "install", "--no-deps", "--no-index", "-q", str(wheel)], check=True,
                   capture_output=True)

    outside = tmp_path / "elsewhere"
    outside.mkdir()
    env = {"PATH": f"{venv / 'bin'}:/usr/bin:/bin", "HOME": str(tmp_path / "user"), "OMP_NUM_THREADS": "1",
           "HF_HUB_OFFLINE": "1", "PERFGRAPHS_HOME": str(tmp_path / "user-cache")}
    script = textwrap.dedent(f"""
        import json, perfgraphs
        from perfgraphs.data import splits
        from perfgraphs.errors import PerfgraphsError
        from perfgraphs.leaderboard.records.results import RESULTS_DIR
        result = {{"package": perfgraphs.__file__, "records": sorted(p.name for p in RESULTS_DIR.glob("*.jsonl")),
                   "split_parts": sorted(splits.get_split({DATASET!r}, "random-70-15-15", 0))}}
        try:
            perfgraphs.load_dataset({DATASET!r}, {CONFIG!r})
        except PerfgraphsError as exc:
            result["unset"] = str(exc)
        released = perfgraphs.load_dataset({DATASET!r}, {CONFIG!r}, release_dir={str(out)!r})
        result["released_rows"] = {{s: len(p) for s, p in released.items()}}
        with_data = perfgraphs.load_dataset({DATASET!r}, {CONFIG!r}, data_dir={str(data_dir)!r}, home=__import__("pathlib").Path({str(home)!r}))
        result["data_dir_rows"] = {{s: len(p) for s, p in with_data.items()}}
        print(json.dumps(result))
    """)
    run = subprocess.run([str(python), "-c", script], cwd=outside, env=env, capture_output=True, text=True, timeout=900)
    assert run.returncode == 0, run.stderr[-3000:]
    result = json.loads(run.stdout.strip().splitlines()[-1])
    assert result["package"].startswith(str(venv)), result["package"]
    assert result["split_parts"] == ["test", "train", "validation"]
    assert "dippm.jsonl" in result["records"]  # the leaderboard's committed records travel with the wheel
    assert "PERFGRAPHS_DATA_DIR" in result["unset"] and "\n" not in result["unset"]
    exported_counts = json.loads((out / "dippm" / "releases.json").read_text())["datasets"][DATASET]
    (record,) = [configs[CONFIG] for configs in exported_counts.values()]
    assert result["released_rows"] == record["row_counts"]
    assert sum(result["data_dir_rows"].values()) >= sum(record["row_counts"].values())

    cli = subprocess.run([str(venv / "bin" / "perfgraphs"), "datasets", "build", "dippm", "--config", CONFIG],
                         cwd=outside, env=env, capture_output=True, text=True, timeout=600)
    assert cli.returncode != 0 and "Traceback" not in cli.stderr
    assert len(cli.stderr.strip().splitlines()) == 1 and "PERFGRAPHS_DATA_DIR" in cli.stderr


def _committed_releases() -> list[tuple[str, str, str]]:
    from perfgraphs.data.releases import read_index

    index = read_index(REPO / "data" / "releases.json")
    return [(name, version, config) for name, by_version in sorted(index.items())
            for version in [max(by_version, key=lambda v: tuple(map(int, v.split("."))))]
            for config in sorted(by_version[version])]


@pytest.mark.parametrize("name,version,config", _committed_releases())
def test_committed_release_reproduces_from_this_checkout(name, version, config, tmp_path):
    """The latest committed release of every config, rebuilt from the checkout into an empty
    cache: byte for byte when its sources are unchanged, else one line naming what changed."""
    import perfgraphs
    from perfgraphs.data.build_inputs import combined_digest
    from perfgraphs.data.manifest import read_manifest
    from perfgraphs.data.recipes import registry_inputs
    from perfgraphs.data.releases import ReleaseNotReproducibleError, kept_folder, release_of

    ds = get_dataset(name)
    cfg = ds.config(config)
    record = release_of(ds, cfg, version)
    try:
        now = registry_inputs(ds, cfg, tmp_path)
    except perfgraphs.PerfgraphsError as exc:  # e.g. external files this machine does not have
        pytest.skip(str(exc))
    try:
        loaded = perfgraphs.load_dataset(name, config, version=version, home=tmp_path)
    except ReleaseNotReproducibleError as exc:
        # only when the sources changed (the graph pool or the store grew), and it names them
        assert combined_digest(now) != record.inputs_sha256 and "changed since the release" in str(exc)
        return
    assert read_manifest(kept_folder(ds, config, version, tmp_path))["content_hash"] == record.content_hash
    assert {s: len(p) for s, p in loaded.items()} == record.row_counts


def test_cli_cards_check_and_release_errors(capsys, tmp_path):
    from perfgraphs.cli import main

    assert main(["datasets", "cards", "--check"]) == 0
    main(["datasets", "cards", "--out", str(tmp_path)])
    (tmp_path / "llm.md").write_text("hand-edited\n")
    assert main(["datasets", "cards", "--check", "--out", str(tmp_path)]) == 1
    assert "stale: " in capsys.readouterr().out
    # a version never released: one line, exit 2, nothing written
    assert main(["datasets", "export", str(tmp_path / "out"), "--dataset", "trappm"]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "no release yet" in err and not (tmp_path / "out").exists()


def test_a_release_is_rebuilt_when_its_sources_grew_without_touching_it(tmp_path):
    """The graph pool records one more failed export (of an architecture this config never
    measured): the sources' digest differs from the release's, its rows do not, so the release
    is rebuilt and served; nothing else would be."""
    import perfgraphs
    from perfgraphs.data.build_inputs import combined_digest
    from perfgraphs.data.manifest import read_manifest
    from perfgraphs.data.recipes import registry_inputs
    from perfgraphs.data.releases import kept_folder, read_index, release_of

    checkout = REPO / "data"
    index = read_index(checkout / "releases.json")
    if CONFIG not in index.get(DATASET, {}).get("0.1.0", {}):
        pytest.skip("no committed release of the H200 config")
    data = tmp_path / "data"
    (data / "graphs" / "timm").mkdir(parents=True)
    for path in (checkout / "graphs" / "timm").iterdir():
        if path.name != "failures.jsonl":
            (data / "graphs" / "timm" / path.name).symlink_to(path)
    failures = (checkout / "graphs" / "timm" / "failures.jsonl").read_text()
    (data / "graphs" / "timm" / "failures.jsonl").write_text(
        failures + json.dumps({"structure_id": "timm:not_a_measured_arch@224", "reason": "test"}) + "\n")
    (data / "measurements").mkdir()
    for store in (checkout / "measurements").iterdir():  # the H200 store as released (0.1.0: the first loan)
        if store.name == "dippm-h200":
            _copy_first_loan_store(store, data / "measurements" / store.name)
        else:
            (data / "measurements" / store.name).symlink_to(store, target_is_directory=store.is_dir())
    (data / "splits").symlink_to(checkout / "splits", target_is_directory=True)
    shutil.copy2(checkout / "releases.json", data / "releases.json")
    ds = get_dataset(DATASET)
    with paths.using(data_dir=data):
        record = release_of(ds, ds.config(CONFIG), "0.1.0")
        now = registry_inputs(ds, ds.config(CONFIG), tmp_path / "home")
    assert record.inputs_sha256 != combined_digest(now)  # the sources differ from the release's
    loaded = perfgraphs.load_dataset(DATASET, CONFIG, version="0.1.0", data_dir=data, home=tmp_path / "home")
    assert {s: len(p) for s, p in loaded.items()} == record.row_counts
    assert read_manifest(kept_folder(ds, CONFIG, "0.1.0", tmp_path / "home"))["content_hash"] == record.content_hash
