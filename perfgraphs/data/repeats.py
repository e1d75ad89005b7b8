"""A config's labels measured again: the repetitions of each label, from its rounds or its repeat store.

A config measured in rounds (``Config.min_rounds`` >= 2, :mod:`perfgraphs.collect.rounds`) labels
each configuration with the mean of its rounds and keeps every round in the build
(:data:`ROUND_COLUMNS`): those rounds are the label's repetitions.

A config whose test part was measured again (``Config.repeat_suite``: a store written by a plan of
:mod:`perfgraphs.data.visits_plan`, whose rows carry the keys of the config's own store) has, for
every test row, its label's own measurement and the visits' measurements of the same
configuration on the same machine. Those values are the label's repetitions: the boards resample
them (label noise in the rank intervals, :mod:`perfgraphs.evaluation.ranking`) and the noise floor
of the test part is measured on them (:func:`repeat_floor`).

The build's label is not replaced: the Evaluator and every record score the label the build serves
(one measurement). The boards' ranks score each test configuration against the mean of its
repetitions, the visits first put on the labels' scale (:func:`repeat_values`;
:mod:`perfgraphs.evaluation.ranking`), and the floor states that mean's standard error beside the
distance of one measurement from another.
"""

from __future__ import annotations

import math
import statistics
from dataclasses import dataclass

from perfgraphs import paths
from perfgraphs.collect.floor import TARGET_COLUMNS
from perfgraphs.errors import PerfgraphsError
from perfgraphs.registry import Config, Dataset, get_dataset


class NoRepetitionsError(PerfgraphsError):
    """The config's labels of this target are one measurement each (no rounds, no repeat store)."""

# the build's column of each label's rounds (perfgraphs.collect.rounds.fold), where the label is their mean
ROUND_COLUMNS = {"latency_ms": "round_latency_ms", "cpu_time_ms": "round_cpu_time_ms"}

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
_READ_LIMIT = 32


def _by_store_state(store, what: tuple, read):
    key = (str(store.root.resolve()), what, store.state())
    if key not in _READ:
        if len(_READ) >= _READ_LIMIT:
            _READ.clear()
        _READ[key] = read()
    return _READ[key]


def _labels_and_visits(ds: Dataset, cfg: Config, target: str,
                       measurement_ids: list[str]) -> list[tuple[float | None, list[tuple[int, float]]]] | None:
    """Per row, its label's own value (None: the row names no measurement of the target) and every
    ok visit of its configuration as (visit, value), in visit order."""
    column = TARGET_COLUMNS.get(target)  # the store column a target's repetitions are read from
    if cfg.repeat_suite is None or column is None:
        return None
    from perfgraphs.collect.rounds import round_of
    from perfgraphs.collect.store import MeasurementStore
    from perfgraphs.data.build import measurement_root

    calibrated = column == "latency_calibrated_ms"
    own_store = MeasurementStore(measurement_root(ds, cfg))
    # each store is read once per state, whatever the column: a board per target asks for the same files
    own_rows = _by_store_state(own_store, ("rows",), lambda: own_store.read(latest=False))
    own = _by_store_state(own_store, ("labels", column), lambda: {
        r["measurement_id"]: r for r in own_rows.select(["measurement_id", "key", column, BASELINE]).to_pylist()})
    repeat_store = MeasurementStore(paths.measurement_store(cfg.repeat_suite))
    repeat_rows = _by_store_state(repeat_store, ("round rows",), repeat_store.round_rows)

    def read_visits() -> dict[str, list[tuple[int, float, float | None]]]:
        visits: dict[str, list[tuple[int, float, float | None]]] = {}
        for r in repeat_rows:
            if r["status"] == "ok" and r.get(column) is not None and not r.get("gate_flagged"):
                visits.setdefault(r["key"], []).append((round_of(r), float(r[column]), r.get(BASELINE)))
        return visits

    visits = _by_store_state(repeat_store, ("visits", column), read_visits)
    out = []
    for mid in measurement_ids:
        row = own.get(mid)
        if row is None or row[column] is None:
            out.append((None, []))
            continue
        again = sorted(visits.get(row["key"], []))
        if calibrated:  # on the label's baseline; a row without one cannot be compared
            again = [(n, v * row[BASELINE] / b, b) for n, v, b in again if row[BASELINE] and b]
        out.append((float(row[column]), [(n, v) for n, v, _ in again]))
    return out


