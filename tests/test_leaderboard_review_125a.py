"""Hundred-and-twenty-fifth adversarial pass (2026-12-07), side a (the label scan): the 124th pass made the
scan read a number written with an underscore between two digits (``1_2_4.6_4_6_1_6_7``, as a Python literal
and ``float()`` read it) by taking every such underscore out of the file's bytes (``label_scan._printed_labels``).
A pickled numpy string array of the labels so written still passed: in a ``U`` array (UTF-32) a NUL stands
between every digit and its underscore, so none was taken out, and in an ``S`` array the items, counted at
their width *with* the separators, were cut at the wrong places once they were out (full-width items are
stored back to back). The scan of 300 labels found 0 of 300 in ``pickle.dumps(np.array([...]))``, ``U`` or
``S``, protocol 4 or 0, big-endian, through ``joblib.dump`` and ``torch.save``, and in UTF-16/32 text with a
byte-order mark; a predictor whose ``table.pkl`` held the 31 public test labels of the tiny dippm cpu
latency board as such a ``U`` array (``float(s)`` reads them back) passed ``check`` and scores 0.0 % MAPE in
the sandbox with the fix switched off (the control below). Now the runs of number characters *and*
underscores are cut at the file's string widths first and read without their separators after
(``label_scan._separated_items``), and a file is no longer cut into pieces at an underscore (a cut inside
such a run put every item after it off its width).

The next form found: ``float()`` (and ``int()``) read any Unicode decimal digit, ``float("１２４.６４６１６７")``
being 124.646167, and the scan read ASCII digits only. The 300 labels in fullwidth or Arabic-Indic digits
passed in every form tried (0 of 300 found): a ``table.py`` of strings, a JSON list, a pickled list, a pickled
``S`` or ``U`` array, an ``.npy`` ``U`` array, UTF-16 text; the dippm board's 31 labels so written in a pickled
list passed ``check`` and score 0.0 % MAPE with that fix switched off. Now a run of number characters holding
such a digit in UTF-8 is read with its digits in ASCII (``label_scan._unicode_items``), UTF-16/32 text and
pickled ``U`` arrays likewise at their width (``_wide_ascii_digits``), and an ``.npy`` ``U`` array's digits
too (``_npy_text``).

And one more: the scan reads a printed number with the ``-`` before it, so a label written after a dash
(``m7-41.189819``: a key, a CSV field, a file name) was read as its negative and matched nothing. The 300
labels so written in a ``.py``, a CSV or a pickled list, or as 300 file names, passed (0 of 300 found; so did
the names written with separators or fullwidth digits, read by ``_names_found`` with a pattern of its own),
and the dippm board's 31 labels in a pickled list of ``f"{i}-{label!r}"`` passed ``check`` and score 0.0 %
MAPE with the fix switched off. Now a negative printed number is also read without its sign
(``LabelIndex.printed``, ``label_scan._unsigned``), and the names are read as a text file is
(``_printed_labels``)."""

from __future__ import annotations

import io
import pickle
import re
import textwrap
from pathlib import Path

import numpy as np
import pytest

from perfgraphs.cli import main
from perfgraphs.leaderboard import label_scan
from perfgraphs.leaderboard.label_scan import LabelArray, scan_submission

import test_submit
from test_leaderboard_review_124a import _separated

BOARD = test_submit.BOARD
env = test_submit.env  # fixtures
parts = test_submit.parts

LABELS = np.round(np.random.default_rng(1).uniform(0.5, 80, 300), 6)

PREDICTOR = """
    import pickle

    import numpy as np

    class Predictor:
        def __init__(self, target, seed=0, quick=False):
            with open(__file__.rsplit("/", 1)[0] + "/table.pkl", "rb") as f:
                keys, values = pickle.load(f)
            self.table = {str(k): float(str(v).rsplit("-", 1)[-1]) for k, v in zip(keys, values)}

        def fit(self, train, val):
            self.fallback = float(np.median(train["latency_ms"]))
            return self

        def predict(self, graphs):
            keys = [f"{n}{d}" for n, d in zip(graphs["name"], graphs["input_dims"])]
            return np.array([self.table.get(k, self.fallback) for k in keys])
"""


