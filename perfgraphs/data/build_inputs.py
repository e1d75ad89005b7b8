"""What a dataset build reads, and a digest of it: so a load can tell when a build is out of date.

A build records each input in its manifest with a digest taken *before* the build reads it (a
source that changes during the build then makes the build look stale, never fresh):

* ``tree``: a folder (a measurement store, the graph pool): sha256 of every file in it, by
  relative path. Hidden entries (``.campaign.lock``, ``.x.tmp-<pid>``) are in-flight writes, not
  content, and are skipped.
* ``external``: third-party files (timm results, ML.ENERGY) of the importer's source folder: every
  file the importer reads, by name and sha256 (``files``), so a build records exactly what it
  imported and a release is reproducible without pinning the source to a fixed list. With no
  local copy (nothing in ``$PERFGRAPHS_EXTERNAL_DIR`` or the cache) the build downloads the pinned
  files, so then the pinned list stands for the content.
* ``dataset``: another built config (graph2text is derived from dippm): its manifest's content
  hash, and whether its own inputs are still those it was built from (staleness is transitive;
  :func:`perfgraphs.data.recipes.dataset_input`, which knows every recipe's inputs).

Digests compare content, not paths: the same measurements in another checkout give the same
digest, and a checkout whose data differ gives another one.
"""

from __future__ import annotations

import hashlib
import json
import os
import time
from dataclasses import asdict, dataclass
from pathlib import Path

from perfgraphs.atomic import sha256_file
from perfgraphs.errors import PerfgraphsError
from perfgraphs.registry import MLENERGY

ABSENT = "absent"


class SourceUnreadableError(PerfgraphsError):
    """A measurement store or graph pool a build reads cannot be read (permissions, I/O error)."""


@dataclass(frozen=True)
class BuildInput:
    role: str  # what it is to a reader: "measurements", "graph pool", "external files", "dataset"
    kind: str  # how it is digested: "tree", "external" or "dataset"
    location: str  # folder (tree, dataset) or external source name
    digest: str
    dataset: str = ""  # kind "dataset": the registry name and config of the source
    config: str = ""
    # kind "external": the files imported, (name, sha256) each, and the folder given explicitly
    # (empty: the registry's place, $PERFGRAPHS_EXTERNAL_DIR or the cache)
    files: tuple[tuple[str, str], ...] = ()
    folder: str = ""


def tree_input(role: str, folder: Path) -> BuildInput:
    return BuildInput(role, "tree", str(folder), tree_digest(Path(folder)))


def external_input(source: str, local_dir: Path | str | None = None) -> BuildInput:
    files = imported_files(source, local_dir)
    return BuildInput("external files", "external", source, external_digest(files), files=files,
                      folder=str(Path(local_dir).absolute()) if local_dir is not None else "")


def tree_digest(folder: Path) -> str:
    """sha256 over (relative path, sha256) of every non-hidden file under ``folder``."""
    if not folder.exists():
        return ABSENT
    for _ in range(3):
        try:
            return _tree_digest(folder)
        except FileNotFoundError:
            continue  # a running campaign compacted parts into a shard meanwhile: list again
        except OSError as exc:
            raise SourceUnreadableError(f"cannot read the build source {folder}: {exc.strerror or exc}") from None
    raise SourceUnreadableError(f"cannot read the build source {folder}: its files kept changing while read")


def _tree_digest(folder: Path) -> str:
    h = hashlib.sha256()
    for name, path in _tree_files(folder):
        h.update(f"{name}\0{_content_sha256(path)}\n".encode())
    return h.hexdigest()


