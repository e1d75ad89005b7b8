"""``perfgraphs.predict``: from a model to latency, memory, energy, MIG profile and cost in one call."""

from __future__ import annotations

import dataclasses
import json
import math
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from perfgraphs.errors import InvalidInputSpecError
from perfgraphs.predict.artifacts import ARTIFACTS_DIR, Artifact, load_artifact, read_meta
from perfgraphs.predict.errors import ArtifactMissingError
from perfgraphs.predict.platforms import (PlatformTarget, PredictablePlatform, all_platforms, find_platform,
                                          served_targets, trained_targets)
from perfgraphs.predict.result import (Distribution, GraphFacts, HardwareProbe, MeasuredError, Neighbour,
                                       PlatformInfo, Prediction, TargetPrediction)
from perfgraphs.registry import CPU_TORCH_FP32, GRAPH_ROWS, TABULAR_ROWS

DEFAULT_INFERENCES = 1_000_000
DEFAULT_TRAIN_STEPS = 10_000


def platforms(artifacts: Path | str = ARTIFACTS_DIR) -> tuple[PlatformInfo, ...]:
    """Every platform with labels, its mode and hardware, and per target the labeled rows its
    predictor was trained from (None where no artifact was trained)."""
    out = []
    for p in all_platforms():
        rows = []
        for pt in trained_targets(p):
            meta = read_meta(pt.key, Path(artifacts))
            rows.append((pt.target, pt.column, None if meta is None else int(meta["n_labeled"]), pt.kind))
        out.append(PlatformInfo(p.name, p.mode, p.hardware, tuple(rows)))
    return tuple(out)


def _leaderboard_error(art: Artifact) -> MeasuredError | None:
    """The predictor's harness-scored (reproduced) public leaderboard record on this board, as the board ranks
    it (:func:`_as_ranked`): on the artifact's build if recorded, else the latest."""
    from perfgraphs.leaderboard.records.boards import reference_method
    from perfgraphs.leaderboard.records.results import RecordedBoards, read_entries
    from perfgraphs.leaderboard.records.tiers import HARNESS_TIERS

    meta = art.meta
    boards = RecordedBoards()
    entries = [e for e in read_entries(meta["dataset"]) if e.config == meta["config"] and e.target == meta["column"]
               and reference_method(meta["predictor"], e.method) and e.tier in HARNESS_TIERS and e.test_set == "public"
               and _as_ranked(e, boards)]
    if not entries:
        return None
    same = [e for e in entries if e.dataset_content_hash == meta["dataset_content_hash"]]
    e = max(same or entries, key=lambda e: e.date_utc)
    mape, _ = e.mean_std("mape_pct")
    acc, _ = e.mean_std("acc_10_pct")
    n = int(e.per_seed[0].get("n", 0)) if e.per_seed else 0
    build = "this artifact's build" if same else f"build {e.dataset_content_hash[:12]} (not this artifact's)"
    return MeasuredError(float(mape), float(acc), n, f"leaderboard record {e.method} of {e.date_utc[:10]}, "
                         f"mean of {len(e.per_seed)} seeds, {build}")


def _as_ranked(e, boards) -> bool:
    """Whether record ``e`` measures the predictor as its board ranks it: a full-strength run (a ``(quick)`` run
    is a CI smoke test, never ranked on an official board) scored under its config's ranked protocol (records of
    another protocol are another board's). Thirty-seventh pass: predict quoted "MAPE 8.0 % from leaderboard record
    static-xgboost (quick)" for the encoder LLMs' recommended latency_calibrated_ms, a CI run under the
    stratified folds (every model seen in training), beside 23-29 % for the targets whose leave-models-out
    records it took; whichever reference record was newest, a smoke test or a secondary board's, set the error."""
    from perfgraphs.leaderboard.records.ranks import is_quick

    cfg = boards.config(e.dataset, e.config)
    return (not is_quick(e.method) and cfg is not None
            and boards.scoring_protocol(e.dataset, e.config, e.protocol) == cfg.official_protocol)


def _held_out(art: Artifact) -> MeasuredError:
    h = art.meta["heldout"]
    return MeasuredError(float(h["mape_pct"]), float(h["acc_10_pct"]), int(h["n"]), f"artifact held-out: {h['how']}")


