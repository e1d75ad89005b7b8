"""Frozen fits: a code submission's fits, run once in the sandbox and kept as numbers, so a hidden
round predicts from them instead of fitting again (leaderboard/RULES.md, "Frozen fits").

Why: the graph networks take minutes a seed to fit on a CPU (about 3.4 core-hours for the four
GNN references on both targets), more than the working session a hidden set lives in. Fitted
before the round — on the public training part, in the sandbox, as ``perfgraphs submit --freeze``
— and committed before the round's commitment, they are also the strongest form of its freeze:
the predictor that scores exists, committed, before the hidden architectures are drawn.

A frozen-fit folder holds ``seed-<n>.npz`` (the predictor's ``state()``: numeric arrays, read
without unpickling) and ``manifest.json``: the submission's content hash, its method, code commit
and entry point, the board and the build it was fitted on, and per seed the state's sha256 and
what the harness measured of the fit (seconds, CPU seconds, peak memory, cores) with the public
test part's score. ``--frozen`` scores only the submission, board, build and seeds the manifest
names, and only states whose bytes it names; the record carries the manifest's sha256
(``frozen_fit``) and the fit's measured numbers.
"""

from __future__ import annotations

import hashlib
import json
import math
import os
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path

from perfgraphs.errors import PerfgraphsError
from perfgraphs.leaderboard.records.history import publishing_commit
from perfgraphs.leaderboard.sandbox.harness import is_bytecode

MANIFEST = "manifest.json"
KIND = "perfgraphs frozen fit"
VERSION = 1
# the fit's numbers the harness measured, kept per seed and put back into the scored record
FIT_MEASURED = ("fit_seconds", "fit_cpu_seconds", "peak_memory_mb", "cores")


class FrozenFitError(PerfgraphsError):
    """A frozen-fit folder that cannot be written, read, or does not belong to what is scored."""


def submission_sha256(root: Path) -> str:
    """The submission folder's content: every regular file's path and bytes, and every link's path
    and target, in path order (bytecode left out, as the sandbox's copy leaves it out), and the path
    of every folder that holds none of them (:func:`_unhashed_folders`)."""
    from perfgraphs.atomic import sha256_file

    digest = hashlib.sha256()
    root = Path(root)
    hashed, folders = [], []
    for path in sorted(root.rglob("*")):
        rel = path.relative_to(root)
        if any(is_bytecode(part) for part in rel.parts):
            continue
        if path.is_symlink():
            digest.update(b"L\0" + str(rel).encode() + b"\0" + os.readlink(path).encode() + b"\0")
            hashed.append(rel)
        elif path.is_file():
            digest.update(b"F\0" + str(rel).encode() + b"\0" + sha256_file(path).encode())
            hashed.append(rel)
        elif path.is_dir():
            folders.append(rel)
    for rel in _unhashed_folders(folders, hashed):
        digest.update(b"D\0" + str(rel).encode() + b"\0")
    return digest.hexdigest()


def _unhashed_folders(folders: list[Path], hashed: list[Path]) -> list[Path]:
    """The folders (paths inside the submission) under which no hashed file or link lies. The sandbox's
    copy makes every folder, and the predictor reads their names: a ridge frozen honestly was scored
    from numbers written, after the hidden set was drawn, as the names of folders each holding one
    ``.pyc`` (kept by git, left out of the hash and the copy), the frozen hash unchanged (sixty-seventh
    pass). A folder with a file or link under it is named by their paths already, so only these are
    added to the hash, and the hash of a folder without them stays what it was."""
    holding = {parent for rel in hashed for parent in rel.parents}
    return [rel for rel in folders if rel not in holding]


def _sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


@dataclass(frozen=True)
class FrozenFits:
    """A read frozen-fit folder: its manifest, the manifest's sha256, and seed -> the state's bytes."""

    folder: Path
    manifest: dict
    manifest_sha256: str
    states: dict[int, bytes]

    def measured(self, seed: int) -> dict:
        """What the harness measured of ``seed``'s fit when it was frozen."""
        return next(s for s in self.manifest["seeds"] if s["seed"] == seed)["fit"]


