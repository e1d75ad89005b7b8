"""Releases: a dataset version names content, and ``load_dataset(..., version=V)`` serves exactly it.

The release index (``releases.json`` in the data directory, committed; a wheel carries a copy)
maps (dataset, version, config) to the build that version *is*: its content hash (the sha256 of
its files' sha256s, :mod:`perfgraphs.data.manifest`), ``manifest_sha256``, the rows of every
split (count and ``rows_sha256``), the columns, and the digests of the sources it was built from.

Versions follow content (``perfgraphs datasets release NAME``): the first release of a dataset
takes the registry's version; a new release is made only when a config's content differs from
the latest release (a minor bump), or when a released column disappears (a major bump: readers'
code breaks). A version lists every config released so far; those not rebuilt are carried over
unchanged.

Serving a release, never rebuilding it into something else (:func:`perfgraphs.data.load.reproduce`):
a build whose rows are the record's is served from a release folder (``perfgraphs datasets
export``), from the releases kept in the cache home, or from the working build; else one line
says what changed since. Making releases and exports: :mod:`perfgraphs.data.publish`.
"""

from __future__ import annotations

import json
import os
import shutil
from dataclasses import asdict, dataclass, field
from pathlib import Path

from perfgraphs import paths
from perfgraphs.atomic import atomic_write_bytes
from perfgraphs.errors import DatasetIntegrityError, PerfgraphsError
from perfgraphs.registry import Config, Dataset, get_dataset

INDEX_FORMAT = 1
RELEASE_INDEX = "releases.json"  # beside the configs of an exported dataset folder too


class UnknownReleaseError(PerfgraphsError):
    """A version that was never released for this dataset config."""


class ReleaseNotReproducibleError(PerfgraphsError):
    """A released version whose build is not here and cannot be rebuilt from the sources here."""


@dataclass(frozen=True)
class ConfigRelease:
    """What one config of one released version is."""

    content_hash: str
    manifest_sha256: str
    row_counts: dict[str, int]
    rows_sha256: dict[str, str]  # split -> sha256 of its decoded rows (independent of Parquet encoding)
    columns: tuple[str, ...]
    inputs_sha256: str
    inputs: tuple[dict, ...] = ()  # role, kind, digest of every source (locations left out: machine-specific)
    generators: dict[str, str] = field(default_factory=dict)
    source_commit: str = "unknown"
    released_at: str = ""

    @classmethod
    def from_manifest(cls, manifest: dict, columns: tuple[str, ...], released_at: str) -> "ConfigRelease":
        return cls(content_hash=manifest["content_hash"], manifest_sha256=manifest["manifest_sha256"],
                   row_counts=dict(manifest["row_counts"]),
                   rows_sha256={s: v["rows_sha256"] for s, v in sorted(manifest["splits"].items())},
                   columns=tuple(columns), inputs_sha256=manifest["inputs_sha256"],
                   inputs=tuple({k: i.get(k) for k in ("role", "kind", "digest", "dataset", "config") if i.get(k)}
                                for i in manifest.get("inputs", [])),
                   generators=dict(manifest.get("generators", {})), source_commit=manifest.get("source_commit", ""),
                   released_at=released_at)

    @classmethod
    def from_record(cls, record: dict) -> "ConfigRelease":
        try:
            return cls(**{**record, "columns": tuple(record["columns"]),
                          "inputs": tuple(record.get("inputs", ()))})
        except (TypeError, KeyError) as exc:
            raise DatasetIntegrityError(f"release index entry cannot be read ({exc}): {str(record)[:120]}") from None

    def to_record(self) -> dict:
        return {**asdict(self), "columns": list(self.columns), "inputs": list(self.inputs)}

    def same_rows(self, manifest: dict) -> bool:
        """The build serves exactly the released rows: the same files, or (another Parquet
        writer) the same decoded rows in every split."""
        if manifest.get("content_hash") == self.content_hash:
            return True
        splits = manifest.get("splits", {})
        return (manifest.get("row_counts") == self.row_counts
                and {s: v.get("rows_sha256") for s, v in splits.items()} == self.rows_sha256)


