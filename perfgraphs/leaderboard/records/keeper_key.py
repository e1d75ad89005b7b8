"""The keeper's signature on what a hidden round publishes.

A hidden-set record and a hidden board's published ranks are files of the repository: anyone can
write one by hand. Since this module, a hidden set's commitment comes with the public half of an
Ed25519 key (``leaderboard/hidden/<set>.pub``, written by ``commit-hidden`` and committed with the
``.sha256``); the private half stays in the keeper folder (``keeper-key.pem``), where no predictor can
read it. ``submit --hidden-labels`` signs each record's digest
(:func:`perfgraphs.leaderboard.records.results.record_sha256`) and ``rank-hidden`` the ranks file;
readers verify both against the committed public key. A set committed before (no ``.pub``) keeps
its records as they were: the merge is its only gate, as RULES.md says.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey

from perfgraphs.leaderboard.records import hidden

PRIVATE_NAME = "keeper-key.pem"  # in the keeper folder, never in the repository


def public_key_path(dataset: str, config: str, root: Path | None = None) -> Path:
    return (root or hidden.COMMITMENTS_DIR) / f"{hidden._stem(dataset, config)}.pub"


def _private(keeper: Path) -> Ed25519PrivateKey:
    """The keeper's key, made on first use (readable by its owner only)."""
    path = Path(keeper) / PRIVATE_NAME
    if not path.exists():
        key = Ed25519PrivateKey.generate()
        data = key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                 serialization.NoEncryption())
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        with os.fdopen(fd, "wb") as f:
            f.write(data)
    try:
        key = serialization.load_pem_private_key(path.read_bytes(), password=None)
    except (ValueError, TypeError) as exc:
        raise hidden.HiddenLabelsError(f"{path} is not the keeper's key ({exc})") from None
    if not isinstance(key, Ed25519PrivateKey):
        raise hidden.HiddenLabelsError(f"{path} is not an Ed25519 key")
    return key


def write_public_key(keeper: Path, dataset: str, config: str, root: Path | None = None) -> Path:
    """The public half of the keeper's key beside the set's commitment (commit both)."""
    out = public_key_path(dataset, config, root)
    data = _private(keeper).public_key().public_bytes(serialization.Encoding.PEM,
                                                      serialization.PublicFormat.SubjectPublicKeyInfo)
    tmp = out.with_name(out.name + f".tmp-{os.getpid()}")
    tmp.write_bytes(data)
    os.replace(tmp, out)
    return out


def sign(keeper: Path, message: str) -> str:
    return _private(keeper).sign(message.encode()).hex()


def _public(dataset: str, config: str, root: Path | None = None) -> Ed25519PublicKey | None:
    path = public_key_path(dataset, config, root)
    try:
        key = serialization.load_pem_public_key(path.read_bytes())
    except (OSError, ValueError, TypeError):
        return None
    return key if isinstance(key, Ed25519PublicKey) else None


def signature_problem(dataset: str, config: str, message: str, signature: object,
                      root: Path | None = None) -> str | None:
    """Why ``signature`` is not the set's keeper's over ``message`` (None: it is, or the set has no
    committed public key: a set from before signatures)."""
    if not public_key_path(dataset, config, root).exists():
        return None
    key = _public(dataset, config, root)
    if key is None:
        return f"the hidden set's public key {public_key_path(dataset, config, root).name} is not readable"
    try:
        key.verify(bytes.fromhex(str(signature)), message.encode())
    except (ValueError, InvalidSignature):
        return "is not signed by the hidden set's keeper (leaderboard/hidden/<set>.pub)"
    return None


def ranks_message(doc: dict) -> str:
    """What the keeper signs of a ranks file: the document without its signature, canonical."""
    return json.dumps({k: v for k, v in doc.items() if k != "keeper_signature"}, sort_keys=True)