def used_folder(folder: Path) -> str | None:
    """Why ``folder`` cannot take new frozen fits (None: it is new or empty): fits are never overwritten."""
    if folder.exists() and (not folder.is_dir() or any(folder.iterdir())):
        return f"--freeze {folder}: exists and is not an empty folder: give a new folder"
    return None


def state_problem(out) -> str | None:
    """Why the state a freezing run's seed sent (a harness SeedOutput) cannot be kept, None when it
    can: read as a later frozen run will read it. Asked as each seed ends (a bad state stops the run
    there, not after every seed has fitted) and again before anything is written."""
    from perfgraphs.baselines.fitted_state import FittedStateError, from_bytes

    if out.state is None:
        return f"seed {out.seed}: the run sent no state"
    try:
        from_bytes(out.state, f"seed {out.seed}'s state")
    except FittedStateError as exc:
        return str(exc)
    return None


def write_frozen(folder: Path, identity: dict, outputs: list, public_scores: dict[int, dict]) -> Path:
    """Write the states of ``outputs`` (harness SeedOutputs of a freezing run) and the manifest into
    ``folder`` (new or empty: a folder of other fits is never overwritten). ``identity``: what the fits
    belong to (submission, board, build); ``public_scores``: seed -> its public test part's scores."""
    from perfgraphs.atomic import atomic_write_bytes

    folder = Path(folder)
    if (why := used_folder(folder)) is not None:
        raise FrozenFitError(why)
    for out in outputs:  # every state first: a folder is written whole or not at all
        if (why := state_problem(out)) is not None:
            raise FrozenFitError(why)
    folder.mkdir(parents=True, exist_ok=True)
    seeds = []
    for out in outputs:
        atomic_write_bytes(folder / f"seed-{out.seed}.npz", out.state)
        seeds.append({"seed": out.seed, "state_sha256": _sha256(out.state), "state_bytes": len(out.state),
                      "fit": {k: getattr(out, k) for k in FIT_MEASURED},
                      "public": public_scores.get(out.seed, {})})
    manifest = {"kind": KIND, "version": VERSION, **identity, "isolation": outputs[0].confinement,
                "frozen_at_utc": datetime.now(timezone.utc).isoformat(timespec="seconds"), "seeds": seeds}
    atomic_write_bytes(folder / MANIFEST, (json.dumps(manifest, indent=1, sort_keys=True) + "\n").encode())
    return folder / MANIFEST


