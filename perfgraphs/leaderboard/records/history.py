"""The repository's git history, as the read-time record checks see it: one way to ask git, and
whether the history is there to check against (not in an installed package, nor in a shallow
clone, which lacks the commits older records name)."""

from __future__ import annotations

import functools
import re
import subprocess
from pathlib import Path


def git(folder: Path, *args: str) -> str | None:
    """``git -C folder args`` output as text (a bad byte read as U+FFFD: a file git prints is anyone's
    text, fourteenth pass), None when git, a repository or the object is not there."""
    out = git_bytes(folder, *args)
    return None if out is None else out.decode("utf-8", errors="replace").replace("\r\n", "\n").replace("\r", "\n")


def git_bytes(folder: Path, *args: str) -> bytes | None:
    """``git -C folder args`` output as bytes, None as :func:`git`."""
    try:
        done = subprocess.run(["git", "-C", str(folder), *args], capture_output=True, timeout=60)
    except (OSError, subprocess.SubprocessError):
        return None
    return done.stdout if done.returncode == 0 else None


@functools.lru_cache(maxsize=8)
def full_history(folder: Path) -> bool:
    """``folder`` is in a git repository with its whole history (asked once per folder)."""
    return (git(folder, "rev-parse", "--is-shallow-repository") or "").strip() == "false"


_UNCOMMITTED = "0" * 40
_BLAME_HEADER = re.compile(rb"([0-9a-f]{40}) \d+ (\d+)(?: \d+)?")


def line_arrivals(path: Path) -> list[int | None] | None:
    """When each line of ``path`` reached the checked-out branch, read along its first parents (the
    main line: a merge brings its branch's lines when it is merged, whatever the branch's commits
    say about themselves): 0 for the root commit's lines, one more per main-line commit, and one past
    the last commit for a line not committed yet. None when there is no history to read (no git, a
    file git does not track, a shallow clone). Line ``n`` (from 1) is item ``n - 1``."""
    folder = path.parent
    if not full_history(folder):
        return None
    head = git(folder, "rev-parse", "HEAD")
    stat = path.stat() if path.is_file() else None
    if head is None or stat is None:
        return None
    return _line_arrivals(folder, path.name, head.strip(), stat.st_mtime_ns, stat.st_size)


@functools.lru_cache(maxsize=16)
def _line_arrivals(folder: Path, name: str, head: str, mtime_ns: int, size: int) -> list[int | None] | None:
    chain = git(folder, "rev-list", "--first-parent", head)
    blame = git_bytes(folder, "-c", "blame.ignoreRevsFile=", "blame", "--first-parent", "--porcelain", "--", name)
    if chain is None or blame is None:
        return None
    commits = chain.split()
    when = {sha: len(commits) - 1 - i for i, sha in enumerate(commits)}
    when[_UNCOMMITTED] = len(commits)
    found: dict[int, int | None] = {}
    # bytes, split at "\n" only, headers only: the file's own lines come back too, each after a tab,
    # and a record's text with U+2028 or NEL in it printed a header of its own choosing that
    # str.splitlines() read (fourteenth pass)
    for line in blame.split(b"\n"):  # a line's header: "<commit> <line then> <line now>[ <group size>]"
        if not line.startswith(b"\t") and (m := _BLAME_HEADER.fullmatch(line)):
            found[int(m.group(2))] = when.get(m.group(1).decode(), len(commits))
    # a line blame did not place (none should be) comes last, as an uncommitted one: never first
    return [found.get(n, len(commits)) for n in range(1, max(found, default=0) + 1)]
