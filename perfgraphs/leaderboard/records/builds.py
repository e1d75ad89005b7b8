"""The dataset build each board ranks: ``leaderboard/builds.json``, one pin per (dataset, config).

A board compares entries only when they were scored on the same test rows and labels, i.e. on one
dataset build (its manifest's content hash). The labelled sets grow with the measurement campaigns,
so the project pins the build a board currently ranks — the build a fresh clone of this commit
produces (``tests/test_leaderboard_builds.py`` rebuilds every pinned config and compares) — and
the site ranks only the entries scored on it; entries on earlier builds move to a "previous
builds" section. Re-pinning (``perfgraphs leaderboard pin-builds``) is a release step: the
reference baselines are then re-scored on the new build.

``perfgraphs check`` and ``submit`` score on the local build; when it differs from the pin they
say why (other generator versions, other sources) in one line, and ``submit`` records nothing.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

from perfgraphs import paths
from perfgraphs.errors import PerfgraphsError
from perfgraphs.registry import Task

BUILDS_FILE = paths.leaderboard_dir() / "builds.json"


def pins_file(results_root: Path | None) -> Path:
    """The pins belong to a results folder and live beside it (``leaderboard/builds.json`` for
    ``leaderboard/results``): a scratch results folder has no pins unless one is written there."""
    from perfgraphs.leaderboard.records.results import RESULTS_DIR

    return (results_root or RESULTS_DIR).parent / "builds.json"


def _key(dataset: str, config: str) -> str:
    return f"{dataset} {config}"


def read_pins(path: Path | None = None) -> dict[str, dict]:
    path = path or BUILDS_FILE
    if not path.exists():
        return {}
    try:
        pins = json.loads(path.read_text())
    except json.JSONDecodeError as exc:
        raise PerfgraphsError(f"{path} is not valid JSON ({exc.msg} at line {exc.lineno})") from None
    except (OSError, ValueError, RecursionError) as exc:  # a bad byte, nesting past the parser (eleventh pass)
        raise PerfgraphsError(f"{path} is not readable JSON ({type(exc).__name__})") from None
    if not isinstance(pins, dict):
        return {}
    for key, pin in pins.items():  # every reader takes a pin's fields as these types
        if not (isinstance(pin, dict) and isinstance(pin.get("content_hash"), str)
                and isinstance(pin.get("test_n", {}), dict) and isinstance(pin.get("generators", {}), dict)
                and isinstance(pin.get("repetitions", ""), str)
                and all(isinstance(n, int) and not isinstance(n, bool) and n >= 0 for n in pin.get("test_n", {}).values())):
            raise PerfgraphsError(f"{path}: the pin {key[:80]!r} is not an object with a content_hash text, "
                                  "test_n (target: count) and generators objects (and a repetitions text)")
    return pins


def pinned(board: Task, path: Path | None = None) -> dict | None:
    """``{"content_hash", "generators", "test_n": {target: n}}`` of the board's build, or None."""
    return read_pins(path).get(_key(board.dataset.name, board.config.name))


def board_pin(pins: dict[str, dict], dataset: str, config: str, test_set: str) -> dict | None:
    """The pin a board splits its entries by (:func:`split_by_build`): its config's, for a public
    board; none for a hidden set's, whose labels are not the build's and which is scored once (its
    rows stay its board's after a re-pin, every one of them: :func:`hidden_board`). `leaderboard show`
    left the pin out of hidden boards and the site and `rank-hidden` applied it, so after a re-pin
    the site listed the live set's ten verified rows as "previous builds" while `show` ranked them as
    current (twenty-ninth pass of 2026-12-03): every reader asks here."""
    return pins.get(_key(dataset, config)) if test_set == "public" else None


def pin_from(data) -> dict:
    """The pin of a loaded protocol (:class:`perfgraphs.evaluation.protocol.ProtocolData`); the
    caller adds the scored test size of each board target and the repeat store's digest
    (:func:`repetitions_digest`). The noise floor's sentence is not pinned: it is derived from the
    measurements (:func:`perfgraphs.evaluation.label_noise.noise_floor_note`)."""
    return {"content_hash": data.content_hash, "generators": dict(data.generators), "test_n": {}}


