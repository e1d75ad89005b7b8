"""Hidden test sets: the labelled test rows live outside the repository; the repository publishes
only their sha256 (``leaderboard/hidden/<dataset>-<config>.sha256``), committed before any
submission is scored on them.

The hidden file ``<DIR>/<dataset>-<config>.parquet`` holds test rows in the dataset's own row
format (graph input columns + label columns), e.g. a labelled config built from measurements
that were never committed. At scoring time (``--hidden-labels``) the file is hashed and must
equal the commitment, committed to git, so the labels cannot be changed after the fact without it showing; the
predictor gets its input columns only, and the parent scores against its labels.

The keeper location is ``PERFGRAPHS_HIDDEN_DIR`` (the default of ``--hidden-labels`` and of the
``build-hidden``/``commit-hidden`` folders), outside the repository: a folder inside the checkout
is refused, since whatever is there can be committed and read.

Each hidden set has a definition beside its commitment, ``<dataset>-<config>.json``: the plan its
architectures come from, the plan entries left out of the file, and — once any of them is found in
public data (:mod:`perfgraphs.leaderboard.records.exposure`) — a ``compromised`` block naming the file's
sha256 and where each leaked. A compromised set scores nothing more, and its earlier records read
as ``reproduced`` (:mod:`perfgraphs.leaderboard.records.tiers`): a fresh set must be measured and committed.
A fresh set replaces the config's commitment; its definition keeps the withdrawn rounds below it
(``earlier_rounds``, :func:`definition_rounds`), so their records stay reproduced.
"""

from __future__ import annotations

import functools
import json
import math
import os
import re
from dataclasses import dataclass
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq

from perfgraphs import paths
from perfgraphs.atomic import atomic_write_table, sha256_file
from perfgraphs.collect.errors import PlanError
from perfgraphs.collect.variants import definition_rounds
from perfgraphs.errors import PerfgraphsError
from perfgraphs.leaderboard.records.history import (committed_text, full_history, git, git_bytes, head_commit, in_folder,
                                                    keeper_work_off_main_line, main_line_versions, repository_place)
from perfgraphs.registry import Config, Dataset, Task

COMMITMENTS_DIR = paths.leaderboard_dir() / "hidden"
KEEPER_ENV = "PERFGRAPHS_HIDDEN_DIR"


class HiddenLabelsError(PerfgraphsError):
    """Hidden labels that are missing, unreadable or do not match their published commitment."""


@dataclass(frozen=True)
class HiddenTest:
    rows: pa.Table  # input columns + labels
    sha256: str
    path: Path


def keeper_dir(given: Path | None = None) -> Path:
    """The folder holding the hidden test files: ``given``, else ``$PERFGRAPHS_HIDDEN_DIR``; never
    inside the repository checkout."""
    if given is None:
        value = os.environ.get(KEEPER_ENV, "").strip()
        if not value:
            raise HiddenLabelsError(f"no hidden-labels folder: pass one, or set {KEEPER_ENV} to the keeper folder "
                                    "outside the repository (leaderboard/RULES.md, 'Hidden test sets')")
        given = Path(value)
    folder = Path(given).expanduser().resolve()
    repo = paths.checkout_root()
    if repo is not None and folder.is_relative_to(repo.resolve()):
        raise HiddenLabelsError(f"{folder} is inside the repository checkout {repo}: hidden labels live outside it "
                                f"(set {KEEPER_ENV} to a folder elsewhere), or they are one commit away from public")
    return folder


def definition_path(dataset: str, config: str, root: Path | None = None) -> Path:
    return (root or COMMITMENTS_DIR) / f"{_stem(dataset, config)}.json"


def read_definition(path: Path) -> dict:
    try:
        doc = json.loads(path.read_text())
    except (OSError, ValueError, RecursionError) as exc:  # ValueError: bad JSON or a bad byte
        raise HiddenLabelsError(f"{path} is not a readable hidden-set definition ({type(exc).__name__}: "
                                f"{str(exc)[:120]})") from None
    if not isinstance(doc, dict):
        raise HiddenLabelsError(f"{path} must be a JSON object (plan, left_out, compromised)")
    return doc


def next_definition(current: dict | None, new: dict) -> dict:
    """The definition of a new round: ``new``, with the current definition's rounds kept below it."""
    return {**new, "earlier_rounds": definition_rounds(current) if current else []}


def _declared(doc: dict, stem: str) -> set[tuple[str, str]]:
    """(stem, sha256) of every compromised block of a definition's rounds."""
    found = set()
    for round_ in definition_rounds(doc):
        block = round_.get("compromised") or {}
        if isinstance(block, dict) and isinstance(block.get("sha256"), str):
            found.add((stem, block["sha256"].lower()))
    return found


@functools.lru_cache(maxsize=8)
def _compromised(root: Path) -> frozenset[tuple[str, str]]:
    """(the definition file's stem, sha256) of every compromised declaration in ``root``. A file that
    defines no set here (no ``<stem>.sha256`` beside it) and does not parse declares nothing; a set's
    own definition that does not parse is refused in one line naming it. A stray ``zz-note.json``
    whose ``earlier_rounds`` was not a list stopped `leaderboard show` and `build`, in a line naming
    no file (twenty-ninth pass of 2026-12-03)."""
    found = set()
    for path in sorted(root.glob("*.json")) if root.is_dir() else []:
        try:
            found |= _declared(read_definition(path), path.stem)
        except PerfgraphsError as exc:
            if path.with_suffix(".sha256").is_file():
                raise HiddenLabelsError(f"{path.name}: {exc}") from None
    return frozenset(found)


def _folder_glob(place: tuple[Path, str], pattern: str) -> str:
    """A ``:(glob)`` pathspec of ``pattern`` among the files of the folder at ``place``
    (:func:`perfgraphs.leaderboard.records.history.repository_place`), from the repository's top: git
    is asked from the top, at the path the repository holds, never through a link to the folder."""
    return ":(glob)" + in_folder((place[0], re.sub(r"([*?\[\\])", r"\\\1", place[1])), pattern)


