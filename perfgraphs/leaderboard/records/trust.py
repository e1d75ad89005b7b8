"""What a record claims, checked whenever it is read: a results file is text anyone can edit, so the
site, ``leaderboard show`` and the ranking never take a record's word for its tier or its name.

* its tier: a hidden-set record counts only against a commitment committed to git before it
  (:func:`perfgraphs.leaderboard.records.tiers.hidden_claim_problem`);
* its name: a reference baseline's name only in the reference authors' hands, and their record only
  at a commit of this repository that holds the reference's code (:func:`reserved_record_problem`).
"""

from __future__ import annotations

import functools
import re
import sys
from collections.abc import Callable
from pathlib import Path

from perfgraphs.leaderboard.records import names
from perfgraphs.leaderboard.records.history import full_history, git, git_bytes, on_main_line
from perfgraphs.leaderboard.records.references import REFERENCE_AUTHORS, REFERENCE_DIR


def trust_problem(record: dict, arrival: Callable[[], tuple[str, tuple[tuple[int, int], ...]] | None] | None = None
                  ) -> str | None:
    """Why a well-formed record's claims do not hold when it is read (None: they do). ``arrival``:
    where its line reached the main line (:func:`perfgraphs.leaderboard.records.history.line_arrival`),
    asked only of a record under a reference's name by other authors."""
    from perfgraphs.leaderboard.records.tiers import hidden_claim_problem

    return (hidden_claim_problem(record.get("test_set", "public"), record.get("hidden_labels_sha256", ""),
                                 record.get("date_utc", ""), record.get("dataset", ""), record.get("config", ""))
            or _keeper_signature_problem(record)
            or reserved_record_problem(record.get("method", ""), record.get("authors", ""),
                                       record.get("code_commit", ""), arrival)
            or _reference_tier_problem(record) or _team_transfer_tier_problem(record)
            or _unscored_protocol_tier_problem(record) or ratioless_record_problem(record))


# the day records began keeping per-configuration ratios (scoring.PER_CONFIG_KEY) on every seed
RATIOS_SINCE = "2026-11-28"


def ratioless_record_problem(record: dict) -> str | None:
    """Why a public record of a harness tier on a standard or group split keeps no per-configuration
    ratios (None: it keeps them, or it may lack them). Every writer since 2026-11-28 keeps them on every
    public seed (``submit``, ``runner``), so such a record is a reference baseline's from before then
    (listed unranked) or a hand-written line, whose scores nothing ties: the readers tie MAPE, Acc, τ and
    RMSE to a record's ratios and pairs only. Eve's `eve-net` on the official ML.ENERGY energy-per-token
    board, a copy of `serving-prior-boost`'s record (21.78 %) with its ratios and pairs left out and every
    seed stating 1.00 % MAPE, RMSE 0.01 J and Acc(10 %) 99 %, was listed there as *reproduced*, first in
    the MAPE, RMSE and Acc columns (hundred-and-seventeenth pass, side b). A reference record dated after
    that day would supersede the reference's ranked record, so it is held to the date too. Asked of a
    test a board ranks only (:func:`_ranked_size`; transfer draws and hidden-set aggregates are tied
    otherwise: :func:`_team_transfer_tier_problem`, the keeper's signature)."""
    from perfgraphs.evaluation.platform_transfer import PROTOCOL
    from perfgraphs.evaluation.scoring import PER_CONFIG_KEY
    from perfgraphs.leaderboard.records.tiers import HARNESS_TIERS

    protocol = str(record.get("protocol") or "")
    seeds = [s for s in record.get("per_seed") or [] if isinstance(s, dict)]
    if record.get("test_set", "public") != "public" or record.get("tier") not in HARNESS_TIERS \
            or protocol == PROTOCOL or protocol.startswith(f"{PROTOCOL}/") \
            or all(s.get(PER_CONFIG_KEY) for s in seeds) or not _ranked_size(seeds, record):
        return None
    if record.get("authors") == REFERENCE_AUTHORS and _before_ratios(str(record.get("date_utc", ""))):
        return None
    return (f"is marked {str(record.get('tier'))[:40]!r} on a public test set without per-configuration ratios "
            f"({PER_CONFIG_KEY}), which every harness record since {RATIOS_SINCE} keeps: only a reference baseline's "
            "record from before then may lack them; nothing ties this line's scores")


def _before_ratios(date_utc: str) -> bool:
    """Whether a record's date is before :data:`RATIOS_SINCE` (a date without a zone read as UTC)."""
    from datetime import datetime, timezone

    try:
        when = datetime.fromisoformat(date_utc)
    except ValueError:
        return False
    when = when if when.tzinfo else when.replace(tzinfo=timezone.utc)
    return when < datetime.fromisoformat(RATIOS_SINCE).replace(tzinfo=timezone.utc)


def _ranked_size(seeds: list[dict], record: dict | None = None) -> bool:
    """Whether ``seeds`` state a test a board ranks or shows as its own, or none: some seed's ``n`` missing,
    at least :data:`~perfgraphs.evaluation.ranking.MIN_RANKED_CONFIGS`, or the size ``leaderboard/builds.json``
    pins for the record's board (:func:`_pinned_size`: the dippm h200 boards hold 88 configurations, and a line
    stating 88 was listed there among the references). A line stating another size than its board's is named
    under the table (``ranks.other_test_size``), one stating none was not."""
    from perfgraphs.evaluation.ranking import MIN_RANKED_CONFIGS

    if any(not isinstance(s.get("n"), int) or s["n"] >= MIN_RANKED_CONFIGS for s in seeds):
        return True
    pinned = _pinned_size(record) if record is not None else None  # the file read only for the few left
    return pinned is not None and any(s["n"] == pinned for s in seeds)


def _pinned_size(record: dict) -> int | None:
    """The test size the repository's ``leaderboard/builds.json`` pins for ``record``'s board, or None. Read here,
    not through ``builds.read_pins``, which would import this module's readers back (``builds`` -> ``results``)."""
    import json

    from perfgraphs import paths

    try:
        pins = json.loads((paths.leaderboard_dir() / "builds.json").read_text())
    except (OSError, ValueError, RecursionError):
        return None
    pin = pins.get(f"{record.get('dataset')} {record.get('config')}") if isinstance(pins, dict) else None
    sizes = pin.get("test_n") if isinstance(pin, dict) else None
    n = sizes.get(str(record.get("target"))) if isinstance(sizes, dict) else None
    return n if isinstance(n, int) and not isinstance(n, bool) else None


def _reference_tier_problem(record: dict) -> str | None:
    """A record by the reference authors is a harness score of a reference's code: the references are
    code this repository runs, never predictions files. A hand-written self-reported line under their
    name stood (a reference's method, a landed commit), `reproduce` refuses to score such a line again,
    and the board's test configurations are the median of the references' labels: as many such lines
    as the official nnlqp RTX 4090 board had reference records, their labels x 1.01, left every
    reference there unranked as "not on the same test configurations" (forty-ninth pass of 2026-12-05)."""
    from perfgraphs.leaderboard.records.tiers import HARNESS_TIERS

    if record.get("authors") == REFERENCE_AUTHORS and record.get("tier") not in HARNESS_TIERS:
        return (f"is recorded by the reference authors as {str(record.get('tier'))[:40]!r}: their records are harness "
                "scores of the reference code (`perfgraphs submit`), never predictions files")
    return None


