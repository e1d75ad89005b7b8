"""The label scan's peak memory against the size of the file it reads.

The scan (:mod:`perfgraphs.leaderboard.label_scan`) reads every file of a submission whole (up to
512 MB a file) and looks for the labels in it as printed text and as raw floats. Its extra memory
beyond the file itself is what decides whether a checker machine can scan the largest file the
rules allow. Target: peak memory at most **3x** the file's size for both kinds of file, a file of
printed numbers (the worst case: a token per 10 bytes) and a file of raw float32 values.

Each scan runs in a forked child, whose peak resident set (``ru_maxrss``) after the scan, less the
child's at the start, is the scan's extra memory. The label arrays are random (the file holds none
of them: the scan reads everything and refuses nothing).

    python -m perfgraphs.benchmarks.label_scan_memory [--mb 64] [--json benchmarks/results/label-scan-memory.json]

Measured 2026-12-03 on the Xeon VM, 64 MB files: before reading text a piece at a time and matching
raw floats a million at a time, the printed file took 969 MB extra (16.8x); after, see the json.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

TARGET_RATIO = 3.0


def _write(folder: Path, kind: str, mb: int) -> Path:
    rng = np.random.default_rng(0)
    path = folder / kind / ("w.txt" if kind == "printed" else "w.bin")
    path.parent.mkdir(parents=True)
    if kind == "printed":
        n = mb * 2**20 // 11
        path.write_text("\n".join(f"{v:.6f}" for v in rng.random(n) * 100))
    else:
        path.write_bytes((rng.random(mb * 2**20 // 4) * 100).astype(np.float32).tobytes())
    return path


def _scan_in_child(path: Path, arrays) -> dict:
    from perfgraphs.leaderboard.label_scan import scan_submission

    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: scan, report its own peak
        os.close(read)
        before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
        start = time.perf_counter()
        problems = scan_submission(path.parent, arrays)
        extra_mb = (resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before) / 1024
        os.write(write, json.dumps({"extra_mb": extra_mb, "seconds": time.perf_counter() - start,
                                    "refused": bool(problems)}).encode())
        os._exit(0)
    os.close(write)
    with os.fdopen(read) as pipe:
        out = json.loads(pipe.read())
    os.waitpid(pid, 0)
    return out


def run(mb: int) -> dict:
    from perfgraphs.leaderboard.label_scan import LabelArray, label_index

    arrays = [LabelArray("random labels", np.random.default_rng(1).random(2000) * 100)]
    label_index(arrays)  # built before the fork: the index is not the scan's cost
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for kind in ("printed", "raw-float32"):
            path = _write(Path(tmp), kind, mb)
            size_mb = path.stat().st_size / 2**20
            out = _scan_in_child(path, arrays)
            rows.append({"file": kind, "file_mb": round(size_mb, 1), "extra_mb": round(out["extra_mb"], 1),
                         "ratio": round(out["extra_mb"] / size_mb, 2), "seconds": round(out["seconds"], 1),
                         "refused": out["refused"]})
    return {"what": "perfgraphs.leaderboard.label_scan peak memory beyond the process's, per MB of file; "
                    "python -m perfgraphs.benchmarks.label_scan_memory",
            "target_ratio": TARGET_RATIO, "machine": os.uname().nodename,
            "date": time.strftime("%Y-%m-%d"), "files": rows}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m perfgraphs.benchmarks.label_scan_memory",
                                     description=__doc__.split("\n")[0])
    parser.add_argument("--mb", type=int, default=64, help="size of each file scanned (MB)")
    parser.add_argument("--json", type=Path, default=None)
    args = parser.parse_args(argv)
    result = run(args.mb)
    for row in result["files"]:
        print(f"{row['file']:>12}: {row['file_mb']} MB file, {row['extra_mb']} MB extra ({row['ratio']}x), "
              f"{row['seconds']} s, refused={row['refused']}")
    if args.json:
        args.json.write_text(json.dumps(result, indent=2) + "\n")
    missed = [r for r in result["files"] if r["ratio"] > TARGET_RATIO or r["refused"]]
    return 1 if missed else 0


if __name__ == "__main__":
    sys.exit(main())
