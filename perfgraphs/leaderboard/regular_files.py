"""The regular files of a submission folder, walked as the checks read them: links neither followed
nor opened (a link is no file a submission holds), in a fixed order."""

from __future__ import annotations

import os
import stat
from collections.abc import Iterator
from pathlib import Path


def regular_files(root: Path) -> Iterator[Path]:
    """Every regular file under ``root``, folder by folder, names sorted; a file that cannot be
    stat'ed is left out (the checks that read it report it)."""
    for folder, _, files in os.walk(root):  # links are neither followed nor opened
        for name in sorted(files):
            path = Path(folder, name)
            try:
                if stat.S_ISREG(os.lstat(path).st_mode):
                    yield path
            except OSError:
                continue
