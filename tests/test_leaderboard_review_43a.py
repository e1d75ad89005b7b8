"""Forty-third adversarial pass (2026-12-04), read side: a results line a reviewer reads as
unchanged, which JSON did not read at all."""

from __future__ import annotations

import json


from test_leaderboard_review_37a import _public_record  # noqa: F401 — shared helpers



def _team_record(n: int, authors: str) -> str:
    """A team's harness record of the dippm CPU latency board (a reference's scores, the team's name)."""
    return json.dumps(_public_record("roofline-boost", method=f"mal-net-{n}", authors=authors,
                                     run_identity=f"mal-{n}", code_commit=str(n) * 40, paper=""))


def test_a_line_that_reads_unchanged_in_a_diff_is_read_as_shown(tmp_path, monkeypatch):
    """Attack: a pull request "reformats" the results file: a no-break space (U+00A0) after
    ``"tier":`` in another team's line, a byte-order mark before the file's first line, a
    zero-width space between two fields, a no-break space inside an author list. ``git diff`` and
    the pull request's page show each changed line as the line it was; JSON refuses each, so every
    reader skipped the records (a warning each): merged into the clone, the NBSP in the rank-1
    ``roofline-boost`` line of the official dippm cpu latency board took it off every board, and
    ``layerwise-boost`` and the entries below it moved one rank up. Now a line is read as it is
    shown (``results.as_shown``: a space separator is a space, a zero-width character nothing).
    Control: without it the four records are skipped; a bidirectional control (U+202E), which
    reorders what a viewer shows, still makes a line no record, with the guard or without it."""
    from perfgraphs.leaderboard.records import results

    folder = tmp_path / "results"
    folder.mkdir()
    lines = ["\ufeff" + _team_record(1, "Ann Abel"),
             _team_record(2, "Ben Boyd").replace('"tier": ', '"tier":\u00a0', 1),
             _team_record(3, "Cat Cole").replace('", "', '",\u200b "', 1),
             _team_record(4, "Dan Dorn").replace("Dan Dorn", "Dan\u00a0Dorn"),
             _team_record(5, "Eve Emms").replace('"tier": ', '"tier": \u202e', 1)]
    assert all(results.as_shown(line) != line for line in lines[:4]) and results.as_shown(lines[4]) == lines[4]
    (folder / "dippm.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")

    skipped: list[str] = []
    read = results.read_entries("dippm", folder, skipped)
    assert [(e.run_identity, e.authors) for e in read] == [("mal-1", "Ann Abel"), ("mal-2", "Ben Boyd"),
                                                            ("mal-3", "Cat Cole"), ("mal-4", "Dan Dorn")]
    assert len(skipped) == 1 and "dippm.jsonl:5:" in skipped[0], skipped
    # the honest line, as every writer writes it, is untouched
    honest = _team_record(6, "Fay Ford")
    assert results.as_shown(honest) is honest

    # control: JSON's reading alone skips every changed line
    monkeypatch.setattr(results, "as_shown", lambda line: line)
    results.forget_checked()
    skipped = []
    assert results.read_entries("dippm", folder, skipped) == []
    assert len(skipped) == 5 and all("not a valid leaderboard record" in s for s in skipped), skipped
