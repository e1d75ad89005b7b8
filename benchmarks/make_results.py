"""Write ``benchmarks/results/<dataset>-<config>-<target>.{md,csv}``: every reference baseline on
one dataset config through its standard protocol, with wall-clock cost and the noise floor.

Run:  python -m perfgraphs.benchmarks.make_results --dataset dippm --config cpu-torch-fp32 \\
          --target latency_ms --seeds 0 1 2 3 4 [--quick] [--protocol leave-one-family-out]
          [--rerun static-xgboost]   # only these baselines; the other rows come from the existing table
          [--refresh-noise-floor]    # rewrite only the table's noise-floor sentence (a new probe)
"""

from __future__ import annotations

import argparse
import csv
import io
import time
from pathlib import Path

from perfgraphs.evaluation.label_noise import noise_floor_note
from perfgraphs.leaderboard.runner import BASELINES, RunSpec, run_benchmark
from perfgraphs.evaluation.tabular_protocol import GRAPHLESS_REASON, NOT_GRAPH_ROWS, TabularProtocolError
from perfgraphs.registry import QUICKSTART_BOARD, TABULAR_ROWS

RESULTS = Path(__file__).resolve().parent / "results"
READING = "Reading"  # a hand-written paragraph starting with this word survives regeneration
ROW_FIELDS = ("baseline", "seeds", "wall_clock_s", *(f"{m}_{s}" for m in ("mape_pct", "rmse", "acc_10_pct", "kendall_tau")
                                                      for s in ("mean", "std")), "predictions_per_s", "n_scored")


def kept_reading(path: Path) -> list[str]:
    """The hand-written reading at the end of an existing table (from its first line starting
    with :data:`READING`), so regenerating numbers does not delete the interpretation."""
    if not path.exists():
        return []
    lines = path.read_text().splitlines()
    for i, line in enumerate(lines):
        if line.startswith(READING):
            return [""] + lines[i:]
    return []


def kept_rows(path: Path, n_seeds: int) -> dict[str, dict]:
    """Rows of an existing table's CSV by baseline, typed; rows from another number of seeds or
    an older table format are not comparable and are dropped (they get rerun)."""
    if not path.exists():
        return {}
    with open(path, newline="") as f:
        rows = list(csv.DictReader(f))
    if rows and set(rows[0]) != set(ROW_FIELDS):
        return {}
    out = {}
    for r in rows:
        typed = {k: (v if k == "baseline" else int(v) if k in ("seeds", "predictions_per_s", "n_scored") else float(v))
                 for k, v in r.items()}
        if typed["seeds"] == n_seeds:
            out[typed["baseline"]] = typed
    return out


NOISE_LINE = "Noise floor"  # the sentence every table carries under its header


def refresh_noise_floor(path: Path, note: str | None) -> bool:
    """Replace the noise-floor sentence of an existing table with ``note`` (the labels' floor as it
    stands now); nothing else in the table changes. Returns whether the sentence changed."""
    if not path.exists():
        raise SystemExit(f"error: {path} does not exist: run the table first (without --refresh-noise-floor)")
    lines = path.read_text().splitlines()
    at = [i for i, line in enumerate(lines) if line.startswith(NOISE_LINE)]
    if len(at) != 1:
        raise SystemExit(f"error: {path} has {len(at)} noise-floor sentences (expected one line starting "
                         f"with {NOISE_LINE!r})")
    new = note or f"{NOISE_LINE}: no repeated measurements of these labels exist yet."
    if lines[at[0]] == new:
        return False
    lines[at[0]] = new
    path.write_text("\n".join(lines) + "\n")
    return True


def main() -> None:
    from perfgraphs.data.load import load_build
    from perfgraphs.registry import task

    args = _arguments()
    board = task(args.dataset, args.config, args.target)
    if args.protocol is None and board.cross_validated:
        args.protocol = board.config.official_protocol  # a cross-validated config's tables always name their folds
    protocol = f"-{args.protocol}" if args.protocol else ""
    stem = RESULTS / f"{args.dataset}-{args.config}-{args.target}{protocol}{'-quick' if args.quick else ''}"
    if args.refresh_noise_floor:
        changed = refresh_noise_floor(stem.with_suffix(".md"), noise_floor_note(board))
        print(f"{stem.with_suffix('.md')}: noise floor {'updated' if changed else 'already current'}")
        return
    scope = _scope(args, board, load_build(board.dataset, board.config).data)
    # read before any baseline runs: an input it needs that is missing (the timm files behind an
    # imported floor) then fails in seconds, not after hours of fits
    noise = noise_floor_note(board)
    rows, not_applicable, unavailable = _run_baselines(args, stem)
    rows.sort(key=lambda r: r["mape_pct_mean"])
    RESULTS.mkdir(parents=True, exist_ok=True)
    buffer = io.StringIO()  # rendered first: a failure must not leave a truncated table behind
    writer = csv.DictWriter(buffer, fieldnames=list(ROW_FIELDS))
    writer.writeheader()
    writer.writerows(rows)
    lines = _table_lines(args, board, scope, rows, noise)
    if not_applicable:
        reason = NOT_GRAPH_ROWS if board.config.platform else GRAPHLESS_REASON
        lines += ["", f"Not applicable here: {', '.join(not_applicable)} (graph baselines): {reason}."]
    if unavailable:
        lines += ["", "Not run:", *unavailable]
    stem.with_suffix(".csv").write_text(buffer.getvalue(), newline="")
    stem.with_suffix(".md").write_text("\n".join(lines + kept_reading(stem.with_suffix(".md"))) + "\n")
    print(stem.with_suffix(".md"))


