"""Generate the ORT CPU plan: ≥ 520 timm architectures at batch 1 on ONNX Runtime fp32 / int8 and torch.

Why these choices: the labels join perfgraphs/nnlqp, which keys every structure by (architecture,
input size) of timm's published benchmark results, so the candidates are the benchmarked
architectures the installed timm can build, each at its benchmarked size (timm's default input
size when it was benchmarked there, else the smallest benchmarked size). The same configurations
are measured on ``cpu-torch-fp32`` so nnlqp has our torch platform on the same graphs.

GMACs are counted on the meta device (timm's own count from the results is only a pre-filter);
architectures that cannot be built there are left out, and so are those above ``MAX_GMACS`` (one
iteration ≤ 0.5 s at ``EFFECTIVE_GFLOPS`` on one core) and those whose ONNX export failed in the
graph pool (``data/graphs/timm/failures.jsonl`` when the plan is generated). The remaining
architectures are spread evenly over timm's families (the module that defines an architecture):
every family gets the same quota, small families give their unused share to the large ones,
and within a family the chosen architectures are spread evenly over its GMACs range. Only if the
benchmarked architectures fall short of ``TARGET_ARCHS`` (whole plan, not a family subset) are
unbenchmarked ones (at timm's default size) added.
"""

from __future__ import annotations

import sys
from pathlib import Path

from perfgraphs.collect.plangen import EFFECTIVE_GFLOPS, cached_gmacs, evenly, export_failures
from perfgraphs.registry import CPU_TORCH_FP32

PLATFORMS = ["cpu-ort-fp32", "cpu-ort-int8", CPU_TORCH_FP32]
TARGET_ARCHS = 540  # the issue asks for ≥ 500; the margin absorbs configurations that fail to export
MAX_GMACS = 6.0  # per sample at the measured size: 2 × 6 GMAC / 25 GFLOP/s ≈ 0.5 s per iteration
PREFILTER_SLACK = 1.25  # timm's benchmark GMACs may differ a little from the meta-device count

RULE = ("Time-budget rule (protocol dippm-cpu): 5 warm-up runs or 2 s (min 2), then 30 timed runs or "
        "3 s of timed work (min 5); the actual n is stored per row. int8 = onnxruntime "
        "quantize_dynamic of the fp32 export (one export per input, shared by its adjacent ORT "
        "configurations through a one-slot cache). Batch 1, each "
        "architecture at timm's benchmarked input size (its default size where benchmarked there), "
        "so the labels join timm's results in perfgraphs/nnlqp on (arch, img_size). Left out: "
        f"architectures above {MAX_GMACS:g} GMACs (meta-device count; one iteration ≤ "
        f"{2 * MAX_GMACS / EFFECTIVE_GFLOPS:.1f} s at {EFFECTIVE_GFLOPS:g} GFLOP/s), not buildable "
        "on the meta device, or whose ONNX export already failed "
        f"(data/graphs/timm/failures.jsonl). Up to {TARGET_ARCHS} architectures are spread evenly "
        "over timm's families (family = the timm module).")


def family_names() -> list[str]:
    import timm

    return sorted(timm.list_modules())


def _square_default(arch: str) -> int | None:
    from perfgraphs.graph.zoo import timm_default_image_shape

    shape = timm_default_image_shape(arch)
    return shape[1] if len(shape) == 3 and shape[0] == 3 and shape[1] == shape[2] else None


def benchmarked_candidates(rows: list[dict]) -> dict[str, tuple[int, float | None]]:
    """``{arch: (input size, timm's GMACs at that size)}`` for every buildable benchmarked arch."""
    import timm

    sizes: dict[str, dict[int, float | None]] = {}
    for r in rows:
        if r["img_size"] and timm.is_model(r["arch"]):
            seen = sizes.setdefault(r["arch"], {})
            if seen.get(int(r["img_size"])) is None:
                seen[int(r["img_size"])] = r["gmacs_per_sample"]
    out = {}
    for arch in sorted(sizes):
        default = _square_default(arch)
        if default is None:  # plans describe square images only
            continue
        size = default if default in sizes[arch] else min(sizes[arch])
        out[arch] = (size, sizes[arch][size])
    return out


