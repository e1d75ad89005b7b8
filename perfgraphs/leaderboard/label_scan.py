"""Refuse a submission that carries label data: the board's test labels, or the label arrays of the
predict artifacts (``perfgraphs/predict/artifacts/*.rows.npz``), bundled as a lookup table.

The public test labels are committed in the repository, so a predictor that ships them scores 0 %
however well it is isolated. This scan reads every regular file of the submission folder (and the
members of zip, tar and gzip/bz2/xz/zstd/lz4/zlib archives, .npz and .pt included) as it is stored,
never importing or unpickling anything (Parquet, Arrow and ORC files are read by pyarrow in a
forked child, :mod:`perfgraphs.leaderboard.isolated`), and collects the label values it finds:

* numbers written as text (csv, json, txt, Python source…, and the strings inside binary files:
  a pickle, an .npy string array) with at least 4 significant digits, read as ``float()`` reads them
  (an underscore between two digits, decimal digits of any script) and with or without their sign,
  matched at the digits written (a label printed to 4 digits is found; a weight of 8 digits only
  if it *is* that label);
* arrays of a structured format (npy/npz of any numeric dtype; Parquet, Arrow/Feather and ORC:
  list, map and struct columns flattened, string columns scanned as text) and the raw bytes of any other file (pickle,
  torch, HDF5…) read as float64 (both byte orders) and float32 at every alignment, matched
  exactly against each label and its 4-, 5- and 6-digit roundings: a random float equals one of a
  few hundred given values essentially never, so model weights do not trip it.

Chance is measured, not assumed: raw bytes read at every alignment are random bit patterns, and
a few hundred MB of them (ordinary float32 weights) hit most float32 values near a label by
accident (an honest 200 MB predictor once matched 1102 of 1528 artifact labels). So every label
array is scanned beside a **decoy** array, its values times :data:`DECOY_FACTOR` (the same
magnitudes, forms and count, other digits): files that hold no labels match labels and decoys
alike. A submission is refused when its files hold, **beyond the decoys they match**, at least
:data:`MIN_FRACTION` of the distinct values of any one label array (and at least
:data:`MIN_MATCHES` of them). It is a
tripwire against shipping the labels, not a proof of honesty: labels transformed before they are
bundled (scaled, encrypted) pass, and the hidden test set is what removes that possibility.
"""

from __future__ import annotations

import bz2
import functools
import gzip
import io
import lzma
import math
import re
import struct
import tarfile
import zipfile
import zlib
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from perfgraphs.leaderboard.submission import _NotARegularFile, read_regular

# A quarter of a label array's distinct values in the submission is far beyond chance (see the
# module docstring) and already a large lookup advantage; MIN_MATCHES keeps tiny test sets from
# tripping on a handful of coincidences.
MIN_FRACTION = 0.25
MIN_MATCHES = 5
# the decoys' offset from the labels: no rounding of a label to 4-6 digits is a rounding of its
# decoy, and the magnitudes (hence the float exponents chance hits) stay the same
DECOY_FACTOR = 1.0617
MAX_SCAN_BYTES = 512 * 1024 * 1024  # per file, after decompression; larger is refused unread
MAX_SUBMISSION_SCAN_BYTES = 2 * 1024 * 1024 * 1024  # all files, after decompression: a scan's time is bounded
MAX_DEPTH = 3  # archives inside archives
MAX_MEMBERS = 10_000  # members of one archive
MAX_SUBMISSION_MEMBERS = 100_000  # files and archive members of a submission, all levels
MAX_TABLES = 1_000  # Parquet, Arrow and ORC files a submission's scan opens, each in a forked child
_LIMITS_TEXT = (f"{MAX_SCAN_BYTES // 2**20} MB a file and {MAX_SUBMISSION_SCAN_BYTES // 2**30} GB a submission, "
                "once decompressed")
_NUMBER = re.compile(rb"[-+]?(?:\d+\.\d*|\.\d+|\d+)(?:[eE][-+]?\d+)?")


@dataclass(frozen=True)
class LabelArray:
    name: str  # how the refusal names it: "the test labels of latency_ms", an artifact file
    values: np.ndarray


class LabelIndex:
    """Every form a label value may be stored in, mapped back to the label it came from."""

    def __init__(self, arrays: list[LabelArray]):
        self.arrays = arrays
        keys, key_arrays, key_labels = [], [], []
        for k, arr in enumerate(arrays):
            values = np.unique(np.asarray(arr.values, dtype=np.float64))
            values = values[np.isfinite(values) & (values != 0)]
            arrays[k] = LabelArray(arr.name, values)
            listed = values.tolist()
            # each label's forms: itself, rounded to 4, 5 and 6 significant digits (Python's correctly
            # rounded formatting), and each of those as float32; a form once per label
            forms = np.stack([values, *(np.asarray([float(f"{v:.{d}g}") for v in listed], dtype=np.float64)
                                        for d in (4, 5, 6))], axis=1).reshape(len(values), 4)
            with np.errstate(over="ignore"):
                forms = np.concatenate([forms, forms.astype(np.float32).astype(np.float64)], axis=1)
            forms.sort(axis=1)
            first = np.ones(forms.shape, dtype=bool)
            first[:, 1:] = forms[:, 1:] != forms[:, :-1]
            keys.append(forms[first])
            key_labels.append(np.nonzero(first)[0])
            key_arrays.append(np.full(len(key_labels[-1]), k))
        keys = np.concatenate(keys) if keys else np.empty(0)
        order = np.argsort(keys, kind="stable")
        self.keys = keys[order]
        self._key_owners = (np.concatenate(key_arrays)[order], np.concatenate(key_labels)[order]) if arrays else (
            np.empty(0, dtype=int), np.empty(0, dtype=int))
        # every label value, sorted, and its (array, label): what a printed number is looked for among
        values = np.concatenate([a.values for a in self.arrays]) if arrays else np.empty(0)
        owners = [(k, j) for k, a in enumerate(self.arrays) for j in range(len(a.values))]
        order = np.argsort(values, kind="stable")
        self._values = values[order]
        self._value_owners = [owners[i] for i in order]
        self._by_digits: dict[int, dict[float, set[tuple[int, int]]]] = {}

    def exact(self, values: np.ndarray) -> set[tuple[int, int]]:
        """(array, label) pairs whose value or rounding appears exactly among ``values``."""
        values = np.asarray(values).ravel()
        if not len(values) or not len(self.keys):
            return set()
        written = set()
        # a million values at a time: the whole array cast, filtered and sorted at once took
        # about 6 times a file's size (a 512 MB file of raw floats, 3 GB)
        for start in range(0, len(values), 1 << 20):
            piece = values[start:start + (1 << 20)].astype(np.float64)
            piece = piece[np.isfinite(piece)]
            at = np.minimum(np.searchsorted(self.keys, piece), len(self.keys) - 1)
            written.update(np.unique(piece[self.keys[at] == piece]).tolist())
        hit = np.isin(self.keys, np.fromiter(written, dtype=np.float64, count=len(written)))
        return self.owners_at(np.flatnonzero(hit))

    def owners_at(self, positions: np.ndarray) -> set[tuple[int, int]]:
        """(array, label) pairs of the keys at ``positions`` of :attr:`keys`."""
        return set(zip(self._key_owners[0][positions].tolist(), self._key_owners[1][positions].tolist()))

    def printed(self, numbers: list[bytes]) -> set[tuple[int, int]]:
        """Labels written as text: a number of d ≥ 4 significant digits matches a label that rounds to it,
        read with its sign and without it (:func:`_unsigned`)."""
        found = set()
        by_digits: dict[int, set[float]] = {}
        for token in numbers:
            digits = len(re.sub(rb"^0+", b"", re.split(rb"[eE]", token)[0].lstrip(b"+-").replace(b".", b"")))
            if digits >= 4:
                try:
                    by_digits.setdefault(min(digits, 17), set()).update(_unsigned(float(token)))
                except ValueError:
                    continue
        for digits, written in by_digits.items():
            found |= self._rounding_to(digits, np.fromiter(written, dtype=np.float64, count=len(written)))
        return found

    def _rounding_to(self, digits: int, written: np.ndarray) -> set[tuple[int, int]]:
        """(array, label) pairs whose value rounded to ``digits`` significant digits is one of ``written``.
        A value rounds to w only within half a unit of w's last digit (rounding never lowers a value's
        decade, so w's unit is the larger): where few values lie within a unit of the numbers written,
        only those are formatted; a table of every label rounded to those digits, built in Python (about
        35 ms on the artifacts' arrays), was most of a small submission's scan."""
        written = written[np.isfinite(written) & (written != 0)]
        if not len(written) or not len(self._values):
            return set()
        exponent = np.floor(np.log10(np.abs(written)))
        exponent += 10.0 ** (exponent + 1) <= np.abs(written)  # log10 a hair under an exact power of ten
        unit = 10.0 ** (exponent - digits + 1)
        lo = np.searchsorted(self._values, written - unit, side="left")
        hi = np.searchsorted(self._values, written + unit, side="right")
        if (hi - lo).sum() > len(self._values):  # many numbers near the labels: the table once
            rounded = self._rounded(digits)
            return set().union(*(rounded[w] for w in set(written.tolist()) & rounded.keys()))
        found = set()
        for i in np.flatnonzero(hi > lo):
            for at in range(lo[i], hi[i]):
                if float(f"{self._values[at]:.{digits}g}") == written[i]:
                    found.add(self._value_owners[at])
        return found

    def _rounded(self, digits: int) -> dict[float, set[tuple[int, int]]]:
        if digits not in self._by_digits:
            table: dict[float, set[tuple[int, int]]] = {}
            for k, arr in enumerate(self.arrays):
                for j, v in enumerate(arr.values):
                    table.setdefault(float(f"{v:.{digits}g}"), set()).add((k, j))
            self._by_digits[digits] = table
        return self._by_digits[digits]


