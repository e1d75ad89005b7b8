"""Generate the campaign plans: ``python -m perfgraphs.collect.plangen <suite> > plans/<suite>.yaml``.

Suites: ``dippm-cpu`` (this module; also the default with no argument), ``trappm-cpu``
(:mod:`perfgraphs.collect.plangen_trappm`), ``llm-cpu`` (:mod:`perfgraphs.collect.plangen_llm`) and
``ort-cpu`` (:mod:`perfgraphs.collect.plangen_ort`). Run once per suite; the written YAML, not
these scripts, is the campaign's definition, so a newer timm cannot silently change a running plan.
Every written plan starts with a header: how it was generated, its time-budget rule, its size and
the machine time ``perfgraphs collect <plan> --dry-run`` estimates for it.

Why these choices (DIPPM): DIPPM's families, each architecture tried at several input sizes (a model
that cannot be built at a size is left out at that size); GMACs are counted on the meta device (no
memory, no compute) with torch's FLOP counter, then used to drop batch sizes whose single iteration
would exceed ``MAX_ITERATION_S`` on one core, so heavy models get fewer batch sizes. The other
suites use the same GMACs/time rule with their own limits (see their modules).
"""

from __future__ import annotations

import argparse
import fnmatch
import importlib
import json
import sys
import textwrap
import warnings
from pathlib import Path

from perfgraphs.registry import CPU_TORCH_FP32

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


def meta_gmacs(arch: str, size: int, overrides: dict | None = None) -> float | None:
    """GMACs of one sample built like perfgraphs.graph.zoo builds it (with a variant's structure
    ``overrides``), or None if it cannot be."""
    import timm
    import torch
    from torch.utils.flop_counter import FlopCounterMode

    from perfgraphs.graph.zoo import timm_default_image_shape

    default = timm_default_image_shape(arch)
    try:
        with warnings.catch_warnings(), torch.device("meta"):
            warnings.simplefilter("ignore")
            kwargs = dict(overrides or {})
            if size != default[1]:
                try:
                    model = timm.create_model(arch, pretrained=False, img_size=(size, size), **kwargs)
                except TypeError:
                    model = timm.create_model(arch, pretrained=False, **kwargs)
            else:
                model = timm.create_model(arch, pretrained=False, **kwargs)
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


def build_plan(families: list[str] | None = None) -> dict:
    groups = []
    for family, (include, exclude, sizes, batches, limit) in FAMILIES.items():
        if families is not None and family not in families:
            continue
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
        "mode": "inference", "protocol": "dippm-cpu", "platforms": [CPU_TORCH_FP32],
        "core": 1, "timeout_s": 600, "groups": groups,
    }


def build(families: list[str] | None = None, **_) -> dict:
    return build_plan(families)


# Block lists, as plans/dippm-cpu.yaml was first written (that file is frozen: see its header).
FLOW_STYLE = False

RULE = ("Time-budget rule (protocol dippm-cpu): 5 warm-up runs or 2 s (min 2), then 30 timed runs "
        "or 3 s of timed work (min 5); the actual n is stored per row. gmacs = GMACs per sample at "
        "gmacs_at px (cost-model hint for the time estimate). Models above "
        f"{MAX_GMACS:g} GMACs are left out; batch sizes whose one iteration at the model's largest "
        f"size would take over {MAX_ITERATION_S:g} s at {EFFECTIVE_GFLOPS:g} GFLOP/s are dropped.")


# ---------------------------------------------------------------------------------------------
# Shared by the suite generators


def evenly(items: list, k: int) -> list:
    """``k`` items spread evenly over ``items`` (all of them when there are no more than ``k``)."""
    if len(items) <= k:
        return list(items)
    return [items[int((i + 0.5) * len(items) / k)] for i in range(k)]


def fitting_batches(gmacs: float, batches: list[int], max_s: float, factor: float = 1.0) -> list[int]:
    """Batch sizes whose one iteration (``factor`` × forward) is estimated to take ≤ ``max_s``."""
    return [b for b in batches if 2 * gmacs * b * factor / EFFECTIVE_GFLOPS <= max_s]


def timm_family_models(include: list[str], exclude: list[str]) -> list[str]:
    import timm

    names = sorted({m for p in include for m in timm.list_models(p)})
    return [n for n in names if not any(fnmatch.fnmatch(n, e) for e in exclude)]