@functools.lru_cache(maxsize=8)
def _ever_compromised(place: tuple[Path, str], head: str) -> frozenset[tuple[str, str]]:
    """(stem, sha256) of every compromised declaration that any main-line (``--first-parent``)
    version of a definition in ``root`` held, at ``head`` (the history below it cannot change): a
    withdrawn set stays withdrawn. The file as it is was read alone, and a pull request that dropped
    the first set's round from ``earlier_rounds`` showed its three records as *verified*, with no
    COMPROMISED note (twenty-ninth pass of 2026-12-03)."""
    found: set[tuple[str, str]] = set()
    for commit, name in main_line_versions(place[0], head, _folder_glob(place, "*.json")):
        try:
            text = committed_text(place[0], commit, in_folder(place, name))
            doc = json.loads(text) if text else None
            found |= _declared(doc, Path(name).stem) if isinstance(doc, dict) else set()
        except (ValueError, RecursionError, PerfgraphsError):
            continue  # a version that did not parse declared nothing
    return frozenset(found)


def compromised_hashes(root: Path | None = None) -> frozenset[str]:
    """The sha256 of every hidden test file declared compromised (its architectures found in public
    data): records scored on one are not hidden-set scores. A set is declared in its own config's
    definition (``<dataset>-<config>.json``, the stem its hash was committed under): any ``*.json``
    counted, and a ``zz-note.json`` a pull request added withdrew the live set ``2ee8d095``, its ten
    verified rows read as reproduced (twenty-eighth pass of 2026-12-03). A hash committed under no
    stem (or no history to tell) counts wherever it is declared: its records are not read anyway.
    A declaration counts once the main line held it (:func:`_ever_compromised`): taking it out of
    the file later withdraws nothing back."""
    folder = Path(root or COMMITMENTS_DIR)
    history = commitment_history(root)
    head, place = head_commit(folder), repository_place(folder)
    ever = _ever_compromised(place, head) if head and place else frozenset()

    def counts(stem: str, sha: str) -> bool:
        first = None if history is None else history.hashes.get(sha)
        return first is None or stem in first[2]

    return frozenset(sha for stem, sha in _compromised(folder) | ever if counts(stem, sha))


_ADDED_HASH = re.compile(r"^\+([0-9a-f]{64})\b")


@dataclass(frozen=True)
class CommitmentHistory:
    """What the history of the commitments folder shows: each hash with the date, the order (commits
    counted from the first) and the file stems (``<dataset>-<config>``) of the commit that first
    added it to a ``.sha256``; each public key file with the order of the commit that added it."""

    hashes: dict[str, tuple[str, int, frozenset[str]]]
    keys: dict[str, int]


# How the history is read (review of 2026-12-02): the mainline only (``--first-parent``, a merge's
# changes dated and ordered as the merge: a branch's commit backdated and merged later lands when
# it was merged, not when it says it was made), the folder's own files only (``:(glob)`` keeps
# ``*`` from matching ``/``: a ``.sha256`` in a subfolder declares nothing), and one diff format
# whatever the user's git configuration says (prefixes, colour, external diff, renames), and whatever
# a committed .gitattributes says: ``leaderboard/hidden/* binary`` (or ``-diff``), one line anywhere,
# turned every diff there into "Binary files ... differ", no commitment or key was ever committed, and
# every keeper-signed record left every board (fifty-fourth pass): read as text, no textconv.
_LOG = ("-c", "diff.noprefix=false", "-c", "color.ui=never", "-c", "core.quotepath=on", "log", "--first-parent",
        "--diff-merges=first-parent", "--reverse", "--no-color", "--no-ext-diff", "--no-textconv", "--text",
        "--no-renames", "--src-prefix=a/", "--dst-prefix=b/", "--format=@@%cI", "-p", "--unified=0")
# a hunk's header: how many lines it takes out and puts in (one where git leaves the count out)
_HUNK = re.compile(r"^@@ -\d+(?:,(\d+))? \+\d+(?:,(\d+))? @@")


@functools.lru_cache(maxsize=8)
def _history(place: tuple[Path, str], head: str) -> CommitmentHistory | None:
    log = git_bytes(place[0], *_LOG, head, "--", _folder_glob(place, "*.sha256"), _folder_glob(place, "*.pub"))
    if log is None:
        return None
    hashes: dict[str, tuple[str, int, set[str]]] = {}
    keys: dict[str, int] = {}
    date, order, current, created = "", -1, None, False
    taken = put = 0  # the lines of the hunk being read still to come: its content, never a header
    # A file's own lines are content, read by the hunk's counts, split at "\n" alone: read as headers,
    # two lines after the PEM block of a contributor's new key file (``++ b/dippm-cpu-torch-fp32.sha256``
    # and a made-up hash), shown by the diff as ``+++ b/...`` and ``+<hash>``, committed that hash as
    # the config's set, with that key, and the contributor's own signed records of it read as
    # *verified* on the official board (fifty-fourth pass of 2026-12-05)
    for raw in log.split(b"\n"):
        line = raw.decode("utf-8", errors="replace")
        if taken > 0 or put > 0:
            if line.startswith("-") and taken > 0:
                taken -= 1
            elif line.startswith("+") and put > 0:
                put -= 1
                if current and current.endswith(".sha256") and (m := _ADDED_HASH.match(line)):
                    stem = Path(current).name.removesuffix(".sha256")
                    first = hashes.setdefault(m.group(1), (date, order, set()))
                    if first[1] == order:
                        first[2].add(stem)
            elif not line.startswith("\\"):  # "\ No newline at end of file" belongs to the hunk
                taken = put = 0  # not what the header counted: read as headers again
        if taken > 0 or put > 0:
            continue
        if line.startswith("@@") and not line.startswith("@@ "):
            date, order = line[2:].strip(), order + 1
        elif (hunk := _HUNK.match(line)) is not None:
            taken, put = (int(n) if n is not None else 1 for n in hunk.groups())
        elif line.startswith("diff --git "):
            current, created = None, False
        elif line.startswith("--- "):
            created = line == "--- /dev/null"
        elif line.startswith("+++ "):
            current = line[6:] if line.startswith("+++ b/") else None
            name = Path(current).name if current else ""
            if name.endswith(".pub") and created:
                keys.setdefault(name, order)
    return CommitmentHistory({h: (d, o, frozenset(st)) for h, (d, o, st) in hashes.items()}, keys)


