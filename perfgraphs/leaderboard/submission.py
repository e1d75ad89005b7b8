"""The submission format: a folder with ``submission.yaml`` and either predictor code or
predictions files, read into typed dataclasses.

Code route (tier *reproduced* on a public test set, *verified* on a hidden one: tiers.py)::

    my-method/
      submission.yaml          # metadata, below
      predictor.py             # class Predictor: __init__(target, seed, quick), fit(train, val), predict(graphs)

Predictions route (tier *self-reported*)::

    my-method/
      submission.yaml          # + predictions:, dataset: (name, config, target, version, content_hash), reported:
      predictions/seed-0.parquet ... seed-4.parquet   # columns sample_id, target, value

``load_submission`` collects every problem it finds (not just the first), each one line that says
how to fix it, and raises :class:`SubmissionError` with all of them.
"""

from __future__ import annotations

import ast
import math
import os
import re
import stat
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from perfgraphs.errors import PerfgraphsError
from perfgraphs.leaderboard.records import names  # the method/authors character set

EXAMPLE = "leaderboard/examples/ridge/submission.yaml"
REQUIRED = ("method", "authors", "contact", "code", "paper", "external_data", "division", "hyperparameters")
OPTIONAL = ("entry_point", "predictions", "dataset", "reported", "description")
DATASET_KEYS = ("name", "config", "target", "version", "content_hash")
DEFAULT_ENTRY_POINT = "predictor:Predictor"
# a full commit hash: a prefix names every commit that shares it, one made later for it among them,
# and `leaderboard reproduce` scores one commit (thirty-third pass of 2026-12-03)
_HEX = re.compile(r"^[0-9a-f]{40}$")


class SubmissionError(PerfgraphsError):
    """A submission that cannot be checked or scored; ``problems`` holds one line per problem."""

    def __init__(self, problems: list[str]):
        self.problems = list(problems)
        super().__init__("; ".join(self.problems))


@dataclass(frozen=True)
class DatasetRef:
    """What the submission was made for; every field may be None for code submissions (the
    harness supplies the dataset), all are required for predictions files."""

    name: str | None = None
    config: str | None = None
    target: str | None = None
    version: str | None = None
    content_hash: str | None = None


@dataclass(frozen=True)
class Hyperparameters:
    grid: dict[str, list] = field(default_factory=dict)  # the values searched on the validation part
    chosen: dict[str, Any] = field(default_factory=dict)  # the values of the scored model


@dataclass(frozen=True)
class ReportedScore:
    """The authors' own MAPE over seeds; the checker recomputes it from the per-seed scores."""

    mape_pct_mean: float
    mape_pct_std: float


@dataclass(frozen=True)
class SubmissionMeta:
    method: str
    authors: str
    contact: str
    code_url: str
    code_commit: str  # 40 hex digits (resolved from git when submission.yaml says "auto")
    paper: str  # URL or citation; "" when there is none
    external_data: bool
    division: str  # "closed" or "open"
    hyperparameters: Hyperparameters
    dataset: DatasetRef
    entry_point: str | None = None  # "module:Class" relative to the folder (code route)
    predictions: str | None = None  # folder of seed-<k>.parquet files (predictions route)
    reported: ReportedScore | None = None


@dataclass(frozen=True)
class Submission:
    root: Path
    meta: SubmissionMeta

    @property
    def kind(self) -> str:
        return "predictions" if self.meta.predictions is not None else "code"

    def prediction_files(self) -> dict[int, Path]:
        """seed → file, for every ``seed-<int>.parquet`` in the predictions folder."""
        folder = self.root / (self.meta.predictions or "")
        out = {}
        for path in sorted(folder.glob("seed-*.parquet")):
            m = re.fullmatch(r"seed-(-?\d+)\.parquet", path.name)
            if m:
                out[int(m.group(1))] = path
        return out


def _text(doc: dict, key: str, problems: list[str], what: str) -> str:
    value = doc.get(key)
    if value is None or (isinstance(value, str) and not value.strip()):
        problems.append(f"submission.yaml: missing required field '{key}' ({what})")
        return ""
    if not isinstance(value, (str, int, float)):
        problems.append(f"submission.yaml: '{key}' must be text ({what}), got {type(value).__name__}")
        return ""
    return str(value).strip()


def _git_commit(root: Path) -> str | None:
    from perfgraphs.leaderboard.records.history import git

    out = (git(root, "rev-parse", "--verify", "HEAD^{commit}") or "").strip()
    return out if _HEX.match(out) else None


def _parse_code(doc: dict, root: Path, problems: list[str]) -> tuple[str, str]:
    code = doc.get("code")
    if not isinstance(code, dict):
        if "code" in doc:
            problems.append("submission.yaml: 'code' must be a mapping with 'url' and 'commit' "
                            "(code: {url: https://..., commit: <40-hex git commit>})")
        return "", ""
    url = str(code.get("url") or "").strip()
    if not re.match(r"^(https?://|git@|repo:)\S+$", url):
        problems.append(f"submission.yaml: code.url must say where the code is (an https:// or git@ URL, or "
                        f"repo:<path> for code inside the perfgraphs repository), got {url or 'nothing'!r}")
    commit = str(code.get("commit") or "").strip().lower()
    if commit == "auto":
        resolved = _git_commit(root)
        if resolved is None:
            problems.append(f"submission.yaml: code.commit is 'auto' but {root} is not inside a git repository: "
                            "write the commit hash of the submitted code")
        commit = resolved or ""
    elif not _HEX.match(commit):
        problems.append(f"submission.yaml: code.commit must be a full git commit hash (40 hex digits: a prefix can "
                        f"name another commit made later) or 'auto', "
                        f"got {commit or 'nothing'!r}")
    problems += _shown_problems("code.url", url)
    return url, commit


def _shown_problems(key: str, value) -> list[str]:
    """The record's rule for a field its page shows as written (paper, code_url: printable ASCII of at
    most record_check.MAX_DESCRIPTIVE characters), checked here: a citation with an accent or a line
    break passed `check`, and `submit` refused the record after scoring every seed (twenty-seventh
    pass of 2026-12-03)."""
    from perfgraphs.leaderboard.records.record_check import MAX_DESCRIPTIVE

    if not isinstance(value, str) or re.fullmatch(rf"[ -~]{{0,{MAX_DESCRIPTIVE}}}", value.strip()):
        return []
    return [f"submission.yaml: {key} must be printable ASCII of at most {MAX_DESCRIPTIVE} characters (the record "
            f"shows it as written), got {len(value)} characters: transliterate it (Müller as Mueller) or link to it"]


# a hyper-parameter's name, as MLflow's run logs it (``hp.<name>``): a name it refuses (``a!b``) had
# the record appended and its MLflow run end failed with a half-logged run (thirty-seventh pass)
_HYPERPARAMETER_NAME = re.compile(r"[A-Za-z0-9_.\-]{1,64}")


