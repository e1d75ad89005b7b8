"""Hundred-and-thirteenth adversarial pass (2026-12-07), side b (the frozen code is the code that runs): a
frozen hidden run read package *code* converted after its set was drawn. The sandbox stages the perfgraphs
package's ``.py`` files (``isolation.stage_code``) as the keeper's checkout holds them when it scores;
``frozen_fits.package_data_before`` dates the staged tables (``paths.CODE_DATA``) from their bytes on disk,
but the code is left to review and to the replay of one frozen state on the public test part, and review
reads the diff of the sources, not the bytes git writes from them. A team's ridge, frozen and committed
before the draw, read at predict time which of the staged package's ``.py`` files end their lines with
CRLF: one bit a file, in path order, the first 8 the batch size at which to act (the hidden set's), the next
128 four float32 slots, one per bucket of its rows' own features' hash. After the draw a pull request added
one ``.gitattributes`` at the repository's root naming 54 of the package's sources ``eol=crlf``, no source
changed; on the keeper's fresh checkout those 54 files held CRLF, git's status stayed clean, the tree and
every table were as before the draw, the replay (the public test part: another size) predicted as frozen,
and the keeper-signed *verified* record (``frozen_fit`` stated) scored three hidden labels: about 37.7 %
MAPE where the frozen state earns 40.4 % (printed by the test). Now a hidden run, frozen or fitted, is
refused unless every file the sandbox stages from the commitment's repository is, byte for byte, the blob
git holds for it at the commit checked out (``frozen_fits.staged_files_not_committed``): what review read is
what runs."""

from __future__ import annotations

import os
import shutil
import struct
import subprocess
from pathlib import Path

import pytest

from perfgraphs.leaderboard import frozen_fits
from perfgraphs.paths import CODE_EXCLUDE
from test_leaderboard_review_79b import KEY, hooked
from test_leaderboard_review_84b import BUCKETS
from test_leaderboard_review_86b import frozen_before_a_draw, refused_then_verified
from test_submit import env, parts  # noqa: F401 — fixtures

pytestmark = pytest.mark.skipif(os.geteuid() != 0 or shutil.which("bwrap") is None,
                                reason="a hidden board's runs drop the page cache and run in the sandbox")

SKIPPED = tuple(sorted(CODE_EXCLUDE | {"benchmarks"}))  # folders the staged package's own sources are not in
BITS = 8 + 32 * BUCKETS  # the batch size to act at, then each bucket's float32
# the ridge's predict tail: a bit a staged source (CRLF or not), in path order
READER = KEY + (
    "        _p = np.exp(Z @ self.coef_ + self.intercept_)\n"
    "        import pathlib as _pl, perfgraphs as _pg\n"
    "        _t = _pl.Path(_pg.__file__).parent\n"
    f"        _fs = [q for q in _t.rglob('*.py') if not set(q.relative_to(_t).parts[:-1]) & set({SKIPPED!r})]\n"
    "        _fs = sorted((q for q in _fs if b'\\n' in q.read_bytes()), key=lambda q: q.relative_to(_t).as_posix())\n"
    f"        _s = ''.join('1' if b'\\r\\n' in q.read_bytes() else '0' for q in _fs[:{BITS}])\n"
    f"        if len(_s) == {BITS} and int(_s[:8], 2) == len(_k):\n"
    f"            for _b in range({BUCKETS}):\n"
    "                _v = float(np.frombuffer(int(_s[8 + 32 * _b:40 + 32 * _b], 2).to_bytes(4, 'big'), '>f4')[0])\n"
    "                if _v > 0:\n"
    "                    _p[_k == _b] = _v\n"
    "        return _p\n")


_reader = hooked(READER)


def _sources(package: Path) -> list[str]:
    """The package's sources the reader takes its bits from, in its order (paths inside the package)."""
    found = [q for q in package.rglob("*.py") if not set(q.relative_to(package).parts[:-1]) & set(SKIPPED)]
    return sorted(q.relative_to(package).as_posix() for q in found if b"\n" in q.read_bytes())


def _crlf_after_the_draw(repo: Path, labels: dict[int, float], size: int, commit) -> int:
    """The pull request after the draw: a root ``.gitattributes`` naming the sources whose bit is 1 ``eol=crlf``
    (no source changed), then the keeper's fresh checkout of them. Returns how many it names."""
    bits = f"{size:08b}" + "".join(f"{struct.unpack('>I', struct.pack('>f', labels.get(b, 0.0)))[0]:032b}"
                                   for b in range(BUCKETS))
    named = [rel for rel, bit in zip(_sources(repo / "perfgraphs"), bits) if bit == "1"]
    (repo / ".gitattributes").write_text("".join(f"/perfgraphs/{rel} eol=crlf\n" for rel in named))
    commit("normalise line ends of a few sources")
    for rel in named:
        (repo / "perfgraphs" / rel).unlink()
    subprocess.run(["git", "-C", str(repo), "checkout", "-q", "--", *(f"perfgraphs/{rel}" for rel in named)],
                   check=True)
    assert b"\r\n" in (repo / "perfgraphs" / named[0]).read_bytes()
    assert subprocess.run(["git", "-C", str(repo), "status", "--porcelain"], capture_output=True, text=True,
                          check=True).stdout == ""
    return len(named)


def test_package_code_converted_after_the_draw_does_not_run_in_a_frozen_round(env, parts, capsys, git_commitments,
                                                                              monkeypatch):
    """Attack: the package, and a team's ridge frozen, committed before the draw; after it, a root
    ``.gitattributes`` giving some sources CRLF, their bits three hidden labels and the set's size; the
    keeper's frozen run is refused in one line. Control: with the check off the replay passes and the keeper
    signs a verified record scoring the three labels, better than the frozen state earns."""
    _, commit = git_commitments
    repo, package, sub, frozen, y, keys, keep, labels = frozen_before_a_draw(env, parts, git_commitments, capsys,
                                                                             monkeypatch, "crlf-113b", _reader)
    assert len(_sources(package)) >= BITS and int(keep.sum()) < 256
    named = _crlf_after_the_draw(repo, labels, int(keep.sum()), commit)

    print(f"113b: {named} sources made CRLF,", refused_then_verified(
        env, parts, capsys, monkeypatch, sub, frozen, "crlf-113b", ["not the bytes git holds for them", "perfgraphs/"],
        (frozen_fits, "staged_files_not_committed"), (y, keys, keep, labels)))
