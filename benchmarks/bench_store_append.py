"""Appending rows to a measurement store: the cost of one append must not grow with the store.

`MeasurementStore.append` refuses a row of other hardware than the store's, so it asks the store
which hardware it holds. A store whose `campaign.json` records no identity (one written by
`append` alone, as importers and tests do) used to answer by reading every row, so n appends cost
n² row reads (the tests' tiny labeled store, 154 rows, took 146 s to write). Now the first row
that names its hardware decides.

Target: the mean time of an append in the last quarter of N appends is at most 1.5x that in the
first quarter (a store that re-read itself would show about 4x between a quarter and a full store).

Run:  python -m perfgraphs.benchmarks.bench_store_append [--rows 200]
"""

from __future__ import annotations

import argparse
import json
import statistics
import tempfile
import time
from pathlib import Path

TARGET_RATIO = 1.5


def main(argv: list[str] | None = None) -> int:
    from perfgraphs.collect.store import MeasurementStore, load_measurements
    from perfgraphs.data.build import measurement_root
    from perfgraphs.registry import QUICKSTART_BOARD, get_dataset

    parser = argparse.ArgumentParser(prog="python -m perfgraphs.benchmarks.bench_store_append")
    parser.add_argument("--rows", type=int, default=200)
    args = parser.parse_args(argv)
    ds = get_dataset(QUICKSTART_BOARD[0])  # real rows of the quickstart board's store
    rows = load_measurements(measurement_root(ds, ds.config(QUICKSTART_BOARD[1]))).to_pylist()[: args.rows]
    times = []
    with tempfile.TemporaryDirectory() as tmp:
        store = MeasurementStore(Path(tmp) / "store")
        for row in rows:
            t0 = time.perf_counter()
            store.append(row)
            times.append(time.perf_counter() - t0)
    quarter = max(1, len(times) // 4)
    first, last = statistics.fmean(times[:quarter]), statistics.fmean(times[-quarter:])
    result = {"rows": len(times), "first_quarter_ms": 1e3 * first, "last_quarter_ms": 1e3 * last,
              "ratio": last / first, "target_ratio": TARGET_RATIO, "met": last / first <= TARGET_RATIO}
    print(json.dumps(result, indent=2))
    return 0 if result["met"] else 1


if __name__ == "__main__":
    raise SystemExit(main())
