"""The repository's git history, as the read-time record checks see it: one way to ask git, and
whether the history is there to check against (not in an installed package, nor in a shallow
clone, which lacks the commits older records name)."""

from __future__ import annotations

import contextlib
import functools
import json
import os
import re
import signal
import subprocess
import threading
from collections.abc import Callable, Iterator
from pathlib import Path

from perfgraphs.safe_git import SAFE_GIT


# Git's answers during one reading (:func:`one_reading`) of this thread: a results file's reader asked
# git the same questions for every line (HEAD, where the commitments folder is, whether a commitment
# is committed unchanged), some three thousand processes for one `check`. Nothing is remembered past
# the reading: a commit made between two readings is seen by the next.
_READING = threading.local()


@contextlib.contextmanager
def one_reading() -> Iterator[None]:
    """Within the block, each git question (same folder, same arguments) is asked once and its answer
    reused: for readers, which change nothing git sees while they read. Nested blocks share the outer one."""
    if getattr(_READING, "answers", None) is not None:
        yield
        return
    _READING.answers = {}
    try:
        yield
    finally:
        _READING.answers = None


def git(folder: Path, *args: str, timeout: float = 60) -> str | None:
    """``git -C folder args`` output as text (a bad byte read as U+FFFD: a file git prints is anyone's
    text, fourteenth pass), None when git, a repository or the object is not there (or it ran past
    ``timeout`` seconds)."""
    out = git_bytes(folder, *args, timeout=timeout)
    return None if out is None else out.decode("utf-8", errors="replace").replace("\r\n", "\n").replace("\r", "\n")


# how git is asked (perfgraphs.safe_git: no monitor, transport, lazy fetch, hook or index write)


def git_bytes(folder: Path, *args: str, timeout: float = 60, stdin: bytes | None = None) -> bytes | None:
    """``git -C folder args`` output as bytes (``stdin``: what git reads), None as :func:`git`. Past
    ``timeout`` git is killed with every process it started (its own session): a clone stopped by its
    timeout left its ``git-upload-pack`` blocked on a FIFO in the source repository after `reproduce`
    had ended (thirty-fourth pass of 2026-12-03)."""
    reading = getattr(_READING, "answers", None)
    key = (str(folder), args, timeout)
    if reading is not None and stdin is None and key in reading:
        return reading[key]
    out = _ask_git(folder, args, timeout, stdin)
    if reading is not None and stdin is None:
        reading[key] = out
    return out


def _ask_git(folder: Path, args: tuple[str, ...], timeout: float, stdin: bytes | None) -> bytes | None:
    try:
        with subprocess.Popen(["git", *SAFE_GIT, "-C", str(folder), *args], stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, start_new_session=True,
                              stdin=subprocess.DEVNULL if stdin is None else subprocess.PIPE,
                              env={**os.environ, "GIT_NO_LAZY_FETCH": "1", "GIT_OPTIONAL_LOCKS": "0"}) as proc:
            try:
                out, _ = proc.communicate(input=stdin, timeout=timeout)
            except subprocess.TimeoutExpired:
                os.killpg(proc.pid, signal.SIGKILL)
                proc.communicate()
                return None
    except (OSError, subprocess.SubprocessError):
        return None
    return out if proc.returncode == 0 else None


def head_commit(folder: Path) -> str | None:
    """The commit HEAD names in the repository holding ``folder`` (None: no folder, no git, no
    commit): what a reader of the main line's history keys its once-per-commit caches by."""
    out = git(folder, "rev-parse", "HEAD") if folder.is_dir() else None
    return out.strip() if out else None


def main_line_versions(folder: Path, head: str, pathspec: str) -> list[tuple[str, str]]:
    """(commit, file name) of every change the main line (``--first-parent``, a merge read against its
    first parent) made to the files of ``folder`` that ``pathspec`` matches, oldest first, at ``head``:
    what a reader that must not take a file as it is now (a pull request can rewrite it) reads
    instead, with :func:`committed_text`."""
    log = git(folder, "log", "--first-parent", "--diff-merges=first-parent", "--reverse", "--name-only",
              f"--format={COMMIT_MARK[0]}%H", head, "--", pathspec) or ""
    return [(commit, Path(name).name) for commit, name in paths_by_commit(log)]


