"""A hidden board's rank groups, computed where its labels are (the keeper folder) and published
without them.

A hidden-set record carries aggregate scores only: its per-configuration ratios (prediction /
label) would hand a submitter, who knows its own predictions, the hidden labels. So the paired
bootstrap that ranks the public boards (:mod:`perfgraphs.evaluation.ranking`) cannot run from the
records. Instead:

1. ``perfgraphs submit --hidden-labels`` keeps each accepted record's ratios in the keeper folder,
   ``scores/<set>/<target>/<run_identity>.json`` (:func:`keep_scores`), never in the repository;
2. once a round's entries are scored, the keeper runs ``perfgraphs leaderboard rank-hidden``
   (:func:`seal`): the same paired bootstrap over them, written to
   ``leaderboard/hidden/ranks/<set>--<target>.json`` — each entry's rank, MAPE interval, difference
   to the best with its interval and the entries it beats, and no per-configuration number;
3. boards read that file (:func:`read_sealed`, then ``ranks.rank_board(..., sealed=...)``): an entry
   is ranked by it only when the file names its record (run identity, method, hidden set) and the
   record's own MAPE is the one the file was computed from; every other entry stays unranked, with
   the reason (scored after the ranks, or a record that does not match them).

Kaggle's private leaderboard works the same way: the host scores and ranks on labels nobody else
holds, and publishes the outcome.
"""

from __future__ import annotations

import json
import os
from datetime import datetime, timezone
from pathlib import Path

import numpy as np

from perfgraphs.evaluation.ranking import MIN_RANKED_CONFIGS, Contender, RankingInputError, paired_ranking
from perfgraphs.leaderboard.records import hidden
from perfgraphs.leaderboard.records.hidden import HiddenLabelsError, _stem
from perfgraphs.leaderboard.records.digest import record_sha256
from perfgraphs.leaderboard.records.results import Entry

SCORES_DIR = "scores"  # inside the keeper folder
# a record's MAPE against the one its kept ratios give: the ratios are stored to 6 significant digits
# (records.record_check), so they reproduce a MAPE to about 5e-5 points; a changed score moves far more
MAPE_ATOL = 1e-4


def scores_path(keeper: Path, dataset: str, config: str, target: str, run_identity: str) -> Path:
    return Path(keeper) / SCORES_DIR / _stem(dataset, config) / target / f"{run_identity}.json"


def ranks_path(dataset: str, config: str, target: str, root: Path | None = None) -> Path:
    # a folder of their own: the commitments folder's *.json are the sets' definitions
    return (root or hidden.COMMITMENTS_DIR) / "ranks" / f"{_stem(dataset, config)}--{target}.json"


def keep_scores(keeper: Path, entry: Entry, ratios: list[list[float]]) -> Path:
    """Keep a hidden-set record's per-seed, per-configuration prediction / label in the keeper."""
    path = scores_path(keeper, entry.dataset, entry.config, entry.target, entry.run_identity)
    path.parent.mkdir(parents=True, exist_ok=True)
    doc = {"method": entry.method, "run_identity": entry.run_identity, "record_sha256": record_sha256(entry),
           "hidden_labels_sha256": entry.hidden_labels_sha256, "pred_over_label": ratios}
    tmp = path.with_name(path.name + f".tmp-{os.getpid()}")
    tmp.write_text(json.dumps(doc))
    os.replace(tmp, path)
    return path


