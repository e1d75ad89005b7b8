"""The main job runs end to end on the committed data (graph pool + CPU measurements)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]


def test_quickstart_ranks_every_baseline_and_builds_the_site(tmp_path):
    env = {**os.environ, "PERFGRAPHS_HOME": str(tmp_path)}
    env.pop("MLFLOW_TRACKING_URI", None)
    result = subprocess.run([sys.executable, "-m", "perfgraphs", "quickstart", "--baselines", "layerwise-linear",
                             "static-xgboost"], cwd=REPO, env=env, capture_output=True, text=True, timeout=900)
    assert result.returncode == 0, result.stderr[-2000:]
    assert "layerwise-linear" in result.stdout and "static-xgboost" in result.stdout
    assert "noise floor" in result.stdout.lower()
    # groups from the paired bootstrap, not 1..n: the line says what separates them
    out = " ".join(result.stdout.split())
    assert "group(s) on" in out and "paired bootstrap" in out and "Holm" in out
    # its board's test labels were measured again: their noise is in the intervals, their mean the label
    assert "repetitions are resampled too" in out and "against each label's mean of its" in out
    # the GNNs' time budget: a family-stratified training subset, the whole test part
    assert "training on 300 of the" in result.stdout and "300 training graphs" in result.stdout
    site = tmp_path / "leaderboard" / "site" / "index.html"
    assert site.exists() and "static-xgboost" in site.read_text()
    assert "Local preview" in site.read_text()  # single-seed rows, never passed off as a board
    official = tmp_path / "leaderboard" / "official-site" / "index.html"
    assert official.exists() and official.as_uri() in site.read_text()  # the preview links the official boards
    assert (tmp_path / "mlflow.db").exists()


def test_quickstart_refuses_a_bad_training_cap_in_one_line(tmp_path):
    env = {**os.environ, "PERFGRAPHS_HOME": str(tmp_path)}
    result = subprocess.run([sys.executable, "-m", "perfgraphs", "quickstart", "--max-train-graphs", "0"],
                            cwd=REPO, env=env, capture_output=True, text=True, timeout=300)
    assert result.returncode != 0 and "Traceback" not in result.stderr
    assert "--max-train-graphs must be at least 1" in result.stderr
    assert not (tmp_path / "mlflow.db").exists()
