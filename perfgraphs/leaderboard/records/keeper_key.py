"""The keeper's signature on what a hidden round publishes.

A hidden-set record and a hidden board's published ranks are files of the repository: anyone can
write one by hand. Since this module, a hidden set's commitment comes with the public half of an
Ed25519 key (``leaderboard/hidden/<set>.pub``, named below; written by ``commit-hidden`` and committed with the
``.sha256``); the private half stays in the keeper folder (``keeper-key.pem``), where no predictor can
read it. ``submit --hidden-labels`` signs each record's digest
(:func:`perfgraphs.leaderboard.records.digest.record_sha256`) with its tier (:func:`record_message`)
and ``rank-hidden`` the ranks file;
readers verify both against the committed public key.

The key belongs to one set (``<dataset>-<config>-<first 16 hex of its sha256>.pub``): the next
round of a config commits a key of its own, and the records and ranks of the earlier rounds still
verify against theirs. Sets committed before signatures have no key; their records are frozen as
they were merged, by digest, in ``leaderboard/hidden/unsigned-records.txt`` (one ``<set sha256>
<record sha256>`` a line): a hidden-set record that is neither signed by its set's key nor listed
there is not read, whatever it claims (a hand-written record with the real hash of a set without a
key was read as verified before). Ranks of a set without a key are never applied.
"""

from __future__ import annotations

import functools
import json
import os
import re
from collections.abc import Callable
from pathlib import Path

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey

from perfgraphs.leaderboard.records import hidden
from perfgraphs.leaderboard.records.history import (committed_text, converted_checkout, first_committed_text, full_history,
                                                    head_commit, in_folder, publishing_commit, repository_place)

PRIVATE_NAME = "keeper-key.pem"  # in the keeper folder, never in the repository
UNSIGNED_RECORDS = "unsigned-records.txt"  # the records of the sets from before keys, frozen


# a set's file names come from a record's own fields when it is read: nothing that could climb out of
# leaderboard/hidden/ or name a folder there
_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]*")


def public_key_path(dataset: str, config: str, set_sha256: str, root: Path | None = None) -> Path:
    return (root or hidden.COMMITMENTS_DIR) / f"{hidden._stem(dataset, config)}-{set_sha256.lower()[:16]}.pub"


def _names_a_set(dataset: str, config: str, set_sha256: str) -> bool:
    stem = hidden._stem(dataset, config)
    return (_NAME.fullmatch(stem) is not None and ".." not in stem
            and re.fullmatch(r"[0-9a-f]{64}", set_sha256) is not None)


def record_message(record_digest: str, tier: str) -> str:
    """What the keeper signs of a hidden-set record: its digest and its tier (the digest leaves the
    tier out, as a tier is read from evidence; signed, a self-reported record cannot be relabelled
    verified)."""
    return f"{record_digest}:{tier}"


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


def write_public_key(keeper: Path, dataset: str, config: str, set_sha256: str, root: Path | None = None) -> Path:
    """The public half of the keeper's key beside the set's commitment (commit both)."""
    out = public_key_path(dataset, config, set_sha256, root)
    data = _private(keeper).public_key().public_bytes(serialization.Encoding.PEM,
                                                      serialization.PublicFormat.SubjectPublicKeyInfo)
    tmp = out.with_name(out.name + f".tmp-{os.getpid()}")
    tmp.write_bytes(data)
    os.replace(tmp, out)
    return out


def sign(keeper: Path, message: str) -> str:
    return _private(keeper).sign(message.encode()).hex()


