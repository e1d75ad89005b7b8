"""``manifest.json``: what a built dataset version contains and how to check it.

Row counts, the sha256 of every file, the versions of the generators (timm, torch, onnx), the
source commit and the build date. ``verify`` recomputes every hash and names the first file that
differs, so a flipped byte anywhere is caught before wrong data is served.
"""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
from datetime import datetime, timezone
from pathlib import Path

from perfgraphs.collect.store import sha256_file
from perfgraphs.data.graph_pool import CorruptFileError

MANIFEST = "manifest.json"


def generator_versions() -> dict[str, str]:
    from importlib.metadata import PackageNotFoundError, version

    out = {}
    for pkg in ("perfgraphs", "timm", "torch", "onnx", "transformers", "pyarrow"):
        try:
            out[pkg] = version(pkg)
        except PackageNotFoundError:
            out[pkg] = "absent"
    return out


def source_commit() -> str:
    try:
        root = Path(__file__).resolve().parents[2]
        return subprocess.run(["git", "-C", str(root), "rev-parse", "HEAD"], capture_output=True,
                              text=True, check=True).stdout.strip()
    except Exception:
        return "unknown"


def write_manifest(folder: Path, dataset: str, version: str, config: str, row_counts: dict[str, int],
                   extra: dict | None = None) -> dict:
    """Record every file's sha256; ``content_hash`` hashes those (names and hashes), so it is
    equal for two builds exactly when every file is byte-identical."""
    files = sorted(p for p in folder.rglob("*") if p.is_file() and p.name != MANIFEST and not p.name.endswith(".tmp"))
    hashes = {str(p.relative_to(folder)): sha256_file(p) for p in files}
    content_hash = hashlib.sha256(json.dumps(hashes, sort_keys=True).encode()).hexdigest()
    manifest = {
        "dataset": dataset,
        "version": version,
        "config": config,
        "row_counts": row_counts,
        "content_hash": content_hash,
        "files": hashes,
        "generators": generator_versions(),
        "source_commit": source_commit(),
        "built_at": datetime.now(timezone.utc).isoformat(timespec="seconds"),
        **(extra or {}),
    }
    tmp = folder / (MANIFEST + ".tmp")
    tmp.write_text(json.dumps(manifest, indent=2, sort_keys=True) + "\n")
    os.replace(tmp, folder / MANIFEST)
    return manifest


def read_manifest(folder: Path) -> dict | None:
    path = folder / MANIFEST
    if not path.exists():
        return None
    try:
        return json.loads(path.read_text())
    except json.JSONDecodeError:
        raise CorruptFileError(f"{path} is not valid JSON") from None


def verify(folder: Path) -> dict:
    """Raise :class:`CorruptFileError` naming the first missing or modified file."""
    manifest = read_manifest(folder)
    if manifest is None:
        raise CorruptFileError(f"{folder} has no {MANIFEST}: the build did not finish")
    for rel, expected in sorted(manifest["files"].items()):
        path = folder / rel
        if not path.exists():
            raise CorruptFileError(f"{path} is missing")
        if sha256_file(path) != expected:
            raise CorruptFileError(f"{path} does not match its sha256 in {MANIFEST} (corrupted or modified)")
    return manifest
