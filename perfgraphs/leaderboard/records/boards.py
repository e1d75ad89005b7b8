"""The official boards: which (dataset, config, target) the leaderboard ranks, and which reference
baselines each must list.

Why a declared list (the registry's, :func:`perfgraphs.registry.official_boards`): a dataset
config exposes many label columns (nnlqp alone has 17 platform targets, every measured config a
drift-calibrated twin of its latency), and a board is worth
having only where every reference baseline has been run on it; otherwise a new method is
"best" against half the field. As OGB fixes one metric per dataset, the project fixes its boards
in the registry; entries on any other target are still recorded and shown, under "additional boards", and
nothing stops a researcher from studying them.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from perfgraphs.leaderboard.records.references import REFERENCE_AUTHORS, REFERENCE_DIR  # noqa: F401 — re-exported
from perfgraphs.baselines.catalog import reference_baselines
from perfgraphs.errors import PerfgraphsError
from perfgraphs.registry import official_boards


@dataclass(frozen=True)
class Board:
    dataset: str  # registry name, as in the results records
    config: str
    target: str
    kind: str  # the config's row kind (which reference baselines apply)
    why: str
    # the split protocol the board ranks: its config's official one (perfgraphs/llm:
    # leave-models-out); entries under another protocol of the config are on a secondary board
    protocol: str = ""

    @property
    def key(self) -> tuple[str, str, str]:
        return (self.dataset, self.config, self.target)


# The boards are registry data (each config's ``boards``), read here in registry order; the reference
# baselines each lists are the baseline catalog's (the row kinds each one applies to).
BOARDS: tuple[Board, ...] = tuple(Board(ds.name, cfg.name, b.target, cfg.kind, b.why,
                                        cfg.official_protocol or "")
                                  for ds, cfg, b in official_boards())


def official(dataset: str, config: str, target: str, protocol: str | None = None) -> Board | None:
    """The official board of (dataset, config, target); with ``protocol`` (an entry's
    :meth:`~perfgraphs.leaderboard.records.results.RecordedBoards.scoring_protocol`), only if the board
    ranks that protocol."""
    return next((b for b in BOARDS if b.key == (dataset, config, target)
                 and (protocol is None or protocol == b.protocol)), None)


def applicable_baselines(board: Board) -> list[str]:
    return reference_baselines(board.kind)


def reference_method(baseline: str, entry_method: str) -> bool:
    """Whether a recorded method name is that reference baseline's (``<name>`` or ``<name> (quick…)``)."""
    return entry_method == baseline or entry_method.startswith(baseline + " (")


def missing_reference_entries(results: Path | None = None) -> dict[Board, list[str]]:
    """Per official board, the applicable reference baselines without a harness-scored public entry at
    full strength on the board's current build (an entry on an earlier build is not ranked, and a
    ``(quick)`` CI run is listed but not ranked on an official board, so neither counts)."""
    from perfgraphs.leaderboard.records.builds import pins_file, read_pins
    from perfgraphs.leaderboard.records.ranks import is_quick
    from perfgraphs.leaderboard.records.results import RecordedBoards, read_entries
    from perfgraphs.leaderboard.records.tiers import HARNESS_TIERS

    missing: dict[Board, list[str]] = {}
    pins = read_pins(pins_file(results))
    recorded = RecordedBoards()
    by_dataset = {d: read_entries(d.split("/")[-1], results) for d in {b.dataset for b in BOARDS}}
    for board in BOARDS:
        on_board = [e for e in by_dataset[board.dataset] if (e.config, e.target) == (board.config, board.target)
                    and e.test_set == "public"
                    and recorded.scoring_protocol(e.dataset, e.config, e.protocol) == board.protocol]
        current = _on_ranked_build(on_board, pins.get(f"{board.dataset} {board.config}"))
        # the harness ran the reference's own code (a record by anyone else under its name is refused
        # at submission, check.check_reserved; this keeps one from a hand-edited file out as well)
        entries = [e for e in current if e.tier in HARNESS_TIERS and e.authors == REFERENCE_AUTHORS
                   and not is_quick(e.method)]
        absent = [b for b in applicable_baselines(board) if not any(reference_method(b, e.method) for e in entries)]
        if absent:
            missing[board] = absent
    return missing