# How the ``--name-only`` logs here mark each commit's line (the format git is given, the text it
# prints): a NUL before the hash, which no path holds. A path is printed as it is (``core.quotepath=off``),
# so a mark a path can start with is no mark: with ``@@``, a file named ``@@<hash of the first commit>``
# at the top of ``leaderboard/reference/``, added in the pull request that added the folder ``gnn``, was
# read as that commit's line, the folder "arrived" with the repository's first commit, and another team's
# ``gnn-x``, recorded long before, left every board (sixty-first pass of 2026-12-05).
COMMIT_MARK = ("%x00", "\0")


def paths_by_commit(log: str) -> Iterator[tuple[str, str]]:
    """(commit, path) of each path a ``git log --name-only --format=<COMMIT_MARK[0]>%H`` prints, in its
    order: a commit's line known by :data:`COMMIT_MARK` alone, and lines split at ``\\n`` only (a path's
    own U+2028 or NEL ends no line, as in :func:`_line_changes`), each path as printed."""
    commit = ""
    for line in log.split("\n"):
        if line.startswith(COMMIT_MARK[1]):
            commit = line[len(COMMIT_MARK[1]):].strip()
        elif line.strip() and commit:
            yield commit, line


def committed_text(folder: Path, commit: str, name: str) -> str | None:
    """The file ``name`` of ``folder`` as ``commit`` holds it (None: it holds none)."""
    return git(folder, "show", f"{commit}:./{name}")


def publishing_commit(top: Path, head: str, set_sha256: str, published_at: str) -> str | None:
    """The commit that published the set's hash, whose first parent every hidden lookup reads as the
    repository just before the draw (None: the history does not show one): the commit, in any-parent
    history of ``head``, that added the hash to the commitment file ``published_at``, an ancestor of
    every other that did. The first such commit on the first-parent line is not it: a pull request
    forked before the draw, that committed a folder after it and then merged main, landed by
    fast-forward (RULES forbids it, but a history does not say how it was made), made its merge that
    commit, whose first parent holds the post-draw folder, and a folder holding three labels the
    probe's record solved scored a keeper-signed verified record (eighty-seventh pass). A merge is
    never the commit (its diff is not read); a hash added twice where neither addition precedes the
    other, or added only by a merge, dates nothing."""
    found = (git(top, "log", "--full-history", "--diff-merges=off", "--format=%H", f"-S{set_sha256}", head, "--",
                 f":(literal){published_at}") or "").split()
    key = set_sha256.encode()
    added = [c for c in found if key in (git_bytes(top, "show", f"{c}:{published_at}") or b"")
             and key not in (git_bytes(top, "show", f"{c}^1:{published_at}") or b"")]
    first = [c for c in added if all(git(top, "merge-base", "--is-ancestor", c, o) is not None for o in added)]
    return first[0] if first else None


def _top_folder(folder: Path) -> Path | None:
    """The top folder of the repository holding the absolute ``folder``, asked from the nearest folder
    at or above it that is no link (git asked from a link answers for where it points); None outside one."""
    start = folder
    while start.is_symlink():
        start = start.parent
    top = git(start, "rev-parse", "--show-toplevel") if start.is_dir() else None
    return None if top is None else Path(top.strip())


def repository_place(folder: Path) -> tuple[Path, str] | None:
    """(the top folder of the repository holding ``folder``, ``folder``'s path inside it as the
    repository holds it, "" for the top) with no link followed; None outside a repository. Git asked
    from a folder follows a link to it: a pull request that replaced ``leaderboard/hidden/`` with a
    committed link to a copy of it holding a key of its writer's own had that copy's history read,
    where its key was "committed with the set's commitment", and the writer's signed ranks and
    records ruled the live set's board (fiftieth pass of 2026-12-05). Read at the place the
    repository holds, the history is the organisers' folder's, the link's commit a deletion there."""
    where = folder.absolute()
    top_folder = _top_folder(where)
    if top_folder is None or committed_inside_another(top_folder):
        return None
    if where == top_folder:
        return top_folder, ""
    # the outermost folder that is the top: a link inside the repository to its top (``leaderboard ->
    # .``) resolves there too, and the path below the real top is the one the repository holds
    inside = next((where.relative_to(a) for a in reversed(where.parents) if a.resolve() == top_folder), None)
    return None if inside is None else (top_folder, inside.as_posix())


