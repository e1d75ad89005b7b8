"""Hundred-and-twenty-sixth adversarial pass (2026-12-08), side g: a second look at this session's names
changes (``names.ambiguous_authors``, ``names._last_first_people``, ``names._NOT_NAME_KEYS``). A board ranks
one entry per person (``names.share_a_person``), and a number written apart from a name word kept a "Last,
First" surname from being read as one: ``Lory 2`` is a piece of two words to ``names._written_as_surname``, so
``Lory 2, Mal`` (and ``Lory 1, Mal``, ``Lory 42, Mal``, ``Lory 2nd, Mal``, ``2 Lory, Mal``) held no ``Mal Lory``
across its comma, while ``Mal Lory 2`` and ``Lory2, Mal`` (a number run into the word, 125d) were his team.
``check_charset`` finds no problem in it (one reading only: no lone word before the comma), no look-alike
(a digit is no letter), and ``check`` passed it beside Mal Lory's record; on 123c's dippm h200 latency board
his second entry ``gnn-y`` (static-xgboost's scores) under it ranked 1 beside his ``gnn-x``
(layerwise-linear's, also 1), Ann Rival's ``rival-net`` pushed from 2 to 3.

Now a number written apart from the name words is no name word (``names._numbers_apart_dropped`` for the
pairs two lists share, ``names._NUMBER_WORD`` in ``_written_as_surname``): ``Lory 2, Mal`` is his team and
``gnn-y`` leaves the ranks ('–'), the rival back at 2; ``Lory 2, Mal, Bob`` reads two ways and is refused,
as ``Lory, Mal, Bob`` is. ``Ann Lory 2`` and ``Bob Builder 2, Ann Rival`` stay others'. The control takes the
fix away and the second entry ranks again.

Second: an initial was a folded word of one letter, and ``names.canonical`` folds ``m`` to ``rn`` (TR39), so
an ``M.`` was no initial. ``Lory, M. (MIT)`` (``Lory, M. Jr.``, ``Lory, Dr. M.``, ``Lory, M. PhD``) held the
pair ``lory rn``, nothing of ``Mal Lory``'s ``rnal lory``, while ``Lory, B. (MIT)`` is Bob Lory's team: it too
passed ``check`` beside his record and ranked his second entry 1 beside his first, the rival pushed from 2 to
3. And ``Ann M. Smith`` held ``M. Smith`` as a name (side d of the 125th pass pairs no middle initial with the
surname after it): one team with an honest ``Bob M. Smith``, whose entry the better one took off the board,
where ``Ann J. Smith`` and ``Bob J. Smith`` are two. Now ``names._initial`` knows an initial by its folded
key (``names._INITIAL_KEYS``); its control reads one letter only again.
"""

from __future__ import annotations

import re

from perfgraphs.leaderboard.records import names
from test_leaderboard_names_20261202 import _board as _names_board
from test_leaderboard_review_125e import _board
from test_leaderboard_review_20261202 import _records_repo

OWNER = "Mal Lory"
SECOND = ["Lory 2, Mal", "Lory 1, Mal", "Lory 42, Mal", "Lory 2nd, Mal", "2 Lory, Mal"]


def test_a_numbered_surname_first_passes_check(tmp_path):
    from perfgraphs.leaderboard.records.check import check_name_owner

    _, add = _records_repo(tmp_path)
    add({"method": "gnn-x", "authors": OWNER, "run_identity": "lory-1"})
    for authors in SECOND:
        assert names.check_charset("authors", authors) == [], authors
        assert names.lookalike_people(OWNER, authors) == [], authors
        assert check_name_owner(tmp_path / "results", _names_board(), "gnn-y", authors) == [], authors


def test_a_numbered_surname_first_is_his_team():
    for authors in SECOND:
        assert names.share_a_person(OWNER, authors) and names.share_a_person(authors, OWNER), authors
        assert _board(OWNER, authors) == {"gnn-x": "1", "rival-net": "2", "gnn-y": "–"}, authors
    assert names.check_charset("authors", "Lory 2, Mal, Bob")  # reads two ways, as ``Lory, Mal, Bob``
    for a, b in [("Ann Lory 2", OWNER), ("Bob Builder 2, Ann Rival", OWNER), ("Team 42", "Team 7 Lory")]:
        assert not names.share_a_person(a, b) and not names.share_a_person(b, a), (a, b)
    assert names.share_a_person("Team 42", "Team 42")


def test_control_numbers_apart_are_name_words_again(monkeypatch):
    monkeypatch.setattr(names, "_numbers_apart_dropped", lambda text: text)
    monkeypatch.setattr(names, "_NUMBER_WORD", re.compile(r"(?!)"))
    for authors in SECOND:
        assert not names.share_a_person(OWNER, authors), authors
        assert _board(OWNER, authors) == {"gnn-x": "1", "gnn-y": "1", "rival-net": "3"}, authors


SECOND_M = ["Lory, M. (MIT)", "Lory, M. @MIT", "Lory, M. Jr.", "Lory, Dr. M.", "Lory, M. PhD"]


def test_an_m_initial_after_his_surname_passes_check(tmp_path):
    from perfgraphs.leaderboard.records.check import check_name_owner

    _, add = _records_repo(tmp_path)
    add({"method": "gnn-x", "authors": OWNER, "run_identity": "lory-1"})
    for authors in SECOND_M:
        assert names.check_charset("authors", authors) == [], authors
        assert check_name_owner(tmp_path / "results", _names_board(), "gnn-y", authors) == [], authors


def test_an_m_initial_is_an_initial():
    for authors in SECOND_M:
        assert names.share_a_person(OWNER, authors) and names.share_a_person(authors, OWNER), authors
        assert _board(OWNER, authors) == {"gnn-x": "1", "rival-net": "2", "gnn-y": "–"}, authors
    assert names.share_a_person("Lory, B. (MIT)", "Bob Lory")  # as it was for other letters
    for a, b in [("Ann M. Smith", "Bob M. Smith"), ("Wei M. Chen", "Li M. Chen"), ("Ann J. Smith", "Bob J. Smith"),
                 ("Rna Lory", OWNER), ("Lory, A. (MIT)", OWNER)]:
        assert not names.share_a_person(a, b) and not names.share_a_person(b, a), (a, b)
        assert _board(a, b)["gnn-y"] != "–", (a, b)  # the honest rival's entry stays ranked


def test_control_an_initial_is_one_letter_again(monkeypatch):
    monkeypatch.setattr(names, "_initial", lambda word: len(word) == 1)
    for authors in SECOND_M:
        assert not names.share_a_person(OWNER, authors), authors
        assert _board(OWNER, authors) == {"gnn-x": "1", "gnn-y": "1", "rival-net": "3"}, authors
    assert names.share_a_person("Ann M. Smith", "Bob M. Smith")
    assert _board("Ann M. Smith", "Bob M. Smith")["gnn-y"] == "–"
