"""Whole-table featurization (``to_pyg``) and its on-disk cache equal per-graph featurization
exactly, and equal a plain reference computation of the trappm features."""

from __future__ import annotations

import numpy as np
import pyarrow as pa
import pytest

from perfgraphs.data import featurize, pyg_cache
from perfgraphs.data.build import _write_config, dataset_folder
from perfgraphs.pool.graph_pool import GraphPool
from perfgraphs.data.load import load_dataset, to_pyg
from perfgraphs.data.splits import make_split
from perfgraphs.features import FEATURIZERS, get_featurizer
from perfgraphs.features.base import EncodedOps, log1p_nonneg, op_indices
from perfgraphs.graph.operators import ONNX_OPERATORS, OPERATOR_INDEX, OTHER
from perfgraphs.registry import get_dataset
from perfgraphs.views.hf import RAW_NODE_FEATURES, from_hf_row

# A CNN and a transformer (attention MatMuls, LayerNorm, Gelu), small inputs: seconds to export.
STRUCTURES = [("mnasnet", "timm:mnasnet_small", 64), ("vit", "timm:vit_tiny_patch16_224", 32)]
BATCHES = {"timm:mnasnet_small@64": (1, 3, 16), "timm:vit_tiny_patch16_224@32": (1, 2)}


@pytest.fixture(scope="module")
def home(tmp_path_factory):
    """A built dippm 'graphs' folder holding batch variants of the two structures."""
    pool = GraphPool(tmp_path_factory.mktemp("pool"))
    pool.ensure(STRUCTURES)
    assert set(pool.rows()) == set(BATCHES), pool.failures()
    samples = [(pool.rows()[sid]["family"], sid, b) for sid, batches in BATCHES.items() for b in batches]
    groups = {pool.structure(sid).one.structure_hash: fam for fam, sid, _ in samples}
    home = tmp_path_factory.mktemp("home")
    ds = get_dataset("dippm")
    cfg = ds.config("graphs")
    _write_config(dataset_folder(ds, cfg, home), ds, cfg, pool, samples,
                  make_split(groups, "random-70-15-15", 0), None, None)
    return home


def _rows(home):
    dd = load_dataset("dippm", "graphs", home=home)
    assert sum(len(s) for s in dd.values()) == sum(len(b) for b in BATCHES.values())
    return dd


def _assert_equals_per_graph(pyg, split, feat):
    assert pyg._data.x.dtype == pyg._data.static.dtype == __import__("torch").float32
    assert len(pyg) == len(split)
    for i in range(len(split)):
        g = from_hf_row(split[i])
        assert np.array_equal(pyg[i].x.numpy(), feat.node_features(g))
        assert np.array_equal(pyg[i].static.numpy()[0], feat.static_features(g))
        assert np.array_equal(pyg[i].edge_index.numpy(), g.edge_index)
        one = to_pyg(g, feat.name)  # the same graph through to_pyg's one-graph path
        assert np.array_equal(one.x.numpy(), pyg[i].x.numpy()) and np.array_equal(one.static.numpy(), pyg[i].static.numpy())


@pytest.mark.parametrize("name", sorted(FEATURIZERS))
def test_table_featurization_equals_per_graph(home, name, monkeypatch):
    # blocks of 7 nodes: every block boundary falls inside a graph
    monkeypatch.setattr(featurize, "BLOCK_NODES", 7)
    for split in _rows(home).values():
        _assert_equals_per_graph(to_pyg(split, name, cache=False), split, get_featurizer(name))


def test_trappm_equals_a_plain_reference(home):
    """The trappm definition written out with plain numpy and a dict, per graph."""
    for split in _rows(home).values():
        pyg = to_pyg(split, "trappm", cache=False)
        for i in range(len(split)):
            row = split[i]
            raw = np.asarray(row["node_feat"], dtype=np.int64).reshape(row["num_nodes"], len(RAW_NODE_FEATURES))
            onehot = np.zeros((len(raw), len(ONNX_OPERATORS)))
            onehot[np.arange(len(raw)), [OPERATOR_INDEX.get(op, OPERATOR_INDEX[OTHER]) for op in row["onnx_ops"]]] = 1
            cols = [RAW_NODE_FEATURES.index(c) for c in
                    (*(f"input_dim{k}" for k in range(6)), *(f"output_dim{k}" for k in range(6)), "macs", "params", "memory_bytes")]
            ref = np.hstack([onehot, np.log1p(np.clip(raw[:, cols].astype(np.float64), 0, None))]).astype(np.float32)
            assert np.array_equal(pyg[i].x.numpy(), ref)
            assert pyg[i].edge_index.tolist() == row["edge_index"]


