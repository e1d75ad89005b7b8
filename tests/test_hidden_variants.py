"""Structure variants (zoo overrides) and the secret-seeded draw of a hidden set's architectures
(issue 32, item 1): checked against named timm architectures they must rebuild exactly, and
against the public files they must not appear in."""

from __future__ import annotations

import os
import random
from pathlib import Path

import pytest
import yaml

from perfgraphs.collect.errors import PlanError
from perfgraphs.collect.variants import FAMILIES, draw_variants, hidden_plan, main, public_variants, structure_key
from perfgraphs.errors import UnknownModelError
from perfgraphs.graph import load_graph
from perfgraphs.graph.zoo import parse_model_name, variant_name

REPO = Path(__file__).resolve().parents[1]
SOURCE = REPO / "plans" / "dippm-cuda.yaml"
# the exposure scan reads the importers' public sources and refuses to run without them
needs_external = pytest.mark.skipif(not os.environ.get("PERFGRAPHS_EXTERNAL_DIR"),
                                    reason="the public sources (PERFGRAPHS_EXTERNAL_DIR) are not here")


def test_override_names_parse_to_one_spelling():
    parsed = parse_model_name("timm:vit_small_patch16_224+depth=7+embed_dim=320+mlp_ratio=3.0+num_heads=5")
    assert parsed.arch == "vit_small_patch16_224"
    assert parsed.overrides == (("depth", 7), ("embed_dim", 320), ("mlp_ratio", 3.0), ("num_heads", 5))
    assert parse_model_name("timm:resnet26+layers=1x3x4x2").overrides == (("layers", (1, 3, 4, 2)),)
    assert parse_model_name("timm:resnet50.a1_in1k").overrides == ()  # a pretrained tag still drops
    assert variant_name("resnet26", {"layers": (1, 3, 4, 2)}) == "timm:resnet26+layers=1x3x4x2"


@pytest.mark.parametrize("name, says", [
    ("timm:resnet26+layers=2x2x2x2+cardinality=1", "sorted order: 'timm:resnet26+cardinality=1+layers=2x2x2x2'"),
    ("timm:resnet26+layers=2x2x2x2+layers=1x1x1x1", "once"),
    ("timm:resnet26+layers=two", "+<argument>=<value>"),
    ("timm:resnet26+Layers=1", "+<argument>=<value>"),
    ("timm:resnet26+layers", "+<argument>=<value>"),
    ("timm:+layers=1x1x1x1", "names no timm architecture"),
])
def test_malformed_overrides_are_refused_in_one_line(name, says):
    with pytest.raises(UnknownModelError, match=None) as info:
        parse_model_name(name)
    assert says in str(info.value) and "\n" not in str(info.value)


@pytest.mark.parametrize("name", ["timm:resnet26+no_such_argument=3",
                                  "timm:poolformer_s12+depths=1x3x3x4"])  # its builder fixes depths: KeyError
def test_an_override_the_architecture_does_not_take_is_one_line(name):
    with pytest.raises(UnknownModelError) as info:
        load_graph(name, image_shape=(3, 64, 64))
    arch, given = name.removeprefix("timm:").split("+")
    assert f"{arch} cannot be built with {given}" in str(info.value) and "\n" not in str(info.value)


@pytest.mark.parametrize("variant, named", [
    ("timm:resnet26+layers=3x4x6x3", "timm:resnet50"),  # both Bottleneck ResNets with the same stem
    ("timm:vit_small_patch16_224+depth=12+embed_dim=192+mlp_ratio=4.0+num_heads=3", "timm:vit_tiny_patch16_224"),
])
def test_a_variant_rebuilds_the_named_architecture_it_spells(variant, named):
    # ground truth independent of the override code: timm's own named model of that structure
    a = load_graph(variant, image_shape=(3, 224, 224)).static_features()
    b = load_graph(named, image_shape=(3, 224, 224)).static_features()
    assert (a["total_params"], a["total_macs"], a["num_nodes"]) == (b["total_params"], b["total_macs"], b["num_nodes"])
    base = load_graph(variant.split("+")[0], image_shape=(3, 224, 224)).static_features()
    assert base["total_params"] != a["total_params"]  # control: the overrides did change the model


