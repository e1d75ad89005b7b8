"""Sixty-ninth adversarial pass (2026-12-06), submit side: the seeds of a ``--frozen`` hidden run
handed each other their states through the kernel's dentry cache.

Before each run of a hidden board the harness emptied the page cache (``echo 1 >
/proc/sys/vm/drop_caches``: ``confine.drop_page_cache``, so a run cannot time the pages an earlier
run read), but not the dentry and inode caches, which that write leaves alone. A lookup of a name that
does not exist leaves a *negative* dentry, and a run may look up any name in the folders the sandbox
binds read-only from the host (``/usr`` among them): one run's lookups of
``/usr/share/doc/<package>/.<tag>`` for each 1 bit stayed cached after it ended, and the next run
timed the same lookups: a cached name answers in about 3 microseconds, an uncached one must read its
folder from the disk the page-cache drop emptied (60 microseconds and more). So each seed's
``load_state`` read the running mean of the earlier seeds' states (7 numbers, 248 bits with a count
and a checksum, each bit in three folders) and wrote the mean including its own for the next: the 63rd
pass's ensemble of frozen fits (``harness.hand_frozen_state`` hands each run its own state only)
rebuilt through a channel, each later seed of the hidden record scoring an ensemble of the fits
before it while the record stated one fit. Now hidden boards drop the reclaimable dentries and
inodes with the page cache (``confine.DROP_CACHES_WHAT``: ``3``), so nothing a run looked up is
cached for the next."""

from __future__ import annotations

import json
import os
import secrets
import shutil

import numpy as np
import pytest

from perfgraphs.leaderboard.sandbox import confine
from test_leaderboard_review_52b import freeze_and_score_hidden
from test_leaderboard_review_63b import _predict, bagged_ridge
from test_submit import BOARD, each_seed_once_in_order, env, numpy_mape, parts, run_cli  # noqa: F401 — fixtures

DOCS = "/usr/share/doc"
BITS = 248  # 7 float32, a count byte, a 16-bit checksum
REPEAT = 3

pytestmark = [
    pytest.mark.machine_alone,  # its control times machine-wide state another test's run would move
    pytest.mark.skipif(os.geteuid() != 0 or shutil.which("bwrap") is None,
                       reason="a hidden board's runs drop the caches and freezing runs in the sandbox"),
    pytest.mark.skipif(not os.path.isdir(DOCS)
                       or sum(e.is_dir(follow_symlinks=False) for e in os.scandir(DOCS)) < BITS * REPEAT,
                       reason=f"the channel needs {BITS * REPEAT} folders under {DOCS}"),
]

# the attack, in load_state: read the earlier seeds' running mean (the raw-space ridge: 6 weights and an
# intercept) from the dentry cache, mix in this seed's own, write the new mean for the next seed
RELAY = (
    "        import hashlib as _h, math as _m, os as _os, time as _t\n"
    "        from pathlib import Path as _P\n"
    "        own = np.append(state['coef'] / state['scale'],\n"
    "                        float(state['intercept']) - float(np.sum(state['coef'] * state['mean'] / state['scale'])))\n"
    f"        docs = sorted(e.path for e in _os.scandir('{DOCS}') if e.is_dir(follow_symlinks=False))\n"
    "        tag = (_P(__file__).parent / 'nonce.txt').read_text().strip()\n"
    f"        def name(k, i, r): return f'{{docs[r * {BITS} + i]}}/.{{tag}}-{{k}}'\n"
    "        def lookup(path):\n"
    "            t = _t.perf_counter_ns()\n"
    "            try:\n"
    "                _os.stat(path)\n"
    "            except OSError:\n"
    "                pass\n"
    "            return _t.perf_counter_ns() - t\n"
    "        mix, n = own, 1\n"
    "        if self.seed > 0:\n"
    f"            times = [min(lookup(name(self.seed - 1, i, r)) for r in range({REPEAT})) for i in range({BITS})]\n"
    "            logs = sorted(_m.log(t) for t in times)\n"
    f"            gap, j = max((logs[j + 1] - logs[j], j) for j in range({BITS // 10}, {BITS - BITS // 10}))\n"
    "            cut = _m.exp((logs[j] + logs[j + 1]) / 2)\n"
    "            bits = ''.join('1' if t < cut else '0' for t in times)\n"
    f"            raw = int(bits, 2).to_bytes({BITS // 8}, 'big')\n"
    "            if _h.sha256(raw[:-2]).digest()[:2] == raw[-2:]:\n"
    "                prev, k = np.frombuffer(raw[:28], dtype='<f4').astype(np.float64), raw[28]\n"
    "                mix, n = (prev * k + own) / (k + 1), k + 1\n"
    "        body = mix.astype('<f4').tobytes() + bytes([n])\n"
    f"        bits = bin(int.from_bytes(body + _h.sha256(body).digest()[:2], 'big'))[2:].zfill({BITS})\n"
    "        for i, b in enumerate(bits):\n"
    f"            for r in range({REPEAT} if b == '1' else 0):\n"
    "                lookup(name(self.seed, i, r))\n"
    "        self.mean_, self.scale_, self.coef_, self.intercept_ = np.zeros(6), np.ones(6), mix[:6], float(mix[6])\n"
    "        return\n"
)


