"""Crash-safe file writes and the mapping of operating-system failures to one typed error.

A write goes to a temp file in the same directory, is fsynced, renamed over the target and the
directory is fsynced: a SIGKILL or a power cut leaves either the old file or the new one, never a
mix. A failed write (read-only store, full disk) removes its temp file and raises
:class:`~perfgraphs.errors.FileIOError` naming the file, so the CLI prints one line instead of "internal error".
"""

from __future__ import annotations

import contextlib
import errno
import hashlib
import os
import secrets
from pathlib import Path
from typing import Iterator

from perfgraphs.errors import FileIOError


def fsync_dir(path: Path) -> None:
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def sha256_file(path: Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


def temp_name(path: Path) -> Path:
    """A temp file name for a write to ``path`` (hidden, with the writer's pid and a random part: a
    leftover of a crash is recognisable and never mistaken for data, and nobody can plant a file
    under the name before it is created)."""
    return path.with_name(f".{path.name}.tmp-{os.getpid()}-{secrets.token_hex(4)}")


def new_temp(path: Path) -> tuple[int, Path]:
    """Create the temp file of a write to ``path``: a new file (``O_EXCL``, ``O_NOFOLLOW``), never one
    that was there. A committed store, split or artifact folder is a contributor's to fill, and a link
    committed under a predictable temp name had a write go through it, into the link's target. Returns
    the open descriptor and the name; the mode is the one ``open(..., "w")`` gives (0666 less umask)."""
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_CLOEXEC", 0)
    for _ in range(8):
        tmp = temp_name(path)
        try:
            return os.open(tmp, flags, 0o666), tmp
        except FileExistsError:  # 32 random bits taken: draw again
            continue
    raise FileExistsError(errno.EEXIST, "no free temporary name", str(path))


def is_temp(path: Path) -> bool:
    return path.name.startswith(".") and ".tmp-" in path.name


@contextlib.contextmanager
def removed_on_failure(path: Path, unless: Path | None = None) -> Iterator[None]:
    """Delete ``path`` if the block fails (a failed write must not leave half a file behind),
    except when ``unless`` exists by then (the write it belonged to completed after all)."""
    try:
        yield
    except BaseException:
        if unless is None or not unless.exists():
            with contextlib.suppress(OSError):
                path.unlink(missing_ok=True)
        raise


def atomic_write_bytes(path: Path, data: bytes) -> None:
    fd, tmp = new_temp(path)
    with removed_on_failure(tmp):
        with os.fdopen(fd, "wb") as f:
            f.write(data)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    fsync_dir(path.parent)


@contextlib.contextmanager
def os_errors(what: str) -> Iterator[None]:
    """``OSError`` (EROFS, ENOSPC, EFBIG, EACCES, ...) inside the block → one-line FileIOError."""
    try:
        yield
    except OSError as exc:
        where = f": {exc.filename}" if getattr(exc, "filename", None) else ""
        text = str(exc).strip()
        reason = exc.strerror or (text.splitlines()[0][:200] if text else type(exc).__name__)
        raise FileIOError(f"cannot {what} ({reason}{where})") from None


def sidecar_of(path: Path) -> Path:
    return path.with_name(path.name + ".sha256")


def atomic_write_table(table, path: Path, *, sidecar: bool = True, compression_level: int | None = None) -> str:
    """A Parquet file written whole or not at all: temp file → fsync → (sidecar with its sha256,
    atomic) → ``os.replace`` → fsync of the folder. Returns the file's sha256.

    With a sidecar, a failure (or Ctrl-C) after the sidecar landed but before the file did leaves
    no sidecar without its file; once the file is there, its sidecar stays with it."""
    import pyarrow.parquet as pq

    with os_errors(f"write {path}"):
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = new_temp(path)
        with removed_on_failure(tmp), removed_on_failure(sidecar_of(path), unless=path) if sidecar \
                else contextlib.nullcontext():
            with os.fdopen(fd, "wb") as f:  # the file new_temp created, not whatever the name points at
                pq.write_table(table, f, compression="zstd", compression_level=compression_level)
                f.flush()
                os.fsync(f.fileno())
            digest = sha256_file(tmp)
            if sidecar:
                atomic_write_bytes(sidecar_of(path), (digest + "\n").encode())
            os.replace(tmp, path)
        fsync_dir(path.parent)
    return digest