def key_problem(dataset: str, config: str, set_sha256: str, root: Path | None = None) -> str | None:
    """Why the set has no key that counts (None: it has one). A key counts once it is committed to git
    as it is now, no later than the commit that first committed the set's hash to its config's
    ``.sha256``: a key written or committed afterwards (anyone can add a file) would let its writer
    sign records of a set whose keeper never had it (found by the review of 2026-12-02)."""
    path = public_key_path(dataset, config, str(set_sha256), root)
    if not path.exists():
        return f"its hidden set has no committed key ({path.name})"
    if not full_history(path.parent):
        # a shallow clone shows its oldest commit adding every file: when a key came cannot be told; a partial
        # one lacks the older files a withdrawal or a declaration is read from (sixty-third pass)
        return (f"its hidden set's public key {path.name} cannot be checked without the git history (a shallow "
                "clone, or a partial one)")
    history = hidden.commitment_history(root)
    first = None if history is None else history.hashes.get(str(set_sha256).lower())
    added = None if history is None else history.keys.get(path.name)
    if not hidden.committed_unchanged(path) or added is None:
        return f"its hidden set's public key {path.name} is not committed to git as it is now"
    if first is None or hidden._stem(dataset, config) not in first[2] or added > first[1]:
        return (f"its hidden set's public key {path.name} was not committed with the set's commitment "
                "(a key added later vouches for nothing)")
    if not published_with_commitment(path, str(set_sha256).lower()):
        return (f"its hidden set's public key {path.name}, as the main line first committed it, is not the key the "
                "commit that published the set's hash held (a key of a branch's own vouches for nothing)")
    return None


def published_with_commitment(key: Path, set_sha256: str) -> bool:
    """Whether the set's key file ``key`` as the main line first committed it (the key signatures are
    checked against, :func:`_first_committed_key`) is the one held by the commit that published the set's
    hash (:func:`perfgraphs.leaderboard.records.history.publishing_commit`: in any-parent history, the
    commit that added the hash, an ancestor of every other that did). The main line's first-parent
    history alone dated the key: a pull request forked before the draw that committed a key of its own
    under the set's key name, then merged main (the keeper's commitment and key in it, the conflict
    resolved to its own key) and landed by fast-forward (RULES forbids it; a history does not say how it
    was made), made its key the main line's first, "committed before the set's commitment": its
    writer's hand-signed record and ranks read as the keeper's *verified* rank 1 on the official board,
    and the keeper's own records not at all (eighty-eighth pass)."""
    place, head = repository_place(key.parent), head_commit(key.parent)
    return place is not None and head is not None and _published_key_held(place, head, set_sha256, key.name)


@functools.lru_cache(maxsize=16)
def _published_key_held(place: tuple[Path, str], head: str, set_sha256: str, name: str) -> bool:
    stem = name[:-len(f"-{set_sha256[:16]}.pub")]
    published = publishing_commit(place[0], head, set_sha256, in_folder(place, f"{stem}.sha256"))
    held = committed_text(place[0], published, in_folder(place, name)) if published else None
    return held is not None and held == first_committed_text(place[0] / place[1], head, name)


@functools.lru_cache(maxsize=16)
def _first_committed_key(folder: Path, name: str, head: str) -> Ed25519PublicKey | None:
    """The key file ``name`` of ``folder`` as the main line (``--first-parent``) first committed it, at
    ``head``: the keeper writes a set's key once, with its commitment. The file as it is was read, so a
    pull request that overwrote a keyed set's ``.pub`` with a key of its own (a change, not an
    addition: the key still read as committed with the commitment) had its writer's signed records
    read as *verified*, and the keeper's not at all (thirty-second pass of 2026-12-03)."""
    text = first_committed_text(folder, head, name) if head else None
    try:
        key = serialization.load_pem_public_key(text.encode()) if text else None
    except (ValueError, TypeError):
        return None
    return key if isinstance(key, Ed25519PublicKey) else None



# One spelling of a signature, the keeper's (``bytes.hex``): ``bytes.fromhex`` also reads upper case and
# spaces, so one signature had many texts, and a line bearing another spelling of a verified record's
# signature, added before the team's line was respelled so and taken out after, counted a copy taken out
# (sixty-fourth pass of 2026-12-06; ``_bearer_changes`` counts such lines soundly besides)
SIGNATURE_SPELLING = re.compile(r"[0-9a-f]{128}")