def spread(by_family: dict[str, list], target: int) -> dict[str, list]:
    """Water-filling: the largest equal quota ``k`` with Σ min(n, k) ≤ target, the remainder to the
    largest families (one each); each family's items are assumed sorted by cost."""
    counts = {f: len(v) for f, v in by_family.items()}
    if sum(counts.values()) <= target:
        return {f: list(v) for f, v in by_family.items()}
    k = 0
    while sum(min(n, k + 1) for n in counts.values()) <= target:
        k += 1
    quota = {f: min(n, k) for f, n in counts.items()}
    larger = sorted((f for f, n in counts.items() if n > k), key=lambda f: (-counts[f], f))
    for f in larger[: target - sum(quota.values())]:
        quota[f] += 1
    return {f: evenly(v, quota[f]) for f, v in by_family.items()}


def _validated(candidates: dict[str, tuple[int, float | None]],
               families: list[str] | None) -> dict[str, list[tuple[float, str, int]]]:
    from perfgraphs.graph.zoo import timm_module_of
    from perfgraphs.pool.structures import structure_id

    failed = export_failures()
    by_family: dict[str, list[tuple[float, str, int]]] = {}
    for arch, (size, hint) in candidates.items():
        family = timm_module_of(arch)
        if families is not None and family not in families:
            continue
        if structure_id(f"timm:{arch}", size) in failed:
            continue
        if hint is not None and hint > MAX_GMACS * PREFILTER_SLACK:
            continue
        g = cached_gmacs(f"timm:{arch}", size)
        if g is None or g <= 0 or g > MAX_GMACS:
            continue
        by_family.setdefault(family, []).append((g, arch, size))
    return {f: sorted(v) for f, v in sorted(by_family.items())}


def build(families: list[str] | None = None, external_dir: Path | None = None) -> dict:
    import timm

    from perfgraphs.loaders import load_timm_benchmark

    rows = load_timm_benchmark(external_dir, progress=False).to_pylist()
    bench = benchmarked_candidates(rows)
    chosen = spread(_validated(bench, families), TARGET_ARCHS)
    have = sum(len(v) for v in chosen.values())
    if have < TARGET_ARCHS and families is None:
        extra = {a: (s, None) for a in timm.list_models() if a not in bench
                 and (s := _square_default(a)) is not None}
        more = spread(_validated(extra, families), TARGET_ARCHS - have)
        for f, items in more.items():
            chosen[f] = sorted(chosen.get(f, []) + items)
    groups = []
    for family in sorted(chosen):
        models = [{"name": f"timm:{arch}", "gmacs": round(g, 4), "gmacs_at": size, "input_sizes": [size]}
                  for g, arch, size in sorted(chosen[family], key=lambda t: t[1])]
        groups.append({"family": family, "models": models})
    benchmarked = sum(1 for items in chosen.values() for _, a, _ in items if a in bench)
    print(f"ort-cpu: {sum(len(v) for v in chosen.values())} architectures ({benchmarked} in timm's "
          f"benchmark results) in {len(groups)} families", file=sys.stderr)
    return {
        "suite": "ort-cpu",
        "description": ("NNLQP-style multi-platform latency at batch 1: timm architectures on ONNX "
                        "Runtime fp32 and dynamic int8 and on torch fp32, one pinned CPU core; "
                        "generated by perfgraphs.collect.plangen_ort"),
        "mode": "inference", "protocol": "dippm-cpu", "platforms": list(PLATFORMS),
        "batch_sizes": [1], "core": 1, "timeout_s": 900, "groups": groups,
    }
