"""On-disk cache of featurized node tables, so a warm ``to_pyg`` maps them instead of recomputing.

Why: a full graph set's node-feature matrix is gigabytes of float32 (dippm + trappm featurizer:
5.9 M nodes x 113 = 2.65 GB). Computing it is cheap next to *allocating* it: faulting in that
much fresh memory costs several CPU-seconds on a VM. A cached ``.npy`` that sits in the page cache
is mapped copy-on-write instead — no new memory, no arithmetic — and checksummed on every read,
so a corrupted cache is never served (it is recomputed and rewritten).

The checksum is XXH3-128 (``xxhash``, already required by ``datasets``), not sha256: it guards a
local, derived cache against accidental corruption (any flipped byte changes it), where a
cryptographic hash stored next to the data adds no protection; sha256 ran at 1.4 GB/s here and
was three quarters of the whole warm load, XXH3 runs at 13 GB/s. Dataset files themselves keep
their sha256 manifest.

Only rows known to be an unmodified split of a built, manifest-verified config are cached:
``load_dataset`` records each split's Hugging Face fingerprint with the config's content hash
(:func:`remember`); any transform (select, filter, map, ...) changes the fingerprint, and such
rows are featurized directly. Files: ``<version dir>/.pyg-cache/<config>/<split>.<featurizer id>/``
with ``x.npy``, ``edge_index.npy`` and ``meta.json`` (content hash, featurizer, checksums of both
files). One cache per config, split and featurizer: a rebuilt config replaces it. Set
``PERFGRAPHS_PYG_CACHE=0`` to turn it off.
"""

from __future__ import annotations

import json
import mmap
import os
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

import numpy as np

# Bump when perfgraphs.data.featurize changes what it produces; stale caches are then rebuilt.
CACHE_FORMAT = 2
ARRAYS = ("x", "edge_index")


@dataclass(frozen=True)
class Origin:
    """Where the rows of a loaded split come from."""

    folder: Path  # the built config folder
    content_hash: str  # manifest content hash, verified when the split was loaded
    split: str
    num_rows: int


_ORIGINS: dict[str, Origin] = {}


def remember(hf_dataset, origin: Origin) -> None:
    fingerprint = getattr(hf_dataset, "_fingerprint", None)
    if fingerprint:
        _ORIGINS[fingerprint] = origin


def origin_of(hf_dataset) -> Origin | None:
    """The origin of an unmodified loaded split, else None."""
    origin = _ORIGINS.get(getattr(hf_dataset, "_fingerprint", None) or "")
    if origin is None or getattr(hf_dataset, "_indices", None) is not None or len(hf_dataset) != origin.num_rows:
        return None
    return origin


def enabled() -> bool:
    return os.environ.get("PERFGRAPHS_PYG_CACHE", "1") not in ("0", "false", "no")


def cache_dir(origin: Origin, featurizer_id: str) -> Path:
    return origin.folder.parent / ".pyg-cache" / origin.folder.name / f"{origin.split}.{featurizer_id}"


def checksum(path: Path) -> str:
    """XXH3-128 of the file's bytes, read through a mapping of the page cache."""
    import xxhash

    with open(path, "rb") as f:
        if os.fstat(f.fileno()).st_size == 0:
            return xxhash.xxh3_128().hexdigest()
        with mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ) as mapped:
            return xxhash.xxh3_128(mapped).hexdigest()


def _meta(origin: Origin, featurizer_id: str) -> dict:
    return {"format": CACHE_FORMAT, "content_hash": origin.content_hash, "split": origin.split,
            "num_rows": origin.num_rows, "featurizer": featurizer_id}


def _open(path: Path) -> np.ndarray:
    """Copy-on-write mapping: shares the page cache, and writes by the caller stay private."""
    array = np.load(path, mmap_mode="c")
    return np.asarray(array) if array.size == 0 else array


def read(origin: Origin, featurizer_id: str) -> dict[str, np.ndarray] | None:
    """The cached arrays, or None when absent, stale or corrupted (a corrupted cache is reported
    on stderr, never served)."""
    folder = cache_dir(origin, featurizer_id)
    try:
        meta = json.loads((folder / "meta.json").read_text())
    except (OSError, json.JSONDecodeError):
        return None
    if {k: meta.get(k) for k in _meta(origin, featurizer_id)} != _meta(origin, featurizer_id):
        return None
    out = {}
    for name in ARRAYS:
        path = folder / f"{name}.npy"
        try:
            ok = checksum(path) == meta["xxh3_128"][name]
            if ok:
                out[name] = _open(path)
        except (OSError, ValueError, KeyError):
            ok = False
        if not ok:
            print(f"warning: featurized cache {path} is missing or corrupted (checksum mismatch); recomputing",
                  file=sys.stderr)
            return None
    return out


def _allocate(path: Path, shape: tuple[int, ...], dtype) -> np.ndarray:
    """A writable mapping of a new ``.npy`` file. Its blocks are reserved first, so a full disk
    fails here with OSError rather than with SIGBUS when a mapped page is first written."""
    dtype = np.dtype(dtype)
    with open(path, "wb+") as f:
        np.lib.format.write_array_header_1_0(
            f, {"descr": np.lib.format.dtype_to_descr(dtype), "fortran_order": False, "shape": tuple(shape)})
        offset = f.tell()
        size = offset + int(np.prod(shape)) * dtype.itemsize
        if hasattr(os, "posix_fallocate"):
            os.posix_fallocate(f.fileno(), 0, size)
        else:
            f.truncate(size)
    if int(np.prod(shape)) == 0:
        return np.zeros(shape, dtype=dtype)
    return np.memmap(path, dtype=dtype, mode="r+", offset=offset, shape=tuple(shape))


def write(origin: Origin, featurizer_id: str,
          arrays: dict[str, tuple[tuple[int, ...], np.dtype, Callable[[np.ndarray], None]]]) -> dict[str, np.ndarray]:
    """Compute each array straight into its cache file (``fill(out)``), record the checksums, and
    return copy-on-write mappings of the files. Raises OSError when the cache cannot be written."""
    folder = cache_dir(origin, featurizer_id)
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "meta.json").unlink(missing_ok=True)  # the arrays below are about to be replaced
    hashes = {}
    for name, (shape, dtype, fill) in arrays.items():
        tmp = folder / f".{name}.npy.tmp-{os.getpid()}"
        try:
            out = _allocate(tmp, shape, dtype)
            fill(out)
            if isinstance(out, np.memmap):
                out.flush()
            del out
            hashes[name] = checksum(tmp)
            os.replace(tmp, folder / f"{name}.npy")
        finally:
            tmp.unlink(missing_ok=True)
    meta = {**_meta(origin, featurizer_id), "xxh3_128": hashes}
    tmp = folder / f".meta.json.tmp-{os.getpid()}"
    tmp.write_text(json.dumps(meta, indent=1, sort_keys=True) + "\n")
    os.replace(tmp, folder / "meta.json")
    return {name: _open(folder / f"{name}.npy") for name in arrays}
