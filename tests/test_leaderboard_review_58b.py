"""Fifty-eighth adversarial pass (2026-12-05), submit side: a link at the top of the folder to a
folder of helper scripts (`opt_einsum -> scripts-train`) passed every check while Python imported the
linked folder's `__init__.py` as `opt_einsum`, a name torch tries as an optional dependency: code ran
that no source of the folder imports. `unimported_modules` (fiftieth pass) skipped linked folders."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

from perfgraphs.cli import main
from perfgraphs.leaderboard.sandbox import harness
from test_leaderboard_review_49b import MEDIAN  # the median that imports nothing of its folder
from test_submit import BOARD, code_submission, env  # noqa: F401 — env is a fixture

MEDIAN_TORCH = MEDIAN.replace("    def fit(self, train, val):\n",
                              "    def fit(self, train, val):\n        import torch  # noqa: F401\n")


def _check(sub: Path, env) -> list[str]:  # noqa: F811
    return ["check", str(sub), *BOARD, "--quick", "--seeds", "0", "--results", str(env["results"])]


def test_a_linked_folder_no_source_imports_is_refused(env, capsys, tmp_path, monkeypatch):  # noqa: F811
    """Attack: a median whose only import is torch, a folder `scripts-train/` (no Python name: the place
    RULES gives helper scripts the predictor does not import) whose `__init__.py` holds a line, and a
    link `opt_einsum -> scripts-train` at the top of the folder. The copy the sandbox runs keeps the
    link; torch's `import opt_einsum` took the linked folder as the package and ran its `__init__.py`.
    `unimported_modules` refused an `opt_einsum.py` or a real `opt_einsum/` folder, never a link to
    one. Now a link at the top whose name Python would import is judged by where it leads. Controls:
    the median alone scores; the scripts folder alone scores; with the refusal off nothing runs (the
    sandbox's copy leaves helper scripts out), and with that off too the code runs."""
    from perfgraphs.leaderboard import submission

    if importlib.util.find_spec("opt_einsum") is not None:
        pytest.skip("opt_einsum is installed here: library_names refuses the name")
    sub = code_submission(tmp_path / "linked", "median-torch", MEDIAN_TORCH)
    (sub / "scripts-train").mkdir()
    (sub / "scripts-train" / "__init__.py").write_text("raise RuntimeError('the linked opt_einsum ran')\n")
    assert main(_check(sub, env)) == 0, capsys.readouterr().err  # control: helper scripts nothing imports
    capsys.readouterr()

    (sub / "opt_einsum").symlink_to("scripts-train", target_is_directory=True)
    assert main(_check(sub, env)) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "opt_einsum" in err and "none of its sources imports" in err, err
    assert "ran" not in err

    monkeypatch.setattr(submission, "unimported_modules", lambda root, entry_point, imported: [])
    main(_check(sub, env))  # the refusal off: the sandbox's copy holds no helper script, nothing runs
    assert "ran" not in capsys.readouterr().err
    monkeypatch.setattr(harness, "is_helper_script", lambda rel: False)  # control: both off
    assert main(_check(sub, env)) == 1
    assert "RuntimeError: the linked opt_einsum ran" in capsys.readouterr().err


def test_a_link_to_a_data_folder_passes(env, capsys, tmp_path):  # noqa: F811
    """Control of the fix: a link at the top to a folder of the submission holding no Python (data)
    is no module and passes."""
    sub = code_submission(tmp_path / "data-link", "median-data", MEDIAN)
    (sub / "tables").mkdir()
    (sub / "tables" / "prior.json").write_text("{}\n")
    (sub / "prior_tables").symlink_to("tables", target_is_directory=True)
    assert main(_check(sub, env)) == 0, capsys.readouterr().err
