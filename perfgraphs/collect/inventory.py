"""``perfgraphs collect inventory DIR``: record the shards of a store written before the inventory.

Why: without ``campaign.json``'s record of every shard (rows and sha256), a shard deleted together
with its sidecar leaves nothing behind, so ``collect verify`` passed and the dataset shrank
silently. A store gains its inventory the first time a campaign writes to it
(:meth:`MeasurementStore.upgrade`); this command runs that same step without a campaign, once the
store verifies file by file, so the record describes verified data. No data file is rewritten:
only ``campaign.json`` (and each ``hardware.json``, which format 2 checksums) — checked here.
"""

from __future__ import annotations

from pathlib import Path

from perfgraphs.atomic import sha256_file
from perfgraphs.collect.errors import StoreError
from perfgraphs.collect.store import MeasurementStore
from perfgraphs.collect.verify import VerifyReport, verify_store


def _data_files(root: Path) -> dict[Path, str]:
    return {p: sha256_file(p) for p in sorted(root.rglob("*.parquet*")) if p.is_file()}


def record_inventory(root: str | Path) -> tuple[bool, VerifyReport]:
    """``(whether anything was written, the report of the store verified against it)``."""
    root = Path(root)
    verify_store(root, legacy_ok=True)  # a damaged store is refused: the record must be of verified data
    store = MeasurementStore(root)
    with store.lock():  # no campaign writes meanwhile
        before = _data_files(root)
        written = store.upgrade()
        if _data_files(root) != before:  # never expected: upgrade writes JSON only
            raise StoreError(f"{root}: a data file changed while its inventory was recorded; verify it")
    return written, verify_store(root)
