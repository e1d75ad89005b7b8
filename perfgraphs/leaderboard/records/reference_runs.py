"""The reference runs' manifest: ``leaderboard/reference_records.sha256`` lists the digest of every public record
the reference authors' harness wrote (``append_entry`` adds one line a record, under the results file's lock),
and a line by the reference authors that it does not list is no run of theirs, skipped when read.

A results file is text every contributor's pull request edits, and nothing read from a line tells a reference's
run from a line written by hand at a real commit of its code: a copy of the ML.ENERGY energy-per-token
`static-xgboost` record (65.28 %) re-dated, every ratio set to 1.01 or 0.99 and its pairs, τ, RMSE and Acc
rewritten to match, took the reference's ranked row and was ranked 1 at 1.00 % above every reference
(hundred-and-nineteenth pass, side b). The manifest is what ties a row to a run: a file only the reference runs
write and no team's pull request touches, whose every added line is a reference run for review to reproduce
(`perfgraphs leaderboard reproduce`). Kept apart from the readers (``results`` imports this, never the other way).
"""

from __future__ import annotations

import functools
import re
from pathlib import Path

from perfgraphs.leaderboard.records.references import REFERENCE_AUTHORS

MANIFEST_NAME = "reference_records.sha256"
_DIGEST = re.compile(r"[0-9a-f]{64}")


def manifest_path(results_folder: Path) -> Path | None:
    """The manifest of the leaderboard a results folder belongs to (``<folder>/../reference_records.sha256``), or
    None where it keeps none: the repository's own leaderboard always keeps one (without it no reference line
    reads), another folder (a test's, `quickstart`'s) where the file exists."""
    from perfgraphs import paths

    leaderboard = Path(results_folder).parent
    manifest = leaderboard / MANIFEST_NAME
    if manifest.exists() or manifest.is_symlink():
        return manifest
    try:
        own = leaderboard.resolve() == paths.leaderboard_dir().resolve()
    except OSError:
        own = False
    return manifest if own else None


def is_reference_run(record: dict) -> bool:
    """Whether a record is one the manifest lists: the reference authors' on a public test set (a hidden
    set's record is tied by its keeper's signature instead)."""
    return record.get("authors") == REFERENCE_AUTHORS and record.get("test_set", "public") != "hidden"


def unlisted_run_problem(record: dict, digest: str, results_folder: Path) -> str | None:
    """Why a line by the reference authors is no reference run (None: it is, or its folder keeps no runs):
    its digest (``results.line_key``'s canonical record, hashed) is not in the leaderboard's manifest."""
    manifest = manifest_path(results_folder)
    if manifest is None or not is_reference_run(record):
        return None
    if digest in _listed(str(manifest), *_stamp(manifest)):
        return None
    return (f"is a line by the reference authors that no reference run wrote: its digest is not in "
            f"{MANIFEST_NAME}, which the harness appends each reference record to (a hand-written line)")


def note_run(digest: str, method: str, results_folder: Path) -> None:
    """Append a reference run's digest to its leaderboard's manifest (called by ``append_entry`` with the
    results file locked, after the record's line is written)."""
    manifest = manifest_path(results_folder)
    if manifest is None:
        return
    with open(manifest, "a", encoding="utf-8") as f:
        f.write(f"{digest}  {method}\n")


def _stamp(path: Path) -> tuple[int, int]:
    try:
        st = path.stat()
    except OSError:
        return (-1, -1)
    return (st.st_mtime_ns, st.st_size)


@functools.lru_cache(maxsize=8)
def _listed(path: str, mtime_ns: int, size: int) -> frozenset[str]:
    """The digests a manifest lists (the first word of each line; a file that cannot be read lists none)."""
    try:
        text = Path(path).read_text(encoding="utf-8", errors="replace")
    except OSError:
        return frozenset()
    return frozenset(w[0] for w in (line.split() for line in text.splitlines()) if w and _DIGEST.fullmatch(w[0]))
