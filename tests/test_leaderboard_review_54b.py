"""Fifty-fourth adversarial pass (2026-12-05), submit side: zip64 archives that Python's zip readers
and torch's read differently. Python 3.11's ``zipfile`` takes the zip64 end
record right before the zip64 locator (ignoring the offset the locator states) and ``zipimport``
reads no zip64 record at all; torch's reader (miniz: ``torch.jit.load``, ``torch.load``) takes the
record at the locator's offset. A ``net.pt`` whose locator pointed to a TorchScript program's
central directory and whose record before the locator to a plain state dict's was weights to the
static scan and to ``zipped_modules`` (which refuse a TorchScript archive: its program is code no
review reads), and under a predictor that reads as a median the program ran in the sandbox. So did
one with no decoy whose directory Python's reader refuses (a malformed extra field, which miniz
skips) and ``zipimport`` cannot read (zip64): no archive to any check."""

from __future__ import annotations

import io
import struct
import zipfile
import zlib

import pytest

from perfgraphs.cli import main
from perfgraphs.leaderboard.pickle_scan import shipped_pickle_problems
from perfgraphs.leaderboard.sandbox import harness
from test_submit import BOARD, code_submission, env  # noqa: F401 — env is a fixture

torch = pytest.importorskip("torch")

LOADS_A_SCALER = (
    "from pathlib import Path\n"
    "import numpy as np\n"
    "import torch\n"
    "class Predictor:\n"
    "    def __init__(self, target, seed=0, quick=False):\n"
    "        self.target = target\n"
    "        self.scaler = torch.jit.load(str(Path(__file__).parent / 'net.pt'))  # the shipped scaler\n"
    "    def fit(self, train, val):\n"
    "        self.level = float(np.median(train[self.target]))\n"
    "    def predict(self, graphs):\n"
    "        return self.scaler(torch.full((len(graphs),), self.level, dtype=torch.float64)).numpy()\n")


class _Hidden(torch.nn.Module):
    def forward(self, x):
        raise RuntimeError("the hidden TorchScript ran")
        return x


def _members(archive: bytes) -> list[tuple[str, bytes]]:
    with zipfile.ZipFile(io.BytesIO(archive)) as z:
        return [(i.filename, z.read(i)) for i in z.infolist()]


def _entry(name: str, data: bytes, offset: int) -> tuple[bytes, bytes]:
    """(the local header and data, the central directory entry) of a stored member."""
    n, crc = name.encode(), zlib.crc32(data)
    local = b"PK\x03\x04" + struct.pack("<HHHHHIIIHH", 20, 0, 0, 0, 0x21, crc, len(data), len(data), len(n), 0)
    central = b"PK\x01\x02" + struct.pack("<HHHHHHIIIHHHHHII", 20, 20, 0, 0, 0, 0x21, crc, len(data), len(data),
                                          len(n), 0, 0, 0, 0, 0, offset)
    return local + n + data, central + n


def _zip64_end(count: int, size: int, offset: int) -> bytes:
    return b"PK\x06\x06" + struct.pack("<QHHIIQQQQ", 44, 45, 45, 0, 0, count, count, size, offset)


def _two_faced(real: bytes, decoy: bytes | None) -> bytes:
    """One zip64 archive holding both archives' members and central directories, each with a zip64
    end record: Python's reader takes ``decoy``'s (right before the locator), torch's ``real``'s
    (where the locator points). The end record holds the zip64 mark (all ones) for every figure.
    Without ``decoy``, padding stands before the locator: Python's reader finds no archive."""
    body, dirs = b"", []
    for face in (real, decoy or real):
        directory = b""
        for name, data in _members(face):
            local, central = _entry(name, data, len(body))
            body, directory = body + local, directory + central
        dirs.append((directory, len(_members(face))))
    (real_dir, n_real), (decoy_dir, n_decoy) = dirs
    real_dir_at = len(body)
    real_end_at = len(body := body + real_dir)
    body += _zip64_end(n_real, len(real_dir), real_dir_at)
    decoy_dir_at = len(body)
    body += decoy_dir
    body += _zip64_end(n_decoy, len(decoy_dir), decoy_dir_at) if decoy else b"\0" * 56
    body += b"PK\x06\x07" + struct.pack("<IQI", 0, real_end_at, 1)
    return body + b"PK\x05\x06" + struct.pack("<HHHHIIH", 0, 0, 0xFFFF, 0xFFFF, 0xFFFFFFFF, 0xFFFFFFFF, 0)


