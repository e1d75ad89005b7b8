"""The repository's git history, as the read-time record checks see it: one way to ask git, and
whether the history is there to check against (not in an installed package, nor in a shallow
clone, which lacks the commits older records name)."""

from __future__ import annotations

import functools
import subprocess
from pathlib import Path


def git(folder: Path, *args: str) -> str | None:
    """``git -C folder args`` output, None when git, a repository or the object is not there."""
    try:
        done = subprocess.run(["git", "-C", str(folder), *args], capture_output=True, text=True, timeout=60)
    except (OSError, subprocess.SubprocessError):
        return None
    return done.stdout if done.returncode == 0 else None


@functools.lru_cache(maxsize=8)
def full_history(folder: Path) -> bool:
    """``folder`` is in a git repository with its whole history (asked once per folder)."""
    return (git(folder, "rev-parse", "--is-shallow-repository") or "").strip() == "false"