def _fix_off(monkeypatch) -> None:
    monkeypatch.setattr(label_scan, "_separated_items", lambda runs, form: [])


def _sign_off(monkeypatch) -> None:
    monkeypatch.setattr(label_scan, "_unsigned", lambda value: (value,))


def _dash_forms(labels) -> dict[str, bytes]:
    strings = [f"m{i}-{float(v)!r}" for i, v in enumerate(labels)]
    assert [float(s.rsplit("-", 1)[1]) for s in strings] == list(labels)
    return {"dash.py": ("TABLE = [" + ", ".join(map(repr, strings)) + "]\n").encode(),
            "dash.csv": "".join(f"{s}\n" for s in strings).encode(), "dash.pkl": pickle.dumps(strings),
            "negative.py": ("TABLE = [" + ", ".join(f"-{float(v)!r}" for v in labels) + "]\n").encode()}


def _named(tmp_path, spelling: str) -> list[str]:
    """A folder of 300 empty files, each named after a label."""
    folder = tmp_path / f"names-{spelling}"
    folder.mkdir(parents=True)
    for i, v in enumerate(LABELS):
        written = {"dash": repr(float(v)), "separated": _separated(v),
                   "fullwidth": repr(float(v)).translate(FULLWIDTH)}[spelling]
        (folder / f"{i}-{written}").touch()
    return scan_submission(folder, [LabelArray("test labels", LABELS)])


def _unicode_off(monkeypatch) -> None:
    ascii_only = np.where(np.arange(0x110000) < 128, np.arange(0x110000), ord("?")).astype(np.uint8)
    monkeypatch.setattr(label_scan, "_unicode_items", lambda data, form: [])
    monkeypatch.setattr(label_scan, "_wide_ascii_digits", lambda data: [data])
    monkeypatch.setattr(label_scan, "_unicode_digits", lambda: (None, ascii_only, None))


FULLWIDTH = str.maketrans("0123456789", "０１２３４５６７８９")
ARABIC_INDIC = str.maketrans("0123456789", "٠١٢٣٤٥٦٧٨٩")
MATHEMATICAL = str.maketrans("0123456789", "".join(chr(0x1D7CE + d) for d in range(10)))  # past the first plane


def _unicode_forms(labels) -> dict[str, bytes]:
    """The labels in decimal digits of other scripts, in the forms ``float()`` reads back in a line."""
    import json

    out = {}
    for script, table in (("fullwidth", FULLWIDTH), ("arabic-indic", ARABIC_INDIC), ("mathematical", MATHEMATICAL)):
        strings = [repr(float(v)).translate(table) for v in labels]
        assert [float(s) for s in strings] == list(labels)
        out[f"{script}.py"] = ("TABLE = [" + ", ".join(map(repr, strings)) + "]\n").encode()
        out[f"{script}.json"] = json.dumps(strings, ensure_ascii=False).encode()
        out[f"{script}-list.pkl"] = pickle.dumps(strings)
        out[f"{script}-S.pkl"] = pickle.dumps(np.array([s.encode() for s in strings]))
        out[f"{script}-U.pkl"] = pickle.dumps(np.array(strings))
        out[f"{script}-U-big-endian.pkl"] = pickle.dumps(np.array(strings, dtype=">U"))
        buffer = io.BytesIO()
        np.save(buffer, np.array(strings))
        out[f"{script}-U.npy"] = buffer.getvalue()
        out[f"{script}-utf-32.txt"] = "\n".join(strings).encode("utf-32")
        if script != "mathematical":  # a surrogate pair in UTF-16: not read (RULES)
            out[f"{script}-utf-16.txt"] = "\n".join(strings).encode("utf-16")
            out[f"{script}-utf-16-be.txt"] = b"\xfe\xff" + "\n".join(strings).encode("utf-16-be")
    return out