def committed_inside_another(top: Path) -> bool:
    """Whether the repository whose top folder is ``top`` is committed inside an enclosing repository (a
    submodule, or an embedded repository, tracked there as a gitlink) that does not hold the running
    perfgraphs package inside ``top``: its history is its writer's, not the organisers'. A pull request
    that replaced ``leaderboard/hidden/`` with a gitlink to a repository of its writer's own, one commit
    holding a copy of the folder with the set's ``.sha256`` and a key of the writer's together, had that
    repository's history read in a recursive clone: the writer's key "committed with the set's
    commitment", its signed ranks ruling the live set's board and its signed record read as the keeper's
    *verified*, the keeper's refused (ninetieth pass; the fiftieth closed the same through a link). A
    checkout of perfgraphs itself vendored as a submodule holds the package, and is read as before."""
    import perfgraphs

    above = _top_folder(top.parent) if top.parent != top else None
    if above is None or Path(perfgraphs.__file__).resolve().is_relative_to(top.resolve()):
        return False
    held = git(above, "ls-files", "--stage", "-z", "--", f":(literal){top.relative_to(above).as_posix()}") or ""
    return any(entry.startswith("160000 ") for entry in held.split("\0"))


def in_writers_repository(folder: Path) -> bool:
    """Whether ``folder`` lies in a repository committed inside another (:func:`committed_inside_another`),
    where :func:`repository_place` reads no history: a reader that also takes the file as it is must not
    take it then. A pull request that replaced ``leaderboard/hidden/ranks/`` with a submodule holding the
    round's first keeper-signed ranks had no main-line version read beside that checkout, so `leaderboard
    show` ranked ``gnn-mal`` 1 and ``team-net`` 2 again over the keeper's later ranks and left ``zed-net``,
    ranked first since, unranked (ninety-third pass, side a; the forty-ninth closed the same through a link)."""
    top = _top_folder(folder.absolute())
    return top is not None and committed_inside_another(top)


def linked_folder(path: Path) -> Path | None:
    """The folder between the top of the repository holding ``path`` and ``path`` that is a link, nearest
    first (None: none is, or no repository). A file read through a linked folder has another history
    than the one at the path the repository holds: a pull request that replaced ``leaderboard/results/``
    with a committed link to a copy had the organisers' file's history end with every line removed,
    so every keeper-signed hidden record read through the link was "withdrawn", and a record scored
    later into the copy was the board's only one (fifty-sixth pass of 2026-12-05)."""
    where = path.absolute()
    top_folder = _top_folder(where.parent)
    if top_folder is None:
        return None
    for folder in where.parents:
        if folder.resolve() == top_folder:
            return None
        if folder.is_symlink():
            return folder
    return None


def in_folder(place: tuple[Path, str], name: str) -> str:
    """The path of ``name`` inside the folder at ``place`` (:func:`repository_place`), from the top."""
    return f"{place[1]}/{name}" if place[1] else name


def first_committed_text(folder: Path, head: str, name: str) -> str | None:
    """The file ``name`` of ``folder`` as the main line first committed it, at ``head``, at the path
    the repository holds the folder under (:func:`repository_place`: a linked folder is not followed)."""
    place = repository_place(folder)
    if place is None:
        return None
    where = in_folder(place, name)
    versions = main_line_versions(place[0], head, f":(literal){where}")
    return committed_text(place[0], versions[0][0], where) if versions else None


@functools.lru_cache(maxsize=8)
def full_history(folder: Path) -> bool:
    """``folder`` is in a git repository with its whole history (asked once per folder): not a shallow
    clone, nor a partial one (:func:`partial_clone`)."""
    return (git(folder, "rev-parse", "--is-shallow-repository") or "").strip() == "false" and not partial_clone(folder)


def partial_clone(folder: Path) -> bool:
    """Whether the repository holding ``folder`` is a partial clone (``git clone --filter=blob:none``, or
    ``tree:0``: a promisor remote, ``extensions.partialClone``), whose older files' objects are not here
    and never fetched (no lazy fetch): git fails on them, and a reader read that as an empty history.
    In a blobless clone a keeper-signed record the main line had taken out (withdrawn on review) and a
    pull request put back had no history of being withdrawn, and read *verified* at rank 1 again, where
    a full clone skipped it; it is told apart from shallow by ``--is-shallow-repository`` alone
    (sixty-third pass of 2026-12-06). Such a clone reads as a shallow one: no key counts there."""
    out = git(folder, "config", "--get-regexp", r"^(extensions\.partialclone|remote\..*\.promisor)$") or ""
    for line in out.splitlines():
        key, _, value = line.partition(" ")
        if key == "extensions.partialclone" or value.strip().lower() in ("", "true", "yes", "on", "1"):
            return True
    return False


# The main line's commit when landed code became the first-parent line only: its ancestors (branches
# the maintainers merged before, reference records among them) stay landed by ancestry.
FIRST_PARENT_SINCE = "0bcf2e7e4b7e93c1ba0b32e864d4b577d305f72f"
_FULL_HASH = re.compile(r"[0-9a-f]{40}")


