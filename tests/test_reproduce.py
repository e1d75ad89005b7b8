"""``perfgraphs leaderboard reproduce``: a reference record scored again at its own commit. Every
read-time check passes a record under a reference's name at a real commit whatever its scores say
(issue 32's audit); scoring it again is what shows invented numbers."""

from __future__ import annotations

import json
from dataclasses import replace

import pytest

from perfgraphs.cli import main
from perfgraphs.leaderboard.records.results import RESULTS_DIR
from perfgraphs.leaderboard.reproduce import ReproduceError, reproduce
from perfgraphs.leaderboard.sandbox import isolation

from conftest import shallow_clone

pytestmark = [pytest.mark.skipif(shallow_clone(), reason="a shallow clone has no commits to check out"),
              pytest.mark.skipif(isolation.unavailable_reason() is not None,
                                 reason=f"no isolation here: {isolation.unavailable_reason()}")]


def _line(dataset: str, wanted) -> int:
    for i, text in enumerate((RESULTS_DIR / f"{dataset}.jsonl").read_text().splitlines(), start=1):
        if wanted(json.loads(text)):
            return i
    raise AssertionError(f"no such committed record in {dataset}.jsonl")


def test_a_committed_reference_record_is_scored_again_and_a_forged_one_is_not(tmp_path):
    # a deterministic reference (layerwise-linear: every seed the same) on the smallest official
    # build (the H200 board), at the commit it was recorded at
    line = _line("dippm", lambda r: r["method"] == "layerwise-linear" and r["config"] == "h200-torch-fp32"
                 and r["target"] == "latency_ms" and r["dataset_content_hash"].startswith("2ee93bd4"))
    found = reproduce("dippm", line)
    assert found.ok, found.problems
    record = json.loads((RESULTS_DIR / "dippm.jsonl").read_text().splitlines()[line - 1])
    assert found.found_build == record["dataset_content_hash"]
    assert found.found_mape_pct == pytest.approx([s["mape_pct"] for s in record["per_seed"]], rel=1e-9)
    # the same record with a better score written by hand: its commit and folder are real, so every
    # read-time check passes it; scored again, it does not hold (the run depends on commit, folder,
    # board and seeds only, which the forgery keeps)
    forged = replace(found, recorded_mape_pct=tuple(m - 5.0 for m in found.recorded_mape_pct))
    assert not forged.ok and all("scored again" in p for p in forged.problems) and len(forged.problems) == 5
    assert not replace(found, found_build="0" * 64).ok  # another build: not the record's score


def test_what_cannot_be_reproduced_here_is_one_line(tmp_path, capsys):
    results = tmp_path / "results"
    results.mkdir()
    own = {"method": "my-model", "authors": "someone", "tier": "reproduced", "code_commit": "0" * 40,
           "dataset": "perfgraphs/dippm", "per_seed": []}
    (results / "dippm.jsonl").write_text(json.dumps(own) + "\n")
    with pytest.raises(ReproduceError, match="not a reference record"):
        reproduce("dippm", 1, results)
    with pytest.raises(ReproduceError, match="no line 2"):
        reproduce("dippm", 2, results)
    ghost = {**own, "method": "layerwise-linear", "authors": "perfgraphs reference baselines"}
    (results / "dippm.jsonl").write_text(json.dumps(ghost) + "\n")
    with pytest.raises(ReproduceError, match="not in this checkout's history"):
        reproduce("dippm", 1, results)
    rc = main(["leaderboard", "reproduce", "dippm", "1", "--results", str(results)])
    err = [x for x in capsys.readouterr().err.splitlines() if x.strip()]
    assert rc != 0 and len(err) == 1 and "history" in err[0]
