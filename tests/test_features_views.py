"""Featurizers and the PyG / Hugging Face views."""

from __future__ import annotations

import numpy as np
import pytest

from perfgraphs.features import FEATURIZERS, get_featurizer
from perfgraphs.graph.ir import ATTRIBUTE_INDEX
from perfgraphs import to_pyg
from perfgraphs.views import from_hf_row, to_hf_row
from perfgraphs.views.hf import RAW_NODE_FEATURES


@pytest.mark.parametrize("name,node_dim,static_dim", [("dippm", 32, 5), ("trappm", 113, 6), ("nnlqp", 44, 4)])
def test_dimensions_of_the_research(name, node_dim, static_dim, resnet18_template):
    feat = get_featurizer(name)
    g = resnet18_template.graph(4)
    x, s = feat.node_features(g), feat.static_features(g)
    assert x.shape == (g.num_nodes, node_dim) and s.shape == (static_dim,)
    assert x.dtype == np.float32 and np.isfinite(x).all()
    assert len(feat.node_feature_names) == node_dim and len(set(feat.node_feature_names)) == node_dim


def test_trappm_columns_hold_the_node_facts(resnet18_template):
    g = resnet18_template.graph(2)
    x = get_featurizer("trappm").node_features(g)
    assert np.allclose(x[:, :98].sum(axis=1), 1.0)
    stem = g.onnx_ops.index("Conv")
    assert x[stem, 98:104].tolist() == pytest.approx(np.log1p([2, 3, 96, 96, 0, 0]).tolist())
    assert x[stem, 110] == pytest.approx(np.log1p(2 * 48 * 48 * 64 * 3 * 7 * 7), rel=1e-6)
    assert x[stem, 111] == pytest.approx(np.log1p(64 * 3 * 7 * 7), rel=1e-6)


def test_dippm_attributes_of_the_resnet_stem(resnet18_template):
    g = resnet18_template.graph(1)
    stem = g.onnx_ops.index("Conv")
    a = g.attributes[stem]
    assert (a[ATTRIBUTE_INDEX["kernel_h"]], a[ATTRIBUTE_INDEX["stride_w"]], a[ATTRIBUTE_INDEX["pad_top"]]) == (7, 2, 3)
    assert (a[ATTRIBUTE_INDEX["channels_in"]], a[ATTRIBUTE_INDEX["channels_out"]]) == (3, 64)
    s = get_featurizer("dippm").static_features(g)
    assert s[1:].tolist() == [1, 20, 1, 17]  # batch, convs, dense, relus of ResNet-18


def test_hf_row_round_trips_exactly_through_datasets(resnet18_template):
    import datasets

    g = resnet18_template.graph(3)
    ds = datasets.Dataset.from_list([to_hf_row(g, y=[12.5, 300.0])])
    row = ds[0]
    assert from_hf_row(row) == g
    assert row["num_nodes"] == g.num_nodes and row["y"] == [[12.5, 300.0]]
    macs = np.array(row["node_feat"])[:, RAW_NODE_FEATURES.index("macs")]
    assert macs.sum() == g.static_features()["total_macs"]


def test_pyg_view(resnet18_template):
    g = resnet18_template.graph(2)
    data = to_pyg(g, "nnlqp", y=[4.2])
    assert data.num_nodes == g.num_nodes and data.x.shape == (g.num_nodes, 44)
    assert data.edge_index.tolist() == g.edge_index.tolist()
    assert data.static.shape == (1, 4) and data.y.tolist() == [[pytest.approx(4.2)]]


def test_unknown_featurizer_is_a_clear_error():
    from perfgraphs.errors import PerfgraphsError

    with pytest.raises(PerfgraphsError, match="available"):
        get_featurizer("gnn9000")
    assert set(FEATURIZERS) == {"dippm", "trappm", "nnlqp"}


def test_single_namespace():
    import importlib.util

    import perfgraphs.baselines  # noqa: F401  (mapped from the top-level folder)

    for generic in ("baselines", "loaders", "leaderboard", "benchmarks"):
        assert importlib.util.find_spec(generic) is None


def test_graph2text_states_the_graph_facts(resnet18_template):
    from perfgraphs.data.graph_summaries import QUESTION, summarize

    g = resnet18_template.graph(4)
    answer = summarize(g)
    s = g.static_features()
    assert QUESTION == "Summarise the graph"  # the question the dataset card promises
    assert f"{s['num_nodes']} nodes and {s['num_edges']} edges at batch size 4" in answer
    assert f"{s['total_params']:,} parameters" in answer
    assert "20 convolutions" in answer and "Conv x20" in answer
