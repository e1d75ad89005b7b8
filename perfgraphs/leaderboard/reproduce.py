"""Score a reference record again at its own commit: the check behind the word *reproduced*.

A results file is text. A record under a reference's name, by the reference authors, at a real
commit that holds the reference's code passes every check made when records are read
(:mod:`perfgraphs.leaderboard.records.trust`), whatever its scores say: the numbers are the record's
own. What certifies a harness score is that the same code at the same commit, on the same build,
scores it again. :func:`reproduce` does that, as a reviewer does before merging a new record (and as
MLPerf's reviewers re-run a submission): it checks the record's commit out into a temporary git
worktree, runs *that commit's* ``perfgraphs submit`` on the reference's folder there, with the
record's board, protocol, quick setting and seeds, into a scratch results folder and a fresh home,
and compares each seed's MAPE and the build's content hash with the record's.

Only reference records carry their code in this repository; another record's code is at its
``code_url`` and is reproduced from there.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

from perfgraphs.errors import PerfgraphsError
from perfgraphs.leaderboard.records.history import full_history, git
from perfgraphs.leaderboard.records.references import REFERENCE_AUTHORS, REFERENCE_DIR
from perfgraphs.leaderboard.records.results import RESULTS_DIR
from perfgraphs.leaderboard.records.tiers import HARNESS_TIERS

# A seed's MAPE scored again may move by float noise (threads, a library's reduction order): 0.5 %
# of it. A changed score moves further; a deterministic entry gives the same digits.
TOLERANCE_REL = 5e-3


class ReproduceError(PerfgraphsError):
    """The record cannot be scored again here (not a reference's, no history, the run failed)."""


@dataclass(frozen=True)
class Reproduction:
    dataset: str
    line: int
    method: str
    commit: str
    recorded_mape_pct: tuple[float, ...]  # per seed, as the record says
    found_mape_pct: tuple[float, ...]  # per seed, scored again
    recorded_build: str
    found_build: str
    tolerance_rel: float = TOLERANCE_REL

    @property
    def problems(self) -> list[str]:
        out = []
        if self.found_build != self.recorded_build:
            out.append(f"the build at {self.commit[:12]} is {self.found_build[:12]}, the record's {self.recorded_build[:12]}")
        if len(self.found_mape_pct) != len(self.recorded_mape_pct):
            out.append(f"{len(self.found_mape_pct)} seeds scored, the record has {len(self.recorded_mape_pct)}")
        for i, (a, b) in enumerate(zip(self.recorded_mape_pct, self.found_mape_pct)):
            if abs(a - b) > self.tolerance_rel * max(abs(b), 1e-9):
                out.append(f"seed {i}: MAPE {b:.4f} % scored again, {a:.4f} % in the record")
        return out

    @property
    def ok(self) -> bool:
        return not self.problems


def read_record(dataset: str, line: int, results: Path | None = None) -> dict:
    path = Path(results or RESULTS_DIR) / f"{dataset.split('/')[-1]}.jsonl"
    try:
        lines = path.read_text().splitlines()
    except OSError as exc:
        raise ReproduceError(f"cannot read {path} ({exc.strerror or exc})") from None
    if not 1 <= line <= len(lines):
        raise ReproduceError(f"{path} has {len(lines)} records: no line {line}")
    try:
        record = json.loads(lines[line - 1])
    except ValueError:
        raise ReproduceError(f"{path}:{line} is not a JSON record") from None
    if not isinstance(record, dict):
        raise ReproduceError(f"{path}:{line} is not a JSON record")
    return record


def _submit_command(record: dict, folder: str, results: Path, time_limit_s: float) -> list[str]:
    seeds = [str(int(s["seed"])) for s in record.get("per_seed", [])]
    cmd = [sys.executable, "-c", "import sys; from perfgraphs.cli import main; sys.exit(main(sys.argv[1:]))",
           "submit", folder, "--dataset", record["dataset"], "--config", record["config"],
           "--target", record["target"], "--seeds", *seeds, "--results", str(results), "--no-mlflow",
           "--time-limit-s", str(time_limit_s)]
    if " (quick" in record["method"]:
        cmd.append("--quick")
    if record.get("protocol"):
        cmd += ["--protocol", record["protocol"]]
    return cmd


def reproduce(dataset: str, line: int, results: Path | None = None, time_limit_s: float = 3600,
              tolerance_rel: float = TOLERANCE_REL) -> Reproduction:
    """Score record ``line`` (1-based) of ``dataset``'s results file again at its commit."""
    record = read_record(dataset, line, results)
    method, commit = str(record.get("method", "")), str(record.get("code_commit", ""))
    if record.get("authors") != REFERENCE_AUTHORS:
        raise ReproduceError(f"{method!r} is not a reference record: its code is at its code_url "
                             f"({record.get('code_url')}), not in this repository")
    if record.get("tier") not in HARNESS_TIERS or record.get("test_set", "public") != "public":
        raise ReproduceError(f"{method!r} is not a harness score on a public test set: nothing here can score "
                             "it again")
    if record.get("protocol", "").startswith("leave-one-platform-out"):
        raise ReproduceError(f"{method!r} is a transfer record: `python -m benchmarks.platform_transfer` scores "
                             "those again")
    root = REFERENCE_DIR.parent.parent
    if not full_history(REFERENCE_DIR.parent) or git(root, "cat-file", "-e", f"{commit}^{{commit}}") is None:
        raise ReproduceError(f"commit {commit[:12]!r} is not in this checkout's history (a shallow clone, an "
                             "installed package, or a commit that never landed)")
    folder = f"leaderboard/{REFERENCE_DIR.name}/{method.split(' (')[0]}"
    with tempfile.TemporaryDirectory(prefix="perfgraphs-reproduce-") as tmp:
        tree = Path(tmp) / "tree"
        if git(root, "worktree", "add", "--detach", "--quiet", str(tree), commit) is None:
            raise ReproduceError(f"cannot check out {commit[:12]} into a worktree")
        try:
            if not (tree / folder / "submission.yaml").is_file():
                raise ReproduceError(f"{folder}/ does not exist at {commit[:12]}")
            env = {k: v for k, v in os.environ.items()
                   if not k.startswith("PERFGRAPHS_") and k not in ("PYTHONPATH", "MLFLOW_TRACKING_URI")}
            env.update(PYTHONPATH=str(tree), PERFGRAPHS_HOME=str(Path(tmp) / "home"), PYTHONDONTWRITEBYTECODE="1")
            out = Path(tmp) / "results"
            done = subprocess.run(_submit_command(record, folder, out, time_limit_s), cwd=tree, env=env,
                                  capture_output=True, text=True)
            if done.returncode != 0:
                last = (done.stderr.strip().splitlines() or ["no message"])[-1]
                raise ReproduceError(f"the submit of {commit[:12]} failed (exit {done.returncode}): {last[:300]}")
            written = [json.loads(x) for p in sorted(out.glob("*.jsonl")) for x in p.read_text().splitlines()]
            if len(written) != 1:
                raise ReproduceError(f"the submit of {commit[:12]} wrote {len(written)} records, not one")
        finally:
            git(root, "worktree", "remove", "--force", str(tree))
            shutil.rmtree(tree, ignore_errors=True)
            git(root, "worktree", "prune")
    again = written[0]
    return Reproduction(record["dataset"], line, method, commit,
                        tuple(float(s["mape_pct"]) for s in record.get("per_seed", [])),
                        tuple(float(s["mape_pct"]) for s in again.get("per_seed", [])),
                        str(record.get("dataset_content_hash", "")), str(again.get("dataset_content_hash", "")),
                        tolerance_rel)
