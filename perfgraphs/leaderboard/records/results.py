"""The canonical leaderboard records: ``leaderboard/results/<dataset>.jsonl``, one JSON object per
scored entry, appended under an exclusive file lock so concurrent submissions never interleave
or lose a record (MLflow keeps the detailed log; this file is what the site is built from)."""

from __future__ import annotations

import fcntl
import functools
import json
import math
import os
import re
import statistics
import sys
from dataclasses import MISSING, asdict, dataclass, field, fields
from datetime import datetime, timezone
from pathlib import Path

from perfgraphs.leaderboard.records.history import one_reading
from perfgraphs.leaderboard.records.line_text import as_shown  # noqa: F401 — results.as_shown, its readers' name
from perfgraphs import paths
from perfgraphs.errors import PerfgraphsError
from perfgraphs.registry import DATASETS, Config, Dataset, Task, get_dataset

RESULTS_DIR = paths.leaderboard_results_dir()
METRICS = ("mape_pct", "rmse", "acc_10_pct", "kendall_tau")


class DuplicateEntryError(PerfgraphsError):
    """The same method at the same code commit is already on the leaderboard."""


class InvalidRecordError(PerfgraphsError):
    """A record that cannot be shown or ranked (a non-finite score, too few seeds, a wrong type):
    never written."""


@dataclass(frozen=True)
class Entry:
    method: str
    dataset: str
    dataset_version: str
    dataset_content_hash: str
    config: str
    target: str
    # "verified" (harness, hidden test set), "reproduced" (harness, public test set) or
    # "self-reported" (predictions files); read with the tier it can claim (tiers.honest_tier)
    tier: str
    division: str  # "closed" (provided features and splits only) or "open"
    code_commit: str
    per_seed: list[dict]  # {"seed", metrics..., "per_family": {...}}
    fit_seconds: float | None  # mean over seeds, measured by the harness; None when self-reported
    predictions_per_second: float | None
    num_params: int | None
    hardware: str
    run_identity: str
    date_utc: str = field(default_factory=lambda: datetime.now(timezone.utc).isoformat(timespec="seconds"))
    authors: str = "perfgraphs reference baselines"
    # Added with the submission harness; records written before it read with these defaults.
    test_set: str = "public"  # "public" (the dataset's test part) or "hidden" (labels outside the repo)
    hidden_labels_sha256: str = ""  # the published commitment the hidden labels matched
    code_url: str = ""
    paper: str = ""
    external_data: bool = False
    hyperparameters: dict = field(default_factory=dict)  # the chosen values from submission.yaml
    peak_memory_mb: float | None = None  # largest resident set of the predictor process over seeds
    actual_vs_predicted: list = field(default_factory=list)  # [[y_true, y_pred], ...] of the first seed
    # Added with isolation: how the predictor ran ("bubblewrap"; "" on records before it and on
    # self-reported entries). Timings and memory are the harness's; num_params is self-reported.
    isolation: str = ""
    # Added with leave-models-out: the split protocol the entry was scored under, where its config
    # has several (a perfgraphs/llm config); "" on a graph config's standard split and on records
    # written before entries named it (read as the config's ``unrecorded_protocol``: scoring_protocol).
    protocol: str = ""
    # Added with the cpuset: the predictor's CPU seconds in fit (mean over seeds, every thread and
    # child; beside fit_seconds, wall) and the size of the CPU set it was pinned to. None on
    # records before them and on self-reported entries.
    fit_cpu_seconds: float | None = None
    cores: int | None = None
    # Added with keeper signatures: a hidden-set record's signature by its set's keeper over
    # record_sha256 (records.keeper_key); "" elsewhere
    keeper_signature: str = ""
    # Added with frozen fits: the sha256 of the frozen-fit manifest a hidden score predicted from
    # (leaderboard/frozen_fits.py; its fit numbers are the frozen run's); "" where the harness fitted
    frozen_fit: str = ""

    def __post_init__(self):
        # a record written as "verified" on a public (or since compromised) test set reads as what
        # it can claim; the file keeps what was written
        from perfgraphs.leaderboard.records.tiers import honest_tier

        object.__setattr__(self, "tier", honest_tier(self.tier, self.test_set, self.hidden_labels_sha256))

    def mean_std(self, metric: str) -> tuple[float, float]:
        """Mean and sample std over the seeds whose score is defined; (nan, nan) when none is (a
        constant predictor's Kendall τ is recorded as null)."""
        values = [float(s[metric]) for s in self.per_seed if s.get(metric) is not None
                  and math.isfinite(float(s[metric]))]
        if not values:
            return math.nan, math.nan
        return statistics.fmean(values), (statistics.stdev(values) if len(values) > 1 else 0.0)

    def peak_memory_how(self) -> str:
        """How the harness measured the peak memory: a memory cgroup's peak counts every page charged to
        the run once (not every kernel object a run can make: loopback sockets' buffers and terminals were
        charged to none until the sandbox refused them, ninety-fourth and ninety-seventh passes); without one the harness samples the process tree's resident sets (and each process's
        high-water mark at the end), which miss a child that lived between two samples and count a page
        shared by forked processes in each ("" where the record does not say how it ran; a run since the
        hundred-and-thirteenth pass states no peak without a cgroup: harness.stated_peak_bytes). The page said
        "measured by the harness" either way, and only its isolation row told them apart (eighty-ninth pass)."""
        if not self.isolation:
            return ""
        if "cgroup" in self.isolation.split("+"):
            return "the memory cgroup's peak, every page charged to the run"
        return ("no memory cgroup: resident sets sampled, which miss a child living between samples and files in "
                "/tmp or kernel buffers, and count a shared page in every process")

    def peak_memory_text(self) -> str:
        """The peak memory as the entry's page shows it, with how it was measured."""
        if self.peak_memory_mb is None:
            return "not measured"
        how = self.peak_memory_how()
        return f"{self.peak_memory_mb:.0f} MB (measured by the harness{': ' + how if how else ''}){self.run_costs_caveat()}"

    def run_costs_caveat(self) -> str:
        """What a *reproduced* record's run costs (peak memory, fit and CPU seconds, predictions/s) are: its own
        run's, on its hardware, as it states them. ``perfgraphs leaderboard reproduce`` scores the predictions
        again and never these (``reproduce.RUN_FIELDS``: another machine's timings), so a reproduced record
        could state any of them unchecked (ninety-ninth pass's lead); "" for other tiers."""
        from perfgraphs.leaderboard.records.tiers import REPRODUCED

        if self.tier != REPRODUCED:
            return ""
        return f"; the record's own run on {self.hardware or 'unstated hardware'}, which reproduce does not measure again"

    def interval95(self, metric: str = "mape_pct") -> tuple[float, float]:
        """Mean ± 1.96 standard errors over seeds (a single seed gives a point)."""
        mean, std = self.mean_std(metric)
        half = 1.96 * std / len(self.per_seed) ** 0.5
        return mean - half, mean + half

    @property
    def zero_spread(self) -> bool:
        """Every seed scored the same: the method is deterministic given the data, so its interval
        is a point by construction (the site says so), not a measured certainty."""
        return len(self.per_seed) > 1 and self.mean_std("mape_pct")[1] == 0.0