def _team_transfer_tier_problem(record: dict) -> str | None:
    """A transfer protocol's record (``leave-one-platform-out/<variant>/K<shots>``) of a harness tier is the
    reference authors': the transfer runner (``benchmarks.platform_transfer``) runs the catalog's transfer
    baselines only, ``submit`` scores no transfer protocol and ``reproduce`` scores none again, so a team's
    such record is a hand-written line no harness made. Mallory's ``mal-transfer``, five draws of 1.00 %
    MAPE marked *reproduced*, was listed first on the nnlqp K32 transfer board above every reference
    (6.10 % the best; ninety-ninth pass, side b)."""
    from perfgraphs.evaluation.platform_transfer import PROTOCOL
    from perfgraphs.leaderboard.records.tiers import HARNESS_TIERS

    protocol = str(record.get("protocol") or "")
    if (protocol == PROTOCOL or protocol.startswith(f"{PROTOCOL}/")) and record.get("tier") in HARNESS_TIERS \
            and record.get("authors") != REFERENCE_AUTHORS:
        return (f"{str(record.get('method'))[:60]!r} is a transfer record ({protocol[:60]}) marked "
                f"{str(record.get('tier'))[:40]!r} by authors other than the reference authors: only the reference "
                "transfer baselines are scored by a harness on a transfer protocol (a team's are self-reported)")
    return None


def _unscored_protocol_tier_problem(record: dict) -> str | None:
    """A record of a harness tier under a split protocol no harness scores is a hand-written line:
    ``submit`` and ``reproduce`` run a config's standard split, ``leave-one-family-out`` and the tabular
    folds (:func:`perfgraphs.evaluation.protocol.protocol_parts`), the transfer runner
    ``leave-one-platform-out``, and nothing runs nnlqp's ``few-shot-platform``, a split the registry lists.
    Mallory's copy of the official RTX 4090 board's `roofline-boost` record (its 205 configurations'
    ratios, 4.58 %), re-keyed to ``few-shot-platform`` and marked *reproduced*, was ranked 1, best,
    reproduced, on a board of its own that no reviewer's `reproduce` can score (hundredth pass, side c)."""
    from perfgraphs.data.splits import FOLD_PROTOCOLS, GROUP_PROTOCOLS
    from perfgraphs.evaluation.platform_transfer import PROTOCOL
    from perfgraphs.leaderboard.records.tiers import HARNESS_TIERS

    name = str(record.get("protocol") or "").split("/")[0]
    if name and name not in (*GROUP_PROTOCOLS, *FOLD_PROTOCOLS, PROTOCOL) and record.get("tier") in HARNESS_TIERS:
        return (f"is marked {str(record.get('tier'))[:40]!r} under protocol {name[:60]!r}, which no harness scores "
                f"({', '.join((*GROUP_PROTOCOLS, *FOLD_PROTOCOLS, PROTOCOL))} are): a hand-written line, self-reported at most")
    return None


def _keeper_signature_problem(record: dict) -> str | None:
    """A hidden-set record must be its keeper's: signed by its set's committed key, or, on a set
    from before keys, one of the records frozen as merged
    (:func:`perfgraphs.leaderboard.records.keeper_key.record_signature_problem`)."""
    if record.get("test_set") != "hidden":
        return None
    from perfgraphs.leaderboard.records.digest import record_sha256
    from perfgraphs.leaderboard.records.keeper_key import record_signature_problem

    why = record_signature_problem(record, record_sha256(record))
    return f"claims a hidden test set but {why}" if why else None


@functools.lru_cache(maxsize=1)
def reference_spellings() -> frozenset[str]:
    """The reference baselines' names from the repository and the baseline catalog (not from records: a
    record cannot vouch for itself)."""
    from perfgraphs.baselines.catalog import reference_names

    folders = {p.name for p in REFERENCE_DIR.iterdir() if p.is_dir()} if REFERENCE_DIR.is_dir() else set()
    return frozenset(folders | reference_names())


@functools.lru_cache(maxsize=256)
def _reference_code_problem(base: str, commit: str) -> str | None:
    """Why a record by the reference authors does not point at the reference's own code: its commit
    must be in this repository's history (with the reference folder there, where it has one)."""
    root = REFERENCE_DIR.parent
    if not full_history(root):
        return None  # an installed package or a shallow clone: no history to check against
    well_formed = re.fullmatch(r"[0-9a-f]{7,40}", commit or "") is not None
    # on the main line of what is checked out: a commit that exists only on an unmerged branch (a
    # fetched pull request), or that reached the main line only through a merge's second parent (a
    # branch's commit reverted before the merge), is code nobody accepted (twenty-first pass)
    if not well_formed or not on_main_line(root, commit):
        return (f"is recorded as a reference baseline at commit {commit!r}, which is not on this repository's "
                "main line")
    folder = REFERENCE_DIR / base
    if folder.is_dir():
        rel = folder.relative_to(REFERENCE_DIR.parent).as_posix()
        files = _reference_files(root, commit)
        if _catalog_code_at(base, rel, files):
            return None
        if f"{rel}/submission.yaml" not in files:
            return f"is recorded as the reference {base!r} at commit {commit[:12]}, where leaderboard/{rel}/ does not exist"
    return None


def _catalog_code_at(base: str, rel: str, files: frozenset[str]) -> bool:
    """Whether a reference of the catalog's code was the catalog's at a commit: where its folder did
    not exist yet, the record is of the catalog's code. A folder's later arrival does not move code
    that ran before it: a pull request adding only ``leaderboard/reference/ratio-transfer/README.md``
    (a transfer reference with no folder) made every committed ``ratio-transfer`` record "at a commit
    where the folder does not exist", and the boards dropped all six (lead of the sixty-fifth pass)."""
    return base in _catalog_names() and not any(f.startswith(f"{rel}/") for f in files)


@functools.lru_cache(maxsize=64)
def _reference_files(root: Path, commit: str) -> frozenset[str]:
    """The files under the reference folder at ``commit`` (relative to ``root``): one git call a
    commit, where a call per (reference, commit) was 102 of a site build's reads."""
    listed = git(root, "ls-tree", "-r", "-z", "--name-only", commit, "--", f"./{REFERENCE_DIR.name}/")
    return frozenset(listed.split("\0")) - {""} if listed else frozenset()


def reserved_record_problem(method: str, authors: str, code_commit: str,
                            arrival: Callable[[], tuple[str, tuple[tuple[int, int], ...]] | None] | None = None
                            ) -> str | None:
    """Why a record read from a results file may not stand under its name (None: it may): a reference
    baseline's name in other hands or look-alike authors (:func:`perfgraphs.leaderboard.records.names.reserved_taken`),
    or a reference's record at a commit that does not hold the reference's code. The results files
    are text anyone can edit, so this runs on read, not only in ``submit``."""
    if not isinstance(method, str) or not isinstance(authors, str):
        return None  # the record check names wrong types
    # the documented character set, on read too: an invisible or control character in a hand-written
    # record made a row that reads as a reference's, or wrote escapes to a terminal (review of 2026-12-02)
    outside = names.check_charset("method", method) + names.check_charset("authors", authors)
    if outside:
        return outside[0]
    why = names.reserved_taken(method, authors, set(reference_spellings()))
    if why is not None and arrival is not None and _named_before_its_reference(method, authors, arrival):
        return None
    if why is not None or authors != REFERENCE_AUTHORS:
        return why
    base = method.split(" (")[0]
    if base not in reference_spellings():  # the reference authors sign the references only
        return f"method {method!r} is recorded by the reference authors but names no reference baseline"
    why = _reference_code_problem(base, str(code_commit))
    return f"method {method!r} {why}" if why else None


