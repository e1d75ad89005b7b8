"""The store's JSON files, ``campaign.json`` and ``<platform>/hardware.json``, checksummed in place.

Both are rewritten in place, so a sidecar could not be replaced atomically together with them: the
checksum lives inside the file, under ``"sha256"`` (the sha256 of the canonical JSON of every other
key), and the file must be byte for byte the canonical rendering of what it holds. A changed byte
then makes the file unparseable, not canonical, or a checksum mismatch.

``campaign.json`` also holds the store's inventory under ``"store"``: every shard with its row count
and sha256. Per-file checksums cannot see a shard deleted together with its sidecar, or a shard
replaced by another one with a matching sidecar; a record of what was written can.

Files written before this format (the stores committed under data/measurements) have neither key
and are read as before ("legacy"); the first campaign that writes to such a store records the
inventory of its verified shards and checksums its files (:meth:`MeasurementStore.upgrade`).
"""

from __future__ import annotations

import hashlib
import json
import re
from dataclasses import dataclass, field
from pathlib import Path

from perfgraphs.atomic import atomic_write_bytes, os_errors
from perfgraphs.collect.errors import CorruptStoreFileError

FORMAT = 2
CHECKSUM = "sha256"
STORE = "store"
META = "campaign.json"
HARDWARE = "hardware.json"
PARTS = "parts"  # <platform>/parts/: rows not yet compacted into a shard
_HEX64 = re.compile(r"[0-9a-f]{64}")


def content_hash(body: dict) -> str:
    canonical = json.dumps(body, sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(canonical.encode()).hexdigest()


def render(body: dict) -> bytes:
    """The exact bytes of a checksummed file holding ``body``."""
    full = {**{k: v for k, v in body.items() if k != CHECKSUM}, CHECKSUM: content_hash(body)}
    return (json.dumps(full, indent=2, sort_keys=True) + "\n").encode()


def parse(path: Path, raw: bytes) -> tuple[dict, bool]:
    """``(content without the checksum, whether it carried one)``; a checksummed file must match."""
    try:
        data = json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, ValueError, RecursionError) as exc:
        raise CorruptStoreFileError(path, f"not valid JSON ({type(exc).__name__})") from None
    if not isinstance(data, dict):
        raise CorruptStoreFileError(path, "not a JSON object")
    if CHECKSUM not in data:
        return data, False
    body = {k: v for k, v in data.items() if k != CHECKSUM}
    if data[CHECKSUM] != content_hash(body):
        raise CorruptStoreFileError(path, "its content does not match the sha256 it carries")
    if raw != render(body):
        raise CorruptStoreFileError(path, "not the bytes that were written (formatting changed)")
    return body, True


def _read(path: Path) -> bytes | None:
    with os_errors(f"read {path}"):
        try:
            return path.read_bytes()
        except FileNotFoundError:
            return None


@dataclass
class Inventory:
    """What the store's campaigns wrote: ``shards["<platform>/<file>"] = {"rows": N, "sha256": H}``."""

    shards: dict[str, dict] = field(default_factory=dict)

    def to_json(self) -> dict:
        return {"format": FORMAT, "shards": self.shards}

    @classmethod
    def from_json(cls, path: Path, obj) -> "Inventory":
        # the checksum matched, so a malformed section is a newer format or a bug, not bit rot
        if not isinstance(obj, dict) or obj.get("format") != FORMAT or not isinstance(obj.get("shards"), dict):
            raise CorruptStoreFileError(path, f"unsupported store section (this version reads format {FORMAT})")
        for name, rec in obj["shards"].items():
            ok = (isinstance(rec, dict) and isinstance(rec.get("rows"), int) and rec["rows"] >= 0
                  and isinstance(rec.get("sha256"), str) and _HEX64.fullmatch(rec["sha256"]))
            if not ok:
                raise CorruptStoreFileError(path, f"malformed inventory entry for {name}")
        return cls(dict(obj["shards"]))


def read_campaign(root: Path) -> tuple[dict, Inventory | None]:
    """``(campaign metadata without the store's keys, inventory or None for a legacy store)``."""
    path = root / META
    raw = _read(path)
    if raw is None:
        return {}, None
    data, checksummed = parse(path, raw)
    if checksummed != (STORE in data):  # one of the two keys lost (e.g. a flipped bit in its name)
        raise CorruptStoreFileError(path, f"has {'a checksum but no' if checksummed else 'an inventory but no'} "
                                          f"{'store inventory' if checksummed else 'checksum'}")
    inventory = Inventory.from_json(path, data.pop(STORE)) if checksummed else None
    return data, inventory


def write_campaign(root: Path, meta: dict, inventory: Inventory) -> None:
    body = {k: v for k, v in meta.items() if k not in (STORE, CHECKSUM)}
    body[STORE] = inventory.to_json()
    with os_errors(f"write {root / META}"):
        root.mkdir(parents=True, exist_ok=True)
        atomic_write_bytes(root / META, render(body))


def read_hardware(path: Path) -> tuple[dict | None, bool]:
    """``(probe or None when absent, whether the file carries its checksum)``."""
    raw = _read(path)
    if raw is None:
        return None, False
    return parse(path, raw)


def write_hardware(path: Path, probe: dict) -> None:
    with os_errors(f"write {path}"):
        path.parent.mkdir(parents=True, exist_ok=True)
        atomic_write_bytes(path, render(probe))
