"""Forty-eighth adversarial pass (2026-12-05), submit side: the sandbox's unpickling guard held
`pickle`'s and `_pickle`'s names, but the libraries the child imports before the guard keep their own
references to the unrestricted unpickler (dill's `Unpickler`, cloudpickle's `load`/`loads`), and a
pickle no static form shows ran through `dill.loads` and `cloudpickle.loads`."""

from __future__ import annotations

import pickle

import pytest

from perfgraphs.cli import main
from perfgraphs.leaderboard.pickle_scan import shipped_pickle_problems
from test_leaderboard_pickle_scan import LOADS_PRIOR, _RunsCode, assert_the_guard_refuses_what_runs_without_it
from test_submit import BOARD, only_the_layer_under_test, code_submission, env  # noqa: F401 — env is a fixture

# loaders a predictor calls as it would call joblib.load: libraries of the sandbox's environment that
# the child has imported (datasets imports dill and multiprocess, which import the others) before the
# guard is put in place
LOADERS = {
    "dill": ("import dill", "dill.loads"),
    "cloudpickle": ("import cloudpickle", "cloudpickle.loads"),
}


def _predictor(loader: str) -> str:
    imports, call = LOADERS[loader]
    return (imports + "\n" + LOADS_PRIOR).replace(
        "pickle.loads((Path(__file__).parent / 'prior.pkl').read_bytes())",
        f"{call}((Path(__file__).parent / 'prior.bin').read_bytes()[8:])  # after its 8-byte header")


@pytest.mark.parametrize("loader", sorted(LOADERS))
def test_a_librarys_early_bound_unpickler_is_restricted_too(env, capsys, tmp_path, monkeypatch, loader):  # noqa: F811
    """Attack: `prior.bin` is an 8-byte header and a pickle naming `builtins.exec` (no form the static
    scan reads, as in the sandbox test of session 46), loaded by `dill.loads` or `cloudpickle.loads`,
    read by a reviewer as `joblib.load` is. The guard replaced `pickle.loads`, `_pickle.loads` and
    the `Unpickler` names, but `dill._dill.Unpickler` subclasses the C unpickler (its `find_class`
    is the C one), and cloudpickle bound `_pickle.loads` when `datasets` imported it, before the
    guard: the pickled line ran in the sandbox. Now the guard also restricts what the modules
    already imported hold (`sandbox.unpickling`): `check` fails with the sandbox's refusal. Control:
    the scan passes the folder, and with the guard off the line runs."""
    sub = code_submission(tmp_path / loader, f"median-{loader}", "")
    (sub / "predictor.py").write_text(_predictor(loader))
    data = b"PGWEIGHT" + pickle.dumps({"scale": 1.0, "note": _RunsCode()})
    (sub / "prior.bin").write_bytes(data)
    assert shipped_pickle_problems(sub) == []  # control: no form the scan reads

    assert_the_guard_refuses_what_runs_without_it(sub, env, capsys, monkeypatch)


def test_honest_pickles_and_pools_still_work_under_the_guard(tmp_path):
    """Control for the fix: in a process whose unpickling is restricted, dill and cloudpickle still
    load a pickle of the allowed classes (a numpy array, a fitted scikit-learn model) and refuse
    `builtins.exec`; the pools' channels keep the unrestricted unpickler, since a worker unpickles
    the function it is sent: `multiprocessing.Pool.map` of a script's function and `datasets`'
    `map(num_proc=2)` of a lambda (multiprocess, dill) still run."""
    import subprocess
    import sys
    import textwrap

    script = textwrap.dedent(f"""
        import pickle, sys
        import datasets, numpy as np
        from sklearn.linear_model import Ridge
        from perfgraphs.leaderboard.sandbox.unpickling import restrict_unpickling
        restrict_unpickling(__import__("pathlib").Path({str(tmp_path)!r}))
        import dill, cloudpickle, multiprocessing

        def double(x):
            return 2 * x

        honest = pickle.dumps({{"w": np.arange(3.0), "m": Ridge().fit(np.eye(3), np.arange(3.0))}})
        bad = {pickle.dumps(_RunsCode())!r}
        for loads in (dill.loads, cloudpickle.loads, pickle.loads):
            assert list(loads(honest)["w"]) == [0.0, 1.0, 2.0]
            try:
                loads(bad)
            except pickle.UnpicklingError as exc:
                assert "refused to unpickle builtins.exec" in str(exc), exc
            else:
                sys.exit("loaded")
        with multiprocessing.get_context("fork").Pool(2) as pool:
            assert pool.map(double, [1, 2, 3]) == [2, 4, 6]
        ds = datasets.Dataset.from_dict({{"x": [1, 2, 3, 4]}}).map(lambda r: {{"y": 2 * r["x"]}}, num_proc=2)
        assert ds["y"] == [2, 4, 6, 8]
        print("ok")
    """)
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=180,
                         cwd=tmp_path)
    assert out.returncode == 0 and out.stdout.strip().endswith("ok"), out.stderr[-2000:]


