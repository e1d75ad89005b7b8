"""Refuse a submission that carries label data: the board's test labels, or the label arrays of the
predict artifacts (``perfgraphs/predict/artifacts/*.rows.npz``), bundled as a lookup table.

The public test labels are committed in the repository, so a predictor that ships them scores 0 %
however well it is isolated. This scan reads every regular file of the submission folder (and the
members of zip, tar and gzip/bz2/xz archives, .npz and .pt included) as it is stored, never
importing or unpickling anything, and collects the label values it finds:

* numbers written as text (csv, json, txt, Python source…) with at least 4 significant digits,
  matched at the digits written (a label printed to 4 digits is found; a weight of 8 digits only
  if it *is* that label);
* arrays of a structured format (npy/npz, Parquet) and the raw bytes of any other file (pickle,
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
import gzip
import io
import lzma
import math
import re
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
        keys, owners = [], []
        for k, arr in enumerate(arrays):
            values = np.unique(np.asarray(arr.values, dtype=np.float64))
            values = values[np.isfinite(values) & (values != 0)]
            arrays[k] = LabelArray(arr.name, values)
            for j, v in enumerate(values):
                forms = {float(v)} | {float(f"{v:.{d}g}") for d in (4, 5, 6)}
                forms |= {float(np.float32(f)) for f in forms}
                keys += forms
                owners += [(k, j)] * len(forms)
        order = np.argsort(keys, kind="stable")
        self.keys = np.asarray(keys, dtype=np.float64)[order]
        self.owners = [owners[i] for i in order]
        self._by_digits: dict[int, dict[float, set[tuple[int, int]]]] = {}

    def exact(self, values: np.ndarray) -> set[tuple[int, int]]:
        """(array, label) pairs whose value or rounding appears exactly among ``values``."""
        values = np.asarray(values, dtype=np.float64).ravel()
        values = values[np.isfinite(values)]
        if not len(values) or not len(self.keys):
            return set()
        hit = np.isin(self.keys, values)
        return {self.owners[i] for i in np.flatnonzero(hit)}

    def printed(self, numbers: list[bytes]) -> set[tuple[int, int]]:
        """Labels written as text: a number of d ≥ 4 significant digits matches a label that rounds to it."""
        found = set()
        by_digits: dict[int, set[float]] = {}
        for token in numbers:
            digits = len(re.sub(rb"^0+", b"", re.split(rb"[eE]", token)[0].lstrip(b"+-").replace(b".", b"")))
            if digits >= 4:
                try:
                    by_digits.setdefault(min(digits, 17), set()).add(float(token))
                except ValueError:
                    continue
        for digits, written in by_digits.items():
            rounded = self._rounded(digits)
            for value in written & rounded.keys():
                found |= rounded[value]
        return found

    def _rounded(self, digits: int) -> dict[float, set[tuple[int, int]]]:
        if digits not in self._by_digits:
            table: dict[float, set[tuple[int, int]]] = {}
            for k, arr in enumerate(self.arrays):
                for j, v in enumerate(arr.values):
                    table.setdefault(float(f"{v:.{digits}g}"), set()).add((k, j))
            self._by_digits[digits] = table
        return self._by_digits[digits]


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
    Parquet file over it once read, an encrypted member): refused, never passed unread (twenty-first
    pass of 2026-12-02: a zip of 512 MB of zeros, then the labels, passed, its second member unread)."""


def _structured(data: bytes, left: list[int]) -> list[np.ndarray]:
    """Numeric arrays of a Parquet file (its pages are compressed, so raw bytes would miss them),
    its size once read (rows × columns × 8 bytes) taken off ``left`` first."""
    if not data.startswith(b"PAR1"):
        return []
    import pyarrow.parquet as pq

    try:
        meta = pq.ParquetFile(io.BytesIO(data)).metadata
    except Exception:  # not a readable Parquet file: scanned as raw bytes only
        return []
    size = meta.num_rows * max(1, meta.num_columns) * 8
    if size > left[0]:
        raise Unscannable(f"a Parquet table of {meta.num_rows} rows × {meta.num_columns} columns, over what the "
                          f"scan reads ({_LIMITS_TEXT})")
    left[0] -= size
    try:
        table = pq.read_table(io.BytesIO(data))
    except Exception:
        return []
    out = []
    for column in table.columns:
        try:
            out.append(np.asarray(column.to_numpy(zero_copy_only=False), dtype=np.float64))
        except (TypeError, ValueError, Exception):
            continue
    return out


