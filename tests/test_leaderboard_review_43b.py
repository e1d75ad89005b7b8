"""Forty-third adversarial pass (2026-12-04), submit side: what a submission folder and its code
control through `perfgraphs check` / `perfgraphs submit` (the shipped-pickle scan, the source checks).
Each test is one attack that worked before its fix, with a control that shows it working without
the guard."""

from __future__ import annotations

from test_leaderboard_pickle_scan import LOADS_PRIOR
from test_leaderboard_review_42b import _sandbox_unpickling_unrestricted  # noqa: F401 — autouse: the sandbox's second layer off

from perfgraphs.cli import main
from test_submit import BOARD, only_the_layer_under_test, code_submission, env  # noqa: F401 — env is a fixture


LOADS_PRIOR_PY = LOADS_PRIOR.replace(  # the pickle-scan tests' predictor, reading two pickles from a .py
    "        self.prior = pickle.loads((Path(__file__).parent / 'prior.pkl').read_bytes())  # a dict of settings\n",
    "        with open(Path(__file__).parent / 'prior.py', 'rb') as f:  # the table in its docstring\n"
    "            self.prior = [pickle.load(f) for _ in range(2)]\n")


def _polyglot(stop_first: bool) -> str:
    """Python source that is also a pickle calling ``builtins.exec``: ``U`` is protocol 1's
    SHORT_BINSTRING, its length byte a quote (39), so Python reads ``U'''`` as a docstring's start
    while the unpickler reads 39 bytes of string and then the opcodes inside the "docstring". With
    ``stop_first`` the first pickle ends after that string (no global), the second calls ``exec``."""
    line = "raise RuntimeError('the pickled line ran')"
    return ("U'''" + "x" * 37 + ("." if stop_first else "0") + "cbuiltins\nexec\n(V" + line + "\ntR.'''\n"
            "TABLE = {'scale': 1.0}\n")


def test_a_python_file_that_is_also_a_pickle_is_scanned(env, capsys, tmp_path, monkeypatch):  # noqa: F811
    """Attack: the pickle scan skipped every `.py` file (source, read by the source checks), and the
    source checks read it as Python only. A `prior.py` that is both, valid Python whose `U'''`
    opens a docstring while the unpickler reads `U'` as a 39-byte string and then the opcodes in
    that "docstring", passed every check, and the predictor's `pickle.load` of it ran `exec` of a
    line (also as the second of two pickles back to back, the first naming nothing). Now a `.py`
    file from which Python's unpickler would look up a global (`pickle_scan._source_unpickles`) is
    scanned like any shipped file: `check` refuses in one line. Control: with `.py` files skipped,
    as before, the pickled line runs."""
    only_the_layer_under_test(monkeypatch)  # its folder ships modules no source imports (refused since 50b)
    from perfgraphs.leaderboard import pickle_scan

    sub = code_submission(tmp_path / "pk", "median-prior", "")
    (sub / "predictor.py").write_text(LOADS_PRIOR_PY)
    argv = ["check", str(sub), *BOARD, "--quick", "--seeds", "0", "--results", str(env["results"])]
    for stop_first in (False, True):
        (sub / "prior.py").write_text(_polyglot(stop_first))
        assert main(argv) == 1
        err = capsys.readouterr().err
        assert err.count("\n") == 1 and "prior.py: a pickle naming builtins.exec" in err, err
        assert "the pickled line ran" not in err
        assert pickle_scan._source_unpickles(LOADS_PRIOR_PY.encode()) is False  # honest source: no pickle

    monkeypatch.setattr(pickle_scan, "_source_unpickles", lambda data: False)  # control: .py skipped
    assert main(argv) == 1
    assert "RuntimeError: the pickled line ran" in capsys.readouterr().err


class _RunsCode:
    """Unpickled, it runs ``exec`` of a line no source of the submission holds."""

    def __reduce__(self):
        return (exec, ("raise RuntimeError('the pickled line ran')",))


def _loads(reader: str) -> str:
    """A median predictor that reads a settings table with ``reader`` (an expression of ``path``)."""
    return ("import lzma, pickle, zlib\n"
            "from pathlib import Path\n"
            "import numpy as np\n"
            "import pandas as pd\n"
            "class Predictor:\n"
            "    def __init__(self, target, seed=0, quick=False):\n"
            "        self.target = target\n"
            "        path = Path(__file__).parent / 'prior.xz'\n"
            f"        self.prior = {reader}\n"
            "    def fit(self, train, val):\n"
            "        self.level = float(np.median(train[self.target]))\n"
            "    def predict(self, graphs):\n"
            "        return np.full(len(graphs), self.level)\n")