class RepetitionsPinError(PerfgraphsError):
    """A config's repeat store is not the one its pin in ``builds.json`` names."""


def repetitions_digest(cfg) -> str | None:
    """One sha256 over the data files of ``cfg``'s repeat store (``Config.repeat_suite``: the test
    part measured again, whose visits every board of the config ranks against) as the store lists
    them, each with the sha256 its sidecar records (reading a file checks it against that); None
    for a config without a repeat store. The sidecars, not the Parquet bytes: a few ms a store."""
    if cfg.repeat_suite is None:
        return None
    import hashlib

    from perfgraphs.collect.store import MeasurementStore, read_sidecar

    store = MeasurementStore(paths.measurement_store(cfg.repeat_suite))
    listing = sorted(f"{store.relative(f)} {read_sidecar(f)}" for f in store.files())
    return hashlib.sha256("\n".join(listing).encode()).hexdigest()


def repetitions_pin_problem(board: Task, path: Path | None = None) -> str | None:
    """Why the repeat store ``board``'s ranks would pair with is not the pinned one (None: it is, or
    the config has no pin or no repeat store). The visits are no part of the build's content hash,
    and a pull request that added a shard of 20 passes at one entry's predictions to
    ``data/measurements/dippm-cpu-test-visits-*`` (sidecar and campaign.json written by the store's
    own code: `collect verify` passed it) moved that entry from rank 2 at 10.7 % to rank 1 at 3.4 %
    on the official dippm cpu latency board, each label then scored against a mean of 27
    measurements, 20 of them its predictions (forty-second pass of 2026-12-04). So the store's
    files are pinned with the build (``repetitions``, written by ``pin-builds``, a release step)."""
    pin = pinned(board, path)
    if board.config.repeat_suite is None:
        return None
    if pin is None:
        return unpinned_repetitions_problem(board)
    found = repetitions_digest(board.config)
    if pin.get("repetitions") == found:
        return None
    return (f"the repeat store {board.config.repeat_suite} (the test part's visits the ranks pair with) is not the "
            f"one leaderboard/builds.json pins for {board.dataset.name} {board.config.name} (sha256 {found[:12]} here, "
            f"{str(pin.get('repetitions') or 'none')[:12]} pinned): restore the store, or re-pin "
            "(`perfgraphs leaderboard pin-builds`, a release step)")


def unpinned_repetitions_problem(board: Task) -> str | None:
    """Why a config with a repeat store and no pin in ``builds.json`` has no visits to rank against.
    The file is read as it stands, and "no pin" read as "nothing to check": one pull request that
    deleted the pin of dippm's ``cpu-torch-fp32`` (its references on that build, the board ranked the
    same records unpinned) and added a shard of 20 forged visits at one entry's predictions moved that
    entry from rank 2 at 10.7 % to rank 1 at 3.4 % on the official latency board, no reader saying a
    word (hundred-and-twenty-first pass, side b). A store is ranked against only as a pin names it
    (``pin-builds``, a release step, pins a new config's)."""
    return (f"no pin in leaderboard/builds.json names {board.dataset.name} {board.config.name}, so nothing names the "
            f"repeat store {board.config.repeat_suite} its ranks pair with: restore the pin, or pin the config "
            "(`perfgraphs leaderboard pin-builds`, a release step)")


def write_pins(pins: dict[str, dict], path: Path | None = None) -> Path:
    path = path or BUILDS_FILE
    tmp = path.with_suffix(".tmp")
    tmp.write_text(json.dumps(dict(sorted(pins.items())), indent=2, sort_keys=True) + "\n")
    os.replace(tmp, path)
    return path


