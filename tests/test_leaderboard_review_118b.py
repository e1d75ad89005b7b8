"""Hundred-and-eighteenth pass (2026-12-07), side b (scores tied loosely). The readers tie a seed's Acc(5/10/15 %)
to its per-configuration ratios (``record_check._per_config_problem``) with a slack of one configuration, for a
ratio kept to 6 digits that may have crossed the threshold it sat on; the slack was granted on every Acc column
of every seed whether or not any ratio sat there, 100/n points each (1.14 on the dippm h200 boards, n = 88). Of
the 375 committed seeds with ratios, 369 state exactly what their ratios give, and each of the other 6 (five of
`static-xgboost`'s h200 latency seeds, one of llm-xgboost's) has one ratio on the threshold (1.1). Eve's copy of
`static-xgboost`'s h200 latency record, that ratio moved 2e-5 inside the 10 % threshold (1.09998, 23 of 88 within:
26.14 %) and every seed stating Acc(10 %) 27.27 %, passed every read check: the site listed `eve-net` there as
reproduced, first in its Acc(10 %) column, above every line's evidence (the board's best, 26.14 %). Now the slack
is one configuration per ratio within its rounding of the threshold (``record_check._on_threshold``); every
committed record still reads (255 of 255). The control grants the old slack, and the forged row is shown."""

from __future__ import annotations

import json
import re

import pytest

import perfgraphs.leaderboard.records.record_check as record_check
from perfgraphs.leaderboard.records.results import _parse_record, forget_checked
from perfgraphs.paths import leaderboard_dir

_CAPTION = "perfgraphs/dippm · h200-torch-fp32 · latency_ms"


def _eves_raised_copy(copied: dict) -> dict:
    """``copied`` under Eve's name, each seed's ratio on the 10 % threshold moved just inside it and its Acc(10 %)
    one configuration above what its ratios then give."""
    def seed(s: dict) -> dict:
        ratios = [1.09998 if r == 1.1 else r for r in s["pred_over_label"]]
        within = sum(abs(r - 1.0) <= 0.10 for r in ratios) / len(ratios) * 100.0
        return {**s, "pred_over_label": ratios, "acc_10_pct": within + 100.0 / len(ratios)}
    return {**copied, "method": "eve-net", "authors": "Eve Rival", "run_identity": "eve-net",
            "code_url": "https://example.org/eve/eve-net", "per_seed": [seed(s) for s in copied["per_seed"]]}


def _acc_column(folder, lines: list[str]) -> dict[str, float]:
    """{method: Acc(10 %)} of the site's dippm h200 latency board built from ``lines``."""
    from perfgraphs.leaderboard.site.pages import build_site

    (folder / "results").mkdir(parents=True)
    (folder / "builds.json").write_text((leaderboard_dir() / "builds.json").read_text())
    (folder / "results" / "dippm.jsonl").write_text("\n".join(lines) + "\n")
    forget_checked()
    index = build_site(folder / "site", folder / "results").read_text()
    table = index.split(_CAPTION, 1)[1].split("</table>")[0]
    rows = [re.findall(r"<td[^>]*data-v='([^']*)'", row.split("</tr>")[0])
            for row in table.split("<tbody>")[1].split("<tr>")[1:]]
    return {cells[1]: float(cells[6]) for cells in rows}


def test_an_acc_is_loose_only_by_the_ratios_on_its_threshold(tmp_path):
    lines = [line for line in (leaderboard_dir() / "results" / "dippm.jsonl").read_text().splitlines()
             if json.loads(line)["config"] == "h200-torch-fp32"]
    copied = next(r for r in map(json.loads, lines) if r["method"] == "static-xgboost"
                  and r["target"] == "latency_ms" and r["per_seed"][0]["n"] == 88)
    eve = _eves_raised_copy(copied)
    assert [round(s["acc_10_pct"], 2) for s in eve["per_seed"]] == [27.27] * 5
    assert _parse_record(json.dumps(copied))[1] is None  # the honest line, its ratio on the threshold, reads

    why = _parse_record(json.dumps(eve))[1] or ""
    assert "puts 26.14 % within 10 % (± 0.00" in why, why
    shown = _acc_column(tmp_path / "fixed", [*lines, json.dumps(eve)])
    assert "eve-net" not in shown and max(shown.values()) < 26.2, shown

    with pytest.MonkeyPatch.context() as m:  # control: one configuration of slack on every Acc; Eve tops the column
        m.setattr(record_check, "_on_threshold", lambda ratios, delta: 1)
        forget_checked()
        assert _parse_record(json.dumps(eve))[1] is None
        shown = _acc_column(tmp_path / "control", [*lines, json.dumps(eve)])
        assert round(shown["eve-net"], 2) == 27.27 and max(v for k, v in shown.items() if k != "eve-net") < 26.2, shown
    forget_checked()


def test_a_seeds_stated_mape_is_its_ratios_within_their_rounding(monkeypatch):
    """118b's lead 4 (mine): each seed of Eve's copy of an energy-per-token record states its MAPE 0.03 point under
    what its ratios give (within the old allowance of 0.01 + 0.1 % of the MAPE): not read now. Control: with the
    old allowance it is read."""
    import json

    from test_leaderboard_review_104c import _board_records

    from perfgraphs.leaderboard.records import record_check
    from perfgraphs.leaderboard.records.results import _parse_record

    copied = next(r for r in _board_records() if r["target"] == "energy_per_token_joules")
    eve = {**copied, "method": "eve-net", "authors": "Eve Rival", "run_identity": "eve-net",
           "per_seed": [{**s, "mape_pct": s["mape_pct"] - 0.03} for s in copied["per_seed"]]}
    assert _parse_record(json.dumps(copied))[1] is None
    assert "implies MAPE" in (_parse_record(json.dumps(eve))[1] or "")

    monkeypatch.setattr(record_check, "mape_rounding", lambda ratios: 0.01 + 1e-3 * 30)  # control: the old allowance
    assert _parse_record(json.dumps(eve))[1] is None
