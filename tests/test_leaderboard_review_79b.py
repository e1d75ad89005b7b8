"""Seventy-ninth adversarial pass (2026-12-06), submit side: a hidden round scored code written after
its set was drawn. ``submit --hidden-labels`` without ``--frozen`` fits in the harness and checked
nothing of when the folder was written (the frozen route checks its manifest predates the commitment,
``frozen_fits.frozen_before``), while RULES promised "a round scores frozen submissions once", the
reason its records may publish per-seed MAPE at full precision. A team's probe, scored as any entry,
predicted 1e6 ms for every row and, in seed s >= 1, twice that for the rows whose own features hash to
bucket s - 1 of 18: the published RMSEs give a bucket's size, and where it holds one row the MAPE of
seed s less seed 0's is 100 * 1e6 / (n * y), its label y exactly (three of the tiny set's 31). A second folder, written after
that record, the example ridge with those three labels in it, scored a keeper-signed *verified* record
better than its ridge earns. Now a hidden run fitted in the harness scores only a folder committed in
the commitment's repository, unchanged since before the set's hash was published
(``frozen_fits.code_before``, ``submit._fitted_code_problems``)."""

from __future__ import annotations

import hashlib
import json
import os
import shutil

import numpy as np
import pytest

from perfgraphs.data.load import static_features
from perfgraphs.leaderboard import frozen_fits
from test_leaderboard_review_67b import _predict, _refit
from test_submit import (BOARD, commit_tiny_hidden_set, env, example_copy, numpy_mape, parts,  # noqa: F401 — fixtures
                         run_cli)

pytestmark = pytest.mark.skipif(os.geteuid() != 0 or shutil.which("bwrap") is None,
                                reason="a hidden board's runs drop the page cache and run in the sandbox")

BIG = 1e6
HOOK = "        return np.exp(Z @ self.coef_ + self.intercept_)\n"
M = 18  # buckets of a row's own features' hash; seed s >= 1 doubles bucket s - 1
KEY = ("        import hashlib as _h\n"
       "        _k = np.array([int.from_bytes(_h.sha256(r.tobytes()).digest()[:8], 'big') % 18\n"
       "                       for r in self._features(graphs)])\n")
PROBE = KEY + ("        _p = np.full(len(_k), 1e6)\n"
               "        _p[_k == self.seed_ - 1] = 2e6\n"
               "        return _p\n")


def hooked(reader: str):
    """A submission edit putting ``reader`` (predictor source) where the example ridge's :data:`HOOK` is."""
    def edit(source: str) -> str:
        assert HOOK in source
        return source.replace(HOOK, reader)
    return edit


def _with_seed(source: str) -> str:
    return source.replace("        self.target = target\n", "        self.target = target\n        self.seed_ = seed\n")


def _probe(source: str) -> str:
    assert HOOK in source
    return _with_seed(source).replace(HOOK, PROBE)


def _holding(labels: dict[int, float]):
    def edit(source: str) -> str:
        assert HOOK in source
        body = KEY + ("        _p = np.exp(Z @ self.coef_ + self.intercept_)\n"
                f"        for _i, _y in {labels!r}.items():\n"
                "            _p[_k == _i] = _y\n"
                "        return _p\n")
        return source.replace(HOOK, body)
    return edit


def _submit(folder, env, capsys):
    return run_cli(["submit", str(folder), *BOARD, "--quick", "--hidden-labels", "--results", str(env["results"]),
                    "--no-mlflow"], capsys)


def _record(env, method: str) -> dict:
    lines = (env["results"] / "dippm.jsonl").read_text().splitlines()
    return next(r for r in map(json.loads, lines) if r["method"].startswith(method))