def _parse_hyperparameters(doc: dict, problems: list[str]) -> Hyperparameters:
    hp = doc.get("hyperparameters")
    fix = "(hyperparameters: {grid: {name: [values searched]}, chosen: {name: value used}}; {} for none)"
    if not isinstance(hp, dict) or set(hp) - {"grid", "chosen"}:
        if "hyperparameters" in doc:
            problems.append(f"submission.yaml: 'hyperparameters' must have exactly 'grid' and 'chosen' {fix}")
        return Hyperparameters()
    grid, chosen = hp.get("grid") or {}, hp.get("chosen") or {}
    if not isinstance(grid, dict) or not all(isinstance(v, list) and v for v in grid.values()):
        problems.append(f"submission.yaml: hyperparameters.grid must map each name to a non-empty list {fix}")
        return Hyperparameters()
    if not isinstance(chosen, dict):
        problems.append(f"submission.yaml: hyperparameters.chosen must map names to values {fix}")
        return Hyperparameters()
    odd = [str(name)[:40] for name in grid if not _HYPERPARAMETER_NAME.fullmatch(str(name))]
    if odd:  # MLflow takes a param key of letters, digits and _-. only: the record stood, its run failed
        problems.append(f"submission.yaml: hyper-parameter name(s) {', '.join(map(repr, odd[:3]))} must be 1 to 64 "
                        "letters, digits, '_', '-' or '.' (as MLflow names a parameter)")
        return Hyperparameters()
    for name, value in chosen.items():
        if name not in grid:
            problems.append(f"submission.yaml: hyperparameters.chosen.{name!r} is not in the grid: add the values "
                            f"searched for {name!r} to hyperparameters.grid")
        elif value not in grid[name]:
            problems.append(f"submission.yaml: hyperparameters.chosen.{name!r} = {value!r} is not one of the grid "
                            f"values {grid[name]}: report the value selected on the validation part")
    missing = sorted(set(grid) - set(chosen))
    if missing:
        problems.append(f"submission.yaml: hyperparameters.chosen lacks {', '.join(map(str, missing))}: give the value "
                        "used for every searched hyper-parameter")
    from perfgraphs.leaderboard.records.record_check import hyperparameters_problem

    # what the record will show on its page, checked before anything runs (twenty-sixth pass)
    if why := hyperparameters_problem(dict(chosen)):
        problems.append(f"submission.yaml: hyperparameters.chosen: {why}")
    problems += _logged_value_problems(chosen)
    return Hyperparameters(dict(grid), dict(chosen))


def _logged_value_problems(chosen: dict) -> list[str]:
    """Chosen values MLflow would cut: the page's ``k=v`` text is bounded (4,096 characters), but the
    run logs a list as JSON, which escapes every ``"``: ``chosen: {q: ['"' * 3000]}`` passed, the
    record landed whole and its run's ``hp.q`` was cut from 6,004 characters to 6,000, no longer
    JSON (thirty-eighth pass). Checked before anything runs, in one line."""
    from perfgraphs.evaluation.mlflow_log import MLFLOW_PARAM_CHARS, param_text

    logged = {name: len(str(param_text(value))) for name, value in chosen.items()}
    long = [name for name, n in logged.items() if n > MLFLOW_PARAM_CHARS]
    return [f"submission.yaml: hyperparameters.chosen.{long[0][:40]!r} is {logged[long[0]]} characters as MLflow "
            f"logs it (JSON), over its {MLFLOW_PARAM_CHARS}: give a shorter value"] if long else []


def _parse_dataset(doc: dict, required: bool, problems: list[str]) -> DatasetRef:
    ds = doc.get("dataset")
    if ds is None:
        if required:
            problems.append("submission.yaml: predictions files need 'dataset' with " + ", ".join(DATASET_KEYS)
                            + " (the values `perfgraphs datasets info` prints for the data you predicted)")
        return DatasetRef()
    if not isinstance(ds, dict):
        problems.append("submission.yaml: 'dataset' must be a mapping (" + ", ".join(DATASET_KEYS) + ")")
        return DatasetRef()
    unknown = sorted(set(ds) - set(DATASET_KEYS))
    if unknown:
        problems.append(f"submission.yaml: unknown dataset field(s) {', '.join(unknown)} (allowed: "
                        + ", ".join(DATASET_KEYS) + ")")
    if required:
        for key in DATASET_KEYS:
            if not ds.get(key):
                problems.append(f"submission.yaml: missing required field 'dataset.{key}' (predictions files must "
                                "name the exact dataset version they were made for)")
    return DatasetRef(**{k: (str(ds[k]) if ds.get(k) is not None else None) for k in DATASET_KEYS})


def _parse_reported(doc: dict, required: bool, problems: list[str]) -> ReportedScore | None:
    rep = doc.get("reported")
    fix = "(reported: {mape_pct: {mean: <mean over seeds>, std: <sample std over seeds>}})"
    if rep is None:
        if required:
            problems.append(f"submission.yaml: predictions files need 'reported' {fix}")
        return None
    try:
        m = rep["mape_pct"]
        return ReportedScore(float(m["mean"]), float(m["std"]))
    except (TypeError, KeyError, ValueError):
        problems.append(f"submission.yaml: 'reported' is malformed {fix}")
        return None


MAX_FILE_BYTES = 16 * 1024 * 1024  # a Python file or submission.yaml larger than this is refused unread


class _NotARegularFile(Exception):
    pass