def _named_before_its_reference(method: str, authors: str,
                               arrival: Callable[[], tuple[str, tuple[tuple[int, int], ...]] | None]) -> bool:
    """Whether a record under a reference's name by other authors reached the main line before every
    reference name it takes (each reference folder from the first main-line commit that added a file
    under it; a name of the catalog, from the start, folder or not): a name is the first to record
    it, as between teams (rule 5). A reference folder a later pull request added (``leaderboard/
    reference/gnn/``, any one file) took ``gnn-x``, ``gnn-x v2`` and ``GNN`` from the team that had
    recorded them, and every board stopped showing that team's records (thirty-sixth pass of
    2026-12-04). Look-alikes of the reference authors never pass; nor does anything without a
    history to order it by, or with the records and the references in two repositories."""
    if names.lookalike_authors(authors):
        return False
    from perfgraphs.leaderboard.records import history

    folders = history.folder_runs(REFERENCE_DIR) if REFERENCE_DIR.is_dir() else None
    recorded = arrival()
    if folders is None or recorded is None or folders[0] != recorded[0]:
        return False
    present = {name: runs[-1][0] for name, runs in folders[1].items()}
    untracked = {p.name for p in REFERENCE_DIR.iterdir() if p.is_dir()} - set(present)
    for name in reference_spellings():
        if names.taken_name(method, {name}) is None:
            continue
        since = _reserved_since(name, present, untracked, folders[0])
        earlier = folders[1].get(name, ())[:-1] + _catalog_earlier_runs(name, folders[0])
        if not history.held_before(recorded[1], since) or _recorded_while_held(
                history.held_since(recorded[1], since), earlier):
            return False
    return True


def _recorded_while_held(start: int | None, earlier: tuple[tuple[int, int], ...]) -> bool:
    """Whether a record's line, held since ``start``, arrived while an earlier run of the reference's
    folder (``earlier``: (arrived, removed) on the main line) held the name. A name is reserved from
    its folder's present run (a folder retired frees it, and a team's record merged meanwhile keeps it
    when the folder is put back: seventy-sixth pass), but a pull request of two fast-forwarded commits
    taking the folder out and putting it back frees no record that its first run refused."""
    return start is not None and any(arrived <= start < removed for arrived, removed in earlier)


def _catalog_names() -> frozenset[str]:
    """The reference names the baseline catalog's code holds."""
    from perfgraphs.baselines.catalog import reference_names

    return frozenset(reference_names())


def _reserved_since(name: str, folders: dict[str, int], untracked: set[str], top: str = "") -> int:
    """The arrival from which the reference name ``name`` is reserved: a name of the catalog's code
    from the start, a folder of its name or not; else its committed folder's first commit, or after
    everything for a folder not committed. A folder only adds a reservation: a catalog name was dated
    from its folder where it had one, and a transfer reference's ``ratio-transfer``, reserved from the
    start, was freed for a team's ``ratio-transfer-v2`` line (refused on every board) by a later commit
    adding ``leaderboard/reference/ratio-transfer/README.md``: every board showed it (sixty-fifth pass)."""
    if name in _catalog_names():
        return _folder_reservation(name, folders, _catalog_name_since(name, top))
    return folders[name] if name in folders else sys.maxsize if name in untracked else 0


def _folder_reservation(name: str, folders: dict[str, int], since: int) -> int:
    """A catalog name's reservation ``since`` (its declaration), or its folder's present run where that
    began earlier. A catalog name built otherwise than ``Baseline("name"`` (the real catalog's
    ``Baseline(TRAPPM, ...``) is dated at the commit read, and its folder, there from the first commit,
    was not read: a team's hand-written ``trappm-x`` line was refused until one more commit landed, then
    every board showed it under the reference's name (seventy-seventh pass)."""
    return min(since, folders[name]) if name in folders else since


def catalog_file() -> Path:
    """The baseline catalog's source file, as imported."""
    from perfgraphs.baselines import catalog

    return Path(catalog.__file__)


def _catalog_name_since(name: str, top: str) -> int:
    """The arrival from which the catalog's code reserves ``name``: the main-line commit that began the
    catalog file's present declaration of it (``Baseline("name"``, as the catalog declares its
    baselines; :func:`_catalog_arrivals`), the commit
    read where no version did (a name spelt otherwise, or not committed); from the start where the catalog is not
    this repository's file (an installed package). The catalog as it stands was read: a pull request
    adding a transfer reference ``gnn`` to ``perfgraphs/baselines/catalog.py`` (code, no folder, no
    results file touched) reserved the name from the start, and every board dropped the ``gnn-x``
    record a team had merged long before (seventy-first pass of 2026-12-06), where a folder of that
    name is dated from its first commit (thirty-sixth pass)."""
    place = _catalog_place(top)
    return 0 if place is None else _catalog_arrivals(*place).get(name, 0)


def _catalog_place(top: str) -> tuple[Path, str, str] | None:
    """(the repository's top folder, the catalog file's path in it, the commit read), or None where the
    catalog is not this repository's file (an installed package)."""
    source = catalog_file().resolve()
    if not top or not source.is_relative_to(Path(top).resolve()):
        return None
    return (Path(top).resolve(), source.relative_to(Path(top).resolve()).as_posix(),
            (git(Path(top), "rev-parse", "HEAD") or "").strip())


def _catalog_earlier_runs(name: str, top: str) -> tuple[tuple[int, int], ...]:
    """The runs of the catalog's declaration of ``name`` before its present one ((arrived, removed) on
    the main line; :func:`_catalog_runs`), for :func:`_recorded_while_held`: a pull request of two
    fast-forwarded commits taking a declaration out and putting it back frees no record it refused."""
    place = _catalog_place(top) if name in _catalog_names() else None
    if place is None:
        return ()
    runs = _catalog_runs(*place).get(name, ())
    return runs[:-1] if runs and runs[-1][1] == sys.maxsize else runs


def _declares(name: str, declared: frozenset[str], present: bool) -> bool | None:
    """Whether a catalog version that declares ``declared`` (:func:`_declared_at`) declares the name
    ``name`` Python exposes (``reference_names()``, the keys of the catalog's dicts as Python builds
    them): a declared string of its canonical form (:func:`names.canonical`, the form the boards compare
    names in); None (not read) for the present version (``present``: the last one, the catalog Python
    imports now) where none is, since Python exposes the name from it all the same. The reader dates the
    strings passed to ``...Baseline(``: a pull request that only declared the transfer reference ``gnn``
    as ``TransferBaseline("GNN", ...)`` keyed ``{t.name.lower(): t ...}`` (or by ``.replace``, a slice)
    left ``gnn`` reserved but ended its declaration as read; the name, with no folder, was dated at the
    commit read, and Mallory's hand-written ``gnn-m``, merged after, was shown under the reference's name
    once any later commit landed (eighty-fifth pass)."""
    if name in declared or names.canonical(name) in _canonical_forms(declared):
        return True
    return None if present else False


@functools.lru_cache(maxsize=1024)
def _canonical_forms(declared: frozenset[str]) -> frozenset[str]:
    """The canonical forms (:func:`names.canonical`) of a version's declared strings."""
    return frozenset(names.canonical(s) for s in declared)


@functools.lru_cache(maxsize=8)
def _catalog_arrivals(top: Path, rel: str, head: str) -> dict[str, int]:
    """For each name of the catalog's code, the arrival of the main-line commit that began its present
    declaration in the catalog file (:func:`_catalog_runs`' lasting run); a name not declared so now,
    the arrival of ``head`` (:func:`_catalog_name_since`). The present one, not the first: a transfer
    reference retired from the catalog and declared again by a later pull request was dated from its
    first declaration, and took a team's record merged while it was gone (seventy-seventh pass)."""
    chain = int((git(top, "rev-list", "--first-parent", "--count", head) or "0").strip() or 0) if head else 0
    found: dict[str, int] = {}
    for name, runs in _catalog_runs(top, rel, head).items():
        found[name] = runs[-1][0] if runs and runs[-1][1] == sys.maxsize else max(chain - 1, 0)
    return found


