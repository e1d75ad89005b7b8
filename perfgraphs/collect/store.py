"""Append-only, crash-safe measurement storage: small Parquet files under ``<root>/<platform>/``.

Why parts and shards: a SIGKILL may arrive at any moment, so each finished configuration is
written at once as its own small *part* (atomic: temp file in the same directory, fsync,
``os.replace``, fsync of the directory). Every ``flush_every`` configurations (and at the end)
parts are compacted into one *shard* the same way, then deleted. A crash between the two leaves
rows in both places; rows are identified by ``measurement_id``, so compaction and reading drop
the copies. Each file has a ``.sha256`` sidecar written *before* the file itself appears, so a
file whose bytes changed afterwards (bit rot, truncation, a bad copy) is detected, as is any file
pyarrow cannot read.
"""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import json
import os
import time
from pathlib import Path
from typing import Iterator

import pyarrow as pa
import pyarrow.parquet as pq

from perfgraphs.collect.errors import CampaignLockedError, CorruptShardError
from perfgraphs.collect.schema import ADDED_COLUMNS, SCHEMA, to_table

PARTS = "parts"
META = "campaign.json"
LOCK = ".campaign.lock"
STATUS_RANK = {"ok": 0, "oom": 1, "error": 2}


def _fsync_dir(path: Path) -> None:
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def sha256_file(path: Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


def atomic_write_bytes(path: Path, data: bytes) -> None:
    tmp = path.with_name(f".{path.name}.tmp-{os.getpid()}")
    with open(tmp, "wb") as f:
        f.write(data)
        f.flush()
        os.fsync(f.fileno())
    os.replace(tmp, path)
    _fsync_dir(path.parent)


def atomic_write_table(table: pa.Table, path: Path) -> None:
    """Temp file → fsync → sidecar (atomic) → os.replace → fsync dir."""
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.tmp-{os.getpid()}")
    pq.write_table(table, tmp, compression="zstd")
    with open(tmp, "rb+") as f:
        os.fsync(f.fileno())
    atomic_write_bytes(path.with_name(path.name + ".sha256"), (sha256_file(tmp) + "\n").encode())
    os.replace(tmp, path)
    _fsync_dir(path.parent)


def read_verified(path: Path) -> pa.Table:
    """Read one file, raising CorruptShardError (with the path) on checksum or format failure."""
    sidecar = path.with_name(path.name + ".sha256")
    if sidecar.exists():
        expected = sidecar.read_text().strip()
        actual = sha256_file(path)
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

    def files(self) -> list[Path]:
        out = []
        for d in self.platform_dirs():
            out += sorted(d.glob("shard-*.parquet"))
            out += sorted((d / PARTS).glob("*.parquet"))
        return out

    def remove_leftovers(self) -> int:
        """Temp files and orphan sidecars of writes a crash interrupted (call under the lock)."""
        removed = 0
        for d in self.platform_dirs():
            for folder in (d, d / PARTS):
                if not folder.is_dir():
                    continue
                for f in folder.iterdir():
                    orphan = f.name.endswith(".sha256") and not f.with_name(f.name[:-7]).exists()
                    if (f.name.startswith(".") and ".tmp-" in f.name) or orphan:
                        f.unlink()
                        removed += 1
        return removed

    @contextlib.contextmanager
    def lock(self) -> Iterator[None]:
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

    # -- reading ------------------------------------------------------------------------------
    def _read_all(self, attempts: int = 5) -> list[pa.Table]:
        """Every file, verified. A running campaign may compact parts into a shard between the
        listing and the read: a file that vanished that way means "list again", not corruption."""
        for attempt in range(attempts):
            files = self.files()
            try:
                return [read_verified(f) for f in files]
            except CorruptShardError:
                if all(f.exists() for f in files) or attempt == attempts - 1:
                    raise
                time.sleep(0.2)
        return []

    def read(self, latest: bool = True) -> pa.Table:
        """All rows, verified. Exact copies (same measurement_id) are dropped; with ``latest``,
        one row per key: the best status (ok > oom > error), then the most recent."""
        tables = self._read_all()
        if not tables:
            return SCHEMA.empty_table()
        rows = pa.concat_tables(tables).to_pylist()
        unique = list({r["measurement_id"]: r for r in rows}.values())
        if latest:
            best: dict[str, dict] = {}
            for r in sorted(unique, key=lambda r: r["measured_at_utc"] or ""):  # oldest first
                old = best.get(r["key"])
                if old is None or STATUS_RANK.get(r["status"], 3) <= STATUS_RANK.get(old["status"], 3):
                    best[r["key"]] = r
            unique = list(best.values())
        return to_table(unique)

    def finished_keys(self, retry_errors: bool = False) -> set[str]:
        table = self.read(latest=True)
        keys, statuses = table.column("key").to_pylist(), table.column("status").to_pylist()
        return {k for k, s in zip(keys, statuses) if not (retry_errors and s == "error")}

    # -- writing ------------------------------------------------------------------------------
    def append(self, row: dict) -> Path:
        folder = self.root / row["platform"] / PARTS
        path = folder / f"{row['key']}-{row['measurement_id'][:8]}.parquet"
        atomic_write_table(to_table([row]), path)
        return path

    def compact(self) -> list[Path]:
        """Merge each platform's parts into one new shard; returns the shards written."""
        written = []
        for d in self.platform_dirs():
            parts = sorted((d / PARTS).glob("*.parquet"))
            if not parts:
                continue
            in_shards = set()
            for shard in sorted(d.glob("shard-*.parquet")):
                in_shards.update(read_verified(shard).column("measurement_id").to_pylist())
            rows = [r for p in parts for r in read_verified(p).to_pylist()
                    if r["measurement_id"] not in in_shards]
            if rows:
                stamp = time.strftime("%Y%m%dT%H%M%S", time.gmtime())
                n = len(list(d.glob("shard-*.parquet")))
                shard = d / f"shard-{n:05d}-{stamp}.parquet"
                atomic_write_table(to_table(rows), shard)
                written.append(shard)
            for p in parts:
                p.unlink()
                p.with_name(p.name + ".sha256").unlink(missing_ok=True)
            _fsync_dir(d / PARTS)
        return written

    def pending_parts(self) -> int:
        return sum(len(list((d / PARTS).glob("*.parquet"))) for d in self.platform_dirs())

    # -- campaign metadata --------------------------------------------------------------------
    def metadata(self) -> dict:
        path = self.root / META
        if not path.exists():
            return {}
        try:
            return json.loads(path.read_text())
        except json.JSONDecodeError as exc:
            raise CorruptShardError(path, f"not valid JSON ({exc})") from None

    def save_metadata(self, meta: dict) -> None:
        self.root.mkdir(parents=True, exist_ok=True)
        atomic_write_bytes(self.root / META, (json.dumps(meta, indent=2, sort_keys=True) + "\n").encode())

    def save_hardware(self, platform: str, probe: dict) -> None:
        folder = self.root / platform
        folder.mkdir(parents=True, exist_ok=True)
        atomic_write_bytes(folder / "hardware.json", (json.dumps(probe, indent=2, sort_keys=True) + "\n").encode())

    def hardware(self, platform: str) -> dict | None:
        path = self.root / platform / "hardware.json"
        return json.loads(path.read_text()) if path.exists() else None


def load_measurements(root: str | Path, latest: bool = True) -> pa.Table:
    """Public reader: every verified measurement under ``root`` (one suite's folder)."""
    return MeasurementStore(root).read(latest=latest)
