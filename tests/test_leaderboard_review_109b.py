"""Hundred-and-ninth adversarial pass (2026-12-07), side b (what a record states at read). The readers
tie a seed's MAPE and Acc(δ) to its per-configuration ratios and the first seed's MAPE to its (label,
prediction) pairs, but a seed's Kendall's τ (and RMSE) to nothing: τ is shown on every board
(`leaderboard show`'s τ column, the site's Kendall τ column, which sorts its table) as the record
states it. Eve's hand-written copy of `serving-prior-boost`'s record on the official ML.ENERGY
energy-per-token board (619 configurations; ratios, pairs, MAPE, RMSE and Acc unchanged) stated every
seed's τ 0.990: every read-time check passed it and `leaderboard show` printed τ 0.990 for `eve-net`
beside 0.878 for the record it copies, which its predictions (ratios × labels) give. Now
``record_check.stated_scores_problem`` recomputes each seed's τ from its ratios × the first seed's
labels (the pairs where no ratios are kept), within their rounding (0.01 plus two pairs' worth for each
near-tied pair), and the record is skipped with one line. Every committed record passes it. The
control switches the check off and the forged τ is shown. (RMSE is left: earlier passes' fixtures read
records whose labels are the board's × 1.01, and an RMSE check skips them.)"""

from __future__ import annotations

import json
import re

import numpy as np
from scipy.stats import kendalltau

import perfgraphs.leaderboard.records.record_check as record_check
from perfgraphs.cli import main
from perfgraphs.leaderboard.records.results import _parse_record, forget_checked
from test_leaderboard_review_104c import BOARD, eves_copy


def _overstated(record: dict) -> dict:
    """``record`` with each seed's τ 0.99 (nothing else changed)."""
    return {**record, "per_seed": [{**s, "kendall_tau": 0.99} for s in record["per_seed"]]}


def _shown_tau(tmp_path, records: list[dict], capsys, monkeypatch) -> tuple[dict[str, str], str]:
    """({method: τ as `leaderboard show` prints it} on the board, everything it printed)."""
    from perfgraphs.paths import leaderboard_dir

    results = tmp_path / "results"
    results.mkdir(parents=True)
    (tmp_path / "builds.json").write_text((leaderboard_dir() / "builds.json").read_text())
    (results / "llm.jsonl").write_text("".join(json.dumps(r) + "\n" for r in records))
    monkeypatch.setenv("COLUMNS", "250")
    forget_checked()
    capsys.readouterr()
    assert main(["leaderboard", "show", "--results", str(results)]) == 0
    captured = capsys.readouterr()
    board = captured.out.split(" · ".join(BOARD))[1].split("Ranks (#)")[0]
    rows = re.findall(r"│ (?:\d+|–)\s+│ ([a-z0-9-]+)\s+│[^│]*│[^│]*│ (-?[0-9.]+|–)\s+│", board)
    return dict(rows), captured.out + captured.err


def test_a_record_states_the_tau_its_predictions_give(tmp_path, capsys, monkeypatch):
    references, _, honest = eves_copy(tmp_path)
    forged = _overstated(honest)
    first = honest["per_seed"][0]
    labels = np.asarray([t for t, _ in honest["actual_vs_predicted"]])
    tau = kendalltau(labels * np.asarray(first["pred_over_label"]), labels).statistic
    assert abs(tau - 0.878) < 1e-3 and abs(first["kendall_tau"] - tau) < 1e-3, (tau, first["kendall_tau"])

    assert _parse_record(json.dumps(honest))[1] is None
    tau_only = {**honest, "per_seed": [{**s, "kendall_tau": 0.99} for s in honest["per_seed"]]}
    assert "Kendall τ is 0.878" in (_parse_record(json.dumps(tau_only))[1] or ""), _parse_record(json.dumps(tau_only))[1]
    shown, out = _shown_tau(tmp_path / "fixed", [*references, forged], capsys, monkeypatch)
    assert "eve-net" not in shown and shown["serving-prior-boost"] == "0.878", shown
    assert "the record says" in out, out[-2000:]

    with monkeypatch.context() as m:  # control: without the check the forged τ is shown
        m.setattr(record_check, "stated_scores_problem", lambda record: None)
        shown, _ = _shown_tau(tmp_path / "control", [*references, forged], capsys, monkeypatch)
        assert shown["eve-net"] == "0.990" and shown["serving-prior-boost"] == "0.878", shown
    forget_checked()
