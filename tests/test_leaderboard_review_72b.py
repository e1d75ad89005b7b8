"""Seventy-second adversarial pass (2026-12-06), submit side: the seeds of a ``--frozen`` hidden run
handed each other their fits through the kernel's pressure-stall counters in ``/proc/pressure/memory``.

The seventieth pass masked the kernel's event counters (``/proc/vmstat`` and its kin), but the sandbox's
``/proc`` still showed ``/proc/pressure/*``: the time, in microseconds since boot and machine-wide, that
some task waited on memory (``some ... total=``). A run moves it at will and to the microsecond: inside
its memory cgroup it fills the limit with anonymous memory and reads a large library file (the page
cache it charges is reclaimed at the limit, and the kernel counts every reclaim as a memory stall), reading
the counter as it goes, and stops as soon as it is past the value it wants. Nothing else on a quiet
machine stalls on memory (this machine's counter had moved 28 ms in eight hours of test suites), and
nothing resets it when the run ends, so the next seed reads exactly what the last one left. Here each
seed's ``load_state`` read the running mean of the earlier seeds' levels (the ridge's intercept, which
each seed estimates on a random tenth of the training rows) from the counter's millisecond modulo 64
(steps of 0.02, decoded next to its own level) and left the mean including its own for the next: the
63rd pass's ensemble of frozen fits, rebuilt through a third channel: on the tiny board the record's seeds
scored 32.95 / 35.07 / 35.03 / 38.36 / 37.36 % MAPE (mean 35.75) where their frozen states earn
32.95 / 38.14 / 33.86 / 47.67 / 36.90 (mean 37.90), each relayed value read exactly. Now every file of ``/proc/pressure``
is masked beside ``/proc/vmstat`` (no longer in ``isolation.PROC_SHOWN``) and each seed scores its own state.
"""

from __future__ import annotations

import json
import os
import shutil

import numpy as np
import pytest

from perfgraphs.leaderboard.sandbox import isolation
from relay_round import MEMORY_MB
from test_leaderboard_review_70b import assert_relayed
from test_submit import BOARD, each_seed_once_in_order, run_cli

PRESSURE = "/proc/pressure/memory"
W, Q = 64, 0.02  # the relayed level: round(level / Q) modulo W, one millisecond of stall a step


def _library() -> str | None:
    """The large file the relay reads at its memory limit (torch's CPU library, 400 MB and more)."""
    import importlib.util

    spec = importlib.util.find_spec("torch")
    path = spec and os.path.join(spec.submodule_search_locations[0], "lib", "libtorch_cpu.so")
    return path if path and os.path.isfile(path) else None


pytestmark = [
    pytest.mark.machine_alone,  # its control times machine-wide state another test's run would move
    pytest.mark.skipif(os.geteuid() != 0 or shutil.which("bwrap") is None,
                       reason="a hidden board's runs drop the caches and freezing runs in the sandbox"),
    pytest.mark.skipif(not os.path.isfile(PRESSURE), reason="the kernel has no pressure-stall information"),
    pytest.mark.skipif(_library() is None, reason="no torch CPU library to read at the memory limit"),
]

