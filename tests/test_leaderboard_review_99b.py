"""Ninety-ninth adversarial pass (2026-12-06), side b (transfer and tabular boards): a team's
hand-written transfer record was shown as a harness score, first on its board.

Only the catalog's transfer baselines are ever scored on a transfer protocol
(``leave-one-platform-out/<variant>/K<shots>``): ``benchmarks.platform_transfer`` runs nothing else,
``submit`` scores no transfer protocol and ``reproduce`` scores no transfer record again. Yet a line by
Mallory, ``mal-transfer``, a copy of the K32 `ratio-transfer` record with each of its five draws set to
1.00 % MAPE and the tier ``reproduced``, was read like any record: `leaderboard show` listed it first on
the nnlqp timm-platforms K32 transfer board, "1.00 ± 0.00 ... reproduced", above every reference
(`profile-transfer` 6.10 %, `ratio-transfer` 6.42 %), a claim no harness made and none can check. Now
such a line (a transfer protocol, a harness tier, not the reference authors) is skipped when read, in
one line (``trust._team_transfer_tier_problem``); the same line marked *self-reported* is still listed.
The tabular leads (the ``fold`` column, the probe, pooled folds) and the name/tier leads held: see the
pass's report.
"""

from __future__ import annotations

import json
from pathlib import Path

from perfgraphs.cli import main

REPO = Path(__file__).resolve().parents[1]
BOARD = "leave-one-platform-out/known-models/K32"


def _mallory(reference: dict, tier: str) -> dict:
    """``reference`` (a K32 transfer record) as Mallory's, every draw scored 1 % MAPE on every platform."""
    record = {**json.loads(json.dumps(reference)), "method": "mal-transfer", "authors": "Mallory Example",
              "tier": tier, "code_commit": "a" * 40, "code_url": "https://example.org/mal",
              "run_identity": "0123456789abcdef"}
    if tier == "self-reported":  # predictions files: nothing the harness measures
        record.update(fit_seconds=None, hardware="not measured (self-reported)")
    for seed in record["per_seed"]:
        seed.update(mape_pct=1.0, acc_10_pct=99.0, kendall_tau=0.999)
        for platform in seed["per_platform"].values():  # its rows give its scores (115a)
            platform.update(mape_pct=1.0, acc_10_pct=99.0, kendall_tau=0.999)
    return record


def _show(tmp_path: Path, record: dict, capsys) -> tuple[str, str]:
    lines = [line for line in (REPO / "leaderboard" / "results" / "nnlqp.jsonl").read_text().splitlines()
             if json.loads(line).get("protocol") == BOARD]
    return shown_with(tmp_path, lines, record, capsys)


def shown_with(tmp_path: Path, lines: list[str], record: dict, capsys) -> tuple[str, str]:
    """`leaderboard show`'s (stdout, stderr) on an nnlqp results file of ``lines`` and ``record``."""
    results = tmp_path / "results"
    results.mkdir(parents=True)
    (results / "nnlqp.jsonl").write_text("\n".join([*lines, json.dumps(record)]) + "\n")
    capsys.readouterr()
    assert main(["leaderboard", "show", "--results", str(results)]) == 0
    return capsys.readouterr()


def test_a_teams_transfer_record_is_no_harness_score(tmp_path, capsys, monkeypatch):
    """Attack: Mallory's `reproduced` transfer line is skipped in one line and not listed; marked
    self-reported it is listed as such. Control: with the check off, `show` listed it first, 1.00 %
    `reproduced`, above the references."""
    from perfgraphs.leaderboard.records import trust

    reference = next(json.loads(line) for line in (REPO / "leaderboard" / "results" / "nnlqp.jsonl").open()
                     if json.loads(line).get("protocol") == BOARD and json.loads(line)["method"] == "ratio-transfer")
    out, err = _show(tmp_path / "attack", _mallory(reference, "reproduced"), capsys)
    assert "mal-transfer" not in out and "ratio-transfer" in out, out
    assert err.count("is a transfer record") == 1 and "mal-transfer" in err, err

    out, _ = _show(tmp_path / "honest", _mallory(reference, "self-reported"), capsys)
    assert "mal-transfer" in out and "self-reported" in out, out

    monkeypatch.setattr(trust, "_team_transfer_tier_problem", lambda record: None)  # control: the check off
    out, _ = _show(tmp_path / "control", _mallory(reference, "reproduced"), capsys)
    table = [line for line in out.splitlines() if line.startswith("│ – │")]
    assert "mal-transfer" in table[0] and "1.00 ± 0.00" in table[0] and "reproduced" in table[0], out
