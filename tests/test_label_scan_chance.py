"""The label scan counts chance (issue 32, item 5): bytes that hold no labels match the labels and
their decoys alike, so an honest predictor with many weights passes, and a lookup table still does
not. (The case that was refused: 200 MB of random float32 weights matched 480 of the 1528 labels of
an artifact, and 455 of its decoys; measured with the project's scan.)"""

from __future__ import annotations

import numpy as np

from perfgraphs.leaderboard import label_scan
from perfgraphs.leaderboard.label_scan import DECOY_FACTOR, LabelArray, LabelIndex, scan_submission

# labels with 4-6 significant digits, packed into [1, 2) so that a 16 MB file of random float32
# values there covers most of them by chance (what 200 MB of weights does over a wide range)
LABELS = np.round(np.random.default_rng(7).uniform(1.0, 2.0, 60), 4)


def _weights(folder, mb: int = 16) -> None:
    blob = np.random.default_rng(mb).uniform(1.0, 2.0, mb * 2**20 // 4).astype(np.float32)
    (folder / "weights.bin").write_bytes(blob.tobytes())


def _chance_hits(folder) -> tuple[int, int]:
    index = LabelIndex([LabelArray("labels", LABELS), LabelArray("decoys", LABELS * DECOY_FACTOR)])
    with np.errstate(all="ignore"):
        found = label_scan._found_in((folder / "weights.bin").read_bytes(), index)
    return sum(1 for a, _ in found if a == 0), sum(1 for a, _ in found if a == 1)


def test_dense_random_weights_pass_and_the_old_rule_refused_them(tmp_path):
    _weights(tmp_path)
    assert scan_submission(tmp_path, [LabelArray("the test labels", LABELS)]) == []
    # control: chance alone matches most labels, so the rule without decoys (a quarter of the
    # labels found) would refuse this honest file; the decoys are matched as often
    hits, decoys = _chance_hits(tmp_path)
    assert hits >= 0.25 * len(LABELS) and abs(hits - decoys) <= 0.25 * len(LABELS), (hits, decoys)


def test_a_lookup_table_is_refused_even_hidden_among_random_weights(tmp_path):
    # weights that match about a third of the labels by chance (200 MB of real weights did), and
    # the labels beside them: the excess over the decoys gives the table away
    _weights(tmp_path, mb=4)
    hits, decoys = _chance_hits(tmp_path)
    assert 0.15 * len(LABELS) <= decoys <= 0.6 * len(LABELS), decoys
    np.save(tmp_path / "table.npy", LABELS.astype(np.float32))
    problems = scan_submission(tmp_path, [LabelArray("the test labels", LABELS)])
    assert len(problems) == 1 and "table.npy" in problems[0] and "decoys" in problems[0]


def test_a_lookup_table_alone_is_refused(tmp_path):
    (tmp_path / "table.py").write_text("TABLE = " + repr([f"{v:.4g}" for v in LABELS]) + "\n")
    problems = scan_submission(tmp_path, [LabelArray("the test labels", LABELS)])
    assert len(problems) == 1 and "table.py: holds" in problems[0]
