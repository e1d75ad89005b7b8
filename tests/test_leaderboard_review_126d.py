"""Hundred-and-twenty-sixth adversarial pass (2026-12-08), side d (the rank rule and the scores a board shows):
nothing found that a fix was owed for; one held guard pinned and one open artifact recorded.

Tried (each through ``ranks.rank_board`` on the committed dippm cpu latency and llm cpu throughput boards, the
first through ``leaderboard show``): seeds mixed from a good and a bad predictor (a wide seed spread keeps an
entry in a rank group only while its mean stays below the next separated entry's, as RULES rule 2 says); a
seed count re-rolling the seed draws (``_seed_counts`` is keyed on the count, but a different count is a
different set of predictions anyway); identical seeds repeated to another count (not a copy by key, but its
rows are the original's, so nothing separates or is lifted); exact ties of mean (``_family_of`` compares
only strictly lower means: ties are never separated either way); predictions NaN, inf, non-positive, rows
twice or missing (the Evaluator refuses them before any record is written); a far-off prediction on the
noisiest label (it widens its own interval; on the llm throughput board 18.24 % -> 24.03 % [16.34, 42.61]
ranked 3 before and after, behind a lower mean).

1. Held: a ratio past a float's range on a board ranked against its labels' means. On the official llm cpu
throughput board one label is 0.155 samples/s; a hand-written record with that configuration's prediction
1.79e308 x its label (every other ratio `static-xgboost`'s) is skipped when read, since no stored number may
pass ``record_check.MAX_MAGNITUDE`` (1e300). With that bound raised to a float's largest, the record is read,
its ratio put on the label's mean overflows, and ``leaderboard show`` stops with an internal error
(``OverflowError: intermediate overflow in fsum``): no board is shown at all. The harness cannot write such a
record (its RMSE overflows first, and a null score is refused).

2. Open (strict xfail): the label-noise shift (``ranking._bootstrap``) is one constant per entry, the mean over
resamples of the error the re-drawn labels add, taken out of every resample alike, though it arises only in
the resamples that draw the configuration it comes from. An entry whose one prediction is absurd on a noisy
label gets a constant larger than its honest errors, which moves the resamples that miss that configuration
(37 %) far below its point: no entry is "better than it beyond the noise". On the dippm cpu latency board
`static-xgboost`'s errors x 1.1 (22.41 %) rank 7 alone; the same predictions with one configuration predicted
1e150 x its label (a prediction the harness can write: 2.39e149 % MAPE) rank 6 beside `static-xgboost`, the
note saying 0 entries are better than it. Monotonicity keeps it at the last entry's rank, so the gain is a
tie for last; taking the shift out per drawn configuration (``counts @ shift_per_configuration``) would fix
it but moves every board's intervals, by an unmeasured estimate up to about 0.17 points of spread, in their
second decimal, so it is left to a pass that may change the printed intervals."""

from __future__ import annotations

import dataclasses
import json
import re
import sys

import numpy as np
import pytest

from perfgraphs.cli import main
from perfgraphs.leaderboard.records import record_check
from perfgraphs.leaderboard.records.ranks import label_repetitions, rank_board
from perfgraphs.leaderboard.records.results import read_entries, results_path
from perfgraphs.registry import task

LLM = ("perfgraphs/llm", "cpu-torch-fp32", "throughput_samples_per_s")


def _llm_board() -> list[dict]:
    """The committed full-strength records with ratios on the llm cpu throughput board's pinned build."""
    from perfgraphs.paths import leaderboard_dir

    committed = [json.loads(line) for line in results_path("llm", leaderboard_dir() / "results").read_text().splitlines()]
    build = json.loads((leaderboard_dir() / "builds.json").read_text())["perfgraphs/llm cpu-torch-fp32"]["content_hash"]
    return [r for r in committed if (r["config"], r["target"], r["dataset_content_hash"], r.get("test_set", "public"))
            == (LLM[1], LLM[2], build, "public") and "(quick" not in r["method"] and r["per_seed"][0].get("pred_over_label")]


def _overflowing(record: dict) -> dict:
    """``record`` by Mal Lory with one configuration (the smallest label whose mean is above it: the ratio put
    on the labels' means grows) predicted 1.79e308 x its label, its scores stated to agree."""
    reps = label_repetitions(task(*LLM))
    to_means, labels = reps.to_means(), reps.labels
    k = int(np.argmax(np.where(to_means > labels, to_means / labels, 0)))
    pairs = [list(p) for p in record["actual_vs_predicted"]]
    truth = np.asarray([t for t, _ in pairs], dtype=float)
    pairs[k] = [pairs[k][0], pairs[k][0] * 1.79e308]

    def seed(s: dict) -> dict:
        r = list(s["pred_over_label"])
        r[k] = 1.79e308
        a, pred = np.asarray(r), truth * np.asarray(r)
        scale = float(max(np.abs(truth).max(), np.abs(pred).max()))  # RMSE in units of the largest value
        return {**s, "pred_over_label": r, "mape_pct": float(np.mean(np.abs(a - 1)) * 100),
                "rmse": scale * float(np.sqrt(np.mean(((truth - pred) / scale) ** 2))),
                **{f"acc_{p}_pct": float(np.mean(np.abs(a - 1) <= p / 100) * 100) for p in (5, 10, 15)}}
    return {**record, "method": "boom-net", "authors": "Mal Lory", "run_identity": "boom-net", "code_commit": "ab" * 20,
            "per_seed": [seed(s) for s in record["per_seed"]], "actual_vs_predicted": pairs}


