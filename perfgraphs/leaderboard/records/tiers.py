"""What a record's tier claims, and nothing more.

* ``verified``: predictor code scored by the isolated harness on a **hidden** test set whose labels
  never left the organisers' keeper (``PERFGRAPHS_HIDDEN_DIR``): no predictor can have seen them.
* ``reproduced``: predictor code scored by the isolated harness on a **public** test set. The
  harness reproduced the score from the code, but the labels are committed in the repository, so
  the score cannot certify that the code never had them (a lookup table reproduces 0 %).
* ``self-reported``: predictions files, checked but not run here.

Records written before this vocabulary said ``verified`` for every harness score; they are read
(never rewritten) with the tier they can honestly claim: ``verified`` on a public test set reads
as ``reproduced``, and so does ``verified`` on a hidden set later found compromised
(:func:`perfgraphs.leaderboard.records.hidden.compromised_hashes`).

A tier is read from evidence, never from the word in the record (:func:`hidden_claim_problem`): a
record on a hidden set counts only when its labels' sha256 is a commitment committed to git in
``leaderboard/hidden/`` before the record's date; one that names no such commitment is not shown
(a hand-written "verified" with a made-up hash, or one scored against a folder of the scorer's own).
"""

from __future__ import annotations

VERIFIED = "verified"
REPRODUCED = "reproduced"
SELF_REPORTED = "self-reported"
TIERS = (VERIFIED, REPRODUCED, SELF_REPORTED)
# tiers whose predictions the harness itself produced by running the code (timings are measured)
HARNESS_TIERS = (VERIFIED, REPRODUCED)


def scored_tier(kind: str, test_set: str) -> str:
    """The tier of a new record: a code submission on the hidden set is verified, on the public
    set reproduced; predictions files are self-reported."""
    if kind != "code":
        return SELF_REPORTED
    return VERIFIED if test_set == "hidden" else REPRODUCED


def honest_tier(tier: str, test_set: str, hidden_labels_sha256: str = "") -> str:
    """The tier a stored record can claim, whatever its ``tier`` field says."""
    if tier != VERIFIED:
        return tier
    if test_set != "hidden":
        return REPRODUCED
    from perfgraphs.leaderboard.records.hidden import compromised_hashes

    return REPRODUCED if hidden_labels_sha256 in compromised_hashes() else VERIFIED


def hidden_claim_problem(test_set: str, hidden_labels_sha256: str, date_utc: str, dataset: str | None = None,
                         config: str | None = None) -> str | None:
    """Why a record's hidden-set claim does not check against the committed commitments (None: it
    checks, or the record claims no hidden set). Without a git history to read (an installed
    package) nothing can check: the record is refused too, as its claim cannot be shown. Given the
    record's ``dataset`` and ``config``, the hash must have been committed as that config's set
    (``<dataset>-<config>.sha256``): another board's commitment certifies nothing here."""
    if test_set != "hidden":
        return None
    from datetime import datetime

    from perfgraphs.leaderboard.records.hidden import _stem, commitment_history, committed_commitments

    committed = committed_commitments()
    if committed is None:
        return "claims a hidden test set, but no git history of leaderboard/hidden/ is here to check its commitment"
    sha = (hidden_labels_sha256 or "").lower()
    if sha not in committed:
        return (f"claims a hidden test set (sha256 {sha[:16] or 'none'}...) that matches no commitment ever "
                "committed to leaderboard/hidden/")
    if dataset is not None and config is not None:
        stems = commitment_history().hashes[sha][2]
        if _stem(str(dataset), str(config)) not in stems:
            return (f"claims a hidden test set (sha256 {sha[:16]}...) committed for another board "
                    f"({', '.join(sorted(stems))}), not for {_stem(str(dataset), str(config))}")
    if not committed[sha]:
        return None  # a shallow clone: committed, at a date its history does not show
    try:
        scored, committed_at = datetime.fromisoformat(date_utc), datetime.fromisoformat(committed[sha])
    except (TypeError, ValueError):
        return f"claims a hidden test set but its date {date_utc!r} is not an ISO 8601 time"
    if scored.tzinfo is None or scored < committed_at:
        return (f"scored on a hidden test set at {date_utc}, before its commitment was committed "
                f"({committed[sha]}): a score counts only after the labels were committed to")
    return None