def _declared_names(text: str) -> frozenset[str]:
    """The reference names a version of the catalog file (or of a module it imports) declares: the first
    argument (or ``name=``) of each ``...Baseline(`` call, a string or a module constant bound to one,
    however the call is written, and, in a module that calls one, every string it holds (:func:`_strings`).
    The literal text
    ``Baseline("name"`` was read: a pull request that only re-spelt a
    declaration (a formatter wrapping it onto two lines, ``name="gnn"``, a constant) ended it, and a
    transfer reference, with no folder to reserve it, was dated at the commit read, so a hand-written
    ``gnn-m`` line merged after the re-spelling was shown under the reference's name once any later
    commit landed; and a comment quoting ``Baseline("gnn"`` declared it (seventy-eighth pass). Parsed,
    never run; a version that does not parse is read by the literal text, as before."""
    import ast

    try:
        tree = ast.parse(text)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return frozenset(re.findall(r'Baseline\("([^"\\]*)"', text))
    constants = _string_bindings(tree)  # module constants bound to a string (``GNN_NAME = "gnn"``)
    found: set[str] = set()
    declares = False
    for node in ast.walk(tree):
        callee = node.func if isinstance(node, ast.Call) else None
        called = callee.id if isinstance(callee, ast.Name) else callee.attr if isinstance(callee, ast.Attribute) else ""
        if not called.endswith("Baseline"):
            continue
        declares = True
        for arg in node.args[:1] + [k.value for k in node.keywords if k.arg == "name"]:
            if isinstance(arg, ast.Constant) and isinstance(arg.value, str):
                found.add(arg.value)
            elif isinstance(arg, ast.Name) and arg.id in constants:
                found.add(constants[arg.id])
    # a module that declares baselines holds their names however it passes them (a module of plain
    # constants, such as the registry the catalog imports, declares none)
    return frozenset(found | _strings(tree) if declares else found)


def _unread_declaration(text: str) -> bool:
    """Whether a module version names a baseline by an expression that cannot be read without running it
    (the first argument or ``name=`` of a ``...Baseline(`` call that is no string and no module constant
    bound to one, or a call that passes its arguments unpacked): ``TransferBaseline("g" + "nn", ...)``,
    an f-string, a constant built by ``join``, a name read from a data file. Such a version ends no
    declaration (:func:`_catalog_runs`): a pull request that only re-spelt the transfer reference
    ``gnn``'s declaration so ended it, the name was dated at the commit read, and a hand-written
    ``gnn-m`` merged after was shown under the reference's name once any later commit landed
    (eightieth pass). A name imported from another module (the real catalog's ``TRAPPM``) is read."""
    import ast

    try:
        tree = ast.parse(text)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return False
    bound: set[str] = set()  # module names bound to a string, or imported (another module's constant)
    for node in tree.body:
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            bound.update((a.asname or a.name).split(".")[0] for a in node.names)
        targets = node.targets if isinstance(node, ast.Assign) else [node.target] if isinstance(node, ast.AnnAssign) else []
        if isinstance(getattr(node, "value", None), ast.Constant) and isinstance(node.value.value, str):
            bound.update(t.id for t in targets if isinstance(t, ast.Name))
    for node in ast.walk(tree):
        callee = node.func if isinstance(node, ast.Call) else None
        called = callee.id if isinstance(callee, ast.Name) else callee.attr if isinstance(callee, ast.Attribute) else ""
        if not called.endswith("Baseline"):
            continue
        named = node.args[:1] + [k.value for k in node.keywords if k.arg == "name"]
        unpacked = any(isinstance(a, ast.Starred) for a in node.args) or any(k.arg is None for k in node.keywords)
        if (not named and unpacked) or any(not (isinstance(a, ast.Constant) and isinstance(a.value, str))
                                           and not (isinstance(a, ast.Name) and a.id in bound) for a in named):
            return True
    return False


def _string_bindings(tree) -> dict[str, str]:
    """The module-level names a parsed module binds to a string (``GNN_NAME = "gnn"``, an annotated one,
    or a tuple of them: the registry's ``DIPPM, TRAPPM = "dippm", "trappm"``)."""
    import ast

    found: dict[str, str] = {}
    for node in tree.body:
        targets = node.targets if isinstance(node, ast.Assign) else [node.target] if isinstance(node, ast.AnnAssign) else []
        value = getattr(node, "value", None)
        for t in targets:
            if isinstance(t, ast.Name) and isinstance(value, ast.Constant) and isinstance(value.value, str):
                found[t.id] = value.value
            elif isinstance(t, ast.Tuple) and isinstance(value, ast.Tuple) and len(t.elts) == len(value.elts):
                found.update((n.id, v.value) for n, v in zip(t.elts, value.elts) if isinstance(n, ast.Name)
                             and isinstance(v, ast.Constant) and isinstance(v.value, str))
    return found


def _baseline_passed_around(tree) -> bool:
    """Whether a parsed module names a ``...Baseline`` class otherwise than as the callee of a call or in
    an annotation: bound to another name (``B = TransferBaseline; B("gnn", ...)``), handed to a function
    (``functools.partial(TransferBaseline, "gnn")``), looked up by its name as a string (``getattr(module,
    "TransferBaseline")``), or a class method called on it (``TransferBaseline.named("gnn", ...)``). Such a
    call declares a baseline the reader does not see, and a pull request that only re-spelt the transfer
    reference ``gnn``'s declaration so ended it: the name, with no folder, was dated at the commit read, and
    a hand-written ``gnn-m`` merged after was shown under the reference's name once any later commit landed
    (eighty-first pass). A version so written is one the reader cannot fully read: it ends no declaration."""
    import ast

    kept: set[int] = set()  # the callees, and every node of an annotation
    for node in ast.walk(tree):
        if isinstance(node, ast.Call):
            kept.add(id(node.func))
        for where in ("annotation", "returns"):
            if getattr(node, where, None) is not None:
                kept.update(id(n) for n in ast.walk(getattr(node, where)))
    bare = {id(n.value) for n in ast.walk(tree) if isinstance(n, ast.Expr)}  # docstrings
    for node in ast.walk(tree):
        named = node.id if isinstance(node, ast.Name) else node.attr if isinstance(node, ast.Attribute) else \
            node.value if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in bare else ""
        if isinstance(named, str) and named.endswith("Baseline") and id(node) not in kept:
            return True
    return False


