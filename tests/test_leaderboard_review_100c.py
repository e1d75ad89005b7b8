"""Hundredth adversarial pass (2026-12-07), side c (ranks: which entry of a team, which board): the same
predictions under another board key were ranked 1, *reproduced*, on a board no harness scores.

nnlqp's ``timm-platforms`` lists ``few-shot-platform`` among its split protocols, so a record naming it
reads (``results._place_problem``), yet nothing scores it: ``submit`` and ``reproduce`` run a config's
standard split, ``leave-one-family-out`` and the tabular folds (``evaluation.protocol.protocol_parts``
refuses it), the transfer runner ``leave-one-platform-out`` only (the ninety-ninth pass's side b closed a
team's harness-tier line there). Mallory's copy of the official RTX 4090 board's `roofline-boost` record
(its 205 configurations' per-seed ratios as recorded, 4.58 % MAPE), re-keyed to ``few-shot-platform`` and
left *reproduced*, made an additional board of its own in `leaderboard show`: ``mal-net by Mallory
Example``, rank 1, "best", 4.58 [3.89, 5.29], reproduced; a board a reviewer's `reproduce` cannot score
again. Now a harness-tier record under a protocol no harness scores is skipped when read, in one line
(``trust._unscored_protocol_tier_problem``); the same line marked *self-reported* is still listed, unranked.
Leads that held (team entries, quick runs, builds, unregistered boards, transfer order): see the pass's report.
"""

from __future__ import annotations

import json
from pathlib import Path

from test_leaderboard_review_99b import REPO, shown_with

PROTOCOL = "few-shot-platform"


def _mallory(tier: str) -> tuple[list[str], dict]:
    """The official nnlqp board's lines with per-configuration ratios, and Mallory's copy of its
    `roofline-boost` record under ``few-shot-platform`` with ``tier``."""
    lines = [line for line in (REPO / "leaderboard" / "results" / "nnlqp.jsonl").read_text().splitlines()
             if not json.loads(line).get("protocol") and "pred_over_label" in json.loads(line)["per_seed"][0]]
    reference = next(json.loads(line) for line in lines if json.loads(line)["method"] == "roofline-boost")
    record = {**reference, "method": "mal-net", "authors": "Mallory Example", "tier": tier, "protocol": PROTOCOL,
              "code_commit": "a" * 40, "code_url": "https://example.org/mal", "run_identity": "0123456789abcdef"}
    if tier == "self-reported":  # predictions files: nothing the harness measures
        from perfgraphs.leaderboard.records.results import HARNESS_ONLY

        record.update(dict.fromkeys(HARNESS_ONLY), isolation="", hardware="not measured (self-reported)")
    return lines, record


def _show(tmp_path: Path, tier: str, capsys) -> tuple[str, str]:
    lines, record = _mallory(tier)
    return shown_with(tmp_path, lines, record, capsys)


def test_a_record_under_a_protocol_no_harness_scores_is_no_harness_score(tmp_path, capsys, monkeypatch):
    """Attack: Mallory's `reproduced` few-shot-platform line is skipped in one line and not listed;
    marked self-reported it is listed, unranked. Control: with the check off, `show` ranked it 1, best,
    4.58 %, reproduced, on a board of its own."""
    from perfgraphs.leaderboard.records import trust

    out, err = _show(tmp_path / "attack", "reproduced", capsys)
    assert "mal-net" not in out and PROTOCOL not in out and "roofline-boost" in out, out
    assert err.count("which no harness scores") == 1 and PROTOCOL in err, err

    out, _ = _show(tmp_path / "honest", "self-reported", capsys)
    table = [line for line in out.splitlines() if "mal-net" in line]
    assert table and table[0].startswith("│ – │") and "self-reported" in table[0], out

    monkeypatch.setattr(trust, "_unscored_protocol_tier_problem", lambda record: None)  # control: the check off
    out, _ = _show(tmp_path / "control", "reproduced", capsys)
    table = [line for line in out.splitlines() if "mal-net" in line]
    assert table and table[0].startswith("│ 1 │") and "4.58" in table[0] and "reproduced" in table[0], out
    assert PROTOCOL in out, out
