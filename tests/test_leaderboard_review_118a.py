"""Hundred-and-eighteenth adversarial pass (2026-12-07), side a (hidden labels public under another name, lead 1):
the keeper's draw (``variants.scanned_variants``, ``variants.graph_variants``) and the build's scan
(``exposure.public_mentions``, through ``hidden.leave_out_public``) find a drawn variant in a committed file only
by a *name* that builds it (a structure key, or a timm name of its module compared by fingerprint), while the
harness hands a predictor every hidden row's ``structure_hash`` as an input column
(``sandbox.harness.INPUT_COLUMNS``) and the build's own hash check (``hidden.build_hidden``) compares it with the
config's public build only. So a pull request merged before the draw that commits
``perfgraphs/features/graph_latency.csv`` (package data the sandbox stages beside the code: a predictor reads it at
fit time), two columns, ``structure_hash,latency_ms``, and one row holding the graph hash of the resnet that seed
118's real draw over the five families takes, named nowhere, left the draw unchanged (the same 5 architectures,
the resnet among them, counted fresh), the scan found it nowhere, and the build kept its row in the hidden file: a
predictor looks its label up by the hash it is given. Now the build also leaves out every row whose
``structure_hash`` any file the scan reads holds, in any string (``hidden.public_graph_hashes``, reading
``collect.public_files.committed_graph_hashes``: 1,331 hashes in the repository's own files, about 2 s). Not
closed: the draw does not export candidates' graphs, so a file naming all but five of a family's structures by
hash still lets the build keep only the writer's five (111b's steering, by hash rather than by name). Leads 2 (a
registered timm or torchvision model building a drawn structure: torchvision's resnets, densenets, ViTs and Swins
lie outside the families' knobs or are named members) and 3 (a knob that leaves the ONNX graph identical) were
not carried to a finding in this pass."""

from __future__ import annotations

import pyarrow as pa

from test_hidden_variants import REPO, SOURCE
from test_leaderboard_review_111b import checkout_naming


def _draw(checkout) -> list[str]:
    from perfgraphs.collect import variants

    public = (variants.public_variants(checkout / "plans", REPO / "leaderboard" / "hidden")
              | variants.scanned_variants(checkout))
    plan = variants.hidden_plan(SOURCE, 118, 1, public=public)
    return [m["name"] for g in plan["groups"] for m in g["models"]]


def test_a_staged_table_keyed_by_graph_hash_holds_a_drawn_variants_label(tmp_path, monkeypatch):
    from perfgraphs.graph import load_graph
    from perfgraphs.leaderboard.records import hidden
    from perfgraphs.leaderboard.records.exposure import public_mentions
    from perfgraphs.paths import is_staged_data

    checkout, external = checkout_naming(tmp_path, [])  # the repository's plans, an empty split, no sources
    before = _draw(checkout)
    resnet = next(n for n in before if "resnet26+layers=" in n)
    structure = load_graph(resnet, image_shape=(3, 64, 64)).structure_hash  # as the pool exports it, any size
    # the pull request: a staged table, no model named, the graph's hash and its latency
    assert is_staged_data(("features", "graph_latency.csv"))
    (checkout / "perfgraphs" / "features").mkdir(parents=True)
    (checkout / "perfgraphs" / "features" / "graph_latency.csv").write_text(f"structure_hash,latency_ms\n{structure},7.31\n")

    assert _draw(checkout) == before and len(before) == 5  # the draw counts it fresh
    assert public_mentions([resnet], checkout, external=external) == {}  # the scan names it nowhere
    table = pa.table({"name": [resnet, resnet], "structure_hash": [structure, structure], "sample_id": [0, 1]})
    assert hidden.leave_out_public(table, checkout, external).num_rows == 0  # the build leaves it out by hash

    # control: without the hash check the build keeps the variant whose label the committed table holds
    monkeypatch.setattr(hidden, "public_graph_hashes", lambda table, repo: {})
    assert hidden.leave_out_public(table, checkout, external).num_rows == 2