def _names_exposed_unread(tree) -> bool:
    """Whether a parsed module version builds the reference names Python exposes in a way the reader
    does not follow. The reader dates the strings passed to ``...Baseline(``; Python exposes what
    ``reference_names()`` returns, the keys of the catalog's dicts as Python builds them. A module that
    binds ``reference_names`` is read only where it is the one function whose return is a union of
    ``set(D)`` and ``{x.name for x in D.values() ...}``, each ``D`` bound once to ``{x.name: x for x in
    (...)}`` over baselines declared by ``...Baseline(`` calls (each a call or a module name bound to
    one), and never changed after; and no module defining or binding these writes a baseline's name
    (no ``name`` attribute stored, no ``"name"`` string, no ``name=`` outside a ``...Baseline(`` call,
    no ``__post_init__``, ``__init__``, ``__new__``, ``__setattr__``, ``__getattr__``, ``__getattribute__``
    or ``name`` method). This is what the reader follows, not a list of what it does not: a pull request
    that declared the transfer reference ``gnn`` as ``TransferBaseline("gnn-ref", ...)`` keyed
    ``{t.name[:3]: t ...}`` (``gnn`` to Python) ended its declaration as read, and a second restoring
    ``TransferBaseline("gnn", ...)`` began a new one: Mallory's hand-written ``gnn-m``, merged between,
    was shown under the reference's name (eighty-sixth pass). Such a version ends no declaration."""
    import ast

    exposing = [n for n in tree.body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))
                and n.name == "reference_names"]
    bound = [n for n in ast.walk(tree) if isinstance(n, ast.Name) and n.id == "reference_names"
             and not isinstance(n.ctx, ast.Load)] + [
        a for n in ast.walk(tree) if isinstance(n, (ast.Import, ast.ImportFrom)) for a in n.names
        if (a.asname or a.name) in ("reference_names", "*")] + [
        n for n in ast.walk(tree) if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))
        and n.name in ("reference_names", "__getattr__") and n not in exposing]  # a module __getattr__ binds any
    classes = any(isinstance(n, ast.ClassDef) and n.name.endswith("Baseline") for n in ast.walk(tree))
    if not exposing and not bound and not classes:
        return False  # nothing here builds the exposed names (a module of constants, a bare test catalog)
    if bound or len(exposing) > 1 or _baseline_name_written(tree) or not exposing:
        return True
    body = [s for s in exposing[0].body if not (isinstance(s, ast.Expr) and isinstance(s.value, ast.Constant))]
    if exposing[0].decorator_list or len(body) != 1 or not isinstance(body[0], ast.Return) or body[0].value is None:
        return True
    dicts = _exposed_dicts(body[0].value)
    if dicts is None:
        return True
    declared = {t.id for n in tree.body if isinstance(n, (ast.Assign, ast.AnnAssign))
                and _callee(n.value).endswith("Baseline")
                for t in (n.targets if isinstance(n, ast.Assign) else [n.target]) if isinstance(t, ast.Name)}
    stores = [n.id for n in ast.walk(tree) if isinstance(n, ast.Name) and not isinstance(n.ctx, ast.Load)]
    declared = {d for d in declared if stores.count(d) == 1}  # bound once, to its ``...Baseline(`` call
    parents = {id(c): p for p in ast.walk(tree) for c in ast.iter_child_nodes(p)}
    return not all(_dict_built_plainly(tree, name, declared, parents) for name in dicts)


def _callee(node) -> str:
    """The called name of a call node (``f`` of ``f(...)`` or ``m.f(...)``), "" for anything else."""
    import ast

    func = node.func if isinstance(node, ast.Call) else None
    return func.id if isinstance(func, ast.Name) else func.attr if isinstance(func, ast.Attribute) else ""


def _plain_name(expr, target) -> bool:
    """Whether ``expr`` is ``x.name``, ``x`` the comprehension's variable ``target``."""
    import ast

    return (isinstance(expr, ast.Attribute) and expr.attr == "name" and isinstance(expr.value, ast.Name)
            and isinstance(target, ast.Name) and expr.value.id == target.id)


def _baseline_name_written(tree) -> bool:
    """Whether a module version writes a baseline's name after it is declared (:func:`_names_exposed_unread`):
    a ``name`` attribute stored, a ``"name"`` string, ``name=`` outside a ``...Baseline(`` call, or a method
    that may set or compute it."""
    import ast

    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and node.attr == "name" and not isinstance(node.ctx, ast.Load):
            return True
        if isinstance(node, ast.Constant) and node.value == "name":
            return True
        if isinstance(node, ast.Call) and not _callee(node).endswith("Baseline") and any(
                k.arg == "name" for k in node.keywords):
            return True
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name in (
                "__post_init__", "__init__", "__new__", "__setattr__", "__getattr__", "__getattribute__", "name"):
            return True
    return False


def _exposed_dicts(returned) -> set[str] | None:
    """The dicts ``reference_names()`` returns a union of, as ``set(D)`` and ``{x.name for x in
    D.values()}`` (:func:`_names_exposed_unread`); None where it returns anything else."""
    import ast

    dicts: set[str] = set()
    todo = [returned]
    while todo:
        expr = todo.pop()
        if isinstance(expr, ast.BinOp) and isinstance(expr.op, ast.BitOr):
            todo += [expr.left, expr.right]
        elif (isinstance(expr, ast.Call) and isinstance(expr.func, ast.Name) and expr.func.id == "set"
              and not expr.keywords and len(expr.args) == 1 and isinstance(expr.args[0], ast.Name)):
            dicts.add(expr.args[0].id)
        elif (isinstance(expr, ast.SetComp) and len(expr.generators) == 1
              and _plain_name(expr.elt, expr.generators[0].target)
              and isinstance(expr.generators[0].iter, ast.Call) and not expr.generators[0].iter.args
              and isinstance(expr.generators[0].iter.func, ast.Attribute)
              and expr.generators[0].iter.func.attr == "values"
              and isinstance(expr.generators[0].iter.func.value, ast.Name)):
            dicts.add(expr.generators[0].iter.func.value.id)
        else:
            return None
    return dicts


def _dict_built_plainly(tree, name: str, declared: set[str], parents: dict) -> bool:
    """Whether the module binds the dict ``name`` once, to ``{x.name: x for x in (...)}`` over
    ``...Baseline(`` calls or the names ``declared`` bound to one, and never changes it after
    (:func:`_names_exposed_unread`)."""
    import ast

    bindings = [n for n in tree.body if isinstance(n, (ast.Assign, ast.AnnAssign)) and any(
        isinstance(t, ast.Name) and t.id == name for t in (n.targets if isinstance(n, ast.Assign) else [n.target]))]
    value = bindings[0].value if len(bindings) == 1 else None
    if not (isinstance(value, ast.DictComp) and len(value.generators) == 1 and not value.generators[0].ifs
            and _plain_name(value.key, value.generators[0].target)
            and isinstance(value.value, ast.Name) and value.value.id == value.generators[0].target.id
            and isinstance(value.generators[0].iter, ast.Tuple)
            and all((isinstance(e, ast.Name) and e.id in declared) or _callee(e).endswith("Baseline")
                    for e in value.generators[0].iter.elts)):
        return False
    targets = bindings[0].targets if isinstance(bindings[0], ast.Assign) else [bindings[0].target]
    for node in ast.walk(tree):  # never changed after it is built
        if isinstance(node, ast.Global) and name in node.names:
            return False
        if not (isinstance(node, ast.Name) and node.id == name) or any(node is t for t in targets):
            continue
        up = parents.get(id(node))
        if not isinstance(node.ctx, ast.Load) or (isinstance(up, ast.Attribute) and up.attr not in (
                "values", "keys", "items", "get")) or (isinstance(up, ast.Subscript) and not isinstance(up.ctx, ast.Load)):
            return False
    return True