def read_frozen(folder: Path, expected: dict, seeds: tuple[int, ...]) -> FrozenFits:
    """The frozen fits of ``folder``, or :class:`FrozenFitError` in one line: the manifest must name
    what is scored (``expected``: submission hash, method, entry point, board, build, quick), exactly
    ``seeds``, a fit the sandbox ran, and each state's bytes."""
    from perfgraphs.leaderboard.sandbox.channel import MAX_STATE_PAYLOAD
    from perfgraphs.leaderboard.submission import _NotARegularFile, read_regular

    folder = Path(folder)
    path = folder / MANIFEST
    try:  # a regular file, read within a limit: a manifest linked to /dev/zero or a FIFO was read before any
        # check, a MemoryError or a hang of the keeper's run (the hundred-and-second pass's lead)
        raw = read_regular(path)
        manifest = json.loads(raw)
    except (_NotARegularFile, ValueError) as exc:
        raise FrozenFitError(f"--frozen {folder}: no readable {MANIFEST} ({type(exc).__name__}): give the folder "
                             "`perfgraphs submit --freeze` wrote") from None
    if not isinstance(manifest, dict) or manifest.get("kind") != KIND or manifest.get("version") != VERSION:
        raise FrozenFitError(f"--frozen {folder}: {MANIFEST} is not a {KIND} manifest of version {VERSION}")
    for key, value in expected.items():
        if manifest.get(key) != value:
            raise FrozenFitError(f"--frozen {folder}: the fits were frozen with {key} {str(manifest.get(key))[:80]!r}, "
                                 f"this run has {str(value)[:80]!r}: freeze this submission on this board and build")
    if not str(manifest.get("isolation", "")).startswith("bubblewrap"):
        raise FrozenFitError(f"--frozen {folder}: the fits did not run in the sandbox")
    listed = manifest.get("seeds")
    if not isinstance(listed, list) or not all(isinstance(s, dict) and type(s.get("seed")) is int for s in listed) \
            or sorted(s["seed"] for s in listed) != sorted(seeds):
        raise FrozenFitError(f"--frozen {folder}: the manifest's seeds are not {', '.join(map(str, sorted(seeds)))}")
    states = {}
    for s in listed:
        try:
            data = read_regular(folder / f"seed-{s['seed']}.npz", MAX_STATE_PAYLOAD)
        except _NotARegularFile as exc:
            raise FrozenFitError(f"--frozen {folder}: seed {s['seed']}'s state cannot be read ({exc})") from None
        if _sha256(data) != s.get("state_sha256"):
            raise FrozenFitError(f"--frozen {folder}: seed-{s['seed']}.npz is not the state the manifest names "
                                 "(its sha256 differs)")
        fit = s.get("fit")
        if not isinstance(fit, dict) or not _measured(fit.get("fit_seconds")) \
                or not all(fit.get(k) is None or _measured(fit[k]) for k in ("fit_cpu_seconds", "peak_memory_mb", "cores")):
            raise FrozenFitError(f"--frozen {folder}: seed {s['seed']} has no measured fit in the manifest")
        states[s["seed"]] = data
    return FrozenFits(folder, manifest, _sha256(raw), states)


def _measured(value) -> bool:
    """A number the harness could have measured: finite, not negative, not a bool."""
    return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value) and value >= 0


def frozen_before(manifest: Path, commitment: Path, set_sha256: str) -> str | None:
    """Why the frozen fits do not predate the hidden set (None: they do): the manifest must be
    committed as it is, unchanged since the main-line commit that first added it, and that commit
    must be an ancestor of the one that first published the set's hash, in the same repository.
    Both histories are read at the paths the repository holds, no link followed (a committed link
    over a folder would have git read its target's history: fiftieth pass)."""
    from perfgraphs.leaderboard.records.history import git, git_bytes, head_commit, in_folder, repository_place

    places = [repository_place(path.parent) for path in (manifest, commitment)]
    if None in places or places[0][0] != places[1][0]:
        return f"{manifest} and the commitment {commitment} are not in one git repository"
    top = places[0][0]
    held, published_at = in_folder(places[0], manifest.name), in_folder(places[1], commitment.name)
    head = head_commit(top)
    at_head = git_bytes(top, "show", f"{head}:{held}") if head else None
    try:
        current = manifest.read_bytes()
    except OSError:
        current = None
    if at_head is None or current != at_head:
        return f"{manifest} is not committed to git as it is now: commit the frozen fits before the round's commitment"
    log = ("log", "--first-parent", "--diff-merges=first-parent", "--reverse", "--format=%H", head)
    versions = (git(top, *log, "--", f":(literal){held}") or "").split()
    published = publishing_commit(top, head, set_sha256, published_at) if head else None
    if not versions or published is None:
        return f"the history does not show when {manifest} or the commitment was first committed"
    frozen = versions[0]
    if git_bytes(top, "show", f"{frozen}:{held}") != current:
        return (f"{manifest} is not as it was first committed ({frozen[:12]}): a frozen fit is never changed after "
                "it is committed (freeze again into a new folder)")
    if frozen == published or git(top, "merge-base", "--is-ancestor", frozen, published) is None:
        return (f"{manifest} was first committed in {frozen[:12]}, not before the set's commitment ({published[:12]}): "
                "frozen fits score a hidden set only when they were committed before it was drawn")
    return None