def _kept_ratios(keeper: Path, e: Entry) -> np.ndarray:
    path = scores_path(keeper, e.dataset, e.config, e.target, e.run_identity)
    try:
        doc = json.loads(path.read_text())
        ratios = np.asarray(doc["pred_over_label"], dtype=float)
    except (OSError, ValueError, KeyError, TypeError, RecursionError) as exc:
        raise HiddenLabelsError(f"{e.method}: no readable kept scores {path} ({type(exc).__name__}): a record "
                                "scored with --hidden-labels keeps them in the keeper folder") from None
    if doc.get("hidden_labels_sha256") != e.hidden_labels_sha256 or doc.get("method") != e.method:
        raise HiddenLabelsError(f"{e.method}: the kept scores {path} belong to another record or hidden set")
    recorded = [s.get("mape_pct") for s in e.per_seed]
    kept = [float(np.mean(np.abs(r - 1.0)) * 100.0) for r in np.atleast_2d(ratios)]
    if len(kept) != len(recorded) or not np.allclose(kept, recorded, rtol=0, atol=MAPE_ATOL) \
            or doc.get("record_sha256") != record_sha256(e):
        raise HiddenLabelsError(f"{e.method}: the record is not the one these scores were kept for ({path}): "
                                "it was changed after it was scored, or it copies another record")
    return np.atleast_2d(ratios)


def seal(entries: list[Entry], keeper: Path, min_configs: int = MIN_RANKED_CONFIGS) -> dict:
    """The rank groups of one hidden board's full-strength entries (one set, one build), from the
    scores its keeper holds; the document ``rank-hidden`` publishes."""
    from perfgraphs.leaderboard.records.ranks import is_quick, team_best

    entries = [e for e in entries if not is_quick(e.method)]
    if not entries:
        raise HiddenLabelsError("no full-strength entry on this hidden board to rank")
    sets = {e.hidden_labels_sha256 for e in entries}
    if len(sets) != 1 or "" in sets:
        raise HiddenLabelsError("the entries are not all scored on one hidden test set")
    kept, left_out = [], []
    for e in entries:  # a record the keeper cannot vouch for is left out, not a reason to rank nothing
        try:
            kept.append((e, _kept_ratios(keeper, e)))
        except HiddenLabelsError as exc:
            left_out.append({"method": e.method, "run_identity": e.run_identity, "why": str(exc)})
    if not kept:
        raise HiddenLabelsError("no entry of this hidden board has kept scores that match its record: "
                                + "; ".join(x["why"] for x in left_out)[:400])
    kept, seconds = team_best(kept)  # one ranked entry per team, as on the public boards (twentieth pass)
    left_out += [{"method": e.method, "run_identity": e.run_identity,
                  "why": "another entry of its team is ranked (one per team: its lowest mean MAPE)"} for e in seconds]
    entries = [e for e, _ in kept]
    contenders = [Contender(str(i), r) for i, (_, r) in enumerate(kept)]
    try:
        ranking = paired_ranking(contenders, None, min_configs=min_configs)
    except RankingInputError as exc:
        raise HiddenLabelsError(f"cannot rank the hidden board: {exc}") from None
    first = entries[0]
    return {
        "about": "rank groups of a hidden board, computed by its keeper from the per-configuration scores the "
                 "keeper folder holds (perfgraphs.leaderboard.records.sealed_ranks); no per-configuration number",
        "dataset": first.dataset, "config": first.config, "target": first.target,
        "hidden_labels_sha256": first.hidden_labels_sha256, "dataset_content_hash": first.dataset_content_hash,
        "n_configs": ranking.n_configs, "resamples": ranking.resamples, "ranked": ranking.ranked,
        "reason": ranking.reason, "summary": ranking.summary(),
        "computed_at_utc": datetime.now(timezone.utc).isoformat(timespec="seconds"),
        "left_out": left_out,
        "entries": [{"method": entries[int(r.name)].method, "run_identity": entries[int(r.name)].run_identity,
                     "record_sha256": record_sha256(entries[int(r.name)]), "rank": r.rank,
                     "mape_pct": r.mape_pct, "mape_ci95": list(r.mape_ci95),
                     "diff_to_best": r.diff_to_best, "diff_ci95": list(r.diff_ci95),
                     "better_than": [entries[int(b)].method for b in r.better_than]}
                    for r in ranking.entries],
    }


def write_sealed(doc: dict, root: Path | None = None) -> Path:
    path = ranks_path(doc["dataset"], doc["config"], doc["target"], root)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(path.name + f".tmp-{os.getpid()}")
    tmp.write_text(json.dumps(doc, indent=1) + "\n")
    os.replace(tmp, path)
    return path