def _non_reference_names(tree) -> frozenset[str]:
    """The strings a parsed catalog version holds only as the name of a baseline it reads as no reference:
    a ``Baseline("name", ...)`` call (this module's ``@dataclass`` class ``Baseline``, its ``reference_on``
    field defaulting to ``frozenset()``) that sets no ``reference_on`` (none named, none in its positional
    arguments, nothing unpacked), the string held nowhere else, in a version whose ``reference_names()`` is
    read (:func:`_names_exposed_unread`), exposes its baselines' names only as ``{b.name for b in D.values()
    if b.reference_on}`` and does not expose the dict that holds it as ``set(D)``. Every string of a module
    that declares baselines was read as a declared name (:func:`_strings`), so a baseline that was no
    reference and was made one by a later pull request was reserved from its first declaration: a team's
    ``gnn-x``, accepted while ``gnn`` was no reference, was dropped from every board by someone else's pull
    request adding ``reference_on`` (eighty-sixth pass). A reference name is dated from when it became one."""
    import ast

    if _names_exposed_unread(tree):
        return frozenset()
    classes = [n for n in tree.body if isinstance(n, ast.ClassDef) and n.name == "Baseline"]
    if len(classes) != 1 or classes[0].bases or classes[0].keywords or not all(
            (isinstance(d, ast.Name) and d.id == "dataclass") or (isinstance(d, ast.Call) and isinstance(
                d.func, ast.Name) and d.func.id == "dataclass" and not d.args) for d in classes[0].decorator_list):
        return frozenset()
    if any(isinstance(n, ast.Name) and n.id == "Baseline" and not isinstance(n.ctx, ast.Load) for n in ast.walk(tree)) \
            or any((a.asname or a.name) in ("Baseline", "*") for n in ast.walk(tree)
                   if isinstance(n, (ast.Import, ast.ImportFrom)) for a in n.names):
        return frozenset()  # the class bound otherwise too
    for node in ast.walk(tree):  # a baseline's reference_on written after it is declared
        func = node.func if isinstance(node, ast.Call) else None
        called = func.id if isinstance(func, ast.Name) else func.attr if isinstance(func, ast.Attribute) else ""
        if (isinstance(node, ast.Constant) and node.value == "reference_on") or (
                isinstance(node, ast.Attribute) and node.attr == "reference_on" and not isinstance(node.ctx, ast.Load)) or (
                func is not None and called != "Baseline" and any(k.arg == "reference_on" for k in node.keywords)):
            return frozenset()
    fields = [s for s in classes[0].body if isinstance(s, ast.AnnAssign) and isinstance(s.target, ast.Name)]
    at = next((i for i, s in enumerate(fields) if s.target.id == "reference_on"), None)
    default = fields[at].value if at is not None else None
    if not (isinstance(default, ast.Call) and isinstance(default.func, ast.Name) and default.func.id == "frozenset"
            and not default.args and not default.keywords):
        return frozenset()
    exposing = next((n for n in tree.body if isinstance(n, ast.FunctionDef) and n.name == "reference_names"), None)
    if exposing is None:
        return frozenset()
    filtered, whole = set(), set()
    for node in ast.walk(exposing):
        if isinstance(node, ast.SetComp):
            ifs = node.generators[0].ifs
            if not (len(ifs) == 1 and isinstance(ifs[0], ast.Attribute) and ifs[0].attr == "reference_on"
                    and isinstance(ifs[0].value, ast.Name) and ifs[0].value.id == node.generators[0].target.id):
                return frozenset()
            filtered.add(node.generators[0].iter.func.value.id)
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "set":
            whole.add(node.args[0].id)
    held = [n.value for n in ast.walk(tree) if isinstance(n, ast.Constant) and isinstance(n.value, str)]
    bound = {t.id: n.value for n in tree.body if isinstance(n, ast.Assign) for t in n.targets if isinstance(t, ast.Name)}
    in_whole = {id(e) for n in tree.body if isinstance(n, (ast.Assign, ast.AnnAssign))
                for t in (n.targets if isinstance(n, ast.Assign) else [n.target])
                if isinstance(t, ast.Name) and t.id in whole and isinstance(n.value, ast.DictComp)
                for e in n.value.generators[0].iter.elts}
    in_whole |= {id(bound[e.id]) for e in [n for n in ast.walk(tree) if id(n) in in_whole]
                 if isinstance(e, ast.Name) and e.id in bound}
    found = set()
    for node in ast.walk(tree):
        func = node.func if isinstance(node, ast.Call) else None
        called = func.id if isinstance(func, ast.Name) else func.attr if isinstance(func, ast.Attribute) else ""
        if called != "Baseline" or id(node) in in_whole or not node.args:
            continue
        first = node.args[0]
        if (isinstance(first, ast.Constant) and isinstance(first.value, str) and held.count(first.value) == 1
                and len(node.args) <= at and not any(isinstance(a, ast.Starred) for a in node.args)
                and not any(k.arg in (None, "reference_on") for k in node.keywords)):
            found.add(first.value)
    return frozenset(found) if filtered else frozenset()


def _imported_names(tree, rel: str) -> tuple[tuple[tuple[str, ...], str], ...]:
    """The names a parsed module at ``rel`` imports (``from a.b import NAME``) and passes as a baseline's
    name (the first argument or ``name=`` of a ``...Baseline(`` call), each as (the module's possible paths,
    the name there), for :func:`_declared_at` to read from that module's version: a string it binds, or a
    name not read. Taken as read unseen, ``NAME = "g" + "nn"`` in a module the catalog imports and
    ``TransferBaseline(NAME, ...)`` in the catalog ended the transfer reference ``gnn``'s declaration
    (eighty-first pass)."""
    import ast

    sources: dict[str, tuple[tuple[str, ...], str]] = {}
    for node in tree.body:
        if isinstance(node, ast.ImportFrom):
            module = _from_module(node, rel)
            sources.update((a.asname or a.name, ((f"{module}.py", f"{module}/__init__.py"), a.name))
                           for a in node.names if module)
    found = []
    for node in ast.walk(tree):
        callee = node.func if isinstance(node, ast.Call) else None
        called = callee.id if isinstance(callee, ast.Name) else callee.attr if isinstance(callee, ast.Attribute) else ""
        if called.endswith("Baseline"):
            found += [sources[a.id] for a in node.args[:1] + [k.value for k in node.keywords if k.arg == "name"]
                      if isinstance(a, ast.Name) and a.id in sources]
    return tuple(found)


def _from_module(node, rel: str) -> str:
    """The repository path (no suffix) of the module a ``from ... import`` at ``rel`` imports from."""
    parts = rel.split("/")[:-1]
    base = "/".join(parts[:len(parts) - node.level + 1]) if node.level else ""
    return "/".join(p for p in (base, (node.module or "").replace(".", "/")) if p)


def _strings(tree) -> set[str]:
    """Every string constant of a parsed module but its docstrings (a bare string statement). A name
    passed through a helper (``_transfer("gnn")``), a loop over names, or a dict of specs unpacked into
    ``TransferBaseline(**spec)`` is no ``...Baseline(`` argument: the declaration read as taken out,
    the transfer reference (no folder) was dated at the commit read, and a hand-written ``gnn-m`` line
    merged after such a refactor was shown under the reference's name once any later commit landed
    (seventy-ninth pass). The name's string is in the code however it is passed."""
    import ast

    bare = {id(n.value) for n in ast.walk(tree) if isinstance(n, ast.Expr)}
    return {n.value for n in ast.walk(tree)
            if isinstance(n, ast.Constant) and isinstance(n.value, str) and id(n) not in bare}


def _imported_paths(text: str, rel: str) -> set[str]:
    """The repository paths a module file at ``rel`` may import (``from a.b import c``: ``a/b.py``,
    ``a/b/__init__.py``, ``a/b/c.py``, ``a/b/c/__init__.py``; relative imports from ``rel``'s folder);
    paths not in the repository are simply not found."""
    import ast

    try:
        tree = ast.parse(text)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return set()
    modules: set[str] = set()
    for node in tree.body:  # the module's own imports (one inside a function is read when it runs)
        if isinstance(node, ast.Import):
            modules.update(a.name.replace(".", "/") for a in node.names)
        elif isinstance(node, ast.ImportFrom):
            module = _from_module(node, rel)
            modules.add(module)
            modules.update(f"{module}/{a.name}" if module else a.name for a in node.names if a.name != "*")
    return {f"{m}{end}" for m in modules if m for end in (".py", "/__init__.py")}


