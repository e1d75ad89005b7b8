"""The pool of built graph structures: resumable, atomic, deterministic on disk.

Structures are built in each family's candidate order and appended to Parquet part files
(written to a temporary name, fsynced, then renamed: a killed build loses at most the part in
progress). Candidates that cannot be exported are recorded in ``failures.jsonl`` with the reason,
so a rerun skips them and the dataset stays the same. Running out of memory is a fact about the
machine at that moment, not about the candidate: it is never recorded (a family walk stops, an
explicit list skips the structure for a later run). ``compact`` rewrites the pool sorted by
structure id into fixed-size shards, so two builds on the same versions have the same hashes.
"""

from __future__ import annotations

import hashlib
import json
import os
import uuid
import warnings
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Iterable

import pyarrow as pa
import pyarrow.parquet as pq

from perfgraphs.pool.structures import SCHEMA, StoredStructure, decode, encode, structure_id
from perfgraphs.pool.suites import batches_for, candidates, structures_needed
from perfgraphs.atomic import atomic_write_table
from perfgraphs.errors import CorruptFileError, PerfgraphsError

SHARD_ROWS = 128
PART_ROWS = 4


class ExportOutOfMemory(PerfgraphsError):
    """The machine ran out of memory while exporting a structure (retry with more free memory)."""


def _is_out_of_memory(exc: BaseException) -> bool:
    # torch reports a failed host allocation as RuntimeError("... can't allocate memory ..."),
    # possibly wrapped by the exporter into an ExportError message
    return isinstance(exc, MemoryError) or "can't allocate memory" in str(exc) or "Cannot allocate memory" in str(exc)


def _atomic_write_table(table: pa.Table, path: Path) -> None:
    # the pool's shards are checked through the committed tree, not per-file sidecars
    atomic_write_table(table, path, sidecar=False, compression_level=19)


def read_parquet(path: Path, data: bytes | None = None) -> pa.Table:
    """The table of ``path`` (parsed from ``data`` when its bytes are already read)."""
    try:
        return pq.read_table(path if data is None else pa.BufferReader(data))
    except Exception as exc:
        raise CorruptFileError(f"cannot read {path}: {type(exc).__name__}: {str(exc)[:120]}") from None


def _shard_ids(path: Path) -> tuple[str, list[str]]:
    """(the sha256 of a part file's bytes, its structure ids in row order), read once per process
    for the same bytes: indexing the pool needs the ids only, and every column of the 840 committed
    part files took 12 s to parse where the ids took 2 (a build decodes its own structures only)."""
    data = path.read_bytes()
    key = hashlib.sha256(data).hexdigest()
    if key in _SHARDS:
        return key, _SHARDS[key].column("structure_id").to_pylist()
    if key not in _IDS:
        if len(_IDS) >= 4096:  # bounded: a process that walks many pools
            _IDS.clear()
        try:
            _IDS[key] = pq.read_table(pa.BufferReader(data), columns=["structure_id"]).column("structure_id").to_pylist()
        except Exception as exc:
            raise CorruptFileError(f"cannot read {path}: {type(exc).__name__}: {str(exc)[:120]}") from None
    return key, _IDS[key]


def _shard(path: Path, key: str) -> pa.Table:
    """The whole table of the part file whose bytes had sha256 ``key`` when the pool was indexed,
    parsed once per process for the same bytes (as the timm importer keys its files)."""
    if key not in _SHARDS:
        data = path.read_bytes()
        if hashlib.sha256(data).hexdigest() != key:
            raise CorruptFileError(f"{path} changed since the graph pool was indexed: read the pool again")
        if len(_SHARDS) >= 4096:
            _SHARDS.clear()
        _SHARDS[key] = read_parquet(path, data)
    return _SHARDS[key]


_SHARDS: dict[str, pa.Table] = {}
_IDS: dict[str, list[str]] = {}


