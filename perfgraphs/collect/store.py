"""Append-only, crash-safe measurement storage: small Parquet files under ``<root>/<platform>/``.

Why parts and shards: a SIGKILL may arrive at any moment, so each finished configuration is
written at once as its own small *part* (atomic, see :mod:`perfgraphs.atomic`). Every
``flush_every`` configurations (and at the end) parts are compacted into one *shard* the same way,
the shard is recorded in ``campaign.json``'s inventory (rows and sha256), then the parts are
deleted. A crash between the steps leaves rows in both places; rows are identified by
``measurement_id``, so compaction and reading drop the copies, and a shard not yet recorded is
recognised as such because every one of its rows is still in a part.

Each Parquet file has a ``.sha256`` sidecar written *before* the file itself appears, so a file
whose bytes changed afterwards (bit rot, truncation, a bad copy) is detected, as is a file with no
sidecar or any file pyarrow cannot read; the inventory catches what per-file checks cannot (a
shard deleted with its sidecar, a shard swapped for another). ``campaign.json`` and
``hardware.json`` carry their own checksums (:mod:`perfgraphs.collect.metafile`).
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import time
from pathlib import Path
from typing import Iterator

import pyarrow as pa
import pyarrow.parquet as pq

from perfgraphs.atomic import atomic_write_table, fsync_dir, is_temp, os_errors, sha256_file, sidecar_of
from perfgraphs.collect.belonging import foreign_rows
from perfgraphs.collect.consistency import consistency
from perfgraphs.collect.errors import (CampaignLockedError, CorruptShardError,
                                       ForeignMachineError, IncompleteStoreError, StoreError)
from perfgraphs.collect.metafile import (HARDWARE, META, PARTS, Inventory, read_campaign,
                                         read_hardware, write_campaign, write_hardware)
from perfgraphs.collect.rounds import fold, round_of
from perfgraphs.collect.schema import ADDED_COLUMNS, SCHEMA, to_table

__all__ = ["MeasurementStore", "load_measurements", "read_sidecar", "read_verified"]

LOCK = ".campaign.lock"
STATUS_RANK = {"ok": 0, "oom": 1, "error": 2}


def hardware_identity(row: dict) -> str | None:
    """Which hardware a row's numbers belong to: the GPU model on CUDA platforms (the host does not
    change a GPU time), the CPU model and machine id on CPU platforms."""
    if row.get("device") == "cuda":
        return f"gpu {row['gpu_name']}" if row.get("gpu_name") else None
    if row.get("machine_id"):
        return f"cpu {row.get('cpu_model') or '?'} (machine {row['machine_id']})"
    return None


def read_sidecar(path: Path) -> str:
    """The sha256 a file's sidecar records; exactly ``<64 hex>\\n``, as written."""
    sidecar = sidecar_of(path)
    with os_errors(f"read {sidecar}"):
        try:
            raw = sidecar.read_bytes()
        except FileNotFoundError:
            if not path.exists():
                raise IncompleteStoreError(f"{path} disappeared while being read") from None
            raise CorruptShardError(
                path, f"no sha256 sidecar ({sidecar.name}): nothing vouches for its bytes") from None
    text = raw.decode("ascii", "replace")
    if len(raw) != 65 or not raw.endswith(b"\n") or any(c not in "0123456789abcdef" for c in text[:64]):
        raise CorruptShardError(path, f"its sidecar {sidecar.name} is damaged (not a sha256 line)")
    return text[:64]