def _declared_at(top: Path, rel: str, blobs: dict[str, str], read: dict) -> tuple[frozenset[str], set[str], bool]:
    """(the names the catalog file and the repository modules it imports, one after another, declare in
    one version of the tree (``blobs``: path to blob; :func:`_declared_names`), the paths those imports
    name, whether one of them names a baseline by an expression not read: :func:`_unread_declaration`).
    A pull request that only moved the catalog's ``TransferBaseline("gnn", ...)`` into a module
    the catalog imports ended the declaration (seventy-ninth pass); ``read`` keeps what a blob declares
    and imports."""
    names: set[str] = set()
    files = _module_files(rel)
    imports: set[str] = set(files)
    root = next((f for f in files if f in blobs), rel)
    source = root.endswith(".py") or root not in blobs  # not an extension module or bytecode: source to read
    unread = not source
    todo, seen = [*([root] if source else []), *_package_inits(root)], set()
    while todo:
        path = todo.pop()
        if path in seen:
            continue
        seen.add(path)
        imports.add(path)
        if path not in blobs:
            continue
        if blobs[path] not in read:
            text = _python_text(git_bytes(top, "cat-file", "blob", blobs[path]))
            # a version Python would not decode is one not read: it ends no declaration
            read[blobs[path]] = _module_reading(text, path) if text is not None else (
                frozenset(), set(), True, {}, ())
        declared, named, unread_here, _, _ = read[blobs[path]]
        names |= declared
        unread = unread or unread_here
        todo.extend(named)
    for path in seen:  # bytecode Python runs in place of the source read (_bytecode_files)
        imports.update(_bytecode_files(path))
        unread = unread or any(b in blobs for b in _bytecode_files(path))
    for path in seen & set(blobs):  # a baseline named by an imported constant: the string its module binds
        for places, name in read[blobs[path]][4]:
            bound = next((read[blobs[p]][3] for p in places if p in blobs and blobs[p] in read), {})
            if name in bound:
                names.add(bound[name])
            else:  # not bound to a string there (built, re-exported, not in the repository): not read
                unread = True
    return frozenset(names), imports, unread


def _package_inits(rel: str) -> tuple[str, ...]:
    """The ``__init__.py`` of each package above the module file ``rel``, outermost first: Python runs them
    before the catalog, and any can change what it exposes (eighty-seventh pass, :func:`_import_runs_unread`)."""
    parts = rel.split("/")[:-1]
    return tuple(f"{'/'.join(parts[:i])}/__init__.py" for i in range(1, len(parts) + 1))


_INERT_CALLS = frozenset({"frozenset", "tuple", "set", "dict", "list", "sorted", "len", "str", "int", "float", "bool",
                          "range", "zip", "enumerate", "min", "max", "any", "all", "isinstance"})


def _import_runs_unread(tree) -> bool:
    """Whether importing a parsed module version (the catalog, a package above it, a module either imports)
    runs code the reader does not follow. Read: module-level statements that import (no ``*``), bind
    plain names, or define functions and classes; and, in what runs on import (those statements, class
    bodies, decorators, defaults, annotations), calls only of classes the module defines once with no base
    and no ``__dunder__`` bound (or a ``...Baseline`` it does not bind: a test catalog's stand-in), of
    ``dataclass`` and ``field`` from ``dataclasses`` (a ``default_factory`` one of those builtins), of a few
    builtins the module does not rebind (``_INERT_CALLS``), and
    ``D.values()``/``.keys()``/``.items()``; no attribute or item stored, no ``del``, ``global`` or
    ``nonlocal``. What it reads, not a list of what it does not: ``perfgraphs/baselines/__init__.py``
    doing ``catalog.reference_names = ...`` (or ``setattr``, ``sys.modules[...] = ...``, a dict item set),
    or the catalog re-keying its dict through ``globals()``, ``exec`` or ``vars()``, put ``gnn`` back in
    what Python exposes while its declaration read as ended, and Mallory's ``gnn-m``, merged before a
    pull request restored the declaration, was shown under the reference's name (eighty-seventh pass).
    Such a version ends no declaration."""
    import ast

    bound: dict[str, list] = {}
    for node in tree.body:
        names = [(a.asname or a.name).split(".")[0] for a in node.names] if isinstance(
            node, (ast.Import, ast.ImportFrom)) else [node.name] if isinstance(
            node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) else [
            n.id for n in ast.walk(node) if isinstance(n, ast.Name) and not isinstance(n.ctx, ast.Load)]
        for name in names:
            bound.setdefault(name, []).append(node)
    plain = {n.name for n in tree.body if isinstance(n, ast.ClassDef) and not n.bases and not n.keywords
             and len(bound[n.name]) == 1 and not any(_dunder_bound(f) for f in ast.walk(n) if f is not n)}
    plain |= {n for n in _names_called(tree) if n.endswith("Baseline") and n not in bound}  # a stand-in
    dataclasses_names = {n for n in ("dataclass", "field") if all(
        isinstance(b, ast.ImportFrom) and b.module == "dataclasses" and not b.level for b in bound.get(n, [None]))}
    for node in _import_time_nodes(tree.body):
        if node is None:
            return True
        for sub in ast.walk(node):
            if isinstance(sub, (ast.Delete, ast.Global, ast.Nonlocal)) or (
                    isinstance(sub, (ast.Attribute, ast.Subscript)) and not isinstance(sub.ctx, ast.Load)):
                return True
            if not isinstance(sub, ast.Call):
                continue
            func = sub.func
            factory = [k.value for k in sub.keywords if k.arg == "default_factory" or k.arg is None]
            if isinstance(func, ast.Name) and (func.id in plain or (func.id in _INERT_CALLS and func.id not in bound)
                                               or (func.id in dataclasses_names and all(
                                                   isinstance(f, ast.Name) and f.id in _INERT_CALLS
                                                   and f.id not in bound for f in factory))):
                continue
            if (isinstance(func, ast.Attribute) and func.attr in ("values", "keys", "items")
                    and isinstance(func.value, ast.Name) and not sub.args and not sub.keywords):
                continue
            return True
    return False


def _dunder_bound(node) -> bool:
    """Whether a node of a class body binds a ``__dunder__`` name (a method, ``__init__ = f``): Python calls
    it implicitly (:func:`_import_runs_unread`)."""
    import ast

    named = node.name if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) else \
        node.id if isinstance(node, ast.Name) and not isinstance(node.ctx, ast.Load) else ""
    return named.startswith("__") and named.endswith("__")


def _names_called(tree) -> set[str]:
    """The plain names a parsed module calls."""
    import ast

    return {n.func.id for n in ast.walk(tree) if isinstance(n, ast.Call) and isinstance(n.func, ast.Name)}


def _import_time_nodes(body: list) -> list:
    """The nodes of a module's (or class body's) statements that run when it is imported, for
    :func:`_import_runs_unread`; None for a statement it does not read (a call statement, ``if``, ``try``,
    ``with``, a loop, an augmented assignment, an import of ``*``)."""
    import ast

    found: list = []
    for stmt in body:
        if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef)):
            args = stmt.args
            found += [*stmt.decorator_list, *args.defaults, *(d for d in args.kw_defaults if d is not None),
                      *(a.annotation for a in (*args.posonlyargs, *args.args, *args.kwonlyargs, args.vararg,
                                               args.kwarg) if a is not None and a.annotation is not None),
                      *([stmt.returns] if stmt.returns is not None else [])]
        elif isinstance(stmt, ast.ClassDef):
            found += [*stmt.decorator_list, *stmt.bases, *(k.value for k in stmt.keywords),
                      *_import_time_nodes(stmt.body)]
        elif isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Constant):
            continue  # a docstring
        elif isinstance(stmt, (ast.Import, ast.ImportFrom)):
            found.append(None if any(a.name == "*" for a in stmt.names) else stmt)
        elif isinstance(stmt, (ast.Assign, ast.AnnAssign, ast.Pass)):
            found.append(stmt)
        else:
            found.append(None)
    return found


