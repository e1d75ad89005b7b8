"""The fortieth adversarial pass's open lead, closed (session 46, 2026-12-04): a pickle a submission
ships runs what its bytes name when the predictor loads it, code no review of the ``.py`` files sees.
``check``/``submit`` now read every shipped pickle's opcodes (never loading it) and refuse one naming
anything but the containers, numpy/scikit-learn/SciPy/XGBoost/LightGBM classes, torch's
``weights_only`` allow-list or the submission's own classes (``perfgraphs.leaderboard.pickle_scan``).
Each attack test has a control showing the attack working without the scan; the false-positive
tests pickle real fitted estimators, a torch state dict and the project's own ``estimator_submission``."""

from __future__ import annotations

import io
import pickle
import zipfile

import numpy as np
import pytest

from perfgraphs.cli import main
from perfgraphs.leaderboard.pickle_scan import global_problem, shipped_pickle_problems
from test_submit import BOARD, code_submission, env  # noqa: F401 — env is a fixture

LOADS_PRIOR = (
    "import pickle\n"
    "from pathlib import Path\n"
    "import numpy as np\n"
    "class Predictor:\n"
    "    def __init__(self, target, seed=0, quick=False):\n"
    "        self.target = target\n"
    "        self.prior = pickle.loads((Path(__file__).parent / 'prior.pkl').read_bytes())  # a dict of settings\n"
    "    def fit(self, train, val):\n"
    "        self.level = float(np.median(train[self.target]))\n"
    "    def predict(self, graphs):\n"
    "        return np.full(len(graphs), self.level)\n")


class _RunsCode:
    """Unpickled, it runs ``exec`` of a line no source of the submission holds."""

    def __reduce__(self):
        return (exec, ("raise RuntimeError('the pickled line ran')",))


def _hidden_pickles() -> dict[str, bytes]:
    """The same code-running pickle as the predictor could load it: plain (protocol 0 and 5), inside
    a zip member, gzip-compressed, and as an object ``.npy``."""
    import gzip

    plain = pickle.dumps({"scale": 1.0, "note": _RunsCode()})
    archive = io.BytesIO()
    with zipfile.ZipFile(archive, "w") as z:
        z.writestr("weights/data.pkl", plain)
    npy = io.BytesIO()
    np.save(npy, np.array([_RunsCode()], dtype=object), allow_pickle=True)
    return {"proto5": plain, "proto0": pickle.dumps(_RunsCode(), protocol=0), "zip": archive.getvalue(),
            "gzip": gzip.compress(plain), "npy": npy.getvalue()}


def test_a_shipped_pickle_does_not_run_code_no_source_shows(env, capsys, tmp_path, monkeypatch):  # noqa: F811
    """Attack: a `predictor.py` that reads as a median loads `prior.pkl` ("a dict of settings"), whose
    bytes name `builtins.exec` and a line of code: unpickling ran it in the sandbox, code the review of
    the source never sees (the fortieth pass's lead). Now `check` refuses the folder in one line before
    anything runs, naming the global, whatever the pickle's protocol or wrapping (a zip member, gzip,
    an object `.npy`). Control: without the scan the pickled line runs."""
    from perfgraphs.leaderboard import submission

    sub = code_submission(tmp_path / "pk", "median-prior", "")
    (sub / "predictor.py").write_text(LOADS_PRIOR)
    argv = ["check", str(sub), *BOARD, "--quick", "--seeds", "0", "--results", str(env["results"])]
    for kind, data in _hidden_pickles().items():
        (sub / "prior.pkl").write_bytes(data)
        assert main(argv) == 1, kind
        err = capsys.readouterr().err
        assert err.count("\n") == 1 and "prior.pkl: a pickle naming builtins.exec" in err, (kind, err)
        assert "the pickled line ran" not in err

    (sub / "prior.pkl").write_bytes(_hidden_pickles()["proto5"])
    monkeypatch.setattr(submission, "shipped_pickles", lambda root: ([], set()))  # control: the scan off
    from perfgraphs.leaderboard.sandbox import harness

    monkeypatch.setattr(harness, "RESTRICT_UNPICKLING", False)  # and the sandbox's second layer
    assert main(argv) == 1
    assert "RuntimeError: the pickled line ran" in capsys.readouterr().err


