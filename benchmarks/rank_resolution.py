"""How many test configurations a board needs before its rank groups mean anything.

Subsamples the test configurations of one committed board (its current entries' per-configuration
errors), ranks each subsample with the paired bootstrap of :mod:`perfgraphs.evaluation.ranking`
(no minimum size), and reports per size: the median half-width of the 95 % interval of the paired
MAPE difference between each entry and the best, the median number of rank groups, and the share of
subsamples whose groups agree with those of the whole test part. The minimum ranked size,
``MIN_RANKED_CONFIGS``, is read off this table (the size where the half-width falls to the gaps the
boards show, ~2 MAPE points, and the groups start to agree with the whole part).

    python -m benchmarks.rank_resolution [--dataset dippm --config cpu-torch-fp32 --target latency_ms]
        [--draws 20] [--out benchmarks/results/rank-resolution.md]
"""

from __future__ import annotations

import argparse
import statistics
from pathlib import Path

import numpy as np

from perfgraphs.evaluation.ranking import Contender, paired_ranking
from perfgraphs.leaderboard.records.builds import pins_file, read_pins, split_by_build
from perfgraphs.leaderboard.records.ranks import per_config_ratios
from perfgraphs.leaderboard.records.results import RESULTS_DIR, read_entries
from perfgraphs.leaderboard.site.pages import current_and_superseded
from perfgraphs.registry import QUICKSTART_BOARD, get_dataset

SIZES = (25, 50, 75, 100, 150, 200, 311)


def board_contenders(dataset: str, config: str, target: str) -> list[Contender]:
    ds = get_dataset(dataset)
    entries = [e for e in read_entries(ds.name, RESULTS_DIR)
               if (e.config, e.target, e.test_set) == (config, target, "public") and not e.protocol]
    pin = read_pins(pins_file(RESULTS_DIR)).get(f"{ds.name} {config}")
    current = current_and_superseded(split_by_build(entries, pin)[1])[0]
    out = []
    for e in current:
        ratios = per_config_ratios(e)
        if ratios is not None:
            out.append(Contender(e.method, ratios))
    return out


def _groups(ranking) -> dict[str, int]:
    return {e.name: e.rank for e in ranking.entries}


def resolution(contenders: list[Contender], sizes=SIZES, draws: int = 20, seed: int = 0) -> list[dict]:
    rng = np.random.default_rng(seed)
    n = contenders[0].ratios.shape[1]
    whole = _groups(paired_ranking(contenders, min_configs=0))
    rows = []
    for size in [s for s in sizes if s <= n]:
        half, groups, agree = [], [], 0
        for d in range(draws if size < n else 1):
            idx = np.sort(rng.choice(n, size, replace=False)) if size < n else np.arange(n)
            r = paired_ranking([Contender(c.name, c.ratios[:, idx]) for c in contenders], min_configs=0,
                               resamples=2000, seed=d)
            half += [(e.diff_ci95[1] - e.diff_ci95[0]) / 2 for e in r.entries if e.diff_to_best > 0]
            groups.append(len(r.groups))
            agree += _groups(r) == whole
        rows.append({"configs": size, "half_width": statistics.median(half), "groups": statistics.median(groups),
                     "agree": agree / (draws if size < n else 1)})
    return rows


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--dataset", default=QUICKSTART_BOARD[0])
    p.add_argument("--config", default=QUICKSTART_BOARD[1])
    p.add_argument("--target", default="latency_ms")
    p.add_argument("--draws", type=int, default=20)
    p.add_argument("--out", type=Path, default=None)
    args = p.parse_args(argv)
    contenders = board_contenders(args.dataset, args.config, args.target)
    rows = resolution(contenders, draws=args.draws)
    lines = [f"# Rank resolution: {args.dataset} · {args.config} · {args.target}", "",
             f"{len(contenders)} entries ({', '.join(c.name for c in contenders)}); {args.draws} subsamples "
             "per size, 2,000 paired resamples each; `python -m benchmarks.rank_resolution`.", "",
             "| test configurations | median 95 % half-width of Δ to best (MAPE points) | median rank groups "
             "| subsamples whose groups equal the whole part's |", "|---:|---:|---:|---:|"]
    lines += [f"| {r['configs']} | {r['half_width']:.2f} | {r['groups']:.0f} | {r['agree']:.0%} |" for r in rows]
    text = "\n".join(lines) + "\n"
    print(text)
    if args.out:
        args.out.write_text(text)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
