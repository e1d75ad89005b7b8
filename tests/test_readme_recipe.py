"""The README's "Try your idea in five lines" recipe, executed as written: its Python block, then
its ``perfgraphs check`` line. The numbers it prints are checked against the same estimator fitted
fold by fold here with numpy MAPE (per-fold mean for ``cross_val_score``, pooled out-of-fold for
the leaderboard). Needs the ML.ENERGY rows (``$PERFGRAPHS_EXTERNAL_DIR``, found by conftest); skips
where they are absent, as the other tests of that config.
"""

from __future__ import annotations

import re
import shlex
from pathlib import Path

import numpy as np
import pytest

README = Path(__file__).resolve().parents[1] / "README.md"
SECTION = "## Try your idea in five lines"


def recipe_blocks(lang: str) -> list[str]:
    text = README.read_text()
    assert SECTION in text, "the README lost its recipe section"
    section = text.split(SECTION, 1)[1].split("\n## ", 1)[0]
    return re.findall(rf"```{lang}\n(.*?)```", section, re.S)


def numpy_mape(y, pred) -> float:
    return float(np.mean(np.abs(y - pred) / y))


def test_readme_recipe_runs_and_check_scores_the_same_estimator(tmp_path, monkeypatch, capsys):
    from sklearn.base import clone

    from perfgraphs.cli import main
    from perfgraphs.data.load import load_dataset
    from perfgraphs.loaders.sources import ExternalSourceError

    monkeypatch.setenv("PERFGRAPHS_HOME", str(tmp_path / "home"))
    monkeypatch.chdir(tmp_path)
    try:
        load_dataset("llm", "mlenergy")
    except ExternalSourceError as exc:
        pytest.skip(f"ML.ENERGY data not available offline: {exc}")
    (python,) = recipe_blocks("python")
    namespace: dict = {}
    capsys.readouterr()
    exec(compile(python, str(README), "exec"), namespace)
    printed = float(capsys.readouterr().out.split()[-1])
    model, X, y, cv = (namespace[k] for k in ("model", "X", "y", "cv"))

    pooled = np.empty_like(y)
    per_fold = []
    for train, test in cv.split():
        pooled[test] = clone(model).fit(X[train], y[train]).predict(X[test])
        per_fold.append(numpy_mape(y[test], pooled[test]))
    assert printed == pytest.approx(np.mean(per_fold), rel=1e-9)
    assert (tmp_path / "my-idea" / "estimator.pkl").exists()

    (bash,) = recipe_blocks("bash")
    lines = [shlex.split(line, comments=True) for line in bash.splitlines() if line.strip()]
    assert lines and all(cmd[0] == "perfgraphs" for cmd in lines)
    for cmd in lines:
        assert main(cmd[1:]) == 0, cmd
    out = capsys.readouterr().out
    table_mape = float(re.search(r"mape_pct\W+([\d.]+)", out).group(1))
    # the table shows 4 significant digits of the pooled out-of-fold MAPE (%)
    assert table_mape == pytest.approx(100 * numpy_mape(y, pooled), abs=0.006)