def _levels(rows: list[tuple[float | None, list[tuple[int, float]]]]) -> dict[int, float]:
    """Each visit's level: the median over the rows of its value / the row's label."""
    ratios: dict[int, list[float]] = {}
    for label, again in rows:
        if label is not None and label > 0:
            for n, v in again:
                if v > 0:
                    ratios.setdefault(n, []).append(v / label)
    return {n: statistics.median(r) for n, r in ratios.items()}


def repeat_values(ds: Dataset, cfg: Config, target: str, measurement_ids: list[str],
                  on_label_scale: bool = False) -> list[list[float]] | None:
    """Per row (``measurement_ids``: the rows' ``measurement_id``, in order), the label's own value
    followed by every ok visit of its configuration in the repeat store (visit order); a row no visit
    measured has its own value alone, a row without a label none. None when the config has no
    repeat store or the target no store column.

    ``on_label_scale``: each visit divided by its level (:func:`repeat_levels`). A visit is one pass
    over the part, in one state of the host (the dippm test part's six passes ran at 0.88-1.00 of
    the labels' level, trappm's four at 0.89-0.96), while every training label carries the level of
    the labels' own campaign; on that scale the visits add what moves between configurations, not
    a pass's offset that no predictor could learn from its training rows."""
    rows = _labels_and_visits(ds, cfg, target, measurement_ids)
    if rows is None:
        return None
    level = _levels(rows) if on_label_scale else {}
    return [[] if label is None else [label] + [v / level.get(n, 1.0) for n, v in again] for label, again in rows]


def repeat_levels(ds: Dataset, cfg: Config, target: str, measurement_ids: list[str]) -> dict[int, float] | None:
    """Each visit's level over these rows: the median of visit / label (1.0: the labels' own)."""
    rows = _labels_and_visits(ds, cfg, target, measurement_ids)
    return None if rows is None else _levels(rows)


def measurements(values) -> list[float]:
    """The measurements among ``values``: a missing or non-positive one (a failed round) is none."""
    return [float(v) for v in values if v is not None and math.isfinite(v) and v > 0]


def part_repetitions(ds: Dataset, cfg: Config, target: str, part,
                     on_label_scale: bool = False) -> list[list[float]] | None:
    """Every row's repetitions of its ``target`` label, in the rows' order (``part``: rows of the
    config's build, a Hugging Face part): its rounds where the config is measured in rounds (the
    label their mean; rounds of one campaign, interleaved, need no scale), else the label and its
    visits where the config was measured again (the label the first of them; ``on_label_scale``:
    :func:`repeat_values`'); None where the labels are one measurement each."""
    column = ROUND_COLUMNS.get(target) if cfg.min_rounds >= 2 else None
    if column is not None:
        if column not in part.column_names:
            return None
        return [measurements(v or []) for v in part[column][:]]
    if cfg.repeat_suite is None or "measurement_id" not in part.column_names:
        return None
    values = repeat_values(ds, cfg, target, list(part["measurement_id"][:]), on_label_scale)
    return None if values is None else [measurements(v) for v in values]


@dataclass(frozen=True)
class RepeatFloor:
    """How far the visits of the test part lie from the labels the board scores."""

    target: str
    n_configs: int  # test rows with at least one visit
    n_visits: int  # visits compared (label, visit) pairs
    mape_pct: float  # mean over pairs of |visit - label| / label
    median_ape_pct: float
    visits_mape_pct: float | None  # the visits among themselves: each visit against the first
    # the mean of a configuration's measurements on the labels' scale (the label the boards rank
    # against): its standard error (sample standard deviation / sqrt(measurements)) relative to it,
    # median over configurations
    mean_se_median_pct: float
    measurements: tuple[int, int]  # fewest and most measurements of a configuration measured again
    levels: tuple[float, float] | None = None  # lowest and highest visit level (repeat_levels), where put on scale

    def sentence(self, suite: str) -> str:
        among = (f"; the visits among themselves {self.visits_mape_pct:.1f} %" if self.visits_mape_pct is not None
                 else "")
        low, high = self.measurements
        k = f"{low}" if low == high else f"{low}-{high}"
        scale = ("" if self.levels is None else
                 f", each visit first divided by its level (its median ratio to the labels: "
                 f"{self.levels[0]:.2f}-{self.levels[1]:.2f})")
        return (f"**{self.mape_pct:.1f} % MAPE** between each test label and the same configuration measured again "
                f"later ({self.n_visits} visits of {self.n_configs} test configurations, store {suite}; median "
                f"{self.median_ape_pct:.1f} %{among}); a board's ranks score each of these labels against the mean "
                f"of its {k} measurements{scale}, whose standard error is a median "
                f"{self.mean_se_median_pct:.1f} % of it")