def commitment_history(root: Path | None = None) -> CommitmentHistory | None:
    """The :class:`CommitmentHistory` of the commitments folder at HEAD; None when it is not in a git
    repository (an installed package): then nothing can be shown to be committed. In a shallow
    clone every file shows as added by its oldest commit: dates are "" there (unknown)."""
    folder = Path(root or COMMITMENTS_DIR)
    # at the path the repository holds: through a committed link to a copy of the folder, git read the
    # copy's history, and a key its writer put there counted (fiftieth pass of 2026-12-05)
    head, place = head_commit(folder), repository_place(folder)
    if head is None or place is None:
        return None
    found = _history(place, head)  # once per commit: the history below HEAD cannot change
    if found is None or full_history(folder):
        return found
    return CommitmentHistory({h: ("", o, st) for h, (_, o, st) in found.hashes.items()}, found.keys)


def committed_commitments(root: Path | None = None) -> dict[str, str] | None:
    """Every hidden-set commitment ever committed to git in the commitments folder: sha256 -> the
    date of the commit that first added it (ISO 8601; "" in a shallow clone, which lacks the
    history). None when the folder is not in a git repository (an installed package)."""
    history = commitment_history(root)
    return None if history is None else {h: d for h, (d, _, _) in history.hashes.items()}


def committed_unchanged(path: Path) -> bool:
    """``path`` is tracked by git and the same as at HEAD."""
    folder, name = path.parent, path.name
    tracked = git(folder, "ls-files", "--error-unmatch", "--", name)
    changed = git(folder, "diff", "--name-only", "HEAD", "--", name)
    return tracked is not None and changed is not None and not changed.strip()


def _check_committed(commitment: Path) -> None:
    """A commitment counts only once it is committed to git, unchanged: a file the scorer wrote a
    moment ago, or edited since, commits to nothing anyone else saw before the scores."""
    if not committed_unchanged(commitment):
        raise HiddenLabelsError(f"the commitment {commitment} is not committed to git as it is now: a hidden test "
                                "set scores only against a commitment committed (and published) before scoring "
                                "(leaderboard/RULES.md, 'Hidden test sets')")


def _stem(dataset: str, config: str) -> str:
    return f"{dataset.split('/')[-1]}-{config}"


def hidden_file(labels_dir: Path, dataset: str, config: str) -> Path:
    return Path(labels_dir) / f"{_stem(dataset, config)}.parquet"


def commitment_path(dataset: str, config: str, root: Path | None = None) -> Path:
    return (root or COMMITMENTS_DIR) / f"{_stem(dataset, config)}.sha256"


def commitment_hash(path: Path) -> str | None:
    """The sha256 a commitment file publishes (its first word, lower case), or None when it holds
    no sha256 hex digest or cannot be read: an empty ``leaderboard/hidden/x.sha256`` in a pull
    request stopped `leaderboard show` and `build` with an IndexError (twenty-seventh pass of 2026-12-03)."""
    try:
        words = path.read_text().split()
    except (OSError, ValueError):
        return None
    first = words[0].strip().lower() if words else ""
    return first if re.fullmatch(r"[0-9a-f]{64}", first) else None


def commit_hidden(labels_dir: Path, dataset: str, config: str, root: Path | None = None) -> Path:
    """Write the commitment of ``<labels_dir>/<dataset>-<config>.parquet`` (then commit it to git)."""
    path = hidden_file(keeper_dir(labels_dir), dataset, config)
    if not path.exists():
        raise HiddenLabelsError(f"{path} does not exist: write the hidden test rows there first")
    _read(path)  # refuse to commit to a file that cannot be scored
    out = commitment_path(dataset, config, root)
    out.parent.mkdir(parents=True, exist_ok=True)
    tmp = out.with_suffix(".tmp")
    tmp.write_text(f"{sha256_file(path)}  {path.name}\n")
    os.replace(tmp, out)
    return out


def _read(path: Path) -> pa.Table:
    try:
        table = pq.read_table(path)
    except Exception as exc:
        raise HiddenLabelsError(f"cannot read {path}: {type(exc).__name__}: {str(exc)[:150]}") from None
    missing = {"sample_id", "family", "structure_hash"} - set(table.column_names)
    if missing:
        raise HiddenLabelsError(f"{path} lacks column(s) {', '.join(sorted(missing))}: write it in the dataset's "
                                "row format (graph columns + label columns)")
    return table


def load_hidden(labels_dir: Path | None, board: Task, root: Path | None = None) -> HiddenTest:
    """The hidden test rows of ``board``, after checking them against the published commitment
    (``labels_dir`` None: the keeper folder ``$PERFGRAPHS_HIDDEN_DIR``)."""
    dataset, config, target = board.dataset.name, board.config.name, board.target.name
    commitment = commitment_path(dataset, config, root)
    if not commitment.exists():
        raise HiddenLabelsError(f"no published commitment {commitment}: run `perfgraphs leaderboard commit-hidden "
                                f"{labels_dir or '$' + KEEPER_ENV} --dataset {dataset} --config {config}` and commit "
                                "the file before scoring")
    _check_committed(commitment)
    expected = commitment_hash(commitment)
    if expected is None:
        raise HiddenLabelsError(f"the commitment {commitment} holds no sha256 hex digest as its first word")
    if expected in compromised_hashes(root):
        raise HiddenLabelsError(f"the hidden test set {_stem(dataset, config)} (sha256 {expected[:16]}...) is "
                                f"compromised: its architectures are in public data "
                                f"({definition_path(dataset, config, root).name}); it scores nothing more: measure a "
                                "fresh hidden set and commit its hash (leaderboard/RULES.md, 'Re-measuring a hidden set')")
    drift = target_not_scored(dataset, config, target, expected, root)
    if drift:
        raise HiddenLabelsError(drift)
    path = hidden_file(keeper_dir(labels_dir), dataset, config)
    if not path.exists():
        raise HiddenLabelsError(f"{path} does not exist: the keeper folder ${KEEPER_ENV} must hold "
                                f"{path.name}")
    actual = sha256_file(path)
    if actual != expected:
        raise HiddenLabelsError(f"hidden labels {path} (sha256 {actual[:16]}...) do not match the published "
                                f"commitment {commitment.name} ({expected[:16]}...): score with the committed file, "
                                "or publish a new commitment for a new hidden set")
    table = _read(path)
    if target not in table.column_names:
        raise HiddenLabelsError(f"{path} has no {target} column: the hidden set has no labels for this target")
    return HiddenTest(table, actual, path)