def signature_problem(dataset: str, config: str, set_sha256: str, message: str, signature: object,
                      root: Path | None = None) -> str | None:
    """Why ``signature`` is not the keeper's of the hidden set ``set_sha256`` over ``message``
    (None: it is)."""
    if not _names_a_set(dataset, config, str(set_sha256)):
        return f"names no hidden set ({hidden._stem(dataset, config)!r}, {str(set_sha256)[:16]!r})"
    why = key_problem(dataset, config, str(set_sha256), root)
    if why:
        return why
    path = public_key_path(dataset, config, str(set_sha256), root)
    key = _first_committed_key(path.parent.absolute(), path.name, head_commit(path.parent) or "")
    if key is None:
        return f"the hidden set's public key {path.name} is not readable"
    if not SIGNATURE_SPELLING.fullmatch(str(signature)):
        return "is not a signature as the keeper writes one (128 lowercase hex digits, nothing else)"
    try:
        key.verify(bytes.fromhex(str(signature)), message.encode())
    except (ValueError, InvalidSignature):
        return f"is not signed by the hidden set's keeper ({path.name})"
    return None


def unsigned_records(root: Path | None = None) -> frozenset[tuple[str, str]]:
    """(set sha256, record sha256) of every record merged on a set that has no key (frozen): the
    lines of :data:`UNSIGNED_RECORDS` as the main line first committed it that the file still holds.
    The file as it is was read: a line a pull request added (or swapped in for a merged one, as the
    test counting its 13 lines does not see) made its hand-written record on the keyless live set
    ``2ee8d095`` read as verified (twenty-eighth pass of 2026-12-03). Without a git history none is."""
    folder = Path(root or hidden.COMMITMENTS_DIR)
    if (folder / UNSIGNED_RECORDS).is_file() and (why := converted_checkout(folder / UNSIGNED_RECORDS)):
        # a root .gitattributes line (``leaderboard/hidden/*.txt working-tree-encoding=UTF-16``, a pull
        # request outside leaderboard/hidden/) checked this file out as UTF-16 in a fresh clone: no
        # line matched, and the live set's ten verified records left every board (thirty-sixth pass)
        raise hidden.HiddenLabelsError(why.encode("unicode_escape").decode("ascii"))
    try:
        text = (folder / UNSIGNED_RECORDS).read_text()
    except (OSError, ValueError):
        return frozenset()
    head = head_commit(folder)
    frozen = _first_committed(folder.absolute(), head) if head else frozenset()
    return _pairs(text) & frozen


def _pairs(text: str) -> frozenset[tuple[str, str]]:
    pairs = (line.split() for line in text.splitlines() if line.strip() and not line.startswith("#"))
    return frozenset((p[0].lower(), p[1].lower()) for p in pairs if len(p) == 2)


@functools.lru_cache(maxsize=8)
def _first_committed(folder: Path, head: str) -> frozenset[tuple[str, str]]:
    """The pairs of :data:`UNSIGNED_RECORDS` in the first commit of the main line (``--first-parent``)
    that has it, at ``head`` (the history below it cannot change)."""
    text = first_committed_text(folder, head, UNSIGNED_RECORDS)
    return _pairs(text) if text else frozenset()


def record_signature_problem(record: dict, record_digest: str, root: Path | None = None) -> str | None:
    """Why a hidden-set record is not its keeper's: signed (its digest and tier) by its set's key,
    or (a set without a key) one of the frozen records of :data:`UNSIGNED_RECORDS`, whose tiers are
    theirs as merged (all ``verified``). None: it is."""
    dataset, config = str(record.get("dataset", "")), str(record.get("config", ""))
    set_sha256 = str(record.get("hidden_labels_sha256", ""))
    if not _names_a_set(dataset, config, set_sha256):
        return f"names no hidden set ({hidden._stem(dataset, config)!r}, {set_sha256[:16]!r})"
    no_key = key_problem(dataset, config, set_sha256, root)
    if no_key is None:
        return signature_problem(dataset, config, set_sha256, record_message(record_digest, str(record.get("tier", ""))),
                                 record.get("keeper_signature", ""), root)
    # a key file that does not count leaves the set keyless: its frozen records still read
    # the digest leaves the tier out: a frozen record replayed as self-reported was a second row of
    # its entry (twenty-fourth pass of 2026-12-02)
    # nor is a signature, which is outside the digest too: a frozen record copied with any
    # ``keeper_signature`` added read as the same record, newer, and took the original's place on
    # the live set's board, its page "Superseded" (thirty-second pass of 2026-12-03)
    if ((set_sha256, record_digest.lower()) in unsigned_records(root) and record.get("tier") == "verified"
            and not record.get("keeper_signature")):
        return None
    return (f"{no_key}, and the record is not one of those merged on a set from before keys "
            f"({UNSIGNED_RECORDS})")


