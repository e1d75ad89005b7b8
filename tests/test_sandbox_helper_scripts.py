"""Helper scripts stay out of the sandbox (2026-12-06). RULES puts the Python the predictor does not
import in a folder of no Python name (`scripts-train/`, `2024_scripts/`), which no check reads as the
predictor's code; five adversarial passes in a row (fifty-eighth to sixty-second) each found another
library that imports a module named by a string the submission controls and so ran such a script (a
link `opt_einsum -> scripts-train`, a link `cuda/bindings -> ../scripts-train`, package metadata's entry
point, a pickle's class, a logging configuration's factory), and each was closed for its importer
alone; their controls now switch this layer off too. The copy the
sandbox runs now leaves every such file out (`harness.is_helper_script`), so no importer, known or not,
finds one: here the sixty-first and sixty-second passes' attacks with their own guards off."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from perfgraphs.cli import main
from perfgraphs.leaderboard import submission
from perfgraphs.leaderboard.sandbox import harness
from test_leaderboard_review_61b import HOOK, MEDIAN_PRIOR, pickle_of
from test_leaderboard_review_62b import MEDIAN_LOGGING
from test_submit import BOARD, code_submission, env  # noqa: F401 — env is a fixture


def _copied(root: Path) -> set[str]:
    return {str(p.relative_to(root)) for p in root.rglob("*") if p.is_file() or p.is_symlink()}


def test_the_copy_leaves_out_the_source_no_import_statement_reaches(tmp_path):
    """Kept: the predictor, a package's modules, data files anywhere (a helper folder's README and
    configuration too), links. Left out: `.py` files under a folder of no Python name (a hyphen, a
    leading digit, a keyword, a dot) or themselves of no Python name, and links so named."""
    src = tmp_path / "sub"
    files = {
        "predictor.py": True, "helpers/__init__.py": True, "helpers/prior.py": True, "weights/w.npy": True,
        "scripts-train/train.py": False, "scripts-train/__init__.py": False, "scripts-train/README.md": True,
        "scripts-train/config.yaml": True, "2024_scripts/hook.py": False, "class/hook.py": False,
        "v1.2/model.py": False, "train-model.py": False, "notes.txt": True,
        "helpers/deep/scripts-x/run.py": False, "helpers/deep/ok.py": True,
    }
    for name in files:
        (src / name).parent.mkdir(parents=True, exist_ok=True)
        (src / name).write_text("x = 1\n")
    os.symlink("scripts-train", src / "opt_einsum")  # kept: it leads to a folder holding no source now
    os.symlink("../scripts-train/train.py", src / "helpers" / "linked.py")  # kept, and leads nowhere
    os.symlink("helpers/prior.py", src / "run-me.py")  # a source of no Python name, through a link
    dest = harness.copy_submission(src, tmp_path / "copy")
    assert _copied(dest) == {name for name, kept in files.items() if kept} | {"opt_einsum", "helpers/linked.py"}
    assert not (dest / "opt_einsum" / "__init__.py").exists() and not (dest / "helpers" / "linked.py").exists()


@pytest.fixture
def guards_off(monkeypatch):
    """The static pickle scan, the sandbox's unpickling guard and its logging guard off: only the copy
    stands between the attack and the helper script."""
    monkeypatch.setattr(submission, "shipped_pickles", lambda root: ([], set()))
    monkeypatch.setattr(harness, "RESTRICT_UNPICKLING", False)
    monkeypatch.setattr(harness, "RESTRICT_LOGGING_CONFIG", False)


def _check(sub: Path, env) -> list[str]:  # noqa: F811
    return ["check", str(sub), *BOARD, "--quick", "--seeds", "0", "--results", str(env["results"])]


def test_no_importer_finds_a_helper_script(env, capsys, tmp_path, monkeypatch, guards_off):  # noqa: F811
    """Attack: a median that unpickles a prior naming `2024_scripts.hook.Prior` (sixty-first pass), and one
    whose logging configuration names `2024_scripts.hook.H` (sixty-second pass), each with its own guard
    off. The helper script is not in the sandbox: each load fails in one line (the module is not
    found; logging cannot configure the handler), and the script's line never ran. Control: with the helper scripts copied as before, the same
    runs end in "the helper script ran"."""
    pickled = code_submission(tmp_path / "prior", "median-prior", MEDIAN_PRIOR)
    logged = code_submission(tmp_path / "logging", "median-logging", MEDIAN_LOGGING)
    for sub in (pickled, logged):
        (sub / "2024_scripts").mkdir()
        (sub / "2024_scripts" / "hook.py").write_text(HOOK.replace("class Prior", "class Prior:\n    pass\n\n\nclass H"))
    (pickled / "prior.pkl").write_bytes(pickle_of("2024_scripts.hook", "Prior"))
    (logged / "logging.json").write_text(json.dumps({"version": 1, "handlers": {"h": {"()": "2024_scripts.hook.H"}}}))

    for sub, failure in ((pickled, "No module named '2024_scripts.hook'"), (logged, "Unable to configure handler 'h'")):
        assert main(_check(sub, env)) == 1
        err = capsys.readouterr().err
        assert err.count("\n") == 1 and failure in err and "the helper script ran" not in err, err

    monkeypatch.setattr(harness, "is_helper_script", lambda rel: False)  # control: the scripts copied
    for sub in (pickled, logged):
        assert main(_check(sub, env)) == 1
        assert "the helper script ran" in capsys.readouterr().err
