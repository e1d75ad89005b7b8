"""Thirty-fourth adversarial pass (2026-12-03), submit side: a handed-over repository whose `.git`
holds a FIFO or a link passed every check of `leaderboard reproduce --submission` (a FIFO among its
refs then held the fresh clone for 30 minutes), and the label scan read millions of short printed
numbers one by one in Python (100 MB of ``1.`` took 93 s). Each test is one attack that worked
before its fix, with a control."""

from __future__ import annotations

import os
import shutil
import tracemalloc
from pathlib import Path

import numpy as np
import pytest

from perfgraphs.leaderboard import label_scan, reproduce
from perfgraphs.leaderboard.records.results import RESULTS_DIR
from test_leaderboard_review_30b import _git


@pytest.mark.parametrize("kind", ["fifo", "link"])
def test_reproduce_refuses_a_repository_holding_a_fifo_or_a_link(tmp_path, monkeypatch, kind):
    """A FIFO at ``.git/refs/tags/v1`` passed every check (none reads that ref), then the fresh
    clone's ``git clone`` blocked reading it until CLONE_SECONDS (30 minutes), and its
    ``git-upload-pack`` stayed blocked on the FIFO after `reproduce` ended. ``.git/objects/pack`` as
    a link to the reviewer's own checkout's packs passed likewise, and the clone took objects from
    there, what ``objects/info/alternates`` is refused for. A fresh clone's ``.git`` holds folders and
    regular files only: anything else is refused in one line. Controls: the honest clone passes, and
    without the new check each attack passes every other one."""
    top = tmp_path / "clone"
    shutil.copytree(Path(RESULTS_DIR).parent / "examples" / "ridge", top)
    _git(top, "init", "-q")
    _git(top, "add", "-A")
    _git(top, "commit", "-qm", "honest")
    record = {"method": "tweak-ridge", "authors": "Zed Q. Tester", "tier": "reproduced", "test_set": "public",
              "code_commit": _git(top, "rev-parse", "HEAD").strip(), "per_seed": [{"seed": s} for s in range(5)]}
    reproduce._check_contributor(record, top)  # control: the honest clone
    if kind == "fifo":
        (top / ".git" / "refs" / "tags").mkdir(exist_ok=True)
        os.mkfifo(top / ".git" / "refs" / "tags" / "v1")
        odd = "refs/tags/v1"
    else:
        pack = top / ".git" / "objects" / "pack"
        shutil.rmtree(pack)
        os.symlink(Path(RESULTS_DIR).parent.parent / ".git" / "objects" / "pack", pack)
        odd = "objects/pack"
    with pytest.raises(reproduce.ReproduceError, match=f"{odd} \\(not a regular file\\)"):
        reproduce._check_contributor(record, top)
    monkeypatch.setattr(reproduce, "_not_plain_files", lambda git_dir: [])
    reproduce._check_contributor(record, top)  # control: nothing else refused it


def test_short_printed_numbers_are_not_kept_one_by_one():
    """A file of ``1.`` repeated is 8 M printed numbers of 2 or 3 bytes a 16 MB piece, none of the
    4 digits a label is matched at; each was kept and read digit by digit in Python: 16 MB took 13 s
    and 470 MB over the file, 100 MB 93 s (``1,``: 95 s). Only tokens of 4 bytes or more are kept,
    found one at a time. Controls: the tokens the scan kept before (every one), a traced peak over
    3 times the file's size with them; labels printed with 4 digits or more are still found."""
    rng = np.random.default_rng(0)
    labels = rng.lognormal(0, 1, 300)
    index = label_scan.label_index([label_scan.LabelArray("labels", labels)])
    data = b"1." * (1 << 20)  # 2 MB
    assert label_scan._printed_numbers(data) == []
    assert len(label_scan._NUMBER.findall(data)) == (1 << 20) - 1  # control: what was kept before ("1.1", ".1", ...)

    def peak(tokens) -> int:
        tracemalloc.start()
        try:
            index.printed(tokens(data))
            return tracemalloc.get_traced_memory()[1]
        finally:
            tracemalloc.stop()

    assert peak(label_scan._long_tokens) < len(data)
    assert peak(label_scan._NUMBER.findall) > 3 * len(data)  # control: the scan before
    printed = (", ".join(f"{v:.6g}" for v in labels) + ", 1.1.1.1.1, 7,8,9").encode()
    assert len(index.printed(label_scan._printed_numbers(printed))) >= 0.9 * len(labels)


def test_a_git_call_past_its_timeout_leaves_no_process(tmp_path):
    """Attack (reported by the thirty-fourth pass, fixed after it): a clone stopped by its timeout
    was killed alone, and its ``git-upload-pack``, blocked on a FIFO at a ref of the source
    repository, stayed after `reproduce` had ended. Now git runs in a session of its own, killed
    whole past its timeout. Control: the same clone without the FIFO is made."""
    from perfgraphs.leaderboard.records.history import git

    source = tmp_path / "source"
    source.mkdir()
    _git(source, "init", "-q")
    (source / "a.txt").write_text("a\n")
    _git(source, "add", "-A")
    _git(source, "commit", "-qm", "a")
    clone = ("-c", "protocol.file.allow=always", "clone", "--quiet", "--no-local", "--no-checkout")
    assert git(tmp_path, *clone, "--", str(source), str(tmp_path / "honest")) is not None  # control
    os.mkfifo(source / ".git" / "refs" / "tags" / "v1")
    assert git(tmp_path, *clone, "--", str(source), str(tmp_path / "held"), timeout=3) is None

    def waiting_on_source() -> list[str]:
        found = []
        for pid in filter(str.isdigit, os.listdir("/proc")):
            try:
                cmdline = Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
            except OSError:
                continue
            if str(source) in cmdline and "upload-pack" in cmdline:
                found.append(cmdline)
        return found

    assert waiting_on_source() == []
