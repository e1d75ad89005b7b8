"""Forty-second adversarial pass (2026-12-04), submit side: the shipped-pickle scan of session 46
(`perfgraphs.leaderboard.pickle_scan`), attacked through `perfgraphs check` with pickles it passed
whose loading ran code no source shows.
Each test is one attack that worked before its fix, with a control that shows it working without
the guard."""

from __future__ import annotations

import pickle

import pytest

from perfgraphs.cli import main
from test_leaderboard_pickle_scan import LOADS_PRIOR
from test_submit import BOARD, only_the_layer_under_test, code_submission, env  # noqa: F401 — env is a fixture


@pytest.fixture(autouse=True)
def _sandbox_unpickling_unrestricted(monkeypatch):
    """These tests' attacks are refused by the static scan before anything runs; their controls show
    what the pickle does once past it, so the sandbox's second layer (its allow-listed unpickling,
    session 46, tested in tests/test_leaderboard_pickle_scan.py) is off here."""
    from perfgraphs.leaderboard.sandbox import harness

    monkeypatch.setattr(harness, "RESTRICT_UNPICKLING", False)


class _RunsCode:
    """Unpickled, it runs ``exec`` of a line no source of the submission holds."""

    def __reduce__(self):
        return (exec, ("raise RuntimeError('the pickled line ran')",))


def test_a_module_named_like_the_standard_library_is_not_the_submissions_own(env, capsys, tmp_path,  # noqa: F811
                                                                           monkeypatch):
    """Attack: the scan lets a pickle name a class the submission's own source defines, and took any
    module whose file is in the folder for the submission's: a `builtins.py` holding `class exec:
    pass` made `builtins.exec` "the submission's own class", yet the unpickler looks `builtins` up in
    `sys.modules` (the interpreter's, always loaded: as are `os`, `sys`, numpy...) and `prior.pkl`
    ran `exec` of a line no source holds. Now a module counts as the submission's only where no
    standard, built-in, loaded or installed module has its name (`pickle_scan._own_module`):
    `check` refuses in one line before anything runs. Control: with every folder module taken as
    the submission's, as before, the pickled line runs."""
    from perfgraphs.leaderboard import pickle_scan, submission

    # the pickle scan's layer alone: since the fiftieth pass `check` also refuses the `builtins.py`
    # itself (a standard module's name, `submission.library_names`), in a line of its own
    monkeypatch.setattr(submission, "library_names", lambda root: [])
    sub = code_submission(tmp_path / "pk", "median-prior", "")
    (sub / "predictor.py").write_text(LOADS_PRIOR)
    (sub / "builtins.py").write_text("class exec:\n    pass\n")
    (sub / "prior.pkl").write_bytes(pickle.dumps({"scale": 1.0, "note": _RunsCode()}))
    argv = ["check", str(sub), *BOARD, "--quick", "--seeds", "0", "--results", str(env["results"])]
    assert main(argv) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "prior.pkl: a pickle naming builtins.exec" in err, err
    assert "the pickled line ran" not in err

    monkeypatch.setattr(pickle_scan, "_own_module", lambda root, top: True)  # control: as before
    assert main(argv) == 1
    assert "RuntimeError: the pickled line ran" in capsys.readouterr().err