def _neighbours(art: Artifact, x: np.ndarray) -> tuple[Neighbour, ...]:
    return tuple(Neighbour(art.names[i], d, float(art.labels[i])) for i, d in art.nearest(x, k=3))


def _roofline_bound(pt: PlatformTarget, graph, probe: HardwareProbe | None, at_batch: int) -> float | None:
    """The least time the labels' machine can take for what the target times (registry
    ``roofline_per``): None where it times nothing the graph's FLOPs and bytes bound."""
    from perfgraphs.predict.verdict import roofline_ms

    if pt.roofline_per not in ("batch", "sample") or graph is None:
        return None
    bound = roofline_ms(graph, probe)
    if bound is None:
        return None
    return bound / at_batch if pt.roofline_per == "sample" else bound


def _recommend(predictions: list[TargetPrediction]) -> list[TargetPrediction]:
    """One answer per question: of the targets answering one question, the answered one with the
    narrowest 80 % interval on unseen architectures; the others stay as secondary figures."""
    from dataclasses import replace

    by_question: dict[str, list[TargetPrediction]] = {}
    for p in predictions:
        by_question.setdefault(p.question, []).append(p)
    out = {}
    for question, group in by_question.items():
        if len(group) == 1:  # no alternatives: it is the answer unless it was refused
            out[id(group[0])] = replace(group[0], recommended=not group[0].refused)
            continue

        def width(p: TargetPrediction) -> float:
            i = p.interval(0.8)
            return i.half_width_pct if i is not None else float("inf")

        answered = [p for p in group if not p.refused and p.interval(0.8) is not None]
        best = min(answered, key=width) if answered else None
        for p in group:
            if p is best:
                others = ", ".join(f"{o.target} ±{width(o):.0f} %" for o in answered if o is not p)
                why = (f"recommended for the {question}: the narrowest 80 % interval on unseen architectures "
                       f"(±{width(p):.0f} %" + (f"; {others}" if others else "") + ")"
                       + (f"; refused: {', '.join(o.target for o in group if o.refused)}"
                          if any(o.refused for o in group) else ""))
                out[id(p)] = replace(p, recommended=True, why=why)
            elif best is None:
                out[id(p)] = replace(p, recommended=False, why=f"no target answers the {question} here: every one "
                                                                  f"was refused or states no interval")
            elif p.refused:
                out[id(p)] = replace(p, recommended=False, why=f"refused (see its verdict); {best.target} answers the "
                                                                  f"{question}")
            else:
                out[id(p)] = replace(p, recommended=False, why=f"secondary figure for the {question}: {best.target} "
                                                                  f"is recommended (its 80 % interval is narrower)")
    return [out[id(p)] for p in predictions]


def _probe(pt: PlatformTarget) -> HardwareProbe | None:
    from perfgraphs.paths import DataDirNotFoundError, measurement_store
    from perfgraphs.registry import get_dataset

    cfg = get_dataset(pt.dataset).config(pt.config)
    if not cfg.suite or not cfg.platform:
        return None
    try:
        path = measurement_store(cfg.suite) / cfg.platform / "hardware.json"
    except DataDirNotFoundError:  # an installed package with no data directory: no probe to show
        return None
    try:
        p = json.loads(path.read_text())
        device = (p.get("gpu") or {}).get("name") or p.get("cpu_model") or cfg.platform
        return HardwareProbe(str(device), float(p["peak_gflops_measured"]), float(p["memory_bandwidth_gbps_measured"]),
                             str(p.get("probed_at_utc", "")), str(path))
    except (OSError, ValueError, KeyError, TypeError):
        return None


def _graph_facts(graph) -> GraphFacts:
    s = graph.static_features()
    by_op: dict[str, int] = {}
    for op, macs in zip(graph.onnx_ops, graph.macs.tolist()):
        by_op[op] = by_op.get(op, 0) + int(macs)
    shares = tuple(sorted(((op, m) for op, m in by_op.items() if m > 0), key=lambda kv: -kv[1]))
    return GraphFacts(graph.name, graph.batch_size, tuple((n, tuple(s_)) for n, s_ in graph.input_shapes),
                      int(s["num_nodes"]), int(s["total_macs"]), int(s["total_flops"]), int(s["total_params"]),
                      int(s["total_memory_bytes"]), shares, graph.structure_hash)