def _on_ranked_build(on_board: list, pin: dict | None) -> list:
    """A public official board's records on the build its table ranks (:func:`~perfgraphs.leaderboard.records.
    builds.split_by_build`), which the reference warning is about. Read from the pin as written (a re-pin's
    references not yet re-scored on it are missing there) while the board ranked ``builds.pinned_build``, one
    pull request re-pinning dippm's ``cpu-torch-fp32`` to the earlier build every reference had been scored
    on had the site say "every applicable reference baseline is at full strength" above the current build's
    table, which lacked ``trappm``, and a re-pin to a build of its author's record alone listed all seven as
    missing above their own rows (seventy-sixth pass of 2026-12-06). A re-pin holding no record yet is the
    build ranked, and every reference is missing there, as before."""
    from perfgraphs.leaderboard.records.builds import split_by_build

    return split_by_build(on_board, pin)[1]


def entry_groups(results: Path, recorded) -> dict[tuple, list]:
    """Every record of ``results`` by the table it is ranked in: (dataset, config, target, scoring
    protocol, test set, hidden set's sha256 or ""). Entries of different test sets or protocols are
    never ranked together, nor those of two hidden sets (a withdrawn set's beside a live one's would
    mix a reproduced score with a verified one). Every official board has a group, empty where no
    record names it, so it is still listed with why. ``recorded``: a
    :class:`~perfgraphs.leaderboard.records.results.RecordedBoards`."""
    from perfgraphs.leaderboard.records.results import (ResultsCheckoutError, boards_checkout_problem, printable,
                                                         read_all_entries)

    if why := boards_checkout_problem():  # a converted store, probe or rules file: other text, or a stop
        raise ResultsCheckoutError(printable(why))
    if why := results_folder_problem(Path(results)):
        raise PerfgraphsError(printable(why))
    groups: dict[tuple, list] = {}
    for e in read_all_entries(results):
        protocol = recorded.scoring_protocol(e.dataset, e.config, e.protocol)
        hidden_set = e.hidden_labels_sha256 if e.test_set != "public" else ""
        groups.setdefault((e.dataset, e.config, e.target, protocol, e.test_set, hidden_set), []).append(e)
    for board in BOARDS:
        groups.setdefault((*board.key, board.protocol, "public", ""), [])
    return groups


def results_folder_problem(results: Path) -> str | None:
    """Why ``results`` is no results folder to read the boards from (None: it is one, or nothing is there yet, a
    board with no entry). A results file named for its folder (``--results leaderboard/results/dippm.jsonl``) or
    any other file was read as a folder holding no record: `leaderboard show` listed every board as "no entry has
    been scored on it yet" and `leaderboard build` wrote a site of "No entries yet", both exit 0, where `submit`
    refuses such a ``--results`` in one line (hundred-and-twenty-sixth pass, side e)."""
    try:
        if results.exists() and not results.is_dir():
            return (f"--results {str(results)[:200]}: not a folder: give the folder of the results files "
                    "(leaderboard/results), not a file")
    except OSError as exc:  # a name too long: "internal error: OSError" before (review of 2026-12-08)
        return f"--results {str(results)[:200]}: cannot be used ({exc.strerror}): give a folder"
    return None


def group_order(groups) -> list[tuple]:
    """The groups' keys in the order boards are shown: official boards in the registry's order,
    each public test set first, then its live hidden set, then withdrawn ones; then the others."""
    from perfgraphs.leaderboard.records.hidden import COMMITMENTS_DIR, commitment_hash

    order = {(*b.key, b.protocol): i for i, b in enumerate(BOARDS)}
    live = {commitment_hash(p) for p in COMMITMENTS_DIR.glob("*.sha256")} - {None} if COMMITMENTS_DIR.is_dir() else set()
    return sorted(groups, key=lambda k: (k[:4] not in order, order.get(k[:4], 0), k[4] != "public",
                                         k[5] not in live, k))
