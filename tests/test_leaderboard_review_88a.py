"""Eighty-eighth adversarial pass (2026-12-06), side a (read/parse): what the parent reads back from the child.

A freezing run (``perfgraphs submit --freeze``) sends its fitted state on the harness channel, and the
harness reads it outside the sandbox (``frozen_fits.state_problem`` -> ``fitted_state.from_bytes``) as
each seed ends. The fifty-second pass made that reader refuse a compressed member or a header larger
than its bytes, but it opened every stored member with ``ZipFile.open``, which refuses a member whose
flags say encrypted with a ``RuntimeError`` (and a patched or strongly encrypted one with a
``NotImplementedError``), neither a bad zip's error the reader catches: a predictor whose ``state()``
replaced ``numpy.savez`` with one that set bit 0 of the flags of its stored 4-member ``.npz`` (the
ridge's 4 arrays, a few hundred bytes) stopped ``submit --freeze`` after seed 0 with
``perfgraphs: internal error: RuntimeError: File <ZipInfo filename='mean.npy' ...> is encrypted,
password required for extraction`` where the rule is one clear line. Such a member is now refused
in one line before it is opened (``fitted_state._plain_member``). Run time: about 5 s (one freeze of
which one seed runs, in the sandbox).
"""

from __future__ import annotations

import inspect
import os
import shutil
import textwrap
from types import SimpleNamespace

import numpy as np
import pytest

from test_leaderboard_review_36b import seeds_run
from test_leaderboard_review_52b import _forging, _freeze
from test_submit import env, parts  # noqa: F401 — fixtures

pytestmark = pytest.mark.skipif(os.geteuid() != 0 or shutil.which("bwrap") is None,
                                reason="freezing runs in the sandbox")


def encrypted(data: bytes) -> bytes:
    """``data`` (a zip) with every member flagged encrypted (bit 0 of its local and central headers'
    flags), its bytes otherwise as they were: stored, so the fifty-second pass's check passes it."""
    out = bytearray(data)
    for signature, flags_at in ((b"PK\x03\x04", 6), (b"PK\x01\x02", 8)):
        at = out.find(signature)
        while at >= 0:
            out[at + flags_at] |= 1
            at = out.find(signature, at + 4)
    return bytes(out)


# the predictor's state(): numpy.savez writes the real .npz, then flags its members encrypted
ENCRYPTING = textwrap.indent(inspect.getsource(encrypted), " " * 8) + (
    "        import io as _io\n"
    "        _real = np.savez\n"
    "        def _savez(file, **arrays):\n"
    "            _buffer = _io.BytesIO()\n"
    "            _real(_buffer, **arrays)\n"
    "            file.write(encrypted(_buffer.getvalue()))\n"
    "        np.savez = _savez\n"
)


def test_an_encrypted_state_member_is_refused_in_one_line(env, parts, capsys, monkeypatch):  # noqa: F811
    """Attack: the state's members flagged encrypted: refused in one line as seed 0 ends, nothing
    written. Control, the same bytes read by the harness's reader with the new check switched off: the
    RuntimeError that `submit --freeze` printed as an internal error."""
    from perfgraphs.baselines import fitted_state
    from perfgraphs.leaderboard import frozen_fits

    ran = seeds_run(monkeypatch)
    rc, err = _freeze(env, capsys, _forging(env["tmp"] / "enc", ENCRYPTING, "ridge-encrypted"), "f")
    assert rc == 1 and len(err) == 1, err
    assert "seed 0's state: 'mean.npy' is encrypted or patched" in err[0] and "internal error" not in err[0], err
    assert not (env["tmp"] / "f").exists() and ran == [0]

    sent = SimpleNamespace(seed=0, state=encrypted(fitted_state.to_bytes({"mean": np.zeros(3)})))
    assert "'mean.npy' is encrypted or patched" in frozen_fits.state_problem(sent)
    monkeypatch.setattr(fitted_state, "_plain_member", lambda info, what: None)
    with pytest.raises(RuntimeError, match="is encrypted, password required"):
        frozen_fits.state_problem(sent)
