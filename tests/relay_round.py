"""One frozen hidden round shared by four relay passes' tests (70b, 72b, 73b, 74b).

Each of those passes found a machine-wide channel through which the seeds of a ``--frozen`` hidden run
handed each other their fits, and each test froze a ridge carrying that relay, committed a hidden set
after the fits, scored it with the guard on (every seed scores its own state) and again with the guard
off (the control: the seeds score the running mean the relay hands them). The freeze and the guarded
round were the same in all four, about 12 s of sandboxed runs each, so they are made once a session
(the ``relay_round`` fixture in conftest): the ridge's ``load_state`` carries every relay, each inert
where its channel is shut (it reads nothing and the seed keeps its own level), and each test asserts
the guarded record and runs its own control, one guard off. A relay whose channel another control
opens stays inert there, because every other guard is still on.
"""

from __future__ import annotations

import json
import subprocess
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pyarrow.parquet as pq

MEMORY_MB = "768"  # the seeds' memory limit: 72b's relay fills it before it stalls (8 GB works too, slower)
SEEDS = (0, 1, 2, 3, 4)


def organisers_repository(root: Path):
    """A commitments folder inside a git repository of its own, standing in for the repository's
    ``leaderboard/hidden/``: (folder, commit), ``commit()`` committing whatever was written there."""
    repo = root / "organisers"
    folder = repo / "leaderboard" / "hidden"
    folder.mkdir(parents=True)
    git = ["git", "-C", str(repo), "-c", "user.name=organisers", "-c", "user.email=o@example.org"]
    subprocess.run([*git, "init", "-q"], check=True)
    subprocess.run([*git, "commit", "-q", "--allow-empty", "-m", "start"], check=True)

    def commit(message: str = "hidden-set commitment") -> None:
        subprocess.run([*git, "add", "-A"], check=True)
        subprocess.run([*git, "commit", "-q", "-m", message], check=True)

    return folder, commit


@dataclass(frozen=True)
class RelayRound:
    """The shared round: the submission, its frozen fits, where it is scored, each seed's state, the MAPE
    each state earns on the hidden set, and the record of the round scored with every guard on."""

    submission: Path
    frozen: Path
    results: Path
    keeper: Path
    commitments: Path
    home: Path
    parts: object
    states: dict
    own: dict
    record: dict
    drops: int  # page-cache drops during the guarded round

    def use(self, monkeypatch) -> None:
        """Point a test at this round's datasets, keeper folder and commitments (as ``env`` and
        ``git_commitments`` do for a test's own round)."""
        from perfgraphs.leaderboard.records import hidden

        monkeypatch.setenv("PERFGRAPHS_HOME", str(self.home))
        monkeypatch.setenv("PERFGRAPHS_HIDDEN_DIR", str(self.keeper))
        monkeypatch.setattr(hidden, "COMMITMENTS_DIR", self.commitments)

    def labels(self) -> np.ndarray:
        return np.asarray(self.parts.test["latency_ms"], dtype=float)

    def score_again(self) -> dict:
        """The keeper's --frozen round on the hidden set once more: its record."""
        return submit(self.submission, self.results, "--hidden-labels", "--frozen", str(self.frozen))

    def assert_guarded_scores_own(self) -> None:
        """With every guard on, the hidden record is verified and each seed scored what its own state
        predicts: no relay read anything."""
        record = self.record
        assert record["test_set"] == "hidden" and record["tier"] == "verified" and record["frozen_fit"]
        # every run on an emptied cache: the five seeds, the one run again, and the replay after them, which
        # a seed's lookups left in the dentry cache reached otherwise (the replayed seed refused the record)
        assert self.drops == len(SEEDS) + 2, self.drops
        for seed in record["per_seed"]:
            assert seed["mape_pct"] == _approx(self.own[seed["seed"]], 1e-5), (seed, self.own)


def _approx(value: float, rel: float):
    import pytest

    return pytest.approx(value, rel=rel)


def submit(sub: Path, results: Path, *extra: str) -> dict:
    """``submit`` of ``sub`` on the tiny board (``--quick``, the relays' memory limit): the record it
    writes, none for a freeze."""
    from perfgraphs.cli import main
    from test_submit import BOARD

    written = results / "dippm.jsonl"
    written.unlink(missing_ok=True)
    memory = ["--memory-mb", MEMORY_MB] if MEMORY_MB else []
    rc = main(["submit", str(sub), *BOARD, "--quick", *memory, *extra,
               "--results", str(results), "--no-mlflow"])
    assert rc == 0, "submit failed: its line is in the captured stderr"
    if "--freeze" in extra:
        return {}
    (record,) = [json.loads(line) for line in written.read_text().splitlines()]
    return record


def every_relay() -> tuple[str, str]:
    """(load_state's relays, predict's) of the four passes, each in a ``try`` of its own that leaves the
    level as it was where its channel is shut. (69b's dentry relay is not among them: its directory
    lookups, in a ridge beside 74b's, moved the disk's free blocks between 74b's seeds, every try of two
    runs, so 69b freezes its own.)"""
    import test_leaderboard_review_70b as counts
    import test_leaderboard_review_72b as stalls
    import test_leaderboard_review_73b as load_average
    import test_leaderboard_review_74b as disk_blocks

    return counts.RELAY + stalls.RELAY + load_average.RELAY + disk_blocks.READ, disk_blocks.LEAVE


def freeze_relay_round(root: Path, home: Path, monkeypatch) -> RelayRound:
    """Freeze the ridge carrying every relay, commit its fits and a hidden set (the tiny test part) after
    them, and score the set --frozen with every guard on."""
    from perfgraphs.evaluation.protocol import load_protocol
    from perfgraphs.leaderboard.records import hidden
    from test_leaderboard_review_63b import _predict
    from test_leaderboard_review_70b import relaying_ridge
    from test_submit import numpy_mape

    from perfgraphs.cli import main

    monkeypatch.setenv("PERFGRAPHS_HOME", str(home))
    commitments, commit = organisers_repository(root)
    monkeypatch.setattr(hidden, "COMMITMENTS_DIR", commitments)
    parts = load_protocol("dippm", "cpu-torch-fp32", home)
    relays, in_predict = every_relay()
    sub = relaying_ridge(root / "sub", relays, "ridge-relays", in_predict)
    frozen, results = commitments.parent / "frozen" / "sub", root / "results"
    submit(sub, results, "--freeze", str(frozen))
    commit("frozen fits")
    keeper = root / "keeper"
    keeper.mkdir()
    monkeypatch.setenv("PERFGRAPHS_HIDDEN_DIR", str(keeper))
    pq.write_table(parts.test.data.table, keeper / "dippm-cpu-torch-fp32.parquet")
    assert main(["leaderboard", "commit-hidden", "--dataset", "dippm", "--config", "cpu-torch-fp32",
                 "--commitments", str(commitments)]) == 0
    commit()
    states = {s: dict(np.load(frozen / f"seed-{s}.npz", allow_pickle=False)) for s in SEEDS}
    y = np.asarray(parts.test["latency_ms"], dtype=float)
    own = {s: numpy_mape(y, _predict(states[s], parts.test)) for s in states}
    assert len({round(m, 9) for m in own.values()}) == len(SEEDS)  # the fits differ: an ensemble would show
    from perfgraphs.leaderboard.sandbox import confine

    drops, drop = [], confine.drop_page_cache
    monkeypatch.setattr(confine, "drop_page_cache", lambda: drops.append(1) or drop())
    record = submit(sub, results, "--hidden-labels", "--frozen", str(frozen))
    return RelayRound(sub, frozen, results, keeper, commitments, home, parts, states, own, record, len(drops))