def withdrawn_problem(record: dict, path: Path, read_as_signed: Callable[[str, str, Path], bool],
                      read_digest: Callable[[dict], str]) -> str | None:
    """Why a hidden-set record read from the results file ``path`` is not read although its keeper signed
    it (None: it is read): the main line held it in that file and then took it out (a record removed
    on review, e.g. an entry found measuring its inputs, rule 3). Its signature is still the keeper's,
    so a pull request that put the line back (or the same record written anew, another spacing or key
    order) read it as *verified* again, ranked by the keeper's ranks if they still named it (fifty-fifth
    pass of 2026-12-05). A withdrawn record stays withdrawn, as a withdrawn set does: the record is
    its digest (:func:`perfgraphs.leaderboard.records.digest.record_sha256`), and a commit that moves
    or rewrites the line withdraws nothing. Outside a git repository nothing is withdrawn; in one that
    cannot show the file's history (a shallow or partial clone), no hidden record is read
    (:func:`unread_history_problem`, sixty-third pass).
    ``read_as_signed(line, digest, path)``: whether the boards read a line of ``path`` as the keeper's
    record of that digest (:func:`perfgraphs.leaderboard.records.results.read_as_signed`);
    ``read_digest(record)``: the digest of the record a line reads as, however written, by which copies
    are counted (:func:`perfgraphs.leaderboard.records.results.read_digest`, sixtieth pass). Both are
    passed in: the reader of records is above this module."""
    from perfgraphs.leaderboard.records.digest import record_sha256

    rewritten = hidden.main_line_rewritten(path)  # the keeper's withdrawal off the main line (eighty-ninth pass)
    if rewritten is not None:
        return rewritten
    head = head_commit(path.parent)
    withdrawn = _withdrawn(path.absolute(), head, read_as_signed, read_digest) if head else frozenset()
    if withdrawn is None:
        return unread_history_problem(path)
    if read_digest(record) not in withdrawn:  # the record it reads as, however written (sixtieth pass)
        return None
    digest = record_sha256(record)
    return (f"is a hidden-set record (digest {digest[:16]}) the main line held in {path.name} and took out: a "
            "withdrawn record stays withdrawn, whoever puts it back (a new score is a new record)")


def unread_history_problem(path: Path) -> str:
    """Why a hidden-set record of the results file ``path``, in a git repository whose history of that file
    cannot be read (a shallow or partial clone, a git that failed), is not read: whether the main line took
    it out cannot be told. Such a history was read as one that took nothing out: a record of the keyless
    live set ``2ee8d095``, frozen as merged, that the keeper had taken out and a pull request put back
    read *verified* again in a ``--depth 330`` clone, and a keeper-signed one in a blobless clone whose
    commitments' files had been fetched (sixty-third pass of 2026-12-06)."""
    return (f"is a hidden-set record, and the history of {path.name} cannot be read here (a shallow or partial "
            "clone, or a results folder committed as another repository): whether the keeper took it out cannot "
            "be told; read the boards from a full clone")