def _encoder_rows(source, batch: int, seq_len: int | None, platform: PredictablePlatform):
    """The tabular row of an encoder LLM the encoder config can answer, or None."""
    from perfgraphs.errors import PerfgraphsError
    from perfgraphs.predict.features import encoder_features_of, encoder_row

    if not (isinstance(source, str) and source.startswith("hf:")) or seq_len is None:
        return None
    if not any(pt.kind == TABULAR_ROWS for pt in platform.targets):
        return None
    from perfgraphs.collect.platforms import PLATFORMS

    precision = PLATFORMS[platform.name].precision if platform.name in PLATFORMS else "fp32"
    try:
        row = encoder_row(source, batch, seq_len, platform.name, precision)
    except PerfgraphsError:
        return None
    return row, encoder_features_of(row)


def _calibration_note(cal: dict) -> str:
    s = cal["spread"]
    return (f"times calibrated to this machine ({cal['cpu_model']}, {cal['machine']}): x{cal['factor']:.3f} the "
            f"platform's (ratios {s['min_ratio']:.2f}-{s['max_ratio']:.2f}, geometric sd {s['geometric_sd']:.3f}, "
            f"{cal['n_references']} references measured {cal['measured_at_utc'][:16]}); intervals widened by the "
            f"calibration's own error ±{cal['error_pct']:.1f} % ({cal['error_how']})")


def _calibrated(p: TargetPrediction, cal: dict) -> TargetPrediction:
    """A time scaled to this machine: the value times the factor, each interval times the factor
    and widened by the calibration's own error on both sides."""
    if p.value is None:
        return p
    f, e = float(cal["factor"]), float(cal["error_log"])
    bounds = tuple(dataclasses.replace(i, low=i.low * f * math.exp(-e), high=i.high * f * math.exp(e))
                   for i in p.intervals)
    return dataclasses.replace(p, value=p.value * f, intervals=bounds, description=p.description
                               + f" (calibrated to this machine: x{f:.3f})")


def _cost(predictions: list[TargetPrediction], per: dict[str, str], platform: str, mode: str, batch: int, prices,
          inferences: int, train_steps: int):
    """The cost of N inferences or training steps at the recommended time (per batch, else per
    sample), with the cost at its 80 % interval's bounds; never of a refused time."""
    from perfgraphs.predict.cost import estimate_cost, price_of, where_to_add_a_price

    # the time of the whole batch when the platform has one; a per-sample time only where it has
    # none (a per-sample target is asked at its labels' batch: it must not price a refused batch)
    for unit in ("batch", "sample"):
        times = [p for p in predictions if per.get(p.target) == unit]
        if times:
            break
    else:
        return None, "no predicted time to price"
    chosen = next((p for p in times if p.recommended and not p.refused), None)
    if chosen is None:
        return None, f"not priced: {times[0].target} was refused ({times[0].distribution.reason})"
    price = price_of(platform, prices)
    if price is None:
        return None, (f"the price table has no price for {platform}" if prices is not None
                      else f"no price for {platform}: {where_to_add_a_price()}")
    scale = batch if per.get(chosen.target) == "sample" else 1
    unit, units, per_unit = ("inference", inferences, 1.0 / batch) if mode == "infer" else \
        ("training step", train_steps, 1.0)
    at = lambda ms: estimate_cost(ms * scale * per_unit, int(units), unit, price)  # noqa: E731
    mid = at(chosen.value)
    if chosen.low is None:
        return mid, f"priced at {chosen.target}; no interval stated for it"
    return (dataclasses.replace(mid, usd_low=at(chosen.low).usd, usd_high=at(chosen.high).usd, time_target=chosen.target),
            f"priced at {chosen.target} (its 80 % interval gives the range)")


