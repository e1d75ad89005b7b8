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
in one line before it is opened (``fitted_state._plain_member``).

And numpy reads an ``.npy`` header (versions 1 and 2) that is no Python literal a second time through
``tokenize`` and ``ast``, two of whose errors numpy does not turn into its ValueError: an unclosed
bracket (``tokenize.TokenError``) and 6,000 or more ``-`` signs before a number (the parser's stack
overflow, a ``MemoryError``). The static pickle scan reads every shipped file that starts like an
``.npy`` with numpy's reader: a ridge example shipping a 128-byte ``prior.npy`` whose header lacked its
closing brace stopped `perfgraphs check` with "internal error: TokenError" (``pickle_scan._npy_dtype``
now reads it as an unreadable header, one line); the harness's reader of a frozen state did the same
before ``numpy.load`` (``fitted_state._npy_header``: a 9 KB header of 9,000 ``-`` signs raised the
MemoryError, the unclosed one the TokenError).

And submission.yaml's loader reported a value PyYAML cannot build as a YAML error at its line only for a
ValueError, TypeError or OverflowError: ``external_data: !!bool maybe`` (a KeyError in PyYAML's table of
booleans) and ``external_data: !!timestamp abc`` (an AttributeError on the failed match of its date
pattern) stopped `perfgraphs check` with "internal error: KeyError: 'maybe'" and "internal error:
AttributeError" (``submission._NoAliasLoader.construct_object`` now takes both). Run time: about 15 s, the fixtures' setup included (one
freeze of which one seed runs, in the sandbox; three `check`s refused before any seed runs).
"""

from __future__ import annotations

import inspect
import io
import os
import shutil
import textwrap
import tokenize
import zipfile
from types import SimpleNamespace

import numpy as np
import pytest

from perfgraphs.cli import main
from test_leaderboard_review_36b import seeds_run
from test_leaderboard_review_52b import _forging, _freeze
from test_submit import BOARD, env, example_copy, parts  # noqa: F401 — fixtures

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


# a version 1.0 header that is no Python literal: numpy reads it again through tokenize and ast
UNCLOSED = "{'descr': '<f8', 'fortran_order': False, 'shape': (1,), "  # no closing brace: tokenize.TokenError
MINUSES = "{'descr': '<f8', 'fortran_order': False, 'shape': (" + "-" * 9000 + "1,), }"  # the parser's stack


def npy_bytes(header: str, data: bytes = bytes(8)) -> bytes:
    """An ``.npy`` file of format 1.0 whose header is ``header`` as written (padded as numpy pads it)."""
    text = header.encode("latin1")
    text += b" " * (-(10 + len(text) + 1) % 64) + b"\n"
    return b"\x93NUMPY\x01\x00" + len(text).to_bytes(2, "little") + text + data


def state_npz(member: bytes) -> bytes:
    """A stored (uncompressed) ``.npz`` of one member ``w.npy``."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        archive.writestr("w.npy", member)
    return buffer.getvalue()


def _numpy_header(member, what):
    """The state's header read as before the pass: numpy's reader, its errors unhandled."""
    version = np.lib.format.read_magic(member)
    read = np.lib.format.read_array_header_1_0 if version == (1, 0) else np.lib.format.read_array_header_2_0
    shape, _, dtype = read(member)
    return shape, dtype


def test_an_npy_header_numpy_reads_through_tokenize_is_one_line(env, capsys, monkeypatch):  # noqa: F811
    """Attack: the ridge example with a shipped ``prior.npy`` whose header is unclosed: `check` refuses
    it in one line (an .npy header numpy does not read), before any seed runs; and the harness's reader of a
    frozen state refuses the unclosed header and the 9,000 minus signs in one line each. Control, numpy's
    reader with its errors unhandled: `check` ends in "internal error: TokenError", and the state reader
    raises the TokenError and the MemoryError that `submit --freeze` printed as internal errors."""
    from perfgraphs.baselines import fitted_state
    from perfgraphs.leaderboard import frozen_fits, pickle_scan

    sub = example_copy(env["tmp"] / "npy", "ridge-npy")
    (sub / "prior.npy").write_bytes(npy_bytes(UNCLOSED))
    argv = ["check", str(sub), *BOARD, "--quick", "--seeds", "0", "--results", str(env["results"])]
    assert main(argv) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "prior.npy" in err and "an .npy header numpy does not read (TokenError)" in err, err
    states = {header: SimpleNamespace(seed=0, state=state_npz(npy_bytes(header))) for header in (UNCLOSED, MINUSES)}
    for header, error in ((UNCLOSED, "TokenError"), (MINUSES, "MemoryError")):
        assert f"'w.npy' has an .npy header numpy does not read ({error})" in frozen_fits.state_problem(states[header])

    monkeypatch.setattr(pickle_scan, "_npy_dtype", lambda stream: _numpy_header(stream, "")[1])  # control
    assert main(argv) == 1
    assert "internal error: TokenError" in capsys.readouterr().err
    monkeypatch.setattr(fitted_state, "_npy_header", _numpy_header)
    with pytest.raises(tokenize.TokenError):
        frozen_fits.state_problem(states[UNCLOSED])
    with pytest.raises(MemoryError):
        frozen_fits.state_problem(states[MINUSES])


def test_a_yaml_tag_pyyaml_cannot_build_is_one_line(env, capsys, monkeypatch):  # noqa: F811
    """Attack: the ridge example's ``external_data: false`` written ``!!bool maybe`` or ``!!timestamp abc``:
    `check` refuses it in one line naming its line, before any seed runs. Control, PyYAML's construction
    unwrapped: the internal errors (KeyError, AttributeError) `check` printed before."""
    import yaml

    from perfgraphs.leaderboard import submission

    sub = example_copy(env["tmp"] / "tag", "ridge-tag")
    plain = (sub / "submission.yaml").read_text()
    assert "external_data: false" in plain
    argv = ["check", str(sub), *BOARD, "--quick", "--seeds", "0", "--results", str(env["results"])]
    tags = {"!!bool maybe": "KeyError", "!!timestamp abc": "AttributeError"}
    for tag in tags:
        (sub / "submission.yaml").write_text(plain.replace("external_data: false", f"external_data: {tag}"))
        assert main(argv) == 1
        err = capsys.readouterr().err
        assert err.count("\n") == 1 and "submission.yaml is not valid YAML at line" in err, err
        assert f"{tag.split()[1]!r} is not a valid {tag.split()[0][2:]}" in err and "internal error" not in err, err

    monkeypatch.setattr(submission._NoAliasLoader, "construct_object", yaml.SafeLoader.construct_object)  # control
    for tag, error in tags.items():
        (sub / "submission.yaml").write_text(plain.replace("external_data: false", f"external_data: {tag}"))
        assert main(argv) == 1
        assert f"internal error: {error}" in capsys.readouterr().err