def _unsigned(value: float) -> tuple[float, ...]:
    """A printed number as written and, when negative, without its sign: the tokens of a number
    take a ``-`` before it, so ``m7-41.189819`` (a name, a key, a CSV field) is -41.189819, and the
    300 labels each written after a dash, ``f"{i}-{label!r}"``, in a ``.py`` or as 300 file names
    that the predictor lists and splits, passed (0 of 300 found: hundred-and-twenty-fifth pass,
    side a)."""
    return (value, -value) if value < 0 else (value,)


def _raw_floats(data: bytes) -> list[np.ndarray]:
    out = []
    for dtype, size in (("<f8", 8), (">f8", 8), ("<f4", 4)):
        for offset in range(size):
            usable = (len(data) - offset) // size * size
            if usable > 0:
                out.append(np.frombuffer(data, dtype=dtype, count=usable // size, offset=offset))
    return out


class Unscannable(Exception):
    """A file whose contents the scan cannot read within its budget (archives' contents over it, a
    Parquet file over it once read, an encrypted member, an archive nested past MAX_DEPTH): refused,
    never passed unread (twenty-first pass of 2026-12-02: a zip of 512 MB of zeros, then the labels,
    passed, its second member unread)."""


def _parquet_size(meta) -> int:
    """Bytes a Parquet file takes once read, from its metadata: 8 for every leaf value (a column
    chunk's num_values counts each element of a list, where rows × columns counted a one-row
    list<double> of 70 M zeros, a 627-byte file read into 1.8 GB, as 8 bytes: twenty-third pass of
    2026-12-02), plus the byte arrays' pages as stored (read as dictionaries, see
    :func:`_structured`) and fixed-size ones at their width."""
    size = meta.num_rows * max(1, meta.num_columns) * 8
    leaves = [meta.schema.column(c) for c in range(meta.num_columns)]
    counted = 0
    for g in range(meta.num_row_groups):
        group = meta.row_group(g)
        for c in range(group.num_columns):
            chunk = group.column(c)
            values = max(chunk.num_values, group.num_rows)
            counted += 8 * values
            if chunk.physical_type == "BYTE_ARRAY":
                counted += chunk.total_uncompressed_size
            elif chunk.physical_type == "FIXED_LEN_BYTE_ARRAY":
                counted += values * max(0, leaves[c].length or 0)
    return max(size, counted)


def _leaves(array):
    """The flat arrays under an Arrow array: lists and maps flattened, structs split into their
    fields, dictionaries read as their values, recursively (a list<double> or struct column of the
    labels passed: only flat columns were read, twenty-third pass); an extension array as its
    storage, a run-end-encoded one as its values, a union as its children and a list view as its
    values (a zstd Parquet file of a ``fixed_shape_tensor`` or ``json`` column of the labels, and
    Arrow files of union, run-end-encoded or list-view columns, passed: those leaves were skipped,
    twenty-sixth pass of 2026-12-03)."""
    import pyarrow as pa
    import pyarrow.compute as pc

    if isinstance(array, pa.ChunkedArray):
        for chunk in array.chunks:
            yield from _leaves(chunk)
        return
    kind = array.type
    if isinstance(kind, pa.BaseExtensionType):
        yield from _leaves(array.storage)
    elif pa.types.is_run_end_encoded(kind) or pa.types.is_list_view(kind) or pa.types.is_large_list_view(kind):
        yield from _leaves(array.values)
    elif pa.types.is_union(kind):
        for k in range(kind.num_fields):
            yield from _leaves(array.field(k))
    elif pa.types.is_dictionary(kind):
        yield from _leaves(array.dictionary)
    elif pa.types.is_map(kind):
        yield from _leaves(array.keys)
        yield from _leaves(array.items)
    elif pa.types.is_list(kind) or pa.types.is_large_list(kind) or pa.types.is_fixed_size_list(kind):
        yield from _leaves(pc.list_flatten(array))
    elif pa.types.is_struct(kind):
        for field in array.flatten():
            yield from _leaves(field)
    else:
        yield array


def _joined(array) -> bytes:
    """The values of a string or binary array, one a line: scanned as a member (printed numbers,
    raw floats, an archive), since the Parquet pages that hold them are compressed."""
    import pyarrow as pa

    array = array.cast(pa.large_binary())
    if not len(array) or array.buffers()[2] is None:
        return b""
    offsets = np.frombuffer(array.buffers()[1], np.int64)[array.offset:array.offset + len(array) + 1]
    data = np.frombuffer(array.buffers()[2], np.uint8)[offsets[0]:offsets[-1]]
    return np.insert(data, offsets[1:-1] - offsets[0], ord("\n")).tobytes()


def _parquet_read(data: bytes, budget: int):
    """(its size once read, its numbers, its strings) of a Parquet file, None when its metadata
    does not read; over ``budget`` it is :class:`Unscannable` before its pages are read. Run in a
    forked child (:func:`_table`): building a column chunk's metadata aborts the process on a
    crafted footer."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    try:
        meta = pq.ParquetFile(pa.BufferReader(data)).metadata
    except Exception:  # not a readable Parquet file: scanned as raw bytes only
        return None
    size = _parquet_size(meta)
    if size > budget:
        raise Unscannable(f"a Parquet table of {meta.num_rows} rows × {meta.num_columns} columns ({size} bytes once "
                          f"read, each element of its lists counted), over what the scan reads ({_LIMITS_TEXT})")
    strings = [meta.schema.column(c).path for c in range(meta.num_columns)
               if meta.schema.column(c).physical_type == "BYTE_ARRAY"]
    return (size, *_table_values(pq.read_table(pa.BufferReader(data), read_dictionary=strings or None).columns))


def _batches_read(batches, budget: int, what: str):
    """(size, numbers, strings) of Arrow record batches read one at a time, refused once their
    decompressed size passes ``budget``."""
    size, numbers, texts = 0, [], []
    for batch in batches:
        size += batch.nbytes
        if size > budget:
            raise Unscannable(f"{what} over what the scan reads once decompressed ({_LIMITS_TEXT})")
        more_numbers, more_texts = _table_values(batch.columns)
        numbers += more_numbers
        texts += more_texts
    return size, numbers, texts


def _arrow_read(data: bytes, budget: int):
    """An Arrow IPC (Feather v2) file, its batches decompressed one at a time (an lz4 or zstd
    Feather file of the labels passed: its buffers are compressed, twenty-fourth pass)."""
    import pyarrow as pa

    try:
        reader = pa.ipc.open_file(pa.BufferReader(data))
    except Exception:
        return None
    return _batches_read((reader.get_batch(i) for i in range(reader.num_record_batches)), budget,
                         "an Arrow file")


def _orc_read(data: bytes, budget: int):
    """An ORC file, its stripes read one at a time (zlib, zstd, lz4 or snappy ORC of the labels
    passed, twenty-fourth pass)."""
    import pyarrow as pa
    import pyarrow.orc as orc

    try:
        reader = orc.ORCFile(pa.BufferReader(data))
    except Exception:
        return None
    return _batches_read((reader.read_stripe(i) for i in range(reader.nstripes)), budget, "an ORC file")


def _table_values(columns) -> tuple[list[np.ndarray], list[bytes]]:
    """The numbers (as float64) and the strings (joined: :func:`_joined`) of Arrow columns."""
    import pyarrow as pa

    numbers, texts = [], []
    for column in columns:
        for leaf in _leaves(column):
            if pa.types.is_string(leaf.type) or pa.types.is_large_string(leaf.type) or \
                    pa.types.is_binary(leaf.type) or pa.types.is_large_binary(leaf.type) or \
                    pa.types.is_fixed_size_binary(leaf.type) or pa.types.is_string_view(leaf.type) or \
                    pa.types.is_binary_view(leaf.type):
                texts.append(_joined(leaf))
            elif pa.types.is_integer(leaf.type) or pa.types.is_floating(leaf.type) or \
                    pa.types.is_decimal(leaf.type) or pa.types.is_boolean(leaf.type):
                # unchecked: a 64-bit integer past 2**53 is a number all the same
                numbers.append(np.asarray(leaf.cast(pa.float64(), safe=False).to_numpy(zero_copy_only=False),
                                          dtype=np.float64))
    return numbers, texts


def _table_kind(data: bytes) -> str | None:
    """The table format ``data`` is, by the magic its readers check: Parquet and Arrow files by
    their trailing magic (the leading PAR1 is not read by pq.read_table: a Parquet file starting
    with four other bytes passed unread, twenty-fourth pass), ORC by its postscript's."""
    if len(data) >= 12 and data.endswith(b"PAR1"):
        return "Parquet"
    if len(data) >= 12 and data.endswith(b"ARROW1"):
        return "Arrow"
    if len(data) > 8 and b"\x82\xf4\x03\x03ORC" in data[-1 - data[-1]:-1]:  # the postscript's magic field
        return "ORC"
    return None


_TABLE_READERS = {"Parquet": _parquet_read, "Arrow": _arrow_read, "ORC": _orc_read}


def _table_in_child(kind: str, data: bytes, budget: int):
    """The reader of ``kind`` (run in the child): its read errors are one line, not an exception
    the parent cannot unpickle."""
    try:
        return _TABLE_READERS[kind](data, budget)
    except Unscannable:
        raise
    except RecursionError:
        raise Unscannable(f"a {kind} table nested deeper than the scan follows") from None
    except Exception as exc:  # noqa: BLE001 (whatever a crafted file makes the reader raise is one line)
        # its metadata read, its pages not: what a predictor's reader might still get passed unread
        raise Unscannable(f"a {kind} table the scan cannot read ({type(exc).__name__}: "
                          f"{' '.join(str(exc).split())[:120]})") from None


def _structured(data: bytes, left: list[int]) -> tuple[list[np.ndarray], list[bytes]]:
    """The numbers of a Parquet, Arrow or ORC file, and its strings and binaries (each column's
    values joined: :func:`_joined`) — its pages are compressed, so raw bytes would miss them —,
    its size once read taken off ``left`` (over it is refused before anything is read: Parquet is
    sized from its metadata, :func:`_parquet_size`, Arrow and ORC batch by batch); npy arrays of
    any numeric dtype as float64 (:func:`_npy_values`). Byte arrays are read as dictionaries (a
    dictionary page of one long string repeated by its indices is small until decoded).

    The table is read in a forked child (:mod:`perfgraphs.leaderboard.isolated`): a 2.2 KB Parquet
    file with one footer byte changed made pyarrow abort the process (twenty-fourth pass of
    2026-12-02); a child that dies is refused. Each costs a fork (about 10 ms), so a submission
    opens at most :data:`MAX_TABLES` of them."""
    kind = _table_kind(data)
    if kind is None:
        return _npy_values(data, left)
    from perfgraphs.leaderboard.isolated import ChildFailed, in_child

    _count(left, 2, f"more than {MAX_TABLES} Parquet, Arrow or ORC tables, which the scan reads one process each")
    try:
        read = in_child(_table_in_child, kind, data, left[0])
    except ChildFailed as exc:
        raise Unscannable(f"not a readable {kind} file: {exc}") from None
    if read is None:
        return [], []
    size, numbers, texts = read
    left[0] -= size
    return numbers, texts


def _npy_values(data: bytes, left: list[int]) -> tuple[list[np.ndarray], list[bytes]]:
    """The values of an .npy array of any numeric dtype as float64 (the real and imaginary parts of a
    complex one), read from its header: the raw scan reads float64 and little-endian float32
    only, and >f4, longdouble and complex .npy files of the labels passed (twenty-fourth pass).
    Its string fields (``U``, ``S``) as text, one value a line: an .npy of the labels as strings,
    stored as UTF-32, passed (twenty-sixth pass)."""
    if not data.startswith(b"\x93NUMPY"):
        return [], []
    from numpy.lib import format as npformat

    stream = io.BytesIO(data)
    try:
        version = npformat.read_magic(stream)
        header = npformat.read_array_header_1_0 if version == (1, 0) else npformat.read_array_header_2_0
        shape, _, dtype = header(stream)
    except Exception:  # not an array header: its bytes are scanned raw all the same
        return [], []
    fields = [dtype[name] for name in dtype.names] if dtype.names else [dtype]
    offsets = [dtype.fields[name][1] for name in dtype.names] if dtype.names else [0]
    count = min(math.prod(shape), (len(data) - stream.tell()) // max(1, dtype.itemsize))
    out, texts = [], []
    for field, offset in zip(fields, offsets):
        if field.kind in "US" and field.subdtype is None and count > 0 and field.itemsize > 0:
            _take(left, count * field.itemsize, "an .npy array")
            texts.append(_npy_text(np.ndarray((count,), field, data, stream.tell() + offset, (dtype.itemsize,))))
            continue
        # float64 and little-endian float32 the raw scan reads at every offset already
        if field.kind not in "biufc" or field.subdtype is not None or count <= 0 or field.str in ("<f8", ">f8", "<f4"):
            continue
        _take(left, count * field.itemsize, "an .npy array")  # read once more, as its distinct values
        values = np.ndarray((count,), field, data, stream.tell() + offset, (dtype.itemsize,))
        parts = (values.real, values.imag) if field.kind == "c" else (values,)
        # distinct values first: a 300 MB uint8 array is not 2.4 GB of float64
        out += [np.unique(part).astype(np.float64) for part in parts]
    return out, texts


def _npy_text(values: np.ndarray) -> bytes:
    """The strings of a U or S array, one a line (NUL padding as line ends, a decimal digit of
    another script as its ASCII digit, :func:`_unicode_digits`, other characters than ASCII as '?'),
    without a Python object per string: 128 M one-character strings are 512 MB."""
    raw = np.ascontiguousarray(values)  # a field of a structured record, copied out of it
    if values.dtype.kind == "U":
        codes = raw.view(values.dtype.str[0] + "u4").reshape(len(values), -1)
        digits = _unicode_digits()[1]
        chars = np.where(codes < 128, codes, digits[np.minimum(codes, len(digits) - 1)]).astype(np.uint8)
    else:
        chars = raw.view(np.uint8).reshape(len(values), -1)
    lines = np.concatenate([chars, np.zeros((len(values), 1), np.uint8)], axis=1)
    lines[lines == 0] = ord("\n")
    return lines.tobytes()


def _take(left: list[int], size: int, what: str) -> None:
    if size > left[0]:
        raise Unscannable(f"{what} holds more than the scan reads ({_LIMITS_TEXT})")
    left[0] -= size


def _count(left: list[int], slot: int, what: str) -> None:
    """One more archive member (slot 1) or table read (slot 2) taken off what a submission may hold:
    20,000 zip entries pointing at one 194-byte Parquet file took 52 s to scan, a million empty
    members 35 s and 535 MB, their bytes all but free (twenty-fourth pass of 2026-12-02)."""
    while len(left) < 3:
        left.append((0, MAX_SUBMISSION_MEMBERS, MAX_TABLES)[len(left)])
    if left[slot] <= 0:
        raise Unscannable(f"the submission holds {what}: a scan's time is bounded")
    left[slot] -= 1


_ZIP_METHODS = (zipfile.ZIP_STORED, zipfile.ZIP_DEFLATED, zipfile.ZIP_BZIP2, zipfile.ZIP_LZMA)


def _read_capped(stream, left: list[int], what: str) -> bytes:
    """At most ``left[0]`` bytes of a decompressing stream, taken off ``left``; more is refused."""
    member = stream.read(left[0] + 1)
    if len(member) > left[0]:
        raise Unscannable(f"{what} holds more than the scan reads ({_LIMITS_TEXT})")
    left[0] -= len(member)
    return member


def _archive_kinds(data: bytes) -> list[str]:
    """Every archive format whose signature ``data`` carries: a zip end record, gzip, bzip2, xz,
    zstd or lz4 frame magic at its start, a zlib stream, a tar header. All are read, not the first
    that matches: the labels gzipped with a small zip after them passed, the zip read and the gzip
    never (twenty-third pass of 2026-12-02); a tar ending in a zip was the zip alone the same way."""
    kinds = ["zip"] if zipfile.is_zipfile(io.BytesIO(data)) else []
    kinds += [kind for kind, magic in _MAGIC if data.startswith(magic)]
    if _is_zlib(data):
        kinds.append("zlib")
    if _is_tar(data):
        kinds.append("tar")
    return kinds


_MAGIC = (("gzip", b"\x1f\x8b\x08"), ("bzip2", b"BZh"), ("xz", b"\xfd7zXZ\x00"), ("zstd", b"\x28\xb5\x2f\xfd"),
          ("lz4", b"\x04\x22\x4d\x18"))


def _is_zlib(data: bytes) -> bool:
    """A zlib header (deflate, its check bits right, no preset dictionary) whose first bytes inflate:
    zlib.compress(labels) passed unread (twenty-fourth pass). Two bytes are weak evidence ("x^" is
    a valid header), so the stream must also start to decompress."""
    if len(data) < 3 or data[0] & 0x0F != 8 or data[0] >> 4 > 7 or (data[0] << 8 | data[1]) % 31 or data[1] & 0x20:
        return False
    try:
        zlib.decompressobj().decompress(data[:4096], 1 << 16)
    except zlib.error:
        return False
    return True


def _is_tar(data: bytes) -> bool:
    """A first 512-byte block that tarfile reads as a header (ustar magic, or a right checksum: a V7
    tar, which has no magic, of the labels passed unread, twenty-fourth pass)."""
    if len(data) > 262 and data[257:262] == b"ustar":
        return True
    try:
        tarfile.TarInfo.frombuf(data[:512], "utf-8", "surrogateescape")
    except (tarfile.HeaderError, ValueError):
        return False
    return True


def _zip_entries(data: bytes) -> int:
    """At most how many entries the zip's central directory holds, counted before ZipFile parses it
    (a million took 535 MB): the entry signatures in it (a name may add one, never hide one)."""
    try:
        end = zipfile._EndRecData(io.BytesIO(data))  # noqa: SLF001 (what ZipFile itself reads)
        start, stop = max(0, end[zipfile._ECD_LOCATION] - end[zipfile._ECD_SIZE] - 76), end[zipfile._ECD_LOCATION]
    except Exception:  # noqa: BLE001 (the whole file, then: an upper bound all the same)
        start, stop = 0, len(data)
    return data.count(b"PK\x01\x02", start, stop)


def _zip_members(data: bytes, left: list[int]):
    if _zip_entries(data) > MAX_MEMBERS:
        raise Unscannable(f"a zip of more than {MAX_MEMBERS} entries, which the scan does not open")
    with zipfile.ZipFile(io.BytesIO(data)) as z:
        for info in z.infolist():
            _count(left, 1, f"more than {MAX_SUBMISSION_MEMBERS} files and archive members")
            # a folder entry with content is read by ZipFile.open all the same: `labels/` holding
            # the labels passed unread (twenty-third pass); not ZipInfo.is_dir, which indexes
            # filename[-1] and raised IndexError on an entry named "" (twenty-fourth pass)
            if info.filename.endswith("/") and info.file_size == 0:
                continue
            if info.flag_bits & 0x1:
                raise Unscannable(f"zip member {info.filename!r} is encrypted: the scan cannot read it")
            if info.compress_type not in _ZIP_METHODS:
                raise Unscannable(f"zip member {info.filename!r} is compressed with method "
                                  f"{info.compress_type}, which the scan cannot read")
            with z.open(info) as f:
                yield info.filename, _read_capped(f, left, f"zip member {info.filename!r}")


def _tar_members(data: bytes, left: list[int]):
    """Every member tarfile.extractfile reads, not only regular files: one of an unknown type flag
    (b"Q") is read as a regular file and passed unread (twenty-fourth pass). Links are skipped:
    their data is their target's, a member of its own."""
    with tarfile.open(fileobj=io.BytesIO(data)) as t:
        for n, m in enumerate(t):
            if n >= MAX_MEMBERS:
                raise Unscannable(f"a tar of more than {MAX_MEMBERS} members, which the scan does not open")
            _count(left, 1, f"more than {MAX_SUBMISSION_MEMBERS} files and archive members")
            if m.islnk() or m.issym():
                continue
            f = t.extractfile(m)
            if f is not None:
                yield m.name, _read_capped(f, left, f"tar member {m.name!r}")


def _zlib_stream(data: bytes):
    """A zlib stream, as zlib.decompress reads it (the first stream; what follows is ignored). One
    that fails to inflate is no stream (zlib.decompress fails on it too): a text that starts like a
    zlib header is not refused for it."""
    class _Stream:
        def read(self, size: int) -> bytes:
            try:
                return zlib.decompressobj().decompress(data, size)
            except zlib.error:
                return b""
    return _Stream()


_STREAMS = {"gzip": lambda data: gzip.GzipFile(fileobj=io.BytesIO(data)),
            "bzip2": lambda data: bz2.BZ2File(io.BytesIO(data)),
            "xz": lambda data: lzma.LZMAFile(io.BytesIO(data)),
            "zlib": _zlib_stream,
            # zstd and lz4 frames as pyarrow reads them (pandas and pyarrow open .zst and .lz4
            # files so): the labels compressed either way passed unread (twenty-fourth pass)
            "zstd": lambda data: _arrow_stream(data, "zstd"),
            "lz4": lambda data: _arrow_stream(data, "lz4")}


def _arrow_stream(data: bytes, codec: str):
    import pyarrow as pa

    return pa.input_stream(pa.py_buffer(data), compression=codec)


def _members(data: bytes, left: list[int]):
    """The decompressed members of an archive, one at a time (none when ``data`` is not one), of
    every format it carries (:func:`_archive_kinds`), within ``left[0]`` bytes, what is left of the
    budget (each member read is taken off); more, or an encrypted member, is :class:`Unscannable`.
    Decompressed as streams, cut while decompressed: a 12 KB gzip of a gzip of 5 GB of zeros was
    decompressed whole (MemoryError: twentieth pass); every stream of a multi-stream gzip, bzip2 or
    xz file is read (twenty-first pass)."""
    try:
        for kind in _archive_kinds(data):
            if kind == "zip":
                yield from _zip_members(data, left)
            elif kind == "tar":
                yield from _tar_members(data, left)
            else:
                yield f"({kind})", _read_capped(_STREAMS[kind](data), left, f"the {kind} stream")
    except (zipfile.BadZipFile, tarfile.TarError, OSError, EOFError, lzma.LZMAError, zlib.error, ValueError,
            NotImplementedError, RuntimeError, KeyError) as exc:
        # an archive the scan cannot read to its end (trailing bytes after a gzip stream, a member
        # of an unsupported method) passed with what came after unread (twenty-second pass)
        raise Unscannable(f"an archive the scan cannot read ({type(exc).__name__}: {' '.join(str(exc).split())[:120]})") from None


_NUMBER_RUN = re.compile(rb"[-+.\deE]{4,}")  # the characters of a number of >= 4 digits, in a row
# a byte no number is written with, ``_`` (a digit separator) and the bytes of a digit's UTF-8 aside
# (:func:`_unicode_digits`): a piece may end before it (cut at either, a pickled string array's run of
# such items was cut inside an item, each item after it off its width: 125a)
_NOT_NUMBER = re.compile(rb"[^-+.\deE_\x80-\xff]")
# where a wide file may be cut: before such a byte that is not a NUL either (UTF-16/32 text puts NULs
# inside its numbers), or before the NULs that end a string
_WIDE_BOUNDARY = re.compile(rb"[^-+.\deE_\x00\x80-\xff]|\x00{4,}")
_SEPARATED_RUN = re.compile(rb"[-+.\deE_]{4,}")  # a run of number characters and digit separators
_WIDE_PIECE_MAX = 16 * 1024 * 1024  # a wide piece with neither is cut at a NUL past this
_TEXT_CHUNK = 4 * 1024 * 1024
_NUL = re.compile(rb"\x00")
_NUL_GAP = re.compile(rb"\x00{4,}")  # what ends a string of a numpy U array (UTF-32), or of UTF-16 text
_WIDE_TEXT = (b"\xff\xfe", b"\xfe\xff", b"\x00\x00\xfe\xff")  # UTF-16 and UTF-32 byte-order marks
# a pickled numpy string dtype ('S9', 'U12', 'U100': SHORT_BINUNICODE, or BINUNICODE of protocols 2
# and 3), pickle.dumps, joblib.dump and torch.save alike: its items are stored back to back, a
# full-width one not ended, and a U array's characters are UTF-32. Any width (a numpy width is under
# 2**31): one of 100 or more was not matched, and a U array of the labels with one longer string in
# it (``np.array([repr(v) ...] + [a 100-character name])``, a lookup table's config names) passed,
# its UTF-32 never read without its NULs (twenty-ninth pass)
_STRING_DTYPE = re.compile(rb"(?:\x8c[\x02-\x0b]|X[\x02-\x0b]\x00\x00\x00)[<>|=]?([SU])([1-9]\d{0,9})(?!\d)")
# the same dtype in a protocol-0 pickle (``(VU12\n``), whose strings are text: a NUL written ``\u0000``
_STRING_DTYPE_V0 = re.compile(rb"\(V[<>|=]?([SU])([1-9]\d{0,9})\n")
MAX_CUT_WIDTH = 99  # the widths runs are cut at: full-width items of 100 characters are not numbers written plainly
# bytes a pickled array's data may follow, number characters all the same: its opcode's length
# (``C`` + 1 byte, ``B`` + 4, ``\x96`` + 8 bytes; NULs removed from a U array's, 3 at most under 512 MB)
_LENGTH_SHIFTS = (0, 1, 2, 3)
# the bytes of runs cut in one file: an eighth of it, and 1 MB at least (a test part's labels printed
# as strings are a few hundred KB at most): a crafted file of 100 MB of runs cut at four widths took
# twice the time of its plain scan
MIN_CUT_BYTES = 1 << 20


@dataclass
class _TextForm:
    """How a whole file's bytes are read as text, decided once for the file (its pieces are read
    alike): ``binary`` a NUL in its first 64 KB, or a pickled numpy string dtype anywhere in it;
    ``wide`` UTF-16/32 text or a pickled numpy U array (its NULs removed); ``widths`` the pickled
    numpy string widths its runs are cut at, within ``cut_left`` bytes for the whole file;
    ``escaped`` a protocol-0 pickle of a string array, its NULs written ``\\u0000``."""
    binary: bool
    wide: bool = False
    widths: tuple[int, ...] = ()
    cut_left: int = 0
    escaped: bool = False
    digits: bool = True  # read decimal digits of other scripts (:func:`_unicode_items`): not twice a file


# a byte that no match of either dtype pattern holds: the file is cut before one, so every match
# lies whole in one piece, its ``(?!\d)`` read as in the whole file
_NOT_IN_DTYPE = re.compile(rb"[^\x8cX\x02-\x0b\x00<>|=SU0-9(V]")
_DTYPE_PIECE = 1 << 16  # a piece's matches are at most 16 K tuples, about 1 MB


def _string_dtypes(data: bytes) -> tuple[set[bytes], set[int], bool]:
    """(the kinds, ``S`` and ``U``, of the pickled numpy string dtypes in ``data``; their widths
    from 4 to :data:`MAX_CUT_WIDTH`; whether one is a protocol-0 pickle's), read a piece at a time and
    only each 64 KB piece's distinct matches kept. Every match was kept, a tuple each: 96 MB of
    ``\\x8c\\x02S9`` (20 M matches) took 1.9 GB over the file, one at the size limit about 10 GB
    (thirty-fifth pass of 2026-12-03). A piece with no byte outside a match in the 4 KB past its
    end is cut there (a file of dtype text alone: at worst an extra width is cut)."""
    kinds: set[bytes] = set()
    widths: set[int] = set()
    text, start = False, 0
    while start < len(data):
        end = min(start + _DTYPE_PIECE, len(data))
        cut = _NOT_IN_DTYPE.search(data, end, end + 4096)
        end = cut.start() if cut else min(end + 4096, len(data))
        for pattern in (_STRING_DTYPE_V0, _STRING_DTYPE):
            found = set(pattern.findall(data, start, end))
            text = text or (pattern is _STRING_DTYPE_V0 and bool(found))
            kinds.update(kind for kind, _ in found)
            widths.update(int(w) for _, w in found if len(w) <= len(str(MAX_CUT_WIDTH)) and 4 <= int(w) <= MAX_CUT_WIDTH)
        start = end
    return kinds, widths, text


def _text_form(data: bytes) -> _TextForm:
    """The form of ``data`` (:class:`_TextForm`). Twenty-eighth pass of 2026-12-03: a pickle whose
    first 64 KB held no NUL (``pickle.dumps((16 MB of text, labels), protocol=2)``) was read as
    plain text, its U array's UTF-32 and its S array's back-to-back items unread, and a
    protocol-0 pickle of a string array (its dtype ``(VU12``, its NULs ``\\u0000``) likewise."""
    kinds, widths, text = _string_dtypes(data)
    if b"\x00" not in data[:65536] and not kinds:
        return _TextForm(binary=False)
    return _TextForm(binary=True, wide=data.startswith(_WIDE_TEXT) or b"U" in kinds, widths=tuple(sorted(widths)),
                     cut_left=max(MIN_CUT_BYTES, len(data) // 8), escaped=text)


def _long_tokens(data: bytes) -> list[bytes]:
    """The tokens of :data:`_NUMBER` in ``data`` long enough to hold 4 digits (4 bytes or more: what
    :meth:`LabelIndex.printed` matches), found one at a time and only those kept. Every token was
    kept, then read digit by digit in Python: 16 MB of ``1.`` (8 M tokens of 2 or 3 bytes, none
    with 4 digits) took 13 s and 470 MB over the file, 100 MB of it 93 s, and 100 MB of ``1,`` 95 s
    (thirty-fourth pass of 2026-12-03)."""
    return [m.group() for m in _NUMBER.finditer(data) if m.end() - m.start() >= 4]


def _printed_numbers(data: bytes, form: _TextForm | None = None) -> list[bytes]:
    """The numbers written as text in ``data`` that may hold 4 digits (:func:`_long_tokens`), read as
    ``form`` says (by default as the whole of ``data`` is): of a binary file (a NUL in its first 64 KB), those
    in runs of number characters long enough to hold 4 digits, the same tokens at a fraction of the
    cost. Binary files were not read as text at all, and the labels printed as strings in a pickle
    (``pickle.dumps([repr(v) ...])``, ``torch.save``), or as text after a NUL byte, passed
    (twenty-sixth pass of 2026-12-03). A pickled numpy string array's runs are cut at its items'
    width, and a U array's (or UTF-16/32 text's, known by its byte-order mark) read without their
    NULs: ``pickle.dumps(np.array([repr(v) ...]))``, S or U, and the same through joblib, passed
    (twenty-seventh pass: 12 of 300 labels found in an S array, 0 in a U array)."""
    form = form or _text_form(data)
    if not form.binary:
        unicode = _unicode_items(data, form) if form.digits else []
        return _long_tokens(data) + (_long_tokens(b"\n".join(unicode)) if unicode else [])
    texts = [data]
    if form.wide:
        # UTF-32 (UTF-16) read as 8-bit: its NULs removed, four or more ending a string
        texts += [_NUL_GAP.sub(b"\n", wide).replace(b"\x00", b"") for wide in _wide_ascii_digits(data)]
    runs, separated = _runs(texts)
    cut = _cut_at_widths(runs, list(form.widths), form.cut_left, _LENGTH_SHIFTS)
    form.cut_left -= sum(map(len, cut))
    unicode = _unicode_items(data, form) if form.digits else []
    return _long_tokens(b"\n".join(runs + cut + _separated_items(separated, form) + unicode))


def _byte_trie(words: list[bytes]) -> bytes:
    """A pattern of ``words`` (none a prefix of another) as a trie, a byte at a time: the same 650
    digits as one alternation took 1.6 times as long to search random bytes."""
    groups: dict[bytes, list[bytes]] = {}
    for word in words:
        groups.setdefault(word[:1], []).append(word[1:])
    if all(rest == [b""] for rest in groups.values()):
        return b"[" + b"".join(re.escape(first) for first in sorted(groups)) + b"]"
    branches = [re.escape(first) + _byte_trie(rest) for first, rest in sorted(groups.items())]
    return b"(?:" + b"|".join(branches) + b")" if len(branches) > 1 else branches[0]


@functools.lru_cache(maxsize=1)
def _unicode_digits() -> tuple[re.Pattern, np.ndarray, dict[int, int]]:
    """(a run of number characters that starts with a decimal digit other than 0-9 in UTF-8, each
    code point's ASCII digit or ``?`` as a byte, the ASCII digit of each such code point for
    ``str.translate``): the digits ``float()`` and ``int()`` read (``str.isdecimal``: Arabic-Indic,
    fullwidth, Devanagari…), built once, on the first file that is not ASCII."""
    import sys

    values = np.full(sys.maxunicode + 1, ord("?"), dtype=np.uint8)
    values[:128] = np.arange(128)
    ascii_of: dict[int, int] = {}
    for code in range(128, sys.maxunicode + 1):
        char = chr(code)
        if char.isdecimal():
            values[code] = ascii_of[code] = ord(str(int(char)))
    digit = _byte_trie([chr(code).encode() for code in ascii_of])
    return re.compile(b"(?:" + digit + rb")(?:" + digit + rb"|[-+.\deE_])*"), values, ascii_of


@functools.lru_cache(maxsize=1)
def _wide_digits() -> tuple[np.ndarray, np.ndarray]:
    """(each UTF-16 code unit's ASCII digit as a code point where it is a decimal digit of another
    script, else 0; the same for the code points of the second plane by their low 16 bits)."""
    import sys

    units = np.zeros((2, 1 << 16), dtype=np.uint16)
    for code in range(128, min(sys.maxunicode + 1, 0x20000)):  # no decimal digit lies past the second plane
        char = chr(code)
        if char.isdecimal():
            units[code >> 16, code & 0xFFFF] = ord(str(int(char)))
    return units[0], units[1]


def _wide_ascii_digits(data: bytes) -> list[bytes]:
    """``data`` (UTF-16/32 text, a pickled numpy ``U`` array) with its decimal digits of other scripts
    than ASCII in ASCII, at their width and every alignment, read a code unit (UTF-16) or a code point
    of the second plane (UTF-32) at a time: once read little-endian and once big-endian where either
    changes it (an Arabic-Indic digit's big-endian bytes, read little-endian one byte on, are another
    Arabic-Indic digit), else ``data`` alone. Hundred-and-twenty-fifth pass, side a: a pickled ``U``
    array or UTF-16 text of the labels in fullwidth or Arabic-Indic digits passed. A UTF-32 digit of
    the first plane is its UTF-16 code unit and two NULs."""
    first, second = _wide_digits()
    variants = []
    for order in "<>":
        out = np.frombuffer(data, np.uint8).copy()
        for offset in range(4):
            if offset < 2:
                units = out[offset:offset + (len(out) - offset) // 2 * 2].view(order + "u2")
                digits = first[units]
                at = np.flatnonzero(digits)
                units[at] = digits[at]
            words = out[offset:offset + (len(out) - offset) // 4 * 4].view(order + "u4")
            at = np.flatnonzero((words >> 16) == 1)
            digits = second[words[at] & 0xFFFF]
            words[at[digits != 0]] = digits[digits != 0]
        if not np.array_equal(out, np.frombuffer(data, np.uint8)):
            variants.append(out.tobytes())
    return variants or [data]


_NUMBER_BYTES = frozenset(b"-+.0123456789eE_")  # what a number is written with


def _unicode_items(data: bytes, form: _TextForm) -> list[bytes]:
    """The runs of number characters in ``data`` that hold a decimal digit of another script than
    ASCII (with the number characters before it), cut at the file's string widths as written, then
    with their digits in ASCII and without digit separators. Hundred-and-twenty-fifth pass, side a:
    ``float()`` reads any Unicode decimal digit, ``float("１２４.６４６１６７")`` is 124.646167, and a
    ``table.py``, a JSON list, a pickle of the 300 labels written so (fullwidth or Arabic-Indic), or an
    ``.npy`` or pickled ``S`` array of them, passed (0 of 300 found)."""
    if data.isascii():
        return []
    run, _, ascii_of = _unicode_digits()
    runs = []
    for found in run.finditer(data):
        start = lowest = found.start()
        while start > max(0, lowest - 64) and data[start - 1] in _NUMBER_BYTES:  # ASCII ones before it: its run's
            start -= 1
        runs.append(data[start:found.end()])
    if not runs:
        return []
    cut = _cut_at_widths(runs, list(form.widths), form.cut_left, _LENGTH_SHIFTS)
    form.cut_left -= sum(map(len, cut))
    # at once, not a run at a time (a line cut inside a digit's bytes, a width off the items': '?')
    text = b"\n".join(runs + cut).decode("utf-8", "replace").translate(ascii_of).encode("ascii", "replace")
    return [_DIGIT_SEPARATOR.sub(b"", text)]


def _runs(texts: list[bytes]) -> tuple[list[bytes], list[bytes]]:
    """(the runs of number characters in ``texts`` that may hold 4 digits, the runs of number
    characters and underscores with an underscore between two digits), found in one pass: the
    first are the second's runs cut at their underscores."""
    runs, separated = [], []
    for text in texts:
        found = _SEPARATED_RUN.findall(text)
        if b"_" not in text:
            runs += found
            continue
        runs += [run for run in found if b"_" not in run]
        for run in (run for run in found if b"_" in run):
            runs += _NUMBER_RUN.findall(run)
            if _DIGIT_SEPARATOR.search(run):
                separated.append(run)
    return runs, separated


def _separated_items(runs: list[bytes], form: _TextForm) -> list[bytes]:
    """``runs`` with an underscore between two digits (``1_2_4.6_4_6``, as ``float()`` reads it), cut
    at the file's string widths *before* their separators are taken out, then without them.
    Hundred-and-twenty-fifth pass, side a: a pickled numpy ``U`` or ``S`` array (``pickle``,
    ``joblib``, ``torch.save``, protocol 0 too) of the 300 labels so written passed (0 of 300 found):
    the separators were taken out of the file's bytes (:func:`_printed_labels`), where a ``U`` array's
    NULs keep them from two digits, and an item's width is counted with them, so full-width items run
    together were cut at the wrong places; UTF-16/32 text of such numbers passed likewise."""
    if not runs:
        return []
    cut = _cut_at_widths(runs, list(form.widths), form.cut_left, _LENGTH_SHIFTS)
    form.cut_left -= sum(map(len, cut))
    return [_DIGIT_SEPARATOR.sub(b"", run) for run in runs + cut]


def _cut_at_widths(runs: list[bytes], widths: list[int], budget: int,
                   shifts: tuple[int, ...] = (0,)) -> list[bytes]:
    """The runs longer than a string width, a line break put after every ``width`` characters from
    their start (where a run of a string array's items starts: after the NUL padding of a shorter
    item, or at the array's start) and from each of ``shifts`` characters later (the array's first
    run may start with its pickled length's bytes: twenty-eighth pass, ``pickle.dumps(np.array(
    [f"{v:.6e}" ...]))`` of 300 labels is 14,400 bytes, ``B@8\\x00\\x00``, and the ``8`` put every
    item off by one: 0 of 300 found), at most ``budget`` bytes of them in all (runs skipped past
    it): eight widths of one 100 MB run were 8 × 25 M tokens. A run is visited in Python only when
    it may be cut (longer than the width, within what is left), so every width a file declares is
    cut: only the 8 smallest were, and 8 small string arrays beside the labels' ``U12`` one hid it
    (twenty-eighth pass)."""
    out: list[bytes] = []
    lengths = np.fromiter(map(len, runs), dtype=np.int64, count=len(runs))
    candidates = np.flatnonzero(lengths > min(widths, default=budget))
    for w in widths:
        for k in shifts:
            candidates = candidates[lengths[candidates] <= budget + max(shifts)]
            for i in candidates[lengths[candidates] - k > w].tolist():
                if len(runs[i]) - k <= budget:
                    budget -= len(runs[i]) - k
                    out.append(_lines_of(runs[i][k:], w))
            if budget <= w:  # no run longer than a width fits what is left
                return out
    return out


def _lines_of(run: bytes, width: int) -> bytes:
    """``run`` with a line break after every ``width`` bytes; a long one without a Python object a line."""
    if len(run) < 65536:
        return b"\n".join([run[i:i + width] for i in range(0, len(run), width)])
    padded = np.full(-(-len(run) // width) * width, ord("\n"), dtype=np.uint8)
    padded[:len(run)] = np.frombuffer(run, dtype=np.uint8)
    lines = np.full((len(padded) // width, width + 1), ord("\n"), dtype=np.uint8)
    lines[:, :width] = padded.reshape(-1, width)
    return lines.tobytes()


def _text_chunks(data: bytes, wide: bool = False):
    """``data`` in pieces of about :data:`_TEXT_CHUNK` bytes, each cut before a byte no number is
    written with (``wide``: nor a NUL), so every printed number lies whole in one piece. Why: the
    tokens and their values of one whole file took about 9 times its size in memory (a 512 MB file
    of printed numbers, 4.5 GB); a piece at a time, what is held is the file and one piece's tokens.
    A wide file is also cut before four NULs or more (they end a string, a line break either way),
    and with neither in :data:`_WIDE_PIECE_MAX` bytes, at a NUL: 64 MB of ``1234\\x00`` after a
    UTF-16 byte-order mark was one piece of 13 M tokens, 2.2 GB at its peak (twenty-eighth pass);
    only a run of characters and NULs longer than that is split so. A piece with no such byte at all
    (nor a NUL in the next :data:`_WIDE_PIECE_MAX` bytes) is cut at :data:`_WIDE_PIECE_MAX`: a 100 MB
    file of ``12345678.`` alone, every byte a number's, was one piece, 624 MB over the file at its
    peak (thirty-second pass of 2026-12-03), 3.2 GB for one at the size limit; only the number
    astride a cut, in a run of 16 MB of number characters, is read as two."""
    boundary = _WIDE_BOUNDARY if wide else _NOT_NUMBER
    start = 0
    while start < len(data):
        at = min(start + _TEXT_CHUNK, len(data))
        limit = max(at, start + _WIDE_PIECE_MAX)
        cut = boundary.search(data, at, limit)
        if wide and cut is None and limit < len(data):
            cut = _NUL.search(data, limit, limit + _WIDE_PIECE_MAX)
        # neither: a run of number characters (and NULs) longer than any printed number, cut where it is
        end = cut.start() if cut else min(limit, len(data))
        yield data[start:end] if start or end < len(data) else data
        start = max(end, start + 1)


_DIGIT_SEPARATOR = re.compile(rb"(?<=[0-9])_(?=[0-9])")


def _printed_labels(data: bytes, index: LabelIndex) -> set[tuple[int, int]]:
    """(array, label) pairs of the labels printed as text in ``data`` (:func:`_printed_labels_as_written`),
    and again with every underscore between two digits taken out, as Python reads a literal and
    ``float()`` a string: ``TABLE = [41.1_8_9_8_1_9, ...]`` in a ``.py`` file, every public test label
    with ``_`` between its digits, was read as short numbers and passed (0 of 300 found: hundred-and-
    twenty-fourth pass, side a)."""
    found = _printed_labels_as_written(data, index)
    if b"_" in data:
        joined, separators = _DIGIT_SEPARATOR.subn(b"", data)
        if separators:
            found |= _printed_labels_as_written(joined, index, digits=False)  # read in the first
    return found


def _printed_labels_as_written(data: bytes, index: LabelIndex, digits: bool = True) -> set[tuple[int, int]]:
    """(array, label) pairs of the labels printed as text in ``data``, read a piece at a time, each
    piece as the whole file is read (:func:`_text_form`)."""
    form = _text_form(data)
    form.digits = digits
    if form.escaped:  # a protocol-0 pickle's strings: its NULs as bytes, then read as a binary file's
        data = data.replace(b"\\u0000", b"\x00")
    found: set[tuple[int, int]] = set()
    for piece in _text_chunks(data, form.wide):
        found |= index.printed(_printed_numbers(piece, form))
    return found


_PICKLED_BLOBS = {"BINBYTES", "SHORT_BINBYTES", "BINBYTES8", "BYTEARRAY8", "BINUNICODE", "SHORT_BINUNICODE",
                  "BINUNICODE8", "UNICODE"}
MAX_PICKLE_OPS = 1_000_000  # opcodes a pickled Arrow array's pickle is walked for (a few hundred a column)


def _pickle_blobs(data: bytes) -> list[bytes]:
    """The bytes and strings a pickle holds, in order (a string as Latin-1: protocol 2 pickles bytes
    as ``_codecs.encode(str, 'latin1')``), read by :func:`pickletools.genops` (nothing imported or
    run), at most :data:`MAX_PICKLE_OPS` opcodes; what it holds before a byte it cannot read."""
    import pickletools

    blobs: list[bytes] = []
    try:
        for n, (op, arg, _) in enumerate(pickletools.genops(io.BytesIO(data))):
            if n >= MAX_PICKLE_OPS:
                break
            if op.name in _PICKLED_BLOBS and len(arg) >= 1:
                try:
                    blobs.append(arg.encode("latin-1") if isinstance(arg, str) else bytes(arg))
                except UnicodeEncodeError:
                    blobs.append(b"")
    except Exception:  # noqa: BLE001 (a pickle not readable to its end: what came before it)
        pass
    return blobs


def _pickled_arrow_strings(data: bytes) -> bytes:
    """The strings of the Arrow arrays pickled in ``data`` (``pyarrow.lib._restore_array``: a
    pyarrow array or table, and pandas' default ``str`` columns since pandas 3, ArrowStringArray),
    one a line: their values are one buffer of the strings back to back, cut by an offsets buffer
    pickled before it. Twenty-ninth pass: ``pickle.dumps(pd.DataFrame({"label": [repr(v) ...]}))``
    and ``pickle.dumps(pa.array([repr(v) ...]))`` passed, the labels read as one garbled number
    (``41.18981976.061864…``). An offsets buffer (int32 or int64, from 0 or more, never
    decreasing) is paired with the first of the next three buffers long enough for its last offset,
    not one paired already: three 16-byte offsets buffers before one 100 MB values buffer read it
    three times over (thirty-second pass of 2026-12-03: 829 MB and 96 s for a 100 MB pickle)."""
    if b"_restore_array" not in data:
        return b""
    blobs = _pickle_blobs(data)
    out, used = [], set()  # a values buffer is one array's: paired once (thirty-second pass)
    for i, blob in enumerate(blobs):
        for dtype in ("<i8", "<i4") if i not in used else ():
            size = np.dtype(dtype).itemsize
            if len(blob) < 2 * size or len(blob) % size:
                continue
            small = len(blob) <= _SMALL_OFFSETS * size  # read in Python: numpy's calls cost more than the work
            offsets = (struct.unpack(f"<{len(blob) // size}{'q' if size == 8 else 'i'}", blob) if small
                       else np.frombuffer(blob, dtype))
            if offsets[0] < 0 or offsets[-1] <= offsets[0] or not _non_decreasing(offsets):
                continue
            at = next((j for j in range(i + 1, min(i + 4, len(blobs))) if j not in used
                       and len(blobs[j]) >= offsets[-1]), None)
            if at is not None:
                values = blobs[at]
                used.add(at)
                out.append(b"\n".join([values[a:b] for a, b in zip(offsets, offsets[1:])]) if small
                           else _cut_strings(values, offsets))
                break
    return b"\n".join(out)


_OFFSETS_CHUNK = 1 << 20  # offsets an Arrow string buffer is cut at a step
# Offsets read as a tuple below this many (thirty-first pass: a pickle of a million 16-byte
# buffers, each an offsets buffer of one string, took 22 s for its 18 MB, each pair a dozen
# numpy calls: a submission of such files, some 40 minutes of scanning; now 4 s)
_SMALL_OFFSETS = 256


def _non_decreasing(offsets) -> bool:
    """No offset below the one before it (a tuple, or an array read a chunk at a time: a chunk's
    temporaries, not the whole's)."""
    if isinstance(offsets, tuple):
        return all(a <= b for a, b in zip(offsets, offsets[1:]))
    return all(not np.any(np.diff(offsets[s:s + _OFFSETS_CHUNK + 1]) < 0)
               for s in range(0, max(len(offsets) - 1, 1), _OFFSETS_CHUNK))


def _cut_strings(values: bytes, offsets: np.ndarray) -> bytes:
    """The strings of ``values`` between consecutive ``offsets``, one a line, cut a chunk of offsets
    at a time. Thirty-first pass: ``np.insert`` of every offset at once held ~6 times the buffer
    (its positions as int64, their sort order, the copies): a 134 MB pickle of one int32 offsets
    buffer took 770 MB and 10 s, a 512 MB one some 3 GB; now a chunk's temporaries, and the output."""
    chars = np.frombuffer(values, np.uint8)
    pieces = []
    for s in range(0, len(offsets) - 1, _OFFSETS_CHUNK):
        part = offsets[s:s + _OFFSETS_CHUNK + 1].astype(np.int64)
        pieces.append(np.insert(chars[part[0]:part[-1]], part[1:-1] - part[0], ord("\n")).tobytes())
    return b"\n".join(pieces)


def _found_in(data: bytes, index: LabelIndex, depth: int = 0, left: list[int] | None = None) -> set[tuple[int, int]]:
    """The label values in ``data`` and the archives nested in it (and the strings of a Parquet
    file's columns, one level down), within ``left`` (:func:`_members`). An archive found
    :data:`MAX_DEPTH` levels down is refused: its members were skipped, and the labels gzipped four
    times passed (twenty-third pass of 2026-12-02)."""
    left = [MAX_SCAN_BYTES] if left is None else left
    found = _printed_labels(data, index) | _printed_labels(_pickled_arrow_strings(data), index)
    numbers, texts = _structured(data, left)
    for arr in _raw_floats(data) + numbers:
        found |= index.exact(arr)
    if depth >= MAX_DEPTH and (_archive_kinds(data) or (texts and depth > MAX_DEPTH)):
        raise Unscannable(f"archives nested deeper than {MAX_DEPTH} levels, which the scan opens: unpack the "
                          "outer ones")
    for member in texts:  # a Parquet file's strings, one level down (scanned, not opened, past MAX_DEPTH)
        found |= _found_in(member, index, depth + 1, left)
    if depth < MAX_DEPTH:
        for _, member in _members(data, left):
            found |= _found_in(member, index, depth + 1, left)
    return found


# Indexes by the label arrays they hold (names and values): building one, and its per-digit
# roundings, formats every label value in Python (seconds for the artifacts' arrays), and the
# same arrays come back for every submission a process scores (the checker, the tests).
_INDEXES: dict[str, LabelIndex] = {}
_INDEX_LIMIT = 8


def label_index(arrays: list[LabelArray]) -> LabelIndex:
    """The index of ``arrays`` and their decoys (arrays ``len(arrays)`` onward), built once per
    process for the same arrays."""
    import hashlib

    digest = hashlib.sha256()
    for a in arrays:
        digest.update(a.name.encode() + b"\0" + np.ascontiguousarray(a.values, dtype=np.float64).tobytes() + b"\0")
    key = digest.hexdigest()
    if key not in _INDEXES:
        if len(_INDEXES) >= _INDEX_LIMIT:
            _INDEXES.clear()
        decoys = [LabelArray(f"decoy of {a.name}", np.asarray(a.values, dtype=np.float64) * DECOY_FACTOR)
                  for a in arrays]
        _INDEXES[key] = LabelIndex(list(arrays) + decoys)
    return _INDEXES[key]


def _names_found(root: Path, index: LabelIndex) -> set[tuple[int, int]]:
    """The label values printed in the names of the files and folders under ``root``, read as one
    text: 300 empty files named ``<i>_<label>`` passed, and the predictor lists its own folder
    (twenty-seventh pass of 2026-12-03). An archive's member names are in its bytes, read already."""
    names = "\n".join(str(p.relative_to(root)) for p in Path(root).rglob("*"))
    # read as a text file is (:func:`_printed_labels`): names of the labels with an underscore between
    # their digits or in digits of another script passed (hundred-and-twenty-fifth pass, side a)
    return _printed_labels(names.encode("utf-8", "surrogateescape"), index)


def scan_submission(root: Path, arrays: list[LabelArray]) -> list[str]:
    """One problem line when the files under ``root`` carry label data, naming the files."""
    arrays = list(arrays)
    index = label_index(arrays)
    per_file: dict[str, set[tuple[int, int]]] = {}
    problems, named = [], set()
    total = MAX_SUBMISSION_SCAN_BYTES  # a gzip of 512 MB of printed numbers took minutes: hundreds of them, hours
    counts = [MAX_SUBMISSION_MEMBERS, MAX_TABLES]
    if found := _names_found(root, index):
        per_file["(the names of its files and folders)"] = found
    for path in sorted(p for p in Path(root).rglob("*") if not p.is_dir()):
        rel = str(path.relative_to(root))
        try:
            data = read_regular(path, MAX_SCAN_BYTES)
        except _NotARegularFile as exc:
            problems.append(f"{rel}: {exc}: a submission holds regular files only, each under "
                            f"{MAX_SCAN_BYTES // 2**20} MB")
            continue
        total -= len(data)
        left = [max(0, min(MAX_SCAN_BYTES, total))] + counts  # counts: members and tables left, all files
        start = left[0]
        try:
            _count(left, 1, f"more than {MAX_SUBMISSION_MEMBERS} files and archive members")
            if total < 0:
                raise Unscannable(f"the submission's files hold more than the scan reads ({_LIMITS_TEXT})")
            with np.errstate(all="ignore"):  # raw bytes read as floats hold NaNs and overflows
                found = _found_in(data, index, left=left)
        except Unscannable as exc:
            problems.append(f"{rel}: {exc}: a submission's files are scanned for label data, and what cannot be "
                            "scanned is refused")
            break
        except MemoryError:
            problems.append(f"{rel}: too large to scan in this machine's memory once decompressed ({_LIMITS_TEXT})")
            break
        total -= start - left[0]
        counts = left[1:]
        if found:
            per_file[rel] = found
    for k, arr in enumerate(index.arrays[:len(arrays)]):
        hits = {j for found in per_file.values() for (a, j) in found if a == k}
        chance = {j for found in per_file.values() for (a, j) in found if a == k + len(arrays)}
        needed = max(min(MIN_MATCHES, len(arr.values)), math.ceil(MIN_FRACTION * len(arr.values)))
        if arr.values.size and len(hits) - len(chance) >= needed:
            files = sorted(per_file, key=lambda f: -sum(1 for a, _ in per_file[f] if a == k))
            files = [f for f in files if any(a == k for a, _ in per_file[f])]
            if named.issuperset(files):  # one line per file: the labels' means are labels where measured once
                continue
            named.update(files)
            problems.append(f"{', '.join(files[:3])}{' …' if len(files) > 3 else ''}: holds {len(hits)} of the "
                            f"{len(arr.values)} distinct values of {arr.name} (decoys of the same form: "
                            f"{len(chance)}): a submission may not carry label "
                            "data; remove it (the predictor gets its training data from the harness)")
    return problems


def artifact_label_arrays(folder: Path | None = None) -> list[LabelArray]:
    """The label arrays of the predict artifacts (``*.rows.npz``: ``labels``)."""
    folder = folder or Path(__file__).resolve().parents[1] / "predict" / "artifacts"
    out = []
    for path in sorted(folder.glob("*.rows.npz")):
        with np.load(path, allow_pickle=False) as rows:
            if "labels" in rows.files:
                out.append(LabelArray(f"the labels of predict artifact {path.name}", rows["labels"]))
    return out