def code_before(folder: Path, commitment: Path, set_sha256: str) -> str | None:
    """Why a submission fitted in the harness on a hidden set (``--hidden-labels`` without ``--frozen``)
    is not code that predates the set (None: it is): its folder must be committed in the commitment's
    repository, nothing in it uncommitted, untracked or ignored (the sandbox runs every file), and hold
    the tree it held just before the main-line commit that first published the set's hash. Without
    this a round scored any folder written at any time: a team's probe, its seeds' predictions chosen
    so that their published full-precision MAPEs solve a few hidden labels, then a second folder,
    written after that record, holding them, scored a verified record better than its fit earns
    (seventy-ninth pass; RULES, "Re-measuring a hidden set", step 1)."""
    from perfgraphs.leaderboard.records.history import git, head_commit, in_folder, repository_place

    folder = folder.absolute()
    places = [repository_place(folder.parent), repository_place(commitment.parent)]
    if None in places or places[0][0] != places[1][0]:
        return (f"{folder} is not committed in the repository of the set's commitment: a hidden round scores "
                "only code committed before its set was drawn (or fits frozen then: --frozen)")
    top = places[0][0]
    held, published_at = in_folder(places[0], folder.name), in_folder(places[1], commitment.name)
    head = head_commit(top)
    status = git(top, "status", "--porcelain", "--ignored", "--untracked-files=all", "--", f":(literal){held}")
    if head is None or status is None or _runs_uncommitted(status):
        return f"{folder} is not committed to git as it is now: a hidden round scores only committed code"
    if (why := _converted_checkout(top, held)) is not None:
        return why
    published = publishing_commit(top, head, set_sha256, published_at)
    now = git(top, "rev-parse", "--verify", "-q", f"{head}:{held}")
    then = git(top, "rev-parse", "--verify", "-q", f"{published}^1:{held}") if published else None
    if now is None or then is None or now.strip() != then.strip():
        return (f"{folder} is not as it was committed before the set's commitment"
                f"{f' ({published[:12]})' if published else ''}: a hidden round scores only code that existed "
                "before its set was drawn (a new folder is a new entry for the next round)")
    return checkout_not_committed(folder, top, now.strip())


def checkout_not_committed(folder: Path, top: Path, tree: str) -> str | None:
    """Why the files under ``folder`` are not, byte for byte, the blobs of ``tree`` (the folder's committed
    tree in the repository at ``top``; None: they are): bytecode aside, as the sandbox's copy leaves it out,
    every regular file and link is hashed as git hashes a blob, and nothing else may be there. A clean
    status and today's ``.gitattributes`` do not show it: git trusts a file whose stat is what its index
    recorded, and the bytes a checkout wrote stay whatever attributes ruled then. A pull request after the
    draw that gave some of a folder's files ``eol=crlf`` (checked out so, as by a fresh clone) and a second
    that took the line out left the tree, the status and the attributes as before the draw, and a ridge
    reading its files' line ends scored three hidden labels in a keeper-signed verified record
    (hundred-and-third pass, side b). A file marked ``--assume-unchanged``, which status skips, is caught alike."""
    from perfgraphs.leaderboard.records.history import git_bytes
    from perfgraphs.leaderboard.sandbox.harness import is_bytecode

    listed = git_bytes(top, "ls-tree", "-r", "-z", tree)
    if listed is None:
        return f"cannot list the files git holds under {folder}"
    then = {}
    for entry in filter(None, listed.split(b"\0")):
        meta, _, name = entry.partition(b"\t")
        if not any(is_bytecode(part) for part in os.fsdecode(name).split("/")):
            then[os.fsdecode(name)] = meta.split()[-1].decode()
    now = {}
    for base, folders, files in os.walk(folder):  # links to folders are in ``folders``, never followed
        folders[:] = [d for d in folders if not is_bytecode(d)]
        for name in [*files, *(d for d in folders if os.path.islink(os.path.join(base, d)))]:
            path = Path(base, name)
            if is_bytecode(name) or not (path.is_symlink() or path.is_file()):
                continue  # a FIFO, a socket: the sandbox's copy leaves them out too
            now[path.relative_to(folder).as_posix()] = _blob_sha1(path)
    changed = sorted(k for k in then.keys() | now.keys() if then.get(k) != now.get(k))
    if not changed:
        return None
    return (f"the checkout of {folder} is not its committed bytes ({', '.join(changed[:3])}"
            f"{' ...' if len(changed) > 3 else ''}): a hidden round scores only the bytes committed before its "
            "set was drawn; check the folder out again")