# -- the index ------------------------------------------------------------------------------------
def _semver(version: str) -> tuple[int, ...]:
    try:
        return tuple(int(p) for p in version.split("."))
    except ValueError:
        raise DatasetIntegrityError(f"release index: {version!r} is not a version MAJOR.MINOR.PATCH") from None


def read_index(path: Path | None = None) -> dict:
    """``{dataset: {version: {config: record}}}``; an absent index is empty."""
    path = Path(path or paths.releases_file())
    try:
        data = json.loads(path.read_text())
    except FileNotFoundError:
        return {}
    except (OSError, ValueError) as exc:
        raise DatasetIntegrityError(f"cannot read the release index {path}: {exc}") from None
    if not isinstance(data, dict) or data.get("format") != INDEX_FORMAT:
        raise DatasetIntegrityError(f"{path} is not a release index of format {INDEX_FORMAT}")
    return data.get("datasets", {})


def write_index(index: dict, path: Path | None = None) -> Path:
    path = Path(path or paths.releases_file())
    path.parent.mkdir(parents=True, exist_ok=True)
    body = {"format": INDEX_FORMAT, "datasets": {name: dict(sorted(versions.items(), key=lambda kv: _semver(kv[0])))
                                                   for name, versions in sorted(index.items())}}
    atomic_write_bytes(path, (json.dumps(body, indent=1, sort_keys=False) + "\n").encode())
    return path


def versions(dataset: str, index: dict | None = None) -> list[str]:
    """Released versions of a dataset, oldest first."""
    index = read_index() if index is None else index
    return sorted(index.get(get_dataset(dataset).name, {}), key=_semver)


def latest_version(dataset: str, index: dict | None = None) -> str | None:
    found = versions(dataset, index)
    return found[-1] if found else None


def current_version(ds: Dataset, index: dict | None = None) -> str:
    """The version a reader names today: the latest release, else the registry's (nothing released)."""
    return latest_version(ds.name, index) or ds.version


def known_index() -> dict:
    """The release index, plus the releases a release folder carries that it does not list (an
    installed package reading a newer export)."""
    index = read_index()
    root = paths.release_dir()
    if root is None or not Path(root).is_dir():
        return index
    for folder in sorted(Path(root).iterdir()):
        exported = read_index(folder / RELEASE_INDEX) if (folder / RELEASE_INDEX).is_file() else {}
        for name, by_version in exported.items():
            for version, configs in by_version.items():
                index.setdefault(name, {}).setdefault(version, configs)
    return index


def exported_version(ds: Dataset, cfg: Config) -> str | None:
    """The latest version of this config in the release folder, if one is set and holds it."""
    root = paths.release_dir()
    if root is None:
        return None
    short = ds.name.split("/", 1)[1]
    exported = read_index(Path(root) / short / RELEASE_INDEX).get(ds.name, {})
    found = sorted((v for v, configs in exported.items() if cfg.name in configs), key=_semver)
    return found[-1] if found and (exported_folder(root, ds, cfg.name) / "manifest.json").is_file() else None


def release_of(ds: Dataset, cfg: Config, version: str, index: dict | None = None) -> ConfigRelease:
    index = known_index() if index is None else index
    released = index.get(ds.name, {})
    record = released.get(version, {}).get(cfg.name)
    if record is None:
        have = [v for v in sorted(released, key=_semver) if cfg.name in released[v]]
        raise UnknownReleaseError(f"{ds.name}/{cfg.name} has no released version {version} (released: "
                                  f"{', '.join(have) or 'none yet'}; `perfgraphs datasets release {ds.name}` makes one)")
    return ConfigRelease.from_record(record)


def is_released(ds: Dataset, cfg: Config, index: dict | None = None) -> bool:
    index = known_index() if index is None else index
    return any(cfg.name in configs for configs in index.get(ds.name, {}).values())


