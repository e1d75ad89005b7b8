"""Issue 25 item 6, the measurement stores: a stray file with a valid sidecar (another suite's shard,
a held-out store's shard dropped into ``parts/``) is refused by verify and never read; a shard
deleted with its sidecar is seen in a store written before the inventory, once ``collect inventory``
recorded it (and ``collect verify`` refuses such a store until then, saying so).

Stores are copies of small committed ones, changed the way a careless copy would change them."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from perfgraphs.cli import main
from perfgraphs.collect.errors import StoreError
from perfgraphs.collect.metafile import META
from perfgraphs.collect.store import MeasurementStore, load_measurements

MEASUREMENTS = Path(__file__).resolve().parents[1] / "data" / "measurements"
PLATFORM = "cpu-torch-fp32"


def copy_store(name: str, tmp_path: Path) -> Path:
    root = tmp_path / name
    shutil.copytree(MEASUREMENTS / name, root, ignore=shutil.ignore_patterns(".campaign.lock"))
    return root


def legacy(root: Path) -> Path:
    """The store as written before the inventory: campaign.json without ``store`` and checksum,
    hardware.json without checksum (what 5 of the committed stores were)."""
    for path in [root / META, *root.glob("*/hardware.json")]:
        body = json.loads(path.read_text())
        body.pop("sha256", None)
        body.pop("store", None)
        path.write_text(json.dumps(body, indent=2))
    assert MeasurementStore(root).inventory() is None
    return root


def verify(capsys, root: Path) -> tuple[int, str, str]:
    capsys.readouterr()
    code = main(["collect", "verify", str(root)])
    out = capsys.readouterr()
    return code, out.out, out.err


def drop_in(shard: Path, folder: Path, name: str | None = None) -> None:
    folder.mkdir(exist_ok=True)
    for src in (shard, Path(f"{shard}.sha256")):  # the file and its (valid) sidecar
        shutil.copy(src, folder / src.name.replace(shard.name, name or shard.name))


@pytest.mark.parametrize("target, stray, into_parts", [
    ("llm-cpu", "trappm-cpu", False),  # a shard of another suite, in a store without inventory
    ("dippm-cputime-amd-epyc-23059b2f", "predict-heldout-amd-epyc-23059b2f", True),  # held-out rows in parts/
    ("dippm-cputime-amd-epyc-23059b2f", "predict-heldout-amd-epyc-23059b2f", False),
])
def test_a_stray_file_with_a_valid_sidecar_is_refused_and_never_read(tmp_path, capsys, target, stray, into_parts):
    root = copy_store(target, tmp_path)
    if target == "llm-cpu":
        legacy(root)
    rows = load_measurements(root, latest=False).num_rows
    shard = sorted((MEASUREMENTS / stray / PLATFORM).glob("shard-*.parquet"))[0]
    if into_parts:
        drop_in(shard, root / PLATFORM / "parts", "0123456789abcdef0123-01234567.parquet")
    else:
        drop_in(shard, root / PLATFORM, "shard-00999-20261201T000000.parquet")
    code, out, err = verify(capsys, root)
    assert code == 2 and err.count("\n") == 1 and "Traceback" not in err, (out, err)
    assert "from another store" in err or "not recorded in" in err, err
    with pytest.raises(StoreError):
        load_measurements(root)  # builds read through this: the stray rows never enter one
    for f in (root / PLATFORM).rglob("*0123456789abcdef0123*"):
        f.unlink()
    for f in (root / PLATFORM).glob("shard-00999-*"):
        f.unlink()
    assert load_measurements(root, latest=False).num_rows == rows  # and the store's own rows are intact


def test_a_store_without_inventory_is_refused_by_verify_with_the_command_that_fixes_it(tmp_path, capsys):
    root = legacy(copy_store("llm-cpu", tmp_path))
    code, out, err = verify(capsys, root)
    assert code == 2 and err.count("\n") == 1, err
    assert f"perfgraphs collect inventory {root}" in err


def test_inventory_then_a_deleted_shard_and_sidecar_is_seen(tmp_path, capsys):
    root = legacy(copy_store("llm-cpu", tmp_path))
    data = {p: p.read_bytes() for p in root.rglob("*.parquet*")}
    rows = load_measurements(root, latest=False).num_rows
    capsys.readouterr()
    assert main(["collect", "inventory", str(root)]) == 0
    out = capsys.readouterr().out
    assert "recorded the 15 shards" in out and f"{rows} rows" in out
    assert {p: p.read_bytes() for p in root.rglob("*.parquet*")} == data  # no data file rewritten
    assert verify(capsys, root)[0] == 0
    assert main(["collect", "inventory", str(root)]) == 0  # a second time: nothing to do
    assert "already records its shards" in capsys.readouterr().out
    shard = sorted((root / PLATFORM).glob("shard-*.parquet"))[3]
    shard.unlink()
    Path(f"{shard}.sha256").unlink()
    code, out, err = verify(capsys, root)
    assert code == 2 and "but missing" in err and err.count("\n") == 1, err
    with pytest.raises(StoreError, match="but missing"):
        load_measurements(root)


def test_inventory_refuses_a_damaged_store(tmp_path, capsys):
    root = legacy(copy_store("llm-cpu", tmp_path))
    shard = sorted((root / PLATFORM).glob("shard-*.parquet"))[0]
    shard.write_bytes(shard.read_bytes()[:-10])  # truncated: its sidecar no longer matches
    assert main(["collect", "inventory", str(root)]) == 2
    assert "does not match sidecar" in capsys.readouterr().err
    assert MeasurementStore(root).inventory() is None  # nothing recorded of a damaged store


def test_a_campaign_refuses_a_store_of_another_suite(tmp_path):
    """What verify would refuse afterwards is refused before anything is measured."""
    from perfgraphs.collect.campaign import CampaignOptions, RowSink, prepare_campaign
    from perfgraphs.collect.plan import parse_plan

    root = copy_store("llm-cpu", tmp_path)
    plan = parse_plan({"suite": "other", "protocol": "tiny", "groups": [
        {"models": ["timm:resnet10t"], "input_sizes": [32]}]}, "other")
    store = MeasurementStore(root)
    opts = CampaignOptions(out=root)
    state = prepare_campaign(plan, opts, store, measured_here=False)
    with pytest.raises(StoreError, match="holds the suite 'llm-cpu'"):
        RowSink(plan, opts, state, store, here=store.machine())  # the same machine: only the suite differs