def test_the_scan_follows_what_the_unpickler_looks_up(tmp_path):
    """Attack: names the unpickler resolves otherwise than they read: a protocol-0 `posix system`,
    a STACK_GLOBAL fed from the memo, a dotted name through a module attribute of an allowed library
    (`sklearn.base` `inspect.os.system`), a function of numpy (`numpy.load`, which would unpickle
    again), a name one of the submission's modules imports rather than defines, and torch's
    `torch.load`. Each is refused; a class the submission defines passes. Control: the same bytes
    load and call their global with the unrestricted unpickler (shown for the memo route)."""
    (tmp_path / "helpers.py").write_text("from os import system\nclass Table:\n    pass\n")
    assert global_problem(tmp_path, "helpers", "Table") is None
    for module, name in (("posix", "system"), ("sklearn.base", "inspect.os.system"), ("numpy", "load"),
                         ("helpers", "system"), ("torch", "load"), ("builtins", "getattr")):
        assert global_problem(tmp_path, module, name) is not None, (module, name)

    # STACK_GLOBAL whose strings come from the memo: "builtins" and "eval" stored, then fetched
    memo_route = (b"\x80\x04\x8c\x08builtins\x94\x8c\x04eval\x94\x30\x30"  # push, memoize, pop both
                  b"h\x00h\x01\x93\x8c\x061+41*1\x85R.")  # BINGET 0, BINGET 1, STACK_GLOBAL, call
    assert pickle.loads(memo_route) == 42  # control: it names and calls builtins.eval
    (tmp_path / "w.bin").write_bytes(memo_route)
    problems = shipped_pickle_problems(tmp_path)
    assert len(problems) == 1 and "builtins.eval" in problems[0], problems

    # a STACK_GLOBAL whose strings were built by other opcodes than string pushes: unreadable, refused
    (tmp_path / "w.bin").write_bytes(b"\x80\x04\x8c\x08builtins\x8c\x04eval(t0\x93.")
    assert "cannot read" in shipped_pickle_problems(tmp_path)[0]


def test_real_weights_pass(tmp_path, env, capsys):  # noqa: F811
    """No false positives on what predictors ship: fitted scikit-learn estimators (pipelines,
    gradient boosting with a RandomState, a target transform by numpy ufuncs, a score function),
    an XGBoost regressor, a numpy Generator, pickles of protocols 0, 2 and 5, a torch state dict,
    `.npy`/`.npz` arrays and text files. And the project's own recipe: `estimator_submission`'s
    folder passes `check`."""
    import torch
    import xgboost
    from sklearn.compose import TransformedTargetRegressor
    from sklearn.ensemble import GradientBoostingRegressor, HistGradientBoostingRegressor, RandomForestRegressor
    from sklearn.feature_selection import SelectKBest, f_regression
    from sklearn.linear_model import Ridge
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler

    from perfgraphs.leaderboard.estimators import estimator_submission

    rng = np.random.default_rng(0)
    x, y = rng.random((60, 4)), rng.random(60) + 1
    fitted = [TransformedTargetRegressor(make_pipeline(StandardScaler(), Ridge()), func=np.log, inverse_func=np.exp),
              GradientBoostingRegressor(n_estimators=5, random_state=np.random.RandomState(0)),
              HistGradientBoostingRegressor(max_iter=5), RandomForestRegressor(n_estimators=3),
              make_pipeline(SelectKBest(f_regression, k=2), Ridge()), xgboost.XGBRegressor(n_estimators=3)]
    for i, estimator in enumerate(fitted):
        estimator.fit(x, y)
        for protocol in (0, 2, 5):
            (tmp_path / f"model{i}-{protocol}.pkl").write_bytes(pickle.dumps(estimator, protocol=protocol))
    (tmp_path / "rng.pkl").write_bytes(pickle.dumps(rng))
    torch.save(torch.nn.Linear(4, 2).state_dict(), tmp_path / "weights.pt")
    np.save(tmp_path / "a.npy", x)
    np.savez(tmp_path / "b.npz", a=x, b=y)
    (tmp_path / "notes.txt").write_text("(a note that starts like a protocol-0 pickle\n")
    assert shipped_pickle_problems(tmp_path) == []

    folder = estimator_submission(tmp_path / "recipe", make_pipeline(StandardScaler(), Ridge()),
                                  method="ridge-recipe", dataset=BOARD[1], config=BOARD[3], target=BOARD[5])
    assert main(["check", str(folder), "--quick", "--seeds", "0", "--results", str(env["results"])]) == 0, \
        capsys.readouterr().err


@pytest.mark.parametrize("compress", [0, 3])
def test_joblib_files_with_arrays_are_refused_in_one_line(tmp_path, compress):
    """joblib writes arrays' bytes between the pickle's opcodes, where no opcode reader follows them:
    such a file is refused with what to do instead (pickle.dump), not read as safe. Control: the
    same estimator through pickle passes."""
    import joblib
    from sklearn.linear_model import Ridge

    estimator = Ridge().fit(np.random.default_rng(0).random((20, 3)), np.arange(20.0))
    joblib.dump(estimator, tmp_path / "model.joblib", compress=compress)
    problems = shipped_pickle_problems(tmp_path)
    assert len(problems) == 1 and "joblib file holding arrays" in problems[0] and "pickle.dump" in problems[0]
    (tmp_path / "model.joblib").unlink()
    (tmp_path / "model.pkl").write_bytes(pickle.dumps(estimator))
    assert shipped_pickle_problems(tmp_path) == []


