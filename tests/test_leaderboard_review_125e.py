"""Hundred-and-twenty-fifth adversarial pass (2026-12-08), side e: a second look at side d's names
(``names._named_pairs_in``, ``names._written_as_surname``). A board ranks one entry per person
(``names.share_a_person``: two author lists sharing a name, two adjacent name words, are one team), and an
apostrophe (in the authors' character set) split a name word in two: ``O'Brien`` was the words ``o`` and
``brien``. Side d read a one-letter word after a first name as a middle initial, never paired with the
surname after it, and a piece of two words as no "Last, First" surname, so ``Mal O'Brien`` (``o brien``
dropped) and ``O'Brien, Mal`` (no surname, so no ``O'Brien Mal`` across the comma) shared no name:
one person written two ordinary ways, one team before side d, now two. ``check`` passes ``O'Brien, Mal``
beside Mal O'Brien's record (no look-alike: each person is written as someone else is not), and on
123c's dippm h200 latency board his second entry ``gnn-y`` (static-xgboost's scores) under it ranked
1 beside his ``gnn-x`` (layerwise-linear's, also 1), the rival's ``rival-net`` pushed from 2 to 3; so
did ``Smith, Bob, O'Brien, Mal``. (``Ana D'Souza`` and ``D'Souza, Ana`` the same.)

Now the pairs are read also with an apostrophe inside a name word taken out (``names._apostrophes_joined``:
``OBrien``, one surname word; a possessive ``'s`` kept apart), besides as before: ``O'Brien, Mal`` is his
team again and ``gnn-y`` leaves the ranks as his second entry. What side d fixed holds: ``Ann O'Brien``
and ``Bob D'Souza`` are not his or Ana's team (a ``D'`` or ``O'`` is no shared initial), and ``Ana
Souza`` is still ``Ana D'Souza``'s. The control takes the joined reading away and the second entry ranks
again.
"""

from __future__ import annotations

import dataclasses

from perfgraphs.leaderboard.records import names
from perfgraphs.leaderboard.records.ranks import rank_board
from perfgraphs.leaderboard.records.results import read_entries
from test_leaderboard_names_20261202 import _board as _names_board
from test_leaderboard_review_20261202 import _records_repo

OWNER = "Mal O'Brien"
SECOND = ["O'Brien, Mal", "Smith, Bob, O'Brien, Mal"]


def _board(owner: str, second_authors: str) -> dict[str, str]:
    """123c's board: ``owner``'s ``gnn-x``, ``gnn-y`` by ``second_authors`` and Ann Rival's ``rival-net`` on
    the dippm h200 latency board (three references' scores, renamed): method -> rank as shown."""
    found = {e.method: e for e in read_entries("perfgraphs/dippm") if e.config == "h200-torch-fp32"
             and e.target == "latency_ms" and len(e.per_seed[0].get("pred_over_label") or []) == 88}
    entries = [dataclasses.replace(found["layerwise-linear"], method="gnn-x", authors=owner),
               dataclasses.replace(found["static-xgboost"], method="gnn-y", authors=second_authors),
               dataclasses.replace(found["static-mlp"], method="rival-net", authors="Ann Rival")]
    return {r.entry.method: r.rank_text for r in rank_board(entries, None, min_configs=10).rows}


def test_check_passes_his_name_written_last_first(tmp_path):
    from perfgraphs.leaderboard.records.check import check_name_owner

    _, add = _records_repo(tmp_path)
    add({"method": "gnn-x", "authors": OWNER, "run_identity": "obrien-1"})
    for authors in SECOND:
        assert check_name_owner(tmp_path / "results", _names_board(), "gnn-y", authors) == [], authors


def test_his_name_written_last_first_is_his_team():
    for authors in SECOND:
        assert names.share_a_person(OWNER, authors) and names.share_a_person(authors, OWNER), authors
        assert _board(OWNER, authors) == {"gnn-x": "1", "rival-net": "2", "gnn-y": "–"}, authors
    for a, b in [("Ana D'Souza", "D'Souza, Ana"), ("Ana D'Souza", "Ana Souza"), ("Mal Lory", "Mal Lory's group"),
                 ("Mal O'Brien", "O'Brien, M.")]:
        assert names.share_a_person(a, b) and names.share_a_person(b, a), (a, b)
    for a, b in [("Ann O'Brien", OWNER), ("Bob D'Souza", "Ana D'Souza"), ("Ann O'Brien", "O'Brien, Mal")]:
        assert not names.share_a_person(a, b) and not names.share_a_person(b, a), (a, b)


def test_control_the_apostrophe_splits_the_name_again(monkeypatch):
    monkeypatch.setattr(names, "_apostrophes_joined", lambda text: text)
    for authors in SECOND:
        assert not names.share_a_person(OWNER, authors), authors
        assert _board(OWNER, authors) == {"gnn-x": "1", "gnn-y": "1", "rival-net": "3"}, authors


# the lead this pass left: a "Last, First" reading that ran on across a separator that parts people only.
# ``Smith; Lory, Mal`` read ``Lory`` as Smith's first name (a person "Lory Smith") and held no Mal Lory, so
# his second entry under it ranked beside his first (``names._surname_pieces`` and
# ``_surname_first_pairs`` now read a name across a comma only, and start again after any other separator)
ACROSS = ["Smith; Lory, Mal", "Smith & Lory, Mal", "Smith and Lory, Mal", "Lory, Mal; Smith, Bob"]


def test_a_last_first_name_after_a_semicolon_is_his():
    for authors in ACROSS:
        assert names.share_a_person("Mal Lory", authors) and names.share_a_person(authors, "Mal Lory"), authors
        assert _board("Mal Lory", authors) == {"gnn-x": "1", "rival-net": "2", "gnn-y": "–"}, authors
    for a, b in [("Smith; Lory, Mal", "Lory Smith"), ("Lory, Mal; Smith, Bob", "Mal Smith"),
                 ("Zhang, Wei; Li Chen", "Wei Li")]:
        assert not names.share_a_person(a, b) and not names.share_a_person(b, a), (a, b)


def test_control_a_reading_across_every_separator_misses_him(monkeypatch):
    pieces, pairs = names._surname_pieces, names._surname_first_pairs
    monkeypatch.setattr(names, "_surname_pieces", lambda p, commas=None: pieces(p))
    monkeypatch.setattr(names, "_surname_first_pairs", lambda w, s=None, commas=None: pairs(w, s))
    assert not names.share_a_person("Mal Lory", "Smith; Lory, Mal")
    assert names.share_a_person("Lory Smith", "Smith; Lory, Mal")
    assert _board("Mal Lory", "Smith; Lory, Mal") == {"gnn-x": "1", "gnn-y": "1", "rival-net": "3"}