def test_code_written_after_the_draw_is_not_scored_on_the_hidden_set(env, parts, capsys, git_commitments,
                                                                       monkeypatch):
    """Attack: the probe, committed before the draw, is scored (a control: committed code predating
    the set still scores); its per-seed RMSEs and MAPEs solve three labels; the folder holding them, written
    after, is refused in one line. Control: with the check off it scores a verified record better
    than the ridge it is."""
    commitments, commit = git_commitments
    probe = example_copy(commitments.parent.parent / "submissions" / "probe", "probe-79b", _probe)
    commit("a team's probe, before the draw")
    commit_tiny_hidden_set(env["tmp"] / "keeper", parts, git_commitments, capsys, monkeypatch)
    rc, err = _submit(probe, env, capsys)
    assert rc == 0, err
    y, solved = solved_by_the_probe(env, "probe-79b", parts)
    keys = row_buckets(parts)[1]
    assert len(solved) == 3 and all((keys == b).sum() == 1 for b in solved)
    assert [solved[b] for b in solved] == pytest.approx([float(y[keys == b][0]) for b in solved], rel=1e-6)
    # bytecode an import outside the sandbox left in the folder (ignored by git, left out of the copy the
    # sandbox runs) keeps committed code committed; a source file beside it does not
    from perfgraphs.leaderboard.records.hidden import commitment_path

    drawn = (commitment_path("dippm", "cpu-torch-fp32").absolute(), _record(env, "probe-79b")["hidden_labels_sha256"])
    (probe / "__pycache__").mkdir()
    (probe / "__pycache__" / "predictor.cpython-311.pyc").write_bytes(b"\0" * 16)
    assert frozen_fits.code_before(probe, *drawn) is None
    (probe / "helper.py").write_text("X = 1\n")
    assert "not committed to git as it is now" in frozen_fits.code_before(probe, *drawn)
    shutil.rmtree(probe / "__pycache__")
    (probe / "helper.py").unlink()

    after = example_copy(commitments.parent.parent / "submissions" / "after", "after-79b", _holding(solved))
    commit("written after the probe's record")
    rc, err = _submit(after, env, capsys)
    assert rc == 1 and len(err) == 1 and "before its set was drawn" in err[0], err
    assert "after-79b" not in (env["results"] / "dippm.jsonl").read_text()

    monkeypatch.setattr(frozen_fits, "code_before", lambda *a: None)  # the check off: the attack scores
    rc, err = _submit(after, env, capsys)
    assert rc == 0, err
    record = _record(env, "after-79b")
    assert_verified_holding(record, _predict(_refit(parts.train), parts.test), keys, y, dict.fromkeys(solved), 1e-6)


def assert_verified_holding(record: dict, honest: np.ndarray, keys: np.ndarray, y: np.ndarray, held: dict,
                            rel: float) -> None:
    """A control's record: keeper-signed *verified*, every seed scoring the honest predictions with the
    rows of each bucket in ``held`` set to what the attack carried (bucket -> a float32 value, or None:
    the labels themselves), more than a point better than the honest predictions."""
    scored = honest.copy()
    for b, value in held.items():
        scored[keys == b] = y[keys == b] if value is None else np.float32(value)
    assert record["tier"] == "verified" and record["keeper_signature"]
    for s in record["per_seed"]:
        assert s["mape_pct"] == pytest.approx(numpy_mape(y, scored), rel=rel)
        assert s["mape_pct"] < numpy_mape(y, honest) - 1.0, (s["mape_pct"], numpy_mape(y, honest))


def row_buckets(parts) -> tuple[np.ndarray, np.ndarray]:
    """(the tiny test part's labels, each row's bucket: its own features' hash modulo M, as KEY reads it
    in the sandbox)."""
    y = np.asarray(parts.test.data.table.column("latency_ms").to_pylist(), dtype=np.float64)
    keys = np.array([int.from_bytes(hashlib.sha256(r.tobytes()).digest()[:8], "big") % M
                     for r in static_features(parts.test).astype(np.float64)])
    return y, keys


def one_row_labels(parts, buckets: int) -> tuple[np.ndarray, np.ndarray, dict[int, float]]:
    """(labels, buckets, {bucket: its one label}) for the first ``buckets`` buckets holding one row: the
    hidden labels this pass's probe solved, which later passes carried through other channels."""
    y, keys = row_buckets(parts)
    labels = {b: float(y[keys == b][0]) for b in range(buckets) if (keys == b).sum() == 1}
    assert len(labels) >= 2
    return y, keys, labels


def solved_by_the_probe(env, name: str, parts) -> tuple[np.ndarray, dict]:
    """(the test labels, {bucket: its one label}) read off the probe ``name``'s published record: a
    bucket's size from the RMSEs (each doubled row adds about 3 BIG^2 / n to RMSE^2), its label from the
    MAPEs where it holds one row."""
    seeds = sorted(_record(env, name)["per_seed"], key=lambda s: s["seed"])
    y = np.asarray(parts.test.data.table.column("latency_ms").to_pylist(), dtype=np.float64)
    n = len(y)
    size = {s - 1: round(n * (seeds[s]["rmse"] ** 2 - seeds[0]["rmse"] ** 2) / (3 * BIG ** 2)) for s in range(1, 5)}
    return y, {b: 100 * BIG / (n * (seeds[b + 1]["mape_pct"] - seeds[0]["mape_pct"])) for b in size if size[b] == 1}
