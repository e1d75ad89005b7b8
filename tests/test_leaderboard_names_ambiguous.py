"""Author lists whose commas read two ways are refused (issue 32, item 3; the lead the hundred-and-twenty-fifth
pass left). A comma parts people (``Mal Lory, Bob Builder``) and also a "Last, First" name (``Lory, Mal``,
``Zhang, W.``). ``Bob, Lory, Mal`` is Bob and Mal Lory, or three people; ``Zhang, Wei, Li Chen`` is Wei Zhang
and Li Chen, or Zhang, Wei and Li Chen: the same shape. Side d of that pass read the second way (so
``Zhang, Wei, Li Chen`` is no ``Wei Li``), and so ``Bob, Lory, Mal`` was no longer Mal Lory's team: ``check``
passed it beside his record and his second entry under it ranked 1 beside his first, a rival pushed from 2
to 3 (123c's dippm h200 latency board). Whichever way a rule reads such a list, the other reading gets a
second ranked entry or takes a rival's off the board; so ``check``, ``submit`` and the readers of records
refuse it in one line (``names.ambiguous_authors``): write people apart with ``&`` (``;`` is outside the
character set). A YAML list of people is joined with ``&`` where a comma would read two ways
(``submission._listed_authors``).

The readings below are by hand, as a person reads the list; the control switches the refusal off and the
second entry ranks again.
"""

from __future__ import annotations

import json

import pytest

from perfgraphs.leaderboard.records import names
from perfgraphs.leaderboard.records.results import forget_checked, read_entries, results_path
from perfgraphs.leaderboard.submission import load_submission
from test_leaderboard_names import _check, _predictions, _yaml_folder
from test_leaderboard_review_125e import _board
from test_leaderboard_trust import env, good_record, parts  # noqa: F401 — the same fixtures

# (authors, whether a person reads them two ways)
READINGS = [
    ("Bob, Lory, Mal", True),                # Bob and Mal Lory, or Bob, Lory and Mal
    ("MIT, Lory, Mal", True),                # an affiliation as a piece: the same
    ("Zhang, Wei, Li Chen", True),           # Wei Zhang and Li Chen, or Zhang, Wei and Li Chen
    ("Mal Lory, Zhang, Wei", True),          # Wei Zhang, or Zhang and Wei
    ("DeepMind, Bob Builder", True),         # Bob Builder of DeepMind, or a "Bob Builder DeepMind"
    ("Lory, Mal J., Bob Builder", True),     # Mal J. Lory and Bob Builder, or Lory and two people
    ("Mallory, Google Research", True),
    ("Mal Lory", False),
    ("Lory, Mal", False),                    # "Last, First": Mal Lory
    ("Lory, Mal A.", False),
    ("Dr. Lory, Mal", False),
    ("Lory-Smith, Mal", False),              # a hyphenated surname is one word
    ("O'Brien, Mal", False),
    ("Lory, Mal-Ann", False),
    ("Zhang, W., Chen, L.", False),          # a "Last, F." citation list
    ("Smith, J. R., Doe, J.", False),
    ("Zhang, Wei, Chen, Li", False),         # "Last, First" pair after pair
    ("Smith, Bob, O'Brien, Mal", False),
    ("Lory, Mal, et al.", False),
    ("Mal Lory, Bob Builder", False),        # "First Last" throughout
    ("Mal Lory, Bob", False),                # a lone word last: nothing after it to be its first name
    ("Chen Lab, Wei Zhang", False),          # a group's name is no surname
    ("Bob & Lory, Mal", False),               # people apart with '&'
    ("Lory, Mal J. & Bob Builder", False),
    ("Zhang, Wei & Li Chen", False),
    ("Bob Builder (DeepMind)", False),
    ("Mal Lory & Bob, Ann", False),          # '&' parts people: Bob, Ann is Ann Bob
    ("Lory, Mal et al.", False),             # Mal Lory and others (126g's lead: refused before)
    ("Lory, M. et al.", False),
    ("Lory, Mal, Jr.", False),               # Mal Lory Jr.
    ("Lory, Mal, Jr., Bob Builder", True),   # as 'Lory, Mal, Bob Builder': write 'Lory, Mal, Jr. & Bob Builder'
    ("Cher, Bob Builder", True),             # Cher and Bob Builder, or a "Bob Builder Cher": write 'Cher & Bob Builder'
]


