"""Hundred-and-seventeenth pass (2026-12-07), side b (every printed field against its evidence). The readers tie
a public seed's MAPE and Acc(δ) to its per-configuration ratios (``_per_config_problem``), its τ and RMSE to its
ratios × its pairs' labels (109b, 111c) and the first seed to its pairs; a record without ratios and pairs is
tied by nothing, and is listed unranked as a record "recorded before 2026-11-28". Every such committed public
record is a reference baseline's from before then (110 lines, all with pairs); ``submit`` and ``runner`` keep
ratios on every public seed since. Eve's copy of `serving-prior-boost`'s record on the official ML.ENERGY
energy-per-token board, its ratios and pairs left out and every seed stating 1.00 % MAPE, RMSE 0.01 J and
Acc(10 %) 99 % (the run: 21.78 %, 1.764 J, 46.4 %), passed every read check: the site listed `eve-net` on that
board as *reproduced* with MAPE 1.00, first in the MAPE, RMSE and Acc(10 %) columns its readers sort by. Now
``trust.ratioless_record_problem`` skips a public harness-tier line of a ranked size without ratios unless it
is a reference baseline's from before 2026-11-28. Every committed record still reads (255 of 255). The control
switches the check off and the forged row is shown."""

from __future__ import annotations

import json
import re

import pytest

import perfgraphs.leaderboard.records.trust as trust
from perfgraphs.leaderboard.records.results import _parse_record, forget_checked
from test_leaderboard_review_104c import _board_records
from test_leaderboard_review_111c import llm_site_index


def _eves_ratioless_copy(reference: dict) -> dict:
    """``reference`` under Eve's name, its ratios and pairs left out, every seed 1.00 % MAPE, RMSE 0.01, Acc 99 %."""
    seeds = [{**{k: v for k, v in s.items() if k != "pred_over_label"}, "mape_pct": 1.0, "rmse": 0.01,
              "acc_5_pct": 99.0, "acc_10_pct": 99.0, "acc_15_pct": 99.0} for s in reference["per_seed"]]
    return {**reference, "method": "eve-net", "authors": "Eve Rival", "run_identity": "eve-net",
            "code_url": "https://example.org/eve/eve-net", "actual_vs_predicted": [], "per_seed": seeds}


def _board_rows(tmp_path, records: list[dict]) -> dict[str, tuple[float, float, float, str]]:
    """{method: (MAPE, RMSE, Acc(10 %), tier)} of the site's official energy-per-token board built from ``records``."""
    index = llm_site_index(tmp_path, records)
    table = index.split("mlenergy · energy_per_token_joules · leave-models-out", 1)[1].split("</table>")[0]
    rows = {}
    for row in table.split("<tbody>")[1].split("<tr>")[1:]:
        cells = re.findall(r"<td[^>]*data-v='([^']*)'", row.split("</tr>")[0])
        rows[cells[1]] = (float(cells[3]), float(cells[5]), float(cells[6]), cells[14])
    return rows


def test_a_harness_record_without_ratios_is_a_references_from_before_them(tmp_path):
    references = [r for r in _board_records() if r["target"] == "energy_per_token_joules"]
    copied = next(r for r in references if r["method"] == "serving-prior-boost")
    forged = _eves_ratioless_copy(copied)
    assert _parse_record(json.dumps(forged))[1] is None  # every field check passes it: nothing is there to tie
    assert trust.ratioless_record_problem(copied) is None

    why = trust.trust_problem(forged) or ""
    assert "without per-configuration ratios" in why, why
    shown = _board_rows(tmp_path / "fixed", [*references, forged])
    assert "eve-net" not in shown and shown["serving-prior-boost"][0] > 21, shown

    with pytest.MonkeyPatch.context() as m:  # control: without the check Eve's line tops three columns, reproduced
        m.setattr(trust, "ratioless_record_problem", lambda record: None)
        shown = _board_rows(tmp_path / "control", [*references, forged])
        assert shown["eve-net"] == (1.0, 0.01, 99.0, "reproduced"), shown
        others = [v for k, v in shown.items() if k != "eve-net"]
        assert min(v[0] for v in others) > 21 and min(v[1] for v in others) > 1.7 and max(v[2] for v in others) < 50
    forget_checked()