def test_a_pickle_the_scans_reader_misreads_is_not_taken_for_no_pickle(env, capsys, tmp_path,  # noqa: F811
                                                                       monkeypatch):
    """Attack: the scan reads opcodes with `pickletools`, and a file whose opcodes it could not parse
    (without a protocol 2+ header) was "no pickle". The unpickler reads some arguments otherwise:
    `I0x10` is an integer to it (base 0) and an error to pickletools, so a `prior.pkl` starting with
    that line and a popped `0`, then naming `builtins.exec` (also behind a protocol-1 header, or as a
    second pickle after an honest one), passed the scan and loading it ran the line. Now where
    pickletools stops, Python's own unpickler is run up to its first global lookup, which is stopped
    before anything imports (`pickle_scan._unpickler_names_nothing`): naming a module, the file is
    refused in one line. Control: without that probe the pickled line runs."""
    from perfgraphs.leaderboard import pickle_scan

    sub = code_submission(tmp_path / "pk", "median-prior", "")
    (sub / "predictor.py").write_text(LOADS_PRIOR)
    hidden = b"I0x10\n0cbuiltins\nexec\n(S'raise RuntimeError(\"the pickled line ran\")'\ntR."
    argv = ["check", str(sub), *BOARD, "--quick", "--seeds", "0", "--results", str(env["results"])]
    for data in (hidden, b"\x80\x01" + hidden):
        (sub / "prior.pkl").write_bytes(data)
        assert main(argv) == 1
        err = capsys.readouterr().err
        assert err.count("\n") == 1 and "prior.pkl: a pickle the scan cannot read" in err, err
        assert "builtins.exec" in err and "the pickled line ran" not in err
    (sub / "prior.pkl").write_bytes(pickle.dumps({"scale": 1.0}) + hidden)  # read as two, back to back
    assert "builtins.exec" in pickle_scan.shipped_pickle_problems(sub)[0]
    (sub / "notes.csv").write_text("coef,mape\n0.5,12\n")  # text that starts like a pickle: no lookup
    (sub / "PARAMS.txt").write_text("Params: lr=0.1\nfoo\n")  # read as a persistent id, then nothing
    (sub / "prior.pkl").write_bytes(pickle.dumps({"scale": 1.0}))
    assert pickle_scan.shipped_pickle_problems(sub) == []

    (sub / "prior.pkl").write_bytes(hidden)
    monkeypatch.setattr(pickle_scan, "_unpickler_names_nothing", lambda data: None)  # control: as before
    assert main(argv) == 1
    assert "RuntimeError: the pickled line ran" in capsys.readouterr().err


def test_python_2_names_are_renamed_only_where_the_unpickler_renames_them(env, capsys, tmp_path,  # noqa: F811
                                                                          monkeypatch):
    """Attack: the scan renamed Python 2's module names (`copy_reg` to `copyreg`) in every pickle,
    the unpickler only at a protocol below 3. A protocol-4 `prior.pkl` naming
    `copy_reg._reconstructor` read as the allowed `copyreg._reconstructor`, while the unpickler
    imported the folder's `copy_reg.py` ("Python 2's name, for old pickles": `_reconstructor =
    exec`) and called `exec` of a line no source holds; a `PROTO 2` written after the lookup
    fooled a scan that took the last protocol. Now a name is renamed only where the protocol at its
    lookup is below 3 (`pickle_scan.named_globals`), and `copy_reg` is the submission's module,
    whose `_reconstructor` is no class: refused in one line. Control: renamed always, as before,
    the pickled line runs."""
    only_the_layer_under_test(monkeypatch)  # its folder ships modules no source imports (refused since 50b)
    from perfgraphs.leaderboard import pickle_scan

    sub = code_submission(tmp_path / "pk", "median-prior", "")
    (sub / "predictor.py").write_text(LOADS_PRIOR)
    (sub / "copy_reg.py").write_text("# Python 2's name, for old pickles\n_reconstructor = exec\n")
    code = b"raise RuntimeError('the pickled line ran')"
    call = b"\x8c\x08copy_reg\x8c\x0e_reconstructor\x93\x8c" + bytes([len(code)]) + code + b"\x85R"
    argv = ["check", str(sub), *BOARD, "--quick", "--seeds", "0", "--results", str(env["results"])]
    for data in (b"\x80\x04" + call + b".", b"\x80\x04" + call + b"\x80\x020."):
        (sub / "prior.pkl").write_bytes(data)
        assert main(argv) == 1
        err = capsys.readouterr().err
        assert err.count("\n") == 1 and "prior.pkl: a pickle naming copy_reg._reconstructor" in err, err
        assert "the pickled line ran" not in err
    (sub / "old.pkl").write_bytes(pickle.dumps({1, 2}, protocol=2))  # honest protocol 2: still renamed
    assert pickle_scan.named_globals(pickle.dumps({1, 2}, protocol=0))[0] == [("builtins", "set")]

    real = pickle_scan.named_globals  # control: every name renamed, whatever the protocol, as before
    monkeypatch.setattr(pickle_scan, "named_globals", lambda data: (
        [pickle_scan._as_python3(m, n) for m, n in real(data)[0]], real(data)[1]))
    assert main(argv) == 1
    assert "RuntimeError: the pickled line ran" in capsys.readouterr().err


