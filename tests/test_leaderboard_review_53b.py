"""Fifty-third adversarial pass (2026-12-05), submit side: a ``torch.package`` archive whose pickle
neither layer of the pickle guard read. ``PackageImporter(...).load_pickle`` (torch's documented way
to ship a model) unpickles with ``torch.package``'s ``PackageUnpickler``, a pure-Python subclass of
``pickle._Unpickler`` whose own ``find_class`` never calls the patched one, so the sandbox's guard
(``sandbox.unpickling``) never saw its globals; and a zip can hold two central directories, one where
its end record points (read by torch's zip reader, miniz) and one right before that record (read by
Python's ``zipfile`` and ``zipimport``, which take the bytes in between for prepended data), so the
static scan and ``zipped_modules`` read a decoy's members. A ``prior.pt`` whose torch face holds a
pickle naming ``builtins.exec`` and whose Python face holds ``{"median": 1.0}`` passed ``check`` and
ran its line in the sandbox under a predictor that reads as a median."""

from __future__ import annotations

import io
import pickle
import struct
import zipfile

import pytest

from perfgraphs.cli import main
from perfgraphs.leaderboard.pickle_scan import shipped_pickle_problems
from test_leaderboard_pickle_scan import _RunsCode  # unpickled, it runs a line no source holds
from test_submit import BOARD, code_submission, env  # noqa: F401 — env is a fixture

LOADS_A_PACKAGE = (
    "from pathlib import Path\n"
    "import numpy as np\n"
    "from torch.package import PackageImporter\n"
    "class Predictor:\n"
    "    def __init__(self, target, seed=0, quick=False):\n"
    "        self.target = target\n"
    "        # the prior's settings, shipped as a torch.package\n"
    "        self.prior = PackageImporter(str(Path(__file__).parent / 'prior.pt')).load_pickle('prior', 'median.pkl')\n"
    "    def fit(self, train, val):\n"
    "        self.level = float(np.median(train[self.target]))\n"
    "    def predict(self, graphs):\n"
    "        return np.full(len(graphs), self.level)\n")


def _package(payload: bytes) -> bytes:
    """A ``torch.package`` archive whose ``prior/median.pkl`` is ``payload`` (stored, fixed dates)."""
    from torch.package import PackageExporter

    honest = io.BytesIO()
    with PackageExporter(honest) as exporter:
        exporter.save_pickle("prior", "median.pkl", {"median": 1.0})
    out = io.BytesIO()
    with zipfile.ZipFile(io.BytesIO(honest.getvalue())) as src, zipfile.ZipFile(out, "w", zipfile.ZIP_STORED) as dst:
        for info in src.infolist():
            data = payload if info.filename.endswith("prior/median.pkl") else src.read(info)
            dst.writestr(zipfile.ZipInfo(info.filename, date_time=(1980, 1, 1, 0, 0, 0)), data)
    return out.getvalue()


def _sections(archive: bytes) -> tuple[bytes, bytes, int]:
    """(the local part, the central directory, its entry count) of a zip written by ``zipfile``."""
    end = archive.rindex(b"PK\x05\x06")
    count, size, offset = struct.unpack("<HII", archive[end + 10:end + 20])
    return archive[:offset], archive[offset:offset + size], count


def _shifted(directory: bytes, delta: int) -> bytes:
    """A central directory with every entry's local-header offset moved by ``delta``."""
    out, i = bytearray(directory), 0
    while i < len(out):
        name, extra, comment = struct.unpack("<HHH", out[i + 28:i + 34])
        (offset,) = struct.unpack("<I", out[i + 42:i + 46])
        out[i + 42:i + 46] = struct.pack("<I", offset + delta)
        i += 46 + name + extra + comment
    return bytes(out)


def _two_faced(real: bytes, decoy: bytes) -> bytes:
    """One zip holding both archives' members and both central directories (of one size): ``real``'s
    at the offset the end record states (where torch's reader, miniz, reads it) and ``decoy``'s right
    before the end record, its offsets less the bytes in between (where Python's ``zipfile`` and
    ``zipimport`` read it, taking those bytes for data prepended to the archive)."""
    real_local, real_dir, count = _sections(real)
    decoy_local, decoy_dir, decoy_count = _sections(decoy)
    assert len(real_dir) == len(decoy_dir) and count == decoy_count
    size = len(real_dir)
    pad = b"\0" * max(0, size - len(real_local))
    decoy_at = len(real_local) + len(pad)
    stated = decoy_at + len(decoy_local)
    body = real_local + pad + decoy_local + real_dir + _shifted(decoy_dir, decoy_at - size)
    return body + b"PK\x05\x06" + struct.pack("<HHHHIIH", 0, 0, count, count, size, stated, 0)