def _arguments() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dataset", default=QUICKSTART_BOARD[0])
    parser.add_argument("--config", default=QUICKSTART_BOARD[1])
    parser.add_argument("--target", default="latency_ms")
    parser.add_argument("--seeds", type=int, nargs="+", default=[0, 1, 2, 3, 4])
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--baselines", nargs="+", default=sorted(BASELINES))
    parser.add_argument("--protocol", default=None,
                        help="a non-default protocol of the config, e.g. leave-one-family-out (default: its standard split)")
    parser.add_argument("--rerun", nargs="+", metavar="BASELINE", default=None,
                        help="run only these baselines and keep the other rows of the existing table (same seeds); "
                             "for a change that affects some baselines only")
    parser.add_argument("--refresh-noise-floor", action="store_true",
                        help="rewrite only the existing table's noise-floor sentence (after a new probe); runs nothing")
    args = parser.parse_args()
    unknown = sorted(set(args.rerun or []) - set(BASELINES))
    if unknown:
        parser.error(f"unknown baseline(s) for --rerun: {', '.join(unknown)} (available: {', '.join(sorted(BASELINES))})")
    return args


def _scope(args: argparse.Namespace, board, data) -> str:
    """What the table scores, in words."""
    if args.protocol == "leave-one-family-out":
        return ("Pooled held-out predictions of the leave-one-family-out protocol (each family predicted by the "
                "model trained on the other families' structures)")
    if board.config.kind == TABULAR_ROWS and args.protocol == "leave-models-out":
        return (f"Pooled out-of-fold predictions of the leave-models-out protocol ({sum(len(v) for v in data.values())} "
                "rows in 5 folds grouped by model, each predicted by the model trained on the other four folds, "
                "which never saw its model)")
    if board.config.kind == TABULAR_ROWS:
        return (f"Pooled out-of-fold predictions of the stratified 5-fold protocol ({sum(len(v) for v in data.values())} "
                "rows, each predicted by the model trained on the other four folds)")
    return f"Test part of the standard split ({', '.join(f'{k} {len(v)}' for k, v in data.items())})"


def _run_baselines(args: argparse.Namespace, stem: Path) -> tuple[list[dict], list[str], list[str]]:
    """(one row per baseline run or kept, baselines that do not apply, baselines that could not run)."""
    from perfgraphs.baselines.soft_prompt_lm import LanguageModelError

    rows, not_applicable, unavailable = [], [], []
    previous = kept_rows(stem.with_suffix(".csv"), len(args.seeds)) if args.rerun else {}
    for name in args.baselines:
        if args.rerun and name not in args.rerun and name in previous:
            rows.append(previous[name])
            print(f"kept {name} from {stem.with_suffix('.csv').name}", flush=True)
            continue
        t0 = time.perf_counter()
        try:
            result = run_benchmark(RunSpec(args.dataset, args.config, args.target, name, tuple(args.seeds), args.quick,
                                          args.protocol))
        except TabularProtocolError:
            not_applicable.append(name)
            continue
        except LanguageModelError as exc:  # gnn-lm without the [llm] extra
            unavailable.append(f"- {name}: {exc}")
            continue
        wall = time.perf_counter() - t0
        row = {"baseline": name, "seeds": len(args.seeds), "wall_clock_s": round(wall, 1)}
        for metric in ("mape_pct", "rmse", "acc_10_pct", "kendall_tau"):
            mean, std = result.mean_std(metric)
            row[f"{metric}_mean"], row[f"{metric}_std"] = round(mean, 4), round(std, 4)
        row["predictions_per_s"] = round(sum(result.predict_per_second) / len(result.predict_per_second))
        row["n_scored"] = result.per_seed[0]["n"]
        rows.append(row)
        print(row, flush=True)
    return rows, not_applicable, unavailable


def _table_lines(args: argparse.Namespace, board, scope: str, rows: list[dict], noise: str | None) -> list[str]:
    """The Markdown table's heading, command, noise floor and one line per baseline."""
    lines = [f"# {args.dataset} · {args.config} · {args.target}{' · ' + args.protocol if args.protocol else ''}"
             f"{' (quick mode)' if args.quick else ''}", "",
             f"{scope}; seeds {', '.join(map(str, args.seeds))}. "
             f"Command: `python -m perfgraphs.benchmarks.make_results --dataset {args.dataset} --config {args.config} "
             f"--target {args.target} --seeds {' '.join(map(str, args.seeds))}{' --quick' if args.quick else ''}"
             f"{' --protocol ' + args.protocol if args.protocol else ''}"
             f"{' --baselines ' + ' '.join(args.baselines) if sorted(args.baselines) != sorted(BASELINES) else ''}`. "
             f"Scored samples: {rows[0]['n_scored']}.", ""]
    lines += [noise or f"{NOISE_LINE}: no repeated measurements of these labels exist yet.", ""]
    lines += [f"| baseline | MAPE % | RMSE ({board.target.unit}) | Acc(10%) % | Kendall τ | predictions/s | wall clock s |",
              "|---|---|---|---|---|---|---|"]
    for r in rows:
        lines.append(f"| {r['baseline']} | {r['mape_pct_mean']:.1f} ± {r['mape_pct_std']:.1f} | {r['rmse_mean']:.4g} | "
                     f"{r['acc_10_pct_mean']:.1f} | {r['kendall_tau_mean']:.3f} | {r['predictions_per_s']:,} | {r['wall_clock_s']} |")
    return lines


if __name__ == "__main__":
    main()
