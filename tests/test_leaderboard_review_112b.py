"""Hundred-and-twelfth adversarial pass (2026-12-07), side b (the draw, what 111b left, lead 1): the keeper's draw
(``python -m perfgraphs.collect.variants``) counted as public, and ``variants.thin_families`` counted out, the
structure variants the repository's committed files name by :func:`perfgraphs.collect.variants.structure_key`
only (a base and its overrides as written), while the build (``hidden.leave_out_public``) also leaves out every
drawn variant one of those files names under another spelling of its graph (``exposure.same_graph``: another base
that builds it, a default written out). So 111b's pull request with each name respelled, one split file naming the
146 of the 151 visformer structures still left as ``visformer_tiny+depth=AxBxC+mlp_ratio=4.0`` (visformer_tiny's
own default written out: the same graph, another key), drew the family as 151 left, and the build then left out
every drawn visformer but those among the writer's other 5: the round kept only visformers the writer chose (or
none), for any secret seed, said nowhere but in ``left_out``. Now the draw builds the spellings of a family's module
not written as the draw writes them and compares candidates by fingerprint (``variants.graph_variants``): the family
has 5 left and is not drawn. The repository's own draw is unchanged (its files spell every variant as the draw
does). Leads 2 (a round's size where the board is read) and 3 (a plain named timm model a future draw may pick)
were not reached in this pass."""

from __future__ import annotations

import pyarrow as pa

from test_hidden_variants import REPO
from test_leaderboard_review_111b import _drawn_visformers, _visformers_left, checkout_naming


def test_a_split_naming_visformers_with_a_default_written_out_decides_which_the_round_keeps(
        tmp_path, monkeypatch, capsys):
    from perfgraphs.collect import variants
    from perfgraphs.graph.fingerprint import architecture_structure
    from perfgraphs.leaderboard.records.hidden import leave_out_public

    left = _visformers_left(variants.public_variants(REPO / "plans", REPO / "leaderboard" / "hidden"))
    assert len(left) >= 140  # 151, 146 since the round of 2026-12-07 declared five more
    mine, named = left[:5], left[5:]
    spelt = [f"{n}+mlp_ratio=4.0" for n in named]  # visformer_tiny's default written out
    assert variants.structure_key(spelt[0]) != variants.structure_key(named[0])  # another key ...
    assert architecture_structure(spelt[0]) == architecture_structure(named[0])  # ... one graph
    checkout, external = checkout_naming(tmp_path, spelt)
    monkeypatch.setattr(variants, "plans_dir", lambda: checkout / "plans")

    # the keeper's draw, with the check: the split's visformers are public by their graph, the family is not drawn
    drawn, err = _drawn_visformers(tmp_path / "keeper" / "round", capsys)
    assert drawn == [] and "visformer not drawn: 5 structures left" in err

    # control: comparing spellings only, the family is drawn among 151, and the build keeps only the writer's
    monkeypatch.setattr(variants, "graph_variants", lambda spellings, families=None: frozenset())
    drawn, err = _drawn_visformers(tmp_path / "keeper" / "round-2", capsys)
    assert len(drawn) == 5 and "visformer" not in err
    hidden = pa.table({"name": drawn, "sample_id": list(range(5))})
    kept = leave_out_public(hidden, checkout, external).column("name").to_pylist()
    assert len(kept) < 5 and set(kept) <= set(mine) and set(drawn) - set(kept) <= set(named)
