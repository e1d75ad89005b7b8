"""Write a build into a fresh folder beside its target, then swap it in with one rename.

Why: a build that writes into the existing folder keeps whatever is already there (a corrupted
shard, a stray ``train-00001-of-00002.parquet``, shards of an older, smaller store) and a
manifest that hashes the folder then blesses it. Here a build starts from an empty sibling
folder, the manifest lists only the files this build wrote (with hashes of the bytes it wrote
and of the rows those bytes decode to), and the finished folder replaces the old one atomically:
a reader sees the old build or the new one, never a mix. An interrupted build leaves only its
hidden staging folder, removed by the next build; it is not resumed (a resumed build would have
to trust files it did not write).
"""

from __future__ import annotations

import ctypes
import errno
import hashlib
import os
import shutil
import uuid
from datetime import datetime, timezone
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq

from perfgraphs.atomic import fsync_dir
from perfgraphs.data.build_inputs import BuildInput, combined_digest, to_records
from perfgraphs.data.manifest import (FORMAT, MANIFEST, decode_shard, files_content_hash, generator_versions,
                                      manifest_bytes, rows_digest, sealed, source_commit, split_rows_digest)
from perfgraphs.errors import DatasetBuildError

_AT_FDCWD = -100
_RENAME_EXCHANGE = 2


class StagedBuild:
    """``with StagedBuild(folder) as stage: stage.write_shard(...); stage.commit(...)``; leaving the
    block without ``commit`` (an exception) removes the staging folder and keeps the old build."""

    def __init__(self, folder: Path):
        self.folder = Path(folder)
        self.stage: Path | None = None
        self.files: dict[str, str] = {}  # relative path -> sha256 of the bytes written
        self.shards: dict[str, dict[int, tuple[int, int, str]]] = {}  # split -> index -> (count, rows, rows digest)

    def __enter__(self) -> "StagedBuild":
        try:
            self.folder.parent.mkdir(parents=True, exist_ok=True)
            remove_abandoned_stages(self.folder)
            # mkdir, not mkdtemp: the folder becomes the build, with the umask's permissions (not 0700)
            self.stage = self.folder.with_name(f".{self.folder.name}.building-{os.getpid()}-{uuid.uuid4().hex[:12]}")
            self.stage.mkdir()
        except OSError as exc:
            raise _build_error(self.folder, exc) from None
        return self

    def __exit__(self, exc_type, exc, tb) -> None:
        if self.stage is not None and self.stage.exists():
            shutil.rmtree(self.stage, ignore_errors=True)

    # -- writing ------------------------------------------------------------------------------
    def write_shard(self, split: str, index: int, count: int, table: pa.Table) -> None:
        """Shard ``index`` of ``count`` of ``split`` (``data/<split>-<index>-of-<count>.parquet``)."""
        sink = pa.BufferOutputStream()
        pq.write_table(table, sink, compression="zstd")
        data = sink.getvalue().to_pybytes()
        rel = f"data/{split}-{index:05d}-of-{count:05d}.parquet"
        # the rows a reader will decode from exactly these bytes
        decoded = decode_shard(self.folder / rel, data)
        self._write(rel, data)
        self.shards.setdefault(split, {})[index] = (count, decoded.num_rows, rows_digest(decoded))

    def write_file(self, rel: str, data: bytes) -> None:
        """A file beside the shards (e.g. ``platforms.txt``); listed and hashed like them."""
        self._write(rel, data)

    def _write(self, rel: str, data: bytes) -> None:
        assert self.stage is not None, "use StagedBuild as a context manager"
        if rel in self.files or rel == MANIFEST:
            raise ValueError(f"{rel} written twice in one build")
        path = self.stage / rel
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            with open(path, "wb") as f:
                f.write(data)
                f.flush()
                os.fsync(f.fileno())
        except OSError as exc:
            raise _build_error(self.folder, exc) from None
        self.files[rel] = hashlib.sha256(data).hexdigest()

    # -- finishing ----------------------------------------------------------------------------
    def commit(self, dataset: str, version: str, config: str, inputs: list[BuildInput],
               registry_defaults: bool, extra: dict | None = None) -> Path:
        """Write the manifest of what was written, then replace the target folder with the stage."""
        assert self.stage is not None, "use StagedBuild as a context manager"
        splits = self._splits()
        manifest = {
            "format": FORMAT, "dataset": dataset, "version": version, "config": config,
            "row_counts": {s: v["rows"] for s, v in splits.items()}, "splits": splits,
            "files": dict(sorted(self.files.items())), "content_hash": files_content_hash(self.files),
            "inputs": to_records(inputs), "inputs_sha256": combined_digest(inputs),
            "registry_defaults": registry_defaults,
            "generators": generator_versions(), "source_commit": source_commit(),
            "built_at": datetime.now(timezone.utc).isoformat(timespec="seconds"),
        }
        clash = set(extra or {}) & set(manifest)
        if clash:
            raise ValueError(f"extra manifest fields {sorted(clash)} would overwrite recorded ones")
        manifest = sealed({**manifest, **(extra or {})})
        try:
            path = self.stage / MANIFEST
            with open(path, "wb") as f:
                f.write(manifest_bytes(manifest))
                f.flush()
                os.fsync(f.fileno())
            for folder in {self.stage / Path(rel).parent for rel in self.files} | {self.stage}:
                fsync_dir(folder)
            swap_in(self.stage, self.folder)
            fsync_dir(self.folder.parent)
        except OSError as exc:
            raise _build_error(self.folder, exc) from None
        return self.folder

    def _splits(self) -> dict[str, dict]:
        out = {}
        for split, by_index in sorted(self.shards.items()):
            count = next(iter(by_index.values()))[0]
            if sorted(by_index) != list(range(count)) or any(c != count for c, _, _ in by_index.values()):
                raise ValueError(f"split {split!r}: shards {sorted(by_index)} written, expected 0..{count - 1}")
            ordered = [by_index[k] for k in range(count)]
            out[split] = {"shards": [f"data/{split}-{k:05d}-of-{count:05d}.parquet" for k in range(count)],
                          "rows": sum(rows for _, rows, _ in ordered),
                          "rows_sha256": split_rows_digest([digest for _, _, digest in ordered])}
        return out


