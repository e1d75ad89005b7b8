"""The record check's one-pass test of a list of numbers (``record_check._all_finite``, used on every
seed's per-configuration ratios) says what the element-by-element test says, on the values a
hand-written line can hold: bools (ints to Python), NaN, infinities, ints past a float's range,
magnitudes either side of the limit, text and null."""

from __future__ import annotations

import pytest

from perfgraphs.leaderboard.records.record_check import MAX_MAGNITUDE, _all_finite, _finite

CASES = [[1.0, 2], [0.98, 1.02, 1.5], [True], [1.0, False], [1.0, float("nan")], [float("inf")], [-float("inf"), 1.0],
         [10**400], [-(10**400), 1.0], [MAX_MAGNITUDE], [-MAX_MAGNITUDE], [MAX_MAGNITUDE * 10], [int(MAX_MAGNITUDE) + 1],
         [1.5, 2**64], [1, "1"], [None], [[1.0]], [{"a": 1.0}], []]


@pytest.mark.parametrize("values", CASES, ids=[repr(c)[:24] for c in CASES])
def test_the_one_pass_test_is_the_element_by_element_test(values):
    assert _all_finite(values) == all(_finite(v) for v in values)


def test_a_ratio_list_with_one_bad_value_is_refused():
    from perfgraphs.leaderboard.records.record_check import _per_config_problem

    good = {"mape_pct": 2.0, "n": 2, "pred_over_label": [0.98, 1.02]}
    assert _per_config_problem(good) is None  # control
    for bad in (True, float("nan"), 10**400, "1.0", None):
        assert "finite numbers" in _per_config_problem({**good, "pred_over_label": [0.98, bad]})
