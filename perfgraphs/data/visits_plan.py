"""Plans that measure one part of a dataset config again, in visits (issue 31: repeated labels for
the test parts of the official CPU boards).

A config labelled by one measurement per configuration (``perfgraphs/dippm`` ``cpu-torch-fp32``:
store ``dippm-cpu``, one round) gets, for the rows of one part of its official split, ``--visits``
more measurements: round r is one shuffled pass over the whole part (``schedule: visits``,
:func:`perfgraphs.collect.rounds.visits`), so the rounds of one configuration lie a pass apart. The
plan keeps the source plan's protocol and platform, so every configuration's key is the key of the
store row it measures again; its own suite gives it its own store.

Which configurations: the rows of the part in the config's current build (the split is made there,
``perfgraphs.data.build``), each mapped to its store row by ``measurement_id`` and so to its key;
the plan's groups are the source plan's, cut down to those keys.

    python -m perfgraphs.data.visits_plan --dataset perfgraphs/dippm --config cpu-torch-fp32 \\
        --part test --visits 4 > plans/dippm-cpu-test-visits.yaml

A cross-validated config (``perfgraphs/llm`` ``cpu-torch-fp32``: every row is a test row of one
fold) is measured again whole, ``--part all``.
"""

from __future__ import annotations

import argparse
import sys
import textwrap
from pathlib import Path

import yaml

from perfgraphs import paths
from perfgraphs.collect.errors import PlanError
from perfgraphs.collect.plan import parse_plan
from perfgraphs.yamlio import read_yaml

VISITS = 4
ALL = "all"  # --part: every row of the config


def part_keys(dataset: str, config: str, part: str) -> tuple[set[str], dict]:
    """The store keys of the rows in one part of a config's current build, and facts of that build
    (content hash, split protocol, row count, the store, its suite, the summed worker time)."""
    from perfgraphs.data.load import load_dataset
    from perfgraphs.collect.store import MeasurementStore
    from perfgraphs.data.build import measurement_root
    from perfgraphs.data.load import current_build
    from perfgraphs.registry import get_dataset

    ds = get_dataset(dataset)
    cfg = ds.config(config)
    store = MeasurementStore(measurement_root(ds, cfg))  # refuses a config no store of ours labels
    _, manifest = current_build(ds, cfg)
    # "all": every row of the build, as for a cross-validated config, where each row is a test row of
    # one fold
    parts = list(load_dataset(ds.name, cfg.name).values()) if part == ALL else [load_dataset(ds.name, cfg.name, split=part)]
    if any("measurement_id" not in served.column_names for served in parts):
        raise PlanError(f"{ds.name}/{cfg.name}: its rows name no measurement (no measurement_id column)")
    ids = [i for served in parts for i in served["measurement_id"]]
    rows = {r["measurement_id"]: r for r in store.read(latest=False).select(
        ["measurement_id", "key", "worker_wall_s"]).to_pylist()}
    missing = [i for i in ids if i not in rows]
    if missing:
        raise PlanError(f"{ds.name}/{cfg.name}: {len(missing)} {part} rows have no row in {store.root} "
                        f"(first: {missing[0]}): is the build current with its store?")
    return {rows[i]["key"] for i in ids}, {
        "dataset": ds.name, "config": cfg.name, "part": part, "rows": len(ids),
        "protocol": cfg.split_protocols[0], "content_hash": manifest["content_hash"],
        "platform": cfg.platform, "store": f"data/measurements/{store.root.name}",
        "suite": store.metadata().get("suite") or cfg.suite,
        "worker_s": sum(rows[i]["worker_wall_s"] or 0.0 for i in ids)}


def cut_plan(source: dict, keys: set[str], suite: str, platform: str | None = None) -> dict:
    """The source plan mapping with only the configurations whose key is in ``keys``: each model
    entry keeps its options, its sizes grouped by the batch sizes chosen at them. ``platform``
    narrows a multi-platform plan to one. Refused unless the cut holds exactly ``keys``."""
    top = {k: v for k, v in source.items() if k != "groups"}
    if platform is not None and "platforms" in top:
        top["platforms"] = [platform]
    groups = []
    for gi, group in enumerate(source.get("groups") or []):
        group = {**group, **({"platforms": [platform]} if platform is not None and "platforms" in group else {})}
        models = []
        for entry in group.get("models") or []:
            entry = {"name": entry} if isinstance(entry, str) else dict(entry)
            one = parse_plan({**top, "groups": [{**group, "models": [entry]}]}, f"groups[{gi}] {entry['name']}")
            chosen: dict[int, list[int]] = {}
            for c in one.configs:
                if c.key in keys:
                    chosen.setdefault(c.image_size or c.seq_len, []).append(c.batch_size)
            sizes_key = "seq_lens" if entry["name"].startswith("hf:") else "input_sizes"
            by_batches: dict[tuple[int, ...], list[int]] = {}
            for size, batches in sorted(chosen.items()):
                by_batches.setdefault(tuple(sorted(set(batches))), []).append(size)
            models += [{**entry, sizes_key: sizes, "batch_sizes": list(batches)}
                       for batches, sizes in by_batches.items()]
        if models:
            groups.append({**group, "models": models})
    plan = {**top, "suite": suite, "groups": groups}
    got = {c.key for c in parse_plan(plan, suite).configs}
    if got != keys:
        raise PlanError(f"{suite}: the cut holds {len(got & keys)} of the {len(keys)} configurations "
                        f"({len(keys - got)} not in the source plan, {len(got - keys)} extra)")
    return plan