def swap_in(stage: Path, folder: Path) -> None:
    """Make ``stage`` the content of ``folder`` atomically; the previous content is deleted."""
    try:
        os.rename(stage, folder)  # no previous build (or an empty folder): one atomic rename
        return
    except OSError as exc:
        if exc.errno not in (errno.ENOTEMPTY, errno.EEXIST):
            raise
    if _exchange(stage, folder):  # folder now holds the new build, stage the old one
        shutil.rmtree(stage, ignore_errors=True)
        return
    # No atomic exchange on this system: two renames (a reader in between finds no build).
    old = folder.with_name(f".{folder.name}.replaced-{uuid.uuid4().hex[:8]}")
    os.rename(folder, old)
    os.rename(stage, folder)
    shutil.rmtree(old, ignore_errors=True)


def _exchange(a: Path, b: Path) -> bool:
    """Linux ``renameat2(RENAME_EXCHANGE)``: swap two paths in one step. False where unsupported."""
    try:
        renameat2 = ctypes.CDLL(None, use_errno=True).renameat2
    except (AttributeError, OSError):
        return False
    if renameat2(_AT_FDCWD, os.fsencode(a), _AT_FDCWD, os.fsencode(b), _RENAME_EXCHANGE) == 0:
        return True
    err = ctypes.get_errno()
    if err in (errno.ENOSYS, errno.EINVAL, errno.ENOTSUP):
        return False
    raise OSError(err, os.strerror(err), str(b))


def remove_abandoned_stages(folder: Path) -> None:
    """Staging folders of builds whose process is gone, and halves of an interrupted swap."""
    for path in folder.parent.glob(f".{folder.name}.*"):
        kind, _, rest = path.name[len(folder.name) + 2:].partition("-")
        if kind == "replaced" or (kind == "building" and not _alive(rest.split("-", 1)[0])):
            shutil.rmtree(path, ignore_errors=True)


def _alive(pid: str) -> bool:
    try:
        os.kill(int(pid), 0)
    except (ValueError, ProcessLookupError):
        return False
    except PermissionError:
        return True  # someone else's live process
    return True


def _build_error(folder: Path, exc: OSError) -> DatasetBuildError:
    return DatasetBuildError(f"cannot write the build of {folder}: {exc.strerror or exc}"
                             f"{f' ({exc.filename})' if exc.filename else ''}")
