"""The typed, immutable answer of :func:`perfgraphs.predict` (dataclasses, unit-suffixed names)."""

from __future__ import annotations

from dataclasses import asdict, dataclass

from perfgraphs.predict.cost import CostEstimate
from perfgraphs.predict.intervals import Interval
from perfgraphs.predict.mig import MigRecommendation


@dataclass(frozen=True)
class MeasuredError:
    """A predictor's measured error on the platform: MAPE and Acc(10 %) over ``n`` labeled rows."""

    mape_pct: float
    acc_10_pct: float
    n: int
    source: str  # where the numbers come from (a leaderboard record, the artifact's held-out part)


@dataclass(frozen=True)
class Distribution:
    """Whether the model lies where the predictor was trained, and why (not): the verdict of
    :mod:`perfgraphs.predict.verdict`."""

    in_distribution: bool  # the predictor may answer (verdict is not "refused")
    reason: str
    nearest_distance: float  # standardised static-feature distance to the nearest fitted row
    threshold: float  # the artifact's distance threshold
    unseen_operators: tuple[str, ...]  # operator types of the graph never seen in training
    verdict: str = "answered"  # "answered", "answered with a caveat" or "refused"
    unseen_share_pct: float = 0.0  # the larger of the FLOPs' and the bytes' share on unseen operator types


@dataclass(frozen=True)
class Neighbour:
    """A measured row near the model in feature space, with its real label."""

    name: str
    distance: float
    label: float


@dataclass(frozen=True)
class TargetPrediction:
    target: str  # unit-suffixed target name (latency_ms, peak_memory_mb, ...)
    value: float | None  # None: refused (distribution.reason says why; the neighbours are measured rows)
    unit: str
    description: str
    predictor: str  # the reference baseline that made it
    dataset: str
    config: str
    column: str  # the label column it was trained on
    error: MeasuredError  # the leaderboard's record of the predictor where there is one, else held_out
    held_out: MeasuredError  # the artifact's own held-out scores
    distribution: Distribution
    neighbours: tuple[Neighbour, ...]
    artifact: str  # artifact key
    dataset_content_hash: str
    code_commit: str
    batch_size: int  # the batch the features were computed at (the labels' own batch where they have one)
    # conformal intervals from unseen architectures (perfgraphs.predict.intervals, .heldout), one per stated
    # coverage; empty when refused or when the artifact states none for the prediction's band
    intervals: tuple[Interval, ...] = ()
    question: str = ""  # what it answers; targets of one question are alternatives
    recommended: bool = True  # the answer to its question (False: a secondary figure)
    why: str = ""  # why it is (not) the recommended answer, when its question has alternatives

    def interval(self, level: float = 0.8) -> Interval | None:
        return next((i for i in self.intervals if abs(i.level - level) < 1e-9), None)

    @property
    def low(self) -> float | None:
        """The lower bound of the 80 % interval (None: refused, or no interval stated)."""
        i = self.interval(0.8)
        return None if i is None else i.low

    @property
    def high(self) -> float | None:
        i = self.interval(0.8)
        return None if i is None else i.high

    @property
    def refused(self) -> bool:
        return self.value is None


@dataclass(frozen=True)
class GraphFacts:
    name: str
    batch_size: int
    inputs: tuple[tuple[str, tuple[int, ...]], ...]
    num_nodes: int
    total_macs: int
    total_flops: int
    total_params: int
    total_memory_bytes: int
    macs_by_operator: tuple[tuple[str, int], ...]  # descending
    structure_hash: str

    @property
    def arithmetic_intensity_flops_per_byte(self) -> float:
        """FLOPs per byte of every distinct tensor (weights and activations) read or written once."""
        return self.total_flops / self.total_memory_bytes if self.total_memory_bytes else 0.0


@dataclass(frozen=True)
class HardwareProbe:
    """The collectors' probe of the machine that measured the labels (``hardware.json``)."""

    device: str
    peak_gflops_measured: float
    memory_bandwidth_gbps_measured: float
    probed_at_utc: str
    path: str


@dataclass(frozen=True)
class Prediction:
    source: str
    platform: str
    mode: str
    hardware: str
    graph: GraphFacts
    targets: tuple[TargetPrediction, ...]
    probe: HardwareProbe | None
    mig: MigRecommendation | None
    mig_note: str  # why there is no recommendation, when there is none
    cost: CostEstimate | None
    cost_note: str
    # share of predicted time per operator category (the layerwise-linear model of the first time
    # target), descending; empty when no time target has one
    time_by_operator: tuple[tuple[str, float], ...] = ()
    time_by_operator_note: str = ""
    calibration: str = ""  # how the times were scaled to this machine ("" : the labels' machine's own)

    def answer(self, question: str) -> TargetPrediction | None:
        """The recommended target of a question (None: no target answers it, or every one refused)."""
        return next((t for t in self.targets if t.question == question and t.recommended and not t.refused), None)

    def __getitem__(self, target: str) -> TargetPrediction:
        for t in self.targets:
            if t.target == target or t.column == target:
                return t
        raise KeyError(f"{target!r} is not predicted on {self.platform} ({', '.join(t.target for t in self.targets)})")

    def to_dict(self) -> dict:
        out = asdict(self)
        out["graph"]["arithmetic_intensity_flops_per_byte"] = self.graph.arithmetic_intensity_flops_per_byte
        return out


@dataclass(frozen=True)
class Comparison:
    """The answer of :func:`perfgraphs.predict.api.predict_many`: one :class:`Prediction` per
    (source, batch), sources outer and batch sizes inner, on one platform and mode."""

    predictions: tuple[Prediction, ...]

    @property
    def columns(self) -> tuple[tuple[str, int], ...]:
        """(source, batch size) of each prediction, in order: the comparison table's columns."""
        return tuple((p.source, p.graph.batch_size) for p in self.predictions)

    def __getitem__(self, key: tuple[str, int]) -> Prediction:
        for column, p in zip(self.columns, self.predictions):
            if column == tuple(key):
                return p
        raise KeyError(f"{key!r} is not in the comparison ({', '.join(f'{s} @b{b}' for s, b in self.columns)})")

    def to_dict(self) -> dict:
        return {"columns": [{"source": s, "batch_size": b} for s, b in self.columns],
                "predictions": [p.to_dict() for p in self.predictions]}


@dataclass(frozen=True)
class PlatformInfo:
    """One answer of :func:`perfgraphs.platforms`: a platform, the mode, and per target the labels
    behind its predictor (None: no artifact trained)."""

    name: str
    mode: str
    hardware: str
    # (target, label column, labeled rows, row kind: "graphs" answers any graph, "tabular" the
    # encoder LLMs its rows describe)
    targets: tuple[tuple[str, str, int | None, str], ...]
