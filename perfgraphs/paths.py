"""Where perfgraphs reads and writes: the checkout's data folders and the user's cache.

One module for every location, at the bottom of the layers, so no module builds a path from its
own ``__file__``."""

from __future__ import annotations

import os
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[1]
DATA_DIR = REPO_ROOT / "data"
DEFAULT_POOL = DATA_DIR / "graphs" / "timm"
MEASUREMENTS_DIR = DATA_DIR / "measurements"
LEADERBOARD_DIR = REPO_ROOT / "leaderboard"


def perfgraphs_home() -> Path:
    """The user's cache: built datasets, imported external data, MLflow runs."""
    return Path(os.environ.get("PERFGRAPHS_HOME", Path.home() / ".cache" / "perfgraphs"))
