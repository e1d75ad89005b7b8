#!/usr/bin/env bash
# One hidden round (issue 32; leaderboard/RULES.md, "The next hidden set"), in three steps run from
# the repository root, all in one working session (the secret never outlives it):
#
#   export PERFGRAPHS_HIDDEN_DIR=/outside/the/repo/hidden
#   bash plans/hidden-round.sh prepare            # draw the variants, stage the plan in .hidden/
#   # device: run `PLAN=.hidden/hidden-plan.yaml NOISE_FLOOR=0 bash plans/run-on-gpu.sh 420`, carry [".hidden"]
#   bash plans/hidden-round.sh finish FILES_AT    # labels to the keeper, commitment + definition written
#                                                 # (at the commit prepare drew at: git checkout it first)
#   # a CPU config (CONFIG=cpu-torch-fp32 SOURCE=plans/dippm-cpu.yaml) is measured on this machine instead,
#   # on the machine of its public labels, nothing else running:
#   bash plans/hidden-round.sh probe              # public configurations again: refuses a day whose
#                                                 # speed is outside WITHIN (default 0.9 1.1) of the labels'
#   bash plans/hidden-round.sh measure            # the plan's visits, the store in the keeper folder
#   bash plans/hidden-round.sh probe              # again after measuring (optional): the day's drift
#   bash plans/hidden-round.sh finish             # as above, from that store
#   git add leaderboard/hidden && git commit ...  # the commitment, before anything is scored
#   bash plans/hidden-round.sh score              # every reference on every board of the config, then
#                                                 # the keeper's rank groups (leaderboard/hidden/ranks/)
#
# Frozen fits (RULES, "Frozen fits"), any session BEFORE the round's commitment, resumable:
#   bash plans/hidden-round.sh freeze             # the GNN references fitted in the sandbox, their states
#   git add leaderboard/frozen && git commit ...  # kept in leaderboard/frozen/; `score` predicts from them
#
# DATASET / CONFIG name the boards (default dippm / h200-torch-fp32); SOURCE the public plan whose
# protocol and sizes the draw follows (default plans/dippm-cuda.yaml); REFS the references to score
# (default the six with full-strength public records there; the GNNs' full settings need a GPU:
# about 2 h of one core for the six, static-xgboost's grid most of it), JOBS how many at a time;
# PERFGRAPHS=the command.
set -euo pipefail
step=${1:-}
dataset=${DATASET:-dippm}
config=${CONFIG:-h200-torch-fp32}
source_plan=${SOURCE:-plans/dippm-cuda.yaml}
pg=${PERFGRAPHS:-perfgraphs}
py=${PYTHON:-python3}