def on_main_line(folder: Path, commit: str) -> bool:
    """Whether ``commit`` is landed code: on HEAD's first-parent line, or an ancestor of
    :data:`FIRST_PARENT_SINCE` (history from before the rule). A commit reached only through a
    later merge's second parent (a branch's intermediate commit, reverted before its merge) is code
    no reviewer accepted: a reference recorded at such a commit ran its sabotaged code under
    `reproduce`, outside the sandbox, and was "reproduced" (twenty-first pass of 2026-12-02)."""
    where = (git(folder, "rev-parse", "--show-toplevel", "HEAD") or "").splitlines()
    if len(where) != 2:
        return False
    main = _main_line(*where)
    # a full hash on the main line needs no lookup: the site's read asked git three times a record
    # (this commit, HEAD, the top folder), 333 processes of a build's 633
    if _FULL_HASH.fullmatch(commit) and commit in main:
        return True
    full = git(folder, "rev-parse", "--verify", "--quiet", f"{commit}^{{commit}}")
    if full is None:
        return False
    if full.strip() in main:
        return True
    return git(folder, "merge-base", "--is-ancestor", FIRST_PARENT_SINCE, "HEAD") is not None \
        and git(folder, "merge-base", "--is-ancestor", full.strip(), FIRST_PARENT_SINCE) is not None


@functools.lru_cache(maxsize=8)
def _main_line(top: str, head: str) -> frozenset[str]:
    chain = git(Path(top), "rev-list", "--first-parent", head)
    return frozenset(chain.split()) if chain else frozenset()


def keeper_work_off_main_line(top: Path, head: str, folders: tuple[str, ...],
                              results: tuple[str, ...] = ()) -> str | None:
    """A commit reachable from ``head`` (any parent) but not on its first-parent line, nor from before that
    line was the rule (:data:`FIRST_PARENT_SINCE`), that did the keeper's work: changed a file under
    ``folders`` (the organisers' ``leaderboard/hidden/``, ``leaderboard/frozen/``) or took a hidden-set
    record out of a results file of ``results`` (paths from ``top``); None: none did. The
    boards read what the keeper stated and withdrew on the first-parent line: a pull request forked
    before the keeper's work that merged main and landed by fast-forward (RULES forbids it; a history
    does not say how it was made) put its own commits on that line and the keeper's on a second parent,
    so its definition's 60 % floor between visits read as the one first stated for the live set (the
    keeper's 5.5 %), and a keeper-signed record the keeper had taken out, kept by its merge, read
    *verified* at rank 1 again (eighty-ninth pass). Such a commit means the history cannot say what the
    keeper stated. One ``git log`` per HEAD, and a ``git show`` per results commit off the line."""
    return _keeper_work_off_main_line(top, head, folders, results)


@functools.lru_cache(maxsize=16)
def _keeper_work_off_main_line(top: Path, head: str, folders: tuple[str, ...], results: tuple[str, ...]) -> str | None:
    main = _main_line(str(top), head)
    specs = [f":(literal){f}" for f in (*folders, *results)]
    # --full-history: a merge that kept its first parent's file (the keeper's withdrawal undone) hides
    # its second parent's side from git's default history simplification
    log = git(top, "-c", "core.quotepath=off", "log", "--full-history", "--diff-merges=off", "--format=%x00%H",
              "--name-only", head, "--", *specs) if main and specs else None
    changed: dict[str, list[str]] = {}  # newest first, as git prints them
    for commit, path in paths_by_commit(log or ""):
        if commit not in main:
            changed.setdefault(commit, []).append(path)
    for commit, paths in changed.items():
        if git(top, "merge-base", "--is-ancestor", commit, FIRST_PARENT_SINCE) is not None:
            continue  # history from before the first-parent rule
        if any(p not in results or _took_out_a_hidden_record(top, commit, p) for p in paths):
            return commit
    return None


