"""The twenty-sixth adversarial pass of 2026-12-03, on the submission path (`perfgraphs check` /
`submit` on a folder the submitter controls byte for byte). Each test names the attack and what it
did on the code before the fix, and has a control (the honest variant passes), so it can fail."""

from __future__ import annotations

import io

import numpy as np
import pyarrow as pa
import pyarrow.feather as feather
import pyarrow.orc as orc
import pyarrow.parquet as pq
import pytest

from perfgraphs.leaderboard.label_scan import LabelArray, scan_submission

LABELS = np.round(np.random.default_rng(1).uniform(0.5, 80, 300), 6)
OTHER = np.round(np.random.default_rng(2).uniform(0.5, 80, 300), 6)  # honest numbers, no label among them


def _scan(tmp_path, name: str, data: bytes) -> list[str]:
    folder = tmp_path / name.replace(".", "-")
    folder.mkdir()
    (folder / name).write_bytes(data)
    return scan_submission(folder, [LabelArray("the test labels", LABELS)])


def _column(kind: str, values: np.ndarray) -> pa.Array:
    """``values`` as a column of an Arrow type the scan skipped before this pass."""
    flat, text = pa.array(values), [repr(float(v)) for v in values]
    n = len(values)
    return {
        "run_end_encoded": lambda: pa.RunEndEncodedArray.from_arrays(pa.array(np.arange(1, n + 1), pa.int32()), flat),
        "sparse_union": lambda: pa.UnionArray.from_sparse(pa.array([0] * n, pa.int8()), [flat]),
        "dense_union": lambda: pa.UnionArray.from_dense(pa.array([0] * n, pa.int8()),
                                                        pa.array(range(n), pa.int32()), [flat]),
        "string_view": lambda: pa.array(text, pa.string_view()),
        "binary_view": lambda: pa.array([t.encode() for t in text], pa.binary_view()),
        "list_view": lambda: pa.ListViewArray.from_arrays(pa.array([0], pa.int32()), pa.array([n], pa.int32()), flat),
        "fixed_shape_tensor": lambda: pa.ExtensionArray.from_storage(
            pa.fixed_shape_tensor(pa.float64(), [n]), pa.FixedSizeListArray.from_arrays(flat, n)),
        "json": lambda: pa.ExtensionArray.from_storage(pa.json_(), pa.array(text)),
    }[kind]()


def _file(fmt: str, column: pa.Array) -> bytes:
    out = io.BytesIO()
    table = pa.table({"y": column})
    if fmt == "arrow":
        feather.write_feather(table, out, compression="zstd")
    elif fmt == "parquet":
        pq.write_table(table, out, compression="zstd")
    else:
        orc.write_table(table, out, compression="zstd")
    return out.getvalue()


@pytest.mark.parametrize("fmt, kind", [
    *(("arrow", k) for k in ("run_end_encoded", "sparse_union", "dense_union", "string_view", "binary_view",
                             "list_view", "fixed_shape_tensor", "json")),
    ("parquet", "fixed_shape_tensor"), ("parquet", "json"), ("orc", "dense_union")])
def test_labels_in_extension_union_run_end_and_view_columns_are_found(tmp_path, fmt, kind):
    """Attack: the labels in a zstd-compressed Arrow (Feather) file as a run-end-encoded, union,
    string-view, binary-view, list-view or extension (``fixed_shape_tensor``, ``json``) column, in a
    zstd Parquet file as a canonical extension column (read back as one), or in a zstd ORC file as a
    union column. ``feather.read_table``, ``pq.read_table`` and ``orc.read_table`` give the labels
    back, but the scan's ``_leaves`` yielded these arrays unread (neither number nor string) and the
    compressed pages hide them from the raw-bytes scan: all 11 passed. Now extension arrays are read
    as their storage, run-end-encoded ones and list views as their values, unions as their children,
    and string/binary views as text."""
    data = _file(fmt, _column(kind, LABELS))
    problems = _scan(tmp_path, f"labels.{fmt}", data)
    assert len(problems) == 1 and "holds 300 of the 300 distinct values of the test labels" in problems[0]
    assert _scan(tmp_path, f"honest.{fmt}", _file(fmt, _column(kind, OTHER))) == []  # control: honest numbers