def _blob_sha1(path: Path) -> str:
    """The id git gives ``path``'s content as a blob: a link's target, a file's bytes (read in chunks)."""
    if path.is_symlink():
        data = os.fsencode(os.readlink(path))
        return hashlib.sha1(b"blob %d\0" % len(data) + data).hexdigest()
    digest = hashlib.sha1()
    with open(path, "rb") as f:
        digest.update(b"blob %d\0" % os.fstat(f.fileno()).st_size)
        while chunk := f.read(1 << 20):
            digest.update(chunk)
    return digest.hexdigest()


def pins_before(commitment: Path, set_sha256: str) -> dict | None:
    """The build pins (``builds.json`` beside the commitments folder: ``leaderboard/builds.json``) as
    the main line held them just before the commit that first published the set's hash; None when
    there were none (or no such commit). A harness-fitted hidden run fits on the public build, and
    :func:`code_before` dates its code only: a pull request after the draw that added a neighbour's
    committed measurements to a public store (densenet201 beside a hidden densenet121), the keeper's
    build then holding them, made a ridge committed before the draw score a verified 14.5 % MAPE
    where its fit on the build of the draw earns 40.6 % (eighty-third pass)."""
    from perfgraphs.leaderboard.records.history import git, head_commit, in_folder, repository_place

    commitment = commitment.absolute()
    place, pins = repository_place(commitment.parent), repository_place(commitment.parent.parent)
    head = head_commit(place[0]) if place is not None else None
    if place is None or pins is None or head is None or pins[0] != place[0]:
        return None
    published = publishing_commit(place[0], head, set_sha256, in_folder(place, commitment.name))
    text = git(place[0], "show", f"{published}^1:{in_folder(pins, 'builds.json')}") if published else None
    try:
        held = json.loads(text) if text is not None else None
    except (ValueError, RecursionError):
        return None
    return held if isinstance(held, dict) else None


_FITTED_ADVICE = ("a harness-fitted hidden run reads only the tables of the draw (check them out as they were, or "
                  "score fits frozen before the draw: --frozen)")


def package_data_before(commitment: Path, set_sha256: str, advice: str = _FITTED_ADVICE) -> str | None:
    """Why the package data the sandbox stages beside the code (``paths.is_staged_data``: the
    datasheet and model-config tables under ``perfgraphs/features`` and ``perfgraphs/graph``) is not
    what the commitment's repository held just before the commit that first published the set's hash
    (None: it is, or the package is not in that repository: an install, which no pull request edits).
    :func:`code_before` dates the folder and :func:`pins_before` the build, but the table a predictor
    reads at fit time was read as the checkout held it when scored: a ridge committed before the draw
    that read one row's ``source`` link, a pull request after the draw giving that row a 40-digit
    commit id spelling three hidden labels, scored them in a keeper-signed verified record (eighty-fourth
    pass). Code is left to review, which reads it; a table's digits are not read so."""
    import hashlib

    import perfgraphs
    from perfgraphs.leaderboard.records.history import git_bytes, head_commit, in_folder, repository_place
    from perfgraphs.paths import is_staged_data

    package = Path(perfgraphs.__file__).resolve().parent
    places = [repository_place(package), repository_place(commitment.absolute().parent)]
    checkout = places[1][0] if places[1] is not None else None
    if checkout is not None and (why := checkout_read_by_sandboxes(checkout) or compiled_code_tracked(checkout)
                                 or package_in_nested_repository(package, checkout)):
        return f"{why}; {advice}"
    if None in places or places[0][0] != places[1][0]:
        return None
    top, where = places[0][0], places[0][1]
    tracked = bound_files_tracked(top) or staged_files_not_committed(top)
    if tracked:
        return f"{tracked}; {advice}"
    head = head_commit(top)
    published_at = in_folder(places[1], commitment.name)
    published = publishing_commit(top, head, set_sha256, published_at) if head else None
    listed = git_bytes(top, "ls-tree", "-r", "-z", "--full-tree", f"{published}^1", "--",
                       f":(literal){where}") if published else None
    if listed is None:
        return "the history does not show the package's data as it was before the set was drawn"
    then = {}
    for entry in filter(None, listed.split(b"\0")):
        meta, _, name = entry.partition(b"\t")
        rel = os.fsdecode(name)[len(where) + 1:] if where else os.fsdecode(name)
        if is_staged_data(tuple(rel.split("/"))):
            then[rel] = meta.split()[-1].decode()
    now = {}
    for path in package.rglob("*"):
        rel = path.relative_to(package)
        if path.is_file() and not path.is_symlink() and is_staged_data(rel.parts):
            data = path.read_bytes()
            now[rel.as_posix()] = hashlib.sha1(b"blob %d\0" % len(data) + data).hexdigest()
    changed = sorted(k for k in then.keys() | now.keys() if then.get(k) != now.get(k))
    if not changed:
        return None
    return (f"the package data the sandbox stages is not as it was before the set was drawn ({published[:12]}): "
            f"{', '.join(changed[:3])}{' ...' if len(changed) > 3 else ''} changed since; {advice}")