def export_failures() -> set[str]:
    """Structures (``timm:arch@size``) whose ONNX export already failed in the graph pool: an
    ONNX Runtime measurement would fail the same way, and a label without a graph is of no use
    to the graph datasets."""
    from perfgraphs.paths import graph_pool_dir
    from perfgraphs.pool.graph_pool import GraphPool

    try:
        return set(GraphPool(graph_pool_dir()).failures())
    except ValueError:  # a line half-written by a running export: read it next time
        return set()


# Meta-device counts take 1-5 s each; ``--cache`` keeps them between runs of the generator. The
# cache is keyed by library versions, so a newer timm or transformers recounts everything.
_GMACS_CACHE: dict[str, float | None] | None = None


def _versions() -> str:
    import timm
    import torch
    import transformers

    return f"timm {timm.__version__}, torch {torch.__version__}, transformers {transformers.__version__}"


def cached_gmacs(source: str, size: int, batch: int = 1) -> float | None:
    """GMACs of one forward of a zoo model (``timm:`` at ``size`` px, ``hf:`` at ``size`` tokens);
    ``batch`` > 1 only for ``hf:`` sources."""
    key = f"{source}@{size}" + (f"x{batch}" if batch != 1 else "")
    if _GMACS_CACHE is not None and key in _GMACS_CACHE:
        return _GMACS_CACHE[key]
    kind, _, name = source.partition(":")
    value = meta_gmacs(name, size) if kind == "timm" else meta_gmacs_hf(name, size, batch)
    if value is not None:
        value = round(value, 6)  # the cache round-trips through JSON: same value either way
    if _GMACS_CACHE is not None:
        _GMACS_CACHE[key] = value
    return value


def meta_gmacs_hf(model_id: str, seq_len: int, batch: int = 1) -> float | None:
    """GMACs of a forward of ``batch`` sequences through an encoder built from its shipped
    configuration, or None."""
    try:
        return count_encoder_gmacs(meta_encoder(model_id), seq_len, batch)
    except Exception:
        return None


def meta_encoder(model_id: str):
    """The encoder (``transformers.AutoModel``, eager attention, as measured and exported) built
    from its shipped configuration on the meta device: shapes and parameters, no memory."""
    import torch
    import transformers

    from perfgraphs.graph.zoo import hf_config

    with warnings.catch_warnings(), torch.device("meta"):
        warnings.simplefilter("ignore")
        model = transformers.AutoModel.from_config(hf_config(model_id), attn_implementation="eager")
        model.eval()
    # No attention mask and no padding check: both read tensor values, which the meta device
    # does not have; neither changes the matrix products that are counted.
    model.warn_if_padding_and_no_attention_mask = lambda *a, **k: None
    return model


def count_encoder_gmacs(model, seq_len: int, batch: int = 1) -> float:
    """GMACs (matrix products, torch's FLOP counter / 2) of one forward of ``batch`` sequences of
    ``seq_len`` tokens through a :func:`meta_encoder` model."""
    import torch
    from torch.utils.flop_counter import FlopCounterMode

    with warnings.catch_warnings(), torch.device("meta"):
        warnings.simplefilter("ignore")
        ids = torch.zeros(batch, seq_len, dtype=torch.long)
        with FlopCounterMode(display=False) as counter, torch.no_grad():
            model(input_ids=ids)
    return counter.get_total_flops() / 2 / 1e9


def _load_cache(path: Path | None) -> None:
    global _GMACS_CACHE
    if path is None:
        _GMACS_CACHE = None
        return
    _GMACS_CACHE = {}
    if path.is_file():
        try:
            data = json.loads(path.read_text())
        except (OSError, ValueError):
            return
        if isinstance(data, dict) and data.get("versions") == _versions():
            _GMACS_CACHE.update(data.get("gmacs", {}))


def _save_cache(path: Path | None) -> None:
    if path is not None and _GMACS_CACHE is not None:
        tmp = path.with_suffix(path.suffix + ".tmp")
        tmp.write_text(json.dumps({"versions": _versions(), "gmacs": _GMACS_CACHE}, sort_keys=True))
        tmp.replace(path)


# ---------------------------------------------------------------------------------------------
# Rendering and CLI

