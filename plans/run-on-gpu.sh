#!/usr/bin/env bash
# One GPU loan, start to finish, in one call (this project borrows CUDA machines for minutes):
#
#   bash plans/run-on-gpu.sh [SECONDS]    # measure for SECONDS (default 420), then stop cleanly
#   SMOKE=0 bash plans/run-on-gpu.sh 150  # a second loan in a session: skip the smoke run
#   ENERGY_COMPARE=1 ZEUS_WHEELS=.whl bash plans/run-on-gpu.sh 360  # Zeus vs NVML first (carry .whl)
#   NOISE_FLOOR=0 bash plans/run-on-gpu.sh       # skip the noise floor (measured first when the GPU has none)
#
# The loaned machine's image has torch, timm, transformers, onnx and pynvml but not perfgraphs
# and no network: the package is copied into a site folder (no pip). A one-configuration smoke
# run on a scratch store fails fast, before the campaign, when the CUDA path does not work there.
# The campaign resumes the plan (finished configurations are skipped) and reuses the CPU
# campaign's graph facts. Results: $OUT/noise-floor-<store>.json (the first loan of a GPU model), $OUT/<store>.tar.gz (data/measurements/dippm-<gpu>, to unpack at
# the repository root after removing the local copy, and commit) and $OUT/run.log.
set -u -o pipefail
budget=${1:-420}
plan=${PLAN:-plans/dippm-cuda.yaml}
graphs=${GRAPHS_FROM:-data/measurements/dippm-cpu}
out=${OUT:-/tmp/perfgraphs-gpu-out}
py=${PYTHON:-python3}
suite=$(sed -n 's/^suite: *//p' "$plan")
mkdir -p "$out"
exec > >(tee -a "$out/run.log") 2>&1

site=$(mktemp -d /tmp/perfgraphs-site.XXXX)
cp -r perfgraphs "$site/"
# pyproject maps benchmarks/ to perfgraphs.benchmarks; data and leaderboard files are found in the checkout
cp -r benchmarks "$site/perfgraphs/benchmarks"
# Zeus for every measurement of the loan, the campaign's too, not only the comparison (each row
# names its meter, energy_meter). ZEUS_WHEELS: a folder of the wheels (plans/zeus-wheels.sh),
# installed here into ZEUS_SITE without the network.
if [ -n "${ZEUS_WHEELS:-}" ]; then
  ZEUS_SITE=${ZEUS_SITE:-$(mktemp -d /tmp/zeus-site.XXXX)}
  $py -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --target "$ZEUS_SITE" "$ZEUS_WHEELS"/*.whl \
    || { echo "FAILED: installing the zeus wheels"; exit 3; }
fi
# NVML-based availability check: the campaign process must not initialise the CUDA driver
# before its workers fork (they are forked from a server process, which never touches CUDA).
# PYTHONSAFEPATH: the checkout's own perfgraphs/ (no sub-packages mapped in) must not shadow the site copy
export PYTHONPATH="$site${ZEUS_SITE:+:$ZEUS_SITE}" PYTHONSAFEPATH=1 PYTHONUNBUFFERED=1 PYTORCH_NVML_BASED_CUDA_CHECK=1

$py - <<'PY' || { echo "FAILED: environment"; exit 3; }
import torch, timm, transformers, onnx
print("torch", torch.__version__, "cuda", torch.version.cuda, "timm", timm.__version__,
      "transformers", transformers.__version__, "onnx", onnx.__version__)
print("gpu", torch.cuda.get_device_name(0) if torch.cuda.is_available() else None)
PY
command -v nvidia-smi >/dev/null && nvidia-smi --query-gpu=name,driver_version,clocks.sm,power.draw,temperature.gpu,memory.used --format=csv

if [ "${SMOKE:-1}" = 1 ]; then  # SMOKE=0: a later loan of a session whose smoke run passed
smoke=$(mktemp -d /tmp/perfgraphs-smoke.XXXX)
timeout -s INT -k 20 180 $py -m perfgraphs collect "$plan" --limit 1 --out "$smoke" --graphs-from "$graphs" \
  || { echo "FAILED: smoke run"; exit 4; }
$py - "$smoke" <<'PY' || { echo "FAILED: smoke row"; exit 5; }
import sys
from perfgraphs.collect.store import MeasurementStore
rows = MeasurementStore(sys.argv[1]).read().to_pylist()
keep = ["device", "model", "input", "batch_size", "status", "error", "latency_median_ms", "latency_mean_ms",
        "peak_memory_mb", "gpu_memory_used_mb", "energy_j", "power_w", "energy_window_s",
        "energy_window_runs", "gpu_name", "cuda_version", "tf32_cudnn", "structure_hash", "worker_wall_s"]
for r in rows:
    print({k: r.get(k) for k in keep})
# on a GPU the row must carry its NVML readings too: energy is one of the plan's targets
sys.exit(0 if rows and all(r["status"] == "ok" and (r["device"] != "cuda" or r["energy_j"] and r["gpu_name"])
                           for r in rows) else 1)
PY
fi

# ENERGY_COMPARE=1: first measure a few configurations with both GPU energy meters, Zeus and NVML
# (issue 18: they must agree within 5 %; results in $out/energy-meters.json and the log). The image
# has no zeus and no network: ZEUS_WHEELS (above) or ZEUS_SITE, a folder where zeus imports from.
# Exit 3 of the script: a meter cannot run here (it says which).
if [ "${ENERGY_COMPARE:-0}" = 1 ]; then
  timeout -s INT -k 20 300 $py plans/compare-energy-meters.py --out "$out/energy-meters.json"
  echo "energy-meter comparison exit $?"
fi

# One store per GPU model: a configuration's key names the platform (cuda-torch-fp32), not the
# card, so an H100 loan must not find the H200's rows "finished". "NVIDIA H200" -> dippm-h200.
gpu=$(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -n 1 | tr 'A-Z' 'a-z' | sed 's/^nvidia //; s/[^a-z0-9].*//')
store="data/measurements/${suite%-cuda}-${gpu:-unknown-gpu}"

# The labels' noise floor before more labels (a board on labels without one ranks blind): when
# this GPU has none committed, NOISE_FLOOR probe configurations (default 40, about 2.5 s each on
# an H200) measured twice, one round after the other (`perfgraphs collect noise-floor`), into
# $out/noise-floor-<store>.json: copy it to data/measurements/noise-floor/ and commit.
# NOISE_FLOOR=0 skips it.
floor_file="noise-floor-$(basename "$store").json"
if [ "${NOISE_FLOOR:-40}" -gt 0 ] && [ ! -e "data/measurements/noise-floor/$floor_file" ]; then
  floor_dir=$(mktemp -d /tmp/perfgraphs-floor.XXXX)
  timeout -s INT -k 20 "${FLOOR_BUDGET:-300}" $py -m perfgraphs collect noise-floor "$plan" --probe "${NOISE_FLOOR:-40}" \
    --out "$floor_dir" && mv "$floor_dir/noise-floor-$suite.json" "$out/$floor_file" \
    && echo "noise floor: $out/$floor_file" || echo "noise floor: not measured (exit $?); the campaign goes on"
fi
started=$(date +%s)
timeout -s INT -k 30 "$budget" $py -m perfgraphs collect "$plan" --out "$store" --graphs-from "$graphs"
echo "campaign exit $? after $(( $(date +%s) - started )) s"
$py -m perfgraphs collect verify "$store"
tar czf "$out/$(basename "$store").tar.gz" "$store" && ls -l "$out"
