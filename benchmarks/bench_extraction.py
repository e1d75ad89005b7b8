"""Extraction throughput: architectures/minute (fresh build + ONNX export + graph) and
graphs/minute (batch variants derived from one export), plus agreement with published counts.

Run:  python -m perfgraphs.benchmarks.bench_extraction [--limit N] [--variants 64]
Targets (issue "perfgraphs core"): >= 60 archs/min and >= 5,000 variants/min on this machine.
"""

from __future__ import annotations

import argparse
import statistics
import time
from pathlib import Path

from perfgraphs.graph import graph_template
from perfgraphs.graph.ground_truth import (
    default_timm_results_dir,
    read_sample,
    timm_published,
    torchvision_published,
)

SAMPLE = Path(__file__).resolve().parents[1] / "tests" / "data" / "ground_truth_sample.txt"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--limit", type=int, default=None, help="only the first N architectures")
    parser.add_argument("--variants", type=int, default=64, help="batch sizes per template")
    args = parser.parse_args()

    sample = read_sample(SAMPLE)[: args.limit]
    results_dir = default_timm_results_dir()
    published = timm_published(results_dir) if results_dir else {}
    export_s, variant_s, n_variants = [], 0.0, 0
    rows = []
    for name, size in sample:
        t0 = time.perf_counter()
        template = graph_template(name, image_shape=(3, size, size))
        graph = template.graph(1)
        export_s.append(time.perf_counter() - t0)
        t1 = time.perf_counter()
        for batch in range(1, args.variants + 1):
            template.graph(batch)
        variant_s += time.perf_counter() - t1
        n_variants += args.variants
        zoo, arch = name.split(":", 1)
        truth = torchvision_published(arch) if zoo == "torchvision" else published.get((arch, size))
        s = graph.static_features()
        if truth:
            dp = (s["total_params"] - truth.params) / truth.params * 100
            dm = (s["total_macs"] / 1e9 - truth.gmacs) / truth.gmacs * 100
            rows.append((name, size, dp, dm))
            print(f"{name:42s} {size:4d}  params {dp:+7.2f}%  gmacs {dm:+7.2f}%  ({export_s[-1]:.2f}s)", flush=True)
    total = sum(export_s)
    print(f"\narchitectures: {len(export_s)} in {total:.1f}s -> {60 * len(export_s) / total:.1f} archs/min "
          f"(median {statistics.median(export_s):.2f}s per arch)")
    print(f"batch variants: {n_variants} in {variant_s:.2f}s -> {60 * n_variants / variant_s:,.0f} graphs/min")
    if rows:
        params_ok = sum(abs(r[2]) <= 1 for r in rows) / len(rows) * 100
        macs_ok = sum(abs(r[3]) <= 10 for r in rows) / len(rows) * 100
        abs_m = sorted(abs(r[3]) for r in rows)
        print(f"ground truth: {len(rows)} archs; params within 1%: {params_ok:.1f}%; MACs within 10%: "
              f"{macs_ok:.1f}%; |MAC error| median {statistics.median(abs_m):.2f}% max {abs_m[-1]:.2f}%")


if __name__ == "__main__":
    main()
