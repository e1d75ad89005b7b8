"""Hundred-and-eleventh adversarial pass (2026-12-07), side b (the exposure scan and the draw: what 108a left, lead 3):
the keeper's draw (``python -m perfgraphs.collect.variants``) skipped, and ``variants.thin_families`` counted as
public, only the structures a committed plan or an earlier round's definition names, while the build
(``hidden.leave_out_public``) leaves out every drawn variant the exposure scan finds in any committed file: a store,
a measurement document, staged package data, a split file, a predict artifact. So a pull request merged before the
draw that adds one split file (``data/splits/visformer-sweep/sweep.json``) naming 146 of the 151 visformer
structures still left drew the family as 151 left, and the build then left out every drawn visformer but those
among the writer's other 5: the round kept only visformers the writer chose (and could hold the labels of,
measured before the draw), or none, for any secret seed, and it was said nowhere but in ``left_out``. Now the draw
counts those files' structure variants as public too (``variants.scanned_variants``, read by
``collect.public_files.variant_spellings``, the scan's own readers moved below the leaderboard): the family has 5 left and is not drawn, in one line naming it (97b's cue to widen
its knobs). The repository's own draw is unchanged (its files name no variant its plans and definitions do not).
Leads 1 and 2 of 108a (a plain named timm model building a drawn variant, aliases of a named hidden architecture):
no registered timm model of the current round's five modules builds any of its 25 variants (all 261 built and
compared by fingerprint), and no live set has named architectures; not this finding."""

from __future__ import annotations

import json
import shutil

import pyarrow as pa
import yaml

from test_hidden_variants import REPO, SOURCE, _empty_repo


def _visformers_left(public) -> list[str]:
    """What anyone can work out from the repository: the visformer structures no plan or round has named."""
    from perfgraphs.collect.variants import FAMILIES, structure_key
    from perfgraphs.graph.zoo import variant_name

    spec = FAMILIES["visformer"]
    names = {variant_name(spec.base, {"depth": (a, b, c)}) for a in range(3, 10) for b in range(2, 7) for c in range(2, 7)}
    named = {variant_name(spec.base, o) for o in spec.named}
    return sorted(n for n in names - named if structure_key(n) not in public)


def checkout_naming(tmp_path, names: list[str]):
    """(a checkout holding the repository's plans and one split file, ``data/splits/visformer-sweep/sweep.json``,
    naming ``names`` at 224 px: the pull request; an empty folder for the importers' public sources)."""
    checkout, external = _empty_repo(tmp_path / "checkout"), tmp_path / "external"
    external.mkdir()
    shutil.copytree(REPO / "plans", checkout / "plans", dirs_exist_ok=True)
    (checkout / "data" / "splits" / "visformer-sweep").mkdir()
    (checkout / "data" / "splits" / "visformer-sweep" / "sweep.json").write_text(
        json.dumps({"parts": {"test": [f"{n}@224" for n in names]}}))
    return checkout, external


def _drawn_visformers(keeper, capsys) -> tuple[list[str], str]:
    from perfgraphs.collect import variants

    assert variants.main(["--source", str(SOURCE), "--out", str(keeper)]) == 0
    plan = yaml.safe_load((keeper / "hidden-plan.yaml").read_text())
    drawn = sorted(m["name"] for g in plan["groups"] if g["family"] == "visformer" for m in g["models"])
    return drawn, capsys.readouterr().err


def test_a_split_naming_all_but_five_visformers_decides_which_the_round_keeps(tmp_path, monkeypatch, capsys):
    from perfgraphs.collect import variants
    from perfgraphs.leaderboard.records.hidden import leave_out_public

    left = _visformers_left(variants.public_variants(REPO / "plans", REPO / "leaderboard" / "hidden"))
    assert len(left) >= 140  # the repository as it is: a draw among them (151, 146 since the round of 2026-12-07)
    mine, named = left[:5], left[5:]
    # the pull request: one split file, no plan, naming every other visformer structure still left
    checkout, external = checkout_naming(tmp_path, named)
    monkeypatch.setattr(variants, "plans_dir", lambda: checkout / "plans")

    # the keeper's `prepare`, with the check: the split's visformers are public, the family is not drawn
    drawn, err = _drawn_visformers(tmp_path / "keeper" / "round", capsys)
    assert drawn == [] and "visformer not drawn: 5 structures left" in err

    # control: without it the family is drawn among 151, and the build keeps only the writer's (or none)
    monkeypatch.setattr(variants, "scanned_variants", lambda repo: frozenset())
    drawn, err = _drawn_visformers(tmp_path / "keeper" / "round-2", capsys)
    assert len(drawn) == 5 and "visformer" not in err
    hidden = pa.table({"name": drawn, "sample_id": list(range(5))})
    kept = leave_out_public(hidden, checkout, external).column("name").to_pylist()
    assert len(kept) < 5 and set(kept) <= set(mine) and set(drawn) - set(kept) <= set(named)
