"""Forty-fifth adversarial pass (2026-12-04), read side: a results line that a terminal shows as
another record."""

from __future__ import annotations

import json


from perfgraphs.leaderboard.records import results
from perfgraphs.leaderboard.records.ranks import rank_board
from perfgraphs.leaderboard.records.results import RESULTS_DIR, read_entries



def _terminal(line: str) -> str:
    """What a terminal shows for one line: a carriage return goes back to the first column, a tab on to
    the next multiple of 8 without erasing, any other character is written over what was there."""
    cells, col = {}, 0
    for c in line:
        if c == "\r":
            col = 0
        elif c == "\t":
            col = (col // 8 + 1) * 8
        else:
            cells[col], col = c, col + 1
    return "".join(cells.get(i, " ") for i in range(max(cells) + 1))


def _disguised(record: dict) -> str:
    """``record`` as one line JSON reads with ``"tier":"reproduced"`` and a terminal shows with
    ``"tier":"self-reported"``: the value after the first return is ``paper``'s (the last key before
    it), written over the tier's; a third part, after a second return, writes ``code_url`` over the
    ``"paper"`` key."""
    rest = {k: v for k, v in record.items() if k not in ("tier", "paper", "code_url")}
    head = '{ "tier":"reproduced"   , ' + json.dumps(rest)[1:-1]
    head += " " * (-len(head) % 8)
    return (head + ', "paper"' + "\r\t" + ':"self-reported"' + "\r" + "\t" * (len(head) // 8)
            + ', "code_url": ""}')


def test_a_carriage_return_in_a_results_line_shows_another_record(tmp_path, monkeypatch):
    """Attack: JSON reads a carriage return between tokens as a space, and the readers split a results
    file at line feeds only, so a line may hold one. A terminal (``cat``, ``git --no-pager diff``,
    ``tail``) prints the text after it from the first column, over the text before it, and a tab moves
    on without erasing: a pull request added a hand-written copy of layerwise-boost's scores under
    ``eve-net by Eve Example`` that the terminal showed as ``{ "tier":"self-reported", ...`` (a
    predictions-files record: listed unranked, never re-run by a reviewer), while every reader read
    ``"tier":"reproduced"`` (the shown ``"self-reported"`` was the value of ``paper``) and ranked it 2
    on the official dippm cpu latency board. Now a line holding a carriage return before its end is
    no record (one warning line, ``results.overwritten_text``). Control: with that check switched off,
    the same line is read as reproduced and ranked."""
    lines = (RESULTS_DIR / "dippm.jsonl").read_text().splitlines()

    def board_record(method: str) -> tuple[str, dict]:
        return next((text, rec) for text in lines if (rec := json.loads(text))["method"] == method
                    and rec["config"] == "cpu-torch-fp32" and rec["target"] == "latency_ms"
                    and rec.get("test_set") == "public" and rec["per_seed"][0].get("pred_over_label"))

    best_line, _ = board_record("roofline-boost")
    _, copied = board_record("layerwise-boost")
    attack = _disguised({**copied, "method": "eve-net", "authors": "Eve Example"})
    shown = _terminal(attack)
    assert shown.startswith('{ "tier":"self-reported", ') and "reproduced" not in shown
    folder = tmp_path / "results"
    folder.mkdir()
    (folder / "dippm.jsonl").write_text(best_line + "\n" + attack + "\n")

    skipped: list[str] = []
    entries = read_entries("perfgraphs/dippm", folder, skipped)
    assert [e.method for e in entries] == ["roofline-boost"]
    assert len(skipped) == 1 and "carriage return" in skipped[0] and "\r" not in skipped[0]

    monkeypatch.setattr(results, "overwritten_text", lambda line: None)  # the guard off
    results.forget_checked()
    entries = read_entries("perfgraphs/dippm", folder, [])
    eve = next(e for e in entries if e.method == "eve-net")
    assert eve.tier == "reproduced" and eve.paper == "self-reported"
    ranks = {r.entry.method: r.rank_text for r in rank_board(entries).rows}
    assert ranks["eve-net"] != "–", ranks  # ranked, where a self-reported entry is listed unranked


def test_a_reordering_character_anywhere_in_a_results_line_makes_it_no_record(tmp_path, monkeypatch):
    """The forty-fifth pass's lead, closed: a raw bidirectional control (U+202E, Trojan Source) was
    refused in the fields the record checks read, but JSON takes one raw in any string, and a
    per-seed item's extra key or a nested hyper-parameter value held one unread: a viewer reorders
    the rest of the line, so it shows other text than it holds. Now a bidi control, a line or
    paragraph separator, DEL or a C1 control (U+009B is a terminal's CSI) anywhere in the line makes
    it no record, one warning line, escaped. Control: without that check the line is read."""
    import re

    line = (RESULTS_DIR / "dippm.jsonl").read_text().splitlines()[0]
    record = json.loads(line)
    record["per_seed"][0]["note"] = "seed 0 \u202e{derahs}"
    folder = tmp_path / "results"
    folder.mkdir()
    for char in ("\u202e", "\u2028", "\x9b"):
        text = json.dumps(record, ensure_ascii=False).replace("\u202e", char)
        assert char in text
        (folder / "dippm.jsonl").write_text(text + "\n")
        skipped: list[str] = []
        assert read_entries("perfgraphs/dippm", folder, skipped) == []
        assert len(skipped) == 1 and f"U+{ord(char):04X}" in skipped[0] and char not in skipped[0], skipped

    monkeypatch.setattr(results, "_REORDERING", re.compile("(?!)"))  # the check off: matches nothing
    results.forget_checked()
    assert [e.method for e in read_entries("perfgraphs/dippm", folder, [])] == [record["method"]]