def target_not_scored(dataset: str, config: str, target: str, sha256: str, root: Path | None = None) -> str | None:
    """Why the round of the set ``sha256`` scores nothing on ``target``, or None when it may: its
    definition's probe of the machine (``measured.host_speed``) put that target outside the band the
    round was measured under (:func:`perfgraphs.collect.host_speed.in_band`). A slow day moves latency
    and leaves peak memory where it was, so such a round scores memory only (the probe of 2026-12-05
    11:14 UTC: latency at 0.68x its public labels, memory at 0.99x). A round without a probe of that
    target (a GPU round) is not held back here."""
    from perfgraphs.collect.host_speed import in_band

    path = definition_path(dataset, config, root)
    try:
        commitment = commitment_path(dataset, config, root)
        measured = _round_measured(read_definition(path), commitment_hash(commitment), sha256.lower()) if path.is_file() else None
    except (OSError, ValueError, PlanError):
        measured = None  # the file as it is holds nothing back; the versions the main line committed may
    block = measured.get("host_speed") if isinstance(measured, dict) else None
    if in_band(block, target) is False:
        ratio = block[target]["median_ratio"]
    else:  # held out by a version the main line committed: a later edit does not score the target again
        head, place = head_commit(path.parent), repository_place(path.parent)
        ratio = (_ever_out_of_band(place, head, path.name) if head and place else {}).get((sha256.lower(), target))
        if ratio is None:
            return None
    return (f"the hidden round of {_stem(dataset, config)} (sha256 {sha256[:16]}...) does not score {target}: on its "
            f"day the machine ran its public configurations at {ratio:.2f}x their labels' {target}, outside the band "
            f"it was measured under ({path.name}, measured.host_speed), so a score would measure that drift")


@functools.lru_cache(maxsize=8)
def _ever_out_of_band(place: tuple[Path, str], head: str, name: str) -> dict[tuple[str, str], float]:
    """(set sha256, target) -> the probe's median ratio, for every target a round's probe put outside
    its band (:func:`perfgraphs.collect.host_speed.in_band`) in any main-line (``--first-parent``)
    version of the definition ``name``, at ``head``. The definition as it stood was read alone: a
    later commit that widened the round's ``within``, dropped its latency probe, or changed one hex
    digit of the round's ``sha256`` (no round named the set any more) made the round of 2026-12-05
    (latency at 0.68x) score latency again (fifty-third pass of 2026-12-05)."""
    from perfgraphs.collect.host_speed import in_band

    found: dict[tuple[str, str], float] = {}
    for sha, stated in _stated_rounds(place, head, name):
        block = json.loads(stated).get("host_speed")
        if not isinstance(block, dict):
            continue
        for target in block:
            if in_band(block, target) is False:
                found.setdefault((sha, target), float(block[target]["median_ratio"]))
    return found


def leave_out_public(table: pa.Table, repo: Path | None = None, external: Path | None = None) -> pa.Table:
    """``table`` without the rows of architectures (``name``) that public data names: the exposure
    scan (:func:`perfgraphs.leaderboard.records.exposure.public_mentions`) over every committed file of
    ``repo`` (default: this checkout) and the importers' public sources (``external``), a structure
    variant found as the named architecture it builds. Says in one line what it left out, and where."""
    from perfgraphs.leaderboard.records.exposure import public_mentions

    names = sorted(set(table.column("name").to_pylist()))
    repo = Path(repo) if repo is not None else paths.leaderboard_dir().parent
    found = public_mentions(names, repo, external=external)
    for name, place in {**public_graph_hashes(table, repo), **public_feature_rows(table, repo)}.items():
        found[name] = sorted({*found.get(name, ()), place})
    if not found:
        return table
    keep = [n not in found for n in table.column("name").to_pylist()]
    where = "; ".join(f"{a} ({', '.join(places)})" for a, places in found.items())
    print(f"note: left out {keep.count(False)} row(s) of "
          f"{len(found)} architecture(s) that public data names: {where}"[:400])
    return table.filter(pa.array(keep))


def public_graph_hashes(table: pa.Table, repo: Path) -> dict[str, str]:
    """architecture (``name``) -> the committed place holding its row's ``structure_hash``
    (:func:`perfgraphs.collect.public_files.committed_graph_hashes`), for a table with that column. The name
    scan reads a committed file's models by name only, and a predictor gets each hidden row's
    ``structure_hash``: a staged table naming no model, only a drawn variant's hash and its latency, left the
    variant in the hidden file (hundred-and-eighteenth pass, side a)."""
    from perfgraphs.collect.public_files import committed_graph_hashes

    if "structure_hash" not in table.column_names:
        return {}
    hashes = committed_graph_hashes(repo)
    return {n: hashes[h] for n, h in zip(table.column("name").to_pylist(), table.column("structure_hash").to_pylist())
            if h in hashes}