def test_the_draw_is_the_seeds_and_never_a_named_layout():
    one, again, other = (draw_variants(random.Random(s), 4) for s in (7, 7, 8))
    assert one == again and one != other
    assert set(one) == set(FAMILIES)
    for family, names in one.items():
        assert len(set(names)) == 4
        for name in names:
            parsed = parse_model_name(name)
            assert variant_name(parsed.arch, dict(parsed.overrides)) == name  # the one spelling
            assert dict(parsed.overrides) not in FAMILIES[family].named


def test_named_layouts_are_never_drawn_even_when_they_are_all_the_draw_gives():
    from perfgraphs.collect.errors import PlanError
    from perfgraphs.collect.variants import Family

    stuck = {"resnet": Family("resnet26", lambda rng: {"layers": (2, 2, 2, 2)}, named=({"layers": (2, 2, 2, 2)},))}
    with pytest.raises(PlanError, match="only 0 distinct variants"):
        draw_variants(random.Random(0), 1, stuck, max_tries=20)


@needs_external
def test_every_drawn_family_builds_and_no_public_file_names_a_variant():
    from perfgraphs.leaderboard.records.exposure import public_mentions

    drawn = draw_variants(random.Random(2026), 1)
    for family, (name,) in drawn.items():
        size = 224 if family in ("swin", "vit") else 96
        g = load_graph(name, image_shape=(3, size, size))
        assert g.static_features()["total_params"] > 0, name
    names = [n for names in drawn.values() for n in names]
    assert public_mentions(names, REPO) == {}
    # control: the scan does find a public architecture by its name
    assert public_mentions(["timm:resnet50"], REPO)


def test_the_hidden_plan_follows_the_public_plan_and_is_written_once(tmp_path, capsys):
    from perfgraphs.collect.plan import load_plan

    plan = hidden_plan(SOURCE, seed=11, per_family=4)
    public = load_plan(SOURCE)
    assert plan["protocol"] == "dippm" and plan["platforms"] == ["cuda-torch-fp32"]
    # measured in shuffled passes, each label a median of visits (issue 32 item 1)
    assert plan["rounds"] == 3 and plan["schedule"] == "visits"
    for group in plan["groups"]:
        sizes = {c.image_size for c in public.configs if c.family == group["family"]}
        batches = {c.batch_size for c in public.configs if c.family == group["family"]}
        for m in group["models"]:
            assert set(m["input_sizes"]) <= sizes and set(m["batch_sizes"]) <= batches
    out = tmp_path / "round"
    assert main(["--source", str(SOURCE), "--out", str(out)]) == 0
    written = load_plan(out / "hidden-plan.yaml")
    assert len(written.configs) >= 100  # the minimum for a hidden set
    seed = int((out / "seed.txt").read_text())
    # the committed plans' variants and earlier rounds' declared architectures are never drawn
    public = public_variants(REPO / "plans", REPO / "leaderboard" / "hidden")
    assert yaml.safe_load((out / "hidden-plan.yaml").read_text()) == hidden_plan(SOURCE, seed, 5, public=public)
    assert "architectures" in capsys.readouterr().out
    assert main(["--source", str(SOURCE), "--out", str(out)]) == 1  # one draw per round
    assert "already holds a drawn set" in capsys.readouterr().err


def test_a_draw_never_takes_a_variant_a_committed_plan_names():
    """predict's second held-out set is a public plan of variants (its store will hold their labels):
    a hidden round drawn with the same seed gets other architectures. Control: without the public
    set the same seed draws exactly the plan's."""
    plan = yaml.safe_load((REPO / "plans" / "predict-heldout-2.yaml").read_text())
    named = {m["name"] for g in plan["groups"] for m in g["models"]}
    public = public_variants(REPO / "plans")
    assert {structure_key(n) for n in named} <= public
    seed, per_family = 20261129, 4  # the plan's published draw
    same = {n for names in draw_variants(random.Random(seed), per_family).values() for n in names}
    # the Swin knobs were widened after the plan was drawn, and the families draw from one stream in
    # FAMILIES order: the families before Swin still draw exactly the plan's
    before = ("resnet26", "vit_small")
    assert {n for n in same if n.split(":")[1].startswith(before)} == \
        {n for n in named if n.split(":")[1].startswith(before)} != set()
    hidden = {n for names in draw_variants(random.Random(seed), per_family, public=public).values() for n in names}
    assert len(hidden) == 20 and not {structure_key(n) for n in hidden} & public


