"""Hundred-and-nineteenth adversarial pass (2026-12-07), side b (rows under the reference authors). A line by
`perfgraphs reference baselines` was read when its method was a reference's and its ``code_commit`` a main-line
commit holding the reference's code; nothing tied it to a run of that code (no committed digest, no reproduce in
the suite; ``run_identity`` is the record's own word). A copy of the official ML.ENERGY energy-per-token
`static-xgboost` record (leave-models-out, 619 configurations, 65.28 % MAPE), re-dated 2026-12-06T23:00, every
per-configuration ratio set to 1.01 or 0.99 (alternately) and its MAPE (1.00 %), Acc (100 %), Kendall τ, RMSE and
(label, prediction) pairs rewritten to match, passed every read check, superseded the reference's record (newer
date) and `leaderboard show` ranked it 1, "1.00 [1.00, 1.00] best", `serving-prior-boost` (21.78 %) a rank down.
Now `append_entry` lists each reference record it writes in ``leaderboard/reference_records.sha256`` (its digest of
the record as read, ``results.run_digest``; 220 committed lines listed, `leaderboard show` byte-identical), and the
readers skip a reference-authored public line that manifest does not list, in one line
(``reference_runs.unlisted_run_problem``). The control switches the check off and the forged row ranks 1 again."""

from __future__ import annotations

import json

import numpy as np
from scipy.stats import kendalltau

from perfgraphs.leaderboard.records import reference_runs
from perfgraphs.leaderboard.records.results import _parse_record, forget_checked, read_line
from perfgraphs.paths import leaderboard_dir
from test_leaderboard_review_104c import _board_records, _ranks


def _ratios_near_one(record: dict) -> dict:
    """``record`` re-dated, each ratio 1.01 or 0.99 and every score and pair written to match them."""
    labels = np.asarray([t for t, _ in record["actual_vs_predicted"]], dtype=float)
    ratio = np.where(np.arange(len(labels)) % 2 == 0, 1.01, 0.99)
    pred = labels * ratio
    scores = {"pred_over_label": [float(x) for x in ratio], "mape_pct": 1.0, "acc_5_pct": 100.0, "acc_10_pct": 100.0,
              "acc_15_pct": 100.0, "kendall_tau": float(kendalltau(labels, pred)[0]),
              "rmse": float(np.sqrt(np.mean((labels - pred) ** 2)))}
    return {**record, "date_utc": "2026-12-06T23:00:00+00:00", "per_seed": [{**s, **scores} for s in record["per_seed"]],
            "actual_vs_predicted": [[float(t), float(f"{p:.4g}")] for t, p in zip(labels, pred)]}


def _leaderboard(folder):
    """A leaderboard folder holding the committed manifest of reference runs."""
    folder.mkdir(parents=True)
    (folder / reference_runs.MANIFEST_NAME).write_text((leaderboard_dir() / reference_runs.MANIFEST_NAME).read_text())
    return folder


def test_a_hand_written_reference_line_is_no_reference_run(tmp_path, capsys, monkeypatch):
    references = _board_records()
    forged = _ratios_near_one(next(r for r in references if r["method"] == "static-xgboost"))
    assert _parse_record(json.dumps(forged))[1] is None  # every field check passes it

    forget_checked()
    ranks = _ranks(_leaderboard(tmp_path / "attack"), [*references, forged], capsys, monkeypatch)
    assert ranks["serving-prior-boost"] == "1" and ranks["static-xgboost"] not in ("1", "–"), ranks  # the run's row
    _, why = read_line(json.dumps(forged), tmp_path / "attack" / "results" / "llm.jsonl")
    assert why and "no reference run wrote" in why, why

    monkeypatch.setattr(reference_runs, "unlisted_run_problem", lambda record, digest, folder: None)  # control
    forget_checked()
    ranks = _ranks(_leaderboard(tmp_path / "control"), [*references, forged], capsys, monkeypatch)
    assert ranks["static-xgboost"] == "1" and ranks["serving-prior-boost"] == "2", ranks


def test_the_harness_lists_each_reference_record_it_writes(tmp_path):
    """The writer's side: `append_entry` of a reference record lists its digest, and the line reads."""
    from perfgraphs.leaderboard.records.results import Entry, append_entry, read_entries

    record = {**next(r for r in _board_records() if r["method"] == "static-xgboost"), "date_utc": "2026-12-07T00:00:00+00:00"}
    folder = _leaderboard(tmp_path / "leaderboard")
    before = (folder / reference_runs.MANIFEST_NAME).read_text()
    append_entry(Entry(**record), root=folder / "results")
    added = (folder / reference_runs.MANIFEST_NAME).read_text()[len(before):]
    assert added.endswith("  static-xgboost\n") and added.count("\n") == 1 and added.split()[0] not in before, added
    forget_checked()
    skipped: list[str] = []
    assert [e.method for e in read_entries("llm", folder / "results", skipped)] == ["static-xgboost"], skipped