@functools.lru_cache(maxsize=8)
def _withdrawn(path: Path, head: str, read_as_signed: Callable[[str, str, Path], bool],
               read_digest: Callable[[dict], str]) -> frozenset[str] | None:
    """The digests of the hidden-set records of the results file ``path`` taken out on the main line, at
    ``head``: every copy (any spelling, one the boards skip too, a line bearing its keeper's signature:
    :func:`_bearer_changes`) gone after a commit that held one, once a line read as the keeper's had held
    it (:func:`_first_signed`), or every copy the boards read as the keeper's
    record (``read_as_signed``) gone in a commit that added no copy at all (:func:`_taken_out`). None: the
    repository holding ``path`` cannot show the file's history (:func:`unread_history_problem`)."""
    from perfgraphs.leaderboard.records.digest import record_sha256
    from perfgraphs.leaderboard.records.history import line_changes
    from perfgraphs.leaderboard.records.line_text import as_shown

    changes = line_changes(path)
    if changes is None:  # never "nothing taken out": a history that is not here took nothing out it can show
        return None
    # (arrival, +1 or -1, the record's digest or None, its keeper_signature, read as the keeper's, the line)
    lines = []
    for when, delta, raw in changes:
        # the line as the boards read it (:func:`as_shown`), before any test of it: a zero-width space
        # inside each ``hidden`` of another team's line (a diff shows it unchanged) hid it from the
        # test below while the boards read the same record, "taken out" (fifty-seventh pass)
        text = as_shown(raw)
        if "hidden" not in text and "\\" not in text:
            # a line is read as JSON reads it: ``"h\\u0069dden"`` is ``"hidden"``, and another team's line
            # respelled so counted as taken out, and every board dropped the keeper's rank-1 entry (fifty-sixth pass)
            continue
        try:
            record = json.loads(text)
            if not isinstance(record, dict):
                continue
            digest = read_digest(record) if record.get("test_set") == "hidden" else None
        except (ValueError, RecursionError):
            continue
        signature = record.get("keeper_signature")
        lines.append((when, delta, digest, signature if isinstance(signature, str) else "",
                      digest is not None and read_as_signed(raw, record_sha256(record), path), raw))
    net: dict[str, dict[int, int]] = {}
    signed: dict[str, dict[int, int]] = {}
    added: dict[str, set[int]] = {}
    copies = [(when, delta, digest) for when, delta, digest, *_ in lines if digest is not None]
    for when, delta, held in copies + _bearer_changes(lines, _signed_by(lines)):
        per = net.setdefault(held, {})
        per[when] = per.get(when, 0) + delta
        if delta > 0:
            added.setdefault(held, set()).add(when)
    for when, delta, digest, _, as_signed, _ in lines:
        if as_signed:
            per = signed.setdefault(digest, {})
            per[when] = per.get(when, 0) + delta
    since = _first_signed(lines)
    return frozenset(digest for digest, deltas in net.items() if digest in since
                     and (_taken_out(deltas, since=since[digest])
                          or _taken_out(signed.get(digest, {}), _respelled(deltas, added.get(digest, set())))))


def _first_signed(lines: list[tuple]) -> dict[str, int]:
    """For each record's digest, the arrival that first added a line the boards read as its keeper's
    (``lines`` as :func:`_withdrawn` reads them): before it nothing held the record, and nothing could take
    it out. Copies the boards skip (unsigned and *self-reported*, a key written twice...) that fell to
    none before it took out a record no line had yet held: a pull request that saw a team's keeper-signed
    record in its pull request, before it landed, added such a copy, a second one removed that malformed
    line, and the keeper's signed line, landing after, was read as withdrawn and left every board for
    good (sixty-seventh pass of 2026-12-06)."""
    found: dict[str, int] = {}
    for when, delta, digest, _, as_signed, _ in lines:
        if as_signed and delta > 0 and digest is not None:
            found[digest] = min(found.get(digest, when), when)
    return found