def _show(tmp_path, records: list[dict], capsys, monkeypatch) -> tuple[int, dict[str, str], str]:
    """(exit status, method -> rank as `leaderboard show` prints the llm cpu throughput board, stderr)."""
    from perfgraphs.paths import leaderboard_dir

    results = tmp_path / "results"
    results.mkdir(parents=True)
    (tmp_path / "builds.json").write_text((leaderboard_dir() / "builds.json").read_text())
    results_path("llm", results).write_text("".join(json.dumps(r) + "\n" for r in records))
    monkeypatch.setenv("COLUMNS", "250")
    capsys.readouterr()
    rc = main(["leaderboard", "show", "--results", str(results)])
    out, err = capsys.readouterr()
    board = out.split(f"{LLM[1]} · {LLM[2]}")[1].split("Ranks (#)")[0] if f"{LLM[1]} · {LLM[2]}" in out else ""
    return rc, {m: r for r, m in re.findall(r"│ (\d+|–)\s+│ ([a-z0-9-]+)\s", board)}, err


REFERENCE_RANKS = {"encoder-roofline": "1", "llm-xgboost": "2", "static-mlp": "3", "static-xgboost": "4"}


def test_a_ratio_past_a_floats_range_is_no_record_and_stops_no_reader(tmp_path, capsys, monkeypatch):
    board = _llm_board()
    boom = _overflowing(next(r for r in board if r["method"] == "static-xgboost"))
    rc, ranks, err = _show(tmp_path, [*board, boom], capsys, monkeypatch)
    assert rc == 0 and ranks == REFERENCE_RANKS, (ranks, err)
    assert "skipped, not a valid leaderboard record" in err and "every score must be finite" in err


def test_control_without_the_magnitude_bound_the_reader_stops(tmp_path, capsys, monkeypatch):
    board = _llm_board()
    boom = _overflowing(next(r for r in board if r["method"] == "static-xgboost"))
    monkeypatch.setattr(record_check, "MAX_MAGNITUDE", sys.float_info.max)
    rc, ranks, err = _show(tmp_path, [*board, boom], capsys, monkeypatch)
    assert rc != 0 and ranks == {} and "internal error" in err and "OverflowError" in err, (rc, ranks, err)


def _dippm_cpu_with(one_absurd: bool) -> dict[str, str]:
    """The dippm cpu latency board with Mal Lory's `x-net` (static-xgboost's errors x 1.1), ``one_absurd``:
    its prediction at the configuration of the noisiest label's mean x 1e150: method -> rank."""
    from perfgraphs.evaluation import ranking

    reps = label_repetitions(task("perfgraphs/dippm", "cpu-torch-fp32", "latency_ms"))
    noisiest = int(np.argmax((1 / ranking._label_factors(reps, np.random.default_rng(1), 4000, len(reps)) - 1).mean(axis=0)))
    current = [e for e in read_entries("perfgraphs/dippm") if (e.config, e.target, e.test_set) == ("cpu-torch-fp32", "latency_ms", "public")
               and len(e.per_seed[0].get("pred_over_label") or []) == len(reps) and "(quick)" not in e.method]
    source = next(e for e in current if e.method == "static-xgboost")
    seeds = []
    for s in source.per_seed:
        r = 1 + 1.1 * (np.asarray(s["pred_over_label"]) - 1)
        if one_absurd:
            r[noisiest] = 1e150
        seeds.append({**s, "pred_over_label": [float(v) for v in r]})
    x = dataclasses.replace(source, method="x-net", authors="Mal Lory", per_seed=seeds)
    return {row.entry.method: row.rank_text for row in rank_board(current + [x], reps, official=True).rows if row.ranked}


def test_control_honest_x_net_ranks_last_alone():
    ranks = _dippm_cpu_with(one_absurd=False)
    assert (ranks["static-xgboost"], ranks["x-net"]) == ("6", "7"), ranks


@pytest.mark.xfail(strict=True, reason="open (126d): the label-noise shift is one constant per entry; an absurd "
                                       "prediction on one noisy label ties the last entry")
def test_one_absurd_prediction_earns_no_tie_with_the_last_entry():
    ranks = _dippm_cpu_with(one_absurd=True)
    assert (ranks["static-xgboost"], ranks["x-net"]) == ("6", "7"), ranks
