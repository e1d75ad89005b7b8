"""Hundred-and-twenty-third adversarial pass (2026-12-07), side c (a team is one person however its list is
written): a board ranks one entry per person (``ranks.team_best``), people matched by
``names.share_a_person``, which reads a "Last, First" list's names across the comma only where both pieces
are one word (``Lory, Mal``). ``Lory, Mal A.`` (the same man with his middle initial, the way a citation
writes him) held no pair of ``Mal Lory``, and ``check`` passes it beside his records (no look-alike: it is
written as a different string of words, not a look-alike of one). So Mal Lory's second entry under it was
ranked beside his first: on the dippm h200 latency board, with his ``gnn-x`` (layerwise-linear's scores,
26.31 %) and his ``gnn-y`` (static-xgboost's, 31.81 %) against a rival's ``rival-net`` (static-mlp's,
42.62 %), ``gnn-y`` was listed unranked and the rival ranked 2 under ``Mal Lory``; under ``Lory, Mal A.``
``gnn-y`` ranked 1 and pushed the rival to 3. ``Lory, Mal Ann``, ``Lory, Mal J., Bob Builder`` and
``Builder, Bob R.`` (beside ``Alice Author, Bob Builder``) were each another team too, and ``Mal A. Lory``
was none of ``Lory, Mal``'s.

Now a one-word piece pairs with the first word of the piece after it, whatever follows that word
(``names._surname_first_pairs``), and a middle initial between two names leaves them a pair
(``names._adjacent``). The control puts the pairs back as they were and the second entry is ranked again.

2. The same list in a method: a method holds no other entry's author (``gnn-x (M. Lory)`` by another team is
refused by ``check`` and noted under a board: ``names.named_person``), but a parenthesised part was read as
people split at its commas, so ``gnn-q (Lory, Mal)`` and ``gnn-q (Lory, Mal A.)`` by Ann Other passed
``check`` beside Mal Lory's record (the board printing ``gnn-q (Lory, Mal) by Ann Other``), though
``gnn-q (Lory Mal)`` was refused. Now a "Last, First" part is read as "First Last" too
(``names._surname_first_people``); the control switches that off and both pass again."""

from __future__ import annotations

import dataclasses
import re
import unicodedata

from perfgraphs.leaderboard.records import names
from perfgraphs.leaderboard.records.ranks import rank_board
from perfgraphs.leaderboard.records.results import read_entries
from test_leaderboard_names_20261202 import _owner

SAME_PERSON = [("Mal Lory", "Lory, Mal A."), ("Mal Lory", "Lory, Mal Ann"), ("Mal Lory", "Lory, Mal J., Bob Builder"),
               ("Mal Lory", "Lory, Mal R. A."), ("Mal A. Lory", "Lory, Mal"),
               ("Alice Author, Bob Builder", "Builder, Bob R.")]


def _board(second_authors: str) -> dict[str, str]:
    """Mal Lory's two entries and a rival's on the dippm h200 latency board (three references' scores,
    renamed): method -> rank as shown."""
    found = {e.method: e for e in read_entries("perfgraphs/dippm") if e.config == "h200-torch-fp32"
             and e.target == "latency_ms" and len(e.per_seed[0].get("pred_over_label") or []) == 88}
    entries = [dataclasses.replace(found["layerwise-linear"], method="gnn-x", authors="Mal Lory"),
               dataclasses.replace(found["static-xgboost"], method="gnn-y", authors=second_authors),
               dataclasses.replace(found["static-mlp"], method="rival-net", authors="Ann Rival")]
    return {r.entry.method: r.rank_text for r in rank_board(entries, None, min_configs=10).rows}


def _pairs_before(authors: str) -> set[tuple[str, str]]:
    """``names._name_pairs`` before this pass (the control's guard switched off)."""
    text = re.sub(r"\([^)]*\)|@[^,;&+/]*", " ", unicodedata.normalize("NFKC", str(authors)))
    text = re.sub(r"(?<=\w)-(?=\w)", "", text)
    pieces = re.split(r"[,;&+/]|\b(?:[Aa][Nn][Dd]|[Ww][Ii][Tt][Hh])\b", text)
    words = [[w for w in re.findall(r"[a-z0-9]+", names.canonical(p)) if w not in names._NOT_NAME_WORDS]
             for p in pieces]
    pairs = set()
    for piece in words:
        pairs |= set(zip(piece, piece[1:]))
        pairs |= {(a + b, c) for a, b, c in zip(piece, piece[1:], piece[2:])}
        pairs |= {(a, b + c) for a, b, c in zip(piece, piece[1:], piece[2:])}
    pairs |= {(a[0], b[0]) for a, b in zip(words, words[1:]) if len(a) == 1 and len(b) == 1}
    return pairs


def test_a_last_first_middle_list_is_the_same_team(tmp_path):
    assert _owner(tmp_path, "gnn-y", "Lory, Mal A.") == ""  # check passes it beside Mal Lory's record
    for a, b in SAME_PERSON:
        assert names.share_a_person(a, b) and names.share_a_person(b, a), (a, b)
    assert _board("Mal Lory") == {"gnn-x": "1", "rival-net": "2", "gnn-y": "–"}
    assert _board("Lory, Mal A.") == {"gnn-x": "1", "rival-net": "2", "gnn-y": "–"}
    # other people stay other teams
    for a, b in (("Mal Lory", "Ann Mal Lory-Smith"), ("Mal Lory", "Lory, Mal-Ann"), ("Mal Lory", "Ann Rival"),
                 ("Mal Lory", "Mal Lorys"), ("Alice Author, Bob Builder", "Bob Brown, Carl Builder")):
        assert not names.share_a_person(a, b), (a, b)


def test_control_with_the_pairs_as_they_were(monkeypatch):
    monkeypatch.setattr(names, "_name_pairs", _pairs_before)
    for a, b in SAME_PERSON:
        assert not names.share_a_person(a, b), (a, b)
    assert _board("Mal Lory") == {"gnn-x": "1", "rival-net": "2", "gnn-y": "–"}
    assert _board("Lory, Mal A.") == {"gnn-x": "1", "gnn-y": "1", "rival-net": "3"}


NAMING = ["gnn-q (Lory, Mal)", "gnn-q (Lory, Mal A.)", "gnn-q (Lory, Mal Ann)"]


def test_a_method_naming_an_author_last_first_is_refused(tmp_path):
    for method in NAMING:
        assert "names 'Mal Lory'" in _owner(tmp_path, method, "Ann Other"), method
    assert "names 'Mal Lory'" in _owner(tmp_path, "gnn-q (Lory Mal)", "Ann Other")  # refused before too
    for method in ("gnn-q (small, fast)", "gnn-q (Lory, Bob)"):  # other words stay free
        assert _owner(tmp_path, method, "Ann Other") == "", method
    assert _owner(tmp_path, "gnn-q (Lory, Mal)", "Mal Lory") == ""  # his own


def test_control_without_the_last_first_reading(tmp_path, monkeypatch):
    monkeypatch.setattr(names, "_surname_first_people", lambda text: [])
    names._written_people.cache_clear()
    try:
        for method in NAMING:
            assert _owner(tmp_path, method, "Ann Other") == "", method
    finally:
        names._written_people.cache_clear()
