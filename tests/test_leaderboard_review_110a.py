"""Hundred-and-tenth adversarial pass (2026-12-07), side a (which record a board keeps). A board places a
record on its test configurations by the labels of its first seed's (label, prediction) pairs: a record
whose labels are not the board's (another target, another order) is listed unranked, "not on the board's
test configurations". But a record with per-configuration ratios and *no* pairs was placed by its size
alone (``labels is None or lab is None``), and the readers accept such a record (``_pairs_problem`` checks
pairs only where there are some; the τ check of the hundred-and-ninth pass has no labels to check by).
Every writer of a record with ratios writes its pairs (`submit`; the committed files hold no record with
ratios and no pairs), so such a line is hand-written, and its ratios are tied to no label and no order.
Eve's copy of `serving-prior-boost`'s record on the official ML.ENERGY energy-per-token board (619
configurations, 21.78 % MAPE), restated as a ``median_itl_ms`` record, was set aside on the official
inter-token latency board with its pairs (the energy labels); with its pairs left out, every read-time
check passed it and `leaderboard show` ranked `eve-net` 1 there beside `llm-xgboost` (24.01 %) and
`static-mlp` (23.78 %), and moved `static-xgboost` and `serving-prior-boost` from 3 to 4 and
`serving-prior` from 5 to 6. Now a board with labels places a record without its own on none of its
configurations (``ranks.labels_place_it``), and the runner's records (quickstart's, `benchmark`'s
placement) carry their first seed's pairs as `submit`'s do. The control puts back the placement by size."""

from __future__ import annotations

import json

import numpy as np

import perfgraphs.leaderboard.records.ranks as ranks_module
import test_leaderboard_review_104c as review_104c
from perfgraphs.leaderboard.records.results import _parse_record

ITL = ("mlenergy", "median_itl_ms")


def _placed_by_size(own, labels) -> bool:
    """The placement before this pass: a record without labels is on any board of its size."""
    return labels is None or own is None or (
        own.shape == labels.shape and bool(np.allclose(own, labels, rtol=ranks_module.LABELS_RTOL)))


def test_a_record_without_pairs_is_not_placed_on_a_boards_configurations(tmp_path, capsys, monkeypatch):
    energy = review_104c._board_records()
    monkeypatch.setattr(review_104c, "BOARD", ITL)  # 104c's readers of its board, on the inter-token latency one
    references = review_104c._board_records()
    copied = next(r for r in energy if r["method"] == "serving-prior-boost")
    with_pairs = {**copied, "method": "eve-net", "authors": "Eve Rival", "run_identity": "eve-net", "target": ITL[1]}
    eve = {**with_pairs, "actual_vs_predicted": []}
    for record in (with_pairs, eve):
        assert _parse_record(json.dumps(record))[1] is None  # every field check passes both

    def ranks(name: str, record: dict) -> dict[str, str]:
        return review_104c._ranks(tmp_path / name, [*references, record], capsys, monkeypatch)

    fair = {"llm-xgboost": "1", "static-mlp": "1", "static-xgboost": "3", "serving-prior-boost": "3",
            "serving-prior": "5", "eve-net": "–"}
    assert ranks("pairs", with_pairs) == fair  # the energy labels: other labels, set aside
    assert ranks("no-pairs", eve) == fair  # no labels: on none of the board's configurations
    with monkeypatch.context() as m:  # control: placed by its size, it is ranked 1 and moves three references down
        m.setattr(ranks_module, "labels_place_it", _placed_by_size)
        moved = ranks("control", eve)
    assert moved == {"eve-net": "1", "llm-xgboost": "1", "static-mlp": "1", "static-xgboost": "4",
                     "serving-prior-boost": "4", "serving-prior": "6"}, moved