def _module_files(rel: str) -> tuple[str, ...]:
    """The files Python may import the catalog's module from, in the order its finder tries them
    (``importlib.machinery.FileFinder``: a package's ``__init__`` before a module file of its name, an
    extension module before source before bytecode), ``rel`` among them; each version is read from the
    first it holds (one that is no ``.py`` source is not read: it ends no declaration). Only the file
    imported now was followed: a pull request that moved ``perfgraphs/baselines/catalog.py`` into a package
    ``catalog/__init__.py`` (or added one beside it, shadowing the file it left unchanged) began every
    catalog name's history there, and the transfer reference ``gnn`` (no folder) was dated from that
    commit: Mallory's hand-written ``gnn-m``, refused since it landed before, was shown under the
    reference's name (eighty-fourth pass)."""
    from importlib.machinery import BYTECODE_SUFFIXES, EXTENSION_SUFFIXES, SOURCE_SUFFIXES

    folder, _, name = rel.rpartition("/")
    stem = name.split(".")[0]
    base = folder if stem == "__init__" and folder else "/".join(p for p in (folder, stem) if p)
    suffixes = (*EXTENSION_SUFFIXES, *SOURCE_SUFFIXES, *BYTECODE_SUFFIXES)
    return tuple(dict.fromkeys([*(f"{base}/__init__{s}" for s in suffixes), *(f"{base}{s}" for s in suffixes), rel]))


def _bytecode_files(path: str) -> tuple[str, ...]:
    """The cached bytecode files Python may load in place of the source file ``path`` (``__pycache__/
    <name>.<tag>[.opt-N].pyc``): an unchecked hash-based one runs whatever the source says. A pull request
    that spelt the transfer reference ``gnn`` out of ``catalog.py`` and committed such a file compiled from
    the source before kept ``gnn`` in the catalog Python imports (``catalog.__file__`` still the source)
    while its declaration read as ended, and Mallory's ``gnn-m`` was shown under the reference's name once
    any later commit landed (eighty-fourth pass). A version holding one is not read: it ends no declaration."""
    import importlib.util

    if not path.endswith(".py"):
        return ()
    return tuple(importlib.util.cache_from_source(path, optimization=o) for o in ("", 1, 2))


def _python_text(data: bytes | None) -> str | None:
    """A module version's text as Python reads it on import: decoded by its coding declaration (or BOM),
    universal newlines; None where Python would not decode it (an unknown codec, bytes its codec refuses,
    no declaration for bytes that are not UTF-8). Read as UTF-8, a pull request that only added ``# -*-
    coding: utf-7 -*-`` and spelt the transfer reference ``gnn`` as ``TransferBaseline("+AGcAbgBu-", ...)``
    (``"gnn"`` to Python, another string to ``ast``) ended its declaration as read, and Mallory's
    hand-written ``gnn-m``, merged after, was shown under the reference's name once any later commit
    landed (eighty-fourth pass)."""
    import importlib.util

    if data is None:
        return ""
    try:
        return importlib.util.decode_source(data)
    except Exception:  # noqa: BLE001 - whatever a codec raises, Python would not import the file
        return None


def _module_reading(text: str, rel: str) -> tuple:
    """What :func:`_declared_at` keeps of one module version at ``rel``: (names declared, paths imported,
    a name not read, its string bindings, its imported names passed as a baseline's name)."""
    import ast

    try:
        tree = ast.parse(text)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        tree = None
    # a name declared only as a baseline that is no reference is not (yet) a reference's: _non_reference_names
    return (_declared_names(text) - (_non_reference_names(tree) if tree is not None else frozenset()),
            _imported_paths(text, rel),
            _unread_declaration(text) or (tree is not None and (_baseline_passed_around(tree)
                                                             or _names_exposed_unread(tree)
                                                             or _import_runs_unread(tree))),
            _string_bindings(tree) if tree is not None else {},
            _imported_names(tree, rel) if tree is not None else ())


def _changes(top: Path, head: str, watched: frozenset[str]) -> list[tuple[str, list[tuple[str, str]]]]:
    """For each main-line commit that changed a watched path, oldest last: (commit, [(path, new blob,
    all zeros where deleted)]), from one ``git log --raw -z`` (paths as written, no renames)."""
    out = git(top, "log", "--first-parent", "--diff-merges=first-parent", "--no-renames", "--raw", "-z",
              "--no-abbrev", "--format=%x00%H", head, "--", *(f":(literal){p}" for p in sorted(watched))) or ""
    tokens, found, i = out.split("\0"), [], 0
    while i < len(tokens):
        token = tokens[i].lstrip("\n")
        if token.startswith(":") and i + 1 < len(tokens) and found:
            found[-1][1].append((tokens[i + 1], token.split()[3]))
            i += 2
            continue
        if re.fullmatch(r"[0-9a-f]{40}", token):
            found.append((token, []))
        i += 1
    return found


def _catalog_versions(top: Path, rel: str, head: str, when: dict[str, int]) -> list[tuple[int, frozenset[str], bool]]:
    """(arrival, names declared, a name not read: :func:`_declared_at`) for every main-line commit that changed the catalog file or a
    repository module it imports, oldest first: the modules watched grow until every version's
    imports are among them."""
    watched, read = frozenset({rel}), {}
    while True:
        versions, named, blobs = [], set(watched), {}
        for commit, changed in sorted((c for c in _changes(top, head, watched) if c[0] in when),
                                      key=lambda c: when[c[0]]):
            for path, blob in changed:
                if set(blob) == {"0"}:
                    blobs.pop(path, None)
                else:
                    blobs[path] = blob
            declared, imports, unread = _declared_at(top, rel, blobs, read)
            versions.append((when[commit], declared, unread))
            named |= imports
        if named <= watched:
            return versions
        watched = frozenset(named)


@functools.lru_cache(maxsize=8)
def _catalog_runs(top: Path, rel: str, head: str) -> dict[str, tuple[tuple[int, int], ...]]:
    """For each name of the catalog's code, the runs of its declaration in the catalog file on the main
    line ((the arrival of the commit that declared it, the arrival of the one that took it out,
    ``sys.maxsize`` for the run that lasts), oldest first, as :func:`history.line_changes` counts)."""
    chain = (git(top, "rev-list", "--first-parent", head) or "").split() if head else []
    when = {sha: len(chain) - 1 - i for i, sha in enumerate(chain)}
    # every main-line version of the file, each read as Python (:func:`_declared_names`); `git log -S` of
    # the literal text found only the commits that changed how often it occurred, and a re-spelt
    # declaration (wrapped, a keyword, a constant) read as the name taken out (seventy-eighth pass)
    versions = _catalog_versions(top, rel, head, when)
    found: dict[str, tuple[tuple[int, int], ...]] = {}
    for name in _catalog_names():
        runs, since = [], None
        for i, (arrived, names_declared, unread) in enumerate(versions):
            said = _declares(name, names_declared, i == len(versions) - 1)
            # a version naming a baseline by an expression not read ends no run (_unread_declaration), nor
            # does the present version where it is not read to declare a name Python exposes (_declares)
            declared = bool(said) or ((unread or said is None) and since is not None)
            if declared and since is None:
                since = arrived
            elif not declared and since is not None:
                runs.append((since, arrived))
                since = None
        found[name] = (*runs, (since, sys.maxsize)) if since is not None else tuple(runs)
    return found
