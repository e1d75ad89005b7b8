#!/usr/bin/env bash
# The CPU-time re-measurement (issue 14), one suite after another, into this machine's stores
# (data/measurements/<suite>-<cpu>-<machine id>). Resumable: run it again and it continues where it
# stopped (a SIGKILL loses at most the configuration in flight). Start it in the background on a
# machine nobody else is using; the quiet gate waits for the measuring core and the cores that slow
# it (see perfgraphs/collect/gate.py), so other work on the machine stalls it rather than spoiling it:
#
#   setsid nohup bash plans/cpu-campaigns.sh > campaign.log 2>&1 &
#
# Graph facts (structure hash, GMACs) are reused from the first-version stores of the same models.
# Stop it like Ctrl-C, by signalling its process group: `kill -INT -- -$(pgrep -f cpu-campaigns.sh)`;
# the suite being measured stops cleanly
# (at most the configuration in flight is lost; exit 130) and no later suite starts.
set -uo pipefail
cd "$(dirname "$0")/.."
PY=${PYTHON:-.venv/bin/python}
for suite in ${SUITES:-dippm llm trappm ort}; do
  echo "== $suite-cputime $(date -u +%FT%TZ)"
  "$PY" -m perfgraphs collect "plans/$suite-cputime.yaml" --graphs-from "data/measurements/$suite-cpu"
  rc=$?
  [ "$rc" = 130 ] && { echo "== stopped (SIGINT) during $suite-cputime"; break; }
  [ "$rc" = 0 ] || echo "== $suite-cputime stopped with exit $rc"
done