def test_a_pickle_is_read_whatever_else_the_file_is(tmp_path):
    """Attack: bytes that are two things at once: a zip archive behind a prefix that is itself a
    pickle naming `builtins.exec` (the zip reader finds its archive from the end; `pickle.loads`
    reads from the start). The scan reads a file every way a loader may: here as the pickle too.
    Control: the unrestricted unpickler runs the prefix's global."""
    archive = io.BytesIO()
    with zipfile.ZipFile(archive, "w") as z:
        z.writestr("weights.npy", b"")
    runs = pickle.dumps(_RunsCode())
    (tmp_path / "both.bin").write_bytes(runs + archive.getvalue())
    assert zipfile.is_zipfile(tmp_path / "both.bin")
    with pytest.raises(RuntimeError, match="the pickled line ran"):
        pickle.loads((tmp_path / "both.bin").read_bytes())  # control
    problems = shipped_pickle_problems(tmp_path)
    assert len(problems) == 1 and "builtins.exec" in problems[0], problems


def test_a_folder_module_named_like_a_library_does_not_vouch_for_it(tmp_path):
    """Attack: the submission ships `numpy.py` defining `class load`, and a pickle naming
    `numpy.load`: read as "a class the submission defines", yet in the sandbox `numpy` is imported
    before the predictor, so unpickling calls numpy's `load` (which unpickles again). A module name
    Python finds outside the folder is read as that library's. Control: a folder module of a name no
    library has vouches for its class."""
    (tmp_path / "numpy.py").write_text("class load:\n    pass\n")
    assert "a function" in global_problem(tmp_path, "numpy", "load")
    (tmp_path / "os.py").write_text("class system:\n    pass\n")
    assert global_problem(tmp_path, "os", "system") is not None
    (tmp_path / "my_weights_table.py").write_text("class load:\n    pass\n")
    assert global_problem(tmp_path, "my_weights_table", "load") is None  # control