def _computed_at(doc: dict) -> datetime:
    """When the keeper computed a ranks document (its signed ``computed_at_utc``); the earliest time
    for one that states none readable."""
    try:
        found = datetime.fromisoformat(str(doc.get("computed_at_utc", "")))
    except ValueError:
        return datetime.min.replace(tzinfo=timezone.utc)
    return found if found.tzinfo is not None else found.replace(tzinfo=timezone.utc)


def _keepers(text: str | None, dataset: str, config: str, target: str, hidden_sha256: str,
             root: Path | None) -> dict | None:
    """The ranks document ``text`` when it is this board's (dataset, config, target: the key signs every
    target of its set, and the memory board's file holding the latency ranks unranked its entries) and
    this hidden set's, signed by its keeper; else None."""
    try:
        doc = json.loads(text) if text is not None else None
    except (ValueError, RecursionError):  # nesting past the parser is unreadable too
        return None
    from perfgraphs.leaderboard.records.record_check import MAX_RECORD_DEPTH, deeper_than

    if not isinstance(doc, dict) or doc.get("hidden_labels_sha256") != hidden_sha256 \
            or (doc.get("dataset"), doc.get("config"), doc.get("target")) != (dataset, config, target) \
            or not isinstance(doc.get("entries"), list) or deeper_than(doc, MAX_RECORD_DEPTH):
        return None  # (a document just under the parser's depth broke json.dumps of its message: twelfth pass)
    from perfgraphs.leaderboard.records.keeper_key import ranks_message, signature_problem

    if signature_problem(dataset, config, hidden_sha256, ranks_message(doc), doc.get("keeper_signature", ""), root):
        return None  # not the keeper's (or a set without a key): applied only as its keeper published them
    return doc


def _main_line_texts(path: Path) -> list[str]:
    """Every version of the ranks file ``path`` the main line (``--first-parent``) has committed, at the
    path the repository holds it under. Git asked from the ranks folder follows a link: a pull request
    that replaced ``leaderboard/hidden/ranks/`` with a link to a folder of its own, holding the round's
    first signed ranks, had the history of that folder read (one version), the keeper's later ranks
    never, and the board showed the stale ranks again (forty-ninth pass of 2026-12-05)."""
    from perfgraphs.leaderboard.records.history import (committed_text, head_commit, in_folder, main_line_versions,
                                                        repository_place)

    place = repository_place(path.parent)  # no link followed, the commitments folder's neither (fiftieth pass)
    head = head_commit(place[0]) if place is not None else None
    if place is None or head is None:
        return []
    where = in_folder(place, path.name)
    versions = main_line_versions(place[0], head, f":(literal){where}")
    return [t for commit, _ in versions if (t := committed_text(place[0], commit, where)) is not None]


def read_sealed(dataset: str, config: str, target: str, hidden_sha256: str, root: Path | None = None) -> dict | None:
    """The published ranks of this hidden board, or None: no file, an unreadable one, or one
    computed on another hidden set. Of the file as it is and every version of it the main line
    committed, the keeper-signed one of this set computed last: a signed file is the keeper's, but
    not necessarily its latest, and a pull request that put back the round's first ranks (a version
    the main line held, before the keeper ranked a contributor's entry scored later) showed the
    reference the keeper had since ranked second at rank 1 alone, the contributor's entry unranked
    as "scored after the keeper's ranks" (forty-eighth pass of 2026-12-05). The next round of a
    config writes its ranks over the same file, and the earlier set's board still finds its own."""
    from perfgraphs.leaderboard.records.history import in_writers_repository

    path = ranks_path(dataset, config, target, root)
    try:  # a submodule's checkout is its writer's, with no main-line version beside it (ninety-third pass)
        current = None if in_writers_repository(path.parent) else path.read_text()
    except (OSError, ValueError):
        current = None
    found = [d for text in [current, *_main_line_texts(path)]
             if (d := _keepers(text, dataset, config, target, hidden_sha256, root)) is not None]
    return max(found, key=_computed_at) if found else None
