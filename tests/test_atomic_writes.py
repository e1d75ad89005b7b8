"""Crash-safe writes (perfgraphs.atomic) never write through a file planted under their temp name.

A store, split or artifact folder is committed by contributors; until 2026-12-04 a write's temp file
was ``.<name>.tmp-<pid>`` opened with ``open(..., "wb")``, so a link committed under that name (a pid
is easy to guess in a CI job) had the write go through it into the link's target."""

from __future__ import annotations

import os
import stat

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from perfgraphs import atomic


def _plant_links(folder, name, victim, pids=range(1, 4)):
    """A link to ``victim`` under every temp name the old scheme used for ``name`` (this pid too)."""
    for pid in {*pids, os.getpid()}:
        (folder / f".{name}.tmp-{pid}").symlink_to(victim)


@pytest.mark.parametrize("kind", ["bytes", "table"])
def test_a_write_never_goes_through_a_link_planted_under_its_temp_name(tmp_path, monkeypatch, kind):
    """Attack: a link committed as ``.splits.json.tmp-<pid>`` next to the file a write replaces.
    Now the temp file is created new (O_EXCL, O_NOFOLLOW) under a name with a random part: the link's
    target is untouched and the write lands. Control: the old scheme (a predictable name opened with
    ``open``) writes the target."""
    def write(path):
        if kind == "bytes":
            atomic.atomic_write_bytes(path, b"new contents\n")
        else:
            atomic.atomic_write_table(pa.table({"x": [1, 2, 3]}), path, sidecar=False)

    def written(path):
        return path.read_bytes() == b"new contents\n" if kind == "bytes" else \
            pq.read_table(path).column("x").to_pylist() == [1, 2, 3]

    folder, victim = tmp_path / "store", tmp_path / "victim.txt"
    folder.mkdir()
    victim.write_text("keep me\n")
    _plant_links(folder, "out.bin", victim)
    write(folder / "out.bin")
    assert victim.read_text() == "keep me\n"
    assert written(folder / "out.bin") and not (folder / "out.bin").is_symlink()
    assert not [p for p in folder.iterdir() if atomic.is_temp(p) and not p.is_symlink()]  # nothing left over
    mode = stat.S_IMODE((folder / "out.bin").stat().st_mode)
    umask = os.umask(0)
    os.umask(umask)
    assert mode == 0o666 & ~umask  # as open(..., "w") made it

    # control: the temp name and open of before
    def old_new_temp(path):
        tmp = path.with_name(f".{path.name}.tmp-{os.getpid()}")
        return os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o666), tmp

    monkeypatch.setattr(atomic, "new_temp", old_new_temp)
    folder2 = tmp_path / "control"
    folder2.mkdir()
    _plant_links(folder2, "out.bin", victim)
    write(folder2 / "out.bin")
    assert victim.read_bytes() != b"keep me\n"


def test_a_temp_name_already_taken_is_drawn_again(tmp_path, monkeypatch):
    """Two writers (or a leftover of a crash) under one name: ``new_temp`` draws another name rather
    than fail or reuse the file."""
    names = iter(["a", "a", "b"])
    monkeypatch.setattr(atomic.secrets, "token_hex", lambda n: next(names))
    first_fd, first = atomic.new_temp(tmp_path / "f")
    second_fd, second = atomic.new_temp(tmp_path / "f")
    os.close(first_fd)
    os.close(second_fd)
    assert first != second and first.name.endswith("-a") and second.name.endswith("-b")
