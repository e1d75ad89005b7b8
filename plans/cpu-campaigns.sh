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
set -uo pipefail
cd "$(dirname "$0")/.."
PY=${PYTHON:-.venv/bin/python}
for suite in ${SUITES:-dippm llm trappm ort}; do
  echo "== $suite-cputime $(date -u +%FT%TZ)"
  "$PY" -m perfgraphs collect "plans/$suite-cputime.yaml" --graphs-from "data/measurements/$suite-cpu" \
    || echo "== $suite-cputime stopped with exit $?"
done