def _signed_by(lines: list[tuple]) -> dict[str, tuple[int, str]]:
    """For each keeper signature of a line the boards read as the keeper's record (``lines``: (arrival, +1
    or -1, digest, keeper_signature, read as the keeper's, the line) as :func:`_withdrawn` reads them), the arrival
    that first added such a line and the record's digest: from then on, a line bearing that signature is a
    copy of that record, whatever else it says. An edit of a signed line that kept its signature (a paper
    link or an affiliation added to a team's verified record, a field the maintainers strip) broke the
    signature visibly, and the revert that mended it then counted as the keeper taking the record out:
    every board dropped it for good (sixty-second pass of 2026-12-05). Before the signed line arrived, a
    line bearing its signature copies nothing (it would let a pull request that saw the keeper's line
    before it landed add and take out a copy of it)."""
    found: dict[str, tuple[int, str]] = {}
    for when, delta, digest, signature, as_signed, *_ in sorted(lines, key=lambda line: line[0]):
        if as_signed and delta > 0 and signature and digest is not None:
            found.setdefault(signature, (when, digest))
    return found


def _bearer_changes(lines: list[tuple], signed_by: dict[str, tuple[int, str]]) -> list[tuple[int, int, str]]:
    """The changes that lines bearing a keeper's signature (:func:`_signed_by`) make to the count of its
    record's copies, as (arrival, net change, the record's digest), each line's changes summed by commit:
    from the arrival of the signature's signed line on, a removal counting only a copy whose addition
    counted (of a line that bore it before that arrival, the same text, those copies go first, for
    nothing). Such a line's addition counted nothing and its removal a copy taken out: lines bearing
    another spelling of the keeper's signature of a team's verified record (its hex in upper case, which
    the signature check reads alike), added before a line of the record with that spelling and taken out
    after it, took the count to none with the keeper's line standing byte for byte, and every board
    dropped the record as withdrawn, for good, after two pull requests each harmless on its own board
    (sixty-fourth pass of 2026-12-06). ``lines``: as :func:`_withdrawn` reads them."""
    per_commit: dict[tuple[int, str, str], int] = {}
    for when, delta, digest, signature, _, text in lines:
        if signature in signed_by and signed_by[signature][1] != digest:  # a copy of its own digest counts as one
            per_commit[(when, signature, text)] = per_commit.get((when, signature, text), 0) + delta
    uncounted: dict[tuple[str, str], int] = {}  # such lines held before the signature's signed line arrived
    changes = []
    for (when, signature, text), change in sorted(per_commit.items()):
        since, bearer = signed_by[signature]
        before = uncounted.get((signature, text), 0)
        if when < since:
            uncounted[(signature, text)] = before + change
            continue
        spared = min(-change, max(before, 0)) if change < 0 else 0
        uncounted[(signature, text)] = before - spared
        if change + spared:
            changes.append((when, change + spared, bearer))
    return changes


def _respelled(deltas: dict[int, int], added: set[int]) -> set[int]:
    """The commits (of ``added``, those that added a copy of a record) that respelled it: the copies did
    not fall in number. A team's copy the boards skip, left as the file's last line without a final
    newline, showed as removed and added again in the keeper's commit that took the signed line out (an
    editor ends the file with a newline), and that commit, which added a copy, withdrew nothing: the
    signed line put back later read *verified* (sixty-first pass of 2026-12-05)."""
    return {when for when in added if deltas.get(when, 0) >= 0}


def _taken_out(deltas: dict[int, int], respelled: set[int] = frozenset(), since: int = 0) -> bool:
    """Whether a count with these changes (arrival -> net change) fell to none after a commit that held
    one, in a commit not in ``respelled`` and not before the arrival ``since`` (:func:`_first_signed`)."""
    count = 0
    for when in sorted(deltas):  # a commit that moved or respelled the line took nothing out
        held, count = count > 0, count + deltas[when]
        if held and count <= 0 and when not in respelled and when >= since:
            return True
    return False


def ranks_message(doc: dict) -> str:
    """What the keeper signs of a ranks file: the document without its signature, canonical."""
    return json.dumps({k: v for k, v in doc.items() if k != "keeper_signature"}, sort_keys=True)