@dataclass
class _ModelInputs:
    """The model asked about, exported at the asked batch and at each batch an artifact is fixed
    to (each exported and featurised once), and its encoder row where the encoder config answers."""

    template: Any
    batch: int
    seq_len: int | None
    encoder: tuple[dict, np.ndarray] | None
    graphs_at: dict[int, Any]
    x_graph: dict[int, np.ndarray] = field(default_factory=dict)

    @property
    def graph(self):
        return self.graphs_at[self.batch]

    def features(self, pt: PlatformTarget, art: Artifact) -> tuple[int, np.ndarray, Any]:
        """(the batch the artifact predicts at, its feature row, the graph at that batch or None)."""
        at = art.fixed_batch_size or self.batch if pt.kind == GRAPH_ROWS else self.batch
        if pt.kind == TABULAR_ROWS:
            return at, self.encoder[1], None
        from perfgraphs.predict.features import graph_features
        from perfgraphs.predict.sources import graph_of

        if at not in self.graphs_at:
            self.graphs_at[at] = graph_of(self.template, at, self.seq_len)
        if at not in self.x_graph:
            self.x_graph[at] = graph_features(self.graphs_at[at])
        return at, self.x_graph[at], self.graphs_at[at]


def _model_inputs(source, batch: int, image_shape, seq_len: int | None, plat: PredictablePlatform) -> _ModelInputs:
    from perfgraphs.graph.inputs import check_ranges
    from perfgraphs.predict.sources import graph_of, template_of

    check_ranges(batch_size=batch, seq_len=seq_len)  # before an export imports transformers or timm
    if isinstance(source, str) and source.startswith("hf:"):
        from perfgraphs.graph.zoo import check_hf_seq_len

        check_hf_seq_len(source.removeprefix("hf:"), seq_len)
    template = template_of(source, image_shape=image_shape, seq_len=seq_len)
    graph = graph_of(template, batch, seq_len)
    text_seq = seq_len or (template.spec.seq_len if template.spec else None)
    return _ModelInputs(template=template, batch=batch, seq_len=seq_len,
                        encoder=_encoder_rows(source, batch, text_seq, plat), graphs_at={batch: graph})


def _target_prediction(pt: PlatformTarget, art: Artifact, inputs: _ModelInputs,
                       probe: HardwareProbe | None) -> TargetPrediction:
    """One target's prediction, refused (value None) outside the artifact's training distribution."""
    from perfgraphs.predict.intervals import interval_of
    from perfgraphs.predict.verdict import judge

    at, x, g = inputs.features(pt, art)
    raw = float(art.predict(x)[0])
    dist = judge(art, x[0], g, raw, roofline=_roofline_bound(pt, g, probe, at))
    value = raw if dist.in_distribution else None
    bounds = () if value is None else tuple(
        i for i in (interval_of(art.meta.get("intervals"), value, lv) for lv in (0.8, 0.9)) if i is not None)
    held = _held_out(art)
    board = _leaderboard_error(art)
    return TargetPrediction(
        pt.target, value, pt.unit, pt.description, art.meta["predictor"], pt.dataset, pt.config, pt.column,
        board or held, held, dist, _neighbours(art, x[0]), art.key, art.meta["dataset_content_hash"],
        art.meta["code_commit"], at, bounds, pt.question)


def _mig_profile(by_target: dict[str, TargetPrediction], probe: HardwareProbe | None, platform: str,
                 mig_margin_pct: float | None):
    """The MIG profile the predicted peak memory fits (with a margin), or why there is none."""
    from perfgraphs.predict.mig import recommend_mig

    is_gpu = probe is not None and "NVIDIA" in probe.device
    mem = by_target.get("peak_memory_mb")
    if mem is not None and mem.refused:
        return None, f"peak memory refused: {mem.distribution.reason}"
    if mem is not None and is_gpu:
        hi = mem.interval(0.9)
        margin = (100.0 * (hi.high / mem.value - 1.0) if hi is not None else mem.error.mape_pct) \
            if mig_margin_pct is None else mig_margin_pct
        return recommend_mig(mem.value, max(margin, 0.0)), ""
    if mem is not None:
        return None, f"{platform} is not a GPU platform: its peak memory is host memory, not GPU memory"
    return None, f"{platform} has no peak-memory labels to size a MIG profile from"


