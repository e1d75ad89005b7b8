"""Twenty-ninth adversarial pass (2026-12-03), submit side: the label scan's reading of pickled
string arrays (numpy string dtypes of any width, pyarrow string arrays and pandas 3 ``str``
columns). Each test is one attack that passed ``perfgraphs check``/``submit`` before its fix,
with a control."""

from __future__ import annotations

import pickle

import numpy as np
import pytest

from perfgraphs.leaderboard import label_scan
# the same labels, honest numbers and scan as the twenty-eighth pass's tests
from test_leaderboard_review_28b import LABELS, OTHER, REFUSED, _scan


def _wide_table(values: np.ndarray) -> np.ndarray:
    """A lookup table of the labels as strings, one config name of 100 characters among them: U100."""
    return np.array([repr(float(v)) for v in values] + ["dippm/cpu-torch-fp32/" + "x" * 79])


WIDE = {
    "U100-protocol4.pkl": lambda v: pickle.dumps(_wide_table(v), protocol=4),
    "U100-protocol2.pkl": lambda v: pickle.dumps(_wide_table(v), protocol=2),
    "U100-protocol0.pkl": lambda v: pickle.dumps(_wide_table(v), protocol=0),
}


@pytest.mark.parametrize("name", sorted(WIDE))
def test_a_pickled_string_array_of_any_width_is_read_as_wide(tmp_path, monkeypatch, name):
    """Attack: ``pickle.dumps(np.array([repr(v) for v in labels] + [one 100-character name]))``, a
    U array of width 100 (any protocol; joblib alike). Before: passed (0 of 300 found): the pickled
    dtype was matched for widths 1-99 only (``U100`` was not), so the file was not known to hold a
    U array and its UTF-32 was never read without its NULs. Now any width marks it (the runs are
    still cut at widths 4-99 only). Controls: the same pickle of other numbers passes; with the old
    dtype pattern the labels pass."""
    assert _scan(tmp_path / "honest", name, WIDE[name](OTHER)) == []
    problems = _scan(tmp_path, name, WIDE[name](LABELS))
    assert len(problems) == 1 and REFUSED in problems[0], problems
    monkeypatch.setattr(label_scan, "_STRING_DTYPE", label_scan.re.compile(
        rb"(?:\x8c[\x02-\x04]|X[\x02-\x04]\x00\x00\x00)[<>|=]?([SU])([1-9]\d?)(?!\d)"))
    monkeypatch.setattr(label_scan, "_STRING_DTYPE_V0", label_scan.re.compile(rb"\(V[<>|=]?([SU])([1-9]\d?)\n"))
    assert _scan(tmp_path / "old", name, WIDE[name](LABELS)) == []


def _frame(values: np.ndarray) -> object:
    pd = pytest.importorskip("pandas")
    return pd.DataFrame({"label": pd.Series([repr(float(v)) for v in values], dtype="string[pyarrow]")})


def _arrow(values: np.ndarray) -> object:
    pa = pytest.importorskip("pyarrow")
    return pa.array([repr(float(v)) for v in values])


ARROW = {
    "frame-protocol5.pkl": lambda v: pickle.dumps(_frame(v), protocol=5),
    "frame-protocol2.pkl": lambda v: pickle.dumps(_frame(v), protocol=2),
    "arrow-array.pkl": lambda v: pickle.dumps(_arrow(v)),
}


@pytest.mark.parametrize("name", sorted(ARROW))
def test_a_pickled_arrow_string_array_is_read_item_by_item(tmp_path, monkeypatch, name):
    """Attack: ``df.to_pickle`` of a DataFrame whose label column is strings (pandas 3's default
    ``str`` dtype is pyarrow's), or ``pickle.dumps(pa.array([repr(v) ...]))``. Before: passed (0 of
    300 found): an Arrow string array keeps its values back to back in one buffer, cut by an
    offsets buffer, so the labels read as one garbled number (``41.18981976.061864…``). Now the
    strings of a pickled Arrow array (``_restore_array``) are read one a line, each offsets buffer
    paired with the values buffer after it (:func:`label_scan._pickled_arrow_strings`). Controls:
    the same pickle of other numbers passes; without the pairing the labels pass."""
    assert _scan(tmp_path / "honest", name, ARROW[name](OTHER)) == []
    problems = _scan(tmp_path, name, ARROW[name](LABELS))
    assert len(problems) == 1 and REFUSED in problems[0], problems
    monkeypatch.setattr(label_scan, "_pickled_arrow_strings", lambda data: b"")
    assert _scan(tmp_path / "unpaired", name, ARROW[name](LABELS)) == []
