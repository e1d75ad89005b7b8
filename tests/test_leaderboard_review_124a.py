"""Hundred-and-twenty-fourth adversarial pass (2026-12-07), side a (the label scan): numbers written as text
in Python source are read by the scan at the digits written (RULES, *Label data*), but a Python literal may
put an underscore between any two digits, ``41.1_8_9_8_1_9`` being ``41.189819``, and ``float()`` reads such
a string alike. The scan's number pattern stops at ``_``, so it read single digits: a predictor whose
``table.py`` held the 31 public test labels of the tiny dippm cpu latency board as such literals
(``TABLE = {'timm:densenet121[[2, 3, 128, 128]]': 1_2_4.6_4_6_1_6_7, ...}``) passed ``perfgraphs check``
("OK: underscored-lookup passes every check", MAPE 0, Acc(10 %) 100, Kendall's tau 1), and scores 0.0 % MAPE
in the sandbox with the fix switched off (the control below); the scan of 300 labels so written found 0 of
300. RULES lists a decimal comma among what still passes, not this. Now the
text is read again with every underscore between two digits taken out (``label_scan._printed_labels``)."""

from __future__ import annotations

import re
import textwrap
from pathlib import Path

import numpy as np
import pytest

from perfgraphs.cli import main
from perfgraphs.leaderboard import label_scan
from perfgraphs.leaderboard.label_scan import LabelArray, scan_submission

import test_submit

BOARD = test_submit.BOARD
env = test_submit.env  # fixtures
parts = test_submit.parts

PREDICTOR = """
    import numpy as np

    from table import TABLE

    class Predictor:
        def __init__(self, target, seed=0, quick=False):
            pass

        def fit(self, train, val):
            self.fallback = float(np.median(train["latency_ms"]))
            return self

        def predict(self, graphs):
            keys = [f"{n}{d}" for n, d in zip(graphs["name"], graphs["input_dims"])]
            return np.array([TABLE.get(k, self.fallback) for k in keys])
"""


def _separated(value: float) -> str:
    """``value`` as a Python literal with an underscore between every two digits of its fraction and after
    its first digit: the same float, no run of two digits."""
    whole, fraction = repr(float(value)).split(".")
    whole = "_".join(whole) if whole.isdigit() else whole
    return f"{whole}.{'_'.join(fraction)}"


def _lookup(folder: Path, parts) -> Path:
    import yaml

    folder.mkdir(parents=True)
    (folder / "predictor.py").write_text(textwrap.dedent(PREDICTOR))
    keys = [f"{n}{d}" for n, d in zip(parts.test["name"], parts.test["input_dims"])]
    labels = np.asarray(parts.test["latency_ms"], dtype=float)
    rows = "".join(f"    {k!r}: {_separated(v)},\n" for k, v in zip(keys, labels))
    (folder / "table.py").write_text("TABLE = {\n" + rows + "}\n")
    meta = {"method": "underscored-lookup", "authors": "Xavier Lookup", "contact": "x@example.org",
            "code": {"url": "https://example.org/c", "commit": "cd" * 20}, "paper": None, "external_data": False,
            "division": "closed", "hyperparameters": {"grid": {}, "chosen": {}}, "entry_point": "predictor:Predictor"}
    (folder / "submission.yaml").write_text(yaml.safe_dump(meta))
    return folder


def _fix_off(monkeypatch) -> None:
    monkeypatch.setattr(label_scan, "_DIGIT_SEPARATOR", re.compile(rb"(?!)"))


def test_python_literals_with_digit_separators_are_read_as_the_labels(tmp_path):
    labels = np.round(np.random.default_rng(1).uniform(0.5, 80, 300), 6)
    folder = tmp_path / "sub"
    folder.mkdir()
    (folder / "table.py").write_text("TABLE = [" + ", ".join(map(_separated, labels)) + "]\n")
    namespace: dict = {}
    exec((folder / "table.py").read_text(), namespace)
    assert np.array_equal(namespace["TABLE"], labels)  # what Python loads: the labels, exactly
    problems = scan_submission(folder, [LabelArray("test labels", labels)])
    assert len(problems) == 1 and "table.py: holds 300 of the 300" in problems[0], problems
    # honest source with separators (large integers, a seed) still passes
    (folder / "table.py").write_text("SEED = 1_234_567\nSTEPS = 10_000\nLR = 3.0e-4\n")
    assert scan_submission(folder, [LabelArray("test labels", labels)]) == []


def test_control_without_the_fix_the_scan_finds_none(tmp_path, monkeypatch):
    _fix_off(monkeypatch)
    labels = np.round(np.random.default_rng(1).uniform(0.5, 80, 300), 6)
    folder = tmp_path / "sub"
    folder.mkdir()
    (folder / "table.py").write_text("TABLE = [" + ", ".join(map(_separated, labels)) + "]\n")
    assert scan_submission(folder, [LabelArray("test labels", labels)]) == []


def test_check_refuses_the_underscored_table(env, parts, capsys):
    folder = _lookup(env["tmp"] / "sub", parts)
    rc = main(["check", str(folder), *BOARD, "--results", str(env["results"])])
    err = [line for line in capsys.readouterr().err.splitlines() if line.strip()]
    assert rc == 1 and len(err) == 1, err
    assert "table.py" in err[0] and "may not carry label data" in err[0]


@pytest.mark.skipif(not Path("/usr/bin/bwrap").exists(), reason="the sandbox needs bubblewrap")
def test_control_the_table_passes_check_and_scores_zero_without_the_fix(env, parts, capsys, monkeypatch):
    from perfgraphs.leaderboard.submit import SubmitOptions, evaluate_submission

    _fix_off(monkeypatch)
    folder = _lookup(env["tmp"] / "sub", parts)
    verdict = evaluate_submission(folder, SubmitOptions(dataset="dippm", config="cpu-torch-fp32", target="latency_ms",
                                                        results_root=env["results"], home=env["home"], seeds=(0,)))
    assert verdict.problems == [] and verdict.entry is not None, verdict.problems
    assert max(s["mape_pct"] for s in verdict.entry.per_seed) < 1e-9  # the attack: a perfect score
