"""Check ``perfgraphs predict calibrate`` on this machine: architectures it did not use fall within
its stated error.

1. ``perfgraphs predict calibrate`` (or ``run`` below, which calls it): the references measured
   here, the factor, its spread and the calibration's own error.
2. ``run`` measures the check configurations here (other labeled configurations of the same
   store, never references: :func:`perfgraphs.predict.calibration.check_configs`), under the same
   protocol, and scores:

   * the calibration's own error: each check configuration's time here against the factor times
     its label on the labels' machine — within the stated ±error?
   * the calibrated prediction: ``perfgraphs.predict(..., calibrated=True)``'s 80 % and 90 %
     intervals of the label's target (the recommended forward time) — does each cover the time
     measured here?

   Measure on a quiet machine (the timing is the point)::

       python -m perfgraphs.benchmarks.calibrate_check run [--store DIR] [--json FILE]

The stores are measurement tables of a held-out suite (``predict-calibration``): commit them under
``data/measurements/predict-calibration-<machine>`` as evidence; no dataset reads them.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
from pathlib import Path

from perfgraphs.registry import CPU_TORCH_FP32

ROOT = Path(__file__).resolve().parents[1]


def run(store: Path | None, out: Path | None, platform: str = CPU_TORCH_FP32, core: int | None = None) -> dict:
    import os

    import perfgraphs
    from perfgraphs.collect.environment import machine_tag
    from perfgraphs.predict.calibration import SUITE, calibrate, check_configs, label_source, measure_here

    store = store or ROOT / "data" / "measurements" / f"{SUITE}-{machine_tag()}"
    core = (os.cpu_count() or 1) - 1 if core is None else core
    cal = calibrate(platform, core=core, store=store)
    print(f"factor {cal['factor']:.3f} (ratios {cal['spread']['min_ratio']:.3f}-{cal['spread']['max_ratio']:.3f}), "
          f"stated error ±{cal['error_pct']:.1f} % at {cal['coverage']:.0%} ({cal['n_references']} references)")
    source = label_source(platform)
    checks = check_configs(source)
    here = measure_here(checks, source, store, core)
    rows = []
    for r in checks:
        key = (r["model"], r["input"], int(r["batch_size"]))
        if key not in here:
            continue
        there = float(r[source.label])
        transfer = cal["factor"] * there
        p = perfgraphs.predict(r["model"], batch=int(r["batch_size"]), input=r["input"], platform=platform,
                               calibrated=True)
        t = p[source.label]
        row = {"config": f"{r['model']}@{r['input']}#b{r['batch_size']}", "here_ms": here[key], "there_ms": there,
               "transferred_ms": transfer, "miss_pct": 100 * (here[key] / transfer - 1),
               "within_stated_error": abs(math.log(here[key] / transfer)) <= cal["error_log"],
               "predicted_ms": t.value, "verdict": t.distribution.verdict}
        for level in (0.8, 0.9):
            i = t.interval(level)
            row[f"covered_{level:g}"] = None if i is None else bool(i.low <= here[key] <= i.high)
        rows.append(row)
        print(f"{row['config']}: here {here[key]:.1f} ms, there {there:.1f} ms x {cal['factor']:.3f} = {transfer:.1f} "
              f"({row['miss_pct']:+.1f} %{'' if row['within_stated_error'] else ', OUTSIDE the stated error'}); "
              f"calibrated prediction {t.value if t.value is None else round(t.value, 1)} "
              f"({t.distribution.verdict}), 90 % interval covers: {row['covered_0.9']}")
    summary = {"n": len(rows), "within_stated_error": sum(r["within_stated_error"] for r in rows),
               **{f"covered_{lv:g}": sum(bool(r[f"covered_{lv:g}"]) for r in rows) for lv in (0.8, 0.9)},
               "answered": sum(r["predicted_ms"] is not None for r in rows)}
    print(f"{summary['within_stated_error']} of {len(rows)} within the stated ±{cal['error_pct']:.1f} %; calibrated "
          f"prediction intervals cover {summary['covered_0.8']} (80 %) and {summary['covered_0.9']} (90 %) of "
          f"{summary['answered']} answered")
    result = {"calibration": cal, "checks": rows, "summary": summary}
    if out is not None:
        out.write_text(json.dumps(result, indent=1) + "\n")
    return result


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m perfgraphs.benchmarks.calibrate_check",
                                     description=__doc__.split("\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)
    r = sub.add_parser("run", help="calibrate, measure the check configurations here and score them")
    r.add_argument("--store", type=Path, default=None)
    r.add_argument("--json", type=Path, default=None)
    r.add_argument("--core", type=int, default=None)
    args = parser.parse_args(argv)
    run(args.store, args.json, core=args.core)
    return 0


if __name__ == "__main__":
    sys.exit(main())