def test_the_scan_does_not_run_a_librarys_program_in_the_checking_process(env, capsys, tmp_path,  # noqa: F811
                                                                          monkeypatch):
    """Attack: to judge a global of numpy, scikit-learn, SciPy, XGBoost or LightGBM the scan imports
    its module in the `perfgraphs check` process itself, outside the sandbox. A `prior.pkl` naming
    `numpy.f2py.__main__.X` made the scan import f2py's program, which ran f2py's command line on
    check's own arguments: it printed f2py's lines and exited the check with status 0, nothing run
    or checked. Now a program's or tests' module (`__main__`, `tests`, `testing`, `test_*`,
    `conftest`) is refused unimported (`pickle_scan._program_module`), and an import that prints or
    exits anyway is kept out of the output and refused (`pickle_scan._resolved_quietly`): one line,
    status 1. Control: without both, the check exits where f2py exits."""
    import sys

    from perfgraphs.leaderboard import pickle_scan

    sub = code_submission(tmp_path / "pk", "median-prior", "")
    (sub / "predictor.py").write_text(LOADS_PRIOR)
    (sub / "prior.pkl").write_bytes(b"\x80\x04\x8c\x13numpy.f2py.__main__\x8c\x01X\x93.")
    argv = ["check", str(sub), *BOARD, "--quick", "--seeds", "0", "--results", str(env["results"])]
    monkeypatch.setattr(sys, "argv", ["perfgraphs", *argv])
    monkeypatch.chdir(tmp_path)
    assert main(argv) == 1
    out, err = capsys.readouterr()
    assert not out and err.count("\n") == 1 and "prior.pkl: a pickle naming numpy.f2py.__main__.X" in err, err
    assert "numpy.f2py.__main__" not in sys.modules

    monkeypatch.setattr(pickle_scan, "_program_module", lambda module: None)  # control: both off
    assert pickle_scan.global_problem(sub, "numpy.f2py.__main__", "X") == "does not resolve (ImportError)"
    monkeypatch.setattr(pickle_scan, "_resolved_quietly", pickle_scan._resolved)
    with pytest.raises(SystemExit):
        main(argv)


class _Distribution:
    """Pickled as a scipy.stats `norm_gen` whose state is one string, the code its `__setstate__`
    runs."""

    def __reduce__(self):
        import copyreg

        from scipy.stats._continuous_distns import norm_gen

        code = "raise RuntimeError('the pickled line ran')"
        return (copyreg._reconstructor, (norm_gen, object, None), {"_parse_arg_template": code})


