"""Fifty-ninth adversarial pass (2026-12-05), submit side: a folder at the top of the submission
without an `__init__.py`, named as an installed *namespace* package (`cuda/`, which cuda-python installs
as `cuda.bindings` and `cuda.pathfinder`), passed every check: `library_names` (fiftieth pass) judged
only a `name.py` or a `name/__init__.py`, and `unimported_modules` leaves library names to it. Python
merges every `cuda/` folder on `sys.path` into one package, the submission's first, so `import torch`
(whose `torch.cuda._utils` imports `cuda.bindings`) ran the folder's `cuda/bindings/__init__.py`: code
that no source of the folder imports. A real `cuda/` holding only a link `bindings -> ../scripts-train`
ran the linked folder the same way (`_holds_python` did not follow links inside a folder)."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

from perfgraphs.cli import main
from perfgraphs.leaderboard.sandbox import harness
from test_leaderboard_review_49b import MEDIAN  # the median that imports nothing of its folder
from test_leaderboard_review_58b import MEDIAN_TORCH  # the median whose fit imports torch, nothing else
from test_submit import BOARD, code_submission, env  # noqa: F401 — env is a fixture


def _cuda_is_a_namespace() -> bool:
    """Whether `cuda` is installed here as a namespace package that `import torch` imports from."""
    spec = importlib.util.find_spec("cuda")
    return spec is not None and spec.origin is None and importlib.util.find_spec("cuda.bindings") is not None


needs_cuda_namespace = pytest.mark.skipif(not _cuda_is_a_namespace(), reason="no cuda-python namespace package here")


def _check(sub: Path, env) -> list[str]:  # noqa: F811
    return ["check", str(sub), *BOARD, "--quick", "--seeds", "0", "--results", str(env["results"])]


def _refused_and_run_without_the_refusal(sub: Path, env, capsys, monkeypatch, ran: str) -> None:  # noqa: F811
    """`check` refuses the folder in one line naming `cuda/` before anything runs; with
    `library_names` off (the control), the folder's code runs and raises ``RuntimeError: {ran}``."""
    from perfgraphs.leaderboard import submission

    assert main(_check(sub, env)) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "cuda/" in err and "standard or installed module" in err, err
    assert "ran" not in err
    monkeypatch.setattr(submission, "library_names", lambda root: [])
    # where the folder's code is a helper script, the sandbox's copy leaves it out: off too, to show it run
    monkeypatch.setattr(harness, "is_helper_script", lambda rel: False)
    assert main(_check(sub, env)) == 1
    assert f"RuntimeError: {ran}" in capsys.readouterr().err


@needs_cuda_namespace
def test_a_namespace_folder_of_a_library_name_is_refused(env, capsys, tmp_path, monkeypatch):  # noqa: F811
    """Attack: a median whose only import is torch, and beside it `cuda/bindings/__init__.py` (no
    `cuda/__init__.py`). The fiftieth pass refused a `cuda/__init__.py`; a namespace portion passed, and
    torch's `from cuda.bindings import driver` took the folder's `bindings` first. Now `check` refuses, in
    one line, a folder of Python at the top under a library's name. Controls: the median alone scores;
    with the refusal off, the folder's code runs."""
    sub = code_submission(tmp_path / "namespace", "median-torch", MEDIAN_TORCH)
    assert main(_check(sub, env)) == 0, capsys.readouterr().err  # control: the median alone scores
    capsys.readouterr()

    (sub / "cuda" / "bindings").mkdir(parents=True)
    (sub / "cuda" / "bindings" / "__init__.py").write_text("raise RuntimeError('the folder cuda.bindings ran')\n")
    _refused_and_run_without_the_refusal(sub, env, capsys, monkeypatch, "the folder cuda.bindings ran")


@needs_cuda_namespace
def test_a_link_inside_a_library_named_folder_is_refused(env, capsys, tmp_path, monkeypatch):  # noqa: F811
    """Attack: a real folder `cuda/` holding no Python, only a link `bindings -> ../scripts-train` (a
    helper scripts' folder with an `__init__.py`). `_holds_python` looked for `.py` files without
    following links, so `cuda/` read as a data folder; torch's `import cuda.bindings` followed the link
    and ran `scripts-train/__init__.py`. Refused now in one line. Control: with the refusal off, it runs."""
    sub = code_submission(tmp_path / "inner-link", "median-torch", MEDIAN_TORCH)
    (sub / "scripts-train").mkdir()
    (sub / "scripts-train" / "__init__.py").write_text("raise RuntimeError('the linked cuda.bindings ran')\n")
    (sub / "cuda").mkdir()
    (sub / "cuda" / "bindings").symlink_to("../scripts-train", target_is_directory=True)
    _refused_and_run_without_the_refusal(sub, env, capsys, monkeypatch, "the linked cuda.bindings ran")


def test_a_data_folder_with_an_inner_link_passes(env, capsys, tmp_path):  # noqa: F811
    """Control of the fix: a data folder at the top holding a link to another data folder (no Python
    anywhere) is no package and passes, under a free name as under a library's (`google/`)."""
    sub = code_submission(tmp_path / "data-links", "median-data", MEDIAN)
    (sub / "tables-v2").mkdir()
    (sub / "tables-v2" / "prior.json").write_text("{}\n")
    for name in ("tables", "google"):
        (sub / name).mkdir()
        (sub / name / "latest").symlink_to("../tables-v2", target_is_directory=True)
    assert main(_check(sub, env)) == 0, capsys.readouterr().err