def _forms(labels) -> dict[str, bytes]:
    """The labels, each written with an underscore between every two digits, as a pickled numpy string
    array in every container and as UTF-16/32 text."""
    import joblib
    import torch

    strings = [_separated(v) for v in labels]
    assert [float(s) for s in strings] == list(labels)  # what float() reads back: the labels, exactly
    out = {}
    for kind in ("U", "S"):
        array = np.array(strings, dtype=kind)
        out[f"{kind}.pkl"] = pickle.dumps(array)
        out[f"{kind}-protocol-0.pkl"] = pickle.dumps(array, protocol=0)
        out[f"{kind}-big-endian.pkl"] = pickle.dumps(array.astype(array.dtype.newbyteorder(">")))
        for name, dump in (("joblib", joblib.dump), ("pt", torch.save)):
            buffer = io.BytesIO()
            dump(array, buffer)
            out[f"{kind}.{name}"] = buffer.getvalue()
    out["utf-16.txt"] = "\n".join(strings).encode("utf-16")
    out["utf-32.txt"] = "\n".join(strings).encode("utf-32")
    return out


def _scanned(tmp_path, name: str, data: bytes) -> list[str]:
    folder = tmp_path / name
    folder.mkdir()
    (folder / name).write_bytes(data)
    return scan_submission(folder, [LabelArray("test labels", LABELS)])


def _each_refused(tmp_path, forms: dict[str, bytes]) -> None:
    """Each file of ``forms`` (name -> bytes), scanned alone, is refused for holding all 300 labels."""
    for name, data in forms.items():
        problems = _scanned(tmp_path, name, data)
        assert len(problems) == 1 and f"{name}: holds 300 of the 300" in problems[0], (name, problems)


def test_pickled_string_arrays_of_separated_labels_are_refused(tmp_path):
    _each_refused(tmp_path, _forms(LABELS))
    # honest: a pickled string array of names and separated integers (a seed, step counts) passes
    honest = np.array(["resnet_50", "1_000_000", "seed_1_234", "lr_3e-4", "10_000"])
    assert _scanned(tmp_path, "honest.pkl", pickle.dumps(honest)) == []


def test_control_without_the_fix_every_form_passes(tmp_path, monkeypatch):
    _fix_off(monkeypatch)
    for name, data in _forms(LABELS).items():
        assert _scanned(tmp_path, name, data) == [], name


def test_labels_in_decimal_digits_of_other_scripts_are_refused(tmp_path):
    _each_refused(tmp_path, _unicode_forms(LABELS))
    # honest text in other scripts, with numbers in it, passes
    honest = "模型 resnet50：学习率 ３e-4，批量 ６４，种子 ７。عدد الطبقات ٥٠\n".encode() * 50
    assert _scanned(tmp_path, "honest.txt", honest) == []
    assert _scanned(tmp_path, "honest-u16.txt", honest.decode().encode("utf-16")) == []


def test_control_without_the_unicode_fix_every_form_passes(tmp_path, monkeypatch):
    _unicode_off(monkeypatch)
    for name, data in _unicode_forms(LABELS).items():
        assert _scanned(tmp_path, name, data) == [], name


def test_labels_after_a_dash_are_refused(tmp_path):
    _each_refused(tmp_path, _dash_forms(LABELS))
    # honest negative numbers (weights printed as text, offsets) are as likely a label's as its decoy's
    weights = np.random.default_rng(2).normal(0, 30, 20_000)
    assert _scanned(tmp_path, "weights.py", ("W = [" + ", ".join(f"{w:.6f}" for w in weights) + "]\n").encode()) == []


def test_control_without_the_sign_fix_every_dash_form_passes(tmp_path, monkeypatch):
    _sign_off(monkeypatch)
    for name, data in _dash_forms(LABELS).items():
        assert _scanned(tmp_path, name, data) == [], name


def test_file_names_of_the_labels_are_refused(tmp_path, monkeypatch):
    for spelling in ("dash", "separated", "fullwidth"):
        problems = _named(tmp_path, spelling)
        assert len(problems) == 1 and "(the names of its files and folders): holds 300 of the 300" in problems[0]
    # control: the names read as before (signed numbers, ASCII digits, no separators), each passes
    monkeypatch.setattr(label_scan, "_names_found", lambda root, index: index.printed(label_scan._NUMBER.findall(
        "\n".join(str(p.relative_to(root)) for p in Path(root).rglob("*")).encode())))
    _sign_off(monkeypatch)
    for spelling in ("dash", "separated", "fullwidth"):
        assert _named(tmp_path / "before", spelling) == [], spelling