def read_verified(path: Path) -> pa.Table:
    """Read one file, raising CorruptShardError (with the path) on checksum or format failure."""
    expected = read_sidecar(path)
    with os_errors(f"read {path}"):
        try:
            actual = sha256_file(path)
        except FileNotFoundError:
            raise IncompleteStoreError(f"{path} disappeared while being read") from None
    if expected != actual:
        raise CorruptShardError(path, f"sha256 {actual[:12]}… does not match sidecar {expected[:12]}…")
    try:
        table = pq.read_table(path)
    except Exception as exc:  # pyarrow raises ArrowInvalid, OSError, ... on damaged files
        raise CorruptShardError(path, f"pyarrow cannot read it ({type(exc).__name__}: "
                                      f"{str(exc).splitlines()[0][:160]})") from None
    missing = set(SCHEMA.names) - set(table.column_names)
    for name in sorted(missing & ADDED_COLUMNS):  # written before the column existed: null
        table = table.append_column(SCHEMA.field(name), pa.nulls(table.num_rows, SCHEMA.field(name).type))
    missing -= ADDED_COLUMNS
    if missing:
        raise CorruptShardError(path, f"missing columns {sorted(missing)[:5]}")
    return table.select(SCHEMA.names).cast(SCHEMA)


class MeasurementStore:
    """Measurements of one suite: ``<root>/<platform>/shard-*.parquet`` plus pending parts."""

    def __init__(self, root: str | Path):
        self.root = Path(root)

    # -- files --------------------------------------------------------------------------------
    def platform_dirs(self) -> list[Path]:
        if not self.root.is_dir():
            return []
        return sorted(p for p in self.root.iterdir() if p.is_dir() and not p.name.startswith("."))

    def shard_files(self) -> list[Path]:
        return [f for d in self.platform_dirs() for f in sorted(d.glob("shard-*.parquet"))]

    def part_files(self) -> list[Path]:
        return [f for d in self.platform_dirs() for f in sorted((d / PARTS).glob("*.parquet"))]

    def files(self) -> list[Path]:
        return self.shard_files() + self.part_files()

    def relative(self, path: Path) -> str:
        return path.relative_to(self.root).as_posix()

    @contextlib.contextmanager
    def lock(self) -> Iterator[None]:
        with os_errors(f"lock the measurement store {self.root}"):
            self.root.mkdir(parents=True, exist_ok=True)
            fd = os.open(self.root / LOCK, os.O_RDWR | os.O_CREAT, 0o644)
        try:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                raise CampaignLockedError(
                    f"another campaign is writing to {self.root} (lock {self.root / LOCK})") from None
            yield
        finally:
            os.close(fd)

    # -- metadata -----------------------------------------------------------------------------
    def inventory(self) -> Inventory | None:
        """What campaign.json records of the shards; None for a store older than the inventory."""
        return read_campaign(self.root)[1]

    def metadata(self) -> dict:
        """The campaigns' own metadata (runs, drift baseline), without the store's inventory."""
        return read_campaign(self.root)[0]

    def save_metadata(self, meta: dict) -> None:
        write_campaign(self.root, meta, self._writable_inventory())

    def save_hardware(self, platform: str, probe: dict) -> None:
        write_hardware(self.root / platform / HARDWARE, probe)

    def hardware(self, platform: str) -> dict | None:
        return read_hardware(self.root / platform / HARDWARE)[0]

    def _writable_inventory(self) -> Inventory:
        inventory = self.inventory()
        return inventory if inventory is not None else self._adopt()

    def _adopt(self) -> Inventory:
        """A legacy store's inventory: its shards as they verify now (the next write records it)."""
        return Inventory({self.relative(s): {"rows": read_verified(s).num_rows, "sha256": read_sidecar(s)}
                          for s in self.shard_files()})

    def upgrade(self) -> bool:
        """Give a legacy store (call under the lock) its inventory and checksummed hardware.json;
        True if anything was written. Its data files are not touched."""
        if (self.root / META).exists() and self.inventory() is not None:
            return False
        if not (self.root / META).exists() and not self.shard_files():
            return False  # a new store: its first write (campaign.json) is already format 2
        for d in self.platform_dirs():
            probe, checksummed = read_hardware(d / HARDWARE)
            if probe is not None and not checksummed:
                write_hardware(d / HARDWARE, probe)
        write_campaign(self.root, self.metadata(), self._adopt())
        return True

    # -- reading ------------------------------------------------------------------------------
    def state(self) -> tuple:
        """What identifies the rows this store holds now; changes whenever a campaign writes: the
        listing of every file (files are written once; new rows come in new files) and
        campaign.json's stamp."""
        names = []
        for d in self.platform_dirs():
            for folder in (d, d / PARTS):
                if folder.is_dir():
                    names += [self.relative(f) for f in folder.iterdir()]
        meta = self.root / META
        stamp = (meta.stat().st_mtime_ns, meta.stat().st_size) if meta.exists() else None
        return stamp, tuple(sorted(names))

    def _read_all(self, attempts: int = 5) -> list[pa.Table]:
        """Every file, verified and checked against the inventory. A running campaign may compact
        parts into a shard while we read: an inconsistency in a store that changed meanwhile
        means "read again", in one that did not, a damaged store."""
        for attempt in range(attempts):
            before = self.state()
            try:
                return self._read_consistent()
            except StoreError:
                if attempt == attempts - 1 or self.state() == before:
                    raise
                time.sleep(0.2)
        return []

    def _read_consistent(self) -> list[pa.Table]:
        meta, inventory = read_campaign(self.root)
        shards = {self.relative(f): (read_verified(f), read_sidecar(f)) for f in self.shard_files()}
        parts = {self.relative(f): read_verified(f) for f in self.part_files()}
        problems, _ = consistency(self.root, inventory, shards, parts)
        problems += foreign_rows(self.root, meta, {k: t for k, (t, _) in shards.items()} | parts)
        if problems:
            raise problems[0]
        return [t for t, _ in shards.values()] + list(parts.values())

    def read(self, latest: bool = True) -> pa.Table:
        """All rows, verified; exact copies (same measurement_id) are dropped. With ``latest``, one
        *label* row per configuration: its rounds (:meth:`round_rows`) folded into the median of
        the rounds, with per-round values and spread (:func:`perfgraphs.collect.rounds.fold`)."""
        rows = self.round_rows() if latest else self._unique_rows()
        if latest:
            by_key: dict[str, list[dict]] = {}
            for r in rows:
                by_key.setdefault(r["key"], []).append(r)
            rows = [fold(group) for group in by_key.values()]
        return to_table(rows) if rows else SCHEMA.empty_table()

    def _unique_rows(self) -> list[dict]:
        tables = self._read_all()
        if not tables:
            return []
        rows = pa.concat_tables(tables).to_pylist()
        return list({r["measurement_id"]: r for r in rows}.values())

    def round_rows(self) -> list[dict]:
        """One row per (configuration, round): the best status (ok > oom > error), then the most
        recent attempt."""
        best: dict[tuple[str, int], dict] = {}
        for r in sorted(self._unique_rows(), key=lambda r: r["measured_at_utc"] or ""):  # oldest first
            slot = (r["key"], round_of(r))
            old = best.get(slot)
            if old is None or STATUS_RANK.get(r["status"], 3) <= STATUS_RANK.get(old["status"], 3):
                best[slot] = r
        return list(best.values())

    def finished_keys(self, retry_errors: bool = False) -> set[str]:
        """Configurations with at least one finished round."""
        return {key for key, _ in self.finished_rounds(retry_errors)}

    def finished_rounds(self, retry_errors: bool = False) -> set[tuple[str, int]]:
        return {(r["key"], round_of(r)) for r in self.round_rows()
                if not (retry_errors and r["status"] == "error")}

    def machine(self) -> str | None:
        """The hardware this store's rows belong to (see :func:`hardware_identity`): recorded in
        campaign.json by the first campaign; for an older store, that of its rows."""
        recorded = self.metadata().get("hardware_identity")
        if recorded:
            return recorded
        # the first row that names its hardware decides (append admits no other), so read file by
        # file and stop there: reading the whole store per appended row made n appends cost n² reads
        for f in self.files():
            for r in read_verified(f).to_pylist():
                if hardware_identity(r):
                    return hardware_identity(r)
        return None

    # -- writing ------------------------------------------------------------------------------
    def append(self, row: dict) -> Path:
        """Write one row at once (its own part file). A row measured on other hardware than the
        store's is refused: a suite's labels come from one machine (:func:`hardware_identity`)."""
        mine, theirs = self.machine(), hardware_identity(row)
        if mine and theirs and mine != theirs:
            raise ForeignMachineError(
                f"{self.root} holds measurements of {mine}; this row was measured on {theirs}: "
                f"measure into that machine's own store (perfgraphs collect PLAN --out DIR)")
        folder = self.root / row["platform"] / PARTS
        path = folder / f"{row['key']}-{row['measurement_id'][:8]}.parquet"
        atomic_write_table(to_table([row]), path)
        return path

    def compact(self) -> list[Path]:
        """Merge each platform's parts into one new shard; returns the shards written."""
        written = []
        meta, inventory = self.metadata(), self._writable_inventory()
        for d in self.platform_dirs():
            parts = sorted((d / PARTS).glob("*.parquet"))
            if not parts:
                continue
            pending = [r for p in parts for r in read_verified(p).to_pylist()]
            in_shards = set()
            for shard in sorted(d.glob("shard-*.parquet")):
                ids = read_verified(shard).column("measurement_id").to_pylist()
                if self.relative(shard) not in inventory.shards:
                    if not set(ids) <= {r["measurement_id"] for r in pending}:
                        continue  # not written by this store: reading reports it, compaction ignores it
                    # an interrupted compaction's shard (its rows are all still in parts): keep it
                    inventory.shards[self.relative(shard)] = {"rows": len(ids), "sha256": read_sidecar(shard)}
                    write_campaign(self.root, meta, inventory)
                in_shards.update(ids)
            rows = [r for r in pending if r["measurement_id"] not in in_shards]
            if rows:
                stamp = time.strftime("%Y%m%dT%H%M%S", time.gmtime())
                n = len(list(d.glob("shard-*.parquet")))
                shard = d / f"shard-{n:05d}-{stamp}.parquet"
                digest = atomic_write_table(to_table(rows), shard)
                written.append(shard)
                # recorded before its parts go: a crash in between leaves rows in both, never in neither
                inventory.shards[self.relative(shard)] = {"rows": len(rows), "sha256": digest}
                write_campaign(self.root, meta, inventory)
            with os_errors(f"delete compacted parts in {d / PARTS}"):
                for p in parts:
                    p.unlink()
                    sidecar_of(p).unlink(missing_ok=True)
                fsync_dir(d / PARTS)
        return written

    def remove_leftovers(self) -> int:
        """Remove what interrupted writes leave (call under the lock): temp files, sidecars whose
        file never appeared, shards whose compaction was not recorded. A recorded shard's sidecar is
        kept even without its shard: that shard is missing, and reading says so."""
        inventory = self.inventory()
        recorded = set(inventory.shards) if inventory is not None else set()
        pending = set()
        if inventory is not None:
            pending = {i for p in self.part_files() for i in read_verified(p).column("measurement_id").to_pylist()}
        removed = 0
        with os_errors(f"remove leftovers of interrupted writes in {self.root}"):
            for d in self.platform_dirs():
                for folder in (d, d / PARTS):
                    if not folder.is_dir():
                        continue
                    for f in sorted(folder.iterdir()):  # a shard sorts before its sidecar
                        if not f.exists():  # the sidecar of a shard removed just before
                            continue
                        name = self.relative(f)
                        orphan = f.name.endswith(".sha256") and not f.with_name(f.name[:-7]).exists()
                        unrecorded = (inventory is not None and folder == d and f.name.startswith("shard-")
                                      and f.suffix == ".parquet" and name not in recorded
                                      and set(read_verified(f).column("measurement_id").to_pylist()) <= pending)
                        if is_temp(f) or (orphan and name[:-7] not in recorded) or unrecorded:
                            f.unlink()
                            removed += 1
        return removed

    def pending_parts(self) -> int:
        return len(self.part_files())


def load_measurements(root: str | Path, latest: bool = True) -> pa.Table:
    """Public reader: every verified measurement under ``root`` (one suite's folder)."""
    return MeasurementStore(root).read(latest=latest)

