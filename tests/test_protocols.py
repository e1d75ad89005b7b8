"""Split protocols beyond the standard split: leave-one-family-out ("unseen structure")."""

from __future__ import annotations

import pytest

from perfgraphs.data.splits import UnknownSplitError, held_out_family, make_split


def _groups():
    # structure hash -> family: sizes a=5, b=3, c=3, d=1 (b and c tie: broken by name)
    fam = ["a"] * 5 + ["b"] * 3 + ["c"] * 3 + ["d"]
    return {f"h{i:02d}": f for i, f in enumerate(fam)}


def test_each_fold_holds_out_one_whole_family_by_size_rank():
    groups = _groups()
    assert [held_out_family(groups, k) for k in range(4)] == ["a", "b", "c", "d"]
    for fold, family in enumerate("abcd"):
        parts = make_split(groups, "leave-one-family-out", fold)
        assert sorted(parts["test"]) == sorted(h for h, f in groups.items() if f == family)
        seen = [h for p in parts.values() for h in p]
        assert sorted(seen) == sorted(groups)  # every structure once, no overlap
        assert not {groups[h] for h in parts["train"] + parts["validation"]} & {family}
        assert len(parts["validation"]) == round(0.15 * (len(groups) - len(parts["test"])))
    with pytest.raises(UnknownSplitError, match="fold 4 needs 5 families"):
        held_out_family(groups, 4)


def test_fold_assignment_is_deterministic_and_order_free():
    groups = _groups()
    shuffled = dict(reversed(list(groups.items())))
    assert make_split(groups, "leave-one-family-out", 1) == make_split(shuffled, "leave-one-family-out", 1)
