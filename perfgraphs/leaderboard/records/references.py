"""Where the reference baselines' submission folders live and whose name their records carry: two
constants that the boards, the submission checks and the read-time record checks share (kept apart
so that reading a record never imports the boards, which read records)."""

from __future__ import annotations

from perfgraphs import paths

REFERENCE_DIR = paths.leaderboard_dir() / "reference"
# the author of every reference record: reserved (check.check_reserved, and trust when read)
REFERENCE_AUTHORS = "perfgraphs reference baselines"
