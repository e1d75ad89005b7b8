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
from collections.abc import Callable
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


def taken_out_problem(results_folder: Path, present: dict[str, dict],
                      removed: Callable[[], dict[str, tuple[str, dict | None]]]) -> str | None:
    """Why the boards of a results folder are not ranked with every reference run its manifest lists (None: they
    are): a listed run whose line no results file of the folder holds (``present``: each line's digest, a
    reference's its record) was taken out of the results, and its board re-ranks without it, an entry it beat
    significantly a rank up, no line saying so: one pull request deleting the dippm cpu latency ``static-mlp``
    line (rank 3) moved ``roofline-fit`` 5 -> 4 and ``static-xgboost`` 6 -> 5, stderr empty (hundred-and-twenty-
    third pass, side b). A re-run supersedes a record and leaves its line in the file, so a run is named unless
    ``removed`` (each line the folder's main-line history took out: digest -> (file name, record)) shows it was
    one a present listed record of its team supersedes (its board, method and tier, dated later)."""
    manifest = manifest_path(results_folder)
    if manifest is None:
        return None
    listed = {**once_listed(manifest), **_methods(str(manifest), *_stamp(manifest))}
    missing = {d: m for d, m in listed.items() if d not in present}
    if not missing:
        return None
    found, current = removed(), [r for d, r in present.items() if r and d in listed]
    named = [_taken_out_name(m, *found.get(d, ("", None))) for d, m in sorted(missing.items(), key=lambda dm: dm[1])
             if not _superseded(found.get(d, ("", None))[1], current)]
    if not named:
        return None
    return (f"{MANIFEST_NAME} lists {len(named)} reference run{'s' if len(named) > 1 else ''} whose line no "
            f"results file of {results_folder.name}/ holds ({'; '.join(named)[:400]}): its board is ranked "
            f"without it, every entry it beat moved up; put the line back (a re-run leaves the record it "
            f"supersedes in the file): a run {MANIFEST_NAME} listed on the main line stays listed")


def once_listed(manifest: Path) -> dict[str, str]:
    """Each digest a version of the manifest reachable from HEAD listed, with its method: the harness only
    appends to the file, so a run it listed stays listed. Read as the file is, a pull request that deleted the
    official ML.ENERGY energy-per-token ``serving-prior-boost`` line (rank 1, 21.78 %) and its manifest line
    together (two removals, one in the organisers' file) made ``static-mlp`` rank 1 "best" and moved
    ``llm-xgboost`` 3 -> 2 with nothing printed (hundred-and-twenty-fifth pass, side c; 123b named the run only
    while the manifest still listed it). Without the history (an installed package, a shallow clone), none: the
    file as it is counts alone. Every version, through any parent (:func:`_listed_in_history`), beside the
    first-parent line's removals (read as before, should the wider reading find no history)."""
    from perfgraphs.leaderboard.records.history import line_changes

    words = (text.split() for _, delta, text in line_changes(Path(manifest)) or [] if delta < 0)
    return {**{w[0]: " ".join(w[1:]) for w in words if w and _DIGEST.fullmatch(w[0])}, **_listed_in_history(manifest)}


def _listed_in_history(manifest: Path) -> dict[str, str]:
    """Each digest a line of any version of the manifest reachable from HEAD, through any parent, holds
    (``history.lines_ever_held``). Read on the first-parent line alone, a pull request forked before the
    ``serving-prior-boost`` run landed that merged main dropping its results and manifest lines and landed by
    fast-forward (the run's commit on a second parent) re-ranked that board, ``static-mlp`` 2 -> 1 and
    ``llm-xgboost`` 3 -> 2, with nothing printed (hundred-and-twenty-sixth pass, side c). The cost: a merged
    pull request whose own commit put a line into the manifest (refused on review: no team's pull request touches
    it) and a later one took it out has that run named in every reading."""
    from perfgraphs.leaderboard.records.history import lines_ever_held

    words = (text.split() for text in lines_ever_held(Path(manifest)) or ())
    return {w[0]: " ".join(w[1:]) for w in words if w and _DIGEST.fullmatch(w[0])}


def _taken_out_name(method: str, file: str, record: dict | None) -> str:
    """A taken-out run as the warning names it: its method, and its board where the history shows its line."""
    if record is None:
        return method
    where = " ".join(str(record.get(k, "")) for k in ("config", "target", "protocol") if record.get(k))
    return f"{method} of {record.get('date_utc', '?')} ({file}: {where})"


def _superseded(record: dict | None, current: list[dict]) -> bool:
    """Whether a present listed record of the same team, board, method, tier and division is dated later."""
    if record is None:
        return False
    from perfgraphs.leaderboard.records.names import method_key

    def key(r: dict) -> tuple:
        return (r.get("dataset"), r.get("dataset_content_hash"), r.get("config"), r.get("target"),
                r.get("protocol", ""), r.get("test_set", "public"), method_key(r.get("method", "")), r.get("authors"), r.get("tier"),
                r.get("division"))
    return any(key(r) == key(record) and str(r.get("date_utc", "")) > str(record.get("date_utc", ""))
               for r in current)


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
def _methods(path: str, mtime_ns: int, size: int) -> dict[str, str]:
    """Each digest a manifest lists, with the method its line names after it."""
    try:
        text = Path(path).read_text(encoding="utf-8", errors="replace")
    except OSError:
        return {}
    words = (line.split() for line in manifest_lines(text))
    return {w[0]: " ".join(w[1:]) for w in words if w and _DIGEST.fullmatch(w[0])}


@functools.lru_cache(maxsize=8)
def _listed(path: str, mtime_ns: int, size: int) -> frozenset[str]:
    """The digests a manifest lists (the first word of each line; a file that cannot be read lists none)."""
    try:
        text = Path(path).read_text(encoding="utf-8", errors="replace")
    except OSError:
        return frozenset()
    return frozenset(w[0] for w in (line.split() for line in manifest_lines(text)) if w and _DIGEST.fullmatch(w[0]))


def manifest_lines(text: str) -> list[str]:
    """The manifest's lines as git, a diff and its reviewer count them: split at ``\n`` only (a ``\r`` before it
    dropped), each listing the digest it starts with. Read with ``str.splitlines``, which also breaks at ``\x1c``,
    ``\x0b``, ``\x85``, U+2028 and others, one committed line edited to ``<its digest>  static-xgboost\x1c<a digest>``
    listed a second run after a character a terminal shows as nothing: a hand-written reference line of that digest,
    each ratio 1.01 or 0.99 (119b's forgery), was read and ranked 1 at 1.00 % on the official ML.ENERGY
    energy-per-token board, where the diff showed one line of the organisers' file retouched and no run added
    (hundred-and-twenty-sixth pass, side e; the thirteenth pass read the results files so)."""
    return [line.removesuffix("\r") for line in text.split("\n")]
