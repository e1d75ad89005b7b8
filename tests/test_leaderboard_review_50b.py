"""Fiftieth adversarial pass (2026-12-05), submit side: a plain `.py` module (or package) at the top of
the folder named as a standard or installed module passed every check, and Python imported it from the
submission folder (first on the sandbox's `sys.path`) in place of the real one wherever the harness, its
unpickling guard or a pickle the scan allows imported that name after that point: code ran that no
source of the folder imports, before the predictor was imported or while it loaded weights the scan
had passed. The forty-ninth pass refused only the compiled form of the same file."""

from __future__ import annotations

import pickle
from pathlib import Path

import pytest

from perfgraphs.cli import main
from test_leaderboard_review_49b import MEDIAN  # the median that imports nothing of its folder
from test_submit import BOARD, code_submission, env  # noqa: F401 — env is a fixture




# the median, which first loads a prior shipped beside it (a pickle the scan reads and passes)
MEDIAN_WITH_PRIOR = MEDIAN.replace(
    "    def fit(self, train, val):\n",
    "    def fit(self, train, val):\n"
    "        import pickle, pathlib\n"
    "        self.prior = pickle.loads((pathlib.Path(__file__).parent / 'prior.pkl').read_bytes())\n")

# a global of torch's weights_only allow-list (what torch.save writes for every tensor)
TORCH_GLOBAL = b"\x80\x02ctorch._utils\n_rebuild_tensor_v2\nq\x00."


def _check(sub: Path, env) -> list[str]:  # noqa: F811
    return ["check", str(sub), *BOARD, "--quick", "--seeds", "0", "--results", str(env["results"])]


def test_a_standard_module_of_the_folder_is_refused(env, capsys, tmp_path, monkeypatch):  # noqa: F811
    """Attack: `predictor.py` is a median that imports nothing of the folder, and beside it lies a plain
    `pickletools.py` (a copy of the standard module would do, with one line added). The forty-ninth
    pass refused a compiled `pickletools.cpython-311-x86_64-linux-gnu.so` there; its source form passed
    every check. The sandbox child puts the folder first on `sys.path`, then its unpickling guard imports
    `pickle_scan`, whose `import pickletools` (nothing had imported it yet) loaded the folder's file: its
    code ran before the predictor was imported, from no import a review of the folder's sources finds
    (here it raises, so the run fails with its message). Now `check` refuses, in one line, a module or
    package at the top of the folder that takes a standard or installed module's name. Control: without
    the file the folder scores; with the refusal off, the file's code runs."""
    from perfgraphs.leaderboard import submission

    sub = code_submission(tmp_path / "shadow", "median-shadow", MEDIAN)
    assert main(_check(sub, env)) == 0, capsys.readouterr().err  # control: the median alone scores
    capsys.readouterr()

    (sub / "pickletools.py").write_text("raise RuntimeError('the folder pickletools ran')\n")
    assert main(_check(sub, env)) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "pickletools.py" in err and "standard or installed module" in err, err
    assert "ran" not in err

    monkeypatch.setattr(submission, "library_names", lambda root: [])  # control: the refusal off
    assert main(_check(sub, env)) == 1
    assert "RuntimeError: the folder pickletools ran" in capsys.readouterr().err


def test_a_library_package_of_the_folder_is_refused(env, capsys, tmp_path, monkeypatch):  # noqa: F811
    """Attack: the median loads a `prior.pkl` that names `torch._utils._rebuild_tensor_v2`, a global of
    torch's `weights_only` allow-list, which the scan passes (it judges the name by the installed torch)
    and the sandbox's guard passes too; beside it a `torch/` package of plain `.py` files that nothing
    of the folder imports. In the sandbox no module had imported torch, so the guard's own look at
    torch's allow-list (`from torch import _weights_only_unpickler`), and the unpickler after it, imported
    the folder's `torch/`: its code ran while loading a pickle both layers had passed. Refused now in one
    line, as above. Controls: without the package the prior loads and the folder scores; with the refusal
    off, the package's code runs."""
    from perfgraphs.leaderboard import submission
    from perfgraphs.leaderboard.pickle_scan import global_problem

    assert global_problem(tmp_path, "torch._utils", "_rebuild_tensor_v2") is None  # the scan's verdict
    assert pickle.loads(TORCH_GLOBAL).__module__ == "torch._utils"
    sub = code_submission(tmp_path / "torch-shadow", "median-prior", MEDIAN_WITH_PRIOR)
    (sub / "prior.pkl").write_bytes(TORCH_GLOBAL)
    assert main(_check(sub, env)) == 0, capsys.readouterr().err  # control: the prior loads, the folder scores
    capsys.readouterr()

    (sub / "torch").mkdir()
    (sub / "torch" / "__init__.py").write_text("raise RuntimeError('the folder torch ran')\n")
    assert main(_check(sub, env)) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "torch/__init__.py" in err and "standard or installed module" in err, err
    assert "ran" not in err

    monkeypatch.setattr(submission, "library_names", lambda root: [])  # control: the refusal off
    assert main(_check(sub, env)) == 1
    assert "RuntimeError: the folder torch ran" in capsys.readouterr().err


def test_a_module_of_its_own_name_passes(env, capsys, tmp_path):  # noqa: F811
    """Control for the refusal's reach: a helper module of a name no module of the interpreter or the
    environment takes (and one in a subfolder, which only the predictor's own `sys.path` line would put
    there, in the source a review reads) is the submission's, and the folder scores."""
    sub = code_submission(tmp_path / "own", "median-own", MEDIAN.replace(
        "import numpy as np\n", "import numpy as np\nfrom median_helpers import LEVEL  # noqa: F401\n"))
    (sub / "median_helpers.py").write_text("LEVEL = 1.0\n")
    (sub / "vendor-code").mkdir()  # no Python name: no import reaches it unless the predictor's own line does
    (sub / "vendor-code" / "pickletools.py").write_text("X = 1\n")
    assert main(_check(sub, env)) == 0, capsys.readouterr().err


def test_a_module_no_source_imports_is_refused(env, capsys, tmp_path, monkeypatch):  # noqa: F811
    """The attack above with a name nothing installed here has (found by the same pass, closed after
    it): torch tries `import opt_einsum` as an optional dependency when it is imported, and that name
    was the folder's `opt_einsum.py`, run by a median whose only import is torch. Python reaches a
    top-level name of the folder only through an import of it, so a module (or a folder holding `.py`
    files: a namespace package) that none of the folder's sources imports is refused in one line.
    Controls: the median alone scores; with the refusal off the module's code runs."""
    import importlib.util

    from perfgraphs.leaderboard import submission

    if importlib.util.find_spec("opt_einsum") is not None:
        pytest.skip("opt_einsum is installed here: library_names refuses the name (tested above)")
    sub = code_submission(tmp_path / "optional", "median-torch", MEDIAN.replace(
        "    def fit(self, train, val):\n", "    def fit(self, train, val):\n        import torch  # noqa: F401\n"))
    assert main(_check(sub, env)) == 0, capsys.readouterr().err  # control: the median alone scores
    capsys.readouterr()

    (sub / "opt_einsum.py").write_text("raise RuntimeError('the folder opt_einsum ran')\n")
    assert main(_check(sub, env)) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "opt_einsum.py" in err and "none of its sources imports" in err, err

    monkeypatch.setattr(submission, "unimported_modules", lambda root, entry_point, imported: [])  # control: off
    assert main(_check(sub, env)) == 1
    assert "RuntimeError: the folder opt_einsum ran" in capsys.readouterr().err