def test_a_cut_into_pieces_does_not_put_the_items_off_their_width(monkeypatch):
    """The file is read in pieces (``_text_chunks``); a piece ended before an underscore, inside a run of
    full-width items, and the items after the cut were cut at the wrong places."""
    index = label_scan.label_index([LabelArray("test labels", LABELS)])
    strings = [_separated(v) for v in LABELS]
    width = max(map(len, strings))
    data = pickle.dumps(np.array([s + "_0" * ((width - len(s)) // 2) for s in strings]))  # all full width
    monkeypatch.setattr(label_scan, "_TEXT_CHUNK", 200)
    found = {j for k, j in label_scan._printed_labels(data, index) if k == 0}
    assert len(found) == 300
    # control: cut at underscores as before, most labels after the first piece go unseen
    monkeypatch.setattr(label_scan, "_WIDE_BOUNDARY", re.compile(rb"[^-+.\deE\x00]|\x00{4,}"))
    assert len({j for k, j in label_scan._printed_labels(data, index) if k == 0}) < 150


def _lookup(folder: Path, parts, spelling: str) -> Path:
    import yaml

    folder.mkdir(parents=True)
    (folder / "predictor.py").write_text(textwrap.dedent(PREDICTOR))
    keys = np.array([f"{n}{d}" for n, d in zip(parts.test["name"], parts.test["input_dims"])])
    labels = np.asarray(parts.test["latency_ms"], dtype=float)
    values = {"separated": lambda: np.array([_separated(v) for v in labels]),
              "fullwidth": lambda: [repr(float(v)).translate(FULLWIDTH) for v in labels],
              "dash": lambda: [f"{i}-{float(v)!r}" for i, v in enumerate(labels)]}[spelling]()
    (folder / "table.pkl").write_bytes(pickle.dumps((keys, values)))
    meta = {"method": "unicode-array-lookup", "authors": "Xavier Lookup", "contact": "x@example.org",
            "code": {"url": "https://example.org/c", "commit": "cd" * 20}, "paper": None, "external_data": False,
            "division": "closed", "hyperparameters": {"grid": {}, "chosen": {}}, "entry_point": "predictor:Predictor"}
    (folder / "submission.yaml").write_text(yaml.safe_dump(meta))
    return folder


@pytest.mark.parametrize("spelling", ["separated", "fullwidth", "dash"])
def test_check_refuses_the_pickled_table(env, parts, capsys, spelling):
    folder = _lookup(env["tmp"] / "sub", parts, spelling)
    rc = main(["check", str(folder), *BOARD, "--results", str(env["results"])])
    err = [line for line in capsys.readouterr().err.splitlines() if line.strip()]
    assert rc == 1 and len(err) == 1, err
    assert "table.pkl" in err[0] and "may not carry label data" in err[0]


@pytest.mark.skipif(not Path("/usr/bin/bwrap").exists(), reason="the sandbox needs bubblewrap")
@pytest.mark.parametrize("spelling", ["separated", "fullwidth", "dash"])
def test_control_the_table_passes_check_and_scores_zero_without_the_fix(env, parts, capsys, monkeypatch, spelling):
    from perfgraphs.leaderboard.submit import SubmitOptions, evaluate_submission

    {"separated": _fix_off, "fullwidth": _unicode_off, "dash": _sign_off}[spelling](monkeypatch)
    folder = _lookup(env["tmp"] / "sub", parts, spelling)
    assert main(["check", str(folder), *BOARD, "--results", str(env["results"])]) == 0, capsys.readouterr().err
    verdict = evaluate_submission(folder, SubmitOptions(dataset="dippm", config="cpu-torch-fp32", target="latency_ms",
                                                        results_root=env["results"], home=env["home"], seeds=(0,)))
    assert verdict.problems == [] and verdict.entry is not None, verdict.problems
    assert max(s["mape_pct"] for s in verdict.entry.per_seed) < 1e-9  # the attack: a perfect score
