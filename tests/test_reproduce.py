"""``perfgraphs leaderboard reproduce``: a reference record scored again at its own commit. Every
read-time check passes a record under a reference's name at a real commit whatever its scores say
(issue 32's audit); scoring it again is what shows invented numbers."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

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
    committed = json.loads((RESULTS_DIR / "dippm.jsonl").read_text().splitlines()[
        _line("dippm", lambda r: r["method"] == "layerwise-linear" and r["config"] == "h200-torch-fp32") - 1])
    own = {**committed, "method": "my-model", "authors": "someone"}
    (results / "dippm.jsonl").write_text(json.dumps(own) + "\n")
    with pytest.raises(ReproduceError, match="not a reference record"):
        reproduce("dippm", 1, results)
    with pytest.raises(ReproduceError, match="no line 2"):
        reproduce("dippm", 2, results)
    # a record the boards leave out is not scored again: a commit that is not in this history, a
    # name of no reference under the reference authors (a path, say), seeds the record picked
    for bad, why in (({"code_commit": "0" * 40}, "not on this repository's main line"),
                     ({"method": "../../../../tmp/evil"}, "names no reference baseline"),
                     ({"code_commit": "HEAD~1"}, "not on this repository's main line")):
        (results / "dippm.jsonl").write_text(json.dumps({**committed, **bad}) + "\n")
        with pytest.raises(ReproduceError, match=why):
            reproduce("dippm", 1, results)
    picked = {**committed, "per_seed": [{**s, "seed": s["seed"] + 10} for s in committed["per_seed"]]}
    (results / "dippm.jsonl").write_text(json.dumps(picked) + "\n")
    with pytest.raises(ReproduceError, match="seeds 10 11 12 13 14: a record of code run here holds seeds 0 to n-1"):
        reproduce("dippm", 1, results)
    ghost = {**committed, "code_commit": "0" * 40}
    (results / "dippm.jsonl").write_text(json.dumps(ghost) + "\n")
    rc = main(["leaderboard", "reproduce", "dippm", "1", "--results", str(results)])
    err = [x for x in capsys.readouterr().err.splitlines() if x.strip()]
    assert rc != 0 and len(err) == 1 and "main line" in err[0], err


def test_the_commit_s_run_imports_the_worktree_s_code_only(tmp_path):
    """An editable install maps ``perfgraphs.benchmarks`` to this checkout: a child given the
    worktree on PYTHONPATH alone would stage this checkout's code for "the commit's" run."""
    import subprocess
    import sys

    from perfgraphs.leaderboard.records.history import git
    from perfgraphs.leaderboard.reproduce import _CHILD

    root = RESULTS_DIR.parent.parent
    tree = tmp_path / "tree"
    assert git(root, "worktree", "add", "--detach", "--quiet", str(tree), "HEAD") is not None
    try:
        show = "import perfgraphs, perfgraphs.benchmarks as b, perfgraphs.cli as c; print(perfgraphs.__file__, b.__file__, c.__file__)\n"
        code = _CHILD.split("from perfgraphs.cli import main")[0] + show
        done = subprocess.run([sys.executable, "-c", code, str(tree)], capture_output=True, text=True, cwd=tree)
        files = done.stdout.split()
        assert len(files) == 3 and all(f.startswith(str(tree)) for f in files), done.stderr[-500:]
        plain = subprocess.run([sys.executable, "-c", "import perfgraphs.benchmarks as b; print(b.__file__)"],
                               capture_output=True, text=True, cwd=tree, env={"PYTHONPATH": str(tree), "PATH": "/usr/bin:/bin"})
        if "__editable__" in " ".join(str(p) for p in Path(sys.prefix).rglob("__editable__*.pth")):
            assert not plain.stdout.strip().startswith(str(tree))  # control: the leak the bootstrap closes
    finally:
        git(root, "worktree", "remove", "--force", str(tree))
        git(root, "worktree", "prune")


def test_every_score_of_every_seed_is_compared():
    from perfgraphs.leaderboard.reproduce import _compare

    record = json.loads((RESULTS_DIR / "dippm.jsonl").read_text().splitlines()[
        _line("dippm", lambda r: r["method"] == "layerwise-linear" and r["config"] == "h200-torch-fp32") - 1])
    assert _compare(record, record, 5e-3) == []  # control
    nicer = {**record, "per_seed": [{**s, "kendall_tau": 0.999} for s in record["per_seed"]]}
    assert len(_compare(nicer, record, 5e-3)) == len(record["per_seed"])
    ratios = {**record, "per_seed": [{**s, "pred_over_label": [1.0] * len(s["pred_over_label"])}
                                     for s in record["per_seed"]]}
    assert all("ratios" in d for d in _compare(ratios, record, 5e-3))
    assert _compare({**record, "num_params": 12}, record, 5e-3)
    # timings are the machine's: not compared
    assert _compare({**record, "per_seed": [{**s, "fit_seconds": 0.01} for s in record["per_seed"]]}, record, 5e-3) == []


def _contributor_folder(tmp_path: Path) -> Path:
    """The example ridge as a contributor's repository: its own git history, its own names."""
    import shutil
    import subprocess

    from perfgraphs.paths import leaderboard_dir

    folder = tmp_path / "contrib"
    shutil.copytree(leaderboard_dir() / "examples" / "ridge", folder)
    meta = (folder / "submission.yaml").read_text().replace("method: example-ridge", "method: contrib-ridge")
    meta = meta.replace("config: cpu-torch-fp32", "config: h200-torch-fp32")
    (folder / "submission.yaml").write_text(meta.replace("authors: [Example Author]", "authors: [Carol Contributor]"))
    for args in (["init", "-q"], ["add", "-A"], ["-c", "user.name=c", "-c", "user.email=c@example.org", "commit", "-qm", "x"]):
        subprocess.run(["git", "-C", str(folder), *args], check=True, capture_output=True)
    return folder