def package_in_nested_repository(package: Path, checkout: Path) -> str | None:
    """Why the package the sandbox stages (``package``) lies inside the keeper's checkout of the set's commitment
    (``checkout``) but in a repository of its own, a submodule or an embedded repository (None: it is the
    checkout's own folder, or lies outside the checkout: an install). The checks below date the staged tables and
    hold every staged file to the blob the checkout's git holds for it, and ran only when the package and the
    commitment shared one repository: a pull request after the draw that replaced ``perfgraphs/`` with a gitlink
    (a ``.gitmodules`` entry and a commit id, all a review reads) to a commit adding one datasheet row spelling
    three hidden labels and the set's size, checked out by the keeper, status clean, was taken for an install,
    and a ridge frozen before the draw scored the labels in a keeper-signed verified record (hundred-and-sixteenth
    pass, side b). A submodule's files are not blobs of the checkout: no date check reads them."""
    from perfgraphs.leaderboard.records.history import repository_place

    package, checkout = package.resolve(), checkout.resolve()
    if checkout not in package.parents:
        return None
    place = repository_place(package)
    if place is not None and place[0].resolve() == checkout:
        return None
    return (f"the package the sandbox stages ({package}) lies inside the checkout {checkout} but in a repository of "
            f"its own ({place[0] if place else 'none git reads'}: a submodule or an embedded repository), whose "
            "files are not blobs of the checkout and which no check dates; check the package out as the "
            "checkout's own folder")


def checkout_read_by_sandboxes(top: Path) -> str | None:
    """Why every sandbox can read the repository at ``top`` (the keeper's checkout of the set's commitment) whole
    (None: it lies outside every folder a sandbox reads, ``isolation.readable_root``). The checks above date what
    the sandbox stages, but the system folders and the interpreter's prefixes are bound read-only at their own
    paths, and a checkout made as pip makes an editable install from git (``<venv>/src/perfgraphs``) or as the
    Python images lay out an application (``/usr/src/app``) lies inside one: a ridge frozen and committed before
    the draw read at predict time git's loose objects there, and a pull request after the draw, fetched for
    review and never merged (``HEAD``, the status and every staged file as before), spelt three hidden labels
    and the set's size in a blob, scored in a keeper-signed verified record (hundred-and-fourteenth pass, side b)."""
    from perfgraphs.leaderboard.sandbox.isolation import readable_root

    seen = readable_root(top)
    if seen is None:
        return None
    return (f"the checkout {top} lies inside {seen}, which every sandbox reads: a predictor would read the whole "
            "checkout, git's objects and every file written since the draw; keep the checkout outside the system "
            "folders and the Python installation")