class _PoolRows(Mapping):
    """The pool's rows by structure id, each turned into Python only when asked for: every id is
    indexed at once (a build asks which measured structures are present) from the part files' id
    column, and a part file is parsed whole only when one of its rows is asked for (as Python lists
    the whole committed pool takes 1.6 GB, and a build decodes only its own structures)."""

    def __init__(self, files: list[Path]):
        self._at: dict[str, tuple[Path, str, int]] = {}
        for path in files:
            key, ids = _shard_ids(path)
            for i, sid in enumerate(ids):
                self._at[sid] = (path, key, i)

    def __getitem__(self, sid: str) -> dict:
        path, key, i = self._at[sid]
        return _shard(path, key).slice(i, 1).to_pylist()[0]

    def __contains__(self, sid: object) -> bool:
        return sid in self._at

    def __iter__(self):
        return iter(self._at)

    def __len__(self) -> int:
        return len(self._at)


@dataclass
class GraphPool:
    """A folder of structure shards (``*.parquet``) and ``failures.jsonl``."""

    root: Path
    _rows: _PoolRows | None = field(default=None, repr=False)
    _decoded: dict[str, StoredStructure] = field(default_factory=dict, repr=False)

    def __post_init__(self) -> None:
        self.root = Path(self.root)

    def _invalidate(self) -> None:
        self._rows, self._decoded = None, {}

    # -- reading ---------------------------------------------------------------------------
    def files(self) -> list[Path]:
        return sorted(self.root.glob("*.parquet"))

    def rows(self) -> Mapping[str, dict]:
        """structure id → its stored row; a later part file's row wins, as a rebuilt one should."""
        if self._rows is None:
            self._rows = _PoolRows(self.files())
        return self._rows

    def failures(self) -> dict[str, str]:
        path = self.root / "failures.jsonl"
        if not path.exists():
            return {}
        out = {}
        for line in path.read_text().splitlines():
            if line.strip():
                entry = json.loads(line)
                out[entry["structure_id"]] = entry["reason"]
        return out

    def structure(self, sid: str) -> StoredStructure:
        """Decoded once per pool object: a graph set asks for each structure once per batch size."""
        if sid not in self._decoded:
            self._decoded[sid] = decode(self.rows()[sid])
        return self._decoded[sid]

    # -- selection -------------------------------------------------------------------------
    def _walk(self, counts: dict[str, int], missing: Callable[[str, str, int, str, int, int], bool]):
        """Yield (family, structure id, batch sizes) in each family's candidate order until the
        family's count is covered, skipping recorded failures. ``missing(family, source, size,
        sid, got, need)`` is asked about structures not in the pool: True once it is available,
        False to move on to the next candidate."""
        built, failed = self.rows(), self.failures()
        for family, count in counts.items():
            need, got = structures_needed(count), 0
            for source, size in candidates(family):
                if got == need:
                    break
                sid = structure_id(source, size)
                if sid in failed or (sid not in built and not missing(family, source, size, sid, got, need)):
                    continue
                yield family, sid, batches_for(got, count)
                got += 1
            if got < need:
                raise PerfgraphsError(f"family {family}: only {got} of {need} structures can be built")

    def select(self, counts: dict[str, int]) -> list[tuple[str, str, tuple[int, ...]]]:
        """(family, structure id, batch sizes) making up a graph set with ``counts`` per family."""
        def incomplete(family, source, size, sid, got, need):
            raise PerfgraphsError(f"graph pool {self.root} is incomplete for family {family} "
                                  f"({got}/{need} structures): run `perfgraphs datasets build-pool`")

        return list(self._walk(counts, incomplete))

    # -- building --------------------------------------------------------------------------
    def build(self, counts: dict[str, int], on_progress: Callable[[str, int, int], None] | None = None) -> int:
        """Build missing structures; returns how many were added. Resumable at any point."""
        self.root.mkdir(parents=True, exist_ok=True)
        pending: list[dict] = []
        added = 0
        total = sum(structures_needed(c) for c in counts.values())

        def export(family, source, size, sid, got, need):
            nonlocal added
            # a failure is recorded and skipped; out of memory stops the walk (skipping would change the selection)
            ok = self._export(family, source, size, pending)
            added += ok
            return ok

        try:
            for done, (_, sid, _) in enumerate(self._walk(counts, export), 1):
                if on_progress:
                    on_progress(sid, done, total)
        finally:  # keep what was exported even when a family runs out of candidates
            if pending:
                self._write_part(pending)
            self._invalidate()
        return added

    def ensure(self, items: Iterable[tuple[str, str, int]]) -> int:
        """Build the given (family, timm source, image size) structures if missing (e.g. every
        configuration a campaign measured); returns how many were added."""
        self.root.mkdir(parents=True, exist_ok=True)
        built, failed = set(self.rows()), self.failures()
        pending: list[dict] = []
        added = 0
        for family, source, size in items:
            sid = structure_id(source, size)
            if not pending and sid not in built:
                # another builder may have exported it meanwhile (e.g. one walking the list backwards)
                built |= set(self._part_structure_ids())
            if sid in built or sid in failed:
                continue
            try:
                if not self._export(family, source, size, pending):
                    continue
            except ExportOutOfMemory as exc:
                warnings.warn(f"{exc}; skipped, a later run retries it", stacklevel=2)
                continue
            built.add(sid)
            added += 1
        if pending:
            self._write_part(pending)
        self._invalidate()
        return added

    def _export(self, family: str, source: str, size: int, pending: list[dict]) -> bool:
        """Export one structure into ``pending`` (written out every PART_ROWS); an export that
        fails is recorded in failures.jsonl so reruns skip it and the selection stays the same."""
        from perfgraphs.graph import graph_template

        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                pending.append(encode(graph_template(source, image_shape=(3, size, size)), family, size, None))
        except Exception as exc:
            if _is_out_of_memory(exc):
                raise ExportOutOfMemory(f"out of memory exporting {structure_id(source, size)}") from None
            self._record_failure(structure_id(source, size), f"{type(exc).__name__}: {str(exc)[:200]}")
            return False
        if len(pending) >= PART_ROWS:
            self._write_part(pending)
            pending.clear()
        return True

    def _part_structure_ids(self) -> list[str]:
        """Structure ids on disk now, reading only that column (cheap enough to poll)."""
        ids: list[str] = []
        for path in self.files():
            try:
                ids += pq.read_table(path, columns=["structure_id"]).column(0).to_pylist()
            except (OSError, pa.ArrowInvalid):
                continue  # a part being replaced by compaction; the next poll sees its successor
        return ids

    def _write_part(self, rows: list[dict]) -> None:
        # A unique name per part: two builders (e.g. --measured beside a pool build) never
        # overwrite each other; ``compact`` orders rows by structure id whatever the part names.
        name = f"part-{uuid.uuid4().hex[:16]}.parquet"
        _atomic_write_table(pa.Table.from_pylist(rows, schema=SCHEMA), self.root / name)
        self._invalidate()

    def _record_failure(self, sid: str, reason: str) -> None:
        with open(self.root / "failures.jsonl", "a") as f:
            f.write(json.dumps({"structure_id": sid, "reason": reason}, sort_keys=True) + "\n")
            f.flush()
            os.fsync(f.fileno())

    def compact(self) -> list[Path]:
        """Rewrite the pool as sorted fixed-size shards (deterministic bytes for equal content)."""
        rows = [self.rows()[sid] for sid in sorted(self.rows())]
        old = self.files()
        written = []
        for k in range(0, len(rows), SHARD_ROWS):
            path = self.root / f"structures-{k // SHARD_ROWS:05d}.parquet.new"
            _atomic_write_table(pa.Table.from_pylist(rows[k:k + SHARD_ROWS], schema=SCHEMA), path)
            written.append(path)
        for path in old:
            path.unlink()
        final = []
        for path in written:
            target = path.with_suffix("")  # drop .new
            os.replace(path, target)
            final.append(target)
        failures = self.root / "failures.jsonl"
        if failures.exists():
            lines = sorted(set(l for l in failures.read_text().splitlines() if l.strip()))
            failures.write_text("\n".join(lines) + "\n")
        self._invalidate()
        return final


def iter_samples(pool: GraphPool, counts: dict[str, int]) -> Iterable[tuple[str, str, int]]:
    for family, sid, batches in pool.select(counts):
        for batch in batches:
            yield family, sid, batch