_FIELDS = frozenset(f.name for f in fields(Entry))  # what a stored record may hold
# what a record that leaves a field out is read with (date_utc aside: a record states it, REQUIRED)
_DEFAULTS = {f.name: f.default if f.default is not MISSING else f.default_factory() for f in fields(Entry)
             if f.name != "date_utc" and (f.default is not MISSING or f.default_factory is not MISSING)}


def record_as_read(value):
    """A results line's JSON as every reader takes it, to tell whether two lines are one record (never to
    sign or store): each whole-valued float as the integer it equals and, for an object, each field of
    :class:`Entry` it leaves out as its default. ``40.0`` and ``40`` are one number to Python, to
    ``Entry`` and to every board, and ``jq -c .`` (1.6) or ``JSON.stringify`` rewrites the first as the
    second; JSON written back told them apart, so a pull request that re-serialized a results file and
    its revert "took out" every keeper-signed record there (digest of other text in between), and
    every board dropped them for good (sixtieth pass of 2026-12-05)."""
    return _whole_numbers({**_DEFAULTS, **value} if isinstance(value, dict) else value)


def _whole_numbers(value):
    """``value`` with each whole-valued float (at any depth) the integer it equals."""
    if isinstance(value, float) and value.is_integer():
        return int(value)
    if isinstance(value, dict):
        return {k: _whole_numbers(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_whole_numbers(v) for v in value]
    return value


def line_key(line: str) -> str:
    """A results line as the record it reads as (:func:`as_shown`, then JSON, written back canonically),
    what its arrival is looked up by (:func:`perfgraphs.leaderboard.records.history.line_arrival`): the
    text alone made a line respelled in one commit (a tab for a space, which a diff on a terminal shows
    as the same line, or its keys reordered, as a rewrite of the file does) a new line, and another
    team's ``gnn-x``, recorded before the reference folder ``gnn``, "arrived" after it with the commit
    of a pull request that respelled it: every board stopped showing it (fifty-ninth pass of
    2026-12-05; rule 5: an edit of a line in one commit re-dates nothing). Its numbers and left-out
    fields are read as the readers take them (:func:`record_as_read`): a line re-serialized by
    ``jq -c .``, each whole-valued ``736.0`` written ``736``, was a new record to the canonical JSON
    and re-dated the team's ``gnn-x`` after the folder all the same (sixtieth pass). A line the readers
    take for no record (no JSON, a key written twice, a carriage return inside) is its text: an earlier
    spelling that no board read recorded nothing."""
    shown = as_shown(line)
    if "\r" in shown.rstrip("\r"):
        return shown
    try:
        return json.dumps(record_as_read(json.loads(shown, object_pairs_hook=_object_without_duplicates)),
                          sort_keys=True)
    except (ValueError, RecursionError):
        return shown


def read_digest(record: dict) -> str:
    """The digest of the record a hidden-set line reads as (:func:`record_as_read`), what the withdrawn
    records' history counts copies by (:func:`perfgraphs.leaderboard.records.keeper_key.withdrawn_problem`):
    the signed digest is of the JSON written, where ``30.0`` and ``30`` differ, so a pull request that re-serialized the results file
    (``jq -c .``: every line's whole-valued floats written as integers, its signed lines skipped until
    mended) and the revert that mended it took out every keeper-signed record of the file for good
    (sixtieth pass of 2026-12-05)."""
    from perfgraphs.leaderboard.records.digest import record_sha256

    return record_sha256(record_as_read(record))


class RecordedBoards:
    """The registry's objects of the boards records name. A record names its board by strings (records
    are data, and outlive a registry entry), so a reader of records resolves each dataset it meets
    once, here, and passes the objects down; a name the registry no longer has resolves to None.
    ``known``: datasets the caller has resolved already."""

    def __init__(self, *known: Dataset) -> None:
        self._datasets: dict[str, Dataset | None] = {ds.name: ds for ds in known}
        self._tasks: dict[tuple[str, str, str], Task | None] = {}

    def config(self, dataset: str, config: str) -> Config | None:
        ds = self._dataset(dataset)
        try:
            return ds.config(config) if ds is not None else None
        except PerfgraphsError:
            return None

    def task(self, dataset: str, config: str, target: str) -> Task | None:
        key = (dataset, config, target)
        if key not in self._tasks:
            cfg = self.config(dataset, config)
            try:
                self._tasks[key] = Task(self._dataset(dataset), cfg, cfg.target(target)) if cfg else None
            except PerfgraphsError:
                self._tasks[key] = None
        return self._tasks[key]

    def scoring_protocol(self, dataset: str, config: str, recorded: str = "") -> str:
        """The protocol a record of ``dataset``/``config`` was scored under
        (:meth:`perfgraphs.registry.Config.scoring_protocol`; "" for a config the registry no longer has)."""
        if recorded:
            return recorded
        cfg = self.config(dataset, config)
        return cfg.scoring_protocol(recorded) if cfg is not None else ""

    def _dataset(self, name: str) -> Dataset | None:
        if name not in self._datasets:
            try:
                self._datasets[name] = get_dataset(name)
            except PerfgraphsError:
                self._datasets[name] = None
        return self._datasets[name]


def entry_key(record: dict, boards: RecordedBoards) -> tuple:
    """What makes two records the same entry: one per (method, code commit) per board."""
    return (record["method"], record["code_commit"], record["config"], record["target"],
            record.get("test_set", "public"), boards.scoring_protocol(record["dataset"], record["config"],
                                                                      record.get("protocol", "")))


def find_duplicate(board: Task, method: str, code_commit: str, test_set: str = "public", root: Path | None = None,
                   protocol: str = "") -> Entry | None:
    """The recorded entry a new submission to ``board`` would duplicate, if any (checked again under
    the lock when the record is appended)."""
    key = (method, code_commit, board.config.name, board.target.name, test_set,
           board.config.scoring_protocol(protocol))
    recorded = RecordedBoards(board.dataset)
    return next((e for e in read_entries(board.dataset.name, root) if entry_key(asdict(e), recorded) == key), None)


def results_path(dataset: str, root: Path | None = None) -> Path:
    return (root or RESULTS_DIR) / f"{dataset.split('/')[-1]}.jsonl"


class ResultsCheckoutError(PerfgraphsError):
    """A results file whose checkout git converts: its bytes are not the committed records."""


def checkout_problem(path: Path) -> str | None:
    """Why the checkout of the results file ``path`` is not its committed bytes
    (:func:`perfgraphs.leaderboard.records.history.converted_checkout`). A pull request that added
    one line, ``*.jsonl working-tree-encoding=UTF-16``, to ``leaderboard/results/.gitattributes`` had
    every fresh clone check the results out as UTF-16: every line of every file was skipped, each
    board said no entry had been scored on it, and `submit` appended a UTF-8 record to the UTF-16
    file, which git then converted back as one (thirty-sixth pass of 2026-12-04). The history
    readers read the committed blobs, so the records were still "there" for them."""
    from perfgraphs.leaderboard.records.history import converted_checkout

    return converted_checkout(path)


# the folders of the checkout the boards are read from: the records, pins, references, hidden-set
# commitments and rules (leaderboard/), the measurements, splits and noise probes the builds, label
# repetitions and noise floors come from (data/)
BOARD_SOURCES = ("leaderboard", "data")


def boards_checkout_problem(root: Path | None = None) -> str | None:
    """Why the files the boards are read from, in the checkout ``root`` (default: this package's),
    are not their committed bytes (:func:`perfgraphs.leaderboard.records.history.converted_files`);
    None for an installed package."""
    from perfgraphs.leaderboard.records.history import converted_files

    root = root or paths.checkout_root()
    return None if root is None else converted_files(root, BOARD_SOURCES)


@one_reading()
def read_entries(dataset: str, root: Path | None = None, skipped: list[str] | None = None) -> list[Entry]:
    """The valid records of one results file, in file order. A line that is not a valid record
    (:func:`~perfgraphs.leaderboard.records.record_check.record_problem`), or whose claims do not check
    against the evidence (:func:`perfgraphs.leaderboard.records.trust.trust_problem`: a hidden set nobody
    committed to, a reference's name in other hands) is never shown or ranked: it is left in the file untouched and reported as one
    ``file:line: why`` line, appended to ``skipped`` when given, else printed once per process as a
    warning on stderr."""
    path = results_path(dataset, root)
    if path.is_symlink():  # its records would be another file's, with another history (sixteenth pass)
        _report(f"{path}: skipped, a link is not a results file (write the records into it)", skipped, (str(path), 0, ""))
        return []
    if not path.is_file():
        return []
    from perfgraphs.leaderboard.records.history import linked_folder

    if (link := linked_folder(path)) is not None:  # its history would be another path's (fifty-sixth pass)
        _report(f"{path}: skipped, read through the link {link.name}: a results folder is no link", skipped,
                (str(path), 0, ""))
        return []
    if why := checkout_problem(path):  # every record unreadable, or read as other text: no board from it
        raise ResultsCheckoutError(printable(why))
    entries = []
    for n, line in enumerate(file_lines(path), 1):
        if not line.strip():
            continue
        record, why = read_line(line, path)
        if why is None:
            entries.append(Entry(**record))
            continue
        _report(f"{path}:{n}: skipped, not a valid leaderboard record ({why})", skipped, (str(path), n, line))
    _taken_out_runs(path, skipped)
    return entries


_WARNED: set[tuple[str, int, str]] = set()


def _report(message: str, skipped: list[str] | None, key: tuple[str, int, str]) -> None:
    """A reader's skip: appended to ``skipped`` when given, else a warning on stderr once per process.
    The whole line escaped (:func:`printable`), the file's name with it: a results file is named by
    whoever commits it, and one named ``x CR ESC[2K ESC[1A <a line saying every board is verified>
    LF z.jsonl`` erased its own warning on the reviewer's terminal and left that line in its place
    (thirty-sixth pass of 2026-12-04); the reason alone was escaped before."""
    message = printable(message)
    if skipped is not None:
        skipped.append(message)
    elif key not in _WARNED:
        _WARNED.add(key)
        print(f"warning: {message}", file=sys.stderr)


def read_line(line: str, path: Path) -> tuple[dict | None, str | None]:
    """One line of the results file ``path`` as every reader reads it: (record, None) for a record
    the boards show, else (record or None, why not): its fields, its place, then its claims."""
    from perfgraphs.leaderboard.records.trust import trust_problem

    preview = min_seeds_of(path.parent)  # one look for the marker file a line, not two
    record, why = _parse_record(line, preview)
    if why is None:
        why = _place_problem(record, path) or (None if preview else _evidence_problem(record))
    if why is None:
        from perfgraphs.leaderboard.records.history import line_arrival

        why = trust_problem(record, lambda: line_arrival(path, line, line_key)) or _unlisted_run(record, line, path)
    if why is None and record.get("test_set") == "hidden":
        from perfgraphs.leaderboard.records.keeper_key import withdrawn_problem

        why = withdrawn_problem(record, path, read_as_signed, read_digest)  # taken out, stays out (fifty-fifth pass)
    return record, (None if why is None else printable(why))


def read_as_signed(line: str, digest: str, path: Path) -> bool:
    """Whether the boards read the line ``line`` of the results file ``path`` (a hidden-set record of
    ``digest``) as a record its keeper signed, for the withdrawn records' history
    (:func:`perfgraphs.leaderboard.records.keeper_key.withdrawn_problem`): a copy they skip (unsigned and
    *self-reported*, a key written twice, an unknown field, a carriage return inside) counted as the
    record held, so a team that had added one kept its record from ever being taken out when the keeper
    took its line out on review, and the line put back later was read *verified*, ranked first by the
    keeper's ranks (fifty-eighth pass of 2026-12-05)."""
    from perfgraphs.leaderboard.records.keeper_key import record_signature_problem

    record, why = _parse_record(line, min_seeds_of(path.parent))
    return why is None and record_signature_problem(record, digest) is None


def printable(text: str) -> str:
    """``text`` with every character a terminal or a page would not print as itself (controls,
    escapes, bidi overrides, invisible ones) written as its escape: a reason names what a record
    holds, and an unknown field or a family named ``ESC]0;…BEL ESC[2K`` reached the reviewer's
    terminal raw through the reader's warning (twenty-sixth pass of 2026-12-03)."""
    return "".join(c if c.isprintable() else c.encode("unicode_escape").decode("ascii") for c in str(text))


def file_lines(path: Path) -> list[str]:
    """A results file's lines (:func:`record_lines`), a bad byte read as U+FFFD (it spoils one line,
    never the file). Bytes decoded, not ``read_text``: text mode reads a lone ``\r`` as a line break."""
    return record_lines(path.read_bytes().decode("utf-8", errors="replace"))


def record_lines(text: str) -> list[str]:
    """A results file's lines as git, a diff and a reviewer count them: split at ``\n`` only (a
    ``\r`` before it dropped). Python's ``splitlines`` also breaks at ``\x0b``, ``\x1c``, U+2028 and
    others, so one line of a pull request's diff carried a second record after an invisible
    character (thirteenth pass of 2026-12-02); such a line is now one line, and not a record."""
    lines = [line.removesuffix("\r") for line in text.split("\n")]
    return lines[:-1] if lines and lines[-1] == "" else lines  # the last "\n" ends a line, starts none


def _place_problem(record: dict, path: Path) -> str | None:
    """Why a well-formed record does not belong where it is read: a board reads its dataset's file
    (a duplicate check and a submit's lock see that file only), the file of a registered dataset
    holds that dataset's records under its registered name (``evil/dippm`` made a board of its
    own in dippm.jsonl), and a known config's record names one of its split protocols (thirteenth pass)."""
    dataset = record["dataset"]
    if results_path(dataset, path.parent) != path:
        return f"a record of {dataset[:80]!r} belongs in {results_path(dataset).name}"
    registered = [name for name in DATASETS if results_path(name, path.parent) == path]
    if registered and dataset not in registered:
        return f"{path.name} holds records of {registered[0]!r}, not {dataset[:80]!r}"
    protocols = _split_protocols(dataset, record["config"])
    protocol = record.get("protocol", "")
    if protocols is not None and protocol and protocol.split("/")[0] not in protocols:
        return (f"protocol {protocol[:80]!r} is not one of {dataset} {record['config']}'s "
                f"({', '.join(protocols) or 'none'})")
    if protocols is not None and protocol and protocol not in _scored_protocols(protocol.split("/")[0]):
        # ``random-70-15-15/official-hidden`` on dippm made a board of its own whose heading on the
        # site was the official board's, its one entry ranked 1 (twenty-sixth pass of 2026-12-03)
        return (f"protocol {protocol[:80]!r} is not a protocol {protocol.split('/')[0]} scores (its variants: "
                f"{', '.join(sorted(_scored_protocols(protocol.split('/')[0])))[:200]})")
    return None


# what every writer of a record whose code ran here states (submit._entry, runner.to_entry): its
# times, measured, and its hardware; a predictions-files record has neither ("not measured
# (self-reported)", null)
HARNESS_EVIDENCE = ("fit_seconds", "predictions_per_second")
NOT_MEASURED = "not measured"


def _evidence_problem(record: dict) -> str | None:
    """Why a record whose tier says its code ran here, with per-configuration ratios the boards
    rank, says in its own fields that nothing ran: a predictions-files record with only ``"tier"``
    edited to ``reproduced`` (``hardware: not measured (self-reported)``, null timings) was ranked 1
    as reproduced (twenty-sixth pass of 2026-12-03). A tripwire for that contradiction, not a proof:
    a record that writes timings passes, and only a reviewer's ``reproduce`` tells (rule 4).
    Records without ratios (before 2026-11-28, hidden-set aggregates, per-draw transfer scores) are
    listed unranked, but with their tier: they state a fit time and hardware too (a transfer record
    has no throughput); the same edit with the ratios dropped was listed as reproduced, its MAPE
    below the ranked entries' (twenty-seventh pass of 2026-12-03)."""
    from perfgraphs.evaluation.scoring import PER_CONFIG_KEY
    from perfgraphs.leaderboard.records.tiers import HARNESS_TIERS

    if record["tier"] not in HARNESS_TIERS:
        return _measured_problem(record)
    ranked = all(s.get(PER_CONFIG_KEY) for s in record["per_seed"])
    missing = [k for k in (HARNESS_EVIDENCE if ranked else HARNESS_EVIDENCE[:1]) if record.get(k) is None]
    hardware = record["hardware"]
    if missing or hardware.lower().startswith(NOT_MEASURED):
        said = ", ".join(missing + [f"hardware {hardware[:40]!r}"])
        return (f"tier {record['tier']!r} says its code ran here, but the record says nothing was measured "
                f"({said}): a predictions-files record is self-reported")
    return None


# what only the harness measures, from outside a predictor it ran, as the boards and the record's page
# show it (submit._entry writes each as null, and the isolation as "", on a predictions-files record)
HARNESS_ONLY = ("fit_seconds", "predictions_per_second", "peak_memory_mb", "fit_cpu_seconds", "cores")


def _measured_problem(record: dict) -> str | None:
    """Why a record whose tier says nothing ran here (predictions files) states what only the harness
    measures: a hand-written *self-reported* record with ``peak_memory_mb: 12``, ``isolation:
    bubblewrap``, a fit of 0.1 s and 10**6 predictions/s had its page say "12 MB (measured by the
    harness)" and "isolation bubblewrap", and its row top the board's predictions/s and fit-time
    columns beside the harness's own measurements (fortieth pass of 2026-12-04): the mirror of
    :func:`_evidence_problem`, a contradiction of the record's own fields, skipped as one."""
    said = [k for k in HARNESS_ONLY if record.get(k) is not None]
    if record.get("isolation"):
        said.append(f"isolation {record['isolation'][:40]!r}")
    if not said:
        return None
    return (f"tier {record['tier']!r} says nothing ran here (predictions files), but the record states what only the "
            f"harness measures ({', '.join(said)})")


def _split_protocols(dataset: str, config: str) -> tuple[str, ...] | None:
    """The split protocols a record of ``dataset``/``config`` may be scored under, from the registry's
    table, read directly (a board is resolved once per submission, test_task): a config of its table,
    else, on a dataset whose measured stores make configs (``store_configs``: dippm's
    ``h100-80gb-hbm3-torch-fp32``), the stores' protocols; None for a dataset the registry lacks.
    A store's config was read as unknown, its protocol unchecked: ``random-70-15-15/official``
    made a board of its own, ranked 1, with the real board's heading on the site (twenty-seventh pass)."""
    ds = DATASETS.get(dataset)
    if ds is None:
        return None
    found = next((c for c in ds.configs if c.name == config), None)
    if found is not None:
        return found.split_protocols
    return ds.store_configs.split_protocols if ds.store_configs is not None else None


def _scored_protocols(name: str) -> set[str]:
    """The protocol strings a split protocol's records may name: itself, and for one with variants
    and shot counts (leave-one-platform-out) each ``<name>/<variant>/K<shots>`` the transfer runner
    writes (:mod:`perfgraphs.leaderboard.transfer_runner`)."""
    from perfgraphs.data.splits import PROTOCOLS

    spec = PROTOCOLS.get(name, {})
    shots = spec.get("shots", ())
    return {name} | {f"{name}/{v}/K{k}" for v in spec.get("variants", ())
                     for k in (shots if isinstance(shots, tuple) else (shots,))}



def run_digest(line: str) -> str:
    """A results line's digest as the reference runs' manifest lists it: of the record it reads as
    (:func:`line_key`), so a re-serialized file keeps its reference lines listed."""
    import hashlib

    return hashlib.sha256(line_key(line).encode("utf-8")).hexdigest()


def _unlisted_run(record: dict, line: str, path: Path) -> str | None:
    """Why a reference-authored line is no reference run: no digest in the manifest
    (:func:`perfgraphs.leaderboard.records.reference_runs.unlisted_run_problem`, hundred-and-nineteenth pass)."""
    from perfgraphs.leaderboard.records.reference_runs import is_reference_run, unlisted_run_problem

    return unlisted_run_problem(record, run_digest(line), path.parent) if is_reference_run(record) else None


def _taken_out_runs(path: Path, skipped: list[str] | None) -> None:
    """Name, in one line a folder, the reference runs its manifest lists whose line no results file of the
    folder holds (:func:`perfgraphs.leaderboard.records.reference_runs.taken_out_problem`): a reference's line
    deleted by a pull request re-ranked its board, the entries it beat a rank up, with nothing printed
    (hundred-and-twenty-third pass, side b)."""
    from perfgraphs.leaderboard.records.reference_runs import taken_out_problem

    files = results_files(path.parent)
    present = _present_runs(tuple((str(p), p.stat().st_mtime_ns, p.stat().st_size) for p in files))
    if why := taken_out_problem(path.parent, present, lambda: _taken_out_lines(files)):
        _report(f"{path.parent}: {why}", skipped, (str(path.parent), 0, why))


@functools.lru_cache(maxsize=8)
def _present_runs(files: tuple[tuple[str, int, int], ...]) -> dict[str, dict]:
    """Each line's digest (:func:`run_digest`) in the results files named (path, mtime, size), with its record
    where it is a reference run's (``reference_runs.is_reference_run``), else {}."""
    from perfgraphs.leaderboard.records.reference_runs import is_reference_run

    present: dict[str, dict] = {}
    for name, _, _ in files:
        for line in file_lines(Path(name)):
            record = _read_as_key(line_key(line))
            present[run_digest(line)] = record if record is not None and is_reference_run(record) else {}
    return present


def _taken_out_lines(files: list[Path]) -> dict[str, tuple[str, dict | None]]:
    """Each line the main line took out of one of ``files``, by digest: (the file's name, its record)."""
    from perfgraphs.leaderboard.records.history import line_changes

    return {run_digest(text): (p.name, _read_as_key(line_key(text)))
            for p in files for _, delta, text in line_changes(p) or [] if delta < 0}


def _read_as_key(key: str) -> dict | None:
    try:
        record = json.loads(key)
    except (ValueError, RecursionError):
        return None
    return record if isinstance(record, dict) else None


def results_files(root: Path | None = None) -> list[Path]:
    """The results files of a folder: its ``*.jsonl`` files, in name order; a folder of that name
    (which a pull request can add) is no results file and stops no reader (tenth pass of 2026-12-02),
    nor is a symlink, whose records would be another file's, with another history (sixteenth pass)."""
    folder = Path(root or RESULTS_DIR)
    return sorted(p for p in folder.glob("*.jsonl") if p.is_file() and not p.is_symlink()) if folder.is_dir() else []


@one_reading()
def read_all_entries(root: Path | None = None, skipped: list[str] | None = None) -> list[Entry]:
    """The valid records of every results file of ``root`` (:func:`read_entries`), file by file."""
    return [e for path in results_files(root) for e in read_entries(path.stem, root, skipped)]


def _parse_record(line: str, min_seeds: int | None = None) -> tuple[dict | None, str | None]:
    from perfgraphs.leaderboard.records import record_check

    if why := overwritten_text(line):
        return None, why
    try:
        record = json.loads(as_shown(line), object_pairs_hook=_object_without_duplicates)
    except (ValueError, RecursionError) as exc:  # ValueError: JSON's own, and an integer of > 4300 digits
        return None, f"not JSON: {' '.join(str(exc).split())[:80]}"
    if (line, min_seeds) in _WELL_FORMED:
        return record, None
    why = record_check.record_problem(record, _FIELDS, min_seeds or record_check.MIN_SEEDS)
    if why is None and len(line) <= _REMEMBERED_LINE_CHARS:
        if len(_WELL_FORMED) >= _REMEMBERED_LINES:
            _WELL_FORMED.clear()
        _WELL_FORMED.add((line, min_seeds))
    return record, why


@functools.lru_cache(maxsize=1024)
def stated_authors_and_method(line: str) -> tuple[object, object]:
    """(authors, method) as the line states them, parsed as every reader parses it (:func:`_parse_record`)
    and checked for nothing else: (None, None) where it is no JSON object. For a reader that needs a
    line only when it names certain authors or a method it does not hold yet: reading a line in full
    (:func:`read_line`: its checks, its place, its history) costs about a millisecond, and `check`
    read the 255 committed reference lines in full for names all already reserved by the catalog."""
    try:
        record = json.loads(as_shown(line), object_pairs_hook=_object_without_duplicates)
    except (ValueError, RecursionError):
        return None, None
    return (record.get("authors"), record.get("method")) if isinstance(record, dict) else (None, None)


def overwritten_text(line: str) -> str | None:
    """Why a results line does not read on a terminal as what it holds: a carriage return before its
    end (JSON reads one between tokens as a space). A terminal prints the text after it from the
    line's first column, over the text before it, and a tab moves on without erasing: a pull request
    added a line that ``cat`` and ``git --no-pager diff`` showed as ``{ "tier":"self-reported", ...``,
    a predictions-files record a reviewer lists unranked and does not re-run, while JSON read
    ``"tier":"reproduced"`` (the ``"self-reported"`` after the return was the value of ``paper``,
    the key overwritten by a third part): ranked 2 on the dippm cpu latency board (forty-fifth pass
    of 2026-12-04). No writer puts one there (``json.dumps`` escapes it; a CR LF line ending is
    dropped before this, and returns at the very end overwrite nothing)."""
    if "\r" in line.rstrip("\r"):
        return ("a carriage return inside the line: a terminal shows the text after it over the text before it, "
                "so the line reads as another record (remove it)")
    if line.isascii() and "\x7f" not in line:
        return None
    if (found := _REORDERING.search(line)) is not None:
        # anywhere in the line, in a field no check reads too (a per-seed item's extra key, a nested
        # hyper-parameter): a viewer reorders or breaks what it shows (the forty-fifth pass's lead)
        return (f"holds U+{ord(found.group()):04X}, which makes a viewer show the line otherwise than it reads "
                "(write such characters as \\u escapes)")
    return None


# bidirectional controls and marks (Trojan Source), line and paragraph separators, DEL and the C1
# controls (U+009B is a terminal's CSI): JSON takes each raw inside a string, and each changes what a
# viewer or a terminal shows
_REORDERING = re.compile("[\u202a-\u202e\u2066-\u2069\u200e\u200f\u061c\u2028\u2029\x7f-\x9f]")


# Lines found well-formed, remembered for the process: one `perfgraphs check` read the committed
# records 3.5 times over (reserved names, name owners, duplicates), 8 s of checking the same lines.
# Only a pass is remembered (the check is a function of the line, and a date that was not in the
# future stays so); a refusal is checked again, and a line of more than a record's usual size is not kept.
_WELL_FORMED: set[tuple[str, int | None]] = set()
_REMEMBERED_LINE_CHARS, _REMEMBERED_LINES = 200_000, 4096


def forget_checked() -> None:
    """Forget every line and name remembered as checked (:data:`_WELL_FORMED`, the name caches of
    :mod:`perfgraphs.leaderboard.records.names`): for a caller that changes the checks themselves (a
    test switching a guard off, to show what it stops)."""
    from perfgraphs.leaderboard.records import names

    _WELL_FORMED.clear()
    for cached in (names._taken_name, names._compact_keys, names._compact_keys_by_kind, names._charset_problems,
                   names._names_reference_authors, names._person_keys):
        cached.cache_clear()


class DuplicateKeyError(ValueError):
    """A JSON object that names one key twice."""


def _object_without_duplicates(pairs: list[tuple[str, object]]) -> dict:
    """A JSON object of a record, refused when it names a key twice: ``json`` keeps the last value,
    while a reviewer reading the line finds the first (``"tier": "self-reported"`` written before
    ``"tier": "reproduced"``, ``"authors"`` twice, ranked as the last said: twenty-sixth pass of
    2026-12-03); so does a diff, and so may another reader of the file."""
    record = dict(pairs)
    if len(record) != len(pairs):
        seen: set[str] = set()
        twice = next(k for k, _ in pairs if k in seen or seen.add(k))
        raise DuplicateKeyError(f"the key {twice[:40]!r} is written twice in one object (one value each)")
    return record


# A results folder holding this file is a local preview (``perfgraphs quickstart``: one seed per
# baseline, on the user's machine), not a board: its records may have fewer than five seeds, and
# its site says so. The committed results folder never has one (a test checks it).
PREVIEW_MARKER = "PREVIEW"


def min_seeds_of(folder: Path) -> int | None:
    """1 for a local preview folder (:data:`PREVIEW_MARKER`); None (the board's rule) otherwise. The
    repository's own results folder is never a preview: a marker a pull request added there let a
    record whose own fields say nothing ran (``hardware: not measured``, null timings) show as
    *reproduced* (a preview skips the evidence tripwire), on a `leaderboard show` that says nothing
    of a preview (twenty-eighth pass of 2026-12-03)."""
    if Path(folder).resolve() == Path(RESULTS_DIR).resolve():
        return None
    return 1 if (Path(folder) / PREVIEW_MARKER).is_file() else None


class ResultsChangedError(PerfgraphsError):
    """A results file was rewritten, truncated or given a malformed line while a submission was
    being scored."""


def results_snapshot(root: Path | None = None) -> dict[str, bytes]:
    """The bytes of every results file when a submission starts."""
    return {p.name: p.read_bytes() for p in results_files(root)}


def check_unchanged(before: dict[str, bytes], root: Path | None = None) -> None:
    """Refuse when what was recorded before the submission started is no longer there byte for byte
    (a record rewritten, removed or truncated) or a line added meanwhile is not a valid record.
    Records appended meanwhile by other submissions (each under the file lock) are fine: they are
    whole, valid lines after the old content. Nothing a predictor runs can reach these files (it
    is isolated); this catches a tampered or hand-edited results file before it is built upon."""
    after = {p.name: p.read_bytes() for p in results_files(root)}
    changed = sorted(n for n, old in before.items() if not after.get(n, b"").startswith(old))
    for name, data in after.items():
        added = data[len(before.get(name, b"")):]
        if name not in changed and added and not _valid_records(added):
            changed.append(name)
    if changed:
        raise ResultsChangedError(f"the results file(s) {', '.join(sorted(changed))} changed while the submission "
                                  "was scored (a record rewritten, removed or malformed); nothing was recorded: "
                                  "restore them (git checkout) and submit again")


def _valid_records(data: bytes) -> bool:
    if not data.endswith(b"\n"):
        return False
    try:
        lines = record_lines(data.decode())
    except UnicodeDecodeError:
        return False
    return all(_parse_record(line)[1] is None for line in lines if line.strip())


def _undefined_as_null(value):
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if isinstance(value, dict):
        return {k: _undefined_as_null(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_undefined_as_null(v) for v in value]
    return value


def _write_line(fd: int, line: str, path: Path, method: str) -> None:
    """``line`` appended through ``fd`` (opened ``O_APPEND``, locked) and synced, or none of it: a
    write that stopped part way (a full disk) left part of a record at the file's end, a line every
    board then skipped with a warning, and `submit` stopped with "internal error: OSError: No space
    left on device" (thirty-third pass of 2026-12-03)."""
    size = os.fstat(fd).st_size
    data = memoryview(line.encode("utf-8"))
    try:
        while data:
            data = data[os.write(fd, data):]
        os.fsync(fd)
    except OSError as exc:
        try:
            os.ftruncate(fd, size)  # the part written taken back: the file as it was
        except OSError:
            pass
        raise InvalidRecordError(f"{method}: not recorded, {path} could not be written ({exc.strerror}); the "
                                 "file is as it was: free space there and submit again") from None


def _note_reference_run(entry: Entry, line: str, path: Path) -> None:
    """A reference run's record listed in its leaderboard's manifest as it is written (the readers skip a
    reference-authored line the manifest does not list: ``reference_runs``, hundred-and-nineteenth pass)."""
    from perfgraphs.leaderboard.records.reference_runs import is_reference_run, note_run

    if is_reference_run(asdict(entry)):
        note_run(run_digest(line), entry.method, path.parent)


def append_entry(entry: Entry, root: Path | None = None, before: dict[str, bytes] | None = None) -> Path:
    """Append one record atomically with respect to other writers (flock + single write + fsync);
    with ``before`` (:func:`results_snapshot` at the submission's start), only if
    :func:`check_unchanged` holds, checked under the lock."""
    from perfgraphs.leaderboard.records import record_check

    path = results_path(entry.dataset, root)
    why = record_check.record_problem(asdict(entry), _FIELDS, min_seeds_of(path.parent) or record_check.MIN_SEEDS)
    if why is not None:  # the last guard before the file: whatever produced the entry
        raise InvalidRecordError(f"{entry.method}: not recorded, the record is not valid ({why})")
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
    except OSError as exc:  # a regular file where the folder goes: one line, not an internal error
        raise InvalidRecordError(f"{entry.method}: not recorded, {path.parent} is not a usable folder "
                                 f"({exc.strerror})") from None
    # the scores the tables rank are finite (record_problem); what else may be undefined, a
    # family's Kendall τ over one graph say, is stored as null: strict JSON, never NaN
    line = json.dumps(_undefined_as_null(asdict(entry)), sort_keys=True, allow_nan=False) + "\n"
    if path.is_file() and (why := checkout_problem(path)):  # a UTF-8 line in a converted file: both corrupted
        raise InvalidRecordError(f"{entry.method}: not recorded, {printable(why)}")
    if path.is_symlink() or (path.exists() and not path.is_file()):
        # a link is another file's records (the boards skip it), and `submit` appended through it
        # to whatever it named, outside --results (thirtieth pass of 2026-12-03)
        raise InvalidRecordError(f"{entry.method}: not recorded, {path} is not a file (a folder or a link)")
    try:
        fd = os.open(path, os.O_RDWR | os.O_APPEND | os.O_CREAT | os.O_NOFOLLOW, 0o644)
    except OSError as exc:
        raise InvalidRecordError(f"{entry.method}: not recorded, {path} cannot be opened ({exc.strerror})") from None
    with open(fd, "a+", errors="replace", newline="") as f:  # a line of invalid UTF-8 is skipped, never a stop
        fcntl.flock(f, fcntl.LOCK_EX)
        try:
            if before is not None:
                check_unchanged(before, root)
            f.seek(0)
            text = f.read()
            if text and not text.endswith("\n"):
                # a file whose last record has no line break (a hand edit) got the new record on that
                # line: both were one invalid line, two records lost (thirtieth pass of 2026-12-03)
                line = "\n" + line
            recorded = RecordedBoards()  # the file's boards, resolved once if a record is compared
            for existing in record_lines(text):
                other, why = _parse_record(existing) if existing.strip() else (None, "blank")
                if why is None:  # an invalid line is shown nowhere, so it cannot be duplicated
                    if entry_key(other, recorded) == entry_key(asdict(entry), recorded):
                        raise DuplicateEntryError(
                            f"{entry.method} at commit {entry.code_commit[:12]} is already ranked on "
                            f"{entry.dataset}/{entry.config}/{entry.target} ({entry.test_set} test set)")
            _write_line(f.fileno(), line, path, entry.method)
            _note_reference_run(entry, line, path)
        finally:
            fcntl.flock(f, fcntl.LOCK_UN)
    return path