def public_feature_rows(table: pa.Table, repo: Path) -> dict[str, str]:
    """architecture (``name``) -> the committed place holding one of its row's cost counts
    (:data:`perfgraphs.collect.public_files.COST_COLUMNS`, exactly) or its featurizer's whole vector (as a
    predict artifact's ``features`` row), from :func:`perfgraphs.collect.public_files.committed_cost_numbers`.
    A predictor gets those columns as inputs, and within a family a count is a key to the structure: a staged
    table of ``total_flops`` and latency, no name and no hash, left a drawn resnet's label in reach of a lookup
    (hundred-and-twenty-first pass, side a). Exact values only: a count rounded, scaled or logged as text escapes."""
    from perfgraphs.collect.public_files import COST_COLUMNS, committed_cost_numbers
    from perfgraphs.data.build import STATIC_COLUMNS

    cols = [c for c in COST_COLUMNS if c in table.column_names]
    if not cols:
        return {}
    held, names = committed_cost_numbers(repo), table.column("name").to_pylist()
    keys = [[int(v) for v in table.column(c).to_pylist() if v is not None] for c in cols]
    rows = [set(k) for k in zip(*keys)] if all(len(k) == table.num_rows for k in keys) else [set() for _ in names]
    if all(c in table.column_names for c in STATIC_COLUMNS):
        from perfgraphs.data.featurize import static_features
        from perfgraphs.registry import TRAPPM  # the predict artifacts' featurizer (``predict.features.GRAPH_FEATURIZER``)

        for keyset, vec in zip(rows, static_features(table, TRAPPM).tolist()):
            keyset.add(tuple(vec))
    return {n: held[k] for n, keyset in zip(names, rows) for k in keyset if k in held}


def foreign_hardware(cfg: Config, rows: list[dict]) -> str | None:
    """Why ``rows`` cannot label ``cfg``'s hidden set: measured on other hardware than its public
    labels (:func:`perfgraphs.collect.store.hardware_identity`), or on several. A predictor trained on
    one machine's labels and scored on another's is scored on the machines' difference: two 2-vCPU
    "AMD EPYC" guests of one cloud (512 KiB and 1 MiB of L2 a core) hold different CPUs under one
    model name, and a round measured on the other one would read as verified. None when they match,
    or when the config states no public store to compare with."""
    from perfgraphs.collect.store import MeasurementStore, hardware_identity

    if not cfg.suite:
        return None
    public = MeasurementStore(paths.measurement_store(cfg.suite)).machine()
    measured = sorted({hardware_identity(r) or "hardware not recorded" for r in rows})
    if public is None or measured == [public]:
        return None
    return (f"measured on {', '.join(measured)}; the public labels of {cfg.name} on {public}: "
            "measure a hidden set on the machine of its config's public labels")


def round_store_problem(store: Path, plan: Path) -> str | None:
    """Why ``store``, the measured store a round's ``finish`` reads (unpacked from the device's archive,
    or written by ``measure``), cannot label the round drawn as ``plan`` (None: it can): a link in it,
    or a row of a configuration the drawn plan does not measure. The device measures into
    ``data/measurements/<suite>-<gpu>`` of a copy of the checkout, a path anyone can work out, and the
    collector resumes whatever store is there: a pull request that committed a store at that path had
    its own rows archived with the round's, and ``finish`` read them as the keeper's (their names public,
    ``build-hidden`` left them out; the definition's noise floor came from every row, and the hidden
    board printed 24.2 % between visits, the writer's rows, for the round's 1.0 %: hundredth pass, side b)."""
    import os

    from perfgraphs.collect.plan import load_plan
    from perfgraphs.collect.store import MeasurementStore

    store = Path(store)
    links = [Path(top, n) for top, dirs, files in os.walk(store) for n in dirs + files if Path(top, n).is_symlink()]
    if store.is_symlink() or links:
        return f"{store} holds a link ({(links or [store])[0]}): a measured store is the collector's own folders and files"
    keys = {c.key for c in load_plan(plan).configs}
    foreign = sorted({f"{r['model']} ({r['key']})" for r in MeasurementStore(store).round_rows() if r["key"] not in keys})
    if foreign:
        return (f"{store} holds {len(foreign)} configuration(s) the drawn plan {plan.name} does not measure "
                f"({', '.join(foreign)[:300]}): not the round's store (a committed store at the device's path?)")
    return committed_at_device_path(store.name)


def root_modules_shadowing(top: Path) -> str | None:
    """Why the checkout at ``top`` tracks, at its root, a module Python would import in place of one of the
    standard library or of an installed distribution (None: it tracks none). ``python3 -m`` and
    ``python3 -`` put the working folder ahead of both, and ``plans/hidden-round.sh`` runs each step's
    Python from the checkout's root: a pull request after the draw that added a root ``json.py`` (no
    source of the package changed) ran it in the keeper's ``score``, which read ``keeper-key.pem`` from
    the keeper folder and signed a record of its choosing, verified against the committed key
    (hundred-and-seventh pass, side b). The script now runs Python with ``PYTHONSAFEPATH`` and refuses a
    round while this finds one, for the keeper's own ``python -m`` from the root."""
    import importlib.machinery
    import sys
    from importlib.metadata import packages_distributions

    listed = git(top, "ls-files", "-z")
    if listed is None:
        return f"cannot ask git which files {top} tracks"
    suffixes = sorted(importlib.machinery.all_suffixes(), key=len, reverse=True)
    names = set()
    for entry in filter(None, listed.split("\0")):
        first, _, rest = entry.partition("/")
        if rest and ("/" in rest or not rest.startswith("__init__.")):
            continue  # a package's own module or a deeper file: imported only through its package
        suffix = next((x for x in suffixes if (rest or first).endswith(x)), None)
        if suffix is not None:
            names.add(first if rest else first[: -len(suffix)])
    known = set(sys.stdlib_module_names) | set(packages_distributions())
    found = sorted(names & known - {__name__.partition(".")[0]})
    if not found:
        return None
    return (f"the checkout's root holds {', '.join(found[:3])}{' ...' if len(found) > 3 else ''}, which Python run "
            "from the root imports in place of the module of that name it was installed with: remove it")


