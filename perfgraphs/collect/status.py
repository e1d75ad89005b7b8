"""``perfgraphs collect status DIR``: where a campaign stands, per node.

Read-only and lock-free (a running campaign may hold the lock; the store's reads tolerate its
compactions). Rows are grouped by the Ray node that measured them (``node_ip/node_id``) or, on the
local path, by machine; attempts lost with their node come from ``campaign.json`` (each Ray run's
``ray.lost``), since a lost attempt leaves no row.
"""

from __future__ import annotations

from pathlib import Path

from perfgraphs.collect.errors import StoreNotFoundError
from perfgraphs.collect.metafile import META
from perfgraphs.collect.store import MeasurementStore


def where_measured(row: dict) -> str:
    if row.get("node_id"):
        return f"node {row.get('node_ip') or '?'}/{row['node_id'][:8]}"
    if row.get("machine_id"):
        return f"local machine {row['machine_id'][:8]}"
    return "no node (lost on the cluster)"


def store_status(root: Path, plan_path: Path | None = None) -> list[str]:
    store = MeasurementStore(root)
    if not (root / META).exists():
        raise StoreNotFoundError(f"{root}: no measurement store there (no {META})")
    rows = store.round_rows()
    meta = store.metadata()
    runs = meta.get("runs", [])
    statuses: dict[str, int] = {}
    places: dict[str, dict] = {}
    for r in rows:
        statuses[r["status"]] = statuses.get(r["status"], 0) + 1
        place = places.setdefault(where_measured(r), {"statuses": {}, "last": "", "lost": 0, "why": ""})
        place["statuses"][r["status"]] = place["statuses"].get(r["status"], 0) + 1
        place["last"] = max(place["last"], r.get("measured_at_utc") or "")
    for run in runs:
        for lost in (run.get("ray") or {}).get("lost", []):
            place = places.setdefault(f"node {lost['node']}", {"statuses": {}, "last": "", "lost": 0, "why": ""})
            place["lost"] += 1
            place["why"] = lost["reason"]
    out = [f"{root}: {len(rows)} measurements ({_counts(statuses) or 'none'}) from {len(runs)} run(s)"]
    if runs:
        last = runs[-1]
        route = f"Ray cluster {last['ray']['address']}" if last.get("ray") else "local"
        out.append(f"last run {last.get('campaign_id')} ({route}) started {last.get('started_at_utc')}, "
                   f"{last.get('todo')} measurements to make")
    for name, place in sorted(places.items()):
        line = f"  {name}: {_counts(place['statuses']) or 'no rows'}"
        if place["last"]:
            line += f", last at {place['last']}"
        if place["lost"]:
            line += f"; {place['lost']} attempt(s) lost (last: {place['why'][:160]})"
        out.append(line)
    if plan_path is not None:
        from perfgraphs.collect.plan import load_plan

        plan = load_plan(plan_path)
        finished = store.finished_rounds()
        for platform in sorted({c.platform for c in plan.configs}):
            configs = [c for c in plan.configs if c.platform == platform]
            done = sum((c.key, r) in finished for c in configs for r in range(1, plan.rounds + 1))
            total = len(configs) * plan.rounds
            out.append(f"plan {plan.name} on {platform}: {done}/{total} measurements finished, {total - done} to do")
    return out


def _counts(counts: dict[str, int]) -> str:
    return ", ".join(f"{k}={v}" for k, v in sorted(counts.items()))
