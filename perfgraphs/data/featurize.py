"""Featurize a whole stored graph table at once: node features, edges and static features as
flat arrays (what ``to_pyg`` wraps), straight from the Arrow columns.

Node features are per node, so the node table of all graphs is featurized in fixed-size blocks of
nodes written into one preallocated matrix: no per-graph or per-node Python work, no PerfGraph
rebuild, no copy of the raw node table (blocks are views of the memory-mapped Arrow buffers), and
each block stays in cache while the featurizer fills its columns. The result equals featurizing
every graph on its own (``tests/test_featurize_table.py`` checks it exactly).
"""

from __future__ import annotations

import mmap
import sys

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from perfgraphs.data.folders import STATIC_COLUMNS
from perfgraphs.errors import CorruptFileError
from perfgraphs.features import Featurizer, get_featurizer
from perfgraphs.features.base import EncodedOps
from perfgraphs.registry import TRAPPM
from perfgraphs.views.hf import RAW_NODE_FEATURES, node_columns

# Nodes per featurizer call: a trappm block (16,384 x 113 float32, 7 MiB) plus its raw rows stays
# in the last-level cache while the featurizer writes it column block by column block.
BLOCK_NODES = 16_384


def _filled_later(shape: tuple[int, ...], dtype) -> np.ndarray:
    """An uninitialised array for dataset-sized outputs, with its pages faulted in up front.

    Touching a fresh multi-GiB array page by page costs more CPU than all the feature arithmetic
    (one fault per 4 KiB page). On Linux the memory is mapped with huge pages requested and
    populated in one kernel call (MADV_POPULATE_WRITE, Linux 5.14+); elsewhere, or when the
    kernel refuses, it is a plain ``np.empty``."""
    size = int(np.prod(shape)) * np.dtype(dtype).itemsize
    if sys.platform == "linux" and size >= 1 << 26:
        try:
            buffer = mmap.mmap(-1, size, flags=mmap.MAP_PRIVATE | mmap.MAP_ANONYMOUS)
            buffer.madvise(mmap.MADV_HUGEPAGE)
            try:
                buffer.madvise(getattr(mmap, "MADV_POPULATE_WRITE", 23))
            except OSError:
                pass  # older kernel: pages fault in on first write, as with np.empty
            return np.frombuffer(buffer, dtype=dtype).reshape(shape)
        except (OSError, ValueError, AttributeError):
            pass
    return np.empty(shape, dtype=dtype)


def _check_out(out: np.ndarray, shape: tuple[int, ...], dtype) -> np.ndarray:
    if out.shape != shape or out.dtype != dtype or not out.flags.c_contiguous:
        raise ValueError(f"out must be C-contiguous {np.dtype(dtype)} {shape}, got {out.dtype} {out.shape}")
    return out


def arrow_table(hf_dataset) -> pa.Table:
    """The Arrow table behind a ``datasets.Dataset`` (row selections applied), or a table as is."""
    if isinstance(hf_dataset, pa.Table):
        return hf_dataset
    if getattr(hf_dataset, "_indices", None) is not None:  # after select/shuffle/filter
        hf_dataset = hf_dataset.flatten_indices()
    return hf_dataset.data.table


def _ints(array: pa.Array, what: str) -> np.ndarray:
    if array.null_count:
        raise CorruptFileError(f"stored {what} has {array.null_count} null values")
    return array.to_numpy(zero_copy_only=False)


def counts(table: pa.Table, column: str) -> np.ndarray:
    """A per-graph count column (num_nodes, num_edges) as int64."""
    return _ints(pc.cast(table.column(column).combine_chunks(), pa.int64()), column)


def node_features(table: pa.Table, featurizer: str | Featurizer = TRAPPM, out: np.ndarray | None = None) -> np.ndarray:
    """(total nodes, node_dim) float32 for every graph of the table, graphs in row order;
    written into ``out`` when given."""
    feat = get_featurizer(featurizer)
    width = len(RAW_NODE_FEATURES)
    num_nodes = counts(table, "num_nodes")
    shape = (int(num_nodes.sum()), feat.node_dim)
    x = _filled_later(shape, np.float32) if out is None else _check_out(out, shape, np.float32)
    pos = row = 0
    for batch in table.select(["onnx_ops", "node_feat"]).to_batches():
        lengths = _ints(pc.list_value_length(batch.column(1)), "node_feat")
        if not np.array_equal(lengths, num_nodes[row:row + batch.num_rows]):
            raise CorruptFileError("node_feat row lengths do not match num_nodes")
        raw = _ints(batch.column(1).flatten().flatten(), "node_feat").reshape(-1, width)
        if raw.dtype != np.int64:
            raw = raw.astype(np.int64)
        encoded = pc.dictionary_encode(batch.column(0).flatten())
        codes = _ints(encoded.indices, "onnx_ops")
        if len(codes) != len(raw):
            raise CorruptFileError(f"onnx_ops has {len(codes)} entries for {len(raw)} nodes")
        vocabulary = tuple(encoded.dictionary.to_pylist())
        for a in range(0, len(raw), BLOCK_NODES):
            b = min(a + BLOCK_NODES, len(raw))
            feat.node_features(node_columns(raw[a:b], EncodedOps(codes[a:b], vocabulary)), out=x[pos + a:pos + b])
        pos += len(raw)
        row += batch.num_rows
    return x


def edge_index(table: pa.Table, out: np.ndarray | None = None) -> np.ndarray:
    """(2, total edges) int64, each graph's node indices local to that graph, graphs in row order.

    Per row the stored edge list is [[sources...], [targets...]]; both halves of every row are
    copied straight into the output rows (views of the Arrow buffers, one copy in all)."""
    num_edges = counts(table, "num_edges")
    shape = (2, int(num_edges.sum()))
    out = _filled_later(shape, np.int64) if out is None else _check_out(out, shape, np.int64)
    pos = row = 0
    for chunk in table.column("edge_index").chunks:
        inner = chunk.flatten()
        lengths = _ints(pc.list_value_length(inner), "edge_index")
        expected = num_edges[row:row + len(chunk)]
        if not (np.all(_ints(pc.list_value_length(chunk), "edge_index") == 2)
                and np.array_equal(lengths[0::2], expected) and np.array_equal(lengths[1::2], expected)):
            raise CorruptFileError("edge_index rows must be two lists of num_edges node indices")
        values = _ints(inner.flatten(), "edge_index")
        starts = np.concatenate([[0], np.cumsum(lengths)])
        for k, e in enumerate(expected.tolist()):
            o = int(starts[2 * k])
            out[0, pos:pos + e] = values[o:o + e]
            out[1, pos:pos + e] = values[o + e:o + 2 * e]
            pos += e
        row += len(chunk)
    return out


def static_features(table: pa.Table, featurizer: str | Featurizer = TRAPPM) -> np.ndarray:
    """(num_graphs, static_dim) float32 from the stored static-fact columns."""
    return get_featurizer(featurizer).static_features_table({k: table.column(k).to_numpy() for k in STATIC_COLUMNS})
