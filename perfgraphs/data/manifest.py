"""``manifest.json``: what a built dataset config contains, and the checks that it still does.

Written by :mod:`perfgraphs.data.staging` from what the build produced (never from what a folder
happens to hold). It records

* ``files``: the sha256 of every file the build wrote; ``content_hash`` hashes that mapping, so
  two builds have equal content hashes exactly when every file is byte-identical;
* ``splits``: per split its shards (in order), its row count and ``rows_sha256``, a hash of the
  decoded rows (Arrow IPC of each shard), so ``verify`` checks what a reader gets, not only bytes;
* ``inputs``: digests of the sources the build read (:mod:`perfgraphs.data.build_inputs`), so a
  load can tell a build that is out of date from one that is current;
* generator versions, source commit and build date; and ``manifest_sha256``, a hash of all of the
  above, so a changed manifest is detected rather than believed.
"""

from __future__ import annotations

import hashlib
import io
import json
import re
import subprocess
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq

from perfgraphs.errors import DatasetIntegrityError, DatasetNotBuiltError

MANIFEST = "manifest.json"
FORMAT = 2
# Keys only format-2 manifests have: one flipped bit alters at most one key, so a manifest that
# still has any of them is a damaged format-2 manifest (checked), never taken for a legacy one.
FORMAT_2_KEYS = frozenset({"format", "manifest_sha256", "splits", "inputs", "inputs_sha256", "registry_defaults"})
SHARD_NAME = re.compile(r"^data/(?P<split>[A-Za-z0-9_]+)-(?P<index>\d{5})-of-(?P<count>\d{5})\.parquet$")


def generator_versions() -> dict[str, str]:
    from importlib.metadata import PackageNotFoundError, version

    out = {}
    for pkg in ("perfgraphs", "timm", "torch", "onnx", "transformers", "pyarrow"):
        try:
            out[pkg] = version(pkg)
        except PackageNotFoundError:
            out[pkg] = "absent"
    return out


def source_commit() -> str:
    try:
        from perfgraphs.paths import PACKAGE_DIR

        root = PACKAGE_DIR.parent
        return subprocess.run(["git", "-C", str(root), "rev-parse", "HEAD"], capture_output=True,
                              text=True, check=True).stdout.strip()
    except Exception:
        return "unknown"


def files_content_hash(files: dict[str, str]) -> str:
    return hashlib.sha256(json.dumps(files, sort_keys=True).encode()).hexdigest()


def rows_digest(table: pa.Table) -> str:
    """sha256 of a shard's decoded rows: its Arrow IPC stream with one record batch per shard."""
    sink = io.BytesIO()
    combined = table.combine_chunks()
    with pa.ipc.new_stream(sink, combined.schema) as writer:
        writer.write_table(combined, max_chunksize=max(1, combined.num_rows))
    return hashlib.sha256(sink.getvalue()).hexdigest()


def split_rows_digest(shard_digests: list[str]) -> str:
    return hashlib.sha256("\n".join(shard_digests).encode()).hexdigest()


def _self_hash(manifest: dict) -> str:
    body = {k: v for k, v in manifest.items() if k != "manifest_sha256"}
    return hashlib.sha256(json.dumps(body, sort_keys=True, separators=(",", ":")).encode()).hexdigest()


def sealed(manifest: dict) -> dict:
    return {**manifest, "manifest_sha256": _self_hash(manifest)}


def manifest_bytes(manifest: dict) -> bytes:
    return (json.dumps(manifest, indent=2, sort_keys=True) + "\n").encode()


def is_legacy(manifest: dict) -> bool:
    """Written by perfgraphs before format 2: no row hashes, no inputs, files hashed as found."""
    return not FORMAT_2_KEYS & set(manifest)


def read_manifest(folder: Path) -> dict | None:
    """The manifest, None when there is none; a damaged one raises :class:`DatasetIntegrityError`.
    A legacy manifest is returned as read (see :func:`is_legacy`)."""
    path = Path(folder) / MANIFEST
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        return None
    except OSError as exc:
        raise DatasetIntegrityError(f"cannot read {path}: {exc.strerror or exc}") from None
    try:
        manifest = json.loads(data.decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError):
        raise DatasetIntegrityError(f"{path} is not valid JSON (corrupted)") from None
    if not isinstance(manifest, dict):
        raise DatasetIntegrityError(f"{path} is not a manifest (corrupted)")
    if is_legacy(manifest):
        return manifest
    if manifest.get("manifest_sha256") != _self_hash(manifest):
        raise DatasetIntegrityError(f"{path} does not match its own manifest_sha256 (corrupted or modified)")
    if manifest.get("format") != FORMAT:
        raise DatasetNotBuiltError(f"{path} is manifest format {manifest.get('format')!r}; this perfgraphs reads "
                                   f"format {FORMAT}: rebuild it (`perfgraphs datasets build`)")
    return manifest


