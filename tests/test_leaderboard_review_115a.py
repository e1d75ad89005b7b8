"""Hundred-and-fifteenth adversarial pass (2026-12-07), side a (transfer boards): a transfer record's
headline was tied to nothing it holds.

A transfer protocol's record (``leave-one-platform-out/<variant>/K<shots>``) keeps no per-configuration
ratios and no pairs: each draw states ``n``, MAPE, Acc(10 %) and τ, and beside them ``per_platform``, every
held-out platform's scores, the headline being the mean over the GPU platforms (``transfer_runner.
to_entries``; the K32 `ratio-transfer` record's first draw: 11 GPU rows, n 851 + ... + 1356 = 13,795, MAPE
6.75 %). No reader tied the two: Mallory's self-reported copy of that record with each draw's MAPE set to
1.00 % and every per-platform row unchanged (their GPU means 6.42 % over the five draws) passed every read
check, and `leaderboard show` listed it "1.00 ± 0.00" first among the nnlqp K32 board's self-reported
entries, above Alice's honest line (a copy of `profile-transfer`'s record, 6.10 %, its rows giving it); its
page showed the rows that contradict it. Now each draw of a public transfer record must keep
``per_platform`` rows, some set of which adds up to its ``n`` with its MAPE, Acc(10 %) and τ as their means,
or the record is skipped when read (``record_check.transfer_headline_problem``). Every committed transfer
record (35) passes it.
"""

from __future__ import annotations

import json
from pathlib import Path

from test_leaderboard_review_99b import BOARD, REPO, shown_with


def _board_lines() -> list[str]:
    return [line for line in (REPO / "leaderboard" / "results" / "nnlqp.jsonl").read_text().splitlines()
            if json.loads(line).get("protocol") == BOARD]


def _self_reported(reference: dict, method: str, authors: str, headline: float | None) -> dict:
    """``reference`` (a K32 transfer record) as a team's self-reported line; ``headline``: each draw's
    MAPE set to it, the per-platform rows left as they are (None: the record unchanged)."""
    record = {**json.loads(json.dumps(reference)), "method": method, "authors": authors, "tier": "self-reported",
              "code_commit": "a" * 40, "code_url": "https://example.org/x", "run_identity": "0123456789abcdef",
              "fit_seconds": None, "hardware": "not measured (self-reported)"}
    for seed in record["per_seed"]:
        if headline is not None:
            seed["mape_pct"] = headline
    return record


def test_a_transfer_draws_scores_are_its_platforms(tmp_path, capsys, monkeypatch):
    """Attack: Mallory's 1.00 % line, whose rows give 6.42 %, is skipped in one line; Alice's honest
    line is still listed. Control: with the check off, `show` listed Mallory first of the self-reported
    entries, above Alice's 6.10 %."""
    from perfgraphs.leaderboard.records import record_check

    lines = _board_lines()
    by_method = {json.loads(line)["method"]: json.loads(line) for line in lines}
    mallory = _self_reported(by_method["ratio-transfer"], "mal-transfer", "Mallory Example", 1.0)
    alice = json.dumps(_self_reported(by_method["profile-transfer"], "alice-transfer", "Alice Author", None))

    out, err = shown_with(tmp_path / "attack", [*lines, alice], mallory, capsys)
    assert "mal-transfer" not in out and "alice-transfer" in out, out
    assert err.count("the draw's scores are not its platforms'") == 1 and f"nnlqp.jsonl:{len(lines) + 2}:" in err, err

    monkeypatch.setattr(record_check, "transfer_headline_problem", lambda record: None)  # control: the check off
    out, _ = shown_with(tmp_path / "control", [*lines, alice], mallory, capsys)
    rows = [line for line in out.splitlines() if line.startswith("│ – │")]
    mine = next(i for i, line in enumerate(rows) if "mal-transfer" in line)
    hers = next(i for i, line in enumerate(rows) if "alice-transfer" in line)
    assert mine < hers and "1.00 ± 0.00" in rows[mine] and "self-reported" in rows[mine], out


def _easy_platform(reference: dict) -> dict:
    """``reference`` as a self-reported line whose every draw held out only its best GPU platform: that row's n
    and scores as the draw's (its rows self-consistent, the readers' check passed)."""
    record = _self_reported(reference, "easy-transfer", "Eve Rival", None)
    for seed in record["per_seed"]:
        best = min((r for p, r in seed["per_platform"].items() if not p.startswith("cpu")), key=lambda r: r["mape_pct"])
        seed.update({k: best[k] for k in ("n", "mape_pct", "acc_10_pct", "kendall_tau")})
    return record


def test_a_transfer_line_on_another_test_size_says_so(tmp_path, capsys, monkeypatch):
    """The pass's lead (mine): a self-reported line of the easy platform's rows only (n about 1,200 of the
    board's 13,795) was listed at its MAPE beside lines scored on every held-out platform, with nothing
    saying its test was another; now the board notes it (``ranks.other_test_size``). Control: without the
    note it is listed as any other line."""
    from perfgraphs.leaderboard.records import ranks

    lines = _board_lines()
    easy = _easy_platform(next(json.loads(line) for line in lines if json.loads(line)["method"] == "ratio-transfer"))
    assert all(s["n"] < 2000 and s["mape_pct"] < 4 for s in easy["per_seed"]), easy["per_seed"]
    out, err = shown_with(tmp_path / "noted", lines, easy, capsys)
    flat = " ".join(out.split())
    assert "easy-transfer" in out and "scored on another test than the board's (n = 13795 on its 17 held-out platforms)" in flat, out
    assert "easy-transfer by Eve Rival (n = " in flat and "easy-transfer" not in err, err

    monkeypatch.setattr(ranks, "other_test_size", lambda entries: [])  # control: nothing says so
    out, _ = shown_with(tmp_path / "control", lines, easy, capsys)
    assert "easy-transfer" in out and "another test" not in " ".join(out.split()), out


def test_a_transfer_records_platform_rows_are_shown_as_stated(tmp_path):
    """The page of a transfer record says what its held-out platform table is: the record's own rows, tied
    only by their means being each draw's scores (114a left the caption to the family tables)."""
    from perfgraphs.leaderboard.site.pages import build_site

    results = tmp_path / "results"
    results.mkdir()
    (results / "nnlqp.jsonl").write_text("\n".join(_board_lines()) + "\n")
    build_site(tmp_path / "site", results)
    pages = [p.read_text() for p in (tmp_path / "site").glob("*.html") if "per held-out platform" in p.read_text()]
    assert pages and all("as the record states them: the draw's scores are their means" in p for p in pages)