SUITES = {
    "dippm-cpu": "perfgraphs.collect.plangen",
    "trappm-cpu": "perfgraphs.collect.plangen_trappm",
    "llm-cpu": "perfgraphs.collect.plangen_llm",
    "ort-cpu": "perfgraphs.collect.plangen_ort",
    "dippm-cuda": "perfgraphs.collect.plangen_cuda",
}


def plan_size(plan: dict) -> dict:
    """Configurations, models, families and the ``--dry-run`` estimate of a plan mapping (no
    hardware probe yet: the default peak, cost scale 1)."""
    from perfgraphs.collect.plan import estimate_seconds, parse_plan

    parsed = parse_plan(plan, plan["suite"])
    return {"configs": len(parsed.configs), "models": len({c.model for c in parsed.configs}),
            "families": len(parsed.families),
            "seconds": sum(estimate_seconds(c) for c in parsed.configs)}


def render(plan: dict, rule: str, command: str, flow: bool = True) -> str:
    from perfgraphs.collect.plan import DEFAULT_GFLOPS, DEFAULT_GPU_GFLOPS

    size = plan_size(plan)
    gpu = any(str(p).startswith("cuda-") for p in plan.get("platforms", []))
    peak = DEFAULT_GPU_GFLOPS if gpu else DEFAULT_GFLOPS
    lines = [f"Generated by `{command}` ({_versions()}); edit the generator, not this file.",
             rule,
             f"Size: {size['configs']:,} configurations, {size['models']} models, {size['families']} "
             f"families. Estimated machine time: {size['seconds'] / 3600:.1f} h (what "
             f"`perfgraphs collect plans/{plan['suite']}.yaml --dry-run` prints before the suite has "
             f"a hardware probe: {peak:g} GFLOP/s peak, cost scale 1)."]
    header = "".join(textwrap.fill(line, 98, initial_indent="# ", subsequent_indent="# ") + "\n"
                     for line in lines)
    style = None if flow else False  # None: lists of scalars on one line
    return header + yaml.safe_dump(plan, sort_keys=False, width=100, default_flow_style=style)


def generate(suite: str, families: list[str] | None = None, external_dir: Path | None = None) -> str:
    """The plan file text of one suite (``families``: a subset, for a quick look or a test)."""
    from perfgraphs.collect.errors import PlanError

    if suite not in SUITES:
        raise PlanError(f"unknown suite {suite!r} (known: {', '.join(SUITES)})")
    module = importlib.import_module(SUITES[suite])
    if families is not None:
        unknown = sorted(set(families) - set(module.family_names()))
        if unknown:
            raise PlanError(f"{suite}: unknown families {', '.join(unknown)} "
                            f"(known: {', '.join(module.family_names())})")
    plan = module.build(families=families, external_dir=external_dir)
    if not plan["groups"]:
        raise PlanError(f"{suite}: no buildable model in the chosen families")
    command = f"python -m perfgraphs.collect.plangen {suite}"
    if families is not None:
        command += f" --families {','.join(families)}"
    return render(plan, module.RULE, command, flow=getattr(module, "FLOW_STYLE", True))


def family_names() -> list[str]:
    return list(FAMILIES)


def main(argv: list[str] | None = None) -> int:
    from perfgraphs.errors import PerfgraphsError

    parser = argparse.ArgumentParser(prog="python -m perfgraphs.collect.plangen",
                                     description="Write a campaign plan (YAML) to stdout.")
    parser.add_argument("suite", nargs="?", default="dippm-cpu", help=f"one of {', '.join(SUITES)}")
    parser.add_argument("--families", help="comma-separated subset of the suite's families")
    parser.add_argument("--cache", type=Path, help="JSON file keeping meta-device GMACs between runs")
    parser.add_argument("--external-dir", type=Path,
                        help="ort-cpu: folder of timm's benchmark CSVs "
                             "(default $PERFGRAPHS_EXTERNAL_DIR/timm-benchmark)")
    args = parser.parse_args(argv)
    families = [f for f in args.families.split(",") if f] if args.families else None
    try:
        _load_cache(args.cache)
        try:
            text = generate(args.suite, families, args.external_dir)
        finally:
            _save_cache(args.cache)
    except (PerfgraphsError, OSError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    sys.stdout.write(text)
    return 0


if __name__ == "__main__":
    # Run the imported module's main, not this copy's: the suite modules import
    # perfgraphs.collect.plangen, and the GMACs cache must be the one they see.
    from perfgraphs.collect import plangen

    sys.exit(plangen.main())