def test_a_library_class_whose_unpickling_runs_its_state_is_refused(env, capsys, tmp_path,  # noqa: F811
                                                                    monkeypatch):
    """Attack: the scan allows every class of numpy, scikit-learn, SciPy, XGBoost and LightGBM on
    the ground that their `__setstate__` rebuilds data, but a scipy.stats distribution's runs
    `exec(self._parse_arg_template)`: a `prior.pkl` holding a `norm_gen` whose pickled state is
    `{"_parse_arg_template": "<a line>"}` passed the scan, and loading it ran the line. Now a
    subclass of `rv_generic` is refused in one line (`pickle_scan.STATE_RUNS_CODE`); other scipy
    classes still pass. Control: with that list empty, the pickled line runs."""
    from scipy.interpolate import CubicSpline

    from perfgraphs.leaderboard import pickle_scan

    sub = code_submission(tmp_path / "pk", "median-prior", "")
    (sub / "predictor.py").write_text(LOADS_PRIOR)
    (sub / "prior.pkl").write_bytes(pickle.dumps({"scale": 1.0, "prior": _Distribution()}))
    argv = ["check", str(sub), *BOARD, "--quick", "--seeds", "0", "--results", str(env["results"])]
    assert main(argv) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "a pickle naming scipy.stats._continuous_distns.norm_gen" in err, err
    assert "rv_generic" in err and "the pickled line ran" not in err
    assert pickle_scan.global_problem(sub, "scipy.interpolate._cubic", "CubicSpline") is None
    assert CubicSpline.__module__ == "scipy.interpolate._cubic"

    monkeypatch.setattr(pickle_scan, "STATE_RUNS_CODE", ())  # control: every library class allowed
    assert main(argv) == 1
    assert "RuntimeError: the pickled line ran" in capsys.readouterr().err


def test_every_compressed_stream_a_reader_reads_is_scanned(env, capsys, tmp_path, monkeypatch):  # noqa: F811
    """Attack: the scan decompressed the first stream of a gzip/bz2/xz file only, where
    `gzip.open`, `bz2.open`, `lzma.open` (and joblib's readers) read every stream back to back: a
    `prior.pkl.gz` made of a gzip of nothing and then a gzip of a pickle naming `builtins.exec`
    was an empty file to the scan, while the predictor's `pickle.load(gzip.open(...))` ran the line;
    and a stream that breaks off behind its pickle (a corrupt byte far after the code) lost all its
    output to the error and was "no stream". Now every stream is read (`pickle_scan._streams`) and
    one that breaks off after yielding something is refused; two honest members pass. Control: with
    the first stream only, as before, the pickled line runs."""
    import bz2
    import gzip
    import lzma
    import os

    from perfgraphs.leaderboard import pickle_scan

    sub = code_submission(tmp_path / "pk", "median-prior", "")
    (sub / "predictor.py").write_text(LOADS_PRIOR.replace(
        "pickle.loads((Path(__file__).parent / 'prior.pkl').read_bytes())",
        "pickle.load(__import__('gzip').open(Path(__file__).parent / 'prior.pkl.gz'))"))
    hidden = pickle.dumps({"scale": 1.0, "note": _RunsCode()})
    (sub / "prior.pkl.gz").write_bytes(gzip.compress(b"") + gzip.compress(hidden))
    argv = ["check", str(sub), *BOARD, "--quick", "--seeds", "0", "--results", str(env["results"])]
    assert main(argv) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "prior.pkl.gz: a pickle naming builtins.exec" in err, err
    assert "the pickled line ran" not in err
    other = tmp_path / "other"
    other.mkdir()
    for name, pack in (("p.bz2", bz2.compress), ("p.xz", lzma.compress)):
        (other / name).write_bytes(pack(b"") + pack(hidden))
    broken = bytearray(gzip.compress(pickle.dumps([_RunsCode(), os.urandom(100_000)]), compresslevel=1))
    broken[-6] ^= 0xFF  # the CRC: the stream errs at its end, long after the code
    (other / "broken.gz").write_bytes(bytes(broken))
    problems = pickle_scan.shipped_pickle_problems(other)
    assert len(problems) == 3 and all("builtins.exec" in p for p in problems[1:]), problems
    assert "broken.gz: a pickle the scan cannot read (a compressed stream that breaks off" in problems[0]
    honest = gzip.compress(pickle.dumps({"a": 1})) + gzip.compress(pickle.dumps([1, 2])) + b"\0" * 8
    (other / "broken.gz").unlink()
    for name in ("p.bz2", "p.xz"):
        (other / name).unlink()
    (other / "honest.gz").write_bytes(honest)
    assert pickle_scan.shipped_pickle_problems(other) == []

    monkeypatch.setattr(pickle_scan, "_streams",  # control: the first stream only, as before
                        lambda make, data, **_: make().decompress(data, pickle_scan.MAX_DECOMPRESSED_BYTES + 1))
    assert main(argv) == 1
    assert "RuntimeError: the pickled line ran" in capsys.readouterr().err


