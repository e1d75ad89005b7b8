"""A config's labels measured again: the repetitions of each test label, from its repeat store.

A config whose test part was measured again (``Config.repeat_suite``: a store written by a plan of
:mod:`perfgraphs.data.visits_plan`, whose rows carry the keys of the config's own store) has, for
every test row, its label's own measurement and the visits' measurements of the same
configuration on the same machine. Those values are the label's repetitions: the boards resample
them (label noise in the rank intervals, :mod:`perfgraphs.evaluation.ranking`) and the noise floor
of the test part is measured on them (:func:`repeat_floor`).

The label itself is not replaced: every entry is scored on the label the build serves (one
measurement), and a repetition only says how far another measurement of it lies.
"""

from __future__ import annotations

import statistics
from dataclasses import dataclass

from perfgraphs import paths
from perfgraphs.collect.floor import TARGET_COLUMNS
from perfgraphs.registry import Config, Dataset

# A drift-calibrated latency is ``run_ms * baseline / probe_ms`` with its campaign's own baseline (the
# reference workload's first measurement, in each row): a visit is put on the label's scale by the
# ratio of the two rows' baselines.
BASELINE = "ref_baseline_ms"


# What each store gave, by the store's state (campaign.json's stamp and its file names: a store's files
# are written once and replaced only under new names, so one state is one set of rows). A board's
# floor and its ranks both ask for its repetitions, and a process that shows boards again and again
# (the site, `leaderboard show` per group, the tests) would otherwise read and verify every file of
# both stores each time: about 2 s a call for the dippm stores.
_READ: dict[tuple, object] = {}
_READ_LIMIT = 16


def _by_store_state(store, what: tuple, read):
    key = (str(store.root.resolve()), what, store.state())
    if key not in _READ:
        if len(_READ) >= _READ_LIMIT:
            _READ.clear()
        _READ[key] = read()
    return _READ[key]


def repeat_values(ds: Dataset, cfg: Config, target: str, measurement_ids: list[str]) -> list[list[float]] | None:
    """Per row (``measurement_ids``: the rows' ``measurement_id``, in order), the label's own value
    followed by every ok visit of its configuration in the repeat store (round order); a row no visit
    measured has its own value alone. None when the config has no repeat store or the target no
    store column."""
    column = TARGET_COLUMNS.get(target)  # the store column a target's repetitions are read from
    if cfg.repeat_suite is None or column is None:
        return None
    from perfgraphs.collect.rounds import round_of
    from perfgraphs.collect.store import MeasurementStore
    from perfgraphs.data.build import measurement_root

    calibrated = column == "latency_calibrated_ms"
    own_store = MeasurementStore(measurement_root(ds, cfg))
    own = _by_store_state(own_store, ("labels", column), lambda: {
        r["measurement_id"]: r for r in own_store.read(latest=False)
        .select(["measurement_id", "key", column, BASELINE]).to_pylist()})
    repeat_store = MeasurementStore(paths.measurement_store(cfg.repeat_suite))

    def read_visits() -> dict[str, list[tuple[int, float, float | None]]]:
        visits: dict[str, list[tuple[int, float, float | None]]] = {}
        for r in repeat_store.round_rows():
            if r["status"] == "ok" and r.get(column) is not None and not r.get("gate_flagged"):
                visits.setdefault(r["key"], []).append((round_of(r), float(r[column]), r.get(BASELINE)))
        return visits

    visits = _by_store_state(repeat_store, ("visits", column), read_visits)
    out = []
    for mid in measurement_ids:
        row = own.get(mid)
        if row is None or row[column] is None:
            out.append([])
            continue
        again = sorted(visits.get(row["key"], []))
        if calibrated:  # on the label's baseline; a row without one cannot be compared
            again = [(n, v * row[BASELINE] / b, b) for n, v, b in again if row[BASELINE] and b]
        out.append([float(row[column])] + [v for _, v, _ in again])
    return out


@dataclass(frozen=True)
class RepeatFloor:
    """How far the visits of the test part lie from the labels the board scores."""

    target: str
    n_configs: int  # test rows with at least one visit
    n_visits: int  # visits compared (label, visit) pairs
    mape_pct: float  # mean over pairs of |visit - label| / label
    median_ape_pct: float
    visits_mape_pct: float | None  # the visits among themselves: each visit against the first

    def sentence(self, suite: str) -> str:
        among = (f"; the visits among themselves {self.visits_mape_pct:.1f} %" if self.visits_mape_pct is not None
                 else "")
        return (f"**{self.mape_pct:.1f} % MAPE** between each test label and the same configuration measured again "
                f"later ({self.n_visits} visits of {self.n_configs} test configurations, store {suite}; median "
                f"{self.median_ape_pct:.1f} %{among})")


def repeat_floor(values: list[list[float]], target: str) -> RepeatFloor | None:
    """The floor of a test part from :func:`repeat_values`: every visit as a prediction of its label."""
    apes = [abs(v - reps[0]) / reps[0] * 100 for reps in values if len(reps) > 1 and reps[0] > 0 for v in reps[1:]]
    among = [abs(v - reps[1]) / reps[1] * 100 for reps in values if len(reps) > 2 and reps[1] > 0 for v in reps[2:]]
    if not apes:
        return None
    return RepeatFloor(target, sum(len(reps) > 1 for reps in values), len(apes), statistics.fmean(apes),
                       statistics.median(apes), statistics.fmean(among) if among else None)
