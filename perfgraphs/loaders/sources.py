"""Locate, download and verify the third-party files an importer reads.

Public measurement data (timm's benchmark CSVs, the ML.ENERGY leaderboard JSON) is an *input* of
perfgraphs, never part of it: the repository only commits where each file lives upstream (a URL at
a pinned commit) and its sha256. This module turns that list into local paths, either from a
directory the user already has (``local_dir`` / ``PERFGRAPHS_EXTERNAL_DIR``) or by downloading into
the user's cache (``PERFGRAPHS_HOME``). Every pinned file is checked against its committed sha256
before anyone parses it: a pinned name with other bytes is refused.

:func:`discover_source` goes further, as an importer that follows its source rather than a fixed
list: every file of the source folder that matches the importer's name patterns is a candidate
(a newer upstream result file dropped beside the others is read, with its own sha256 recorded by
the build), while the pinned files keep their guard.

Downloads use ``urllib`` only and are atomic (temp file in the target directory, then
``os.replace``): an interrupted or corrupt download never leaves a file under its final name.
"""

from __future__ import annotations

import hashlib
import os
import tempfile
import urllib.error
import urllib.request
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from perfgraphs.errors import PerfgraphsError
from perfgraphs.paths import ENV_EXTERNAL_DIR  # the settings live in perfgraphs.paths

FIX_HINT = f"set {ENV_EXTERNAL_DIR} or pass --external-dir to a directory holding the pinned files"

_CHUNK_BYTES = 1 << 16
_DOWNLOAD_TIMEOUT_S = 60.0


class ExternalSourceError(PerfgraphsError):
    """Base class: an external input file that cannot be found, fetched, verified or parsed."""


class SourceFileMissingError(ExternalSourceError):
    """A pinned file is absent from the local directory the user pointed us at."""


class ChecksumMismatchError(ExternalSourceError):
    """A file's bytes differ from the committed sha256 (corrupt, truncated or another commit)."""

    def __init__(self, name: str, path: Path | str, expected: str, actual: str):
        self.name, self.path, self.expected, self.actual = name, str(path), expected, actual
        super().__init__(
            f"sha256 mismatch for {name} ({path}): expected {expected[:16]}…, got {actual[:16]}… "
            f"(file is corrupt or from another upstream commit; {FIX_HINT}, or delete it to re-download)"
        )


class DownloadError(ExternalSourceError):
    """A pinned file could not be downloaded (no network, HTTP error)."""


class SourceFormatError(ExternalSourceError):
    """A verified file whose content the importer does not understand."""


class SkippedSourceFileWarning(UserWarning):
    """A file of a source folder that an importer skipped (one line: which file and why)."""


@dataclass(frozen=True)
class SourceFile:
    """One upstream file: ``name`` is its path relative to the source directory (may hold ``/``)."""

    name: str
    url: str
    sha256: str


def perfgraphs_home() -> Path:
    """The user's cache root: ``$PERFGRAPHS_HOME`` or ``~/.cache/perfgraphs``."""
    from perfgraphs.paths import cache_home

    return cache_home()


def sha256_file(path: Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(_CHUNK_BYTES), b""):
            h.update(chunk)
    return h.hexdigest()


def resolve_source(
    files: Iterable[SourceFile],
    local_dir: Path | str | None = None,
    cache_dir: Path | str | None = None,
    *,
    subdir: str = "",
    progress: bool = True,
) -> dict[str, Path]:
    """Return ``{file name: verified local path}`` for every file of one source.

    Where the bytes come from, first match wins:

    1. ``local_dir`` (e.g. ``--external-dir .../timm-benchmark``): read in place, never copied;
    2. ``$PERFGRAPHS_EXTERNAL_DIR/<subdir>``: same, for a directory of several sources;
    3. the cache, ``cache_dir`` or ``$PERFGRAPHS_HOME/external/<subdir>``: files already there are
       re-verified; missing or mismatching ones are downloaded from their pinned URL.

    A local directory is taken as the user's explicit choice: a file missing there is an error,
    not a reason to go to the network behind their back.
    """
    files = list(files)
    if local_dir is None and os.environ.get(ENV_EXTERNAL_DIR) and subdir:
        local_dir = Path(os.environ[ENV_EXTERNAL_DIR]).expanduser() / subdir
    if local_dir is not None:
        return {f.name: _verify_local(f, Path(local_dir)) for f in files}
    cache = Path(cache_dir) if cache_dir is not None else perfgraphs_home() / "external" / subdir
    return {f.name: _cached_or_download(f, cache, progress) for f in files}


def _verify_local(f: SourceFile, root: Path) -> Path:
    path = root / f.name
    if not path.is_file():
        raise SourceFileMissingError(f"{f.name} is missing from {root} ({FIX_HINT})")
    actual = sha256_file(path)
    if actual != f.sha256:
        raise ChecksumMismatchError(f.name, path, f.sha256, actual)
    return path


def _cached_or_download(f: SourceFile, cache: Path, progress: bool) -> Path:
    path = cache / f.name
    if path.is_file() and sha256_file(path) == f.sha256:
        return path
    # Missing, or a stale / corrupt cached copy: fetch it again; the old bytes are replaced only
    # once the new ones have been verified.
    _download_verified(f, path, progress)
    return path