def repeat_floor(values: list[list[float]], target: str, ranked: list[list[float]] | None = None,
                 levels: dict[int, float] | None = None) -> RepeatFloor | None:
    """The floor of a test part from :func:`repeat_values`: every visit as a prediction of its label
    (``values``: as measured); the mean's standard error from ``ranked`` (the same rows on the
    labels' scale, with ``levels`` the visits' levels; default ``values``)."""
    values = [measurements(reps) for reps in values]
    ranked = values if ranked is None else [measurements(reps) for reps in ranked]
    apes = [abs(v - reps[0]) / reps[0] * 100 for reps in values if len(reps) > 1 and reps[0] > 0 for v in reps[1:]]
    among = [abs(v - reps[1]) / reps[1] * 100 for reps in values if len(reps) > 2 and reps[1] > 0 for v in reps[2:]]
    if not apes:
        return None
    again = [reps for reps in ranked if len(reps) > 1]
    errors = [statistics.stdev(reps) / len(reps) ** 0.5 / statistics.fmean(reps) * 100 for reps in again]
    return RepeatFloor(target, sum(len(reps) > 1 for reps in values), len(apes), statistics.fmean(apes),
                       statistics.median(apes), statistics.fmean(among) if among else None, statistics.median(errors),
                       (min(map(len, again)), max(map(len, again))),
                       (min(levels.values()), max(levels.values())) if levels else None)


def load_repetitions(dataset: str, config: str, target: str):
    """Every labeled row of a config's build with its label's repetitions, per trial and aggregated
    (as NAS-Bench-201 exposes its repeated trials): a ``datasets.Dataset`` with the row's ``split``
    (a cross-validated config's rows are all ``train``), ``measurement_id`` and label
    (``<target>``, the build's), then ``repetitions`` (:func:`part_repetitions`: the label's rounds,
    or its own measurement followed by every visit of its configuration, as measured; in the
    target's unit), ``repetitions_on_label_scale`` (the visits each divided by its level,
    :func:`repeat_values`), ``n_repetitions``, and over the latter ``repetitions_mean`` (what the
    boards rank against) and ``repetitions_std`` (sample standard deviation; None for one
    measurement). Rows of a part that was not measured again have their label alone. Raises
    :class:`NoRepetitionsError` where the config's labels of ``target`` are one measurement each."""
    import datasets

    from perfgraphs.data.load import load_build

    ds = get_dataset(dataset)
    cfg = ds.config(config)
    cfg.target(target)  # an unknown target: one line naming the config's targets
    rows, found = [], False
    for split, part in load_build(ds, cfg).data.items():
        if target not in part.column_names:
            continue
        values = part_repetitions(ds, cfg, target, part)
        if values is None:
            continue
        found = True
        scaled = part_repetitions(ds, cfg, target, part, on_label_scale=True)
        for mid, label, reps, on_scale in zip(part["measurement_id"][:], part[target][:], values, scaled):
            if label is None or not reps:
                continue
            rows.append({"split": split, "measurement_id": mid, target: float(label), "repetitions": reps,
                         "repetitions_on_label_scale": on_scale, "n_repetitions": len(reps),
                         "repetitions_mean": statistics.fmean(on_scale),
                         "repetitions_std": statistics.stdev(on_scale) if len(on_scale) > 1 else None})
    if not found:
        raise NoRepetitionsError(f"{ds.name}/{cfg.name} has no repetitions of {target}: its labels were measured once "
                                 "(no rounds, no repeat store)")
    features = datasets.Features({"split": datasets.Value("string"), "measurement_id": datasets.Value("string"),
                                  target: datasets.Value("float64"),
                                  "repetitions": datasets.Sequence(datasets.Value("float64")),
                                  "repetitions_on_label_scale": datasets.Sequence(datasets.Value("float64")),
                                  "n_repetitions": datasets.Value("int64"),
                                  "repetitions_mean": datasets.Value("float64"),
                                  "repetitions_std": datasets.Value("float64")})
    return datasets.Dataset.from_list(rows, features=features)