def _faces() -> tuple[bytes, bytes]:
    real, decoy = io.BytesIO(), io.BytesIO()
    torch.jit.save(torch.jit.script(_Hidden()), real)
    torch.save({"scale": torch.ones(1)}, decoy)
    return real.getvalue(), decoy.getvalue()


@pytest.mark.filterwarnings("ignore::FutureWarning")
def test_a_zip64_torchscript_behind_a_state_dict_does_not_pass(env, capsys, tmp_path, monkeypatch):  # noqa: F811
    """Attack: `net.pt` is a TorchScript program where its zip64 locator points and a state dict
    where Python's zip reader looks (the record before the locator); `zipimport` cannot open it.
    `check` passed the scan and `zipped_modules` and then failed with the program's own error, raised
    in the sandbox. Now the scan refuses the file in one line. Controls: the honest TorchScript
    archive is refused by both checks, Python's reader lists only the state dict's members, torch's
    runs the program, and with the new check off the program runs in the sandbox."""
    from perfgraphs.leaderboard import pickle_scan
    from perfgraphs.leaderboard.submission import zipped_modules

    real, decoy = _faces()
    sub = code_submission(tmp_path / "ts", "median-scaler", "")
    (sub / "predictor.py").write_text(LOADS_A_SCALER)
    (sub / "net.pt").write_bytes(real)  # control: an honest TorchScript archive is refused twice
    assert any("__torch__" in p for p in shipped_pickle_problems(sub)) and zipped_modules(sub)
    (sub / "net.pt").write_bytes(_two_faced(real, decoy))
    with zipfile.ZipFile(sub / "net.pt") as archive:  # control: Python's face is the state dict ...
        assert [n for n in archive.namelist() if "code/" in n or "constants" in n] == []
    assert zipped_modules(sub) == []
    with pytest.raises(Exception, match="the hidden TorchScript ran"):  # ... torch's runs the program
        torch.jit.load(str(sub / "net.pt"))(torch.ones(2))

    problems = shipped_pickle_problems(sub)
    assert len(problems) == 1 and problems[0].startswith("net.pt: ") and "zip64" in problems[0], problems
    argv = ["check", str(sub), *BOARD, "--quick", "--seeds", "0", "--results", str(env["results"])]
    assert main(argv) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "zip64" in err and "hidden TorchScript" not in err, err

    monkeypatch.setattr(pickle_scan, "_one_zip64_end", lambda data, endrec: None)  # the check off:
    refused_at_load_and_run_without_it(argv, capsys, monkeypatch)


def refused_at_load_and_run_without_it(argv, capsys, monkeypatch) -> None:
    """With the static check off: the sandbox's second layer refuses the program where it would load;
    control, both layers off: the program runs (its error, as the sandbox reported it, cut at 300 characters)."""
    assert main(argv) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "TorchScript program is not loaded in the sandbox" in err, err
    monkeypatch.setattr(harness, "REFUSE_TORCHSCRIPT", False)
    assert main(argv) == 1
    err = capsys.readouterr().err
    assert "hidden TorchScr" in err, err