def read_regular(path: Path, limit: int = MAX_FILE_BYTES) -> bytes:
    """The bytes of a regular file of the submission, refusing what is not one: a symlink (it
    could name /dev/zero or a file outside the folder), a FIFO (reading it would hang the harness)
    or a device, and anything over ``limit`` bytes. The harness reads the folder on the host, so
    it opens nothing it has not checked."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
    except OSError as exc:
        raise _NotARegularFile(f"{path.name}: cannot be opened as a regular file ({exc.strerror})") from None
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise _NotARegularFile(f"{path.name} is not a regular file")
        if info.st_size > limit:
            raise _NotARegularFile(f"{path.name} is {info.st_size} bytes (at most {limit})")
        with os.fdopen(fd, "rb", closefd=False) as f:
            return f.read(limit + 1)[:limit]
    finally:
        os.close(fd)


# submission.yaml is metadata, never data. Its limits are checked while the YAML is composed
# into nodes, before any Python object is built from them: PyYAML composes and constructs
# recursively (50,000 nested '[' is a RecursionError) and int() refuses a literal of more than
# 4300 digits (a ValueError), each of which was an internal error instead of one line.
MAX_YAML_BYTES = 64 * 1024
MAX_YAML_DEPTH = 32  # nested mappings and sequences
MAX_YAML_NODES = 10_000  # keys and values, mappings and sequences included
MAX_YAML_SCALAR_CHARS = 4096  # one key or value
MAX_YAML_NUMBER_CHARS = 100  # one integer or float literal (100 digits is far beyond any hyper-parameter)
_TAG = "tag:yaml.org,2002:"


class _YamlLimit(Exception):
    """submission.yaml over one of the limits above; the message is its one line."""


class _NoAliasLoader(yaml.SafeLoader):
    """submission.yaml without anchors and aliases (an alias bomb of a few kB expands to a record of
    gigabytes: the metadata is copied into the record), within the ``MAX_YAML_*`` limits, with
    text keys only (``1:`` or ``yes:`` as a key is an int or a bool, which no field name is), and
    with a value that cannot be converted (``!!int abc``, the date ``2020-13-45``) reported as a
    YAML error with its line rather than a bare ValueError."""

    def __init__(self, stream):
        super().__init__(stream)
        self._depth = 0
        self._nodes = 0

    def compose_node(self, parent, index):
        event = self.peek_event()
        line = event.start_mark.line + 1
        if isinstance(event, yaml.AliasEvent):
            raise yaml.YAMLError(f"aliases are not allowed in submission.yaml (line {line}): write the values out")
        self._nodes += 1
        if self._nodes > MAX_YAML_NODES:
            raise _YamlLimit(f"more than {MAX_YAML_NODES} keys and values (line {line}): submission.yaml holds "
                             "metadata, not data")
        if not isinstance(event, (yaml.MappingStartEvent, yaml.SequenceStartEvent)):
            return super().compose_node(parent, index)
        if self._depth >= MAX_YAML_DEPTH:
            raise _YamlLimit(f"nested more than {MAX_YAML_DEPTH} levels deep (line {line}): submission.yaml holds "
                             "flat metadata")
        self._depth += 1
        try:
            return super().compose_node(parent, index)
        finally:
            self._depth -= 1

    def compose_scalar_node(self, anchor):
        node = super().compose_scalar_node(anchor)
        line = node.start_mark.line + 1
        if node.tag in (_TAG + "int", _TAG + "float") and len(node.value) > MAX_YAML_NUMBER_CHARS:
            raise _YamlLimit(f"a number of {len(node.value)} characters at line {line} (at most "
                             f"{MAX_YAML_NUMBER_CHARS}): write a shorter number, or quote it to keep it as text")
        if len(node.value) > MAX_YAML_SCALAR_CHARS:
            raise _YamlLimit(f"a value of {len(node.value)} characters at line {line} (at most "
                             f"{MAX_YAML_SCALAR_CHARS}): shorten it, or link to the text")
        return node

    def compose_mapping_node(self, anchor):
        node = super().compose_mapping_node(anchor)
        if node.tag == _TAG + "map":
            for key, _ in node.value:
                if key.tag in (_TAG + "str", _TAG + "merge"):
                    continue
                line = key.start_mark.line + 1
                if isinstance(key, yaml.ScalarNode):
                    raise _YamlLimit(f"the key {key.value[:40]!r} at line {line} reads as "
                                     f"{key.tag.removeprefix(_TAG)}, not text: quote it")
                raise _YamlLimit(f"a {key.tag.removeprefix(_TAG)} used as a key at line {line}: keys are field names")
        return node

    def construct_object(self, node, deep=False):
        """PyYAML's construction, a value it cannot build being a YAML error at its line: ``!!bool maybe``
        (a KeyError in PyYAML's table of booleans) and ``!!timestamp abc`` (an AttributeError on the
        date pattern's failed match) stopped `check` with an internal error (eighty-eighth pass)."""
        try:
            return super().construct_object(node, deep)
        except (ValueError, TypeError, OverflowError, KeyError, AttributeError) as exc:
            what = repr(node.value[:40]) if isinstance(node, yaml.ScalarNode) else "a value"
            raise yaml.constructor.ConstructorError(
                None, None, f"{what} is not a valid {node.tag.removeprefix(_TAG)} ({exc}): quote it to keep it as "
                "text", node.start_mark) from None


# Parsing is the host's work, before anything is isolated: CPython's parser took 53 s and 4.7 GB
# for a 9.5 MB file of one list literal (twenty-seventh pass of 2026-12-03), so the static checks run
# in a forked child within these (honest code parses at megabytes a second, in a few hundred MB).
MAX_PARSE_SECONDS = 120
MAX_PARSE_MEMORY = 2 * 1024**3


def _check_code(root: Path, entry_point: str, problems: list[str]) -> None:
    """Static checks of the code route, without running any of it (:func:`_code_problems`), in a
    forked child within ``MAX_PARSE_SECONDS`` and ``MAX_PARSE_MEMORY`` more than this process holds."""
    from perfgraphs.leaderboard.isolated import ChildFailed, in_child

    try:
        problems += in_child(_code_problems, root, entry_point, MAX_PARSE_MEMORY, timeout=MAX_PARSE_SECONDS)
    except ChildFailed as exc:
        problems.append(f"the submission's Python files could not be parsed within {MAX_PARSE_SECONDS} s and "
                        f"{MAX_PARSE_MEMORY // 2**20} MB ({exc}): a submission's code is source, not data (ship "
                        "tables as data files, which the harness reads)")


def _data_limit(extra: int) -> None:
    """This process may allocate ``extra`` bytes more than it has (RLIMIT_DATA): past it, MemoryError."""
    import resource

    try:
        status = Path("/proc/self/status").read_text()
        used = int(re.search(r"VmData:\s+(\d+) kB", status).group(1)) * 1024
        _, hard = resource.getrlimit(resource.RLIMIT_DATA)
        limit = used + extra if hard == resource.RLIM_INFINITY else min(used + extra, hard)
        resource.setrlimit(resource.RLIMIT_DATA, (limit, hard))
    except (OSError, ValueError, AttributeError):  # not Linux: the time limit holds all the same
        pass


def _code_problems(root: Path, entry_point: str, memory: int | None = None) -> list[str]:
    """Every Python file parses, and the entry point's module binds the class name at top level;
    with ``memory``, within that many bytes more than the process holds (run in a forked child)."""
    problems: list[str] = []
    if memory is not None:
        _data_limit(memory)
    try:
        _parse_sources(root, entry_point, problems)
    except (MemoryError, RecursionError) as exc:  # RecursionError: `1+1+…` 300,000 times, an internal error before
        how = f"in {(memory or 0) // 2**20} MB" if isinstance(exc, MemoryError) else "(nested deeper than the parser goes)"
        problems.append(f"the submission's Python files could not be parsed {how} ({type(exc).__name__}): a "
                        "submission's code is source, not data (ship tables as data files, which the harness reads)")
    return problems


# ``module:Class`` in ASCII: ``\w`` alone matched any script, and `predict\u043er:Predictor` (a Cyrillic
# ``о``) in submission.yaml read as `predictor:Predictor` while the harness imported the other file
# of the look-alike name beside an honest predictor.py (fortieth pass of 2026-12-04)
ENTRY_POINT = re.compile(r"[A-Za-z_][A-Za-z0-9_.]*:[A-Za-z_][A-Za-z0-9_]*", re.ASCII)


def python_sources(root: Path) -> list[Path]:
    """Every ``.py`` file of the submission, in order: those under a folder (or of a name) starting
    with a dot too. They were skipped, yet the sandbox's copy holds them and Python imports them
    (``sys.path.insert(0, ".lib")``): a lone carriage return in ``.lib/helpers.py`` hid a line of code
    from every check below (forty-first pass of 2026-12-04)."""
    return sorted(root.rglob("*.py"))


def _parse_sources(root: Path, entry_point: str, problems: list[str]) -> None:
    """:func:`_code_problems`' checks, each problem appended to ``problems``."""
    imported: set[str] = set()
    for path in python_sources(root):
        try:
            source = read_regular(path)
        except _NotARegularFile as exc:
            problems.append(f"{exc}: a submission holds regular files only")
            continue
        if (codec := _read_otherwise(source)) is not None:
            problems.append(f"{path.relative_to(root)}: its coding declaration ({codec}) makes Python read it "
                            "otherwise than a UTF-8 viewer shows it: save it as UTF-8 and drop the declaration")
        if (deceiving := _deceiving_characters(source)) is not None:
            problems.append(f"{path.relative_to(root)}: holds {deceiving}, which shows a reviewer other code than "
                            "Python runs: remove it (write such characters as escapes in strings)")
        if (shadow := _shadowed(path)) is not None:
            problems.append(f"{path.relative_to(root)}: Python would import {shadow} beside it in its place: "
                            "remove one of them (the code that runs must be the source a reviewer reads)")
        try:
            imported |= _imported_names(ast.parse(source, filename=str(path)))
        except SyntaxError as exc:
            problems.append(f"{path.relative_to(root)}:{exc.lineno}: SyntaxError: {exc.msg}: fix the syntax "
                            "(python -m py_compile shows the same error)")
        except ValueError as exc:  # null bytes
            problems.append(f"{path.relative_to(root)}: cannot be parsed ({exc})")
    problems += zipped_modules(root)
    problems += extension_modules(root)
    problems += library_names(root)
    problems += package_metadata(root)
    problems += yaml_python_tags(root)
    pickle_problems, pickled = shipped_pickles(root)
    if ENTRY_POINT.fullmatch(entry_point):  # else its own line below
        problems += unimported_modules(root, entry_point, imported | pickled)
    problems += pickle_problems
    if not ENTRY_POINT.fullmatch(entry_point):
        problems.append(f"submission.yaml: entry_point must look like 'module:ClassName' in ASCII letters, digits "
                        f"and _, got {entry_point!r}")
        return
    module, cls = entry_point.split(":")
    base = root.joinpath(*module.split("."))
    source = base.with_suffix(".py") if _there(base.with_suffix(".py")) else base / "__init__.py"
    if not _there(source):
        problems.append(f"entry point module {module!r} not found: add {module.replace('.', '/')}.py to "
                        f"{root} or set entry_point in submission.yaml")
        return
    try:
        tree = ast.parse(read_regular(source))
    except (SyntaxError, ValueError, _NotARegularFile):
        return  # reported above
    bound = set()
    for node in tree.body:
        if isinstance(node, (ast.ClassDef, ast.FunctionDef)):
            bound.add(node.name)
        elif isinstance(node, ast.Assign):
            bound.update(t.id for t in node.targets if isinstance(t, ast.Name))
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            bound.update((a.asname or a.name).split(".")[0] for a in node.names)
    if cls not in bound:
        problems.append(f"{source.relative_to(root)} defines no {cls!r}: define the predictor class there or "
                        "point entry_point at it ('module:ClassName')")


def shipped_pickles(root: Path) -> tuple[list[str], set[str]]:
    """:func:`perfgraphs.leaderboard.pickle_scan.shipped_pickles`: the lines for pickles whose loading
    would call what no source shows, and the modules the pickles name."""
    from perfgraphs.leaderboard.pickle_scan import shipped_pickles as scan

    return scan(root)


def yaml_python_tags(root: Path) -> list[str]:
    """One line for each file of the submission, any name, holding a YAML Python tag that
    :func:`perfgraphs.leaderboard.pickle_scan.yaml_tag_problem` refuses: PyYAML's full loaders
    (``yaml.Loader``, ``unsafe_load``) import and call what the tag names, and a ``prior.yaml`` holding
    ``!!python/object/apply:builtins.exec`` ran a text file's lines under a median (hundred-and-fifteenth
    pass, side b). Every file holding a ``!`` (every tag starts with one, in any encoding PyYAML reads) is
    composed as YAML, which builds nodes and calls nothing; the sandbox's guard
    (``sandbox.unpickling.restrict_yaml_python_tags``) refuses the same where a file is built otherwise."""
    from perfgraphs.leaderboard.regular_files import regular_files

    problems = []
    for path in regular_files(root):
        try:
            data = path.read_bytes()
        except OSError:
            continue
        if b"!" in data and (why := _yaml_tag_refused(root, data)) is not None:
            problems.append(f"{path.relative_to(root)}: a YAML Python tag that {why}, which PyYAML's full loaders "
                            "would run: ship plain YAML, read with yaml.safe_load")
    return problems


def _yaml_tag_refused(root: Path, data: bytes) -> str | None:
    """Why the first refused Python tag among ``data``'s YAML documents is refused (None: none is, or no
    document composes; those before a broken one count, as a loader builds them first)."""
    from perfgraphs.leaderboard.pickle_scan import yaml_tag_problem

    try:
        for document in yaml.compose_all(data, Loader=yaml.SafeLoader):
            seen, nodes = set(), [document]
            while nodes:
                node = nodes.pop()
                if node is None or id(node) in seen:
                    continue
                seen.add(id(node))
                if (why := yaml_tag_problem(root, node.tag)) is not None:
                    return why
                if isinstance(node, yaml.MappingNode):
                    nodes.extend(part for pair in node.value for part in pair)
                elif isinstance(node, yaml.SequenceNode):
                    nodes.extend(node.value)
    except (yaml.YAMLError, RecursionError, UnicodeDecodeError):
        return None
    return None


def extension_modules(root: Path) -> list[str]:
    """One line for each file (or link) of the submission, in any folder, whose name Python's import
    system would load as a compiled extension module (``.so``, ``.abi3.so``,
    ``.cpython-311-x86_64-linux-gnu.so``): its code is machine code no review reads. The fortieth pass
    refused one only beside a ``.py`` of its name; a lone ``pickletools.cpython-311-x86_64-linux-gnu.so``
    beside a median that imports nothing of the folder was imported by the sandbox's own unpickling
    guard (the folder is first on ``sys.path``, and ``pickle_scan``'s ``import pickletools`` came after),
    and its code ran before the predictor was (forty-ninth pass of 2026-12-05). One beside a ``.py`` of
    its name is :func:`_shadowed`'s to refuse, in that file's line. Machine code by any name is refused
    too, as is a zip holding a library (:func:`_native_code`, fifty-sixth pass)."""
    import importlib.machinery

    from perfgraphs.leaderboard.regular_files import regular_files

    suffixes = tuple(importlib.machinery.EXTENSION_SUFFIXES)
    problems = []
    for folder, _, files in os.walk(root):
        for name in sorted(files):
            suffix = next((x for x in suffixes if name.endswith(x)), None)
            if suffix is not None and not Path(folder, name[: -len(suffix)] + ".py").exists():  # else `_shadowed`'s line
                where = Path(folder, name).relative_to(root)
                problems.append(f"{where}: a compiled extension module, which Python imports from the folder "
                                "(in place of a module of its name) and no review reads: ship the code as plain "
                                ".py files")
    problems += [f"{path.relative_to(root)}: {what}, machine code no review reads (an AOTInductor package's "
                 "library runs when torch loads it): ship the code as plain .py files and the weights as data"
                 for path in regular_files(root) if (what := _native_code(path, suffixes))]
    return problems


ELF_MAGIC = b"\x7fELF"


def _native_code(path: Path, suffixes: tuple[str, ...]) -> str | None:
    """What makes one file machine code whatever its name (extension_modules judges the names): an
    ELF file (``ctypes``, ``torch.ops.load_library`` and torch's AOTInductor runner load one by any
    name), or a zip holding a library: ``torch._inductor.aoti_load_package("scaler.pt2")`` extracts
    the package's ``data/aotinductor/model/*.so`` and ``dlopen``s it, and a median predictor loading
    one ran its constructor in the sandbox (fifty-sixth pass of 2026-12-05)."""
    import zipfile
    import zlib

    unreadable = (OSError, zipfile.BadZipFile, ValueError, EOFError, RuntimeError, NotImplementedError, zlib.error)
    try:
        with open(path, "rb") as file:
            if file.read(4) == ELF_MAGIC and not any(path.name.endswith(x) for x in suffixes):  # named: above
                return "an ELF file (a compiled library or program)"
        with zipfile.ZipFile(path) as archive:
            for info in archive.infolist():
                if info.filename.rstrip("/").endswith(suffixes):
                    return f"a zip archive holding a compiled library ({info.filename[:80]})"
                try:
                    with archive.open(info) as member:
                        head = member.read(4)
                except unreadable:  # encrypted, corrupt deflate: the pickle scan refuses such a member; read on
                    continue
                if head == ELF_MAGIC:
                    return f"a zip archive holding an ELF file ({info.filename[:80]})"
    except unreadable:
        return None  # no zip to Python's reader: the pickle scan's to judge
    return None


def library_names(root: Path) -> list[str]:
    """One line for each module (``name.py``) or package (``name/__init__.py``) at the top of the
    submission whose name a standard, built-in or installed module has. The sandbox child puts the
    folder first on ``sys.path``, so wherever the harness, a library or an unpickler imports that name
    after that point (nothing had yet), Python takes the folder's file: a ``pickletools.py`` beside a
    median that imports nothing of the folder ran when the unpickling guard imported ``pickle_scan``,
    and a ``torch/`` package ran when a ``prior.pkl`` naming ``torch._utils._rebuild_tensor_v2`` (in
    torch's ``weights_only`` allow-list, passed by the scan and the guard) was loaded (fiftieth pass of
    2026-12-05; the forty-ninth refused only the compiled form). A folder of Python without an
    ``__init__.py`` counts too (:func:`_top_module`). A folder the predictor puts on ``sys.path`` itself
    does so in the source a review reads."""
    from perfgraphs.leaderboard.pickle_scan import library_module

    problems = []
    for entry in sorted(os.listdir(root)):
        if (name := _top_module(root, entry)) is None:
            continue
        shown = entry if entry.endswith(".py") else \
            f"{entry}/__init__.py" if _there(root / entry / "__init__.py", os.path.lexists) else f"{entry}/"
        if name.isidentifier() and library_module(root, name):
            problems.append(f"{shown}: takes the name of a standard or installed module ({name}), which Python "
                            "then imports from the folder wherever the harness, a library or an unpickler imports "
                            "that name: rename it (the code that runs must be the source a reviewer reads)")
    return problems


# the names ``importlib.metadata`` (and its backport) reads as an installed distribution's metadata in
# every folder on ``sys.path``, compared as it compares them (lower-cased)
METADATA_SUFFIXES = (".dist-info", ".egg-info")


def package_metadata(root: Path) -> list[str]:
    """One line for each entry at the top of the submission that ``importlib.metadata`` reads as an
    installed distribution (a name ending ``.dist-info`` or ``.egg-info``, in any case). The sandbox
    child puts the folder first on ``sys.path``, and libraries load the entry points such metadata
    declares as plugins, calling them: a ``cpu_extras-1.0.dist-info/entry_points.txt`` (a data file to
    every other check) naming ``2024_scripts.hook:run`` under ``[torch.backends]``, beside a median whose
    only import is torch, had ``import torch`` call a function of a helper script nothing imports, in a
    folder whose name is no Python name (which no check judges as a module): sixtieth pass of 2026-12-05.
    Such metadata is build output (``pip install -e .``), no part of a predictor."""
    return [f"{entry}: package metadata, which Python's importlib.metadata reads from every folder on sys.path "
            "(the sandbox puts this one first) and whose entry points libraries load and call as plugins (torch "
            "does on import): remove it (build output is no part of a predictor)"
            for entry in sorted(os.listdir(root)) if entry.lower().endswith(METADATA_SUFFIXES)]


def _imported_names(tree: ast.AST) -> set[str]:
    """The top-level module names one source imports: ``import x.y``, ``from x import y`` (absolute),
    and ``importlib.import_module("x")`` / ``__import__("x")`` with a literal name."""
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update(alias.name.split(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names.add(node.module.split(".")[0])
        elif isinstance(node, ast.Call) and node.args and isinstance(node.args[0], ast.Constant) \
                and isinstance(node.args[0].value, str) \
                and getattr(node.func, "attr", getattr(node.func, "id", "")) in ("import_module", "__import__"):
            names.add(node.args[0].value.split(".")[0])
    return names


def unimported_modules(root: Path, entry_point: str, imported: set[str]) -> list[str]:
    """One line for each importable name at the top of the submission (``name.py``, a package, or a
    folder holding ``.py`` files, which Python imports as a namespace package) that neither the entry
    point, any of the folder's sources nor any of its pickles (``imported``) imports. The sandbox child puts the folder first on
    ``sys.path``: a name no library installed here has (:func:`library_names` refuses those) is still
    one a library may try as an optional dependency, and Python then takes the folder's file: an
    ``opt_einsum.py`` ran when a median predictor did nothing but ``import torch`` (fiftieth pass of
    2026-12-05). Code the folder's own sources import is code a review reads as the predictor's."""
    from perfgraphs.leaderboard.pickle_scan import library_module

    imported = imported | {entry_point.split(":")[0].split(".")[0]}  # ``imported``: what the sources import
    problems = []
    for entry in sorted(os.listdir(root)):
        if (name := _top_module(root, entry)) is None:
            continue
        if name.isidentifier() and name not in imported and not library_module(root, name):  # that: library_names
            problems.append(f"{entry}: a module at the top of the folder that none of its sources imports, which "
                            f"Python would run wherever a library imports the name {name} (an optional dependency): "
                            "import it from the predictor, or move it into a folder whose name is no Python name "
                            "(scripts-train/, say)")
    return problems


def _linked_package(path: Path, root: Path) -> bool:
    """Whether a link at the top of the folder leads to a folder Python may import as a package: the
    copy the sandbox runs keeps links and Python follows them. A link ``opt_einsum -> scripts-train``
    (a helper scripts' folder, no Python name) beside a median whose only import is torch passed every
    check, and torch's optional ``import opt_einsum`` ran ``scripts-train/__init__.py`` (fifty-eighth pass
    of 2026-12-05). One to a folder outside the submission counts too: the sandbox sees other files
    there. (A link leading nowhere here is refused as no regular file.)"""
    if not _there(path, Path.is_symlink):
        return False
    try:
        target = path.resolve(strict=True)
    except (OSError, RuntimeError, ValueError):
        return False  # refused elsewhere: a submission holds no link that leads nowhere
    if not target.is_dir():
        return False  # a file: imported only under a .py name, which the checks refuse as a link
    return not target.is_relative_to(root.resolve()) or _holds_python(target, root)


def _top_module(root: Path, entry: str) -> str | None:
    """The name Python imports the entry ``entry`` at the top of the folder under, None where it imports
    none: a ``name.py``, a package ``name/__init__.py``, a folder holding Python without an ``__init__.py``
    (a namespace package), or a link to a folder Python may import. One judgement for both refusals of
    top-level names: :func:`library_names` judged only the first two, and a ``cuda/bindings/__init__.py``
    (no ``cuda/__init__.py``) beside a median whose only import is torch passed; Python merges every
    ``cuda/`` folder on ``sys.path`` into the installed namespace package ``cuda``, the submission's
    first, and torch's ``from cuda.bindings import driver`` ran the folder's file (fifty-ninth pass of
    2026-12-05)."""
    path = root / entry
    if entry.endswith(".py") and _there(path, os.path.lexists):
        return entry[: -len(".py")]
    if _there(path / "__init__.py", os.path.lexists):
        return entry
    if _there(path, Path.is_dir) and not _there(path, Path.is_symlink) and _holds_python(path, root):
        return entry
    return entry if _linked_package(path, root) else None


def _holds_python(folder: Path, root: Path) -> bool:
    """Whether ``folder`` holds a ``.py`` file at any depth, links to folders followed as Python follows
    them (each folder once; one leading outside the submission counts): a real ``cuda/`` holding only a
    link ``bindings -> ../scripts-train`` read as a data folder, and torch's ``import cuda.bindings`` ran
    ``scripts-train/__init__.py`` through it (fifty-ninth pass of 2026-12-05)."""
    base, todo, seen = root.resolve(), [folder], set()
    while todo:
        current = todo.pop()
        try:
            if any(True for _ in current.rglob("*.py")):
                return True
        except OSError:
            continue
        for sub, dirs, _ in os.walk(current):  # a link to a folder is listed among ``dirs``, not entered
            for name in dirs:
                if not _there(Path(sub, name), Path.is_symlink):
                    continue
                try:
                    target = Path(sub, name).resolve(strict=True)
                except (OSError, RuntimeError, ValueError):  # a loop: refused elsewhere (no regular file)
                    continue
                if not target.is_relative_to(base):
                    return True
                if target not in seen:
                    seen.add(target)
                    todo.append(target)
    return False


def zipped_modules(root: Path) -> list[str]:
    """One line for each file of the submission that Python's zip importer opens and that holds a
    module (``.py`` or bytecode), whatever the file's name: on ``sys.path`` (``sys.path.insert(0,
    "helpers.zip")``) its modules import like the folder's own, yet no check above reads them, and
    the importer takes a member's bytecode before its source. A ``helpers.zip`` holding a median's
    ``helpers.py`` and an unchecked-hash ``helpers.pyc`` compiled from other code ran that code, the
    shipped bytecode the sandbox's copy leaves out of the folder (``harness.is_bytecode``) brought in
    through an archive (forty-first pass of 2026-12-04). Weights saved as a zip (``torch.save`` of a
    state dict, ``.keras``, ``.npz``) hold no module and pass; a TorchScript archive holds its program
    as ``.py`` members (code too, which no review reads) and is refused as well, whether or not the zip
    importer opens it: Python 3.11's ``zipimport`` reads no zip64 archive, which ``zipfile`` and torch
    read alike, and a zip64 ``net.pt`` whose TorchScript class was named ``collections.Counter`` (a
    name the pickle scan allows; torch compiles it from ``code/collections.py``) ran its program
    under ``torch.jit.load`` (fifty-fifth pass of 2026-12-05)."""
    import importlib.machinery
    import zipfile
    import zipimport

    from perfgraphs.leaderboard.regular_files import regular_files

    suffixes = (*importlib.machinery.SOURCE_SUFFIXES, *importlib.machinery.BYTECODE_SUFFIXES)
    problems = []
    for path in regular_files(root):
        try:
            importer = zipimport.zipimporter(str(path))  # what the import system opens, whatever the name
        except (OSError, zipimport.ZipImportError, ValueError):
            importer = None  # yet zipfile (and torch's reader) may open it: a zip64 archive
        # its members as the importer reads them (its own table, where this Python has one), and as
        # zipfile lists them: one the importer opens and zipfile cannot list is refused too
        names = list(getattr(importer, "_files", None) or ())
        try:
            with zipfile.ZipFile(path) as archive:
                names += archive.namelist()
        except (OSError, zipfile.BadZipFile, ValueError, EOFError) as exc:
            if importer is None:
                continue  # no zip to either reader (one only torch's reader opens is the pickle scan's)
            names.append(f"members it cannot list: {type(exc).__name__}.py")
        modules = [m for m in names if m.rstrip("/").endswith(suffixes)]
        if modules:
            more = " …" if len(modules) > 1 else ""
            what = "Python imports modules from" if importer is not None else "holding modules (a TorchScript program's)"
            problems.append(f"{path.relative_to(root)}: a zip archive {what} "
                            f"({modules[0][:80]}{more}), which no check or review of the folder's files reads: "
                            "ship the code as plain .py files in the folder")
    return problems


def _read_otherwise(source: bytes) -> str | None:
    """The codec a Python file's coding declaration names when Python, decoding it so, reads other
    text than a UTF-8 viewer shows (None: the same text). Under ``# -*- coding: utf-7 -*-`` a comment
    ``# the median +AAo-        raise ...`` is a comment to a reviewer and two lines to Python
    (``+AAo-`` decodes to a line break): hidden code ran in a predictor that read as a median, and
    the review that enforces what code cannot tell read other code (fortieth pass of 2026-12-04)."""
    import codecs
    import io
    import tokenize

    try:
        codec, _ = tokenize.detect_encoding(io.BytesIO(source).readline)
        if codecs.lookup(codec).name in ("utf-8", "utf-8-sig"):
            return None  # read as a viewer reads it (bytes that are no UTF-8: ast.parse says so)
        same = source.decode(codec) == source.decode("utf-8-sig")  # a viewer shows no byte-order mark
    except (SyntaxError, LookupError):  # an unknown codec: ast.parse says so
        return None
    except (UnicodeDecodeError, ValueError):
        same = False
    return None if same else codec


# "Trojan Source" (CVE-2021-42574): bidirectional controls reorder what a viewer shows of a line, so
# a comment can seem to close before code that runs, or code can seem commented out; a lone carriage
# return ends a line for Python and overprints it on a terminal; a line or paragraph separator breaks
# a line for a viewer and not for Python. Python accepts all of them in comments and strings. So
# do the other control characters a terminal acts on: in a comment, ``ESC[2K ESC[G`` (erase the line,
# back to its start) or backspaces let the text after them overwrite the code before them on a
# reviewer's `cat` or `less -r` (`x = "honest"  # note<ESC>[2K<ESC>[Gx = "shown"` showed `x = "shown"`
# and ran the other: forty-first pass of 2026-12-04), and a vertical tab or a C1 control (NEL, CSI)
# moves or acts alike. A form feed is a page break where it starts a line (PEP 8), nowhere else.
_DECEIVING = re.compile("[\u202a-\u202e\u2066-\u2069\u200e\u200f\u061c\u2028\u2029\x01-\x08\x0b\x0e-\x1f"
                        "\x7f-\x9f]|\r(?!\n)|(?<=[^\n])\x0c")


def _deceiving_characters(source: bytes) -> str | None:
    """The first character of a Python file that makes a viewer show other code than Python runs
    (:data:`_DECEIVING`), named (``U+202E``, ``a lone carriage return``); None: none. What the review
    enforces (rule 3, no picked seeds) needs the code it reads to be the code that runs (fortieth
    pass's lead of 2026-12-04)."""
    found = _DECEIVING.search(source.decode("utf-8", errors="replace"))
    if found is None:
        return None
    return "a lone carriage return" if found.group() == "\r" else f"U+{ord(found.group()):04X}"


def _shadowed(path: Path) -> str | None:
    """What Python imports in place of the source file ``path`` (None: the source itself). Its
    import system tries an extension module before the source in each folder, and a package folder
    before a module: a ``predictor.so`` (or ``.abi3.so``, ``.cpython-311-x86_64-linux-gnu.so``)
    beside a ``predictor.py`` that read as a median ran in the sandbox instead, so the review that
    enforces what code cannot tell (rule 3, no picked seeds) read code that never ran (fortieth
    pass of 2026-12-04; shipped bytecode is left out of the sandbox's copy, ``harness.is_bytecode``)."""
    import importlib.machinery

    stem, folder = path.name[: -len(".py")], path.parent
    for suffix in importlib.machinery.EXTENSION_SUFFIXES:
        if _there(folder / f"{stem}{suffix}", os.path.lexists):
            return f"{stem}{suffix}"
    for suffix in importlib.machinery.all_suffixes():
        if _there(folder / stem / f"__init__{suffix}", os.path.lexists):
            return f"{stem}/__init__{suffix}"
    return None


def _there(path: Path, test=Path.exists) -> bool:
    """``test(path)``, False where the system refuses the name: a 300-character module name in
    entry_point, or predictions folder name, raised "File name too long" from ``exists()`` as an
    internal error (twenty-third pass of 2026-12-02)."""
    try:
        return test(path)
    except (OSError, ValueError):
        return False


def _check_predictions_folder(root: Path, predictions, problems: list[str]) -> None:
    """``predictions`` names a folder inside the submission, relative to it: refused, before
    anything is read there, when it is absolute or resolves (``..``, a symlink) outside the folder."""
    fix = "name a folder inside the submission, relative to it (predictions: predictions)"
    if not isinstance(predictions, str) or not predictions.strip():
        problems.append(f"submission.yaml: predictions must be a folder name as text (quote a name like '2024'), "
                        f"got {predictions!r}: {fix}")
        return
    if Path(predictions).is_absolute():
        problems.append(f"submission.yaml: predictions {predictions!r} is an absolute path: {fix}")
        return
    try:
        base = root.resolve()
        folder = (root / predictions).resolve()
    except (OSError, RuntimeError, ValueError) as exc:  # a symlink loop, a NUL character
        problems.append(f"submission.yaml: predictions {predictions!r} is not a usable folder name ({exc}): {fix}")
        return
    if not folder.is_relative_to(base):
        problems.append(f"submission.yaml: predictions {predictions!r} resolves outside the submission folder "
                        f"(to {folder}): {fix}")
    elif not _there(folder, Path.is_dir):
        problems.append(f"submission.yaml: predictions folder {predictions!r} not found in {root}: put "
                        "seed-<k>.parquet files there")


def _read_yaml(root: Path) -> dict:
    """The fields of ``root``'s submission.yaml, read with the size and alias limits."""
    import yaml

    meta_path = root / "submission.yaml"
    if not _there(root):
        raise SubmissionError([f"{root} does not exist: give the folder that holds submission.yaml"])
    if not _there(meta_path):
        raise SubmissionError([f"no submission.yaml in {root}: add one (template: {EXAMPLE})"])
    try:
        doc = yaml.load(read_regular(meta_path, MAX_YAML_BYTES).decode("utf-8", errors="replace"),
                        Loader=_NoAliasLoader)
    except _NotARegularFile as exc:
        raise SubmissionError([f"{exc}: submission.yaml must be a regular file of at most "
                               f"{MAX_YAML_BYTES // 1024} KiB"]) from None
    except _YamlLimit as exc:
        raise SubmissionError([f"submission.yaml: {exc}"]) from None
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f" at line {mark.line + 1}" if mark else ""
        why = " ".join(str(getattr(exc, "problem", None) or exc).split())  # one line, whatever PyYAML wrote
        raise SubmissionError([f"submission.yaml is not valid YAML{where}: fix the syntax ({why})"]) from None
    if not isinstance(doc, dict):
        raise SubmissionError([f"submission.yaml must be a mapping of fields (template: {EXAMPLE})"])
    return doc


def _listed_authors(listed: list[str]) -> str:
    """A YAML list of people as one author list: parted by ``, `` as people write them, or by `` & `` where a
    comma would read two ways (a person written "Last, First", or one name word: ``[Bob, Mal Lory]``
    joined by a comma reads as "Mal Lory Bob", :func:`names.ambiguous_authors`)."""
    joined = ", ".join(listed)
    return " & ".join(listed) if names.ambiguous_authors(joined) else joined


def _parse_people(doc: dict, problems: list[str]) -> tuple[str, object, str]:
    """(method, authors, contact): who the entry is, as the leaderboard shows it."""
    method = _text(doc, "method", problems, "the name shown on the leaderboard") if "method" in doc else ""
    # names.check_charset: plain ASCII letters, digits, spaces and - _ . ( ) / + , & ' @; length limits
    problems += [f"submission.yaml: {p}" for p in names.check_charset("method", method)]
    authors = doc.get("authors")
    if isinstance(authors, list):
        authors = _listed_authors([str(a).strip() for a in authors])  # ``[" Bob"]`` is "Bob", not a double space
    if "authors" in doc and not (isinstance(authors, str) and authors.strip()):
        problems.append("submission.yaml: 'authors' must be a name or a list of names")
    elif isinstance(authors, str):
        problems += [f"submission.yaml: {p}" for p in names.check_charset("authors", authors.strip())]
    contact = _text(doc, "contact", problems, "an e-mail address or URL") if "contact" in doc else ""
    return method, authors, contact


def _parse_declarations(doc: dict, problems: list[str]) -> tuple[object, object, object]:
    """(paper, external_data, division) as declared."""
    paper = doc.get("paper")
    if "paper" in doc and paper is not None and not isinstance(paper, str):
        problems.append("submission.yaml: paper must be a URL or citation, or null when there is none")
    problems += _shown_problems("paper", paper)
    external = doc.get("external_data")
    if "external_data" in doc and not isinstance(external, bool):
        problems.append("submission.yaml: external_data must be true or false (was any data beyond the "
                        "provided training and validation parts used?)")
    division = doc.get("division")
    if "division" in doc and division not in ("closed", "open"):
        problems.append(f"submission.yaml: division must be 'closed' (provided features and splits only) or "
                        f"'open', got {division!r}")
    if division == "closed" and external is True:
        problems.append("submission.yaml: the closed division allows no external data: set division: open, "
                        "or external_data: false")
    return paper, external, division


def _first_non_json(value, where: str = "") -> tuple[str, str] | None:
    """(where, type name) of the first value JSON cannot hold, None when every value is JSON's."""
    if isinstance(value, float) and not math.isfinite(value):
        # .inf and .nan: strict JSON has neither; stored as null, the record's digest (signed by
        # a hidden set's keeper) would change between scoring and reading (review of 2026-12-02)
        return (where or "the document"), "non-finite number"
    if value is None or isinstance(value, (str, bool, int, float)):
        return None
    if isinstance(value, dict):
        for k, v in value.items():
            found = _first_non_json(v, f"{where}.{k}" if where else str(k))
            if found:
                return found
        return None
    if isinstance(value, list):
        for i, v in enumerate(value):
            found = _first_non_json(v, f"{where}[{i}]")
            if found:
                return found
        return None
    return (where or "the document"), type(value).__name__


MAX_FOLDER_DEPTH = 32  # folders inside the submission folder
MAX_FOLDER_ENTRIES = 100_000  # files and folders in all
MAX_PATH_CHARS = 1024  # a path inside the submission folder


def _check_folder_shape(root: Path) -> None:
    """The submission folder's tree within ``MAX_FOLDER_DEPTH`` and ``MAX_FOLDER_ENTRIES``, walked
    with a stack before anything else walks it: 1,100 nested folders stopped `check` with "internal
    error: RecursionError" in Python 3.11's recursive ``rglob`` (twentieth pass of 2026-12-02).
    Links are not followed (the harness copies them as links)."""
    stack, seen = [(root, 0)], 0
    while stack:
        folder, depth = stack.pop()
        try:
            with os.scandir(folder) as it:
                entries = list(it)
        except OSError as exc:
            if depth == 0:
                continue  # the submission folder itself: the checks that read it say so
            # a path the system cannot open (names of 250 characters, 20 deep) stopped `check` with
            # "internal error: OSError" (twenty-first pass of 2026-12-02)
            raise SubmissionError([f"{root}: cannot read {str(folder)[len(str(root)):][:80]}... ({exc.strerror}): "
                                   "a submission holds plain folders with short names"]) from None
        seen += len(entries)
        if seen > MAX_FOLDER_ENTRIES:
            raise SubmissionError([f"{root}: more than {MAX_FOLDER_ENTRIES} files and folders: a submission holds "
                                   "its code and what it reads, nothing else"])
        for entry in entries:
            if len(entry.path) - len(str(root)) > MAX_PATH_CHARS:
                raise SubmissionError([f"{root}: a path inside it is over {MAX_PATH_CHARS} characters "
                                       f"({entry.path[len(str(root)):][:80]}...): shorten the names"])
            if entry.is_dir(follow_symlinks=False):
                if depth + 1 > MAX_FOLDER_DEPTH:
                    raise SubmissionError([f"{root}: folders nested more than {MAX_FOLDER_DEPTH} deep "
                                           f"({entry.path[len(str(root)):][:80]}...): flatten the submission folder"])
                stack.append((Path(entry.path), depth + 1))


def load_submission(path: str | Path) -> Submission:
    """Read and validate a submission folder (or its ``submission.yaml``)."""
    path = Path(path)
    root = path.parent if path.name == "submission.yaml" else path
    _check_folder_shape(root)
    doc = _read_yaml(root)
    problems: list[str] = []
    not_json = _first_non_json(doc)
    if not_json:
        # YAML reads 2024-01-01 as a date and !!binary as bytes: a record is JSON, so such a value
        # would pass every check and break the record's write after scoring (review of 2026-12-02)
        problems.append(f"submission.yaml: {not_json[0]} is a {not_json[1]}: write it as text (in quotes), a "
                        "number, true/false, a list or a mapping")
    unknown = sorted(set(doc) - set(REQUIRED) - set(OPTIONAL))
    if unknown:
        problems.append(f"submission.yaml: unknown field(s) {', '.join(unknown)} (allowed: "
                        + ", ".join(REQUIRED + OPTIONAL) + ")")
    for key in REQUIRED:
        if key not in doc:
            problems.append(f"submission.yaml: missing required field '{key}' (template: {EXAMPLE})")
    method, authors, contact = _parse_people(doc, problems)
    code_url, commit = _parse_code(doc, root, problems)
    paper, external, division = _parse_declarations(doc, problems)
    hyper = _parse_hyperparameters(doc, problems)
    predictions = doc.get("predictions")
    is_predictions = predictions is not None
    dataset = _parse_dataset(doc, is_predictions, problems)
    reported = _parse_reported(doc, is_predictions, problems)
    entry_point = None
    if is_predictions:
        if "entry_point" in doc:
            problems.append("submission.yaml: give either 'entry_point' (code) or 'predictions' (files), not both")
        _check_predictions_folder(root, predictions, problems)
    else:
        entry_point = str(doc.get("entry_point") or DEFAULT_ENTRY_POINT)
        _check_code(root, entry_point, problems)
    if problems:
        raise SubmissionError(problems)
    meta = SubmissionMeta(
        method=method, authors=str(authors).strip(), contact=contact, code_url=code_url, code_commit=commit,
        paper=(paper or "").strip(), external_data=bool(external), division=str(division),
        hyperparameters=hyper, dataset=dataset, entry_point=entry_point,
        predictions=str(predictions) if is_predictions else None, reported=reported)
    return Submission(root.resolve(), meta)
