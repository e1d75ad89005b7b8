"""What a dataset build reads, and a digest of it: so a load can tell when a build is out of date.

A build records each input in its manifest with a digest taken *before* the build reads it (a
source that changes during the build then makes the build look stale, never fresh):

* ``tree``: a folder (a measurement store, the graph pool): sha256 of every file in it, by
  relative path. Hidden entries (``.campaign.lock``, ``.x.tmp-<pid>``) are in-flight writes, not
  content, and are skipped.
* ``external``: third-party files pinned by sha256 in the code (timm results, ML.ENERGY). The
  importer refuses any other bytes, so the pinned list *is* the content: nothing is read here.
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


def tree_input(role: str, folder: Path) -> BuildInput:
    return BuildInput(role, "tree", str(folder), tree_digest(Path(folder)))


def external_input(source: str) -> BuildInput:
    return BuildInput("external files", "external", source, external_digest(source))


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


def _pinned_files() -> dict:
    from perfgraphs.loaders.mlenergy import MLENERGY_FILES
    from perfgraphs.loaders.timm_benchmark import TIMM_INFER_FILES

    return {"mlenergy": MLENERGY_FILES, "timm-benchmark": TIMM_INFER_FILES}


def external_digest(source: str) -> str:
    files = _pinned_files()[source]
    return hashlib.sha256("".join(f"{f.name}\0{f.sha256}\n" for f in sorted(files, key=lambda f: f.name))
                          .encode()).hexdigest()


def combined_digest(inputs: list[BuildInput]) -> str:
    """One digest of all inputs' contents (roles and digests, not paths)."""
    return hashlib.sha256(json.dumps([[i.role, i.kind, i.digest] for i in inputs]).encode()).hexdigest()


def to_records(inputs: list[BuildInput]) -> list[dict]:
    return [asdict(i) for i in inputs]
