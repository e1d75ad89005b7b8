"""Hundred-and-twenty-first adversarial pass (2026-12-07), side a (hidden labels public by features): 118a made the
build leave out a drawn row whose ``structure_hash`` a committed file holds, and 111b/112b made the draw count
variants committed files *name*; nothing compared a drawn row's *features* with committed numbers, while the harness
hands a predictor every hidden row's static columns (``sandbox.harness.INPUT_COLUMNS``: ``total_flops``,
``total_macs``, ``total_params``, ``total_memory_bytes``, counts and sizes) and, within a family, one count is a key to
the structure. Carriers that reach a predictor (every one read in the sandbox or frozen with a predictor's folder):
the staged package data (``perfgraphs/features/*.csv``), the predict artifacts' ``*.rows.npz`` (``features``: the
TRAPPM vector, batch, nodes, edges and the counts' logarithms; ``labels``; ``names`` free text), a split's JSON, a
store's Parquet. A pull request merged before the draw that commits ``perfgraphs/features/graph_costs.csv``, two
columns, ``total_flops,latency_ms``, one row holding the ``total_flops`` of the resnet seed 118's real draw over the
five families takes (no name, no hash), left the draw unchanged (the same 5 architectures, counted fresh), the name
scan and 118a's hash scan found nothing, and the build kept both its rows: a predictor looks the label up by the
``total_flops`` it is handed. The same holds for an artifact ``*.rows.npz`` holding the row's TRAPPM vector under the
name ``row0``. Now the build also leaves out a row one of whose cost counts a committed file holds exactly (an integer
of 7 digits or more: the repository's own files hold 5 such, none a graph's count) or whose whole featurizer vector a
committed ``.npz`` row holds (4,241 vectors in the artifacts), in its one line (``hidden.public_feature_rows``,
reading ``public_files.committed_cost_numbers``, about 3 s). Not closed: any other function of the inputs (a count
rounded, scaled, or its logarithm written as text; a hash of ``node_feat``) keys a lookup no exact-value check finds;
only review of what a data file holds, or a round measured after the merge window, ends that family."""

from __future__ import annotations

import numpy as np
import pyarrow as pa

from test_leaderboard_review_111b import checkout_naming
from test_leaderboard_review_118a import _draw


def test_a_staged_table_keyed_by_a_drawn_rows_flops_holds_its_label(tmp_path, monkeypatch):
    from perfgraphs.data.build import STATIC_COLUMNS
    from perfgraphs.graph import load_graph
    from perfgraphs.leaderboard.records import hidden
    from perfgraphs.leaderboard.records.exposure import public_mentions
    from perfgraphs.paths import is_staged_data
    from perfgraphs.predict.features import graph_features

    checkout, external = checkout_naming(tmp_path, [])  # the repository's plans, an empty split, no sources
    before = _draw(checkout)
    resnet = next(n for n in before if "resnet26+layers=" in n)
    graph = load_graph(resnet, image_shape=(3, 64, 64))
    facts = graph.static_features()
    table = pa.table({"name": [resnet, resnet], "structure_hash": [graph.structure_hash] * 2, "sample_id": [0, 1],
                      **{c: [facts[c]] * 2 for c in STATIC_COLUMNS}})
    # the pull request: a staged table, no model named, no hash: the graph's flops and its latency
    assert is_staged_data(("features", "graph_costs.csv"))
    (checkout / "perfgraphs" / "features").mkdir(parents=True)
    (checkout / "perfgraphs" / "features" / "graph_costs.csv").write_text(f"total_flops,latency_ms\n{facts['total_flops']},7.31\n")

    assert _draw(checkout) == before and len(before) == 5  # the draw counts it fresh
    assert public_mentions([resnet], checkout, external=external) == {}  # the name scan finds it nowhere
    assert hidden.public_graph_hashes(table, checkout) == {}  # nor 118a's hash scan
    assert hidden.leave_out_public(table, checkout, external).num_rows == 0  # the build leaves it out by its flops

    # a predict artifact holding its TRAPPM vector under a free name is found too
    (checkout / "perfgraphs" / "features" / "graph_costs.csv").unlink()
    (checkout / "perfgraphs" / "predict" / "artifacts").mkdir(parents=True, exist_ok=True)
    np.savez(checkout / "perfgraphs" / "predict" / "artifacts" / "x--y--latency_ms.rows.npz", names=np.array(["row0"]),
             features=graph_features(graph).astype(np.float64), labels=np.array([7.31]), in_training=np.array([True]))
    assert hidden.leave_out_public(table, checkout, external).num_rows == 0

    # control: without the feature check the build keeps the variant whose label the committed file holds
    monkeypatch.setattr(hidden, "public_feature_rows", lambda table, repo: {})
    assert hidden.leave_out_public(table, checkout, external).num_rows == 2
