"""Measure a few configurations of the GPU plan with both energy meters, Zeus and NVML, and say
whether they agree within 5 % (issue 18's acceptance check; run by ``plans/run-on-gpu.sh`` with
``ENERGY_COMPARE=1``, or by hand on a CUDA machine with zeus importable):

    python plans/compare-energy-meters.py [--out FILE.json] [--windows 3]

Each configuration is prepared once and warmed up, then measured in alternating windows
(zeus, nvml, zeus, nvml, ...) of the campaign's own ``energy_window``, so drift in clocks or
temperature falls on both meters alike; the comparison is of the medians of energy per
iteration. Exit 0: every configuration agrees within the tolerance; 1: one does not; 3: a meter
cannot run here (zeus not installed, no GPU) -- one line says which.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
from pathlib import Path

# (model, image size, batch size): configurations of plans/dippm-cuda.yaml from small to large
# per-iteration work, so both a few-ms and a tens-of-ms iteration are compared
CONFIGS = [("timm:efficientnet_b0", 224, 16), ("timm:resnet50", 224, 16), ("timm:vit_base_patch16_224", 224, 4)]
TOLERANCE = 0.05
PLAN = Path(__file__).resolve().parent / "dippm-cuda.yaml"


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", type=Path, default=None, help="write the per-window results as JSON")
    parser.add_argument("--windows", type=int, default=3, help="windows per meter and configuration")
    args = parser.parse_args(argv)

    from perfgraphs.collect import backends
    from perfgraphs.collect.energy import EnergyMeterError, gpu_energy_meter
    from perfgraphs.collect.plan import load_plan
    from perfgraphs.collect.platforms import get_platform

    planned = {(c.model, c.image_size, c.batch_size) for c in load_plan(PLAN).configs}
    missing = [c for c in CONFIGS if c not in planned]
    if missing:
        print(f"compare-energy-meters: {missing} are not configurations of {PLAN.name}", file=sys.stderr)
        return 2
    try:
        meters = {name: gpu_energy_meter(choice=name) for name in ("zeus", "nvml")}
    except EnergyMeterError as exc:
        print(f"compare-energy-meters: {exc}", file=sys.stderr)
        return 3
    platform = get_platform("cuda-torch-fp32")
    results, agree = [], True
    for model, image, batch in CONFIGS:
        prepared = backends.prepare(platform, "inference", model, image, None, batch)
        windows: dict[str, list[dict]] = {name: [] for name in meters}
        with prepared.context():
            backends.timed_loop(prepared, lambda n, s: n < 5)  # the plan's warm-up
            for _ in range(args.windows):
                for name, meter in meters.items():
                    windows[name].append(backends.energy_window(prepared, meter))
        prepared.cleanup()
        if not all(w for ws in windows.values() for w in ws):
            print(f"compare-energy-meters: {model} b{batch}: a meter measured nothing", file=sys.stderr)
            return 3
        median = {name: statistics.median(w["energy_j"] for w in ws) for name, ws in windows.items()}
        ratio = median["zeus"] / median["nvml"]
        ok = abs(ratio - 1) <= TOLERANCE
        agree &= ok
        results.append({"model": model, "image_size": image, "batch_size": batch, "windows": windows,
                        "median_energy_j": median, "zeus_over_nvml": ratio, "within_tolerance": ok})
        print(f"{model} {image}px b{batch}: zeus {median['zeus']:.4g} J, nvml {median['nvml']:.4g} J per iteration, "
              f"ratio {ratio:.4f} ({'agree' if ok else 'DISAGREE'} within {TOLERANCE:.0%})")
    if args.out:
        args.out.write_text(json.dumps({"tolerance": TOLERANCE, "configs": results}, indent=1))
    return 0 if agree else 1


if __name__ == "__main__":
    sys.exit(main())