@pytest.mark.parametrize("authors, two_ways", READINGS)
def test_a_list_is_refused_exactly_when_it_reads_two_ways(authors, two_ways):
    lines = names.ambiguous_authors(authors)
    assert bool(lines) == two_ways, (authors, lines)
    assert bool(names.check_charset("authors", authors)) == two_ways, authors
    if two_ways:
        assert len(lines) == 1 and "write people apart with '&'" in lines[0], lines


def test_check_refuses_his_second_entry_under_an_ambiguous_list(env, parts, capsys):  # noqa: F811
    """``Bob, Lory, Mal``: not Mal Lory's team as read since side d (so ranked beside his entry); now
    refused by ``check`` in one line, while ``Bob & Lory, Mal`` (his team, written one way) passes."""
    assert not names.share_a_person("Mal Lory", "Bob, Lory, Mal")
    rc, err = _check(_predictions(env["tmp"] / "ambiguous", parts, "gnn-y", "Bob, Lory, Mal"), env, capsys)
    assert rc == 1 and len(err) == 1 and "write people apart with '&'" in err[0], err
    rc, err = _check(_predictions(env["tmp"] / "one-way", parts, "gnn-y", "Bob & Lory, Mal"), env, capsys)
    assert rc == 0 and not [line for line in err if "warning" not in line], err
    assert names.share_a_person("Mal Lory", "Bob & Lory, Mal")
    assert _board("Mal Lory", "Bob & Lory, Mal") == {"gnn-x": "1", "rival-net": "2", "gnn-y": "–"}


def test_control_without_the_refusal_his_second_entry_ranks(env, parts, capsys, monkeypatch):  # noqa: F811
    monkeypatch.setattr(names, "ambiguous_authors", lambda authors: [])
    forget_checked()
    try:
        rc, err = _check(_predictions(env["tmp"] / "ambiguous", parts, "gnn-y", "Bob, Lory, Mal"), env, capsys)
        assert rc == 0, err
        assert _board("Mal Lory", "Bob, Lory, Mal") == {"gnn-x": "1", "gnn-y": "1", "rival-net": "3"}
    finally:
        monkeypatch.undo()
        forget_checked()


def test_a_hand_written_record_with_an_ambiguous_list_is_not_read(tmp_path, capsys):
    results = tmp_path / "results"
    path = results_path("dippm", results)
    path.parent.mkdir(parents=True)
    path.write_text(json.dumps(good_record("gnn-y", authors="Bob, Lory, Mal", run_identity="amb")) + "\n"
                    + json.dumps(good_record("gnn-z", authors="Bob & Lory, Mal", run_identity="one")) + "\n")
    skipped: list[str] = []
    assert [e.method for e in read_entries("dippm", results, skipped)] == ["gnn-z"]
    assert len(skipped) == 1 and "write people apart with '&'" in skipped[0], skipped


@pytest.mark.parametrize("listed, recorded", [
    (["Jane Doe", "John O'Neil"], "Jane Doe, John O'Neil"),     # read one way with commas: kept as people write it
    (["Bob", "Mal Lory"], "Bob & Mal Lory"),                     # "Bob, Mal Lory" would read as a "Mal Lory Bob"
    (["Lory, Mal", "Bob Builder"], "Lory, Mal & Bob Builder"),
    (["Zhang, Wei", "Li Chen"], "Zhang, Wei & Li Chen"),
])
def test_a_yaml_list_of_people_is_joined_one_way(tmp_path, listed, recorded):
    meta = load_submission(_yaml_folder(tmp_path, "my-method", listed)).meta
    assert meta.authors == recorded and not names.ambiguous_authors(meta.authors)