def _tree_files(folder: Path) -> list[tuple[str, str]]:
    """(relative name, path) of every non-hidden file under ``folder`` (the file itself: its name), in
    the order of their relative paths' parts (as pathlib sorts them). Symbolic links to folders are
    not followed, links to files are read. One ``os.walk``: pathlib's ``rglob`` and ``relative_to``
    were most of a load's time on a graph pool of 841 files."""
    if folder.is_file():
        return [(folder.name, str(folder))]
    found = []
    for top, dirs, names in os.walk(folder, onerror=_unlisted):
        dirs[:] = [d for d in dirs if not d.startswith(".")]
        rel = os.path.relpath(top, folder)
        parts = () if rel == "." else tuple(rel.split(os.sep))
        for name in names:
            path = os.path.join(top, name)
            if not name.startswith(".") and os.path.isfile(path):
                found.append(((*parts, name), path))
    found.sort(key=lambda item: item[0])
    return [("/".join(parts), path) for parts, path in found]


def _unlisted(exc: OSError) -> None:
    """A folder ``os.walk`` could not list: skipped where it may not be read (as pathlib's ``rglob``
    skips it), raised otherwise (a folder a running campaign removed meanwhile: :func:`tree_digest`
    lists again)."""
    if not isinstance(exc, PermissionError):
        raise exc


# sha256 of files whose status (device, inode, size, modification and change times) has not moved
# since they were hashed: a dataset load digests its graph pool and store every time (a staleness
# check), and they rarely change. A file is kept only once its change time is a few seconds old, so
# a write within the same clock tick as its hashing (timestamps are coarse) is never mistaken for the
# content hashed (git's "racy" index entries); a change since always moves the change time.
_HASHED: dict[tuple, str] = {}
_RACY_S = 2.0
_HASHED_MAX = 200_000


def _content_sha256(path: str) -> str:
    st = os.stat(path)
    key = (path, st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns)
    known = _HASHED.get(key)
    if known is not None:
        return known
    digest = sha256_file(Path(path))
    if time.time_ns() - max(st.st_mtime_ns, st.st_ctime_ns) > _RACY_S * 1e9:
        if len(_HASHED) >= _HASHED_MAX:
            _HASHED.clear()
        _HASHED[key] = digest
    return digest


def imported_files(source: str, local_dir: Path | str | None = None) -> tuple[tuple[str, str], ...]:
    """(name, sha256) of every file the source's importer reads now, name-sorted; nothing is
    downloaded: with no local copy, the pinned files (what a build would download)."""
    from perfgraphs.loaders.mlenergy import MLENERGY_FILES, import_mlenergy
    from perfgraphs.loaders.sources import SourceFileMissingError
    from perfgraphs.loaders.timm_benchmark import TIMM_INFER_FILES, import_timm_benchmark

    importer, pinned = {MLENERGY: (import_mlenergy, MLENERGY_FILES),
                        "timm-benchmark": (import_timm_benchmark, TIMM_INFER_FILES)}[source]
    try:
        result = importer(local_dir, download=False, warn=False, progress=False)
    except SourceFileMissingError:
        if local_dir is not None:
            raise  # the folder a build was explicitly made from is gone: not the pinned content
        result = None
    if result is None or (not result.files and not result.skipped):
        return tuple(sorted((f.name, f.sha256) for f in pinned))
    return tuple(sorted((f.name, f.sha256) for f in result.files))


def external_digest(files: tuple[tuple[str, str], ...]) -> str:
    """sha256 over the (name, sha256) pairs: for the pinned files, the digest builds recorded when
    the importers read the pinned list only."""
    return hashlib.sha256("".join(f"{name}\0{sha}\n" for name, sha in sorted(files)).encode()).hexdigest()


def combined_digest(inputs: list[BuildInput]) -> str:
    """One digest of all inputs' contents (roles and digests, not paths)."""
    return hashlib.sha256(json.dumps([[i.role, i.kind, i.digest] for i in inputs]).encode()).hexdigest()


def to_records(inputs: list[BuildInput]) -> list[dict]:
    # the fields of external inputs only, where empty, are left out (records as before they existed)
    return [{k: v for k, v in asdict(i).items() if v or k not in ("files", "folder")} for i in inputs]