def test_chunked_arrow_table_gives_the_same_tensors(home):
    split = _rows(home)["train"]
    table = split.data.table
    chunked = pa.concat_tables([table.slice(0, 1), table.slice(1, 2), table.slice(3)])
    assert chunked.column("node_feat").num_chunks == 3
    a, b = to_pyg(split, "dippm", cache=False), to_pyg(chunked, "dippm")
    for key in ("x", "edge_index", "static"):
        assert np.array_equal(getattr(a._data, key).numpy(), getattr(b._data, key).numpy())


def test_cache_is_written_read_and_never_serves_a_corrupted_file(home, capsys):
    dd = _rows(home)
    split = dd["train"]
    origin = pyg_cache.origin_of(split)
    assert origin is not None and origin.split == "train"
    folder = pyg_cache.cache_dir(origin, "trappm-v1")
    first = to_pyg(split, "trappm")  # computes into the cache
    assert {p.name for p in folder.iterdir()} == {"x.npy", "edge_index.npy", "meta.json"}
    cached = pyg_cache.read(origin, "trappm-v1")
    assert cached is not None and isinstance(cached["x"], np.memmap)
    second = to_pyg(split, "trappm")  # mapped from the cache
    _assert_equals_per_graph(first, split, get_featurizer("trappm"))
    _assert_equals_per_graph(second, split, get_featurizer("trappm"))
    # a flipped byte: reported by name, recomputed, never served
    path = folder / "x.npy"
    data = bytearray(path.read_bytes())
    data[len(data) // 2] ^= 0x10
    path.write_bytes(bytes(data))
    third = to_pyg(split, "trappm")
    assert "x.npy" in capsys.readouterr().err
    _assert_equals_per_graph(third, split, get_featurizer("trappm"))
    assert pyg_cache.read(origin, "trappm-v1") is not None  # rewritten
    # writes to the returned tensors stay private (copy-on-write), the cache stays valid
    second._data.x.zero_()
    assert pyg_cache.read(origin, "trappm-v1") is not None


def test_modified_rows_are_featurized_directly(home):
    split = _rows(home)["train"]
    picked = split.select([len(split) - 1, 0])  # an indices mapping, not a table slice
    assert pyg_cache.origin_of(picked) is None
    _assert_equals_per_graph(to_pyg(picked, "nnlqp"), picked, get_featurizer("nnlqp"))


def test_log1p_lookup_is_bit_identical_to_log1p():
    edges = [2 ** k + d for k in range(1, 63) for d in (-1, 0, 1)]
    values = np.concatenate([np.arange(-10, 70_000), edges, [2 ** 63 - 1, -(2 ** 63)],
                             np.random.default_rng(0).integers(-(2 ** 40), 2 ** 62, 100_000)]).astype(np.int64)
    ref = np.log1p(np.clip(values.astype(np.float64), 0, None))
    assert np.array_equal(log1p_nonneg(values), ref)
    assert np.array_equal(log1p_nonneg(values.reshape(-1, 2)), ref.reshape(-1, 2))
    assert np.array_equal(log1p_nonneg(values.astype(np.float64)), ref)
    for v in (0, 7, 70_000, 10 ** 15, -4):
        assert log1p_nonneg(v) == np.log1p(max(v, 0))


def test_encoded_ops_index_like_strings():
    ops = ["Conv", "Relu", "NotAnOp", "Conv", "MatMul"]
    index = {"Conv": 0, "Relu": 1, "MatMul": 2}
    vocabulary = tuple(sorted(set(ops)))
    encoded = EncodedOps(np.array([vocabulary.index(o) for o in ops]), vocabulary)
    assert op_indices(ops, index, 9).tolist() == op_indices(encoded, index, 9).tolist() == [0, 1, 9, 0, 2]


def test_out_buffer_is_checked(home):
    split = _rows(home)["test"] if "test" in _rows(home) else _rows(home)["train"]
    table = featurize.arrow_table(split)
    with pytest.raises(ValueError, match="C-contiguous"):
        featurize.node_features(table, "trappm", out=np.zeros((1, 113), np.float32))


def test_reading_stored_graphs_imports_no_onnx():
    # every sandboxed predictor process that calls static_features (the ridge example, the static
    # references) imported onnx through perfgraphs.graph's package: half a second a process for a module
    # it never used (its ml_dtypes extension). Stored graphs are read with the IR alone; exporting does not.
    import json
    import subprocess
    import sys

    code = ("import json, sys\nfrom perfgraphs.data import featurize\nimport perfgraphs.data.load, perfgraphs.features, "
            "perfgraphs.views.hf, perfgraphs.graph\nloaded = sorted(m for m in sys.modules if m.split('.')[0] == 'onnx')\n"
            "from perfgraphs.graph import GraphTemplate  # the control: the exporter side still imports it\n"
            "print(json.dumps([loaded, 'onnx' in sys.modules]))")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]
    assert json.loads(done.stdout.strip().splitlines()[-1]) == [[], True]