def _download_verified(f: SourceFile, dest: Path, progress: bool) -> None:
    created = _mkdirs(dest.parent)
    tmp_path: Path | None = None
    try:
        fd, tmp_name = tempfile.mkstemp(prefix=f".{dest.name}.", suffix=".part", dir=dest.parent)
        tmp_path = Path(tmp_name)
        with os.fdopen(fd, "wb") as out:
            actual = _stream(f, out, progress)
            out.flush()
            os.fsync(out.fileno())
        if actual != f.sha256:
            raise ChecksumMismatchError(f.name, f.url, f.sha256, actual)
        os.replace(tmp_path, dest)
        tmp_path = None
    except BaseException:
        if tmp_path is not None:
            tmp_path.unlink(missing_ok=True)
        if not dest.exists():
            for d in reversed(created):  # leave no empty directories behind a failed download
                try:
                    d.rmdir()
                except OSError:
                    break
        raise


def _stream(f: SourceFile, out, progress: bool) -> str:
    """Copy ``f.url`` into ``out``; returns the sha256 of the bytes written."""
    h = hashlib.sha256()
    try:
        resp = urllib.request.urlopen(f.url, timeout=_DOWNLOAD_TIMEOUT_S)  # noqa: S310 (pinned URLs)
    except (urllib.error.URLError, OSError, ValueError) as e:
        reason = getattr(e, "reason", e)
        raise DownloadError(f"cannot download {f.name} from {f.url}: {reason} ({FIX_HINT})") from None
    with resp:
        length = resp.headers.get("Content-Length") if resp.headers else None
        total = int(length) if length and length.isdigit() else None
        bar = _progress_bar(progress)
        with bar:
            task = bar.add_task(f.name, total=total)
            try:
                for chunk in iter(lambda: resp.read(_CHUNK_BYTES), b""):
                    out.write(chunk)
                    h.update(chunk)
                    bar.update(task, advance=len(chunk))
            except (urllib.error.URLError, OSError) as e:
                raise DownloadError(f"download of {f.name} from {f.url} failed: {e} ({FIX_HINT})") from None
    return h.hexdigest()


def _progress_bar(enabled: bool):
    from rich.progress import (BarColumn, DownloadColumn, Progress, TextColumn,
                               TransferSpeedColumn)

    return Progress(TextColumn("{task.description}"), BarColumn(), DownloadColumn(),
                    TransferSpeedColumn(), transient=True, disable=not enabled)


def _mkdirs(path: Path) -> list[Path]:
    """``mkdir -p`` that reports which directories it created, outermost first."""
    missing = []
    p = path
    while not p.exists():
        missing.append(p)
        p = p.parent
    missing.reverse()
    for d in missing:
        d.mkdir(exist_ok=True)
    return missing


@dataclass(frozen=True)
class ImportedFile:
    """A file an importer read: its name in the source folder and the sha256 of the bytes read."""

    name: str
    sha256: str


@dataclass(frozen=True)
class SkippedFile:
    name: str
    reason: str  # one line


@dataclass(frozen=True)
class DiscoveredFiles:
    """The candidate files of one source: ``paths`` (name -> path) and their sha256, name-sorted;
    ``folder`` is None when nothing is available locally and ``download`` was off (then the pinned
    list stands for the source's content)."""

    folder: Path | None
    paths: dict[str, Path]
    sha256: dict[str, str]


def local_source_dir(local_dir: Path | str | None, subdir: str) -> Path | None:
    """The folder the user pointed at: ``local_dir``, else ``$PERFGRAPHS_EXTERNAL_DIR/<subdir>``."""
    if local_dir is None and os.environ.get(ENV_EXTERNAL_DIR) and subdir:
        local_dir = Path(os.environ[ENV_EXTERNAL_DIR]).expanduser() / subdir
    return None if local_dir is None else Path(local_dir)


def discover_source(pinned: Iterable[SourceFile], patterns: tuple[str, ...], local_dir: Path | str | None = None,
                    cache_dir: Path | str | None = None, *, subdir: str = "", progress: bool = True,
                    download: bool = True) -> DiscoveredFiles:
    """Every file of a source folder whose relative path matches one of ``patterns`` (globs).

    The folder is ``local_dir``, ``$PERFGRAPHS_EXTERNAL_DIR/<subdir>``, or the cache (as in
    :func:`resolve_source`; the pinned files are downloaded there first when ``download``). A file
    whose name is pinned must have the pinned bytes (:class:`ChecksumMismatchError` otherwise);
    other files are accepted as they are, their sha256 taken here. Hidden files (``.x.part``) are
    in-flight downloads and never candidates. A local folder with no candidate is an error.
    """
    pinned = list(pinned)
    folder = local_source_dir(local_dir, subdir)
    if folder is None:
        cache = Path(cache_dir) if cache_dir is not None else perfgraphs_home() / "external" / subdir
        if download:
            resolve_source(pinned, cache_dir=cache, subdir=subdir, progress=progress)
        elif not cache.is_dir():
            return DiscoveredFiles(None, {}, {f.name: f.sha256 for f in pinned})
        folder = cache
    if not folder.is_dir():
        raise SourceFileMissingError(f"{folder} is not a directory ({FIX_HINT})")
    names = sorted({p.relative_to(folder).as_posix() for pattern in patterns for p in folder.glob(pattern)
                    if p.is_file() and not any(part.startswith(".") for part in p.relative_to(folder).parts)})
    if not names:
        raise SourceFileMissingError(f"{folder} holds no {' or '.join(patterns)} file ({FIX_HINT})")
    expected = {f.name: f.sha256 for f in pinned}
    digests = {}
    for name in names:
        actual = sha256_file(folder / name)
        if name in expected and actual != expected[name]:
            raise ChecksumMismatchError(name, folder / name, expected[name], actual)
        digests[name] = actual
    return DiscoveredFiles(folder, {n: folder / n for n in names}, digests)