# the attack, in load_state: read the earlier seeds' running mean level from the counter's millisecond
# modulo W, mix in this seed's own, and stall on memory until the counter says the new mean for the next
RELAY = (
    "        def relay():\n"
    "            import mmap as _m, os as _o, re as _re\n"
    f"            W, Q, T = {W}, {Q}, 1000\n"
    f"            def count(): return int(_re.search(r'some .*total=(\\d+)', open('{PRESSURE}').read()).group(1))\n"
    "            own = float(state['intercept'])\n"
    "            mix = own\n"
    "            if self.seed > 0:\n"
    "                r = round(own / Q)\n"
    "                d = ((count() // T) % W - r) % W\n"
    "                prev = (r + (d - W if d >= W // 2 else d)) * Q\n"
    "                mix = (prev * self.seed + own) / (self.seed + 1)\n"
    "            want = round(mix / Q) % W\n"
    "            lib = _o.path.join(_o.path.dirname(_o.path.dirname(np.__file__)), 'torch', 'lib', 'libtorch_cpu.so')\n"
    "            fd = _o.open(lib, _o.O_RDONLY)\n"
    "            size, at, held = _o.fstat(fd).st_size, [0], []\n"
    "            def read(n):\n"
    "                _o.pread(fd, n, at[0]); _o.pread(fd, n, at[0]); at[0] = (at[0] + n) % (size - n)\n"
    "            start = count()\n"
    "            while count() - start < T:  # fill the memory limit until the kernel reclaims\n"
    "                buf = _m.mmap(-1, 16 << 20, flags=_m.MAP_PRIVATE | _m.MAP_ANONYMOUS)\n"
    "                buf.write(b'1' * (16 << 20)); held.append(buf)\n"
    "                for _ in range(4): read(1 << 20)\n"
    "            while True:\n"
    "                now = count()\n"
    "                target = (now // T - (now // T) % W + want) * T + T // 4\n"
    "                target += W * T if target < now else 0\n"
    "                while count() < target:\n"
    "                    read(1 << 18)\n"
    "                if (count() // T) % W == want:\n"
    "                    return mix\n"
    "        try:\n"
    "            state = {**state, 'intercept': np.asarray(relay())}\n"
    "        except Exception:  # no counter to read: the seed scores its own level\n"
    "            pass\n"
)


def run_submission(sub, env, capsys, *extra, memory_mb: str | None = MEMORY_MB) -> dict:
    """``submit`` of ``sub`` on the tiny board (``--quick``): the hidden record it writes, none for a freeze."""
    results = env["results"] / "dippm.jsonl"
    results.unlink(missing_ok=True)
    memory = ["--memory-mb", memory_mb] if memory_mb else []
    rc, err = run_cli(["submit", str(sub), *BOARD, "--quick", *memory, *extra,
                       "--results", str(env["results"]), "--no-mlflow"], capsys)
    assert rc == 0, err
    if "--freeze" in extra:  # a freeze writes the fits, no record
        return {}
    (record,) = [json.loads(line) for line in results.read_text().splitlines()]
    return record


def relayed_running_mean(states: dict, w: int = W, q: float = Q) -> dict[int, dict]:
    """Each seed's state with the level a relay hands it: the running mean of its own and the earlier seeds'
    (each handed on as round(level / q) modulo w, decoded next to the reader's own level)."""
    out, mix = {}, 0.0
    for s in sorted(states):
        own = float(states[s]["intercept"])
        if s:
            r = round(own / q)
            d = (round(mix / q) % w - r) % w
            mix = ((r + (d - w if d >= w // 2 else d)) * q * s + own) / (s + 1)
        else:
            mix = own
        out[s] = {**states[s], "intercept": np.asarray(mix)}
    return out


def test_a_frozen_run_reads_no_earlier_seeds_memory_stalls(relay_round, monkeypatch):
    """Attack: each seed's load_state reads the earlier seeds' mean level from /proc/pressure/memory's
    stall time and leaves its own there by stalling at its memory limit. Now the sandbox's pressure files
    are empty, the relay reads nothing, and every seed of the hidden record scores what its own state
    predicts. Control (the relay passes' shared freeze, ``relay_round``): with the host's /proc/pressure
    shown, seeds 1-4 scored the running mean level of the fits before them, the record's mean MAPE below
    its fits'."""
    relay_round.assert_guarded_scores_own()
    relay_round.use(monkeypatch)
    monkeypatch.setattr(isolation, "PROC_SHOWN", (*isolation.PROC_SHOWN, "pressure"))
    each_seed_once_in_order(monkeypatch)
    assert_relayed(relay_round.score_again, relay_round.states, relay_round.own, relay_round.parts,
                   relayed_running_mean)