def _took_out_a_hidden_record(top: Path, commit: str, path: str) -> bool:
    """Whether ``commit`` (against its first parent) took out of ``path`` a hidden-set record, known by its
    keeper's signature (or, unsigned, a frozen record of a set from before keys, by its fields), that no
    line it added holds (a line moved or respelled is not taken out)."""
    from perfgraphs.leaderboard.records.line_text import as_shown

    diff = git(top, "-c", "core.quotepath=off", "show", "--format=", "-p", "--unified=0", "--no-renames",
               "--no-ext-diff", "--no-textconv", "--text", "--no-color", commit, "--", f":(literal){path}") or ""
    borne: dict[str, int] = {}
    for line in diff.split("\n"):
        if line[:1] in "+-" and not line.startswith(("+++ ", "--- ")):  # any spelling JSON reads as a record
            try:
                record = json.loads(as_shown(line[1:]))
            except (ValueError, RecursionError):
                continue
            if not isinstance(record, dict) or record.get("test_set") != "hidden":
                continue
            signature = record.get("keeper_signature")
            held = signature.lower() if isinstance(signature, str) and signature else json.dumps(record, sort_keys=True)
            borne[held] = borne.get(held, 0) + (1 if line[0] == "+" else -1)
    return any(change < 0 for change in borne.values())


# the main line's diffs of one file, plain whatever .gitattributes says (no external diff or textconv
# driver, binary-looking files as text), each commit's marked by a NUL no diff line starts with
_ADDED_LOG = ("-c", "core.quotepath=off", "-c", "color.ui=never", "log", "--first-parent", "--diff-merges=first-parent",
              "--reverse", "--format=%x00%H", "-p", "--unified=0", "--no-renames", "--no-ext-diff", "--no-textconv",
              "--text", "--no-color")


def added_lines(path: Path) -> list[tuple[int, str]] | None:
    """Every line the main line ever added to ``path``, oldest first, as (arrival, text)
    (:func:`line_changes` without the removals). A line edited later (a space added, a line moved)
    is added again, later; its first addition stays."""
    changes = line_changes(path)
    return None if changes is None else [(when, text) for when, delta, text in changes if delta > 0]


def line_changes(path: Path) -> list[tuple[int, int, str]] | None:
    """Every line the main line added to (+1) or removed from (-1) ``path``, oldest first, as
    (arrival, +1 or -1, text): the arrival is the position of the commit on HEAD's first-parent line
    (0 the root), so a branch's lines arrive with the merge that brought them, whatever the branch's
    commits say. The path is the one given,
    inside the repository, taken literally: not where a symlink points (a results file replaced by a
    link to a fresh copy had every line arrive with the link), nor a pathspec its name spells
    (``:(bogus).jsonl`` made git fail: sixteenth pass). None when there is no history to read (no
    git, a shallow clone, a path outside the repository); [] for a path the main line never had."""
    folder = path.parent
    top = git(folder, "rev-parse", "--show-toplevel")
    if top is None or not full_history(folder):
        return None
    top = Path(top.strip())
    inside = next((path.absolute().relative_to(a) for a in path.absolute().parents if a.resolve() == top), None)
    head = git(top, "rev-parse", "HEAD")
    if inside is None or head is None:
        return None
    return _line_changes(top, inside.as_posix(), head.strip())


def lines_ever_held(path: Path) -> frozenset[str] | None:
    """Every line any version of ``path`` reachable from HEAD held, through any parent (a merge's side
    read against each of its parents), at the path the repository holds (no link followed); None without
    a history to read (as :func:`line_changes`). What the first-parent line alone hides: a pull request
    forked before a reference run landed (its results line and manifest line, one commit) that merged
    main dropping both lines and landed by fast-forward put the run's commit on a second parent, and the
    manifest's first-parent history never listed it: the official ML.ENERGY energy-per-token
    ``serving-prior-boost`` (rank 1) left its board, ``static-mlp`` rank 1 with nothing printed
    (hundred-and-twenty-sixth pass, side c)."""
    folder = path.parent
    top = git(folder, "rev-parse", "--show-toplevel")
    head = git(folder, "rev-parse", "HEAD")
    if top is None or head is None or not full_history(folder):
        return None
    top = Path(top.strip())
    inside = next((path.absolute().relative_to(a) for a in path.absolute().parents if a.resolve() == top), None)
    if inside is None or committed_inside_another(top):
        return None
    return _lines_ever_held(top, inside.as_posix(), head.strip())


@functools.lru_cache(maxsize=8)
def _lines_ever_held(top: Path, inside: str, head: str) -> frozenset[str] | None:
    log = git_bytes(top, *(a for a in _ADDED_LOG if not a.startswith(("--first-parent", "--diff-merges"))),
                    "--full-history", "--diff-merges=separate", head, "--", f":(literal){inside}")
    if log is None:
        return None
    return frozenset(line[1:].decode("utf-8", errors="replace").removesuffix("\r") for line in log.split(b"\n")
                     if line.startswith(b"+") and not line.startswith(b"+++ "))