def build(dataset: str, config: str, part: str = "test", visits: int = VISITS,
          source_plan: Path | None = None) -> tuple[dict, dict]:
    """(the plan mapping, facts for its header)."""
    from perfgraphs.registry import HELDOUT_SUITES

    if not 2 <= visits <= 10:
        raise PlanError(f"--visits must be from 2 to 10 (two halves to compare), got {visits}")
    keys, facts = part_keys(dataset, config, part)
    source_plan = source_plan or paths.plans_dir() / f"{facts['suite']}.yaml"
    if not source_plan.is_file():
        raise PlanError(f"{source_plan}: no plan of suite {facts['suite']} (name it with --plan)")
    source = read_yaml(source_plan.read_text())
    suite = f"{source['suite']}-{part}-visits"
    if suite not in HELDOUT_SUITES:
        raise PlanError(f"suite {suite} is not in perfgraphs.registry.HELDOUT_SUITES: add it there first (its "
                        f"store measures rows a dataset already has again; no dataset may read it)")
    plan = cut_plan(source, keys, suite, facts["platform"])
    plan["description"] = (f"{'Every row' if part == ALL else 'The ' + part + ' part'} of {facts['dataset']} {facts['config']} ({facts['protocol']}) measured "
                           f"again in {visits} visits; generated by perfgraphs.data.visits_plan")
    plan["rounds"], plan["schedule"] = visits, "visits"
    top = ("suite", "description", "rounds", "schedule")
    plan = {**{k: plan[k] for k in top}, **{k: v for k, v in plan.items() if k not in top}}
    return plan, {**facts, "source_plan": source_plan, "visits": visits}


def render(plan: dict, facts: dict, command: str) -> str:
    from perfgraphs.collect.plan import DEFAULT_GFLOPS
    from perfgraphs.collect.plangen import _versions, plan_size

    size = plan_size(plan)
    n, visits = size["configs"], facts["visits"]
    source = Path(facts["source_plan"]).name
    lines = [
        f"Generated by `{command}` ({_versions()}); edit the generator, not this file.",
        f"What: {'every row' if facts['part'] == ALL else 'the ' + facts['part'] + ' part'} of {facts['dataset']} {facts['config']} (split {facts['protocol']}, "
        f"build {facts['content_hash'][:12]}: {facts['rows']} rows) measured again, {visits} times. Its "
        f"configurations of {source} under the same protocol on the same platform, so each key is the key "
        f"of the row it measures again in {facts['store']}.",
        f"Rule: {visits} rounds in visits (schedule: visits): round r is one pass over all {n} configurations "
        f"in an order drawn from (suite, r), each configuration at least half a pass after its previous "
        f"visit. The label is the mean of the visits, their spread kept beside it "
        f"(perfgraphs.collect.rounds.fold); `perfgraphs collect verify` prints the split-half agreement "
        f"(the odd visits' label against the even visits').",
        f"Size: {n:,} configurations x {visits} visits = {n * visits:,} measurements, {size['models']} "
        f"models, {size['families']} families. Estimated machine time: {size['seconds'] * visits / 3600:.1f} h "
        f"(what `perfgraphs collect plans/{plan['suite']}.yaml --dry-run` prints before the suite has a "
        f"hardware probe: {DEFAULT_GFLOPS:g} GFLOP/s peak, cost scale 1); their worker time in "
        f"{facts['store']} was {facts['worker_s'] / 60:.0f} min a pass ({facts['worker_s'] * visits / 3600:.1f} h "
        f"for {visits}), plus the fork and hand-off between configurations.",
        f"Store: the measuring machine's own (the default --out, data/measurements/{plan['suite']}-<cpu>-<machine>); "
        f"measure on the machine of {facts['store']} for the labels to stand in for its single ones. The "
        f"suite is one of perfgraphs.registry.HELDOUT_SUITES: no dataset reads its store.",
    ]
    header = "".join(textwrap.fill(line, 98, initial_indent="# ", subsequent_indent="# ", break_on_hyphens=False)
                     + "\n" for line in lines)
    return header + yaml.safe_dump(plan, sort_keys=False, width=100, default_flow_style=None)


def main(argv: list[str] | None = None) -> int:
    from perfgraphs.errors import PerfgraphsError

    parser = argparse.ArgumentParser(prog="python -m perfgraphs.data.visits_plan",
                                     description="Write a plan (YAML, to stdout) measuring one part of a "
                                                 "dataset config again, in visits.")
    parser.add_argument("--dataset", required=True, help="e.g. perfgraphs/dippm")
    parser.add_argument("--config", required=True, help="a config labelled by one store, e.g. cpu-torch-fp32")
    parser.add_argument("--part", default="test", help="a part of the config's official split (default test), or 'all': every row (a "
                        "cross-validated config's test rows are all of them)")
    parser.add_argument("--visits", type=int, default=VISITS, help=f"rounds, 2 to 10 (default {VISITS})")
    parser.add_argument("--plan", type=Path, help="the store's campaign plan (default plans/<its suite>.yaml)")
    args = parser.parse_args(argv)
    command = (f"python -m perfgraphs.data.visits_plan --dataset {args.dataset} --config {args.config} "
               f"--part {args.part} --visits {args.visits}" + (f" --plan {args.plan}" if args.plan else ""))
    try:
        plan, facts = build(args.dataset, args.config, args.part, args.visits, args.plan)
        text = render(plan, facts, command)
    except (PerfgraphsError, OSError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    sys.stdout.write(text)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