def committed_at_device_path(store_name: str, repo: Path | None = None) -> str | None:
    """Why a round's store named ``store_name`` may hold rows the device resumed rather than measured
    (None: no commit of HEAD's history in ``repo``, the checkout ``finish`` runs in, ever held
    ``data/measurements/<store_name>``). The device
    copies the checkout's tracked files and resumes the store at that path: a pull request's store holding
    only configurations the drawn plan measures (guessed, or the whole of a small family) passes
    :func:`round_store_problem`'s plan check, the device skips those configurations as finished, and the
    round's labels are the writer's (hundredth pass's lead; the keeper's own stores are never committed)."""
    repo = Path.cwd() if repo is None else repo
    where = f"data/measurements/{store_name}"
    commit = git(repo, "log", "-1", "--format=%H", "HEAD", "--", f":(literal){where}")
    if commit is None:
        return f"cannot read the history of {repo} to check that no commit held {where}: run finish in the checkout"
    if commit.strip():
        return (f"{where} was committed in the repository (commit {commit.strip()[:12]}): the device resumes a store "
                "at that path, so the round's rows may be that commit's; remove it from the main line and measure again")
    return None


def build_hidden(ds: Dataset, cfg: Config, measurements: Path, labels_dir: Path, work: Path) -> Path:
    """Write ``<labels_dir>/<dataset>-<config>.parquet`` from a measurement store kept outside the
    repository: every successful measurement, with its graph exported into ``work/pool`` (the
    structures are new: that is the point of a hidden set), in the dataset's row format, all rows
    in one ``test`` split. Refuses a structure that is in any public part of the config."""
    from perfgraphs.data.build import build_labeled_config, dataset_folder
    from perfgraphs.pool.graph_pool import GraphPool
    from perfgraphs.data.load import load_build
    from perfgraphs.collect.store import load_measurements

    rows = [r for r in load_measurements(measurements).to_pylist() if r["status"] == "ok"
            and r["platform"] == cfg.platform]
    if not rows:
        raise HiddenLabelsError(f"{measurements} holds no successful {cfg.platform} measurement")
    problem = foreign_hardware(cfg, rows)
    if problem:
        raise HiddenLabelsError(f"{measurements}: {problem}")
    pool = GraphPool(Path(work) / "pool")
    pool.ensure(sorted({(r["family"], r["model"], r["image_size"]) for r in rows}))
    home = Path(work) / "home"
    build_labeled_config(ds, cfg, pool=pool, home=home, measurements=measurements)
    folder = dataset_folder(ds, cfg, home)
    table = pa.concat_tables([pq.read_table(p) for p in sorted(folder.rglob("*.parquet"))], promote_options="default")
    table = table.set_column(table.column_names.index("split"), "split", pa.array(["test"] * table.num_rows))
    public = load_build(ds, cfg).data
    shared = {h for part in public.values() for h in part["structure_hash"]} & set(
        table.column("structure_hash").to_pylist())
    if shared:  # another name for a public architecture (e.g. an alias in timm): not hidden, left out
        keep = [h not in shared for h in table.column("structure_hash").to_pylist()]
        dropped = sorted({m for m, k in zip(table.column("name").to_pylist(), keep) if not k})
        table = table.filter(pa.array(keep))
        print(f"note: left out {len(keep) - table.num_rows} row(s) of {len(shared)} structure(s) that are in the "
              f"public parts ({', '.join(map(str, dropped))[:200]})")
    table = leave_out_public(table)
    if table.num_rows == 0:
        raise HiddenLabelsError(f"every hidden structure is in the public parts of {ds.name}/{cfg.name} or in public "
                                "data: measure architectures outside the public plan")
    out = hidden_file(keeper_dir(labels_dir), ds.name, cfg.name)
    atomic_write_table(table.sort_by("sample_id"), out, sidecar=False)
    return out


_FLOOR_KEYS = ("between_visits_mape_pct", "between_visits_median_pct", "split_half_median_pct", "split_half_mean_pct")


def _floor_numbers(measured: object, target: str) -> dict[str, float] | None:
    """The four noise-floor numbers of ``target`` a definition's ``measured`` block states, or None
    unless it states every one as a finite number (a definition is a file anyone's pull request can
    edit: one number written as text stopped `leaderboard show` and `build` with an internal error,
    twenty-ninth pass of 2026-12-03)."""
    floors = measured.get("noise_floor") if isinstance(measured, dict) else None
    floor = floors.get(target) if isinstance(floors, dict) else None
    if not isinstance(floor, dict):
        return None
    numbers = {k: floor.get(k) for k in _FLOOR_KEYS}
    if not all(isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v) for v in numbers.values()):
        return None
    return {k: float(v) for k, v in numbers.items()}


def _round_measured(doc: dict, current_sha256: str | None, sha256: str) -> object:
    """The ``measured`` block of the round whose set is ``sha256``: the round of the definition that
    names that set (its ``sha256``), the current round's or an earlier one's, so a set's records keep
    their noise floor after the next round replaces its commitment; the current round names its set
    by the config's commitment only where it names none itself. The commitment alone decided: a pull
    request that wrote the earlier set's hash (``2ee8d095``) into ``dippm-cpu-torch-fp32.sha256``, one
    line, had that set's board print the round of 2026-12-05's noise floor (5.5 % between visits for
    its own 16.3 %) and that day's drift (0.62x) as its own (forty-eighth pass of 2026-12-05)."""
    rounds = definition_rounds(doc)
    for round_ in rounds:
        if isinstance(round_.get("sha256"), str) and round_["sha256"].lower() == sha256:
            return round_.get("measured")
    if "sha256" not in rounds[0] and current_sha256 == sha256:
        return rounds[0].get("measured")
    return None


