"""A build input's tree digest (``build_inputs.tree_digest``): the same value as the definition it has
always had, computed here with pathlib (sha256 over "relative path NUL sha256 of the file" lines of every
non-hidden file, in pathlib's order), and no change missed by the sha256s it keeps by file status."""

from __future__ import annotations

import hashlib
import os
import time

from perfgraphs.data.build_inputs import _HASHED, tree_digest


def _by_definition(folder) -> str:
    files = sorted(p for p in folder.rglob("*")
                   if p.is_file() and not any(part.startswith(".") for part in p.relative_to(folder).parts))
    h = hashlib.sha256()
    for path in files:
        h.update(f"{path.relative_to(folder)}\0{hashlib.sha256(path.read_bytes()).hexdigest()}\n".encode())
    return h.hexdigest()


def _tricky_folder(root):
    """Names whose string order is not their parts' order, hidden files and folders, links."""
    for rel in ["a/y", "a-b/x", "a.b", "a b/z", ".hidden/q", "ok/.hidden", "ok/v", "Z/1", "é/2", "a/b/c/d"]:
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(rel)
    os.symlink(root / "ok", root / "link-to-folder")
    os.symlink(root / "a.b", root / "link-to-file")
    os.symlink(root / "nowhere", root / "broken-link")
    return root


def test_the_digest_is_its_definition(tmp_path):
    root = _tricky_folder(tmp_path / "tree")
    assert tree_digest(root) == _by_definition(root)
    assert tree_digest(root / "a.b") == hashlib.sha256(
        f"a.b\0{hashlib.sha256(b'a.b').hexdigest()}\n".encode()).hexdigest()


def test_a_rewrite_is_seen_whether_just_hashed_or_long_kept(tmp_path, monkeypatch):
    from perfgraphs.data import build_inputs

    root = _tricky_folder(tmp_path / "tree")
    before = tree_digest(root)
    (root / "ok" / "v").write_text("ok/w")  # same size, within the clock tick of its hashing
    assert tree_digest(root) == _by_definition(root) != before
    monkeypatch.setattr(build_inputs, "_RACY_S", 0.0)  # every file old enough to keep (else 2 s of waiting)
    time.sleep(0.05)
    kept = tree_digest(root)
    assert any(key[0] == str(root / "a.b") for key in _HASHED)  # its sha256 is kept now
    stat = os.stat(root / "a.b")
    (root / "a.b").write_text("b.a")  # same size, modification time put back: the change time moves
    os.utime(root / "a.b", ns=(stat.st_atime_ns, stat.st_mtime_ns))
    assert os.stat(root / "a.b").st_mtime_ns == stat.st_mtime_ns
    assert tree_digest(root) == _by_definition(root) != kept
