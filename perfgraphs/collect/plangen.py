"""Generate the DIPPM CPU plan: timm architectures per family, validated sizes, GMACs hints.

Run once (``python -m perfgraphs.collect.plangen > plans/dippm-cpu.yaml``); the written YAML, not
this script, is the campaign's definition, so a newer timm cannot silently change a running plan.

Why these choices: DIPPM's families, each architecture tried at several input sizes (a model that
cannot be built at a size is left out at that size); GMACs are counted on the meta device (no
memory, no compute) with torch's FLOP counter, then used to drop batch sizes whose single iteration
would exceed ``MAX_ITERATION_S`` on one core, so heavy models get fewer batch sizes.
"""

from __future__ import annotations

import fnmatch
import sys
import warnings

import yaml

# family: (include patterns, exclude patterns, input sizes, batch sizes, max models)
FAMILIES = {
    "efficientnet": (["efficientnet_*", "tf_efficientnet_*", "efficientnetv2_*", "tf_efficientnetv2_*"],
                     ["*_l2", "*_b8", "*_xl", "*_h_b5", "*_x_b*"], [160, 192, 224], [1, 2, 4, 8, 16], 28),
    "mnasnet": (["mnasnet_*", "semnasnet_*", "tf_mnasnet_*"], [], [128, 160, 192, 224, 256],
                [1, 2, 4, 8, 16, 32], 10),
    "mobilenet": (["mobilenetv2_*", "mobilenetv3_*", "tf_mobilenetv3_*"], [], [160, 192, 224],
                  [1, 2, 4, 8, 16, 32], 20),
    "resnet": (["resnet*"], ["*clip*", "resnetrs*", "resnet200*", "*_gn", "*_mlp"],
               [160, 192, 224], [1, 2, 4, 8, 16], 30),
    "vgg": (["vgg*"], [], [128, 160, 192, 224], [1, 2, 4, 8], 8),
    # Window attention: only sizes the windows tile are buildable; the meta check finds them.
    "swin": (["swin_*", "swinv2_cr_*"], ["*large*", "*huge*", "*giant*", "*384"], [160, 192, 224, 256],
             [1, 2, 4, 8], 10),
    "vit": (["vit_tiny_*", "vit_small_*", "vit_base_*", "vit_medium_*", "vit_little_*",
             "vit_mediumd_*", "vit_pwee_*", "vit_wee_*", "vit_relpos_*", "vit_srelpos_*"],
            ["*sapiens*", "*dinov3*", "*radio*", "*lingbot*", "*patch8*", "*_xp_*", "*mci*",
             "*tipsv2*"], [160, 192, 224], [1, 2, 4, 8, 16], 28),
    "densenet": (["densenet*"], [], [128, 160, 192, 224, 256], [1, 2, 4, 8, 16], 6),
    "visformer": (["visformer*"], [], [128, 160, 192, 224, 256, 288], [1, 2, 4, 8, 16, 32], 2),
    "poolformer": (["poolformer*"], [], [160, 192, 224], [1, 2, 4, 8, 16], 10),
}
MAX_GMACS = 20.0  # per sample at the largest size: leaves out giant variants
MAX_ITERATION_S = 6.0  # batch sizes whose one iteration (at the largest size) exceeds this are dropped
EFFECTIVE_GFLOPS = 25.0  # one core, whole networks (measured: ResNet-50 ≈ 40, small inputs lower)


def meta_gmacs(arch: str, size: int) -> float | None:
    """GMACs of one sample built like perfgraphs.graph.zoo builds it, or None if it cannot be."""
    import timm
    import torch
    from torch.utils.flop_counter import FlopCounterMode

    from perfgraphs.graph.zoo import timm_default_image_shape

    default = timm_default_image_shape(arch)
    try:
        with warnings.catch_warnings(), torch.device("meta"):
            warnings.simplefilter("ignore")
            if size != default[1]:
                try:
                    model = timm.create_model(arch, pretrained=False, img_size=(size, size))
                except TypeError:
                    model = timm.create_model(arch, pretrained=False)
            else:
                model = timm.create_model(arch, pretrained=False)
            model.eval()
            x = torch.empty(1, 3, size, size)
            with FlopCounterMode(display=False) as counter, torch.no_grad():
                model(x)
        return counter.get_total_flops() / 2 / 1e9
    except Exception:
        return None


def family_models(include, exclude, limit) -> list[str]:
    import timm

    names = sorted({m for p in include for m in timm.list_models(p)})
    names = [n for n in names if not any(fnmatch.fnmatch(n, e) for e in exclude)]
    if len(names) > 2 * limit:  # pre-thin evenly before the (slower) validation
        step = len(names) / (2 * limit)
        names = [names[int(i * step)] for i in range(2 * limit)]
    return names


def build_plan() -> dict:
    groups = []
    for family, (include, exclude, sizes, batches, limit) in FAMILIES.items():
        chosen = []
        for arch in family_models(include, exclude, limit):
            ok = {s: g for s in sizes if (g := meta_gmacs(arch, s)) is not None and g > 0}
            if not ok or max(ok.values()) > MAX_GMACS:
                continue
            chosen.append((arch, ok))
        if len(chosen) > limit:
            step = len(chosen) / limit
            chosen = [chosen[int(i * step)] for i in range(limit)]
        models = []
        for arch, ok in chosen:
            ref = 224 if 224 in ok else max(ok)
            g = ok[ref]
            g_max = ok[max(ok)]
            fit = [b for b in batches if 2 * g_max * b / EFFECTIVE_GFLOPS <= MAX_ITERATION_S]
            entry = {"name": f"timm:{arch}", "gmacs": round(g, 4), "gmacs_at": ref,
                     "input_sizes": sorted(ok), "batch_sizes": fit or [1]}
            models.append(entry)
        print(f"{family}: {len(models)} models, "
              f"{sum(len(m['input_sizes']) * len(m['batch_sizes']) for m in models)} configs",
              file=sys.stderr)
        groups.append({"family": family, "models": models})
    return {
        "suite": "dippm-cpu",
        "description": ("DIPPM protocol on one pinned CPU core: 10 timm families x input sizes x "
                        "batch sizes; generated by perfgraphs.collect.plangen"),
        "mode": "inference", "protocol": "dippm-cpu", "platforms": ["cpu-torch-fp32"],
        "core": 1, "timeout_s": 600, "groups": groups,
    }


def main() -> None:
    header = ("# Generated by `python -m perfgraphs.collect.plangen`; edit the generator, not this file.\n"
              "# Time-budget rule (protocol dippm-cpu): 5 warm-up runs or 2 s (min 2), then 30 timed runs\n"
              "# or 3 s of timed work (min 5); the actual n is stored per row. gmacs = GMACs per sample\n"
              "# at gmacs_at px (cost-model hint for the time estimate).\n")
    sys.stdout.write(header + yaml.safe_dump(build_plan(), sort_keys=False, width=100))


if __name__ == "__main__":
    main()