def main_line_rewritten(results: Path | None = None, root: Path | None = None) -> str | None:
    """Why no hidden record read with the organisers' folder ``root`` (``leaderboard/hidden/``, and
    ``frozen/`` beside it), nor one of the results file ``results``, can be read, nor a hidden board's noise
    floor (None: the first-parent line holds the keeper's work): a commit reachable from HEAD off that
    line did the keeper's work there (:func:`perfgraphs.leaderboard.records.history.keeper_work_off_main_line`):
    a branch that merged main and landed by fast-forward hid it from every first-parent read (eighty-ninth
    pass). The cost: a merged pull request whose own intermediate commit touched the organisers' folders
    (refused on review) or took a hidden record out holds these boards unverified until the history is mended."""
    folder = (root or COMMITMENTS_DIR).absolute()
    place, head = repository_place(folder), head_commit(folder)
    if place is None or head is None or not place[1]:
        return None
    files: tuple[str, ...] = ()
    if results is not None and (at := repository_place(results.absolute().parent)) is not None and at[0] == place[0]:
        files = (in_folder(at, results.name),)
    parent = place[1].rpartition("/")[0]
    commit = keeper_work_off_main_line(place[0], head, (place[1], in_folder((place[0], parent), "frozen")), files)
    if commit is None:
        return None
    return (f"the commit {commit[:12]}, reachable from HEAD but not on its first-parent line, did the keeper's work "
            f"(changed {place[1]}/ or frozen/ beside it, or took a hidden-set record out of a results file): the main "
            "line was rewritten over it (a branch that merged main landed by fast-forward), and what the keeper "
            "stated or withdrew cannot be read; no hidden record is read until the history is mended")


def _definition_now(commitment: Path, path: Path) -> tuple[str | None, dict]:
    """A config's commitment hash and hidden-set definition as the files are now; ``(None, {})`` where
    either is gone, so that what the main line stated of a round is still read (:func:`_first_stated`,
    :func:`_first_stated_draw`). The boards asked for both files before reading any history, and one
    pull request that deleted ``dippm-cpu-torch-fp32.json`` (or its ``.sha256``), no record touched, took
    every noise floor, drift and draw sentence off the seven hidden boards of that config, the round of
    2026-12-05's "0.62x ... a score here includes that drift" too, each printed as "noise floor not
    measured for these labels", with no line saying why (hundred-and-twenty-second pass, side a)."""
    if not commitment.is_file() or not path.is_file():
        return None, {}
    return commitment_hash(commitment), read_definition(path)


def hidden_noise_text(dataset: str, config: str, target: str, sha256: str, root: Path | None = None) -> str | None:
    """The noise floor of a hidden set's labels of ``target``, as its definition records it from the
    set's own repeated visits (aggregates only), for the set whose commitment is ``sha256``; None
    when the definition states none, or not as numbers (the hidden labels never leave the keeper
    folder, so this is the only place a board can read their noise from)."""
    try:  # a record may name any dataset or config: a path too long for the file system names no set
        commitment = commitment_path(dataset, config, root)
        path = definition_path(dataset, config, root)
        current, doc = _definition_now(commitment, path)
        if not sha256:
            return None
        measured = _round_measured(doc, current, sha256.lower()) or {}
    except (OSError, ValueError, HiddenLabelsError, PlanError):
        return None
    if main_line_rewritten(root=root):  # what the keeper stated cannot be read (eighty-ninth pass)
        return None
    head, place = head_commit(path.parent), repository_place(path.parent)
    if head and place:  # the round's noise and drift as the main line first stated them (sixty-ninth pass)
        measured = _first_stated(place, head, path.name, sha256.lower(), target, measured)
    floor = _floor_numbers(measured, target)
    if floor is None:
        return None
    visits, configurations = measured.get("visits"), measured.get("configurations")
    visits = visits if isinstance(visits, int) and not isinstance(visits, bool) and visits > 0 else "several"
    configurations = configurations if isinstance(configurations, int) and not isinstance(configurations, bool) else "?"
    return (f"Noise floor of the hidden labels (their own {configurations} configurations, "
            f"each label the median of {visits} visits): two visits of one configuration differ by "
            f"{floor['between_visits_mape_pct']:.1f} % MAPE (median {floor['between_visits_median_pct']:.1f} %); "
            f"the label of half the visits against the other half's, median {floor['split_half_median_pct']:.1f} %, "
            f"mean {floor['split_half_mean_pct']:.1f} %.{_of_drawn(measured, configurations)}"
            f"{_host_speed_text(measured, target)}")


def _of_drawn(measured: dict, configurations: object) -> str:
    """A sentence where a round measured fewer configurations than its draw took (``configurations_drawn``,
    which ``hidden-round.sh finish`` writes), else "". Why: ``build-hidden`` keeps the configurations measured
    ``ok`` only, and those that timed out or failed left the round with no word on its board: a source plan's
    ``timeout_s`` set to 10 s would have dropped 23 of a draw's 118 slow configurations and moved a reference a
    rank (hundred-and-twenty-sixth pass, side a's lead)."""
    drawn = measured.get("configurations_drawn")
    if not isinstance(drawn, int) or isinstance(drawn, bool) or not isinstance(configurations, int) \
            or drawn <= configurations:
        return ""
    return (f" The round measured {configurations} of the {drawn} configurations its draw took: "
            f"{drawn - configurations} timed out or failed.")