TINY_PLAN = """suite: {suite}
description: a plan of another shape
mode: inference
protocol: tiny
platforms: [cpu-torch-fp32]
timeout_s: 120
models: {model}
groups:
  - family: vit
    input_sizes: [224]
    batch_sizes: [1]
"""


@needs_external
def test_a_public_variant_is_found_under_any_spelling_shape_or_place(tmp_path):
    """The same structure written another way (an integer for a float, a pretrained tag), as a plan-wide
    scalar ``models:``, in a ``.yml`` file in a subfolder, or only in a held-out suite's store: the
    draw's public set and the exposure scan both find it. Control: another structure is not found."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    from perfgraphs.leaderboard.records.exposure import public_mentions

    drawn = "timm:vit_small_patch16_224+depth=4+embed_dim=384+mlp_ratio=2.0+num_heads=6"
    spelled = "timm:vit_small_patch16_224.augreg_in21k+depth=4+embed_dim=384+mlp_ratio=2+num_heads=6"
    other = "timm:vit_small_patch16_224+depth=5+embed_dim=384+mlp_ratio=2.0+num_heads=6"
    repo = tmp_path / "repo"
    (repo / "plans" / "sub").mkdir(parents=True)
    (repo / "plans" / "sub" / "extra.yml").write_text(TINY_PLAN.format(suite="extra", model=spelled))
    assert structure_key(drawn) in public_variants(repo / "plans") and structure_key(other) not in public_variants(
        repo / "plans")
    for folder in ("data/splits", "perfgraphs/predict/artifacts"):
        (repo / folder).mkdir(parents=True)
    store = repo / "data" / "measurements" / "predict-heldout-2-somewhere"
    store.mkdir(parents=True)
    found = public_mentions([drawn, other], repo)
    assert found == {drawn: ["plans/sub/extra.yml"]}
    (repo / "plans" / "sub" / "extra.yml").unlink()
    pq.write_table(pa.table({"model": [spelled]}), store / "part-0.parquet")  # only the held-out store names it
    assert public_mentions([drawn, other], repo) == {drawn: ["data/measurements/predict-heldout-2-somewhere"]}
    with pytest.raises(PlanError):  # a plan the collector cannot read is refused, never skipped
        (repo / "plans" / "bad.yaml").write_text("- a\n- b\n")
        public_variants(repo / "plans")


@pytest.mark.parametrize("column", ["binary", "list"])
def test_a_store_whose_model_column_is_not_text_is_read_not_a_crash(tmp_path, monkeypatch, column):
    """A store's ``model`` column written as bytes or as lists of names holds names all the same: the scan
    reads them (``public_files._cell_strings``) where it raised ``TypeError`` mid-build (the hundred-and-eighth
    pass's lead 4). Control: cells taken as they come, the build stops on a traceback."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    from perfgraphs.collect import public_files
    from perfgraphs.leaderboard.records import exposure

    drawn = "timm:resnet50+layers=2x3x3x2"
    repo, external = _empty_repo(tmp_path / "repo"), tmp_path / "external"
    external.mkdir()
    store = repo / "data" / "measurements" / "extra"
    store.mkdir()
    cells = pa.array([drawn.encode()], pa.binary()) if column == "binary" else pa.array([["timm:vgg11", drawn]])
    pq.write_table(pa.table({"model": cells}), store / "part-0.parquet")
    assert exposure.public_mentions([drawn], repo, external=external) == {drawn: ["data/measurements/extra"]}
    monkeypatch.setattr(public_files, "_cell_strings", lambda cell: [cell])  # the stores' reader (111b moved it)
    with pytest.raises(TypeError):
        exposure.public_mentions([drawn], repo, external=external)


def _empty_repo(root: Path) -> Path:
    for folder in ("plans", "data/measurements", "data/splits", "perfgraphs/predict/artifacts"):
        (root / folder).mkdir(parents=True)
    return root


EXPOSED = "timm:resnet50+layers=2x2x2x2"  # timm's resnet26, whose latency timm publishes
UNEXPOSED = "timm:resnet50+layers=2x3x3x2"


@needs_external
def test_a_variant_that_builds_a_named_architecture_is_found_in_the_importers_sources(tmp_path):
    """No committed file names ``resnet50+layers=2x2x2x2``, but it builds timm's ``resnet26``
    (ground truth: the graphs, below), which timm's published results measure: the exposure scan
    finds it there. Controls: another layout is found nowhere, and with resnet26's rows taken out of
    the source the variant is not found either (the source, not the spelling, exposes it)."""
    import os
    import re

    from perfgraphs.leaderboard.records.exposure import public_mentions
    from perfgraphs.loaders.timm_benchmark import TIMM_SUBDIR

    a = load_graph(EXPOSED, image_shape=(3, 96, 96)).static_features()
    b = load_graph("timm:resnet26", image_shape=(3, 96, 96)).static_features()
    assert (a["total_params"], a["total_macs"], a["num_nodes"]) == (b["total_params"], b["total_macs"], b["num_nodes"])
    repo = _empty_repo(tmp_path / "repo")
    external = Path(os.environ["PERFGRAPHS_EXTERNAL_DIR"])
    assert public_mentions([EXPOSED, UNEXPOSED], repo, external=external) == {EXPOSED: [f"external:{TIMM_SUBDIR}"]}
    trimmed = tmp_path / "external" / TIMM_SUBDIR
    trimmed.mkdir(parents=True)
    for csv_file in (external / TIMM_SUBDIR).glob("benchmark-infer-*.csv"):
        lines = csv_file.read_text().splitlines(keepends=True)
        # under another name: a pinned file's name with other bytes is refused, never read
        renamed = re.sub(r"(-dynamo)?\.csv$", r"copy\1.csv", csv_file.name)
        (trimmed / renamed).write_text("".join(l for l in lines if not l.startswith(("resnet26,", "resnet26."))))
    # the trimmed copies are read: the scan still finds resnet50 there by its name
    assert public_mentions([EXPOSED, UNEXPOSED, "timm:resnet50"], repo, external=tmp_path / "external") == {
        "timm:resnet50": [f"external:{TIMM_SUBDIR}"]}


@needs_external
def test_an_importer_source_names_a_hub_model_with_its_organisation(tmp_path):
    """ML.ENERGY's ids carry an organisation (``meta-llama/Llama-3.1-8B-Instruct``): the scan finds the
    hidden name whole. Control: a model the source does not list is not found."""
    import json
    import os

    from perfgraphs.leaderboard.records.exposure import public_mentions
    from perfgraphs.loaders.mlenergy import MLENERGY_SUBDIR

    external = Path(os.environ["PERFGRAPHS_EXTERNAL_DIR"])
    first = sorted((external / MLENERGY_SUBDIR / "models").glob("*__*__*.json"))[0]
    model = json.loads(first.read_text())["model_id"]  # the file's own id, e.g. "Qwen/Qwen3-14B"
    assert model.count("/") == 1
    found = public_mentions([f"hf:{model}", "hf:nobody/no-such-model"], _empty_repo(tmp_path / "repo"), external=external)
    assert found == {f"hf:{model}": [f"external:{MLENERGY_SUBDIR}"]}


def test_the_scan_refuses_to_skip_sources_it_cannot_find(tmp_path, monkeypatch):
    from perfgraphs.errors import SourceNotFoundError
    from perfgraphs.leaderboard.records.exposure import public_mentions

    with pytest.raises(SourceNotFoundError, match="PERFGRAPHS_EXTERNAL_DIR") as info:
        public_mentions([UNEXPOSED], _empty_repo(tmp_path / "repo"), external=tmp_path / "nowhere")
    assert "\n" not in str(info.value)


@needs_external
def test_a_hidden_file_leaves_out_what_public_data_names(tmp_path, capsys):
    """The keeper's build drops the rows of an architecture the scan finds, says which and where, and
    keeps the rest. Control: a table of unexposed architectures is returned whole."""
    import os

    import pyarrow as pa

    from perfgraphs.leaderboard.records.hidden import leave_out_public

    repo, external = _empty_repo(tmp_path / "repo"), Path(os.environ["PERFGRAPHS_EXTERNAL_DIR"])
    table = pa.table({"name": [EXPOSED, UNEXPOSED, EXPOSED, UNEXPOSED], "sample_id": [0, 1, 2, 3]})
    kept = leave_out_public(table, repo, external)
    assert kept.column("name").to_pylist() == [UNEXPOSED, UNEXPOSED] and kept.column("sample_id").to_pylist() == [1, 3]
    out = capsys.readouterr().out
    assert "left out 2 row(s) of 1 architecture(s)" in out and "external:timm-benchmark" in out
    clean = table.filter(pa.array([n == UNEXPOSED for n in table.column("name").to_pylist()]))
    assert leave_out_public(clean, repo, external).equals(clean)
