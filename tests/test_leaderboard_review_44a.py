"""Forty-fourth adversarial pass (2026-12-04), read side: a team made of another team's name, read
across a hyphen."""

from __future__ import annotations

import dataclasses
import re
import unicodedata


from perfgraphs.leaderboard.records import names
from perfgraphs.leaderboard.records.ranks import rank_board
from perfgraphs.leaderboard.records.results import read_entries


def _old_name_pairs(authors: str) -> set[tuple[str, str]]:
    """``names._name_pairs`` before this pass: a hyphenated name split into words, each paired with
    its neighbours across the hyphen (the control's guard switched off)."""
    text = re.sub(r"\([^)]*\)|@[^,;&+/]*", " ", unicodedata.normalize("NFKC", str(authors)))
    pieces = re.split(r"[,;&+/]|\b(?:[Aa][Nn][Dd]|[Ww][Ii][Tt][Hh])\b", text)
    words = [[w for w in re.findall(r"[a-z0-9]+", names.canonical(p)) if w not in names._NOT_NAME_WORDS]
             for p in pieces]
    pairs = {pair for piece in words for pair in zip(piece, piece[1:])}
    pairs |= {(a[0], b[0]) for a, b in zip(words, words[1:]) if len(a) == 1 and len(b) == 1}
    return pairs


def _board(victim: str, other: str):
    """Two teams' entries on one board (two reference records' scores, the teams' names): the
    victim's ``gnn-v`` (layerwise-boost's, the higher MAPE) and the other team's ``gnn-a``."""
    found = {e.method: e for e in read_entries("perfgraphs/dippm") if e.config == "h200-torch-fp32"
             and e.target == "latency_ms" and len(e.per_seed[0].get("pred_over_label") or []) == 88}
    v = dataclasses.replace(found["layerwise-boost"], method="gnn-v", authors=victim)
    a = dataclasses.replace(found["layerwise-linear"], method="gnn-a", authors=other)
    return {r.entry.authors: r.rank_text for r in rank_board([v, a], None, min_configs=10).rows}


def test_a_hyphenated_surname_holds_no_other_teams_name(monkeypatch):
    """Attack: teams are author lists that share a person, and a name (two adjacent name words) of one
    list found in the other counts (``Team Mal Lory``); a board ranks one entry a team, its best. A
    person's name parts read a hyphenated surname as one word, but the pairs split it: a team
    writing ``Ann Mal Lory-Smith`` (another person: her surname is Lory-Smith, nothing of the list
    names Mal Lory) held the pair ``mal lory``, was one team with Mal Lory's, and his entry, of
    higher MAPE, left the ranks ("a team's best entry is ranked"), on every board where hers was
    better. Now a hyphenated name is one word in the pairs too (two adjacent words read joined as
    well, so ``Jean Luc Picard`` is still ``Jean-Luc Picard``'s team). Control: with the pairs as
    they were, the same two records unrank Mal Lory's entry."""
    assert not names.share_a_person("Mal Lory", "Ann Mal Lory-Smith")
    assert not names.share_a_person("Lin Chen", "Mei-Lin Chen")
    # what stays one team: the same person written otherwise, and a name found in the other list
    for a, b in (("Jean-Luc Picard", "Jean Luc Picard"), ("Mei-Lin Chen", "Meilin Chen"), ("Mal Lory", "Team Mal Lory"),
                 ("Mal Lory", "Lory, Mal"), ("Mal Lory", "M. Lory"), ("Mal Lory", "Mal Lory + Bob Builder")):
        assert names.share_a_person(a, b), (a, b)
    assert _board("Mal Lory", "Ann Mal Lory-Smith") == {"Ann Mal Lory-Smith": "1", "Mal Lory": "1"}

    monkeypatch.setattr(names, "_name_pairs", _old_name_pairs)
    assert names.share_a_person("Mal Lory", "Ann Mal Lory-Smith")
    assert _board("Mal Lory", "Ann Mal Lory-Smith") == {"Ann Mal Lory-Smith": "1", "Mal Lory": "–"}


