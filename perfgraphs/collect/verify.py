"""``perfgraphs collect verify DIR``: is this store exactly what its campaigns wrote?

Checked: the path holds a store (``campaign.json``); campaign.json and every hardware.json match
their embedded checksums; every Parquet file has its sidecar and every sidecar its file; every file
matches its sidecar and reads; every shard campaign.json records is there with the recorded row
count and sha256, and no shard is there that it does not record; no file is there that a campaign
does not write; every row belongs to the store (its suite, campaign and platform folder:
:mod:`perfgraphs.collect.belonging`); two copies of one measurement (a crash between compaction
steps) are identical.

What a crash leaves between the steps of a write (temp files, a sidecar whose file never appeared
next to that file's temp file, a compacted shard not yet recorded while its parts remain) is a
note, not a failure: reading already handles it, and the next campaign run removes it. Anything
that may mean lost or added data is a failure.
"""

from __future__ import annotations

import json
import time
from dataclasses import dataclass, field
from pathlib import Path

import pyarrow as pa

from perfgraphs.atomic import is_temp
from perfgraphs.collect.errors import (CorruptStoreFileError, IncompleteStoreError, LegacyStoreError,
                                       StoreError, StoreNotFoundError)
from perfgraphs.collect.metafile import HARDWARE, META, PARTS, read_campaign, read_hardware
from perfgraphs.collect.belonging import foreign_rows
from perfgraphs.collect.consistency import consistency
from perfgraphs.collect.store import MeasurementStore, read_sidecar, read_verified


@dataclass
class VerifyReport:
    root: Path
    shards: int = 0
    parts: int = 0
    rows: int = 0  # distinct measurements
    statuses: dict[str, int] = field(default_factory=dict)
    legacy: bool = False  # written before campaign.json recorded row counts
    notes: list[str] = field(default_factory=list)

    def summary(self) -> str:
        counts = ", ".join(f"{k}={v}" for k, v in sorted(self.statuses.items()))
        checked = "sha256" if self.legacy else "sha256 and row counts against campaign.json"
        return (f"{self.root}: ok, {self.shards} shards + {self.parts} parts verified ({checked}), "
                f"{self.rows} rows ({counts})")


def require_store(root: Path) -> None:
    if not root.exists():
        raise StoreNotFoundError(f"no measurement store at {root}: no such file or directory")
    if not root.is_dir():
        raise StoreNotFoundError(f"{root} is a file, not a measurement store (a folder with {META})")
    if not (root / META).is_file():
        hint = (f"; it looks like a platform folder of the store {root.parent}"
                if (root.parent / META).is_file() else "")
        raise StoreNotFoundError(f"{root} is not a measurement store: it has no {META}{hint}")


def verify_store(root: str | Path, attempts: int = 5, legacy_ok: bool = False) -> VerifyReport:
    """The report of a store that verifies; otherwise the first problem found, as a StoreError
    naming how many more there are. A store a running campaign changes meanwhile is read again.

    A store without an inventory (``legacy``) is refused unless ``legacy_ok``: a shard deleted with
    its sidecar leaves no trace there, so "ok" would be a claim verify cannot make."""
    root = Path(root)
    require_store(root)
    store = MeasurementStore(root)
    for attempt in range(attempts):
        before = store.state()
        problems, report = _check(store)
        if not problems:
            if report.legacy and not legacy_ok:
                raise LegacyStoreError(
                    f"{root}: its files verify (sha256), but it was written before {META} recorded its shards, "
                    f"so a shard deleted with its sidecar cannot be seen: record them with "
                    f"`perfgraphs collect inventory {root}`")
            return report
        if attempt == attempts - 1 or store.state() == before:
            break
        time.sleep(0.2)
    first = problems[0]
    if len(problems) > 1:
        first.args = (f"{first} (and {len(problems) - 1} more problem(s))",)
    raise first


def _check(store: MeasurementStore) -> tuple[list[StoreError], VerifyReport]:
    root = store.root
    report = VerifyReport(root)
    try:
        meta, inventory = read_campaign(root)
    except StoreError as exc:
        return [exc], report
    report.legacy = inventory is None
    problems: list[StoreError] = []
    for entry in sorted(root.iterdir()):
        if entry.name.startswith(".") or entry.is_dir() or entry.name == META:
            if is_temp(entry):
                report.notes.append(f"{entry}: temp file of an interrupted write")
            continue
        problems.append(IncompleteStoreError(f"{entry}: unexpected file in a measurement store"))

    shards: dict[str, tuple[pa.Table, str]] = {}
    parts: dict[str, pa.Table] = {}
    for d in store.platform_dirs():
        for folder in (d, d / PARTS):
            for f in sorted(folder.iterdir()) if folder.is_dir() else []:
                kind = _kind(f, in_parts=folder != d)
                if kind == "temp":
                    report.notes.append(f"{f}: temp file of an interrupted write")
                elif kind in ("shard", "part"):
                    try:
                        table = read_verified(f)
                        if kind == "shard":
                            shards[store.relative(f)] = (table, read_sidecar(f))
                        else:
                            parts[store.relative(f)] = table
                    except StoreError as exc:
                        problems.append(exc)
                elif kind == "unexpected":
                    problems.append(IncompleteStoreError(f"{f}: unexpected file in a measurement store"))
        problems += _hardware_problems(d / HARDWARE, inventory is not None)

    found, notes = consistency(root, inventory, shards, parts)
    problems += found
    report.notes += notes
    written = {k: t for k, (t, _) in shards.items()} | parts
    problems += foreign_rows(root, meta, written)
    problems += _copy_problems(root, written)

    rows = {r["measurement_id"]: r["status"] for t in written.values()
            for r in t.select(["measurement_id", "status"]).to_pylist()}
    report.shards, report.parts, report.rows = len(shards), len(parts), len(rows)
    for status in rows.values():
        report.statuses[status] = report.statuses.get(status, 0) + 1
    return problems, report


def _kind(f: Path, in_parts: bool) -> str:
    if is_temp(f):
        return "temp"
    if f.name.startswith("."):  # editor and OS droppings: never read, so never a problem
        return "ignored"
    if f.is_dir():
        return "ignored" if f.name == PARTS and not in_parts else "unexpected"
    if f.name.endswith(".parquet.sha256"):
        return "sidecar"
    if f.is_file() and f.suffix == ".parquet" and (in_parts or f.name.startswith("shard-")):
        return "part" if in_parts else "shard"
    if f.name == HARDWARE and not in_parts:
        return "hardware"
    return "unexpected"


def _hardware_problems(path: Path, checksummed_store: bool) -> list[StoreError]:
    try:
        probe, checksummed = read_hardware(path)
    except StoreError as exc:
        return [exc]
    if probe is not None and checksummed_store and not checksummed:
        return [CorruptStoreFileError(path, "carries no checksum, as every hardware.json of this store format does")]
    return []


def _copy_problems(root: Path, written: dict[str, pa.Table]) -> list[StoreError]:
    """Two copies of one measurement_id (left by a crash mid-compaction) must be the same row."""
    seen: dict[str, tuple[str, str]] = {}
    for name, table in sorted(written.items()):
        for row in table.to_pylist():
            canonical = json.dumps(row, sort_keys=True, default=str)  # NaN-safe equality
            first = seen.setdefault(row["measurement_id"], (name, canonical))
            if first[1] != canonical:
                return [IncompleteStoreError(
                    f"{root / name}: measurement {row['measurement_id']} differs from its copy in {root / first[0]}")]
    return []
