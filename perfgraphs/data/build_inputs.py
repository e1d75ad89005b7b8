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
    files = [folder] if folder.is_file() else sorted(
        p for p in folder.rglob("*")
        if p.is_file() and not any(part.startswith(".") for part in p.relative_to(folder).parts))
    h = hashlib.sha256()
    for path in files:
        h.update(f"{path.relative_to(folder) if path != folder else path.name}\0{sha256_file(path)}\n".encode())
    return h.hexdigest()


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
