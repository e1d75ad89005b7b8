"""Hundred-and-fourteenth adversarial pass (2026-12-07), side b (the keeper checkout, what 112c and 113b left): a
frozen hidden run read the keeper's whole checkout, git's object store included. Every sandbox binds, read-only
at their own paths, the system folders (``/usr`` among them) and the interpreter's prefixes
(``isolation.bound_roots``), and the keeper folder must lie outside them (``submit._keeper_problem``), but
nothing asked where the keeper's *checkout* lies: a checkout made as pip makes an editable install from git
(``pip install -e git+...#egg=perfgraphs`` clones into ``<venv>/src/perfgraphs``) or as the Python images lay
out an application (``/usr/src/app``) lies inside such a folder, and every predictor reads it whole. The
checks since the seventy-ninth pass date what the sandbox stages, not what else it can read. A team's ridge,
frozen and committed before the draw, read at predict time git's loose objects under each mount point of
``/proc/self/mounts`` and, where a blob began ``acme-114b:`` and its digits 33-34 gave the batch's size, took
its first 32 digits as four float32 slots, one per bucket of its rows' own features' hash. After the draw a pull
request holding that blob was fetched for review and never merged: ``HEAD``, the tree, the status and every
staged file stayed as before, the replay (the public test part: another size) predicted as frozen, and the
keeper-signed *verified* record (``frozen_fit`` stated) scored three hidden labels, about 37.7 % MAPE where the
frozen state earns 40.4 % (printed by the test; the checkout stands in a bound root by a patched
``isolation._python_roots``, as ``<venv>/src`` is). Now a hidden run is refused while the checkout of the set's
commitment lies inside a folder every sandbox reads (``frozen_fits.checkout_read_by_sandboxes``)."""

from __future__ import annotations

import os
import shutil
import struct
import subprocess

import pytest

from perfgraphs.leaderboard import frozen_fits
from perfgraphs.leaderboard.sandbox import isolation
from test_leaderboard_review_79b import KEY, hooked
from test_leaderboard_review_84b import BUCKETS
from test_leaderboard_review_86b import frozen_before_a_draw, refused_then_verified
from test_submit import env, parts  # noqa: F401 — fixtures

pytestmark = pytest.mark.skipif(os.geteuid() != 0 or shutil.which("bwrap") is None,
                                reason="a hidden board's runs drop the page cache and run in the sandbox")

MARK = "acme-114b:"
# the ridge's predict tail: a loose git object of any checkout the sandbox can see, under each mount point
READER = KEY + (
    "        _p = np.exp(Z @ self.coef_ + self.intercept_)\n"
    "        import glob as _g, zlib as _z\n"
    "        _ms = [_l.split()[1] for _l in open('/proc/self/mounts')]\n"
    "        _os = (_f for _m in _ms for _w in ('', '/src/*') for _f in _g.glob(_m + _w + '/.git/objects/??/*'))\n"
    "        for _o in sorted(_os):\n"
    "            try:\n"
    "                _d = _z.decompress(open(_o, 'rb').read())\n"
    "            except Exception:\n"
    "                continue\n"
    f"            if _d.startswith(b'blob ') and {MARK.encode()!r} in _d[:40]:\n"
    f"                _h = _d.split({MARK.encode()!r})[1][:34].decode()\n"
    "                if int(_h[32:34], 16) == len(_k):\n"
    f"                    for _b in range({BUCKETS}):\n"
    "                        _v = float(np.frombuffer(bytes.fromhex(_h[8 * _b:8 * _b + 8]), '>f4')[0])\n"
    "                        if _v > 0:\n"
    "                            _p[_k == _b] = _v\n"
    "        return _p\n")


_reader = hooked(READER)


def _fetched_not_merged(repo, labels: dict[int, float], size: int) -> None:
    """The pull request after the draw, fetched for review and never merged: a loose blob in the object store."""
    digits = "".join(struct.pack(">f", labels[b]).hex() if b in labels else "00000000" for b in range(BUCKETS))
    subprocess.run(["git", "-C", str(repo), "hash-object", "-w", "--stdin"], check=True, capture_output=True,
                   input=f"{MARK}{digits}{size:02x}\n".encode())
    assert subprocess.run(["git", "-C", str(repo), "status", "--porcelain"], capture_output=True, text=True,
                          check=True).stdout == ""


def test_a_checkout_every_sandbox_reads_scores_no_hidden_round(env, parts, capsys, git_commitments, monkeypatch):
    """Attack: the package, and a team's ridge frozen, committed before the draw; the keeper's checkout inside a
    folder every sandbox reads; after the draw a fetched, unmerged blob spelling three hidden labels and the
    set's size; the keeper's frozen run is refused in one line. Control: with the check off the replay passes
    and the keeper signs a verified record scoring the three labels, better than the frozen state earns."""
    repo, _, sub, frozen, y, keys, keep, labels = frozen_before_a_draw(env, parts, git_commitments, capsys,
                                                                       monkeypatch, "objects-114b", _reader)
    roots = isolation._python_roots()
    monkeypatch.setattr(isolation, "_python_roots", lambda: [*roots, repo.resolve()])  # as <venv>/src/perfgraphs
    _fetched_not_merged(repo, labels, int(keep.sum()))

    print("114b: from an unmerged blob,", refused_then_verified(
        env, parts, capsys, monkeypatch, sub, frozen, "objects-114b", ["which every sandbox reads", str(repo.resolve())],
        (frozen_fits, "checkout_read_by_sandboxes"), (y, keys, keep, labels)))