def test_a_contributors_record_is_scored_again_from_its_folder_and_a_reordered_one_is_not(tmp_path, capsys):
    """The review of 2026-12-02: a contributor's record with seeds 1-4's honest per-configuration
    ratios reordered keeps every seed's MAPE and Acc, but breaks the pairing the ranks rest on (a
    runner-up shared rank 1). `reproduce --submission` scores the contributor's folder at the
    record's commit and compares every ratio: the honest record is reproduced (control), the
    reordered one is not."""
    import numpy as np

    folder = _contributor_folder(tmp_path)
    results = tmp_path / "results"
    assert main(["submit", str(folder), "--dataset", "dippm", "--config", "h200-torch-fp32", "--target", "latency_ms",
                 "--results", str(results), "--no-mlflow"]) == 0
    path = results / "dippm.jsonl"
    record = json.loads(path.read_text().splitlines()[0])
    assert record["authors"] == "Carol Contributor" and record["tier"] == "reproduced"
    capsys.readouterr()
    assert main(["leaderboard", "reproduce", "dippm", "1", "--results", str(results), "--submission", str(folder)]) == 0
    assert "reproduced" in capsys.readouterr().out

    # the reordered record against that run (which the honest record matched, within the tolerance):
    # every MAPE agrees, every reordered seed's ratios do not (one scoring less than reproducing it)
    from perfgraphs.leaderboard.reproduce import TOLERANCE_REL, _compare

    rng = np.random.default_rng(0)
    reordered = {**record, "per_seed": [s if s["seed"] == 0 else {**s, "pred_over_label": list(rng.permutation(s["pred_over_label"]))}
                                        for s in record["per_seed"]]}
    problems = _compare(reordered, record, TOLERANCE_REL)
    assert sum("per-configuration ratios differ" in p for p in problems) == 4 and len(problems) == 4, problems

    with pytest.raises(ReproduceError, match="is at"):  # the folder at another commit than the record's
        path.write_text(json.dumps({**record, "code_commit": "0" * 40}) + "\n")
        reproduce("dippm", 1, results, submission=folder)
    (folder / "predictor.py").write_text((folder / "predictor.py").read_text() + "\n# changed\n")
    path.write_text(json.dumps(record) + "\n")
    with pytest.raises(ReproduceError, match="uncommitted"):
        reproduce("dippm", 1, results, submission=folder)


def test_every_field_but_the_runs_own_is_compared():
    """The seventh pass edited a record's tier (self-reported → reproduced) and scaled its (label,
    prediction) pairs by 1.01 (ratios and MAPE unchanged); a comparison of the scores alone passed
    both. Control: the record against itself, and against its own run's fields changed, passes."""
    from perfgraphs.leaderboard.reproduce import TOLERANCE_REL, _compare

    record = json.loads((RESULTS_DIR / "dippm.jsonl").read_text().splitlines()[
        _line("dippm", lambda r: r["method"] == "layerwise-linear" and r["config"] == "h200-torch-fp32") - 1])
    run = {**record, "date_utc": "2030-01-01T00:00:00+00:00", "hardware": "elsewhere", "fit_seconds": 99.0,
           "per_seed": [{**s, "fit_seconds": 99.0, "predictions_per_second": 1.0} for s in record["per_seed"]]}
    assert _compare(record, run, TOLERANCE_REL) == []
    edits = {"tier": {"tier": "verified" if record["tier"] != "verified" else "reproduced"},
             "division": {"division": "open"}, "hyperparameters": {"hyperparameters": {"alpha": 3.0}},
             "actual_vs_predicted": {"actual_vs_predicted": [[t * 1.01, p * 1.01] for t, p in record["actual_vs_predicted"]]},
             "per_family": {"per_seed": [{**s, "per_family": {"resnet": {"n": 1, "mape_pct": 1.0}}} for s in record["per_seed"]]}}
    for field, edit in edits.items():
        assert any(field in p for p in _compare({**record, **edit}, record, TOLERANCE_REL)), field


def test_predictions_files_are_not_scored_again_as_a_harness_record(tmp_path):
    """A self-reported predictions folder, its record's tier edited to reproduced: running the files
    again would only agree with themselves, so `reproduce --submission` refuses the folder."""
    import subprocess

    folder = _contributor_folder(tmp_path)
    (folder / "predictor.py").unlink()
    (folder / "predictions").mkdir()
    meta = (folder / "submission.yaml").read_text().replace("entry_point: predictor:Predictor", "predictions: predictions")
    (folder / "submission.yaml").write_text(meta)
    subprocess.run(["git", "-C", str(folder), "add", "-A"], check=True, capture_output=True)
    subprocess.run(["git", "-C", str(folder), "-c", "user.name=c", "-c", "user.email=c@example.org", "commit", "-qm", "p"],
                   check=True, capture_output=True)
    head = subprocess.run(["git", "-C", str(folder), "rev-parse", "HEAD"], check=True, capture_output=True,
                          text=True).stdout.strip()
    committed = json.loads((RESULTS_DIR / "dippm.jsonl").read_text().splitlines()[
        _line("dippm", lambda r: r["method"] == "layerwise-linear" and r["config"] == "h200-torch-fp32") - 1])
    record = {**committed, "method": "contrib-ridge", "authors": "Carol Contributor", "code_commit": head,
              "tier": "reproduced"}
    results = tmp_path / "results"
    results.mkdir()
    (results / "dippm.jsonl").write_text(json.dumps(record) + "\n")
    with pytest.raises(ReproduceError, match="predictions files, not code"):
        reproduce("dippm", 1, results, submission=folder)