def mismatch(board: Task, content_hash: str, generators: dict[str, str] | None,
             path: Path | None = None) -> str | None:
    """None when the local build of the board's config is the pinned one (or nothing is pinned);
    else one line why not."""
    pin = pinned(board, path)
    if pin is None or pin["content_hash"] == content_hash:
        return None
    why = ""
    if generators:
        differ = [f"{k} {generators.get(k, 'absent')} here vs {v} for the board"
                  for k, v in sorted(pin.get("generators", {}).items()) if generators.get(k, "absent") != v
                  and k != "perfgraphs"]
        why = ("; the generators differ: " + ", ".join(differ)) if differ else \
            "; same generator versions, so the sources differ (measurements, graph pool or external files)"
    return (f"this checkout builds {board.dataset.name}/{board.config.name} as {content_hash[:12]} but the board "
            f"ranks build {pin['content_hash'][:12]} (leaderboard/builds.json){why}")


def split_by_build(entries: list, pin: dict | None) -> tuple[str, list, list]:
    """(the board's build, entries scored on it, entries on earlier builds). The build is the pin
    of ``builds.json``; a config without a pin ranks :func:`unpinned_build`; a hidden set's board
    keeps every record (:func:`hidden_board`)."""
    if not entries:
        return "", [], []
    build = pinned_build(entries, pin["content_hash"]) if pin else unpinned_build(entries)
    if pin is None and hidden_board(entries):
        return build, list(entries), []
    return (build, [e for e in entries if e.dataset_content_hash == build],
            [e for e in entries if e.dataset_content_hash != build])


def pinned_build(entries: list, pin: str) -> str:
    """The build a pinned public board ranks: the pin, unless records are on it while the board's newest
    reference-baseline record the harness ran is on another build, whose build it then ranks
    (:func:`unpinned_build`'s first rule). ``builds.json`` is a file a pull request can change and is read
    as it stands, and no test rebuilds most pinned configs: one pull request that pinned dippm's unpinned
    ``amd-epyc-23059b2f-torch-fp32`` (or re-pinned a pinned config) to the build of its author's own
    reproduced record ranked that record alone at rank 1, the reference and every other team under
    *previous builds* (seventy-second pass of 2026-12-06). A re-pin is a release step after which the
    maintainers re-score the references on the new build (the module's docstring); a pin that holds no
    record yet (a re-pin before that) still ranks nothing, as before."""
    from perfgraphs.leaderboard.records.references import REFERENCE_AUTHORS
    from perfgraphs.leaderboard.records.tiers import HARNESS_TIERS

    references = [e for e in entries if e.tier in HARNESS_TIERS and e.authors == REFERENCE_AUTHORS]
    if not references or not any(e.dataset_content_hash == pin for e in entries):
        return pin
    return max(references, key=lambda e: e.date_utc).dataset_content_hash


def ranked_pin(pin: dict | None, build: str) -> dict | None:
    """The pin where the board ranks its build (:func:`split_by_build`'s ``build``), else None: a pin's
    ``test_n`` and hash describe the pinned build only. Where :func:`pinned_build` ranks the newest
    reference's build instead, the site stated the pin's hash as the board's build and both readers its
    ``test_n`` as the test size: a pull request re-pinning a config to its author's build with ``test_n``
    of its choosing titled the site's board with that build above the references' rows, listed its own
    record there as "scored on earlier dataset builds", and set the test n `show` and the site print
    under every entry (seventy-fourth pass of 2026-12-06)."""
    return pin if pin is not None and pin.get("content_hash") == build else None


def hidden_board(entries: list) -> bool:
    """Whether ``entries`` are a hidden set's board, whose records :func:`split_by_build` keeps together
    whatever build each trained on: they are scored on the set's own rows and labels, which no build holds,
    so no record of it is on an earlier build than another. Split by the build of its newest record, one
    contributor's keeper-signed record scored after a re-pin (the release step; `submit` scores on the
    pinned build only) moved every other entry of the live set, the keeper's rank-1 entry and the
    references among them, under *previous builds*, unranked, and the keeper's next `rank-hidden` ranked
    that one record first alone at 30 % MAPE above entries at 10 % (sixty-eighth pass of 2026-12-06)."""
    return all(e.test_set == "hidden" for e in entries)