def bound_files_tracked(top: Path) -> str | None:
    """Why a folder every sandbox reads from the host holds files of the repository at ``top`` (None: git
    tracks no file under any of them): a keeper's virtual environment inside the checkout (``.venv``, as
    the README makes it) is bound into every sandbox at its own path, and a file a pull request committed
    under it with ``git add -f`` is written there by the keeper's ``git pull`` over the ignored one, status
    clean: a predictor committed before the draw read what a pull request after it put under ``sys.prefix``,
    which no date check looks at (the hundred-and-second pass's lead). No honest commit tracks a file there."""
    from perfgraphs.leaderboard.records.history import git
    from perfgraphs.leaderboard.sandbox.isolation import bound_roots

    top = top.resolve()
    for root in bound_roots():
        if root != top and top in root.parents:
            listed = git(top, "ls-files", "-z", "--", f":(literal){root.relative_to(top).as_posix()}")
            if listed is None:
                return f"cannot ask git which files of {root} it tracks"
            first = next(iter(filter(None, listed.split("\0"))), None)
            if first:
                return (f"{root} is read by every sandbox (the interpreter's folders) and git tracks files under it "
                        f"({first}): remove them from the repository and build the environment again")
    return None


def staged_files_not_committed(top: Path) -> str | None:
    """Why the files the sandbox stages from the repository at ``top`` (``isolation.staged_files``: the
    package's sources and tables as the keeper's checkout holds them) are not, byte for byte, the blobs git
    holds for them at the commit checked out (None: they are; a file staged from outside ``top``, an install,
    is not asked). The code is left to review and the replay, and review reads the sources' diff, not the bytes
    git writes from them: a pull request after the draw that only added a root ``.gitattributes`` naming 54 of
    the package's sources ``eol=crlf`` (no source changed, status clean on the keeper's fresh checkout) spelt
    three hidden labels and the set's size in which sources ended their lines with CRLF, and a ridge frozen
    before the draw read them at predict time, past the replay, into a keeper-signed verified record
    (hundred-and-thirteenth pass, side b). A staged source git does not track, which no review read, is refused alike."""
    from perfgraphs.leaderboard.records.history import git_bytes, head_commit
    from perfgraphs.leaderboard.sandbox.isolation import staged_files

    head = head_commit(top)
    listed = git_bytes(top, "ls-tree", "-r", "-z", "--full-tree", head) if head else None
    if listed is None:
        return f"cannot list the files git holds in {top}"
    held = {}
    for entry in filter(None, listed.split(b"\0")):
        meta, _, name = entry.partition(b"\t")
        held[os.fsdecode(name)] = meta.split()[-1].decode()
    top, changed = top.resolve(), []
    for path, _ in staged_files():
        if top in path.resolve().parents:
            rel = path.resolve().relative_to(top).as_posix()
            if held.get(rel) != _blob_sha1(path):
                changed.append(rel)
    if not changed:
        return None
    return (f"the files the sandbox stages are not the bytes git holds for them at {head[:12]} "
            f"({', '.join(sorted(changed)[:3])}{' ...' if len(changed) > 3 else ''}: converted by a .gitattributes, "
            "changed or untracked): a hidden run runs only the code review read; check the package out again")


# what the checkout tracks, its submodules' files with it: bytecode a submodule commits is imported as the
# checkout's own (hundred-and-sixteenth pass, side b's lead: a plain `ls-files` lists a submodule as one gitlink)
TRACKED_LISTING = ("ls-files", "-z", "--recurse-submodules")


def compiled_code_tracked(top: Path) -> str | None:
    """Why the repository at ``top`` (the keeper's checkout) tracks compiled code that Python would run in
    place of a reviewed source (None: it tracks none): one listing of what git tracks, read by
    :func:`bytecode_tracked` and :func:`extension_modules_tracked`."""
    from perfgraphs.leaderboard.records.history import git

    listed = git(top, *TRACKED_LISTING)
    if listed is None:
        return f"cannot ask git which files {top} tracks"
    tracked = [name for name in listed.split("\0") if name]
    return bytecode_tracked(tracked) or extension_modules_tracked(tracked)


