"""Seventieth adversarial pass (2026-12-06), submit side: the seeds of a ``--frozen`` hidden run
handed each other their fits through the kernel's event counters in ``/proc/vmstat``.

The sixty-ninth pass closed the dentry cache, and every hidden-board run starts on dropped caches; but
the kernel also counts events since boot, machine-wide, and a sandbox read them all in ``/proc/vmstat``.
Some count only what a process asks for, and a quiet machine little of it: ``unevictable_pgs_mlocked``
grows by the pages an ``mlock`` locks (2048 for the 8 MB that the default ``RLIMIT_MEMLOCK`` allows,
about half a billion pages a second on huge pages), and nothing resets it when the run ends. So a run can
leave the counter at a chosen residue: advance it to the next value that is ``message`` modulo ``2**29``
(a second or two at most), and the next seed reads ``message`` from the counter. Here each seed's
``load_state`` read the running mean of the earlier seeds' levels (the ridge's intercept, which each seed
estimates on a random tenth of the training rows; kept modulo ``2**16`` steps of 1e-4 and decoded next to
its own, with a count and a 3-bit checksum, above 7 low bits left for the few pages other processes lock
meanwhile: the VMs' counters moved by 1-4 between two seeds, which broke every try of a first encoding
without them) and wrote the mean including its own for the next: the 63rd pass's ensemble of frozen fits
rebuilt through another channel, each later seed of the hidden record scoring the mean level of the fits before it while the record stated one fit. On the tiny board the
record's seeds scored 32.95 / 35.42 / 34.88 / 37.76 / 37.59 % MAPE (mean 35.72) where their frozen states
earn 32.95 / 38.14 / 33.86 / 47.67 / 36.90 (mean 37.90). Now the sandbox shows no event counter of the
host (``isolation.PROC_SHOWN``: an empty file bound over ``/proc/vmstat``, ``/proc/zoneinfo`` and every other entry not shown),
so no count a run leaves is read by the next."""

from __future__ import annotations

import os
import re
import shutil

import numpy as np
import pytest

from perfgraphs.leaderboard.sandbox import isolation
from test_leaderboard_review_63b import _predict
from test_submit import each_seed_once_in_order, example_copy, numpy_mape

COUNTER = "unevictable_pgs_mlocked"


def _counter() -> int | None:
    try:
        found = re.search(rf"^{COUNTER} (\d+)$", open("/proc/vmstat").read(), re.M)
    except OSError:
        return None
    return int(found.group(1)) if found else None


pytestmark = [
    pytest.mark.machine_alone,  # its control times machine-wide state another test's run would move
    pytest.mark.skipif(os.geteuid() != 0 or shutil.which("bwrap") is None,
                       reason="a hidden board's runs drop the caches and freezing runs in the sandbox"),
    pytest.mark.skipif(_counter() is None, reason=f"no {COUNTER} in /proc/vmstat"),
    pytest.mark.skipif(os.uname().machine != "x86_64", reason="the attack calls mlock2 by its x86-64 number"),
]

# the attack, in load_state: read the earlier seeds' running mean level from the counter's residue, mix in
# this seed's own, and leave the counter at the residue that says the new mean for the next seed
RELAY = (
    "        def relay():\n"
    "            import ctypes as _c, hashlib as _h, mmap as _m, re as _re\n"
    "            M, Q, W, SLACK = 1 << 29, 1e-4, 1 << 16, 7\n"
    f"            def count(): return int(_re.search(r'^{COUNTER} (\\d+)$', open('/proc/vmstat').read(), _re.M).group(1))\n"
    "            def check(body): return _h.sha256(body.to_bytes(4, 'big')).digest()[0] & 7\n"
    "            own = float(state['intercept'])\n"
    "            mix, n = own, 1\n"
    "            if self.seed > 0:\n"
    "                v = (count() % M) >> SLACK  # other processes' few mlocks since land in the low bits\n"
    "                body = v >> 3\n"
    "                k, q = body >> 16, body % W\n"
    "                if check(body) == v % 8 and 1 <= k <= self.seed:\n"
    "                    r = round(own / Q)\n"
    "                    d = (q - r) % W\n"
    "                    prev = (r + (d - W if d >= W // 2 else d)) * Q\n"
    "                    mix, n = (prev * k + own) / (k + 1), k + 1\n"
    "            body = (n << 16) | (round(mix / Q) % W)\n"
    "            target = count()\n"
    "            target += (((body << 3 | check(body)) << SLACK) - target) % M\n"
    "            lib = _c.CDLL(None, use_errno=True)\n"
    "            lib.syscall.restype = _c.c_long\n"
    "            def region(huge):\n"
    "                buf = _m.mmap(-1, 10 << 20, flags=_m.MAP_PRIVATE | _m.MAP_ANONYMOUS)\n"
    "                a = _c.addressof(_c.c_char.from_buffer(buf))\n"
    "                a = (a + (2 << 20) - 1) & ~((2 << 20) - 1)\n"
    "                lib.madvise(_c.c_void_p(a), _c.c_size_t(8 << 20), 14 if huge else 15)\n"
    "                _c.memset(a, 1, 8 << 20)\n"
    "                return buf, a\n"
    "            def lock(a, pages):\n"
    "                if lib.syscall(325, _c.c_void_p(a), _c.c_size_t(pages << 12), 1):  # mlock2(MLOCK_ONFAULT)\n"
    "                    raise OSError(_c.get_errno(), 'mlock2')\n"
    "                lib.munlock(_c.c_void_p(a), _c.c_size_t(pages << 12))\n"
    "            (hb, huge), (sb, small) = region(True), region(False)\n"
    "            for _ in range((target - count()) // 2048):\n"
    "                lock(huge, 2048)\n"
    "            while (left := target - count()) > 0:\n"
    "                lock(small, min(left, 2048))\n"
    "            return mix\n"
    "        try:\n"
    "            state = {**state, 'intercept': np.asarray(relay())}\n"
    "        except Exception:  # no counter to read: the seed scores its own level\n"
    "            pass\n"
)


