"""Hundred-and-seventeenth adversarial pass (2026-12-07), side c (names: a hidden board's words in authors).
An author list holding a tier's word or ``hidden test`` is refused (twenty-seventh pass, ``names.tier_in_authors``),
but ``hidden`` before any other word of what a hidden board keeps was free: authors ``Mal Lory (hidden set)``,
``Mal Lory hidden labels``, ``Mal Lory (hidden-board)``, ``Mal Lory hiddenset`` and ``Mal Lory (hiden set)`` were
accepted (5 of 5), and hand-written dippm records ``gnn-x`` by ``Mal Lory (hidden set)`` and ``gnn-y`` by
``Mal Lory hidden labels`` were read and printed by ``leaderboard show`` as "gnn-x by Mal Lory (hidden set)" on a
public board. Now ``hidden`` and a word of :data:`names._HIDDEN_OBJECTS`, apart or run together, is a tier's
words in authors (``names._hidden_object``); ``Ann Hidde``, ``Hiddenite Lab`` and ``Mal Lory (set theory)`` stay free."""

from __future__ import annotations

from test_leaderboard_review_111a import records_shown_unnoted, records_skipped

from perfgraphs.leaderboard.records import names

_RECORDS = [("gnn-x", "Mal Lory (hidden set)"), ("gnn-y", "Mal Lory hidden labels")]
_AUTHORS = ["Mal Lory (hidden set)", "Mal Lory hidden labels", "Mal Lory (hidden-board)", "Mal Lory hiddenset",
            "Mal Lory (hiden set)"]


def _free(tmp_path, results, authors: list[str]) -> list[str]:
    from perfgraphs.leaderboard.records.check import check_reserved

    return [a for a in authors if check_reserved("gnn-x", a, tmp_path, results) + names.check_charset("authors", a) == []]


def test_hidden_and_what_it_keeps_in_authors_is_a_tiers_words(tmp_path, capsys, monkeypatch):
    """Attack: the two records are not read and the five author lists are refused; honest names stay free.
    Control: with ``hidden`` and its object not read, both records are read and shown, and all five are free."""
    results = records_skipped(tmp_path, _RECORDS)
    assert _free(tmp_path, results, _AUTHORS) == []
    assert names.check_charset("authors", "Mal Lory (hidden set)")[0].startswith(
        "authors 'Mal Lory (hidden set)' hold 'hidden set', a tier's word")
    honest = ["Ann Hidde", "Hiddenite Lab", "Mal Lory (set theory)", "Hidden Markov Lab"]
    assert _free(tmp_path, results, honest) == honest

    monkeypatch.setattr(names, "_hidden_object", lambda word, after: False)
    records_shown_unnoted(results, _RECORDS, capsys, monkeypatch)
    assert _free(tmp_path, results, _AUTHORS) == _AUTHORS


def test_a_ratioless_line_of_its_boards_pinned_size_is_not_read(tmp_path, capsys, monkeypatch):
    """117b's residual: ``trust.ratioless_record_problem`` asked only lines stating 100 configurations or more
    (the suite's own ratio-less test records state 10), and the dippm h200 boards hold 88. Eve's copy of
    `static-xgboost`'s h200 latency record, ratios and pairs left out and every seed 1.00 % MAPE (n = 88), was
    read and `leaderboard show` listed it on that board as reproduced. Now the size ``builds.json`` pins for a
    board counts as one it shows (``trust._pinned_size``). Control: without the pin read, it is listed."""
    import json

    from test_leaderboard_review_117b import _eves_ratioless_copy

    from perfgraphs.cli import main
    from perfgraphs.leaderboard.records import trust
    from perfgraphs.leaderboard.records.results import forget_checked
    from perfgraphs.paths import leaderboard_dir

    lines = [line for line in (leaderboard_dir() / "results" / "dippm.jsonl").read_text().splitlines()
             if json.loads(line)["config"] == "h200-torch-fp32"]
    copied = next(json.loads(line) for line in lines if json.loads(line)["method"] == "static-xgboost"
                  and json.loads(line)["target"] == "latency_ms" and json.loads(line)["per_seed"][0]["n"] == 88)
    eve = _eves_ratioless_copy(copied)
    assert "without per-configuration ratios" in (trust.trust_problem(eve) or "")

    def shown(folder) -> str:
        (folder / "results").mkdir(parents=True)
        (folder / "builds.json").write_text((leaderboard_dir() / "builds.json").read_text())
        (folder / "results" / "dippm.jsonl").write_text("\n".join([*lines, json.dumps(eve)]) + "\n")
        forget_checked()
        capsys.readouterr()
        monkeypatch.setenv("COLUMNS", "250")
        assert main(["leaderboard", "show", "--results", str(folder / "results")]) == 0
        return capsys.readouterr().out

    assert "eve-net" not in shown(tmp_path / "fixed")
    monkeypatch.setattr(trust, "_pinned_size", lambda record: None)  # control: sizes under 100 not asked
    assert trust.trust_problem(eve) is None
    out = shown(tmp_path / "control")
    assert "eve-net" in out and "1.00 ± 0.00" in out, out
    forget_checked()