def bytecode_tracked(tracked: list[str]) -> str | None:
    """Why the files git tracks in the keeper's checkout (``tracked``, :func:`compiled_code_tracked`: the checkout
    holds the commitments and, installed editable, the package the keeper's process runs) hold Python bytecode
    (None: none). An unchecked hash-based ``__pycache__/<module>.cpython-311.pyc`` is imported in place of its
    source whatever the source says, and ``.gitignore`` hides it only from ``git add`` without ``-f``: a pull request after the
    draw that committed one for ``perfgraphs/evaluation/evaluator.py`` (binary, read by no review) had the
    keeper's own process score a hidden round with its metric while every source read as before, and no date
    check looked at it (``package_data_before`` dates the tables, ``code_before`` the folder, bytecode left
    out; hundred-and-fifth pass, side b). No honest commit tracks bytecode anywhere. A file that replaces this
    very module runs before this check: the suite asks git itself (``test_this_checkout_tracks_no_bytecode``)."""
    from perfgraphs.leaderboard.sandbox.harness import is_bytecode

    found = [name for name in tracked if any(is_bytecode(p) for p in name.split("/"))]
    if not found:
        return None
    return (f"git tracks Python bytecode ({', '.join(found[:3])}{' ...' if len(found) > 3 else ''}), which Python "
            "may run in place of the source a review read: remove it from the repository and check out again")


def extension_modules_tracked(tracked: list[str]) -> str | None:
    """Why the files git tracks in the keeper's checkout (``tracked``, the package installed editable from it)
    hold a compiled extension module (None: none). A folder's import tries ``<module>.cpython-311-...so``
    (``importlib.machinery.EXTENSION_SUFFIXES``; ``.pyd`` on Windows) before ``<module>.py`` and its bytecode,
    and ``.gitignore`` names no such file: a pull request after the draw that added
    ``perfgraphs/evaluation/evaluator.cpython-311-x86_64-linux-gnu.so`` with a plain ``git add`` (binary, read
    by no review) had the keeper's own process score a hidden round with its metric while every source read
    as before, past :func:`bytecode_tracked` (hundred-and-sixth pass, side b). No honest commit tracks one."""
    import importlib.machinery

    suffixes = (*importlib.machinery.EXTENSION_SUFFIXES, ".pyd")
    found = [name for name in tracked if name.endswith(suffixes)]
    if not found:
        return None
    return (f"git tracks a compiled extension module ({', '.join(found[:3])}{' ...' if len(found) > 3 else ''}), "
            "which Python imports in place of the source a review read: remove it from the repository")


def _converted_checkout(top: Path, held: str) -> str | None:
    """Why the folder's checkout is not its committed bytes (None: it is): the tree compared above is
    the same whatever the ``.gitattributes`` above the folder say, and a clean status compares the
    checkout converted back. A pull request landed after the draw that only gave some of a folder's
    files ``eol=crlf`` in a top-level ``.gitattributes`` spelt three hidden labels in their line ends,
    and the folder, its tree unchanged since before the draw, scored them (eighty-second pass)."""
    from perfgraphs.leaderboard.records.history import converted_files

    why = converted_files(top, (f":(literal){held}",))
    return None if why is None else (f"{why}: a hidden round scores only the bytes committed before its set "
                                     "was drawn")


def _runs_uncommitted(status: str) -> bool:
    """Whether ``git status --porcelain`` lists a file the sandbox would run: bytecode (``__pycache__``,
    ``.pyc``) is left out of the copy it runs (``harness.is_bytecode``), and any import of a reference's
    code outside the sandbox (the quickstart, the catalog) writes an ignored ``__pycache__`` into its
    folder, which refused every reference of a round."""
    from perfgraphs.leaderboard.sandbox.harness import is_bytecode

    for line in status.splitlines():
        path = line[3:].rstrip("/")
        if line.strip() and not any(is_bytecode(part) for part in path.split("/")):
            return True
    return False
