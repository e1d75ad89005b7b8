"""Fifty-fifth adversarial pass (2026-12-05), submit side: a TorchScript program that neither
``zipped_modules`` nor the pickle scan saw. ``zipped_modules`` read only files Python's zip importer
opens, and Python 3.11's ``zipimport`` reads no zip64 archive (an end record whose figures are all the
zip64 mark), which ``zipfile`` and torch's reader both read the same way. The pickle scan refused an
honest TorchScript archive only for its ``data.pkl`` naming ``__torch__.M``; but torch's own
unpickler resolves any global it does not special-case (``collections.Counter``, ``builtins.set``)
as a TorchScript class compiled from the archive's ``code/<module>.py``, and those names are ones
the scan allows. A ``net.pt`` holding ``class Counter(Module)`` in ``code/collections.py``, written
as a zip64 archive, passed both checks, and under a predictor that reads as a median its program
ran in the sandbox."""

from __future__ import annotations

import struct

import pytest

from perfgraphs.cli import main
from perfgraphs.leaderboard.pickle_scan import shipped_pickle_problems
from perfgraphs.leaderboard.submission import zipped_modules
from test_leaderboard_review_54b import LOADS_A_SCALER, _entry, _zip64_end, refused_at_load_and_run_without_it
from test_submit import BOARD, code_submission, env  # noqa: F401 — env is a fixture

torch = pytest.importorskip("torch")

# a TorchScript module as torch.jit.save writes one, its class named collections.Counter
# (the program's source in code/collections.py, the object in data.pkl naming that global)
_CODE = (b"class Counter(Module):\n"
         b"  __parameters__ = []\n"
         b"  __buffers__ = []\n"
         b"  training : bool\n"
         b"  _is_full_backward_hook : Optional[bool]\n"
         b"  def forward(self: collections.Counter,\n"
         b"    x: Tensor) -> NoneType:\n"
         b"    _0 = uninitialized(NoneType)\n"
         b"    ops.prim.RaiseException(\"the hidden TorchScript ran\", \"builtins.RuntimeError\")\n"
         b"    return _0\n")
_DATA = (b"\x80\x02ccollections\nCounter\nq\x00)\x81}(X\x08\x00\x00\x00trainingq\x01\x88"
         b"X\x16\x00\x00\x00_is_full_backward_hookq\x02Nub.")
_MEMBERS = [("archive/data.pkl", _DATA), ("archive/code/collections.py", _CODE),
            ("archive/constants.pkl", b"\x80\x02)."), ("archive/version", b"3\n"), ("archive/byteorder", b"little")]


def _archive(zip64: bool) -> bytes:
    """The members as one stored zip: with ``zip64``, the end record's figures all the zip64 mark
    and the zip64 record right before its locator (where Python's reader and torch's both look)."""
    body, directory = b"", b""
    for name, data in _MEMBERS:
        local, central = _entry(name, data, len(body))
        body, directory = body + local, directory + central
    count, directory_at = len(_MEMBERS), len(body)
    end_at = len(body := body + directory)
    if not zip64:
        return body + b"PK\x05\x06" + struct.pack("<HHHHIIH", 0, 0, count, count, len(directory), directory_at, 0)
    body += _zip64_end(count, len(directory), directory_at) + b"PK\x06\x07" + struct.pack("<IQI", 0, end_at, 1)
    return body + b"PK\x05\x06" + struct.pack("<HHHHIIH", 0, 0, 0xFFFF, 0xFFFF, 0xFFFFFFFF, 0xFFFFFFFF, 0)


@pytest.mark.filterwarnings("ignore::FutureWarning")
def test_a_zip64_torchscript_named_as_an_allowed_class_does_not_pass(env, capsys, tmp_path, monkeypatch):  # noqa: F811
    """Attack: `net.pt` is a zip64 TorchScript archive whose class is `collections.Counter`. The
    pickle scan allowed its `data.pkl` (a reconstructor's name) and `zipped_modules` skipped it
    (`zipimport` cannot open a zip64 archive), and `check` failed with the program's own error,
    raised in the sandbox. Now `zipped_modules` also lists what `zipfile` opens, and refuses it in
    one line. Controls: the same archive without zip64 marks is refused (`zipimport` opens it), the
    scan passes either, torch runs the program, and with the new listing off it runs in the sandbox."""
    from perfgraphs.leaderboard import submission

    plain = tmp_path / "plain"
    plain.mkdir()
    (plain / "net.pt").write_bytes(_archive(zip64=False))  # control: zipimport opens it, and it is refused
    assert shipped_pickle_problems(plain) == [] and len(zipped_modules(plain)) == 1
    sub = code_submission(tmp_path / "ts", "median-scaler", "")
    (sub / "predictor.py").write_text(LOADS_A_SCALER)
    (sub / "net.pt").write_bytes(_archive(zip64=True))
    assert shipped_pickle_problems(sub) == []  # the scan reads a reconstructor's name ...
    with pytest.raises(Exception, match="the hidden TorchScript ran"):  # ... torch runs a program
        torch.jit.load(str(sub / "net.pt"))(torch.ones(2))

    problems = zipped_modules(sub)
    assert len(problems) == 1 and problems[0].startswith("net.pt: ") and "collections.py" in problems[0], problems
    argv = ["check", str(sub), *BOARD, "--quick", "--seeds", "0", "--results", str(env["results"])]
    assert main(argv) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "net.pt: a zip archive" in err and "hidden TorchScript" not in err, err

    monkeypatch.setattr(submission, "zipped_modules", lambda root: [])  # the listing off:
    refused_at_load_and_run_without_it(argv, capsys, monkeypatch)


def test_zip64_weights_still_pass(tmp_path):
    """No false positive: a zip64 archive of weights (no module member) that zipimport cannot open
    and zipfile can passes `zipped_modules`, as does a torch state dict."""
    global _MEMBERS
    members = _MEMBERS
    try:
        _MEMBERS = [("archive/data.pkl", b"\x80\x02}q\x00."), ("archive/version", b"3\n")]
        (tmp_path / "weights.pt").write_bytes(_archive(zip64=True))
    finally:
        _MEMBERS = members
    torch.save({"scale": torch.ones(3)}, tmp_path / "state.pt")
    assert zipped_modules(tmp_path) == [] and shipped_pickle_problems(tmp_path) == []