def require_current(folder: Path, manifest: dict | None) -> dict:
    """A format-2 manifest, else the one-line reason the folder cannot be served."""
    if manifest is None:
        raise DatasetNotBuiltError(f"{folder} is not built (no {MANIFEST})")
    if is_legacy(manifest):
        raise DatasetNotBuiltError(f"{folder} was built by an older perfgraphs whose manifest cannot be "
                                   "verified: rebuild it (`perfgraphs datasets build`)")
    return manifest


def check_file_set(folder: Path, manifest: dict) -> None:
    """The folder holds exactly the files the build wrote: none missing, none added."""
    on_disk = {str(p.relative_to(folder)) for p in Path(folder).rglob("*") if not p.is_dir()}
    on_disk.discard(MANIFEST)
    listed = set(manifest["files"])
    missing, extra = sorted(listed - on_disk), sorted(on_disk - listed)
    if missing:
        raise DatasetIntegrityError(f"{Path(folder) / missing[0]} is missing")
    if extra:
        raise DatasetIntegrityError(f"{Path(folder) / extra[0]} is not part of the build (a stray file: "
                                    "readers of the folder would serve its rows)")


def check_split_layout(folder: Path, manifest: dict) -> None:
    """Every Parquet file is a shard of exactly one split, numbered k-of-n, and the row counts agree."""
    splits = manifest["splits"]
    if manifest["row_counts"] != {s: v["rows"] for s, v in splits.items()}:
        raise DatasetIntegrityError(f"{Path(folder) / MANIFEST}: row counts disagree with its splits")
    in_splits = [rel for v in splits.values() for rel in v["shards"]]
    parquet = sorted(rel for rel in manifest["files"] if rel.endswith(".parquet"))
    if sorted(in_splits) != parquet:
        raise DatasetIntegrityError(f"{Path(folder) / MANIFEST}: its splits do not list exactly its Parquet files")
    for split, entry in splits.items():
        count = len(entry["shards"])
        expected = [f"data/{split}-{k:05d}-of-{count:05d}.parquet" for k in range(count)]
        if entry["shards"] != expected:
            raise DatasetIntegrityError(f"{Path(folder) / MANIFEST}: split {split!r} lists shards {entry['shards'][:2]}…, "
                                        f"expected {expected[:2]}…")


def read_verified_shard(folder: Path, rel: str, expected_sha256: str) -> bytes:
    """The shard's bytes, read once and checked, so what is decoded is what was hashed."""
    path = Path(folder) / rel
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        raise DatasetIntegrityError(f"{path} is missing") from None
    except OSError as exc:
        raise DatasetIntegrityError(f"cannot read {path}: {exc.strerror or exc}") from None
    if hashlib.sha256(data).hexdigest() != expected_sha256:
        raise DatasetIntegrityError(f"{path} does not match its sha256 in {MANIFEST} (corrupted or modified)")
    return data


def decode_shard(path: Path, data: bytes) -> pa.Table:
    try:
        return pq.read_table(pa.BufferReader(data))
    except Exception as exc:  # pyarrow raises ArrowInvalid, OSError, ... on undecodable bytes
        raise DatasetIntegrityError(f"cannot decode {path}: {type(exc).__name__}: {str(exc)[:160]}") from None


def footer_rows(path: Path, data: bytes) -> int:
    """The row count a shard's Parquet footer declares (no decoding of the rows)."""
    try:
        return pq.ParquetFile(pa.BufferReader(data)).metadata.num_rows
    except Exception as exc:
        raise DatasetIntegrityError(f"cannot decode {path}: {type(exc).__name__}: {str(exc)[:160]}") from None


def verify(folder: Path, decode_rows: bool = True) -> dict:
    """Check a built folder against its manifest; raise naming the first difference.

    Bytes: every file listed is there with its sha256, and no other file is. Rows: each split's
    shards hold the recorded number of rows and (``decode_rows``) decode to the recorded rows."""
    folder = Path(folder)
    manifest = require_current(folder, read_manifest(folder))
    check_file_set(folder, manifest)
    check_split_layout(folder, manifest)
    for split, entry in sorted(manifest["splits"].items()):
        digests, rows = [], 0
        for rel in entry["shards"]:
            data = read_verified_shard(folder, rel, manifest["files"][rel])
            if decode_rows:
                table = decode_shard(folder / rel, data)
                rows += table.num_rows
                digests.append(rows_digest(table))
            else:
                rows += footer_rows(folder / rel, data)
        if rows != entry["rows"]:
            raise DatasetIntegrityError(f"{folder}: split {split!r} holds {rows} rows, its manifest says {entry['rows']}")
        if decode_rows and split_rows_digest(digests) != entry["rows_sha256"]:
            raise DatasetIntegrityError(f"{folder}: the rows of split {split!r} differ from those the build wrote")
    for rel, expected in sorted(manifest["files"].items()):
        if not SHARD_NAME.match(rel):  # the shards were checked above
            read_verified_shard(folder, rel, expected)
    return manifest