def _lookup_times_here() -> str:
    """What the channel reads on this machine, outside the sandbox, for a failing control's message: the
    microseconds of 200 cached and 200 uncached lookups of absent names after the page cache alone is
    dropped (quantiles 1, 10, 50, 90, 99 %): the relay cuts between the two clusters."""
    import time

    docs = sorted(e.path for e in os.scandir(DOCS) if e.is_dir(follow_symlinks=False))[:400]
    tag = secrets.token_hex(8)

    def lookup(path):
        start = time.perf_counter_ns()
        try:
            os.stat(path)
        except OSError:
            pass
        return (time.perf_counter_ns() - start) / 1000

    for folder in docs[::2]:
        lookup(f"{folder}/.{tag}")
    confine.drop_page_cache()
    cached, uncached = [[lookup(f"{folder}/.{tag}") for folder in half] for half in (docs[::2], docs[1::2])]
    quantiles = [np.percentile(times, [1, 10, 50, 90, 99]).round(1).tolist() for times in (cached, uncached)]
    return f"lookups here (us), cached {quantiles[0]}, uncached {quantiles[1]}"


def _relaying_ridge(folder):
    """The ridge example fitted on a bootstrap draw of the training rows by seed (an honest spread of
    fits, as the sixty-third pass's bagged ridge), whose ``load_state`` relays the states (RELAY); a
    fresh ``nonce.txt`` names this test's lookups apart from any earlier run's."""
    sub = bagged_ridge(folder, "ridge-relay", RELAY)
    (sub / "nonce.txt").write_text(secrets.token_hex(8) + "\n")
    return sub


def _relayed_run(env, parts, capsys, git_commitments, monkeypatch):  # noqa: F811
    """Freeze the relaying ridge, commit the fits, commit a hidden set after them and score it --frozen:
    (the submission, the frozen fits' folder, each seed's own state, the hidden record, the labels)."""
    sub = _relaying_ridge(env["tmp"] / "sub")
    frozen, record = freeze_and_score_hidden(env, parts, capsys, git_commitments, monkeypatch, sub)
    states = {s: dict(np.load(frozen / f"seed-{s}.npz", allow_pickle=False)) for s in range(5)}
    assert record["test_set"] == "hidden" and record["tier"] == "verified" and record["frozen_fit"]
    return sub, frozen, states, record, np.asarray(parts.test["latency_ms"], dtype=float)


def _scored_again(sub, frozen, env, capsys) -> dict:
    """The same frozen fits scored on the hidden set once more (the first run's record taken out first)."""
    (env["results"] / "dippm.jsonl").unlink()
    rc, err = run_cli(["submit", str(sub), *BOARD, "--quick", "--hidden-labels", "--frozen", str(frozen),
                       "--results", str(env["results"]), "--no-mlflow"], capsys)
    assert rc == 0, err
    (record,) = [json.loads(line) for line in (env["results"] / "dippm.jsonl").read_text().splitlines()]
    return record


def test_a_frozen_run_reads_no_earlier_seeds_lookups(env, parts, capsys, git_commitments, monkeypatch):  # noqa: F811
    """Attack: each seed's load_state reads the earlier seeds' mean state from the dentry cache and
    writes its own into it. Before, seeds 1-4 of the hidden record scored the running ensembles (seed 4
    the mean of all five fits); now nothing a run looked up is cached for the next, the checksum fails,
    and every seed scores exactly what its own state predicts.

    Control, on the same frozen fits (a freeze is most of the test's time): dropping the page cache
    alone (``1``, as before), the relay works: every seed after the first scores the mean of the states
    up to its own, not its own, and the record a lower mean MAPE and a narrower spread than its five
    frozen fits earn."""
    sub, frozen, states, record, y = _relayed_run(env, parts, capsys, git_commitments, monkeypatch)
    own = {s: numpy_mape(y, _predict(states[s], parts.test)) for s in states}
    assert len({round(m, 9) for m in own.values()}) == 5  # the five fits differ: an ensemble would show
    for s in record["per_seed"]:
        assert s["mape_pct"] == pytest.approx(own[s["seed"]], rel=1e-5), (s, own)

    assert confine.drop_page_cache() is None  # what the last seed looked up is not the next run's
    monkeypatch.setattr(confine, "DROP_CACHES_WHAT", "1")
    each_seed_once_in_order(monkeypatch)

    def raw(state):  # the ridge as one linear model of the raw features (what the relay averages)
        w = state["coef"] / state["scale"]
        return np.append(w, float(state["intercept"]) - float(np.sum(w * state["mean"])))

    expected = {}
    for k in range(1, 5):
        mix = np.mean([raw(states[s]) for s in range(k + 1)], axis=0)
        relayed = {"mean": np.zeros(6), "scale": np.ones(6), "coef": mix[:6], "intercept": np.asarray(mix[6])}
        expected[k] = numpy_mape(y, _predict(relayed, parts.test))
    # the channel is a timing one, machine-wide: the suite's run on 5b71914 (alone) read one lookup wrong in
    # seed 4 (13.97 % where the mean of five fits earns 16.61), CI's on 27c597e seed 1 in three rounds (with
    # a fixed 20-microsecond cut and a majority of three lookups): the relay now reads the fastest of three
    # and cuts at the widest gap between the times, and the round is scored up to three times
    for _ in range(3):
        by_seed = {s["seed"]: s["mape_pct"] for s in _scored_again(sub, frozen, env, capsys)["per_seed"]}
        if all(by_seed[k] == pytest.approx(expected[k], rel=1e-4) for k in expected):
            break
    for k in range(1, 5):
        assert by_seed[k] == pytest.approx(expected[k], rel=1e-4), (k, by_seed, expected, _lookup_times_here())
        assert by_seed[k] != pytest.approx(own[k], rel=1e-4)
    # on the tiny board: 24.6 % mean MAPE where the five fits earn 25.5 %, and a narrower seed spread
    assert np.mean(list(by_seed.values())) < np.mean(list(own.values())) - 0.5, (by_seed, own)
    assert np.std(list(by_seed.values())) < np.std(list(own.values())), (by_seed, own)
