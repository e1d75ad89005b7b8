"""Hundred-and-eleventh pass (2026-12-07), side c (what a record states at read, what 109b left). The
readers tie a seed's MAPE and Acc(δ) to its ratios and, since 109b, its Kendall's τ too, but a seed's
RMSE to nothing, and the site prints RMSE in every board's table (a column its readers sort by) and on
every record's page. Eve's copy of `serving-prior-boost`'s record on the official ML.ENERGY
energy-per-token board, every seed's RMSE stated as 0.001 J where its predictions (ratios × labels) give
1.76 J, nothing else changed, passed every read check and the site's table showed `eve-net` with RMSE 0.001
beside the reference's 1.764. Now ``record_check.stated_rmse_problem`` recomputes each seed's RMSE from the
same predictions within their rounding's bound, and the record is skipped with one line. Every committed
record passes it (`leaderboard show` on the repository is byte-identical). The control switches the check
off and the forged RMSE is shown."""

from __future__ import annotations

import json
import re

import numpy as np
import pytest

import perfgraphs.leaderboard.records.record_check as record_check
from perfgraphs.leaderboard.records.results import _parse_record, forget_checked
from test_leaderboard_review_104c import eves_copy


def _understated(record: dict) -> dict:
    """``record`` with each seed's RMSE 0.001 (nothing else changed)."""
    return {**record, "per_seed": [{**s, "rmse": 0.001} for s in record["per_seed"]]}


def llm_site_index(tmp_path, records: list[dict]) -> str:
    """The site's index page built from ``records`` as the llm results file (the repository's build pins beside it)."""
    from perfgraphs.leaderboard.site.pages import build_site
    from perfgraphs.paths import leaderboard_dir

    results = tmp_path / "results"
    results.mkdir(parents=True)
    (tmp_path / "builds.json").write_text((leaderboard_dir() / "builds.json").read_text())
    (results / "llm.jsonl").write_text("".join(json.dumps(r) + "\n" for r in records))
    forget_checked()
    return build_site(tmp_path / "site", results).read_text()


def _site_rmse(tmp_path, records: list[dict]) -> dict[str, list[str]]:
    """{method: its RMSE cells} in the site's board tables built from ``records`` (llm boards only)."""
    index = llm_site_index(tmp_path, records)
    shown: dict[str, list[str]] = {}
    for row in index.split("<tr>")[1:]:
        cells = re.findall(r"<td[^>]*data-v='([^']*)'", row.split("</tr>")[0])
        if len(cells) > 5:
            shown.setdefault(cells[1], []).append(cells[5])  # rank, method, authors, MAPE, difference, RMSE
    return shown


def test_a_record_states_the_rmse_its_predictions_give(tmp_path):
    references, _, honest = eves_copy(tmp_path)
    forged = _understated(honest)
    first = honest["per_seed"][0]
    labels = np.asarray([t for t, _ in honest["actual_vs_predicted"]])
    rmse = float(np.sqrt(np.mean((labels - labels * np.asarray(first["pred_over_label"])) ** 2)))
    assert abs(rmse - first["rmse"]) < 1e-3 * first["rmse"] and rmse > 1.7, (rmse, first["rmse"])

    assert _parse_record(json.dumps(honest))[1] is None
    why = _parse_record(json.dumps(forged))[1] or ""
    assert "RMSE is" in why and "the record says 0.001" in why, why
    page = tmp_path / "fixed" / "site"
    shown = _site_rmse(tmp_path / "fixed", [*references, forged])
    assert "eve-net" not in shown and float(shown["serving-prior-boost"][0]) > 1.7, shown
    assert not any(p.name.startswith("eve-net") for p in page.rglob("*.html"))

    with pytest.MonkeyPatch.context() as m:  # control: without the check the forged RMSE is shown
        m.setattr(record_check, "stated_rmse_problem", lambda seed, labels, predictions: None)
        shown = _site_rmse(tmp_path / "control", [*references, forged])
        assert shown["eve-net"] == ["0.001"] and float(shown["serving-prior-boost"][0]) > 1.7, shown
    forget_checked()