def test_an_archive_member_that_does_not_read_is_one_line(env, capsys, tmp_path, monkeypatch):  # noqa: F811
    """Attack: the scan reads every member of a shipped zip (`torch.save`'s format); a member
    flagged as encrypted (RuntimeError from the zip reader) or with corrupt deflate data
    (`zlib.error`) ended `perfgraphs check` with "internal error: RuntimeError: ... is encrypted"
    rather than the folder's one line. Now such a member is "a pickle the scan cannot read", one
    line and status 1 (`pickle_scan._member`). Control: reading the member as before, the
    check ends in an internal error."""
    import io
    import zipfile

    from perfgraphs.leaderboard import pickle_scan

    sub = code_submission(tmp_path / "pk", "median-prior", "")
    (sub / "predictor.py").write_text(LOADS_PRIOR.replace("self.prior = ", "self.prior = {}  # "))
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", compression=zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("archive/data.pkl", pickle.dumps(list(range(2000))))
    encrypted = bytearray(buf.getvalue())
    encrypted[6] |= 1  # the encryption flag, in the local and the central header
    encrypted[encrypted.rfind(b"PK\x01\x02") + 8] |= 1
    corrupt = bytearray(buf.getvalue())
    start = 30 + len("archive/data.pkl") + 5
    corrupt[start:start + 20] = b"\xff" * 20
    argv = ["check", str(sub), *BOARD, "--quick", "--seeds", "0", "--results", str(env["results"])]
    for data in (encrypted, corrupt):
        (sub / "weights.pt").write_bytes(bytes(data))
        assert main(argv) == 1
        err = capsys.readouterr().err
        assert err.count("\n") == 1 and "weights.pt: a pickle the scan cannot read (an archive member" in err, err
        assert "internal error" not in err

    (sub / "weights.pt").write_bytes(bytes(encrypted))
    monkeypatch.setattr(pickle_scan, "_member", lambda archive, info: archive.read(info))  # control
    assert main(argv) == 1
    assert "internal error: RuntimeError" in capsys.readouterr().err


def test_an_own_class_is_one_in_every_file_python_could_import_under_its_name(env, capsys, tmp_path,  # noqa: F811
                                                                              monkeypatch):
    """Attack: a pickle may name a class the submission's own source defines; the scan read the
    folder's top `helpers.py` only (`class Table: pass`), yet the predictor put `vendor/` on
    `sys.path` first, whose `helpers.py` ("a vendored copy") defines `Table` as a class and then
    rebinds it, `Table = exec`: `prior.pkl` naming `helpers.Table` passed, and loading it called
    `exec` of a line no source holds. Now a name counts as the submission's class only where every
    file of the folder importable under the module's name defines it as a class and binds it no
    other way (`pickle_scan._own_classes`); one line, before anything runs. Control: with the top
    file's classes only, as before, the pickled line runs."""
    only_the_layer_under_test(monkeypatch)  # its folder ships modules no source imports (refused since 50b)
    import ast

    from perfgraphs.leaderboard import pickle_scan

    sub = code_submission(tmp_path / "pk", "median-prior", "")
    (sub / "predictor.py").write_text("import sys\nfrom pathlib import Path\n"
                                      "sys.path.insert(0, str(Path(__file__).parent / 'vendor'))\n" + LOADS_PRIOR)
    (sub / "helpers.py").write_text("class Table:\n    pass\n")
    (sub / "vendor").mkdir()
    (sub / "vendor" / "helpers.py").write_text("# a vendored copy\nclass Table(dict):\n    pass\n\n\nTable = exec\n")
    code = b"raise RuntimeError('the pickled line ran')"
    (sub / "prior.pkl").write_bytes(b"\x80\x04\x8c\x07helpers\x8c\x05Table\x93\x8c" + bytes([len(code)]) + code
                                    + b"\x85R.")
    argv = ["check", str(sub), *BOARD, "--quick", "--seeds", "0", "--results", str(env["results"])]
    assert main(argv) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "prior.pkl: a pickle naming helpers.Table (not a class the" in err, err
    assert "the pickled line ran" not in err
    (sub / "vendor" / "helpers.py").write_text("class Table(dict):\n    def get(self, key):\n        return 1\n")
    assert pickle_scan.global_problem(sub, "helpers", "Table") is None  # a class in both: passes

    (sub / "vendor" / "helpers.py").write_text("# a vendored copy\nclass Table(dict):\n    pass\n\n\nTable = exec\n")
    monkeypatch.setattr(pickle_scan, "_own_classes", lambda root, module: {  # control: the top file only
        n.name for n in ast.parse((root / f"{module}.py").read_text()).body if isinstance(n, ast.ClassDef)})
    assert main(argv) == 1
    assert "RuntimeError: the pickled line ran" in capsys.readouterr().err