# checkout_environment_tracked (hundred-and-eighth pass, side b), before any program but the shell's own
# builtins runs: the keeper's environment lives inside the checkout (`.venv`, as the README makes it),
# ignored, and a file a pull request committed under it with `git add -f` is written there by `git pull`
# (git overwrites ignored files): a `.venv/lib/python3.11/site-packages/*.pth` line ran in the first Python
# this script started, before any check, read keeper-key.pem and signed a record digest of its choosing as
# verified; a `.venv/bin/git` or `tar` runs for the bare name while the environment is on PATH. So PATH keeps
# no folder inside the checkout, PYTHON and PERFGRAPHS are the programs the keeper's PATH found, and a round
# is refused while git (found outside the checkout) tracks any file of their environment inside it.
checkout_environment_tracked() {
  local here kept="" dir real prog env_dir listed  # sets PATH, py, pg and why
  local -a dirs
  here=$(pwd -P)
  IFS=: read -ra dirs <<< "$PATH"
  py=$(command -v "$py" || echo "$py"); pg="$(command -v "${pg%% *}" || echo "${pg%% *}")${pg#"${pg%% *}"}"
  for dir in "${dirs[@]}"; do
    real=$(cd -- "${dir:-.}" 2>/dev/null && pwd -P) || real=$dir
    case "$real/" in "$here"/*) ;; *) kept=${kept:+$kept:}$dir;; esac
  done
  PATH=$kept
  for prog in "$py" "${pg%% *}"; do
    case "$prog" in */*) ;; *) continue;; esac
    env_dir=$(cd -- "${prog%/*}/.." 2>/dev/null && pwd -P) || continue
    case "$env_dir/" in "$here"/*) ;; *) continue;; esac
    listed=$(git ls-files -- "$env_dir") || { why="cannot ask git which files of $env_dir it tracks"; return; }
    [ -z "$listed" ] || { why="the environment of $prog ($env_dir) holds files git tracks (${listed%%$'\n'*}), which \
a pull request writes over the keeper's: remove them from the repository and build the environment again"; return; }
  done
}
why=""
checkout_environment_tracked
[ -z "$why" ] || { echo "hidden-round: $why" >&2; exit 2; }

keeper=${PERFGRAPHS_HIDDEN_DIR:?set PERFGRAPHS_HIDDEN_DIR to the keeper folder, outside the repository}
round="$keeper/round-$dataset-$config"
case "$(realpath -m "$keeper")/" in "$(realpath .)"/*)
  echo "hidden-round: $keeper is inside the repository: the keeper folder lives outside it" >&2; exit 2;; esac
# the checkout's root first on Python's path no more (hundred-and-seventh pass, side b): `python3 -m` and
# `python3 -` put the working folder ahead of the standard library, and a root json.py a pull request added
# ran in this script's Python with the keeper folder's key; PYTHONSAFEPATH (3.11) leaves it off, and a round
# is refused while the root holds such a module (hidden.root_modules_shadowing), for `python -m` run by hand
export PYTHONSAFEPATH=1
$py -c 'import sys; sys.exit(0 if getattr(sys.flags, "safe_path", 0) else 1)' || {
  echo "hidden-round: $py does not honour PYTHONSAFEPATH (Python 3.11 or later runs a round)" >&2; exit 2; }
$py -c 'import sys; from pathlib import Path; from perfgraphs.leaderboard.records.hidden import root_modules_shadowing as r
why = r(Path(".")); sys.exit(f"hidden-round: {why}" if why else 0)' || exit 2

# before an hour of measuring (or a probe against its labels): this machine must be the one of the
# config's public labels (build-hidden refuses a store of any other; two "AMD EPYC" VMs of one cloud
# are different CPUs)
same_machine() {
  $py - "$dataset" "$config" <<'PY' || exit 2
import sys
from perfgraphs.collect.environment import cpu_model, machine_id
from perfgraphs.leaderboard.records.hidden import foreign_hardware
from perfgraphs.registry import get_dataset
problem = foreign_hardware(get_dataset(sys.argv[1]).config(sys.argv[2]),
                           [{"device": "cpu", "machine_id": machine_id(), "cpu_model": cpu_model()}])
if problem:
    sys.exit(f"hidden-round: this machine is not the one of the public labels: {problem}")
PY
}

# the config's board targets, space-separated
config_targets() {
  $py -c "from perfgraphs.registry import get_dataset; c = get_dataset('$dataset').config('$config'); print(' '.join(b.target for b in c.boards))"
}

case "$step" in
prepare)
  # .hidden is made here, ignored: one committed (a link to leaderboard/hidden/, say) would carry the
  # plan into a folder the keeper commits
  if [ -L .hidden ] || [ -n "$(git ls-files -- .hidden)" ]; then
    echo "hidden-round: .hidden is a link or tracked by git: remove it (git rm) before a round" >&2; exit 2; fi
  $py -m perfgraphs.collect.variants --source "$source_plan" --per-family "${PER_FAMILY:-5}" --out "$round"
  # the commit the draw read; finish builds the round at it (hundred-and-twelfth pass, side c, below)
  git rev-parse HEAD > "$round/drawn-at-commit" || { echo "hidden-round: cannot read the checkout's commit" >&2; exit 2; }
  grep -qx '/.hidden/' .git/info/exclude 2>/dev/null || echo /.hidden/ >> .git/info/exclude
  mkdir -p .hidden && cp "$round/hidden-plan.yaml" .hidden/hidden-plan.yaml
  echo "device: PLAN=.hidden/hidden-plan.yaml NOISE_FLOOR=0 bash plans/run-on-gpu.sh 420   (carry [\".hidden\"])"
  ;;
probe)
  # the machine's speed today against the day of the config's public labels (perfgraphs.collect.host_speed):
  # the round of 2026-12-05 ran at 0.62x and its latency board scored that drift. Before measuring it
  # gates the round; after measuring (a store exists) it records the day's drift beside the first probe
  [ -f "$round/hidden-plan.yaml" ] || { echo "hidden-round: no drawn plan in $round (run prepare first)" >&2; exit 2; }
  same_machine
  public="data/measurements/$($py -c "import sys, yaml; print(yaml.safe_load(open(sys.argv[1]))['suite'])" "$source_plan")"
  when=before; ls -d "$round"/data/measurements/*-hidden-* >/dev/null 2>&1 && when=after
  $py -m perfgraphs.collect.host_speed plan --source "$source_plan" --public "$public" --out "$round/probe-plan.yaml"
  rm -rf "$round/probe-$when"
  $pg collect "$round/probe-plan.yaml" --out "$round/probe-$when" --core "${CORE:-1}"
  # every target of the config judged on its own: a slow day moves latency, not peak memory, and
  # the round then scores only the targets within the band (load_hidden refuses the others)
  targets=$(config_targets)
  $py -m perfgraphs.collect.host_speed ratio "$round/probe-$when" --public "$public" --target $targets \
    --out "$round/host-speed-$when.json" --within ${WITHIN:-0.9 1.1} || {
    rc=$?; [ "$when" = after ] && [ $rc = 3 ] && exit 0; exit $rc; }
  ;;
measure)
  # the collector names the store after the plan's suite and this machine, under the keeper's round
  [ -f "$round/hidden-plan.yaml" ] || { echo "hidden-round: no drawn plan in $round (run prepare first)" >&2; exit 2; }
  same_machine
  # a CPU day outside the band scores the machine's drift, not the predictors: the probe first
  if $py -c "import sys, yaml; sys.exit(0 if yaml.safe_load(open(sys.argv[1]))['platforms'][0].startswith('cpu') else 1)" \
       "$round/hidden-plan.yaml"; then
    $py - "$round/host-speed-before.json" ${WITHIN:-0.9 1.1} <<'PY' || exit 2
import json, sys
from pathlib import Path
from perfgraphs.collect.host_speed import in_band
path, low, high = Path(sys.argv[1]), float(sys.argv[2]), float(sys.argv[3])
if not path.is_file():
    sys.exit(f"hidden-round: no probe of the machine's speed today ({path}): run `probe` first")
block = json.loads(path.read_text())["host_speed"]
targets = [t for t in block if isinstance(block[t], dict) and "median_ratio" in block[t]]
scored = [t for t in targets if in_band(block, t, (low, high))]
if not scored:
    ratios = ", ".join(f"{block[t]['median_ratio']:.2f}x" for t in targets)
    sys.exit(f"hidden-round: today's probe ran at {ratios} the public labels' {', '.join(targets)}, "
             f"outside {low:g}-{high:g}")
print(f"hidden-round: this round scores {', '.join(scored)}"
      + "".join(f"; not {t} ({block[t]['median_ratio']:.2f}x)" for t in targets if t not in scored))
PY
  fi
  suite=$($py -c "import sys, yaml; print(yaml.safe_load(open(sys.argv[1]))['suite'])" "$round/hidden-plan.yaml")
  machine=$($py -c "from perfgraphs.collect.environment import machine_tag; print(machine_tag())")
  $pg collect "$round/hidden-plan.yaml" --out "$round/data/measurements/$suite-$machine" --core "${CORE:-1}"
  ;;
finish)
  # build-hidden leaves out every drawn variant the exposure scan finds in the checkout: a file committed
  # after the draw (a split naming 146 of the 151 visformers left, when the draw has taken 5 unseen) made the
  # round keep only the variants its writer chose, or none, whatever the secret seed drew (hundred-and-twelfth
  # pass, side c). A file written after the draw cannot have been read by a predictor frozen before it, so the
  # round is built at the commit the draw read, and refused at any other
  drawn_at=$(cat "$round/drawn-at-commit" 2>/dev/null) || {
    echo "hidden-round: no $round/drawn-at-commit (prepare writes the commit the draw read): draw again" >&2; exit 2; }
  head=$(git rev-parse HEAD) || { echo "hidden-round: cannot read the checkout's commit" >&2; exit 2; }
  [ "$drawn_at" = "$head" ] || { echo "hidden-round: the variants were drawn at ${drawn_at:0:12} and the checkout \
is at ${head:0:12}: a file committed since would decide which drawn variants the round leaves out; finish at the \
draw's commit (git checkout $drawn_at)" >&2; exit 2; }
  # ... and at its files: the scan reads the files on disk, and a checkout of the drawn commit from a later
  # one can leave files behind (a populated submodule's folder git cannot remove: hundred-and-fourteenth
  # pass, side b). Ignored files (the keeper's .venv, .hidden) are not the scan's
  dirty=$(git status --porcelain --untracked-files=all) || { echo "hidden-round: cannot read the checkout's status" >&2; exit 2; }
  [ -z "$dirty" ] || { echo "hidden-round: the checkout is not the draw's commit as committed (${dirty%%$'\n'*}): \
commit, remove or stash it (git status) before finishing" >&2; exit 2; }
  # from the device's archive (FILES_AT), or from the store `measure` wrote here
  files_at=${2:-}
  if [ -n "$files_at" ]; then
    archive=$(ls "$files_at"/*-hidden-*.tar.gz 2>/dev/null | head -n 1 || true)  # none: the line below, not set -e's silent exit
    [ -n "$archive" ] || { echo "hidden-round: no *-hidden-*.tar.gz in $files_at" >&2; exit 2; }
    tar xzf "$archive" -C "$round"
  fi
  store=$(ls -d "$round"/data/measurements/*-hidden-* 2>/dev/null | head -n 1 || true)
  [ -n "$store" ] || { echo "hidden-round: no measured store in $round/data/measurements (give FILES_AT, or run measure)" >&2; exit 2; }
  # the drawn plan's configurations only, no link: the device's store path is anyone's to commit a store at
  # (hundredth pass, side b; hidden.round_store_problem)
  $py - "$store" "$round/hidden-plan.yaml" <<'PY' || exit 2
import sys
from pathlib import Path
from perfgraphs.leaderboard.records.hidden import round_store_problem
problem = round_store_problem(Path(sys.argv[1]), Path(sys.argv[2]))
sys.exit(f"hidden-round: {problem}" if problem else 0)
PY
  $pg collect verify "$store"
  $pg leaderboard build-hidden "$store" "$keeper" --dataset "$dataset" --config "$config"
  $pg leaderboard commit-hidden "$keeper" --dataset "$dataset" --config "$config"
  # the definition: the architectures the hidden file holds (names, no labels), the drawn ones
  # build-hidden left out (a public structure), and the round's own noise floor from its visits
  $py - "$keeper" "$round/hidden-plan.yaml" "$dataset" "$config" "$store" <<'PY'
import json, sys
from pathlib import Path
import pyarrow.parquet as pq, yaml
from perfgraphs.atomic import sha256_file
from perfgraphs.collect.floor import split_half_of, store_floor
from perfgraphs.collect.plan import parse_plan
from perfgraphs.collect.store import MeasurementStore, hardware_identity
from perfgraphs.leaderboard.records.hidden import definition_path, hidden_file, next_definition, read_definition
from perfgraphs.registry import get_dataset
keeper, plan, dataset, config, store = Path(sys.argv[1]), Path(sys.argv[2]), *sys.argv[3:5], Path(sys.argv[5])
name = get_dataset(dataset).name
held = sorted(set(pq.read_table(hidden_file(keeper, name, config), columns=["name"]).column("name").to_pylist()))
plan_doc = yaml.safe_load(plan.read_text())
drawn = [m["name"] for g in plan_doc["groups"] for m in g["models"]]
rows = [r for r in MeasurementStore(store).round_rows() if r["status"] == "ok"]
targets = [b.target for b in get_dataset(dataset).config(config).boards]
floors = store_floor(store, tuple(targets))
noise = {"about": "perfgraphs collect verify on the hidden store: MAPE between two visits of one configuration "
                  "(all pairs), and the split-half agreement (the label of the odd visits against the even visits')"}
for target in targets:
    floor, half = floors.get(target), split_half_of(rows, target)
    if floor and half:
        noise[target] = {"between_visits_mape_pct": round(floor.mape_pct, 2),
                         "between_visits_median_pct": round(floor.median_ape_pct, 2),
                         "split_half_median_pct": round(half.median_pct, 2), "split_half_mean_pct": round(half.mean_pct, 2)}
times = sorted(r["measured_at_utc"] for r in rows)
visits = plan_doc.get("rounds")
doc = {"about": f"A hidden round of {name} {config}: structure variants drawn with a secret seed "
                "(perfgraphs.collect.variants; leaderboard/RULES.md). architectures: those in the hidden file; "
                "left_out: drawn but not in it.",
       "sha256": sha256_file(hidden_file(keeper, name, config)),
       "architectures": held, "left_out": sorted(set(drawn) - set(held)),
       "measured": {"machine": "; ".join(sorted({hardware_identity(r) for r in rows})),
                    "protocol": f"{plan_doc.get('suite')}, core {rows[0].get('core')}, {visits} visits: shuffled passes "
                                f"over all {len({r['key'] for r in rows})} configurations, {times[0]} to {times[-1]}; "
                                f"each label the median of its visits",
                    "command": f"bash plans/hidden-round.sh prepare | probe | measure | finish (CONFIG={config})",
                    "configurations": len({r["key"] for r in rows}), "noise_floor": noise, "visits": visits,
                    # what the draw asked for: the board says how many of them measured (126a's lead)
                    "configurations_drawn": len(parse_plan(plan_doc, name=str(plan_doc.get("suite"))).configs)}}
# the probes of the machine's speed (before the round gated it; after, if run, shows the day's drift)
probes = {when: json.loads((plan.parent / f"host-speed-{when}.json").read_text())["host_speed"]
          for when in ("before", "after") if (plan.parent / f"host-speed-{when}.json").is_file()}
if probes:
    doc["measured"]["host_speed"] = probes.get("before") or probes["after"]
    if "before" in probes and "after" in probes:
        doc["measured"]["host_speed"]["after_the_round"] = probes["after"]
path = definition_path(name, config)
# the config's earlier rounds (a withdrawn set among them) stay in the definition, below this one
doc = next_definition(read_definition(path) if path.exists() else None, doc)
path.write_text(json.dumps(doc, indent=2) + "\n")
print(f"{path}: {len(held)} architectures, {len(doc['left_out'])} left out")
PY
  rm -rf .hidden
  echo "now: git add leaderboard/hidden && git commit (the .sha256 and the keeper's .pub, before scoring anything on it)"
  ;;
freeze)
  # FROZEN the references fitted here once (CI-sized: --quick; their paper settings need a GPU), one folder
  # per board; a folder with a manifest is done (resumable), a half-written one is removed and fitted again
  targets=$(config_targets)
  for ref in ${FROZEN:-dippm-sage nnlqp-gnn trappm roofline-sage}; do
    for target in $targets; do echo "$ref $target"; done
  done | xargs -P "${JOBS:-1}" -L 1 sh -c '
    out="leaderboard/frozen/$1-$2/$4/$3"
    [ -f "$out/manifest.json" ] && { echo "hidden-round: $out done"; exit 0; }
    rm -rf "$out"
    $0 submit "leaderboard/reference/$3" --dataset "$1" --config "$2" --target "$4" --quick --freeze "$out" \
      --time-limit-s 5400 || echo "hidden-round: $3 on $4 was not frozen (the line above says why)"' "$pg" "$dataset" "$config"
  echo "now: git add leaderboard/frozen && git commit (before the round's commitment)"
  ;;
score)
  # the targets this round scores: a target its probe put outside the band is not scored (load_hidden
  # would refuse each submission on it in one line; the definition holds the drift)
  targets=$($py - "$dataset" "$config" <<'PY'
import sys
from perfgraphs.leaderboard.records.hidden import commitment_hash, commitment_path, target_not_scored
from perfgraphs.registry import get_dataset
d = get_dataset(sys.argv[1]); c = d.config(sys.argv[2])
sha = commitment_hash(commitment_path(d.name, c.name)) or ""
for b in c.boards:
    why = target_not_scored(d.name, c.name, b.target, sha)
    print(f"hidden-round: not scoring {b.target}: {why}", file=sys.stderr) if why else print(b.target)
PY
)
  [ -n "$targets" ] || { echo "hidden-round: this round scores no target" >&2; exit 2; }
  # the frozen references first: prediction only, seconds a seed (fitted before the set was drawn); only
  # those named in FROZEN: nothing shows that the harness wrote a manifest, so a folder a pull request
  # added for another reference would have scored it from its own states and fit times (fifty-second pass)
  for ref in ${FROZEN:-dippm-sage nnlqp-gnn trappm roofline-sage}; do for target in $targets; do
    dir="leaderboard/frozen/$dataset-$config/$target/$ref"
    [ -f "$dir/manifest.json" ] || continue
    $pg submit "leaderboard/reference/$ref" --dataset "$dataset" --config "$config" --target "$target" --quick \
      --hidden-labels --frozen "$dir" || echo "hidden-round: $ref on $target (frozen) was not recorded (the line above says why)"
  done; done
  # JOBS submissions at a time, the longest (static-xgboost's grid) first: on two cores the six
  # references' two targets take about an hour instead of two; each sandbox still gets its cores
  for ref in ${REFS:-static-xgboost static-mlp roofline-boost layerwise-boost roofline-fit layerwise-linear}; do
    for target in $targets; do echo "$ref $target"; done
  done | xargs -P "${JOBS:-1}" -L 1 sh -c '
    $0 submit "leaderboard/reference/$3" --dataset "$1" --config "$2" --target "$4" --hidden-labels --time-limit-s 5400 \
      || echo "hidden-round: $3 on $4 was not recorded (the line above says why)"' "$pg" "$dataset" "$config"
  # the groups, from the per-configuration scores only the keeper holds (RULES, Hidden test sets, 4)
  for target in $targets; do
    $pg leaderboard rank-hidden --dataset "$dataset" --config "$config" --target "$target" \
      || echo "hidden-round: $target not ranked (the line above says why)"
  done
  echo "now: git add leaderboard/results leaderboard/hidden/ranks && git commit"
  ;;
*)
  echo "usage: bash plans/hidden-round.sh prepare | probe | measure | finish [FILES_AT] | freeze | score" >&2; exit 2;;
esac
