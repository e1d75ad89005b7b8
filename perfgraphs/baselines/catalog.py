"""The one table of baselines: every predictor the project runs, as a frozen record.

The leaderboard's predictor interface, the official boards' reference lists, ``perfgraphs
quickstart``, ``perfgraphs benchmark``, leave-one-platform-out and ``perfgraphs.predict`` read
these records, and decide by their attributes, never by a baseline's name: a baseline's name is
written here and nowhere else (tests/test_layers.py). Estimators are imported when built, so
reading the table costs no framework import.
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass
from typing import Callable

from perfgraphs.errors import PerfgraphsError
from perfgraphs.registry import DIPPM, GRAPH_ROWS, TABULAR_ROWS, TRAPPM

# how a baseline reads the rows of a part
STATIC, GRAPH, ROWS, GRAPH_TEXT = "static", "graph", "rows", "graph-text"
# what a predictor counts as its learned parameters
TORCH_MODULES, COEFFICIENTS, TRAINABLE = "torch-modules", "coefficients", "trainable"


class UnknownBaselineError(PerfgraphsError):
    """A baseline name the catalog does not hold."""


@dataclass(frozen=True)
class Baseline:
    """A predictor of a dataset's rows: ``inputs`` says what it reads of them (``static``: the
    featurizer's static columns, or the LLM features on tabular rows; ``graph``: PyG graphs;
    ``rows``: the raw rows; ``graph-text``: graphs and their summaries)."""

    name: str
    estimator: str  # "module:Class", imported when built
    featurizer: str  # the featurizer of its graphs or static columns (perfgraphs.features)
    inputs: str
    # the frameworks its fit needs, imported when the predictor is made: the harness times fit(),
    # which would otherwise count a first import of torch / PyG (seconds) as training
    frameworks: tuple[str, ...] = ()
    # the row kinds (a config's ``kind``) on whose official boards it is a reference baseline, with a
    # submission folder under leaderboard/reference/; empty: not an official reference
    reference_on: frozenset[str] = frozenset()
    quickstart: bool = False  # one of `perfgraphs quickstart`'s baselines (in table order)
    # takes ``quick`` and ``seed`` (least squares has no epochs and no randomness: neither)
    settings: bool = True
    selects_on_validation: bool = False  # chooses its grid point on the validation part
    pretrains: bool = False  # unlabeled pre-training on the training graphs before fitting
    parameters: str = TORCH_MODULES  # what its learned-parameter count counts
    # built for one target (its physics differs by target: which of a prior's quantities is the base)
    per_target: bool = False

    def estimator_class(self) -> type:
        module, _, cls = self.estimator.partition(":")
        return getattr(importlib.import_module(module), cls)

    def make(self, quick: bool = False, seed: int = 0, target: str | None = None):
        """A fresh estimator (``target``: the board's, for a ``per_target`` baseline)."""
        kwargs = {"quick": quick, "seed": seed} if self.settings else {}
        if self.per_target:
            if target is None:
                raise UnknownBaselineError(f"baseline {self.name!r} is built for one target: name it")
            kwargs["target"] = target
        return self.estimator_class()(**kwargs)


@dataclass(frozen=True)
class TransferBaseline:
    """A reference predictor of leave-one-platform-out (perfgraphs.baselines.transfer) and the
    variants of the protocol it applies to."""

    name: str
    make: Callable[[int], object]  # seed of a draw -> a fresh estimator
    variants: tuple[str, ...]
    # the one-parameter rule every other transfer reference is compared with
    comparison_rule: bool = False


GRAPH_FRAMEWORKS = ("torch", "torch_geometric")

LAYERWISE_LINEAR = Baseline("layerwise-linear", "perfgraphs.baselines.layerwise_linear:LayerwiseLinear", TRAPPM, ROWS,
                            reference_on=frozenset({GRAPH_ROWS}), quickstart=True, settings=False,
                            parameters=COEFFICIENTS)
LAYERWISE_BOOST = Baseline("layerwise-boost", "perfgraphs.baselines.layerwise_boost:LayerwiseBoost", TRAPPM, ROWS,
                           ("xgboost",), reference_on=frozenset({GRAPH_ROWS}), selects_on_validation=True)
STATIC_XGBOOST = Baseline("static-xgboost", "perfgraphs.baselines.static_xgboost:StaticXGBoost", TRAPPM, STATIC,
                          ("xgboost",), reference_on=frozenset({GRAPH_ROWS, TABULAR_ROWS}), quickstart=True,
                          selects_on_validation=True)
STATIC_MLP = Baseline("static-mlp", "perfgraphs.baselines.static_mlp:StaticMLP", TRAPPM, STATIC, ("torch",),
                      reference_on=frozenset({GRAPH_ROWS, TABULAR_ROWS}), quickstart=True)
DIPPM_SAGE = Baseline("dippm-sage", "perfgraphs.baselines.dippm_sage:DIPPMSage", DIPPM, GRAPH, GRAPH_FRAMEWORKS,
                      reference_on=frozenset({GRAPH_ROWS}), quickstart=True)
NNLQP_GNN = Baseline("nnlqp-gnn", "perfgraphs.baselines.nnlqp_gnn:NNLQPGNN", "nnlqp", GRAPH, GRAPH_FRAMEWORKS,
                     reference_on=frozenset({GRAPH_ROWS}), quickstart=True)
TRAPPM_GNN = Baseline(TRAPPM, "perfgraphs.baselines.trappm:TraPPM", TRAPPM, GRAPH, GRAPH_FRAMEWORKS,
                      reference_on=frozenset({GRAPH_ROWS}), quickstart=True, pretrains=True)
# LLM study; on the tabular llm rows the static inputs are the model + hardware features
# (perfgraphs.data.llm_features) instead of a featurizer's static columns
LLM_XGBOOST = Baseline("llm-xgboost", "perfgraphs.baselines.llm_xgboost:LLMXGBoost", TRAPPM, STATIC, ("xgboost",),
                       reference_on=frozenset({TABULAR_ROWS}), selects_on_validation=True)
LLM_GNN = Baseline("llm-gnn", "perfgraphs.baselines.llm_gnn:LLMGNN", TRAPPM, GRAPH, GRAPH_FRAMEWORKS)
# physics alone with its four hardware constants fitted to the board's labels, and boosting of what it
# misses (issue 34): entries on the time boards (a roofline times nothing a memory label measures),
# not references every board must list
ROOFLINE_FIT = Baseline("roofline-fit", "perfgraphs.baselines.roofline_fit:FittedRoofline", TRAPPM, ROWS,
                        settings=False, parameters=COEFFICIENTS)
ROOFLINE_BOOST = Baseline("roofline-boost", "perfgraphs.baselines.roofline_fit:RooflineBoost", TRAPPM, ROWS,
                          ("xgboost",), selects_on_validation=True)
ROOFLINE_SAGE = Baseline("roofline-sage", "perfgraphs.baselines.roofline_sage:RooflineSage", DIPPM, ROWS,
                         GRAPH_FRAMEWORKS)
# the decode-step physics of LLM serving (issue 27) on the serving runs' rows: one constant on the
# prior, and boosted log(label / prior); entries on the llm serving boards (the prior times decode
# steps, which the other tabular rows do not have)
SERVING_PRIOR = Baseline("serving-prior", "perfgraphs.baselines.serving_prior:ServingPrior", TRAPPM, STATIC,
                         settings=False, per_target=True, parameters=COEFFICIENTS)
SERVING_PRIOR_BOOST = Baseline("serving-prior-boost", "perfgraphs.baselines.serving_prior:ServingPriorBoost", TRAPPM,
                               STATIC, per_target=True)
# the same physics on the encoder rows, from their model facts (no graph there): an entry on the llm
# cpu time boards
ENCODER_ROOFLINE = Baseline("encoder-roofline", "perfgraphs.baselines.encoder_roofline:EncoderRoofline", TRAPPM,
                            STATIC, settings=False, per_target=True, parameters=COEFFICIENTS)
GNN_LM = Baseline("gnn-lm", "perfgraphs.baselines.gnn_lm:GNNLM", "nnlqp", GRAPH_TEXT,
                  GRAPH_FRAMEWORKS + ("transformers",), parameters=TRAINABLE)

# every baseline, in the order boards list their references and quickstart runs its own
BASELINES: dict[str, Baseline] = {b.name: b for b in (
    LAYERWISE_LINEAR, LAYERWISE_BOOST, STATIC_XGBOOST, STATIC_MLP, DIPPM_SAGE, NNLQP_GNN, TRAPPM_GNN, LLM_XGBOOST,
    LLM_GNN, GNN_LM, ROOFLINE_FIT, ROOFLINE_BOOST, ROOFLINE_SAGE, SERVING_PRIOR, SERVING_PRIOR_BOOST,
    ENCODER_ROOFLINE)}


def baseline(name: str) -> Baseline:
    try:
        return BASELINES[name]
    except KeyError:
        raise UnknownBaselineError(f"unknown baseline {name!r} (available: {', '.join(sorted(BASELINES))})") from None


def reference_baselines(kind: str) -> list[str]:
    """The reference baselines every official board of a config of this row kind lists."""
    return [b.name for b in BASELINES.values() if kind in b.reference_on]


QUICKSTART_BASELINES = tuple(b.name for b in BASELINES.values() if b.quickstart)


def _ratio(seed: int):
    from perfgraphs.baselines.transfer import RatioTransfer

    return RatioTransfer()


def _profile(seed: int):
    from perfgraphs.baselines.transfer import PROFILE_CORRECTIONS, RatioTransfer

    return RatioTransfer(corrections=PROFILE_CORRECTIONS)


def _lowrank(seed: int):
    from perfgraphs.baselines.lowrank_transfer import LowRankTransfer

    return LowRankTransfer()


def _static_gbm(seed: int):
    from perfgraphs.baselines.transfer import SourceModelTransfer

    return SourceModelTransfer(use_labels=False, random_state=seed)


def _roofline(seed: int):
    from perfgraphs.baselines.physics_transfer import RooflinePrior

    return RooflinePrior()


def _graph_net(seed: int):
    from perfgraphs.baselines.graph_transfer import GraphNetTransfer

    return GraphNetTransfer(random_state=seed)


def _prior_gbm(seed: int):
    from perfgraphs.baselines.physics_transfer import PriorResidualTransfer

    return PriorResidualTransfer(random_state=seed)


# The ratio rule and its profile-corrected form read the test architectures' labels on other
# platforms, so they need them visible; the static model (graph features + platform descriptor,
# adapted with the shots) is the reference where nothing is visible.
KNOWN_MODEL_VARIANTS = ("known-models", "known-models-other-devices")
RATIO_TRANSFER = TransferBaseline("ratio-transfer", _ratio, KNOWN_MODEL_VARIANTS, comparison_rule=True)
PROFILE_TRANSFER = TransferBaseline("profile-transfer", _profile, KNOWN_MODEL_VARIANTS)
# the source platforms' latent factors fitted to the shots (issue 34); rank 0 is the ratio rule
LOWRANK_TRANSFER = TransferBaseline("lowrank-transfer", _lowrank, KNOWN_MODEL_VARIANTS)
TRANSFER_BASELINES: dict[str, TransferBaseline] = {t.name: t for t in (
    RATIO_TRANSFER,
    PROFILE_TRANSFER,
    LOWRANK_TRANSFER,
    TransferBaseline("static-gbm-transfer", _static_gbm, ("unseen-models",)),
    # physics alone (the roofline prior scaled by the shots, issue 27): a floor on every variant
    TransferBaseline("roofline-prior", _roofline, KNOWN_MODEL_VARIANTS + ("unseen-models",)),
    TransferBaseline("prior-gbm-transfer", _prior_gbm, ("unseen-models",)),
    # one graph network over every platform, the platform as its descriptor (issue 34 item 2): it reads
    # no label of the queried architectures, so it serves every variant
    TransferBaseline("graph-net-transfer", _graph_net, KNOWN_MODEL_VARIANTS + ("unseen-models",)),
)}


def reference_names() -> set[str]:
    """Every official reference's name: the boards' references and the transfer references."""
    return {b.name for b in BASELINES.values() if b.reference_on} | set(TRANSFER_BASELINES)