def main_line_times(path: Path) -> list[int] | None:
    """The committer time (Unix seconds) of each commit on HEAD's first-parent line of the
    repository holding ``path``, by arrival (0 the root, as :func:`line_changes` counts); None
    without a history."""
    folder = path.parent
    top = git(folder, "rev-parse", "--show-toplevel")
    head = git(folder, "rev-parse", "HEAD")
    if top is None or head is None or not full_history(folder):
        return None
    return _main_line_times(Path(top.strip()), head.strip())


@functools.lru_cache(maxsize=4)
def _main_line_times(top: Path, head: str) -> list[int] | None:
    out = git(top, "log", "--first-parent", "--reverse", "--format=%ct", head)
    try:
        return None if out is None else [int(t) for t in out.split()]
    except ValueError:
        return None


@functools.lru_cache(maxsize=16)
def _line_changes(top: Path, inside: str, head: str) -> list[tuple[int, int, str]] | None:
    # a submodule's history is its writer's: a pull request that replaced leaderboard/results/ with one
    # holding both of the keeper's signed lines had gnn-mal, withdrawn on review, ranked first and verified
    # again in a recursive clone (ninety-second pass, side b); such a file has none, as in a shallow clone
    if committed_inside_another(top):
        return None
    chain = git(top, "rev-list", "--first-parent", head)
    log = git_bytes(top, *_ADDED_LOG, head, "--", f":(literal){inside}")
    if chain is None or log is None:
        return None
    commits = chain.split()
    when = {sha: len(commits) - 1 - i for i, sha in enumerate(commits)}
    found, current = [], len(commits)
    # bytes split at "\n" only: a record's own U+2028 or NEL ends no line here (fourteenth pass)
    for line in log.split(b"\n"):
        if line.startswith(b"\0"):
            current = when.get(line[1:].decode("ascii", errors="replace").strip(), len(commits))
        elif line[:1] in (b"+", b"-") and not line.startswith((b"+++ ", b"--- ")):
            found.append((current, 1 if line[:1] == b"+" else -1,
                          line[1:].decode("utf-8", errors="replace").removesuffix("\r")))
    return found


def line_arrival(path: Path, text: str,
                 key: Callable[[str], str]) -> tuple[str, tuple[tuple[int, int], ...]] | None:
    """(the repository's top folder, the runs of ``text`` as a line of ``path`` on its main line:
    (the arrival it came, the arrival it was taken out or ``sys.maxsize`` for the run that lasts),
    oldest first, as :func:`line_changes` counts arrivals); () for a line not on the main line now
    (not committed, or removed since). None without a history to read. One git call a line, the
    file's arrivals read once a commit. The runs, not the last one's start alone: a gap is for the
    caller to weigh (:func:`held_before`). ``key(line)``: what the lines that are one record share
    (:func:`perfgraphs.leaderboard.records.results.line_key`; passed in, the reader of records being
    above this module)."""
    where = (git(path.parent, "rev-parse", "--show-toplevel", "HEAD") or "").split("\n")
    if len(where) < 2 or not full_history(path.parent):
        return None
    top = Path(where[0].strip())
    inside = next((path.absolute().relative_to(a) for a in path.absolute().parents if a.resolve() == top), None)
    arrivals = None if inside is None else _line_arrivals(top, inside.as_posix(), where[1].strip(), key)
    return None if arrivals is None else (str(top), arrivals.get(key(text), ()))


def held_before(runs: tuple[tuple[int, int], ...], moment: int) -> bool:
    """Whether a line with these runs (:func:`line_arrival`) has held its place since before the
    arrival ``moment``: its lasting run, or an earlier one whose gaps since did not span ``moment``.
    A gap that did not (taken out and put back, nothing at ``moment`` in between) is no gap: a pull
    request of two commits fast-forwarded onto the main line, one taking a team's ``gnn-x`` line out
    and one putting it back (an empty diff), re-dated it after the ``leaderboard/reference/gnn/``
    folder merged since, and every board stopped showing the record (fortieth pass of 2026-12-04)."""
    start = held_since(runs, moment)
    return start is not None and start < moment


def held_since(runs: tuple[tuple[int, int], ...], moment: int) -> int | None:
    """The arrival from which a line with these runs has held its place as :func:`held_before` weighs
    its gaps against ``moment`` (None: not on the main line now)."""
    if not runs:
        return None
    start = runs[-1][0]
    for (begun, ended), (back, _) in zip(reversed(runs[:-1]), reversed(runs[1:])):
        if ended <= moment <= back:  # out when ``moment`` came (or put back with it): a real gap
            break
        start = begun
    return start