def relaying_ridge(folder, relay: str, method: str, in_predict: str = ""):
    """The ridge example whose level (intercept) each seed estimates on a random tenth of the training rows
    (the weights on all of them: an honest spread of levels between seeds, which bagging would average),
    and whose ``load_state`` runs ``relay`` first (the mean level handed from seed to seed), and ``predict``
    ``in_predict``, as ``method``."""
    def edit(source: str) -> str:
        init = "        self.target = target\n"
        solve = "        self.coef_ = np.linalg.solve(Z.T @ Z + self.alpha * np.eye(Z.shape[1]), Z.T @ (y - self.intercept_))\n"
        load = "    def load_state(self, state: dict[str, np.ndarray]) -> None:\n"
        predict = "    def predict(self, graphs) -> np.ndarray:\n"
        assert init in source and solve in source and load in source and predict in source
        source = source.replace(init, init + "        self.seed = seed\n")
        level = ("        rows = np.random.default_rng(self.seed).integers(0, len(y), max(2, len(y) // 10))\n"
                 "        self.intercept_ = float(np.mean((y - Z @ self.coef_)[rows]))\n")
        return source.replace(solve, solve + level).replace(load, load + relay).replace(predict, predict + in_predict)

    return example_copy(folder, method, edit)


def _relayed(states: dict) -> dict[int, dict]:
    """Each seed's state with the level RELAY hands it: the running mean of its own and the earlier seeds'
    (each handed on in steps of 1e-4)."""
    out, mix = {}, 0.0
    for s in sorted(states):
        own = float(states[s]["intercept"])
        mix = own if s == 0 else (round(mix / 1e-4) * 1e-4 * s + own) / (s + 1)
        out[s] = {**states[s], "intercept": np.asarray(mix)}
    return out


def assert_relayed(score_again, states: dict, own: dict, parts, relayed_states, tries: int = 1,
                   gain_pct: float = 1.0) -> None:
    """Control: ``score_again()`` (the hidden round with a guard off) scores seeds 1-4 on the running mean
    level ``relayed_states(states)`` hands them, not their own, and their mean MAPE more than ``gain_pct``
    points below their fits'. ``tries``: where the channel is timing or shared with other
    processes, the round again."""
    y, later = np.asarray(parts.test["latency_ms"], dtype=float), sorted(states)[1:]
    relayed = {s: numpy_mape(y, _predict(state, parts.test)) for s, state in relayed_states(states).items()}
    for _ in range(tries):
        scored = {s["seed"]: s["mape_pct"] for s in score_again()["per_seed"]}
        if all(scored[seed] == pytest.approx(relayed[seed], rel=1e-6) for seed in later):
            break
    for seed in later:
        assert scored[seed] == pytest.approx(relayed[seed], rel=1e-6), (seed, scored, relayed, own)
        assert scored[seed] != pytest.approx(own[seed], rel=1e-3), (seed, scored, own)
    assert np.mean([scored[s] for s in later]) < np.mean([own[s] for s in later]) - gain_pct  # than they earn


def test_a_frozen_run_reads_no_earlier_seeds_counts(relay_round, monkeypatch):
    """Attack: each seed's load_state reads the earlier seeds' mean level from the residue of /proc/vmstat's
    mlock count and leaves its own there. Now the sandbox's /proc/vmstat is empty, the relay reads nothing,
    and every seed of the hidden record scores exactly what its own state predicts. Control (the relay
    passes' shared freeze, ``relay_round``): with the host's /proc/vmstat shown, seeds 1-4 scored the
    running mean level of the fits before them, the record's mean MAPE below its fits'."""
    relay_round.assert_guarded_scores_own()
    relay_round.use(monkeypatch)
    monkeypatch.setattr(isolation, "PROC_SHOWN", (*isolation.PROC_SHOWN, "vmstat"))
    each_seed_once_in_order(monkeypatch)
    # the counter is the whole machine's: a burst of other processes' mlocks past the 7 low bits between two
    # seeds breaks the chain, so the round again
    assert_relayed(relay_round.score_again, relay_round.states, relay_round.own, relay_round.parts, _relayed, tries=3)