def hidden_round_text(dataset: str, config: str, sha256: str, root: Path | None = None) -> str | None:
    """How many of a hidden round's drawn architectures it holds, as its definition states them
    (``architectures`` and ``left_out``, which ``hidden-round.sh finish`` writes), for the set whose
    commitment is ``sha256``; None where the round states no draw. ``build-hidden`` leaves out a drawn
    variant named in a public file, and a round that lost 20 of its 25 drawn architectures read on its
    board like any other, ``test n`` its only size (hundred-and-twelfth pass, side b's lead). The counts
    are the first main-line version's that stated them for the set (:func:`_first_stated_draw`), as the
    noise floor is: a later edit of ``left_out`` does not make a shrunk round read as whole."""
    try:
        commitment = commitment_path(dataset, config, root)
        path = definition_path(dataset, config, root)
        current, doc = _definition_now(commitment, path)
        if not sha256:
            return None
        rounds = definition_rounds(doc)
    except (OSError, ValueError, HiddenLabelsError, PlanError):
        return None
    if main_line_rewritten(root=root):  # what the keeper stated cannot be read (eighty-ninth pass)
        return None
    round_ = next((r for r in rounds if isinstance(r.get("sha256"), str) and r["sha256"].lower() == sha256.lower()),
                  rounds[0] if "sha256" not in rounds[0] and current == sha256.lower() else None)
    held, left = (round_ or {}).get("architectures"), (round_ or {}).get("left_out")
    head, place = head_commit(path.parent), repository_place(path.parent)
    if head and place:
        held, left = _first_stated_draw(place, head, path.name, sha256.lower()) or (held, left)
    if not isinstance(held, list) or not isinstance(left, list):
        return None
    drawn = len(held) + len(left)
    if not left:
        return f"The round holds all {drawn} architectures its draw took."
    return (f"The round holds {len(held)} of the {drawn} architectures its draw took: {len(left)} left out before "
            "measuring, named in public files.")


def _first_stated_draw(place: tuple[Path, str], head: str, name: str, sha256: str) -> tuple[list, list] | None:
    """(``architectures``, ``left_out``) of the set ``sha256`` from the first main-line version of the
    definition ``name`` that stated both as lists, or None where no committed version did. The file as
    it is was read alone, and one pull request that moved the 20 names of a shrunk round's ``left_out``
    into its ``architectures`` printed "The round holds all 25 architectures its draw took." on the board
    of its verified records (hundred-and-sixteenth pass, side c)."""
    for sha, stated in _stated_versions(place, head, name):
        round_ = json.loads(stated)
        if sha == sha256 and isinstance(round_.get("architectures"), list) and isinstance(round_.get("left_out"), list):
            return round_["architectures"], round_["left_out"]
    return None


@functools.lru_cache(maxsize=32)
def _stated_versions(place: tuple[Path, str], head: str, name: str) -> tuple[tuple[str, str], ...]:
    """(set sha256, its round as JSON) of every round of every main-line (``--first-parent``) version
    of the definition ``name``, oldest version first, at ``head``; a version's current round that names
    no set is the set of the commitment beside it then. A version that did not parse states nothing."""
    found = []
    pattern = re.sub(r"([*?\[\\])", r"\\\1", name)
    for commit, changed in main_line_versions(place[0], head, _folder_glob(place, pattern)):
        try:
            text = committed_text(place[0], commit, in_folder(place, changed))
            doc = json.loads(text) if text else None
            rounds = definition_rounds(doc) if isinstance(doc, dict) else []
        except (ValueError, RecursionError, PerfgraphsError):
            continue  # a version that did not parse stated nothing
        for i, round_ in enumerate(rounds):
            sha = round_.get("sha256")
            if i == 0 and not isinstance(sha, str):
                words = (committed_text(place[0], commit, in_folder(place, Path(changed).stem + ".sha256")) or "").split()
                sha = words[0] if words else None
            if isinstance(sha, str):
                found.append((sha.strip().lower(), json.dumps(round_)))
    return tuple(found)


def _stated_rounds(place: tuple[Path, str], head: str, name: str) -> tuple[tuple[str, str], ...]:
    """(set sha256, its round's ``measured`` block as JSON) of every round of every main-line version
    of the definition ``name`` that states one (:func:`_stated_versions`), oldest version first."""
    rounds = ((sha, json.loads(stated)) for sha, stated in _stated_versions(place, head, name))
    return tuple((sha, json.dumps(r["measured"])) for sha, r in rounds if isinstance(r.get("measured"), dict))


def _first_stated(place: tuple[Path, str], head: str, name: str, sha256: str, target: str, measured: object) -> object:
    """The ``measured`` block a hidden set's board prints for ``target``: its noise floor (with the visits
    and configurations) from the first main-line version of the definition that stated one for the set,
    its drift (``host_speed``) from the first that stated one; ``measured`` (the file as it is) for what
    no committed version stated. The file as it is was read alone, and one pull request that dropped the
    ``host_speed`` of the round of 2026-12-05 (or wrote its median as text, or 0.98 for 0.62) took the
    sentence "the machine ran ... at 0.62x ... a score here includes that drift" off the board of its
    verified, ranked records, and one that wrote a noise floor of 60 % printed the keeper's ranks as
    within the labels' noise (sixty-ninth pass of 2026-12-06): what a round measured is the keeper's,
    stated once."""
    stated = [json.loads(block) for sha, block in _stated_rounds(place, head, name) if sha == sha256]
    floor = next((m for m in stated if _floor_numbers(m, target) is not None), None)
    drift = next((m for m in stated if _host_speed_text(m, target)), None)
    if floor is None and drift is None:
        return measured
    found = dict(floor if floor is not None else measured if isinstance(measured, dict) else {})
    if drift is not None:
        found["host_speed"] = drift["host_speed"]
    return found


def _host_speed_text(measured: dict, target: str) -> str:
    """A round's measured drift of its machine against the public labels' (``host_speed``: public
    configurations measured again beside the round), as a sentence, or "" when none is stated as
    finite numbers: a CPU round scores every predictor on that drift too (the round of 2026-12-05
    ran public configurations at 0.62x their labels' latency, and every reference over-predicted
    its labels by about 1.5x)."""
    block = measured.get("host_speed")
    speed = block.get(target) if isinstance(block, dict) else None
    if not isinstance(speed, dict):
        return ""
    numbers = [speed.get(k) for k in ("median_ratio", "q1_ratio", "q3_ratio", "configurations")]
    if not all(isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v) and v > 0 for v in numbers):
        return ""
    median, q1, q3, n = numbers
    return (f" On the day of these labels the machine ran {int(n)} public configurations at {median:.2f}x "
            f"(quartiles {q1:.2f}-{q3:.2f}) their public labels' {target}: a score here includes that drift "
            f"of the machine, not only the predictor's error.")