@functools.lru_cache(maxsize=16)
def _line_arrivals(top: Path, inside: str, head: str,
                   key: Callable[[str], str]) -> dict[str, tuple[tuple[int, int], ...]] | None:
    """Each line of the file now on the main line, with its runs (:func:`line_arrival`)."""
    import sys

    changes = _line_changes(top, inside, head)
    if changes is None:
        return None
    # a line as the record its reviewer reads (``key``): a no-break space or a byte-order mark
    # put into it is no new line (it re-dated the record, forty-third pass), nor is a respelling
    net: dict[str, dict[int, int]] = {}
    for when, delta, line in changes:
        line = key(line)
        net.setdefault(line, {})
        net[line][when] = net[line].get(when, 0) + delta
    out = {}
    for line, deltas in net.items():
        count, runs, since = 0, [], None
        for when in sorted(deltas):  # a commit that moved the line removed and added it: no gap
            count += deltas[when]
            if count <= 0 and since is not None:
                runs.append((since, when))
                since = None
            elif count > 0 and since is None:
                since = when
        if since is not None:
            out[line] = (*runs, (since, sys.maxsize))
    return out


def folder_arrivals(folder: Path) -> tuple[str, dict[str, int]] | None:
    """(the repository's top folder, for each entry of ``folder`` on the main line now, the arrival
    of the main-line commit that began its present run: :func:`folder_runs`' last run), as
    :func:`line_changes` counts arrivals; None without a history to read."""
    found = folder_runs(folder)
    return None if found is None else (found[0], {name: runs[-1][0] for name, runs in found[1].items()})


def folder_runs(folder: Path) -> tuple[str, dict[str, tuple[tuple[int, int], ...]]] | None:
    """(the repository's top folder, for each entry of ``folder`` on the main line now, the runs of its
    presence there: (the arrival of the commit that added its first file, the arrival of the commit
    that removed its last, ``sys.maxsize`` for the run that lasts), oldest first, as
    :func:`line_changes` counts arrivals); None without a history to read. The runs, not the first
    arrival alone: a reference folder removed and put back by a later pull request was dated from its
    first life, and took a team's record merged while it was gone (seventy-sixth pass)."""
    where = (git(folder, "rev-parse", "--show-toplevel", "HEAD") or "").split("\n")
    if len(where) < 2 or not full_history(folder):
        return None
    place = repository_place(folder)
    if place is None:
        return None
    return where[0].strip(), _folder_arrivals(folder.absolute(), place, where[1].strip())


@functools.lru_cache(maxsize=8)
def _folder_arrivals(folder: Path, place: tuple[Path, str], head: str) -> dict[str, tuple[tuple[int, int], ...]]:
    # the additions at the path the repository holds (:func:`repository_place`): asked from the folder,
    # git followed a committed link over ``leaderboard/reference/`` to a copy of it, every reference
    # folder "arrived" with the link, and a team's line under a reference's name, refused when it
    # landed, was shown as recorded before that reference (fiftieth pass of 2026-12-05)
    import sys

    top, inside = place
    chain = (git(top, "rev-list", "--first-parent", head) or "").split()
    when = {sha: len(chain) - 1 - i for i, sha in enumerate(chain)}
    # each entry's file count after each commit that added (A) or removed (D) a file under it
    deltas: dict[str, dict[int, int]] = {}
    for change, step in (("A", 1), ("D", -1)):
        log = git(top, "-c", "core.quotepath=off", "log", "--first-parent", "--diff-merges=first-parent", "--reverse",
                  f"--diff-filter={change}", "--no-renames", "--name-only",
                  f"--relative={inside}" if inside else "--relative", f"--format={COMMIT_MARK[0]}%H", head, "--",
                  f":(literal){inside}" if inside else ".") or ""
        for commit, line in paths_by_commit(log):  # never a path's text for a commit (sixty-first pass)
            if (current := when.get(commit)) is not None and "/" in line:
                counts = deltas.setdefault(line.split("/")[0], {})
                counts[current] = counts.get(current, 0) + step
    found: dict[str, tuple[tuple[int, int], ...]] = {}
    for name, changes in deltas.items():
        count, runs, since = 0, [], None
        for moment in sorted(changes):
            count += changes[moment]
            if count > 0 and since is None:
                since = moment
            elif count <= 0 and since is not None:
                runs.append((since, moment))
                since = None
        # an entry seen now that its path's history took out (a committed link over the folder to a copy
        # of it: fiftieth pass) is held from its first arrival, as before runs were read
        found[name] = (*runs, (since, sys.maxsize)) if since is not None else ((runs[0][0], sys.maxsize),)
    present = git(folder, "ls-tree", "-z", "--name-only", head, "./") or ""
    return {name: found[name] for name in (Path(p).name for p in present.split("\0") if p) if name in found}


