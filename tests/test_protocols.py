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


def test_training_cap_keeps_each_family_share_whatever_the_stored_order():
    import datasets

    from perfgraphs.evaluation.protocol import stratified_subset
    from perfgraphs.errors import PerfgraphsError

    families = ["resnet"] * 600 + ["vit"] * 300 + ["vgg"] * 98 + ["swin"] * 2
    rows = {"sample_id": [f"s{i:04d}" for i in range(len(families))], "family": families}
    part = datasets.Dataset.from_dict(rows)
    sub = stratified_subset(part, 100)
    counts = {f: sub["family"].count(f) for f in set(families)}
    # shares of 100 by family size, every family kept (swin's 0.2 rounds up to its one row)
    assert counts == {"resnet": 60, "vit": 30, "vgg": 10, "swin": 1}
    assert len(set(sub["sample_id"])) == len(sub)
    # the stored order does not change which rows are kept
    shuffled = part.shuffle(seed=3)
    assert sorted(stratified_subset(shuffled, 100)["sample_id"]) == sorted(sub["sample_id"])
    # evenly spread over each family's ids, not its first rows
    resnet = sorted(i for i in sub["sample_id"] if int(i[1:]) < 600)
    assert resnet[0] == "s0000" and resnet[-1] == "s0599"
    assert stratified_subset(part, 5000) is part  # a smaller part is returned as is
    with pytest.raises(PerfgraphsError, match="at least 1"):
        stratified_subset(part, 0)