def test_a_tar_archive_of_a_pickle_is_scanned(env, capsys, tmp_path, monkeypatch):  # noqa: F811
    """Attack: `pandas.read_pickle` unpickles the member of a `.tar` (`.tar.gz`, `.tar.xz`...), a
    format the scan did not open: a tar header starts with the member's name, no pickle opcode, so
    a `prior.tar` holding a pickle naming `builtins.exec` was "no pickle" and the predictor's
    `pd.read_pickle(...)` ran the line. Now tar members are scanned like zip members
    (`pickle_scan._tar_members`): refused in one line; a tar of an honest pickle passes. Control:
    with tar archives unread, as before, the pickled line runs."""
    import gzip
    import io
    import tarfile

    from perfgraphs.leaderboard import pickle_scan

    def tar_of(data: bytes) -> bytes:
        buf = io.BytesIO()
        with tarfile.open(fileobj=buf, mode="w") as archive:
            info = tarfile.TarInfo("prior.pkl")
            info.size = len(data)
            archive.addfile(info, io.BytesIO(data))
        return buf.getvalue()

    sub = code_submission(tmp_path / "pk", "median-prior", "")
    (sub / "predictor.py").write_text(LOADS_PRIOR.replace(
        "pickle.loads((Path(__file__).parent / 'prior.pkl').read_bytes())",
        "__import__('pandas').read_pickle(Path(__file__).parent / 'prior.tar')"))
    (sub / "prior.tar").write_bytes(tar_of(pickle.dumps({"scale": 1.0, "note": _RunsCode()})))
    argv = ["check", str(sub), *BOARD, "--quick", "--seeds", "0", "--results", str(env["results"])]
    assert main(argv) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "prior.tar: a pickle naming builtins.exec" in err, err
    assert "the pickled line ran" not in err
    other = tmp_path / "other"
    other.mkdir()
    (other / "prior.tar.gz").write_bytes(gzip.compress(tar_of(pickle.dumps(_RunsCode()))))
    assert "builtins.exec" in pickle_scan.shipped_pickle_problems(other)[0]
    (other / "prior.tar.gz").write_bytes(gzip.compress(tar_of(pickle.dumps({"scale": 1.0}))))
    assert pickle_scan.shipped_pickle_problems(other) == []

    monkeypatch.setattr(pickle_scan, "_tar_members", lambda data: None)  # control: tar unread
    assert main(argv) == 1
    assert "RuntimeError: the pickled line ran" in capsys.readouterr().err


