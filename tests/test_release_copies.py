"""Issue 25 item 6: a kept release copy is independent of the build it was copied from. It used
to be hard links: damage to the build was damage to the copy, and after the build was repaired
(rebuilt) the copy kept the damaged bytes, so ``load_dataset(version=)`` kept failing on it.

A real build (the ML.ENERGY config of perfgraphs/llm, built by its own code from the local copy
of the upstream files) kept by :func:`perfgraphs.data.releases.keep`, as ``reproduce`` keeps it."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from perfgraphs.data.manifest import read_manifest, verify
from perfgraphs.errors import DatasetIntegrityError

MLENERGY = Path(__file__).resolve().parents[2] / "shared" / "external" / "mlenergy-leaderboard"
if os.environ.get("PERFGRAPHS_EXTERNAL_DIR"):
    MLENERGY = Path(os.environ["PERFGRAPHS_EXTERNAL_DIR"]) / "mlenergy-leaderboard"
pytestmark = pytest.mark.skipif(not MLENERGY.is_dir(), reason="no local copy of the ML.ENERGY files")


def _build(home: Path) -> Path:
    from perfgraphs.data.tabular import build_mlenergy_config
    from perfgraphs.registry import get_dataset

    ds = get_dataset("llm")
    return build_mlenergy_config(ds, ds.config("mlenergy"), home=home, external_dir=MLENERGY)


def _flip_a_byte(folder: Path) -> None:
    """Bit rot in place (what a hard link carries over): one byte of the first shard changed."""
    rel = next(r for r in read_manifest(folder)["files"] if r.endswith(".parquet"))
    with open(folder / rel, "r+b") as f:
        f.seek(100)
        byte = f.read(1)
        f.seek(100)
        f.write(bytes([byte[0] ^ 0xFF]))


def test_damage_to_the_build_does_not_reach_the_kept_copy_and_a_repair_heals(tmp_path, monkeypatch):
    from perfgraphs.data.releases import keep

    monkeypatch.setenv("PERFGRAPHS_HOME", str(tmp_path / "home"))
    working = _build(tmp_path / "home")
    kept = keep(working, tmp_path / "kept" / "mlenergy")
    verify(kept)
    _flip_a_byte(working)
    with pytest.raises(DatasetIntegrityError):
        verify(working, decode_rows=False)
    verify(kept)  # a separate copy: still the release's bytes

    # the kept copy damaged on its own: keeping the (repaired) build again replaces it
    _flip_a_byte(kept)
    working = _build(tmp_path / "home")  # the repair: a rebuild swaps in new files
    verify(working)
    assert keep(working, kept) == kept
    verify(kept)
