"""The Arrow files ``load_dataset`` memory-maps: one per split, made from verified Parquet and
checksummed, so what is served is what the manifest describes.

Why not the Hugging Face cache: ``datasets.load_dataset("parquet", ...)`` converts the shards
once into ``.hf-cache/.../*.arrow`` and serves those files from then on; nothing checks them, so
one flipped bit there changes a label while ``verify`` (which reads the Parquet) says "ok".

Why a cache at all: a full graph set is gigabytes once decoded; memory-mapping an Arrow file
costs no new memory and no decoding, where rows decoded in memory on every load would cost both.

Each file is keyed by the sha256 of the split's shards in the (verified) manifest, so a rebuild
gets its own file, and its XXH3-128 checksum is taken over the bytes as they are written (it
guards a local, derived copy against accidental corruption; see ``pyg_cache`` for why not
sha256). A file whose checksum, size or key does not match is rewritten from the Parquet shards,
which ``load_dataset`` has just verified: a damaged cache is harmless, never served. Files:
``<version dir>/.arrow-cache/<config>/<split>-<key>.arrow`` with ``<split>-<key>.json``.
"""

from __future__ import annotations

import hashlib
import io
import json
import os
import sys
from pathlib import Path

import pyarrow as pa

from perfgraphs.data.pyg_cache import checksum

CACHE_FORMAT = 1


def cache_key(manifest: dict, split: str) -> str:
    shards = manifest["splits"][split]["shards"]
    return hashlib.sha256(json.dumps([CACHE_FORMAT, [manifest["files"][s] for s in shards]]).encode()).hexdigest()


def cache_dir(folder: Path) -> Path:
    from perfgraphs import paths

    releases = paths.release_dir()
    if releases is not None and Path(folder).resolve().is_relative_to(Path(releases).resolve()):
        # a release folder is the user's (read-only, or uploaded to the Hub as it is): no cache in it
        key = hashlib.sha256(str(Path(folder).resolve()).encode()).hexdigest()[:16]
        return paths.cache_home() / "release-arrow-cache" / key / folder.name
    return folder.parent / ".arrow-cache" / folder.name


def _paths(folder: Path, split: str, key: str) -> tuple[Path, Path]:
    base = cache_dir(folder) / f"{split}-{key[:32]}"
    return base.with_suffix(".arrow"), base.with_suffix(".json")


def read(folder: Path, split: str, key: str, rows: int) -> Path | None:
    """The cached split's path if it is intact and of these shards, else None."""
    arrow, meta_path = _paths(folder, split, key)
    try:
        meta = json.loads(meta_path.read_bytes().decode("utf-8"))
        expected = {"format": CACHE_FORMAT, "key": key, "rows": rows}
        intact = (isinstance(meta, dict) and {k: meta.get(k) for k in expected} == expected
                  and arrow.stat().st_size == meta.get("bytes") and checksum(arrow) == meta.get("xxh3_128"))
    except (OSError, ValueError):  # absent, unreadable or not JSON: (re)write it
        return None
    if not intact:
        print(f"note: Arrow cache {arrow} does not match its checksum; rewriting it from the verified Parquet",
              file=sys.stderr)
        return None
    return arrow


class _HashingWriter(io.RawIOBase):
    """Checksums bytes on their way to the file, so the checksum is of what was produced."""

    def __init__(self, raw):
        import xxhash

        self.raw, self.hash, self.size = raw, xxhash.xxh3_128(), 0

    def writable(self) -> bool:
        return True

    def write(self, data) -> int:
        self.hash.update(data)
        self.size += len(memoryview(data).cast("B"))
        return self.raw.write(data)


def unified(tables: list[pa.Table]) -> pa.Table:
    """One table of a split's shards (a column all-null in one shard is ``null``-typed there)."""
    schema = pa.unify_schemas([t.schema for t in tables])
    return pa.concat_tables([t.cast(schema) for t in tables])


def write(folder: Path, split: str, key: str, tables: list[pa.Table]) -> Path:
    """Write the split as an Arrow stream (the format ``datasets`` maps); raises OSError when the
    cache cannot be written. Older files of the split (other keys) are removed."""
    arrow, meta_path = _paths(folder, split, key)
    arrow.parent.mkdir(parents=True, exist_ok=True)
    table = unified(tables)
    tmp = arrow.with_name(f".{arrow.name}.tmp-{os.getpid()}")
    try:
        with open(tmp, "wb") as raw:
            sink = _HashingWriter(raw)
            with pa.ipc.new_stream(sink, table.schema) as writer:
                writer.write_table(table)
        # no fsync: a copy lost or torn by a crash fails its checksum and is written again
        os.replace(tmp, arrow)
    finally:
        tmp.unlink(missing_ok=True)
    meta = {"format": CACHE_FORMAT, "key": key, "rows": table.num_rows, "bytes": sink.size,
            "xxh3_128": sink.hash.hexdigest()}
    tmp = meta_path.with_name(f".{meta_path.name}.tmp-{os.getpid()}")
    tmp.write_text(json.dumps(meta, sort_keys=True) + "\n")
    os.replace(tmp, meta_path)
    for old in arrow.parent.glob(f"{split}-*"):
        if old.stem != arrow.stem and old.suffix in (".arrow", ".json"):
            old.unlink(missing_ok=True)
    return arrow