def test_a_name_over_its_length_is_refused_for_that_alone():
    """A hand-written record's 900,000 characters of ``a, a, …`` were read every way a name is (commas,
    pairs, look-alikes) before its length refused it: ``leaderboard show`` took 138 s to skip one line
    (this VM, 2026-12-08; 0.2 s now). The length line is the one problem of an over-long name."""
    for text in ("a, " * 300_000 + "b", "(" * 900_000, "Mal Lory, " * 21):
        assert names.check_charset("authors", text) == [
            f"authors is {len(text)} characters long: shorten it to at most {names.AUTHORS_MAX_CHARS}"]
    assert len(names.check_charset("authors", "Bob, Lory, Mal ")) == 2  # within the limit: every problem


# -- the other leads of the hundred-and-twenty-fifth pass on names --------------------------------------
# (1) a look-alike written "Last, First": ``Lo-ry, Mal`` is Mal Lory's team (the hyphen set aside) and reads
# like him, yet ``check`` compared people as ``people`` splits them (``Lo-ry`` and ``Mal``) and passed it
# beside his record; now a "Last, First" list's people are compared as "First Last" too
# (``names._last_first_people``), and refused as any look-alike is.

def test_check_refuses_a_lookalike_written_last_first(tmp_path):
    from perfgraphs.leaderboard.records.check import check_name_owner
    from test_leaderboard_names_20261202 import _board as _names_board
    from test_leaderboard_review_20261202 import _records_repo

    _, add = _records_repo(tmp_path)
    add({"method": "gnn-x", "authors": "Mal Lory", "run_identity": "lory-1"})
    refused = " ".join(check_name_owner(tmp_path / "results", _names_board(), "gnn-y", "Lo-ry, Mal"))
    assert "author 'Mal Lo-ry' reads like 'Mal Lory'" in refused, refused
    for honest in ("Lory, Mal", "Mal Lory", "Lory, Mal & Bob Builder", "Lory, M.", "Ann Lory"):
        assert check_name_owner(tmp_path / "results", _names_board(), "gnn-y", honest) == [], honest


def test_control_compared_as_split_the_lookalike_passes(tmp_path, monkeypatch):
    from perfgraphs.leaderboard.records.check import check_name_owner
    from test_leaderboard_names_20261202 import _board as _names_board
    from test_leaderboard_review_20261202 import _records_repo

    monkeypatch.setattr(names, "_last_first_people", lambda authors: ())
    _, add = _records_repo(tmp_path)
    add({"method": "gnn-x", "authors": "Mal Lory", "run_identity": "lory-1"})
    assert check_name_owner(tmp_path / "results", _names_board(), "gnn-y", "Lo-ry, Mal") == []


# (2) the words that join or qualify names were compared before the confusable folding their pairs go
# through (``team`` is read ``tearn``, ``ms`` ``rns``: TR39's ``m``), so never dropped: ``Ms Lory`` and
# ``Mrs Lory`` held a name of which ``R. Lory`` is an initial, and ``Team Lory`` was a person with the first
# name ``Team``: other people, one team, the better entry taking the other's off the board.
APART = [("Ms Lory", "R. Lory"), ("Mrs Lory", "R. Lory"), ("Team Lory", "T. Lory")]


def test_a_title_or_team_is_no_first_name():
    for a, b in APART:
        assert not names.share_a_person(a, b) and not names.share_a_person(b, a), (a, b)
        assert _board(b, a) == {"gnn-x": "1", "gnn-y": "1", "rival-net": "3"}, (a, b)
    for a, b in [("Team Mal Lory", "Mal Lory"), ("Mal Lory Team", "Mal Lory"), ("Ms Ann Lory", "Ann Lory")]:
        assert names.share_a_person(a, b) and names.share_a_person(b, a), (a, b)


def test_control_unfolded_words_make_them_one_team(monkeypatch):
    monkeypatch.setattr(names, "_NOT_NAME_KEYS", names._NOT_NAME_WORDS)
    assert names.share_a_person("Ms Lory", "R. Lory") and names.share_a_person("Mrs Lory", "R. Lory")
    assert _board("R. Lory", "Ms Lory") == {"gnn-x": "1", "rival-net": "2", "gnn-y": "–"}