def test_compressed_streams_without_a_magic_number_are_scanned(env, capsys, tmp_path, monkeypatch):  # noqa: F811
    """Attack: the scan decompressed zlib streams starting 0x78 (a 32 KB window) and LZMA-alone
    streams starting 0x5d 00 00 (joblib's settings) only; both formats start with settings, not a
    magic number. A `prior.xz` compressed as LZMA-alone with lc=lp=pb=0 (first byte 0x00), read by
    `pandas.read_pickle` (`lzma.open` detects the format), or a zlib stream with a 512-byte window
    (first byte 0x18) read by `pickle.loads(zlib.decompress(...))`, passed the scan and loading it
    ran `exec` of a line. Now any zlib header and any LZMA-alone settings byte are tried, leniently
    (`pickle_scan._unpacked_headerless`): `check` refuses in one line. Control: without that reader
    the pickled line runs."""
    import lzma
    import pickle
    import zlib

    from perfgraphs.leaderboard import pickle_scan

    data = pickle.dumps({"scale": 1.0, "note": _RunsCode()})
    small = zlib.compressobj(wbits=9)
    cases = {"pd.read_pickle(path)": lzma.compress(data, format=lzma.FORMAT_ALONE, filters=[
                 {"id": lzma.FILTER_LZMA1, "lc": 0, "lp": 0, "pb": 0, "dict_size": 1 << 16}]),
             "pickle.loads(zlib.decompress(path.read_bytes()))": small.compress(data) + small.flush()}
    sub = code_submission(tmp_path / "pk", "median-prior", "")
    argv = ["check", str(sub), *BOARD, "--quick", "--seeds", "0", "--results", str(env["results"])]
    for reader, packed in cases.items():
        (sub / "predictor.py").write_text(_loads(reader))
        (sub / "prior.xz").write_bytes(packed)
        assert main(argv) == 1
        err = capsys.readouterr().err
        assert err.count("\n") == 1 and "prior.xz: a pickle naming builtins.exec" in err, (reader, err)
        assert "the pickled line ran" not in err

    monkeypatch.setattr(pickle_scan, "_unpacked_headerless", lambda data: [])  # control: magic numbers only
    for reader, packed in cases.items():
        (sub / "predictor.py").write_text(_loads(reader))
        (sub / "prior.xz").write_bytes(packed)
        assert main(argv) == 1
        assert "RuntimeError: the pickled line ran" in capsys.readouterr().err, reader


def test_zstd_and_lz4_frames_are_scanned(env, capsys, tmp_path, monkeypatch):  # noqa: F811
    """Attack: the scan decompressed gzip, bz2, xz and zlib streams, yet pyarrow (in the sandbox)
    reads zstd and lz4 files too, detecting the codec from the name: a `prior.zst` or `prior.lz4`
    of a pickle calling `builtins.exec` (also behind a skippable frame, which both formats allow)
    passed the scan, and the predictor's `pickle.load(pyarrow.input_stream(path))` ran the line.
    Now such frames are read by the same reader (`pickle_scan._arrow_frames`): `check` refuses in
    one line. Control: without that reader the pickled line runs."""
    import pickle
    import struct

    import pyarrow as pa

    from perfgraphs.leaderboard import pickle_scan

    data = pickle.dumps({"scale": 1.0, "note": _RunsCode()})
    sub = code_submission(tmp_path / "pk", "median-prior", "")
    argv = ["check", str(sub), *BOARD, "--quick", "--seeds", "0", "--results", str(env["results"])]
    skippable = b"\x5a\x2a\x4d\x18" + struct.pack("<I", 4) + b"note"
    cases = []
    for codec, name in (("zstd", "prior.zst"), ("lz4", "prior.lz4")):
        sink = pa.BufferOutputStream()
        with pa.CompressedOutputStream(sink, codec) as out:
            out.write(data)
        cases += [(name, sink.getvalue().to_pybytes()), (name, skippable + sink.getvalue().to_pybytes())]
    for name, packed in cases:
        (sub / "predictor.py").write_text(_loads(f"pickle.load(__import__('pyarrow').input_stream(str("
                                                 f"path.with_name({name!r}))))"))
        (sub / name).write_bytes(packed)
        assert main(argv) == 1
        err = capsys.readouterr().err
        assert err.count("\n") == 1 and f"{name}: a pickle naming builtins.exec" in err, (name, err)
        assert "the pickled line ran" not in err
        (sub / name).unlink()

    monkeypatch.setattr(pickle_scan, "_arrow_frames", lambda data: [])  # control: the four formats only
    for name, packed in cases[::2]:
        (sub / "predictor.py").write_text(_loads(f"pickle.load(__import__('pyarrow').input_stream(str("
                                                 f"path.with_name({name!r}))))"))
        (sub / name).write_bytes(packed)
        assert main(argv) == 1
        assert "RuntimeError: the pickled line ran" in capsys.readouterr().err, name
        (sub / name).unlink()