_ZIP_METHODS = (zipfile.ZIP_STORED, zipfile.ZIP_DEFLATED, zipfile.ZIP_BZIP2, zipfile.ZIP_LZMA)


def _read_capped(stream, left: list[int], what: str) -> bytes:
    """At most ``left[0]`` bytes of a decompressing stream, taken off ``left``; more is refused."""
    member = stream.read(left[0] + 1)
    if len(member) > left[0]:
        raise Unscannable(f"{what} holds more than the scan reads ({_LIMITS_TEXT})")
    left[0] -= len(member)
    return member


def _members(data: bytes, left: list[int]):
    """The decompressed members of an archive, one at a time (none when ``data`` is not one),
    within ``left[0]`` bytes, what is left of the budget (each member read is taken off); more, or
    an encrypted member, is :class:`Unscannable`. Decompressed as streams, cut while decompressed:
    a 12 KB gzip of a gzip of 5 GB of zeros was decompressed whole (MemoryError: twentieth pass);
    every stream of a multi-stream gzip, bzip2 or xz file is read (twenty-first pass)."""
    try:
        if zipfile.is_zipfile(io.BytesIO(data)):
            with zipfile.ZipFile(io.BytesIO(data)) as z:
                for info in z.infolist():
                    if info.is_dir():
                        continue
                    if info.flag_bits & 0x1:
                        raise Unscannable(f"zip member {info.filename!r} is encrypted: the scan cannot read it")
                    if info.compress_type not in _ZIP_METHODS:
                        raise Unscannable(f"zip member {info.filename!r} is compressed with method "
                                          f"{info.compress_type}, which the scan cannot read")
                    with z.open(info) as f:
                        yield info.filename, _read_capped(f, left, f"zip member {info.filename!r}")
        elif data[:3] == b"\x1f\x8b\x08":
            yield "(gzip)", _read_capped(gzip.GzipFile(fileobj=io.BytesIO(data)), left, "the gzip stream")
        elif data[:3] == b"BZh":
            yield "(bzip2)", _read_capped(bz2.BZ2File(io.BytesIO(data)), left, "the bzip2 stream")
        elif data[:6] == b"\xfd7zXZ\x00":
            yield "(xz)", _read_capped(lzma.LZMAFile(io.BytesIO(data)), left, "the xz stream")
        elif len(data) > 262 and data[257:262] == b"ustar":
            with tarfile.open(fileobj=io.BytesIO(data)) as t:
                for m in t.getmembers():
                    if m.isfile():
                        yield m.name, _read_capped(t.extractfile(m), left, f"tar member {m.name!r}")
    except (zipfile.BadZipFile, tarfile.TarError, OSError, EOFError, lzma.LZMAError, zlib.error, ValueError,
            NotImplementedError, RuntimeError) as exc:
        # an archive the scan cannot read to its end (trailing bytes after a gzip stream, a member
        # of an unsupported method) passed with what came after unread (twenty-second pass)
        raise Unscannable(f"an archive the scan cannot read ({type(exc).__name__}: {' '.join(str(exc).split())[:120]})") from None


def _found_in(data: bytes, index: LabelIndex, depth: int = 0, left: list[int] | None = None) -> set[tuple[int, int]]:
    """The label values in ``data`` and the archives nested in it, within ``left`` (:func:`_members`)."""
    left = [MAX_SCAN_BYTES] if left is None else left
    found = index.printed(_NUMBER.findall(data)) if b"\x00" not in data[:65536] else set()
    for arr in _raw_floats(data) + _structured(data, left):
        found |= index.exact(arr)
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


def scan_submission(root: Path, arrays: list[LabelArray]) -> list[str]:
    """One problem line when the files under ``root`` carry label data, naming the files."""
    arrays = list(arrays)
    index = label_index(arrays)
    per_file: dict[str, set[tuple[int, int]]] = {}
    problems, named = [], set()
    total = MAX_SUBMISSION_SCAN_BYTES  # a gzip of 512 MB of printed numbers took minutes: hundreds of them, hours
    for path in sorted(p for p in Path(root).rglob("*") if not p.is_dir()):
        rel = str(path.relative_to(root))
        try:
            data = read_regular(path, MAX_SCAN_BYTES)
        except _NotARegularFile as exc:
            problems.append(f"{rel}: {exc}: a submission holds regular files only, each under "
                            f"{MAX_SCAN_BYTES // 2**20} MB")
            continue
        total -= len(data)
        left = [max(0, min(MAX_SCAN_BYTES, total))]
        start = left[0]
        try:
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
