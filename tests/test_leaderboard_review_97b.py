"""Ninety-seventh adversarial pass (2026-12-06), side b (hidden rounds: the keeper's own steps): the
keeper's draw (`hidden-round.sh prepare`: ``python -m perfgraphs.collect.variants``) skips every
structure a committed plan names, and nothing asked how many structures a family had left. The Swin
family's knobs span 36 structures; after the rounds so far, 4 named and 23 public or declared, 9 were
left, and the next round draws 5 of them. A pull request merged before the keeper's `prepare` that adds
one plan naming 4 of those 9 (a "sweep" of four Swin variants) left exactly 5: the next round's five
Swins were the writer's five for any secret seed (two draws here, both equal to them), so a submission
committed before the draw (``frozen_fits.code_before`` passes it) could hold those architectures'
labels, measured on a GPU of the config's kind. Now a family with fewer than ``THIN_FACTOR`` x
``per_family`` structures left is not drawn, in one line naming it (``variants.thin_families``); the
repository's own Swin family (9 left) is therefore out of the next round until its knobs are widened."""

from __future__ import annotations

import shutil

import yaml

from test_hidden_variants import REPO, SOURCE


def _swin_left(public) -> list[str]:
    """What anyone can work out from the repository: the Swin structures no plan or round has named."""
    from perfgraphs.collect.variants import FAMILIES, structure_key
    from perfgraphs.graph.zoo import variant_name

    spec = FAMILIES["swin"]
    names = {variant_name(spec.base, {"depths": (2, 2, d, 2), "embed_dim": w, "num_heads": (w // 32, w // 16, w // 8, w // 4)})
             for d in range(2, 19, 2) for w in (64, 96, 128, 192)}
    named = {variant_name(spec.base, o) for o in spec.named}
    return sorted(n for n in names - named if structure_key(n) not in public)


def _draw(keeper, capsys) -> tuple[list[str], str]:
    from perfgraphs.collect import variants

    assert variants.main(["--source", str(SOURCE), "--out", str(keeper)]) == 0
    plan = yaml.safe_load((keeper / "hidden-plan.yaml").read_text())
    swins = sorted(m["name"] for g in plan["groups"] if g["family"] == "swin" for m in g["models"])
    return swins, capsys.readouterr().err


def test_a_plan_naming_all_but_five_swins_fixes_the_next_rounds_swins(tmp_path, monkeypatch, capsys):
    from perfgraphs.collect import variants

    left = _swin_left(variants.public_variants(REPO / "plans", REPO / "leaderboard" / "hidden"))
    assert len(left) > 5  # the repository as it is: a draw among them
    mine, named = left[:5], left[5:]
    # the pull request: one plan of the collector's own shape naming the other structures still left
    plans = tmp_path / "checkout" / "plans"
    shutil.copytree(REPO / "plans", plans)
    (plans / "swin-sweep.yaml").write_text(yaml.safe_dump({
        "suite": "swin-sweep", "description": "a sweep of Swin third-stage depths", "mode": "inference",
        "protocol": "dippm", "platforms": ["cuda-torch-fp32"],
        "groups": [{"family": "swin", "models": [{"name": n, "input_sizes": [224], "batch_sizes": [1]} for n in named]}]}))
    monkeypatch.setattr(variants, "plans_dir", lambda: plans)

    # the keeper's `prepare`, with the check: the Swin family is not drawn, in one line
    swins, err = _draw(tmp_path / "keeper" / "round", capsys)
    assert swins == [] and "swin not drawn: 5 structures left" in err

    # control: without it, every secret seed draws the writer's five
    monkeypatch.setattr(variants, "thin_families", lambda *a, **k: {})
    for n in (1, 2):
        swins, _ = _draw(tmp_path / "keeper" / f"round-{n}", capsys)
        assert swins == mine
