"""Ninety-ninth adversarial pass (2026-12-06), side a (what `reproduce` checks against what the board
shows). `reproduce` compared each seed's other scores (n, RMSE, Acc, Kendall τ) only where the record
and the run both gave a number: a score the record left null (or out) was never compared. Kendall's
τ may be null (a constant predictor's), and the boards' τ column (`leaderboard show`, the site) is
the mean over the seeds that state one. Eve's copy of `static-mlp`'s code (seeds' τ 0.9077, 0.9028,
0.9051, 0.9068, 0.9024: 0.905 shown) with τ nulled on seeds 1-4 was "reproduced" by `leaderboard
reproduce --submission` and shown with τ 0.908, its best seed's, every other field the run's. Now a
score null or missing on one side and a number on the other is a difference
(``reproduce._seed_score_differences``). The code's run is stood in by the honest record, as in
98c; the control switches the new comparison back to the numbers-only one and the record is
"reproduced"."""

from __future__ import annotations

import re

import perfgraphs.leaderboard.reproduce as reproduce_module
from perfgraphs.cli import main
from perfgraphs.leaderboard.records import record_check
from test_leaderboard_review_69c import _shown_ranks
from test_leaderboard_review_98c import eves_copy, reproduced_against


def _shown_tau(capsys) -> dict[str, str]:
    """Each entry's τ as the last `leaderboard show` printed it (the cpu latency board)."""
    board = capsys.readouterr().out.split("cpu-torch-fp32 · latency_ms")[1].split("Ranks (#)")[0]
    return {m: t for m, t in re.findall(r"│ (?:\d+|–)\s+│ ([a-z0-9-]+)\s.*?│ (\d\.\d{3}|–)\s+│ \w", board)}


def _numbers_only(a: dict, b: dict, tolerance_rel: float) -> list[str]:
    """The comparison before this pass: a score compared only where both sides give a number."""
    out = []
    for key in reproduce_module.SCORES:
        x, y = a.get(key), b.get(key)
        if isinstance(x, (int, float)) and isinstance(y, (int, float)) and not isinstance(x, bool):
            if not (abs(x - y) <= tolerance_rel * max(abs(y), 1e-9) or (x != x and y != y)):
                out.append(f"seed {b.get('seed')}: {key} differs")
    return out


def test_a_kendall_tau_left_null_on_the_worse_seeds_is_not_reproduced(tmp_path, capsys, monkeypatch):
    references, folder, honest = eves_copy(tmp_path, "static-mlp")
    best = max(range(len(honest["per_seed"])), key=lambda i: honest["per_seed"][i]["kendall_tau"])
    forged = {**honest, "per_seed": [s if i == best else {**s, "kendall_tau": None}
                                     for i, s in enumerate(honest["per_seed"])]}

    command, rc, out = reproduced_against(tmp_path, forged, honest, folder, capsys, monkeypatch)
    assert rc == 2, out  # since the hundred-and-ninth pass (side b) refused when read: τ null where the ratios give one
    with monkeypatch.context() as unread:  # as read before that check: reproduce compares the scores
        unread.setattr(record_check, "stated_scores_problem", lambda record: None)
        assert main(command) == 1
        out = capsys.readouterr().out
        assert "NOT reproduced" in out and "kendall_tau" in out, out
        with monkeypatch.context() as m:  # control: compared only where both are numbers, it is reproduced
            m.setattr(reproduce_module, "_seed_score_differences", _numbers_only)
            assert main(command) == 0
            out = capsys.readouterr().out
            assert ": reproduced" in out and "NOT" not in out, out

    # what the boards show: the best seed's τ, not the run's mean, and the same rank
    fair = _shown_ranks(tmp_path / "fair", [*references, honest], capsys, monkeypatch)
    main(["leaderboard", "show", "--results", str(tmp_path / "fair" / "results")])
    fair_tau = _shown_tau(capsys)
    assert fair_tau["eve-net"] == "0.905", fair_tau
    # since the hundred-and-ninth pass (side b) every reader recomputes a seed's τ from its ratios, so the
    # forged record is not shown at all (record_check.stated_scores_problem); without that check the board
    # showed the best seed's τ, 0.908, at the same rank
    assert "eve-net" not in _shown_ranks(tmp_path / "moved", [*references, forged], capsys, monkeypatch)
    with monkeypatch.context() as m:
        m.setattr(record_check, "stated_scores_problem", lambda record: None)
        moved = _shown_ranks(tmp_path / "moved-unchecked", [*references, forged], capsys, monkeypatch)
        main(["leaderboard", "show", "--results", str(tmp_path / "moved-unchecked" / "results")])
        moved_tau = _shown_tau(capsys)
    assert fair["eve-net"] == moved["eve-net"], (fair, moved)
    assert moved_tau["eve-net"] == "0.908", moved_tau