def test_a_zip64_torchscript_python_cannot_open_does_not_pass(tmp_path):
    """Attack, the same locator with nothing before it: Python's zip reader finds no zip64 record where
    it looks and cannot open the file (the end record's all-ones marks), so the scan read bytes that
    are no pickle and `zipped_modules` skipped what `zipimport` cannot open, while torch's reader
    followed the locator to the TorchScript program. Now refused. Controls: as above."""
    from perfgraphs.leaderboard.submission import zipped_modules

    real, _ = _faces()
    (tmp_path / "net.pt").write_bytes(_two_faced(real, None))
    with pytest.raises(zipfile.BadZipFile):
        zipfile.ZipFile(tmp_path / "net.pt")
    assert zipped_modules(tmp_path) == []
    with pytest.warns(FutureWarning), pytest.raises(Exception, match="the hidden TorchScript ran"):
        torch.jit.load(str(tmp_path / "net.pt"))(torch.ones(2))
    problems = shipped_pickle_problems(tmp_path)
    assert len(problems) == 1 and "zip64 archive whose locator points" in problems[0], problems


def _corrupt_extra(real: bytes) -> bytes:
    """``real``'s members as a zip64 archive (the end record's figures all the zip64 mark, the zip64
    record right before its locator, where both readers look) whose first central entry has an
    extra field claiming more bytes than it holds: Python's zip reader refuses the directory, miniz
    skips extra fields it does not need."""
    body, directory = b"", b""
    for k, (name, data) in enumerate(_members(real)):
        local, central = _entry(name, data, len(body))
        if k == 0:
            central = central[:30] + struct.pack("<H", 5) + central[32:] + b"\x99\x99\x09\x00\x00"
        body, directory = body + local, directory + central
    count, directory_at = len(_members(real)), len(body)
    end_at = len(body := body + directory)
    body += _zip64_end(count, len(directory), directory_at) + b"PK\x06\x07" + struct.pack("<IQI", 0, end_at, 1)
    return body + b"PK\x05\x06" + struct.pack("<HHHHIIH", 0, 0, 0xFFFF, 0xFFFF, 0xFFFFFFFF, 0xFFFFFFFF, 0)


def test_a_torchscript_only_torch_can_open_does_not_pass(tmp_path):
    """Attack, no decoy at all: a TorchScript zip64 archive one of whose central entries has a
    malformed extra field. Python's zip reader cannot open it (so the scan read bytes that are no
    pickle), `zipimport` reads no zip64 archive (so `zipped_modules` skipped it), and torch's reader
    ran the program. Now a file with an end record that Python's reader cannot open is refused.
    Controls: each reader's view as said."""
    from perfgraphs.leaderboard.submission import zipped_modules

    real, _ = _faces()
    (tmp_path / "net.pt").write_bytes(_corrupt_extra(real))
    with pytest.raises(zipfile.BadZipFile, match="Corrupt extra field"):
        zipfile.ZipFile(tmp_path / "net.pt")
    assert zipped_modules(tmp_path) == []
    with pytest.warns(FutureWarning), pytest.raises(Exception, match="the hidden TorchScript ran"):
        torch.jit.load(str(tmp_path / "net.pt"))(torch.ones(2))
    problems = shipped_pickle_problems(tmp_path)
    assert len(problems) == 1 and "a zip archive Python's zip reader cannot open (Corrupt extra field" in problems[0], \
        problems


def test_zip64_archives_python_and_torch_write_pass(tmp_path, monkeypatch):
    """No false positive: zip64 end records as ``zipfile`` writes them (figures or the mark in the end
    record, the locator pointing to the record before it) read as before."""
    monkeypatch.setattr(zipfile, "ZIP_FILECOUNT_LIMIT", 1)  # zip64 records from two members on
    with zipfile.ZipFile(tmp_path / "weights.zip", "w") as archive:
        archive.writestr("a.pkl", b"\x80\x04K\x01.")
        archive.writestr("b.pkl", b"\x80\x04K\x02.")
    assert b"PK\x06\x06" in (tmp_path / "weights.zip").read_bytes()
    torch.save({"scale": torch.ones(3)}, tmp_path / "state.pt")
    assert shipped_pickle_problems(tmp_path) == []
    data = (tmp_path / "weights.zip").read_bytes()  # and one behind prepended bytes: the stated offset holds no record
    (tmp_path / "weights.zip").write_bytes(b"# prepended\n" + data)
    assert shipped_pickle_problems(tmp_path) == []