def test_the_scan_never_imports_the_submissions_code(tmp_path, monkeypatch):
    """Attack: `python -m perfgraphs check .` run inside the folder puts it first on `sys.path`, and
    the folder ships an `sklearn/` package whose import runs code; a pickle naming
    `sklearn.x.Model` made the scan import it (to tell a class from a function) outside the sandbox.
    Now a library the scan would find in the folder is refused unimported. Control: imported as the
    scan did, the folder's package runs."""
    import sys

    (tmp_path / "sklearn").mkdir()
    (tmp_path / "sklearn" / "__init__.py").write_text("raise RuntimeError('the folder ran outside the sandbox')\n")
    (tmp_path / "sklearn" / "x.py").write_text("class Model:\n    pass\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    for module in [m for m in sys.modules if m == "sklearn" or m.startswith("sklearn.")]:
        monkeypatch.delitem(sys.modules, module)
    assert "never imports" in global_problem(tmp_path, "sklearn.x", "Model")
    import importlib
    with pytest.raises(RuntimeError, match="outside the sandbox"):
        importlib.import_module("sklearn.x")  # control: what importing it would have done


def test_tool_modules_of_the_allowed_libraries_are_refused():
    """The forty-second pass's lead, closed: the allowed libraries ship tools whose classes build,
    compile or call foreign code when constructed (`numpy.distutils`' compiler classes,
    `numpy.f2py`, `numpy.ctypeslib`), and numpy's top level exports classes of other modules than its
    data ones (`numpy.vectorize`, whose call runs what it wraps). A pickle naming one is refused, by
    the module it names and the module the class is defined in. Control: numpy's data classes and a
    fitted model's scikit-learn classes pass."""
    from pathlib import Path

    root = Path("/nonexistent-submission")
    for module, name in (("numpy.distutils.ccompiler_opt", "CCompilerOpt"), ("numpy.f2py.auxfuncs", "F2PYError"),
                         ("numpy.ctypeslib", "c_intp"), ("numpy", "vectorize"), ("numpy.lib.npyio", "DataSource"),
                         ("sklearn.externals._packaging.version", "Version")):
        assert global_problem(root, module, name) is not None, (module, name)
    for module, name in (("numpy", "ndarray"), ("numpy", "dtype"), ("numpy.random._generator", "Generator"),
                         ("numpy.ma.core", "MaskedArray"), ("numpy", "float64"), ("sklearn.linear_model._ridge", "Ridge"),
                         ("scipy.sparse", "csr_matrix")):
        assert global_problem(root, module, name) is None, (module, name)  # control


LOADS_BEHIND_A_HEADER = LOADS_PRIOR.replace(
    "pickle.loads((Path(__file__).parent / 'prior.pkl').read_bytes())",
    "pickle.loads((Path(__file__).parent / 'prior.bin').read_bytes()[8:])  # after its 8-byte header")


def test_the_sandbox_refuses_what_no_static_scan_found(env, capsys, tmp_path, monkeypatch):  # noqa: F811
    """Attack: the static scan reads a shipped pickle in every form a loader may read it, and each
    pass found another form (a header before it, a headerless stream, a zstd frame): here
    `prior.bin` is 8 bytes of header and a pickle naming `builtins.exec`, which the predictor
    slices off before `pickle.loads` — no form the scan reads, so it passes. Now the sandbox child
    makes every unpickler of the predictor's process (`pickle`'s, `_pickle`'s, the pure-Python one
    joblib and pandas subclass, and so `np.load`/`torch.load`) refuse what the scan refuses
    (`sandbox.unpickling.restrict_unpickling`), whatever route the bytes took: `check` fails with
    the refusal, the line never runs. Control: the scan passes the folder, and the same bytes
    loaded by an unrestricted unpickler run the line, in the sandbox too."""
    sub = code_submission(tmp_path / "hdr", "median-header", "")
    (sub / "predictor.py").write_text(LOADS_BEHIND_A_HEADER)
    data = b"PGWEIGHT" + pickle.dumps({"scale": 1.0, "note": _RunsCode()})
    (sub / "prior.bin").write_bytes(data)
    assert shipped_pickle_problems(sub) == []  # control: no form the scan reads
    with pytest.raises(RuntimeError, match="the pickled line ran"):
        pickle.loads(data[8:])  # control: what loading it does without the sandbox's unpickler

    assert_the_guard_refuses_what_runs_without_it(sub, env, capsys, monkeypatch)


def test_tensor_storage_bytes_are_not_read_as_unreadable_pickles(tmp_path):
    """A false positive found in session 48's subset run (the test above failed once in two runs):
    a ``torch.save`` archive's storages are raw tensor bytes, and one starting with an EXT or
    STACK_GLOBAL opcode byte was refused as "a pickle the scan cannot read" — resnet18's and
    vit_tiny's state dicts always, one ``nn.Linear(4, 2)`` in 30 (seed 16). Bytes that are no whole
    pickle are now judged by what the unpickler would do with them. Controls: the same bytes in
    the hands of an unpickler whose extension registry names ``builtins.exec`` are refused, and a
    storage member that is a whole pickle naming ``builtins.exec`` is refused."""
    import copyreg

    import timm
    import torch

    for i, (seed, model) in enumerate([(16, lambda: torch.nn.Linear(4, 2)),
                                       (0, lambda: timm.create_model("resnet18")),
                                       (0, lambda: timm.create_model("vit_tiny_patch16_224"))]):
        torch.manual_seed(seed)
        torch.save(model().state_dict(), tmp_path / f"weights{i}.pt")
    assert shipped_pickle_problems(tmp_path) == []
    # control 1: an EXT2 byte string that is no whole pickle, loaded where extension 4660 is exec
    (tmp_path / "ext.bin").write_bytes(b"\x83\x34\x12" + bytes(range(200, 216)))
    copyreg.add_extension("builtins", "exec", 4660)
    try:
        assert any("builtins.exec" in p for p in shipped_pickle_problems(tmp_path))
    finally:
        copyreg.remove_extension("builtins", "exec", 4660)
    (tmp_path / "ext.bin").unlink()
    # control 2: a storage member that is a whole pickle naming builtins.exec
    with zipfile.ZipFile(tmp_path / "weights0.pt", "a") as archive:
        archive.writestr("archive/data/9", pickle.dumps(exec))
    assert any("exec" in p for p in shipped_pickle_problems(tmp_path))


def assert_the_guard_refuses_what_runs_without_it(sub, env, capsys, monkeypatch):  # noqa: F811 — env: the fixture's value
    """``check`` of ``sub`` fails with the sandbox's refusal of ``builtins.exec``, and (control) with
    the sandbox's unpickling unrestricted the pickled line runs ("the pickled line ran")."""
    argv = ["check", str(sub), *BOARD, "--quick", "--seeds", "0", "--results", str(env["results"])]
    assert main(argv) == 1
    err = capsys.readouterr().err
    assert "the sandbox refused to unpickle builtins.exec" in err and "the pickled line ran" not in err, err

    from perfgraphs.leaderboard.sandbox import harness

    monkeypatch.setattr(harness, "RESTRICT_UNPICKLING", False)  # control: the sandbox's unpickling unrestricted
    assert main(argv) == 1
    assert "RuntimeError: the pickled line ran" in capsys.readouterr().err
