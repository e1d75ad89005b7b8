"""Generate the TraPPM CPU plan: training steps of timm architectures from all 11 TraPPM families.

Why these choices: TraPPM's 11 families (its labeled sets cover the same families as its unlabeled
pool), small inputs and batches because a training step (forward + backward + SGD step) costs
about three forward passes on one core. Batch 1 is left out: batch-norm in training mode needs
more than one value per channel. GMACs are counted on the meta device at every candidate size (a
size an architecture cannot be built at is left out); at each size, batch sizes whose estimated
step exceeds ``MAX_STEP_S`` are dropped, so heavy models and large inputs get fewer batch sizes,
and a size with no batch left is dropped; so is a size whose graph export already failed (the labels
would have no graph). Within a family the models are spread evenly over the validated
architectures (sorted by name).
"""

from __future__ import annotations

import sys

from perfgraphs.collect.plangen import (EFFECTIVE_GFLOPS, cached_gmacs, evenly, export_failures,
                                        fitting_batches, timm_family_models)
from perfgraphs.registry import CPU_TORCH_FP32

TRAIN_FACTOR = 3.0  # forward + backward (≈ 2 forwards) + optimizer step, in forward passes
MAX_STEP_S = 2.5  # estimated step time above which a (size, batch) is dropped
STEP_LIMIT_S = {"vgg": 10.0}  # families measurable only at large inputs (see FAMILIES)

# family: (include patterns, exclude patterns, input sizes, batch sizes, max models). Light
# families get fewer batch sizes and models, heavy ones more input sizes, so that every family
# has a similar number of configurations (≈ 40-50).
FAMILIES = {
    "densenet": (["densenet*"], ["densenet264d"], [64, 96, 128, 160], [2, 4, 8], 5),
    "efficientnet": (["efficientnet_*", "tf_efficientnet_*", "efficientnetv2_*", "tf_efficientnetv2_*"],
                     ["*_l2", "*_b5", "*_b6", "*_b7", "*_b8", "*_l", "*_xl", "*_m", "*_h_b5", "*_x_b*"],
                     [96, 128, 160], [2, 4, 8], 7),
    "mnasnet": (["mnasnet_*", "semnasnet_*"], [], [96, 128, 160], [2, 4, 8], 6),
    "mobilenet": (["mobilenetv2_*", "mobilenetv3_*", "tf_mobilenetv3_*"], [], [96, 128, 160],
                  [2, 4, 8], 6),
    "poolformer": (["poolformer*"], [], [64, 96, 128, 160], [2, 4, 8], 8),
    "resnet": (["resnet*"], ["*clip*", "resnetrs*", "resnet200*", "resnet152*", "*_gn", "*_mlp",
                             "resnetv2_*"], [64, 96, 128, 160], [2, 4, 8], 8),
    # Window attention: only sizes the windows tile are buildable; the meta check finds them.
    "swin": (["swin_*", "swinv2_cr_*"], ["*base*", "*large*", "*huge*", "*giant*", "*384"],
             [64, 96, 128, 160, 192, 224], [2, 4, 8], 9),
    # timm's VGG head average-pools a feature map smaller than 7x7 up to 7x7, which the ONNX
    # exporter refuses unless 7 is a multiple of it: below 224 px no VGG graph exports (see
    # data/graphs/timm/failures.jsonl), so VGG is measured at 224-288 px with a longer step.
    "vgg": (["vgg*"], [], [224, 256, 288], [2, 4], 8),
    "visformer": (["visformer*"], [], [64, 96, 128, 160, 192, 224, 256], [2, 4, 8, 16], 2),
    "convnext": (["convnext_*", "convnextv2_*"], ["*base*", "*large*", "*huge*", "*xlarge*"],
                 [64, 96, 128, 160], [2, 4, 8], 7),
    "vit": (["vit_tiny_*", "vit_small_*", "vit_little_*", "vit_wee_*", "vit_pwee_*", "vit_medium_*",
             "vit_relpos_*", "vit_srelpos_*"],
            ["*sapiens*", "*dinov3*", "*radio*", "*lingbot*", "*patch8*", "*_xp_*", "*mci*",
             "*tipsv2*", "*base*", "*large*", "*384*"], [64, 96, 128, 160, 224], [2, 4, 8], 8),
}

RULE = ("Time-budget rule (protocol trappm-cpu): 5 warm-up steps or 2 s (min 2), then 50 timed steps "
        "or 4 s of timed work (min 5); the actual n is stored per row. A step = forward + backward + "
        "SGD step (≈ 3 forwards); batch >= 2 (batch-norm in training mode). gmacs = forward GMACs "
        "per sample at gmacs_at px (cost-model hint). At each input size, batch sizes whose "
        f"estimated step exceeds {MAX_STEP_S:g} s at {EFFECTIVE_GFLOPS:g} GFLOP/s are dropped, so "
        "heavy models and large inputs get fewer batch sizes (VGG: 224-288 px only, its smaller "
        "graphs do not export to ONNX; step limit 10 s). Sizes whose graph export failed "
        "(data/graphs/timm/failures.jsonl) are left out: their labels would have no graph.")


def family_names() -> list[str]:
    return list(FAMILIES)


def model_entries(source: str, sizes: list[int], batches: list[int], failed: set[str],
                  max_step_s: float = MAX_STEP_S) -> list[dict]:
    """Plan entries of one model: sizes that share their batch list go into one entry."""
    from perfgraphs.pool.structures import structure_id

    by_batches: dict[tuple[int, ...], list[tuple[int, float]]] = {}
    for s in sizes:
        if structure_id(source, s) in failed:
            continue
        g = cached_gmacs(source, s)
        if g is None or g <= 0:
            continue
        fit = fitting_batches(g, batches, max_step_s, TRAIN_FACTOR)
        if fit:
            by_batches.setdefault(tuple(fit), []).append((s, g))
    entries = []
    for fit, items in sorted(by_batches.items(), key=lambda kv: kv[1][0][0]):
        ref, g = items[-1]
        entries.append({"name": source, "gmacs": round(g, 4), "gmacs_at": ref,
                        "input_sizes": [s for s, _ in items], "batch_sizes": list(fit)})
    return entries


def build(families: list[str] | None = None, **_) -> dict:
    failed = export_failures()
    groups = []
    for family, (include, exclude, sizes, batches, limit) in FAMILIES.items():
        if families is not None and family not in families:
            continue
        chosen = []
        for arch in evenly(timm_family_models(include, exclude), 2 * limit):
            entries = model_entries(f"timm:{arch}", sizes, batches, failed,
                                    STEP_LIMIT_S.get(family, MAX_STEP_S))
            if entries:
                chosen.append(entries)
        models = [e for entries in evenly(chosen, limit) for e in entries]
        n = sum(len(m["input_sizes"]) * len(m["batch_sizes"]) for m in models)
        print(f"trappm-cpu {family}: {len(evenly(chosen, limit))} models, {n} configs", file=sys.stderr)
        if models:
            groups.append({"family": family, "models": models})
    return {
        "suite": "trappm-cpu",
        "description": ("TraPPM protocol on one pinned CPU core: training step time and peak memory, "
                        "11 timm families x small input sizes x batch sizes; generated by "
                        "perfgraphs.collect.plangen_trappm"),
        "mode": "train", "protocol": "trappm-cpu", "platforms": [CPU_TORCH_FP32],
        "core": 1, "timeout_s": 900, "groups": groups,
    }