def test_a_zip_behind_other_bytes_is_scanned(env, capsys, tmp_path, monkeypatch):  # noqa: F811
    """Attack: the scan opened a file as a zip only where it starts with `PK`, but the zip reader
    finds an archive by its end record, behind any bytes: a `prior.zip` starting with a comment
    line, then a zip of a pickle naming `builtins.exec`, was no pickle to the scan, and the
    predictor's `pandas.read_pickle(...)` (a `.zip`: opened with `zipfile`) ran the line. Now a
    file holding a zip end record is opened as the reader opens it and also read as it is
    (`pickle_scan._zip_names`): refused in one line. Control: with zips found by their first bytes
    only, as before, the pickled line runs."""
    import io
    import zipfile

    from perfgraphs.leaderboard import pickle_scan

    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as archive:
        archive.writestr("prior.pkl", pickle.dumps({"scale": 1.0, "note": _RunsCode()}))
    sub = code_submission(tmp_path / "pk", "median-prior", "")
    (sub / "predictor.py").write_text(LOADS_PRIOR.replace(
        "pickle.loads((Path(__file__).parent / 'prior.pkl').read_bytes())",
        "__import__('pandas').read_pickle(Path(__file__).parent / 'prior.zip')"))
    (sub / "prior.zip").write_bytes(b"# settings archive\n" + buf.getvalue())
    argv = ["check", str(sub), *BOARD, "--quick", "--seeds", "0", "--results", str(env["results"])]
    assert main(argv) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "prior.zip: a pickle naming builtins.exec" in err, err
    assert "the pickled line ran" not in err

    zip_names = pickle_scan._zip_names  # control: a zip only where the file starts with PK
    monkeypatch.setattr(pickle_scan, "_zip_names",
                        lambda data, depth: zip_names(data, depth) if data.startswith(b"PK") else None)
    assert main(argv) == 1
    assert "RuntimeError: the pickled line ran" in capsys.readouterr().err


_TEST_RUNNER_LOADER = """
import pickle
from pathlib import Path
pickle.loads(Path('prior.pkl').read_bytes())
"""


def test_a_library_test_runner_is_not_called_from_a_pickle(tmp_path, monkeypatch):
    """Attack: the scan allows every class of numpy/SciPy/scikit-learn, test runners included:
    a `prior.pkl` that builds `numpy._pytesttester.PytestTester("numpy")` and calls it with
    `extra_argv=["--doctest-glob=notes.txt"]` and `tests=["notes.txt"]` passed the scan, and
    loading it ran pytest, which ran the doctest lines of `notes.txt`: code from a text file,
    loaded by nothing a reviewer reads. Now a module whose name holds "test" (`_pytesttester`,
    `_testutils`, `_testing`, `tests`) is refused unimported (`pickle_scan._program_module`).
    Control: with the earlier list of program/test modules, the scan passes the pickle, and
    loading it (in a separate process) runs the text file's code."""
    import subprocess
    import sys

    from numpy._pytesttester import PytestTester

    from perfgraphs.leaderboard import pickle_scan

    class Call:
        def __init__(self, function, args):
            self.function, self.args = function, args

        def __reduce__(self):
            return (self.function, self.args)

        def __call__(self):  # the pickler asks that what __reduce__ names be callable
            return None

    runner = Call(PytestTester, ("numpy",))
    args = ("fast", 0, ["--doctest-glob=notes.txt", "-p", "no:cacheprovider", "-q"], False, False, -1, ["notes.txt"])
    (tmp_path / "prior.pkl").write_bytes(pickle.dumps(Call(runner, args)))
    (tmp_path / "notes.txt").write_text(">>> from pathlib import Path\n"
                                        ">>> _ = Path('ran').write_text('the text ran')\n")
    problems = pickle_scan.shipped_pickle_problems(tmp_path)
    assert len(problems) == 1 and "numpy._pytesttester.PytestTester" in problems[0], problems

    monkeypatch.setattr(pickle_scan, "_program_module", lambda module: None if "pytesttester" in module
                        else "refused")  # control: the test runner's module allowed, as before
    monkeypatch.setattr(pickle_scan, "_numpy_data_class", lambda cls: True)  # and any class of numpy (session 46)
    assert pickle_scan.shipped_pickle_problems(tmp_path) == []
    subprocess.run([sys.executable, "-c", _TEST_RUNNER_LOADER], cwd=tmp_path, capture_output=True, timeout=300)
    assert (tmp_path / "ran").read_text() == "the text ran"