HELPERS_PRIOR = (
    "import numpy as np\n"
    "from scipy.stats import rv_continuous\n"
    "class Prior(rv_continuous):\n"
    "    \"\"\"A flat prior on the level, pickled with its fitted bounds.\"\"\"\n"
    "    def _pdf(self, x):\n"
    "        return np.ones_like(x)\n")


def _own_distribution_pickle(line: str = "raise RuntimeError('the pickled line ran')") -> bytes:
    """A pickle of the submission's `helpers.Prior` (NEWOBJ, then BUILD) whose state sets
    `_parse_arg_template`, which scipy's `rv_generic.__setstate__` runs with `exec`."""
    state = pickle.dumps({"_parse_arg_template": line, "a": 0.0, "b": 1.0}, protocol=2)[2:-1]
    return b"\x80\x02chelpers\nPrior\n)\x81" + state + b"b."


def test_an_own_class_that_inherits_a_state_running_library_class_is_refused(env, capsys, tmp_path,  # noqa: F811
                                                                            monkeypatch):
    """Attack: a submission's own class is allowed in a shipped pickle (its source is reviewed), and
    the forty-second pass refused scipy.stats distributions (`STATE_RUNS_CODE`) by the library class
    only: `helpers.py` defines `class Prior(rv_continuous)`, a flat prior as a reviewer reads it,
    and `prior.pkl` holds a `Prior` whose state is `{"_parse_arg_template": "<a line>"}`. Both the
    scan and the sandbox's guard passed it as the submission's class, and loading it ran the line
    (`rv_generic.__setstate__` runs `exec` of it). Now an own class whose bases reach such a class
    (through the module's imports) is refused by the scan in one line, and the guard refuses any
    class it looks up that is one. Control: the scan's and the guard's refusals off, the line runs."""
    only_the_layer_under_test(monkeypatch)  # its folder ships modules no source imports (refused since 50b)
    from perfgraphs.leaderboard import pickle_scan
    from perfgraphs.leaderboard.sandbox import harness

    sub = code_submission(tmp_path / "own", "median-own-prior", "")
    (sub / "predictor.py").write_text(LOADS_PRIOR)
    (sub / "helpers.py").write_text(HELPERS_PRIOR)
    (sub / "prior.pkl").write_bytes(_own_distribution_pickle())
    argv = ["check", str(sub), *BOARD, "--quick", "--seeds", "0", "--results", str(env["results"])]
    assert main(argv) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "a pickle naming helpers.Prior" in err and "rv_generic" in err, err

    # the guard alone: the same bytes behind a header no static form reads
    (sub / "prior.pkl").unlink()
    (sub / "predictor.py").write_text(LOADS_PRIOR.replace(
        "pickle.loads((Path(__file__).parent / 'prior.pkl').read_bytes())",
        "pickle.loads((Path(__file__).parent / 'prior.bin').read_bytes()[8:])"))
    (sub / "prior.bin").write_bytes(b"PGWEIGHT" + _own_distribution_pickle())
    assert shipped_pickle_problems(sub) == []
    assert main(argv) == 1
    err = capsys.readouterr().err
    assert "the sandbox refused to unpickle helpers.Prior" in err and "the pickled line ran" not in err, err

    monkeypatch.setattr(harness, "RESTRICT_UNPICKLING", False)  # control: the guard off, the line runs
    assert main(argv) == 1
    assert "RuntimeError: the pickled line ran" in capsys.readouterr().err

    (sub / "prior.pkl").write_bytes(_own_distribution_pickle())
    assert any("helpers.Prior" in p for p in shipped_pickle_problems(sub))
    monkeypatch.setattr(pickle_scan, "STATE_RUNS_CODE", ())  # control: the scan's refusal is that list
    assert shipped_pickle_problems(sub) == []


def test_own_classes_on_other_library_bases_still_pass(tmp_path):
    """Control for the fix: a submission's classes built on scikit-learn's `BaseEstimator`, a scipy
    class that runs nothing (`CubicSpline`, through `from scipy import interpolate`) or on one
    another pass the scan; one deriving, through another of its classes, from `rv_continuous` does
    not."""
    from perfgraphs.leaderboard.pickle_scan import global_problem

    # not "models": importing onnxruntime.transformers (the suite's ORT tests do) appends its folder to
    # sys.path, whose models/ package then takes that name before the submission's file
    (tmp_path / "helpers.py").write_text(
        "from sklearn.base import BaseEstimator\n"
        "from scipy import interpolate, stats\n"
        "from flat_priors import Flat\n"
        "class Model(BaseEstimator):\n    pass\n"
        "class Spline(interpolate.CubicSpline):\n    pass\n"
        "class Tuned(Model):\n    pass\n"
        "class Wrapped(Flat):\n    pass\n")
    (tmp_path / "flat_priors.py").write_text("import scipy.stats as st\nclass Flat(st.rv_continuous):\n    pass\n")
    for name in ("Model", "Spline", "Tuned"):
        assert global_problem(tmp_path, "helpers", name) is None, name
    for module, name in (("helpers", "Wrapped"), ("flat_priors", "Flat")):
        assert "rv_generic" in (global_problem(tmp_path, module, name) or ""), (module, name)
