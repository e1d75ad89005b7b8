"""The canonical leaderboard records: ``leaderboard/results/<dataset>.jsonl``, one JSON object per
scored entry, appended under an exclusive file lock so concurrent submissions never interleave
or lose a record (MLflow keeps the detailed log; this file is what the site is built from)."""

from __future__ import annotations

import fcntl
import json
import os
import statistics
from dataclasses import asdict, dataclass, field
from datetime import datetime, timezone
from pathlib import Path

from perfgraphs.errors import PerfgraphsError

RESULTS_DIR = Path(__file__).resolve().parent / "results"
METRICS = ("mape_pct", "rmse", "acc_10_pct", "kendall_tau")


class DuplicateEntryError(PerfgraphsError):
    """The same method at the same code commit is already on the leaderboard."""


@dataclass(frozen=True)
class Entry:
    method: str
    dataset: str
    dataset_version: str
    dataset_content_hash: str
    config: str
    target: str
    tier: str  # "verified" (scored by the harness) or "self-reported"
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

    def mean_std(self, metric: str) -> tuple[float, float]:
        values = [float(s[metric]) for s in self.per_seed]
        return statistics.fmean(values), (statistics.stdev(values) if len(values) > 1 else 0.0)

    def interval95(self, metric: str = "mape_pct") -> tuple[float, float]:
        """Mean ± 1.96 standard errors over seeds (a single seed gives a point)."""
        mean, std = self.mean_std(metric)
        half = 1.96 * std / len(self.per_seed) ** 0.5
        return mean - half, mean + half


def entry_key(record: dict) -> tuple:
    """What makes two records the same entry: one per (method, code commit) per board."""
    return (record["method"], record["code_commit"], record["config"], record["target"],
            record.get("test_set", "public"))


def find_duplicate(dataset: str, method: str, code_commit: str, config: str, target: str,
                   test_set: str = "public", root: Path | None = None) -> Entry | None:
    """The recorded entry a new submission would duplicate, if any (checked again under the lock
    when the record is appended)."""
    key = (method, code_commit, config, target, test_set)
    return next((e for e in read_entries(dataset, root) if entry_key(asdict(e)) == key), None)


def results_path(dataset: str, root: Path | None = None) -> Path:
    return (root or RESULTS_DIR) / f"{dataset.split('/')[-1]}.jsonl"


def read_entries(dataset: str, root: Path | None = None) -> list[Entry]:
    path = results_path(dataset, root)
    if not path.exists():
        return []
    entries = []
    for n, line in enumerate(path.read_text().splitlines(), 1):
        if line.strip():
            try:
                entries.append(Entry(**json.loads(line)))
            except (json.JSONDecodeError, TypeError) as exc:
                raise PerfgraphsError(f"{path}:{n} is not a valid leaderboard record ({exc})") from None
    return entries


def append_entry(entry: Entry, root: Path | None = None) -> Path:
    """Append one record atomically with respect to other writers (flock + single write + fsync)."""
    path = results_path(entry.dataset, root)
    path.parent.mkdir(parents=True, exist_ok=True)
    line = json.dumps(asdict(entry), sort_keys=True) + "\n"
    with open(path, "a+") as f:
        fcntl.flock(f, fcntl.LOCK_EX)
        try:
            f.seek(0)
            for existing in f.read().splitlines():
                if existing.strip():
                    other = json.loads(existing)
                    if entry_key(other) == entry_key(asdict(entry)):
                        raise DuplicateEntryError(
                            f"{entry.method} at commit {entry.code_commit[:12]} is already ranked on "
                            f"{entry.dataset}/{entry.config}/{entry.target} ({entry.test_set} test set)")
            f.write(line)
            f.flush()
            os.fsync(f.fileno())
        finally:
            fcntl.flock(f, fcntl.LOCK_UN)
    return path


def rank(entries: list[Entry], metric: str = "mape_pct") -> list[tuple[int, Entry]]:
    """Rank by mean (lower is better); entries whose 95 % intervals overlap the interval of the
    entry that opened the current rank share that rank."""
    ordered = sorted(entries, key=lambda e: e.mean_std(metric)[0])
    ranked, current, anchor_hi = [], 0, None
    for i, e in enumerate(ordered):
        lo, hi = e.interval95(metric)
        if anchor_hi is None or lo > anchor_hi:
            current, anchor_hi = i + 1, hi
        ranked.append((current, e))
    return ranked