def predict(source, batch: int = 1, input=None, seq_len: int | None = None, platform: str = CPU_TORCH_FP32,
            mode: str = "infer", *, prices: Path | str | None = None, inferences: int = DEFAULT_INFERENCES,
            train_steps: int = DEFAULT_TRAIN_STEPS, mig_margin_pct: float | None = None,
            artifacts: Path | str = ARTIFACTS_DIR, home: Path | None = None, calibrated: bool = False) -> Prediction:
    """Predict every target ``platform`` has labels for, for ``source`` at ``batch`` (and ``input``
    image shape C,H,W or ``seq_len``), in ``mode`` "infer" (a forward pass) or "train" (a
    training step); ``calibrated``: times scaled to this machine by its ``perfgraphs predict
    calibrate``. See the README's "Predict for your model"."""
    from perfgraphs.predict.sources import parse_input

    if isinstance(batch, bool) or not isinstance(batch, (int, np.integer)):
        raise InvalidInputSpecError(f"batch must be an integer, got {batch!r}")
    plat = find_platform(platform, mode)  # before any export: a wrong platform costs nothing
    calibration = None
    if calibrated:
        from perfgraphs.predict.calibration import read_calibration

        calibration = read_calibration(plat.name, plat.mode, home)  # before any export too
    inputs = _model_inputs(source, int(batch), parse_input(input), seq_len, plat)
    facts = _graph_facts(inputs.graph)
    predictions = []
    shares, shares_note = (), ""
    served = served_targets(plat, inputs.encoder is not None)
    probe = next((pr for pr in (_probe(pt) for pt in served) if pr), None)
    for pt in served:
        art = load_artifact(pt, Path(artifacts), home)
        if art.breakdown is not None and not shares:
            from perfgraphs.predict.artifacts import time_shares

            shares = tuple(time_shares(art.breakdown, inputs.graph))
            shares_note = (f"{pt.target}: per-operator-category linear model (layerwise-linear) of the same labels, "
                           f"held-out MAPE {art.breakdown['heldout_mape_pct']:.1f} %; shares of its own total")
        predictions.append(_target_prediction(pt, art, inputs, probe))
    if not predictions:
        raise ArtifactMissingError(f"no predictor artifact for platform {platform} ({mode})")
    predictions = _recommend(predictions)
    per = {pt.target: pt.roofline_per for pt in served}
    if calibration is not None:
        predictions = [_calibrated(p, calibration) if per.get(p.target) else p for p in predictions]
    mig, mig_note = _mig_profile({p.target: p for p in predictions}, probe, platform, mig_margin_pct)
    if calibration is None:
        cost, cost_note = _cost(predictions, per, platform, mode, int(batch), prices, inferences, train_steps)
    else:
        cost, cost_note = None, "not priced: the times are calibrated to this machine, which the price table does not list"
    name = source if isinstance(source, str) else (type(source).__name__ if not isinstance(source, (bytes, bytearray))
                                                   else "onnx-bytes")
    return Prediction(str(name), plat.name, plat.mode, plat.hardware, facts, tuple(predictions), probe, mig,
                      mig_note, cost, cost_note, shares, shares_note,
                      "" if calibration is None else _calibration_note(calibration))


def predict_many(sources, batches, **kwargs):
    """:func:`predict` for each of ``sources`` (one, or two side by side) at each of ``batches``
    (an int, ``"1,8,32"`` or a sequence, at most :data:`~perfgraphs.predict.sweep.MAX_BATCHES`),
    with the same ``kwargs`` (platform, mode, input, ...): a :class:`Comparison` in (source,
    batch) order. A bad sweep (too many models or sizes, a bad or repeated size, an unknown
    platform) is a typed error before any export; each source is exported once (:func:`predict`
    caches its graph) and asked at every batch."""
    from perfgraphs.predict.result import Comparison
    from perfgraphs.predict.sweep import check_sweep

    sources, batches = check_sweep(sources, batches)
    find_platform(kwargs.get("platform", CPU_TORCH_FP32), kwargs.get("mode", "infer"))  # before any export
    return Comparison(tuple(predict(source, batch=b, **kwargs) for source in sources for b in batches))
