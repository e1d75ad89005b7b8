"""The typed, immutable answer of :func:`perfgraphs.predict` (dataclasses, unit-suffixed names)."""

from __future__ import annotations

from dataclasses import asdict, dataclass

from perfgraphs.predict.cost import CostEstimate
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
    """Whether the model lies where the predictor was trained, and why (not)."""

    in_distribution: bool
    reason: str
    nearest_distance: float  # standardised static-feature distance to the nearest fitted row
    threshold: float  # the artifact's distance threshold
    unseen_operators: tuple[str, ...]  # operator types of the graph never seen in training


@dataclass(frozen=True)
class Neighbour:
    """A measured row near the model in feature space, with its real label."""

    name: str
    distance: float
    label: float


@dataclass(frozen=True)
class TargetPrediction:
    target: str  # unit-suffixed target name (latency_ms, peak_memory_mb, ...)
    value: float
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

    @property
    def low(self) -> float:
        """The prediction minus its platform MAPE (the report's error bar)."""
        return self.value / (1.0 + self.error.mape_pct / 100.0)

    @property
    def high(self) -> float:
        return self.value * (1.0 + self.error.mape_pct / 100.0)


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
class PlatformInfo:
    """One answer of :func:`perfgraphs.platforms`: a platform, the mode, and per target the labels
    behind its predictor (None: no artifact trained)."""

    name: str
    mode: str
    hardware: str
    # (target, label column, labeled rows, row kind: "graphs" answers any graph, "tabular" the
    # encoder LLMs its rows describe)
    targets: tuple[tuple[str, str, int | None, str], ...]
