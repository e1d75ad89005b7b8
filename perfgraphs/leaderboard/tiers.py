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
(:func:`perfgraphs.leaderboard.hidden.compromised_hashes`).
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
    from perfgraphs.leaderboard.hidden import compromised_hashes

    return REPRODUCED if hidden_labels_sha256 in compromised_hashes() else VERIFIED
