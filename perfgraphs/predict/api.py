"""``perfgraphs.predict``: from a model to latency, memory, energy, MIG profile and cost in one call."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np

from perfgraphs.errors import InvalidInputSpecError
from perfgraphs.predict.artifacts import ARTIFACTS_DIR, Artifact, load_artifact, read_meta
from perfgraphs.predict.errors import ArtifactMissingError
from perfgraphs.predict.platforms import (Platform, PlatformTarget, all_platforms, find_platform, served_targets,
                                         trained_targets)
from perfgraphs.predict.result import (Distribution, GraphFacts, HardwareProbe, MeasuredError, Neighbour,
                                       PlatformInfo, Prediction, TargetPrediction)

# the time target of a mode, per batch (or per sample, scaled by the batch), that cost is priced on
_TIME_TARGETS = {"infer": (("latency_ms", 1), ("latency_per_sample_ms", "batch")), "train": (("step_time_ms", 1),)}
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
    """The predictor's harness-scored (reproduced) public leaderboard record on this board: on the artifact's build if
    recorded, else the latest."""
    from perfgraphs.leaderboard.boards import reference_method
    from perfgraphs.leaderboard.records import read_entries
    from perfgraphs.leaderboard.tiers import HARNESS_TIERS

    meta = art.meta
    entries = [e for e in read_entries(meta["dataset"]) if e.config == meta["config"] and e.target == meta["column"]
               and reference_method(meta["predictor"], e.method) and e.tier in HARNESS_TIERS and e.test_set == "public"]
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


def _held_out(art: Artifact) -> MeasuredError:
    h = art.meta["heldout"]
    return MeasuredError(float(h["mape_pct"]), float(h["acc_10_pct"]), int(h["n"]), f"artifact held-out: {h['how']}")


def _distribution(art: Artifact, x: np.ndarray, ops: set[str] | None) -> tuple[Distribution, tuple[Neighbour, ...]]:
    near = art.nearest(x, k=3)
    neighbours = tuple(Neighbour(art.names[i], d, float(art.labels[i])) for i, d in near)
    distance = near[0][1] if near else float("inf")
    threshold = float(art.meta["distance_threshold"])
    seen = set(art.meta.get("seen_operators") or ())
    unseen = tuple(sorted(ops - seen)) if (ops is not None and seen) else ()
    reasons = []
    if distance > threshold:
        reasons.append(f"static features lie {distance:.2f} from the nearest training row ({neighbours[0].name}), "
                       f"beyond {threshold:.2f} ({art.meta['distance_threshold_how']})")
    if unseen:
        reasons.append(f"operator types never seen in training: {', '.join(unseen)}")
    ok = not reasons
    if ok:
        reasons.append(f"nearest training row {neighbours[0].name} at {distance:.2f} ≤ {threshold:.2f}"
                       + ("; every operator type seen in training" if seen and ops is not None else ""))
    return Distribution(ok, "; ".join(reasons), float(distance), threshold, unseen), neighbours


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


def _encoder_rows(source, batch: int, seq_len: int | None, platform: Platform):
    """The tabular row of an encoder LLM the encoder config can answer, or None."""
    from perfgraphs.errors import PerfgraphsError
    from perfgraphs.predict.features import encoder_features_of, encoder_row

    if not (isinstance(source, str) and source.startswith("hf:")) or seq_len is None:
        return None
    if not any(pt.kind == "tabular" for pt in platform.targets):
        return None
    from perfgraphs.collect.platforms import PLATFORMS

    precision = PLATFORMS[platform.name].precision if platform.name in PLATFORMS else "fp32"
    try:
        row = encoder_row(source, batch, seq_len, platform.name, precision)
    except PerfgraphsError:
        return None
    return row, encoder_features_of(row)


def predict(source, batch: int = 1, input=None, seq_len: int | None = None, platform: str = "cpu-torch-fp32",
            mode: str = "infer", *, prices: Path | str | None = None, inferences: int = DEFAULT_INFERENCES,
            train_steps: int = DEFAULT_TRAIN_STEPS, mig_margin_pct: float | None = None,
            artifacts: Path | str = ARTIFACTS_DIR, home: Path | None = None) -> Prediction:
    """Predict every target ``platform`` has labels for, for ``source`` at ``batch`` (and ``input``
    image shape C,H,W or ``seq_len``), in ``mode`` "infer" (a forward pass) or "train" (a
    training step). See the README's "Predict for your model"."""
    from perfgraphs.predict.cost import estimate_cost, price_of
    from perfgraphs.predict.mig import recommend_mig
    from perfgraphs.predict.sources import graph_of, parse_input, template_of

    if isinstance(batch, bool) or not isinstance(batch, (int, np.integer)):
        raise InvalidInputSpecError(f"batch must be an integer, got {batch!r}")
    plat = find_platform(platform, mode)  # before any export: a wrong platform costs nothing
    image_shape = parse_input(input)
    from perfgraphs.graph.inputs import check_ranges

    check_ranges(batch_size=int(batch), seq_len=seq_len)  # before an export imports transformers or timm
    if isinstance(source, str) and source.startswith("hf:"):
        from perfgraphs.graph.zoo import check_hf_seq_len

        check_hf_seq_len(source.removeprefix("hf:"), seq_len)
    template = template_of(source, image_shape=image_shape, seq_len=seq_len)
    graph = graph_of(template, int(batch), seq_len)
    facts = _graph_facts(graph)
    text_seq = seq_len or (template.spec.seq_len if template.spec else None)
    encoder = _encoder_rows(source, int(batch), text_seq, plat)
    x_graph: dict[int, np.ndarray] = {}
    ops = set(graph.onnx_ops)
    predictions = []
    shares, shares_note = (), ""
    for pt in served_targets(plat, encoder is not None):
        art = load_artifact(pt, Path(artifacts), home)
        if art.breakdown is not None and not shares:
            from perfgraphs.predict.artifacts import time_shares

            shares = tuple(time_shares(art.breakdown, graph))
            shares_note = (f"{pt.target}: per-operator-category linear model (layerwise-linear) of the same labels, "
                           f"held-out MAPE {art.breakdown['heldout_mape_pct']:.1f} %; shares of its own total")
        if pt.kind == "tabular":
            x, op_set = encoder[1], None
        else:
            from perfgraphs.predict.features import graph_features

            at = art.fixed_batch_size or int(batch)
            if at not in x_graph:
                x_graph[at] = graph_features(graph if at == int(batch) else graph_of(template, at, seq_len))
            x, op_set = x_graph[at], ops
        value = float(art.predict(x)[0])
        dist, neighbours = _distribution(art, x[0], op_set)
        held = _held_out(art)
        board = _leaderboard_error(art)
        predictions.append(TargetPrediction(
            pt.target, value, pt.unit, pt.description, art.meta["predictor"], pt.dataset, pt.config, pt.column,
            board or held, held, dist, neighbours, art.key, art.meta["dataset_content_hash"], art.meta["code_commit"],
            art.fixed_batch_size or int(batch) if pt.kind == "graphs" else int(batch)))
    if not predictions:
        raise ArtifactMissingError(f"no predictor artifact for platform {platform} ({mode})")
    by_target = {p.target: p for p in predictions}
    probe = next((pr for pr in (_probe(pt) for pt in served_targets(plat, encoder is not None)) if pr), None)

    mig, mig_note = None, ""
    is_gpu = probe is not None and "NVIDIA" in probe.device
    if "peak_memory_mb" in by_target and is_gpu:
        mem = by_target["peak_memory_mb"]
        mig = recommend_mig(mem.value, mem.error.mape_pct if mig_margin_pct is None else mig_margin_pct)
    elif "peak_memory_mb" in by_target:
        mig_note = f"{platform} is not a GPU platform: its peak memory is host memory, not GPU memory"
    else:
        mig_note = f"{platform} has no peak-memory labels to size a MIG profile from"

    cost, cost_note = None, ""
    time_ms = None
    for target, per in _TIME_TARGETS[mode]:
        if target in by_target:
            time_ms = by_target[target].value * (int(batch) if per == "batch" else 1)
            break
    price = price_of(platform, prices)
    if time_ms is None:
        cost_note = "no predicted time to price"
    elif price is None:
        cost_note = f"the price table has no price for {platform}"
    elif mode == "infer":
        cost = estimate_cost(time_ms / int(batch), int(inferences), "inference", price)
    else:
        cost = estimate_cost(time_ms, int(train_steps), "training step", price)
    name = source if isinstance(source, str) else (type(source).__name__ if not isinstance(source, (bytes, bytearray))
                                                   else "onnx-bytes")
    return Prediction(str(name), plat.name, plat.mode, plat.hardware, facts, tuple(predictions), probe, mig,
                      mig_note, cost, cost_note, shares, shares_note)