def unpinned_build(entries: list) -> str:
    """The build of a public board without a pin: that of its newest reference-baseline record the harness
    ran (the references are the project's own, re-scored by the maintainers on each new build, and
    a record under their name is read only at a main-line commit holding their code), else the one
    most teams' newest harness records are on (:func:`_most_teams_build`), else that of its newest
    record. A self-reported record names its build by hand and nothing here re-scores it: one such
    line, dated after the others and naming a made-up build, moved the reference and every team of
    an unpinned board (dippm's ``amd-epyc-23059b2f-torch-fp32``) under *previous builds*, unranked,
    and left the board to itself (thirty-seventh pass of 2026-12-04). So did one contributor's
    *reproduced* record on another build, dated last: `reproduce` compares its build with the
    reviewer's checkout, not with the board's (an unpinned config builds otherwise under other
    generator versions, and `submit` has no pin to refuse it by), and its one row was ranked 1 above
    six references of lower MAPE (thirty-eighth pass of 2026-12-04). A hidden board's records are
    all its keeper's: its newest harness record's build."""
    from perfgraphs.leaderboard.records.references import REFERENCE_AUTHORS
    from perfgraphs.leaderboard.records.tiers import HARNESS_TIERS

    ran = [e for e in entries if e.tier in HARNESS_TIERS]
    if ran and all(e.test_set == "hidden" for e in ran):
        # a hidden board (board_pin): each record read is its keeper's (signed or frozen), so its
        # newest is the round's build, a contributor's scored after a re-pin included (twenty-ninth pass)
        return max(ran, key=lambda e: e.date_utc).dataset_content_hash
    references = [e for e in ran if e.authors == REFERENCE_AUTHORS]
    if references:
        return max(references, key=lambda e: e.date_utc).dataset_content_hash
    if ran:
        return _most_teams_build(ran)
    return max(entries, key=lambda e: e.date_utc).dataset_content_hash


def _most_teams_build(ran: list) -> str:
    """The build most teams' newest harness records are on (:func:`_voters`: one vote a team, a team's
    newest record being the newest that names one of its people), a tie going to the build of the
    newest of those records. One team's records, however many and however dated, are one vote: they
    cannot move the other teams' entries off the board."""
    from collections import Counter

    from perfgraphs.leaderboard.records import names

    newest = [max((e for e in ran if e.authors == voter or names.share_a_person(e.authors, voter)),
                  key=lambda e: e.date_utc) for voter in _voters(ran)]
    votes = Counter(e.dataset_content_hash for e in newest)
    return max(newest, key=lambda e: (votes[e.dataset_content_hash], e.date_utc)).dataset_content_hash


def _voters(ran: list) -> list[str]:
    """The author lists that vote, one a team: taken fewest people first (then the one sharing a person
    with the fewest other lists, then the one recorded first), each votes unless a list that votes
    shares a person with it, as a board ranks one entry per person (:func:`perfgraphs.leaderboard.
    records.ranks.team_best`). Teams merged along chains of shared names made a third record a
    bridge: `joint-net` by `Alice Author, Bob Builder` (written as their records write them, which
    `check` takes), on their build and worse than both, made Alice's and Bob's one vote against Mal
    Lory's, the tie went to Mal's newer record on another build, and the unpinned board ranked Mal
    alone, Alice's, Bob's and the joint entry under *previous builds* (seventieth pass). Now a list
    naming two teams' people takes neither team's vote; only one naming a team's person and voting
    first (a claim review refuses) sets that team's vote aside."""
    from perfgraphs.leaderboard.records import names

    first: dict[str, str] = {}
    for e in sorted(ran, key=lambda e: e.date_utc):
        first.setdefault(e.authors, e.date_utc)
    shared = {a: sum(b != a and names.share_a_person(a, b) for b in first) for a in first}
    voters: list[str] = []
    for authors in sorted(first, key=lambda a: (len(names.people(a)), shared[a], first[a], a)):
        if not any(names.share_a_person(authors, v) for v in voters):
            voters.append(authors)
    return voters