def _strings_file(kind: str, values: np.ndarray) -> bytes:
    """``values`` printed (``repr``) into a binary file a predictor loads in one call."""
    import pickle
    import zipfile

    text = [repr(float(v)) for v in values]
    out = io.BytesIO()
    if kind == "pickle":
        return pickle.dumps({f"config-{i}": t for i, t in enumerate(text)}, protocol=4)
    if kind == "npy-unicode":
        np.save(out, np.array(text))
    elif kind == "npy-bytes":
        np.save(out, np.array(text, dtype="S"))
    elif kind == "npz":
        np.savez_compressed(out, y=np.array(text))
    elif kind == "torch-like":  # torch.save's layout: a zip whose data.pkl is a binary pickle
        with zipfile.ZipFile(out, "w", zipfile.ZIP_STORED) as z:
            z.writestr("archive/data.pkl", pickle.dumps(text, protocol=2))
    else:  # text behind a binary header
        return np.random.default_rng(5).bytes(70_000) + "\n".join(text).encode()
    return out.getvalue()


@pytest.mark.parametrize("kind", ["pickle", "npy-unicode", "npy-bytes", "npz", "torch-like", "binary-header"])
def test_labels_printed_inside_a_binary_file_are_found(tmp_path, kind):
    """Attack: the labels printed as strings (``repr``) inside a binary file: a binary pickle of a
    dict of strings, ``torch.save`` of a list of strings (a zip holding a protocol-2 pickle), an
    .npy/.npz of a ``U`` (UTF-32) or ``S`` string array, or plain text after 70 KB of binary
    bytes. The scan read text only in files with no NUL byte in their first 64 KB, and read .npy
    numeric dtypes only, so all six passed; ``pickle.load``/``np.load(allow_pickle=False)`` give the
    labels back. Now a binary file's runs of number characters are read as text, and .npy string
    fields are read as text."""
    problems = _scan(tmp_path, f"labels-{kind}.bin", _strings_file(kind, LABELS))
    assert len(problems) == 1 and "holds 300 of the 300 distinct values of the test labels" in problems[0]
    assert _scan(tmp_path, f"honest-{kind}.bin", _strings_file(kind, OTHER)) == []  # control: honest numbers


def test_random_weights_still_pass_with_binary_files_read_as_text(tmp_path):
    """Control for the test above: 8 MB of random float32 weights and 8 MB of random bytes, now
    also read for printed numbers, match no more labels than decoys (nothing refused)."""
    rng = np.random.default_rng(7)
    folder = tmp_path / "weights"
    folder.mkdir()
    (folder / "w.bin").write_bytes(rng.standard_normal(2_000_000).astype("<f4").tobytes())
    (folder / "r.bin").write_bytes(rng.bytes(8_000_000))
    assert scan_submission(folder, [LabelArray("the test labels", LABELS)]) == []


@pytest.mark.parametrize("column", ["sample_id", "target", "value"])
def test_a_predictions_file_of_an_extension_column_is_refused_in_one_line(tmp_path, column):
    """Attack: a predictions file (``seed-0.parquet``) whose sample_id is a canonical ``json``
    extension column (``pa.ExtensionArray.from_storage(pa.json_(), ids)``, read back as one).
    ``_read_prediction_table``'s length check ran ``pc.binary_length`` on it, and `perfgraphs check`
    stopped with "internal error: ArrowNotImplementedError: Function 'binary_length' has no kernel
    matching input types (extension<arrow.json>)" (exit 1). Now an extension column is refused
    as a nested one is, in one line; a plain file (the control) is read."""
    from perfgraphs.leaderboard.submit import _prediction_table

    ids = [f"s{i}" for i in range(20)]
    plain = {"sample_id": pa.array(ids), "target": pa.array(["latency_ms"] * 20), "value": pa.array(np.ones(20))}
    honest = tmp_path / "seed-1.parquet"
    pq.write_table(pa.table(plain), honest)
    table, problem = _prediction_table(honest, 20)
    assert problem is None and table.column("sample_id").to_pylist() == ids  # control: a plain file reads
    storage = plain[column] if column != "value" else pa.array([str(v) for v in np.ones(20)])
    odd = tmp_path / "seed-0.parquet"
    pq.write_table(pa.table({**plain, column: pa.ExtensionArray.from_storage(pa.json_(), storage)}), odd)
    table, problem = _prediction_table(odd, 20)
    assert table is None and f"nested column(s) {column} (extension<arrow.json>)" in problem and "\n" not in problem