# git attributes that make a checked-out file's bytes other than its committed ones: any value of the
# first three; of the line-end ones, only those that convert without looking at the content
# (:func:`_converts`)
CONVERTING_ATTRIBUTES = ("working-tree-encoding", "filter", "ident", "text", "eol", "crlf")


def _converts(attr: str, value: str) -> bool:
    """Whether ``attr`` set to ``value`` (as ``git check-attr`` prints it) converts a file on checkout.
    Line ends too: ``text`` set (not ``auto``), ``crlf`` set or ``eol=crlf`` convert every LF byte of
    the file, a binary's included (``auto`` alone skips files that look binary; ``eol=lf`` writes no
    CR, and the readers of text drop a ``\r`` before a line break). One line a pull request added at
    the top, ``data/** text eol=crlf``, had every fresh clone check the repeat stores' Parquet shards
    out unreadable: the dippm CPU board then ranked against one measurement a label, said "noise floor
    not measured" and "the labels have one measurement each", and moved an entry from rank 3 to rank
    2 (forty-sixth pass of 2026-12-04); the thirty-sixth and thirty-seventh passes' check left line
    ends aside. ``text`` set without ``eol`` follows the reader's ``core.eol``/``core.autocrlf`` (CRLF
    on Windows): a file whose bytes depend on the machine is refused too."""
    if value in ("unspecified", "unset"):
        return False
    if attr in ("text", "crlf"):
        return value == "set"
    if attr == "eol":
        return value == "crlf"
    return True


def _converting(check_attr_z: str) -> list[tuple[str, str]]:
    """(file, ``attribute=value``) for each converting attribute (:func:`_converts`) in ``git
    check-attr -z`` output."""
    fields = check_attr_z.split("\0")
    return [(name, f"{attr}={value}") for name, attr, value in zip(fields[0::3], fields[1::3], fields[2::3])
            if _converts(attr, value)]


def converted_checkout(path: Path) -> str | None:
    """Why the checkout of ``path``, a file the boards read, is not its committed bytes (None: it is,
    or no git is there to convert it): a ``.gitattributes`` anywhere above it (a pull request can add
    one outside the folders it may not touch) gives it one of :data:`CONVERTING_ATTRIBUTES`, and a
    fresh clone reads as other text (thirty-sixth pass of 2026-12-04)."""
    out = git(path.parent, "check-attr", "-z", *CONVERTING_ATTRIBUTES, "--", path.name) or ""
    found = [why for _, why in _converting(out)]
    if not found:
        return None
    return (f"{path}: git checks this file out converted ({', '.join(found)}, from a .gitattributes): its bytes "
            "are not the committed ones; remove the attribute and check the file out again")


def converted_files(top: Path, folders: tuple[str, ...]) -> str | None:
    """Why the checkout of the files git tracks under ``folders`` of the repository at ``top`` is not
    their committed bytes (None: it is, or no git is there): :func:`converted_checkout` for every
    file the boards are read from, in two git calls. One ``.gitattributes`` line at the top of a pull
    request (``data/measurements/noise-floor/*.json working-tree-encoding=UTF-16``, or the same for
    ``leaderboard/RULES.md``) stopped `leaderboard show` and `build` with "internal error:
    UnicodeDecodeError" in a fresh clone; the thirty-sixth pass guarded the results files and the
    frozen records' list alone, and a reader of a converted file further on (a store, a split, a
    noise probe, the rules) read other text (thirty-seventh pass of 2026-12-04)."""
    listed = git_bytes(top, "ls-files", "-z", "--", *folders)
    if not listed:
        return None
    out = git_bytes(top, "check-attr", "--stdin", "-z", *CONVERTING_ATTRIBUTES, stdin=listed) or b""
    found = _converting(out.decode("utf-8", errors="replace"))
    if not found:
        return None
    name, why = found[0]
    more = f" and {len({n for n, _ in found}) - 1} more" if len({n for n, _ in found}) > 1 else ""
    return (f"{top}: git checks {name}{more} out converted ({why}, from a .gitattributes): the boards are read "
            "from the committed bytes only; remove the attribute and check the files out again")