# -- making a release -----------------------------------------------------------------------------
def build_columns(folder: Path, manifest: dict) -> tuple[str, ...]:
    import pyarrow.parquet as pq

    first = sorted(manifest["splits"].items())[0][1]["shards"][0]
    return tuple(pq.read_schema(Path(folder) / first).names)


def next_version(previous: dict[str, ConfigRelease] | None, latest: str | None,
                 new: dict[str, ConfigRelease], first: str) -> str | None:
    """The version ``new`` gets after ``latest`` (``previous``: its configs); None when nothing changed."""
    if latest is None or previous is None:
        return first
    changed = [c for c, r in new.items() if c not in previous or previous[c].content_hash != r.content_hash]
    if not changed:
        return None
    major, minor, _patch = (_semver(latest) + (0, 0, 0))[:3]
    dropped = any(not set(previous[c].columns) <= set(new[c].columns) for c in changed if c in previous)
    return f"{major + 1}.0.0" if dropped else f"{major}.{minor + 1}.0"


# -- serving a release ----------------------------------------------------------------------------
def kept_folder(ds: Dataset, config: str, version: str, home: Path | None = None) -> Path:
    return paths.releases_cache(home) / ds.name.split("/", 1)[1] / version / config


def exported_folder(root: Path, ds: Dataset, config: str) -> Path:
    """A config inside an export (``perfgraphs datasets export``): ``<root>/<short name>/<config>``."""
    return Path(root) / ds.name.split("/", 1)[1] / config


def keep(folder: Path, target: Path) -> Path:
    """A copy of a build's files swapped in at ``target``; an identical copy already there is left
    alone if its files still verify, else replaced.

    Copies, not hard links: a hard-linked copy shares the build's bytes, so bit rot or an in-place
    edit of one damaged both, and after the build was repaired (rebuilt into new files) the kept
    copy still held the damaged ones, was "identical" by its manifest, and
    ``load_dataset(version=)`` kept failing on it."""
    from perfgraphs.data.manifest import MANIFEST, read_manifest
    from perfgraphs.data.staging import swap_in

    manifest = read_manifest(folder)
    try:
        existing = read_manifest(target)
    except PerfgraphsError:
        existing = None
    if existing is not None and existing.get("manifest_sha256") == manifest.get("manifest_sha256") and _intact(target):
        return target
    target.parent.mkdir(parents=True, exist_ok=True)
    stage = target.with_name(f".{target.name}.building-{os.getpid()}")
    shutil.rmtree(stage, ignore_errors=True)
    for rel in [*manifest["files"], MANIFEST]:
        (stage / rel).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(folder / rel, stage / rel)
    swap_in(stage, target)
    return target


def _intact(folder: Path) -> bool:
    """Whether a copy's files are the bytes its manifest lists (a damaged copy is not the release)."""
    from perfgraphs.data.manifest import verify

    try:
        verify(folder, decode_rows=False)
    except PerfgraphsError:
        return False
    return True


def find_release(ds: Dataset, cfg: Config, version: str, home: Path | None = None) -> tuple[Path, dict] | None:
    """A folder here whose build is the release (release folder, kept release, working build)."""
    from perfgraphs.data.build import dataset_folder
    from perfgraphs.data.manifest import is_legacy, read_manifest

    record = release_of(ds, cfg, version)
    candidates = []
    if paths.release_dir() is not None:
        candidates.append(exported_folder(paths.release_dir(), ds, cfg.name))
    candidates += [kept_folder(ds, cfg.name, version, home), dataset_folder(ds, cfg, home)]
    for folder in candidates:
        try:
            manifest = read_manifest(folder)
        except DatasetIntegrityError:
            continue  # a damaged copy is not the release; the next candidate may be
        # a copy whose files are damaged is skipped: the next candidate, or a rebuild, serves it
        if manifest is not None and not is_legacy(manifest) and record.same_rows(manifest) and _intact(folder):
            return folder, manifest
    return None