def test_a_two_faced_torch_package_passes_neither_layer(env, capsys, tmp_path):  # noqa: F811
    """Attack: `prior.pt` is two torch.packages in one zip: torch's reader finds a `median.pkl` naming
    `builtins.exec`, Python's zip reader (the scan's) a `median.pkl` of plain settings; `load_pickle`'s
    unpickler looked its globals up past the sandbox's guard, and `check` failed with the pickled line's
    own error, raised in the sandbox. Now the scan refuses the file in one line (two central
    directories) and the sandbox's guard covers the package unpickler's own `find_class`.
    Controls: Python's zip reader lists only the decoy's members and reads them as plain settings, and
    torch's reader loads the other face, which runs the line."""
    from torch.package import PackageImporter

    real = _package(pickle.dumps({"median": 1.0, "note": _RunsCode()}, protocol=2))
    decoy = _package(pickle.dumps({"median": 1.0}, protocol=2))
    sub = code_submission(tmp_path / "pkg", "median-package", "")
    (sub / "predictor.py").write_text(LOADS_A_PACKAGE)
    (sub / "prior.pt").write_bytes(_two_faced(real, decoy))
    with zipfile.ZipFile(sub / "prior.pt") as archive:  # control: Python's face is the decoy ...
        assert [pickle.loads(archive.read(i)) for i in archive.infolist() if i.filename.endswith(".pkl")] == \
            [{"median": 1.0}]
    with pytest.raises(RuntimeError, match="the pickled line ran"):  # ... torch's face runs the line
        PackageImporter(str(sub / "prior.pt")).load_pickle("prior", "median.pkl")

    problems = shipped_pickle_problems(sub)
    assert len(problems) == 1 and problems[0].startswith("prior.pt: ") and "two central directories" in problems[0], \
        problems
    argv = ["check", str(sub), *BOARD, "--quick", "--seeds", "0", "--results", str(env["results"])]
    assert main(argv) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "two central directories" in err and "the pickled line ran" not in err, err


def test_prepended_data_alone_is_not_two_faced(tmp_path):
    """No false positive: a zip behind a line of other bytes (a reader finds it by its end record) has
    its central directory where Python's reader looks and nothing where the end record points; it is
    read as before (a sound package of plain settings passes)."""
    (tmp_path / "prior.pt").write_bytes(b"# settings archive\n" + _package(pickle.dumps({"median": 1.0}, protocol=2)))
    assert shipped_pickle_problems(tmp_path) == []


def test_the_guard_covers_a_pure_python_unpicklers_own_find_class(env, capsys, tmp_path, monkeypatch):  # noqa: F811
    """Attack (the runtime layer alone): with the static scan off, a package's pickle naming
    `builtins.exec` was loaded by `PackageUnpickler`, whose `find_class` never calls the guarded one, and its line ran
    in the sandbox. Now the sandbox refuses `builtins.exec`. Control: with the sandbox's unpickling
    unrestricted the line runs, in the sandbox too."""
    from perfgraphs.leaderboard import submission
    from test_leaderboard_pickle_scan import assert_the_guard_refuses_what_runs_without_it

    payload = pickle.dumps({"median": 1.0, "note": _RunsCode()}, protocol=4)
    sub = code_submission(tmp_path / "pkg", "median-package", "")
    (sub / "predictor.py").write_text(LOADS_A_PACKAGE)
    (sub / "prior.pt").write_bytes(_package(payload))
    monkeypatch.setattr(submission, "shipped_pickles", lambda root: ([], set()))  # the scan off
    assert_the_guard_refuses_what_runs_without_it(sub, env, capsys, monkeypatch)


def test_an_honest_torch_package_still_loads(env, capsys, tmp_path):  # noqa: F811
    """No false positive: a torch.package of plain containers passes the scan and loads in the sandbox."""
    sub = code_submission(tmp_path / "pkg", "median-package", "")
    (sub / "predictor.py").write_text(LOADS_A_PACKAGE)
    (sub / "prior.pt").write_bytes(_package(pickle.dumps({"median": 1.0}, protocol=2)))
    assert shipped_pickle_problems(sub) == []
    argv = ["check", str(sub), *BOARD, "--quick", "--seeds", "0", "--results", str(env["results"])]
    assert main(argv) == 0, capsys.readouterr().err
