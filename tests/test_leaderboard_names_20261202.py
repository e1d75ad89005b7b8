"""The twenty-fifth pass of 2026-12-02 on the leaderboard's name rules
(:mod:`perfgraphs.leaderboard.records.names`).

Four findings, each refused now, each with a control: an honest name that still passes, or the
attack passing with the guard off.

- F3: a method named another entry's author with a look-alike (``gnn-z (MaI Lory)``), an initial
  (``gnn-x (M. Lory)``), a surname (``gnn-x (Lory)``) or a short name (``gnn-x (Li Bo)``).
- F4: method and author text that reads as a tier, the hidden set, a rank, the official or
  reference rows or the project (``gnn-v (verified, hidden test set)`` by ``perfgraphs official``).
- F6: placeholder author lists put together from placeholder words (``Anonymous Authors``).
- F7: a reference name with one typo *and* a suffix (``statlc-xgboost (tuned)``).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from perfgraphs.leaderboard.records import names
from perfgraphs.leaderboard.records.references import REFERENCE_AUTHORS

from test_leaderboard_review_20261202 import _ALICE, _records_repo

REPO = Path(__file__).resolve().parents[1]


def _board():
    from perfgraphs.registry import task

    return task("perfgraphs/dippm", "h200-torch-fp32", "latency_ms")


def _owner(tmp_path, method: str, authors: str) -> str:
    """``check_name_owner``'s lines for ``method`` by ``authors`` beside Mal Lory's ``gnn-a``,
    Alice Author's ``gnn-x`` and Li Bo's ``bo-net``, joined."""
    from perfgraphs.leaderboard.records.check import check_name_owner

    if not (tmp_path / "results").exists():
        _, add = _records_repo(tmp_path)
        add({"method": "gnn-a", "authors": "Mal Lory", "run_identity": "mal-1"}, _ALICE,
            {"method": "bo-net", "authors": "Li Bo", "run_identity": "li-1"})
    return " ".join(check_name_owner(tmp_path / "results", _board(), method, authors))


# -- F3: a method that names another entry's author --------------------------------------------------

@pytest.mark.parametrize("method, named", [
    ("gnn-z (MaI Lory)", "Mal Lory"),       # a capital I for l
    ("gnn-x (AIice Author)", "Alice Author"),
    ("gnn-x (M. Lory)", "Mal Lory"),        # an initial
    ("gnn-x (Lory)", "Mal Lory"),           # the surname alone, as the whole parenthesised part
    ("gnn-x (Li Bo)", "Li Bo"),             # a full name of under six letters
    ("gnn-x Li Bo", "Li Bo"),               # ... or as the method's last words
    ("gnn-x-mal-r-lory", "Mal Lory"),
    ("gnn-z (Mal Lory)", "Mal Lory"),       # refused before too
])
def test_a_method_naming_another_entrys_author_loosely_is_refused(tmp_path, method, named):
    """Each was accepted by ``check`` beside Mal Lory's, Alice Author's and Li Bo's records, with no
    note under the board, while ``gnn-z (Mal Lory)`` was refused. Refused, and noted."""
    assert f"method {method!r} names {named!r}, an author of" in _owner(tmp_path, method, "Eve Evil")
    recorded = {"Mal Lory": "gnn-a", "Alice Author": "gnn-x", "Li Bo": "bo-net"}[named]
    notes = names.lookalike_notes([(method, "Eve Evil"), (recorded, named)])
    assert any(f"names {named!r}" in n for n in notes), notes


def test_honest_methods_do_not_name_a_person(tmp_path, monkeypatch):
    """Controls: honest methods by another team pass, a team may name itself (its own surname in
    parentheses too), Alice's recorded ``gnn-x`` stays hers, and with the new guards off the
    loose forms pass as they did."""
    for method in ("gnn-y", "mlp-plus", "gnn-q (quick)", "lory-free-net", "li-bo-net", "gnn-q (ETH)"):
        assert _owner(tmp_path, method, "Eve Evil") == "", method
    assert _owner(tmp_path, "gnn-b (M. Lory)", "Mal Lory") == ""
    assert _owner(tmp_path, "gnn-b (Lory)", "Ann Lory") == ""
    assert _owner(tmp_path, "gnn-x", "Alice Author") == ""
    assert names.named_person("gnn-x (Lan Chen)", "Eve Evil", "Ian Chen") is None  # L is no I
    monkeypatch.setattr(names, "_written_people", lambda method: ())
    monkeypatch.setattr(names, "_surname_named", lambda *args: False)
    for method in ("gnn-x (M. Lory)", "gnn-x (Lory)"):
        assert names.named_person(method, "Eve Evil", "Mal Lory") is None, method


# -- F4: the board's words and the project's name --------------------------------------------------

@pytest.mark.parametrize("method, word", [
    ("gnn-v (verified, hidden test set)", "'verified'"), ("gnn-x (hidden set)", "'hidden'"),
    ("gnn-x (reproduced)", "'reproduced'"), ("gnn-x (self-reported)", "'self-reported'"),
    ("gnn-x (reference)", "'reference'"), ("gnn-x (official reference)", "'official'"),
    ("gnn-x (keeper)", "'keeper'"), ("gnn-x (rank 1)", "'rank 1'"), ("gnn-x rank1", "'rank 1'"),
])
def test_a_method_holding_a_boards_word_is_refused(method, word):
    """``gnn-v (verified, hidden test set)`` was shown on the official board beside its tier
    column saying "reproduced". Refused by the charset check, on submission and on read."""
    from perfgraphs.leaderboard.records.trust import reserved_record_problem

    problems = names.check_charset("method", method)
    assert len(problems) == 1 and f"has {word}, which reads as the board's own word" in problems[0], problems
    assert "reads as the board's own word" in reserved_record_problem(method, "Eve Evil", "a" * 40)


@pytest.mark.parametrize("method", ["gnn-x (perfgraphs)", "perfgraphs-gnn", "gnn-x (perfgraph)", "gnn-x perf graphs",
                                    "gnn-x (maintainers)"])
def test_a_method_naming_the_project_is_refused(method):
    assert names.credit_in_method(method) == [f"method {method!r} names the project or its people: name the method alone"]


@pytest.mark.parametrize("authors", ["perfgraphs official", "perfgraphs", "perfgraphs maintainers", "perfgraphs organisers",
                                     "perfgraphs leaderboard", "perfgraphs keeper", "official reference",
                                     "benchmark maintainers", "leaderboard organizers", "hidden-set keeper", "Keeper",
                                     "the keepers", "Ann Lee, leaderboard keeper",
                                     "perf graphs team", "pefrgraphs lab", "Mal Lory, perfgraph"])
def test_authors_reading_as_the_project_are_refused(tmp_path, authors):
    """Accepted, and ``perfgraphs official`` shown on the official board. Refused at submission
    (``check_reserved``) and when read (``reserved_record_problem``)."""
    from perfgraphs.leaderboard.records.check import check_reserved
    from perfgraphs.leaderboard.records.trust import reserved_record_problem

    assert f"authors {authors!r} read as the reference authors" in " ".join(
        check_reserved("gnn-x", authors, tmp_path, tmp_path / "results"))
    assert f"authors {authors!r} imitate the reference authors" in reserved_record_problem("gnn-x", authors, "a" * 40)


def test_honest_methods_and_authors_and_the_committed_records_pass(tmp_path):
    """Controls: honest methods (a word that only contains a board's word, ``ranker-1``) and
    authors pass; every committed record, the reference authors' included, is still read."""
    from perfgraphs.leaderboard.records.check import check_reserved
    from perfgraphs.leaderboard.records.trust import reference_spellings

    for method in ("gnn-x", "mlp-plus", "transformer-gnn", "ranker-1", "gnn-rank", "hiddenlayer-net", "gnn-x (quick)",
                   "refnet", "gnn+lm (v2)"):
        assert names.check_charset("method", method) == [], method
    for authors in ("Alice Author", "Mal Lory", "Perfect Graphs Lab", "Graph Maintenance Group", "Meilin Chen (ETH Zurich)",
                    "Lloyd Trefethen", "Example Author", "Ann Keeper", "Keeper Jones"):
        assert not check_reserved("my-net", authors, tmp_path, tmp_path / "results"), authors
    assert names.is_reference_authors(REFERENCE_AUTHORS) and not names.lookalike_authors(REFERENCE_AUTHORS)
    reserved = set(reference_spellings())
    lines = [json.loads(line) for path in sorted((REPO / "leaderboard" / "results").glob("*.jsonl"))
             for line in path.read_text().splitlines() if line.strip()]
    assert lines
    for r in lines:
        assert names.check_charset("method", r["method"]) == [] == names.check_charset("authors", r["authors"]), r["method"]
        assert names.reserved_taken(r["method"], r["authors"], reserved) is None, r["method"]


# -- F6: placeholder author lists ------------------------------------------------------------------

@pytest.mark.parametrize("authors", ["Anonymous Authors", "Anonymous Author", "Anonymous 1", "Anon. Team", "Authors withheld",
                                     "Blind Submission", "Redacted", "N.N.", "Anonymous et al.", "Anonymous, Team 2"])
def test_placeholder_author_lists_are_refused(tmp_path, authors):
    """Each passed: two teams writing ``Anonymous Authors`` were one team, and one replaced the
    other's record."""
    assert names.names_nobody(authors)
    assert f"authors {authors!r} name nobody in particular" in _owner(tmp_path, "gnn-q", authors)


def test_author_lists_naming_someone_pass(tmp_path):
    """Controls: a person beside a placeholder, names made of real words, and the old rule (whole
    strings only) lets the placeholders through."""
    for authors in ("Mal Lory, Anonymous", "Team Rocket", "Na Li", "J. Smith", "Li Bo", "Bob Builder et al."):
        assert not names.names_nobody(authors), authors
    assert _owner(tmp_path, "gnn-q", "Team Rocket") == ""
    old = lambda authors: not (names.team(authors) - names.PLACEHOLDER_AUTHORS)  # noqa: E731
    assert not old("Anonymous Authors") and not old("Blind Submission") and old("Anonymous")


# -- F7: a reference name with one typo and a suffix -------------------------------------------------

@pytest.mark.parametrize("method, reference", [
    ("statlc-xgboost (tuned)", "static-xgboost"), ("static-xgbost-tuned", "static-xgboost"),
    ("nnlqp-gcn (ours)", "nnlqp-gnn"), ("trappn-ish", "trappm"), ("statlc-xgboostv2", "static-xgboost"),
    ("static-xgbooost-x", "static-xgboost"),
])
def test_a_reference_name_with_a_typo_and_a_suffix_is_taken(tmp_path, method, reference):
    """The typo alone (``statlc-xgboost``) and the suffix alone (``static-xgboost (tuned)``) were
    each refused; together they passed. Refused at submission and when read."""
    from perfgraphs.leaderboard.records.check import check_reserved
    from perfgraphs.leaderboard.records.trust import reserved_record_problem

    assert f"takes the reference baseline name {reference!r}" in " ".join(
        check_reserved(method, "Eve Evil", tmp_path, tmp_path / "results"))
    assert f"takes the reference baseline name {reference!r}" in reserved_record_problem(method, "Eve Evil", "a" * 40)


def test_names_beside_the_references_still_pass(tmp_path, monkeypatch):
    """Controls: honest names beside the references pass (a reference name followed by letters is
    another name, zero edits being no typo), and without the stems the attack passes as it did."""
    from perfgraphs.leaderboard.records.trust import reference_spellings

    reserved = set(reference_spellings())
    for method in ("clip-mlp", "CLIP-PM-sage", "static-xgboosted", "my-xgboost", "xgboost-static-variant", "static-gbm",
                   "roofline-gat", "layerwise-gnn", "dippm-gat", "trap-net", "gnn-x", "mlp-plus", "serving-gnn"):
        assert names.taken_name(method, reserved) is None, method
    monkeypatch.setattr(names, "_stems", lambda name, reserved: set())
    assert names.taken_name("statlc-xgboost (tuned)", reserved) is None
