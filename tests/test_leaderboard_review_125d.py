"""Hundred-and-twenty-fifth adversarial pass (2026-12-07), side d (names and teams on the submit side): a
board ranks one entry per person (``ranks.team_best``: an entry leaves the ranks for an entry of lower mean
that shares a person with it, ``names.share_a_person``), and a "Last, First" list's names are read across
its commas (``names._surname_first_pairs``: a one-word piece, the surname, with the first word of the piece
after it). Every one-word piece was a surname: one left once ``lab``, ``group``, ``the`` were dropped, an
initial, and a first name just read as the surname before it's. So the citation lists ``Zhang, W., Chen, L.``
and ``Zhang, Wei, Chen, Li`` (Wei Zhang and Li Chen) held the pair ``Wei Chen`` across ``Wei, Chen``, ``Zhang,
Wei, Li Chen`` a ``Wei Li``, and ``Chen Lab, Wei Zhang`` (Wei Zhang of the Chen lab) a ``Wei Chen``: none
names him, ``check`` passes each beside his record (nobody's look-alike, no method naming him), and a
reviewer reads two other people. On the dippm cpu latency board, beside Wei Chen's ``wei-net``
(layerwise-boost's predictions x 1.002, 10.75 %, rank 2) and Mal Lory's ``mal-net`` (16.11 %, rank 6), an
entry ``zw-net`` (roofline-boost's x 1.001, 8.46 %, rank 1) by either list took ``wei-net`` off the ranks
(listed ``–`` as the attacker's team's second entry, where it ranks 3 beside it) and left ``mal-net`` at 6
(7 beside both) through `leaderboard show`: a suppressed name, every entry below it a rank up.

Now a piece is a surname only when written as one, one name word of two or more letters alone but for
titles (``names._written_as_surname``), and not when it is the first name of the surname before it, read
left to right (``names._surname_pieces``); ``Lory, Mal A.``, ``Lory, M.``, ``Dr. Lory, Mal``, ``Zhang, Wei,
Lory, Mal A.`` and ``Builder, Bob R.`` stay their people's teams. The control lets every piece be a surname
again and ``wei-net`` leaves the ranks again. Open: a list led by a one-name person, ``Ann, Lory, Mal``,
reads as Ann Lory and Mal now, no longer Mal Lory's.

2. A middle initial was a name with the surname after it: ``Bob J. Smith`` held the pair ``J. Smith`` of
``Ann J. Smith`` (and ``Li A. Chen`` that of ``Wei A. Chen``), two people of one surname one team: the same
board with the rival ``Ann J. Smith`` and the entry by ``Bob J. Smith``, and hers left the ranks as above.
Now an initial pairs with the word after it only where it begins the piece (``names._named_pairs_in``).

3. A number run into a name hid the person: ``Mal Lory 2`` was Mal Lory's team, but ``Mal Lory-2``, ``Mal
Lory2``, ``Mal2 Lory`` and ``Lory2, Mal`` were no one's (name word ``lory2``, no look-alike), ``check`` passed
each beside his record, and his second entry under one was ranked: on 123c's dippm h200 latency board
``gnn-y`` by ``Mal Lory-2`` ranked 1 beside his ``gnn-x`` and pushed ``rival-net`` from 2 to 3. Now such a
number is set aside in the names two lists share (``names._run_in_numbers_dropped``); ``Team42`` and
``Team43``, ``Ann2 Lee`` and ``Bob2 Lee`` stay two."""

from __future__ import annotations

import pytest

from perfgraphs.leaderboard.records import names
from test_leaderboard_names_20261202 import _board
from test_leaderboard_review_20261202 import _current_board, _records_repo
from test_leaderboard_review_69c import _renamed, _shown_ranks
from test_leaderboard_review_123c import _board as _mal_board
from test_leaderboard_names_20261202 import _owner

ATTACKERS = ["Zhang, W., Chen, L.", "Zhang, Wei, Chen, Li", "Chen Lab, Wei Zhang"]


def _records(attacker: str | None, rival: str = "Wei Chen") -> list[dict]:
    """The dippm cpu latency board's references, ``rival``'s and Mal Lory's entries, and ``attacker``'s."""
    references = _current_board("cpu-torch-fp32", "latency_ms")
    by = {r["method"]: r for r in references}
    records = [*references, _renamed(by["layerwise-boost"], "wei-net", rival, 2),
               _renamed(by["roofline-fit"], "mal-net", "Mal Lory", 3)]
    return records + ([_renamed(by["roofline-boost"], "zw-net", attacker, 1)] if attacker else [])


def test_the_lists_pass_check_beside_wei_chen(tmp_path):
    from perfgraphs.leaderboard.records.check import check_name_owner

    _, add = _records_repo(tmp_path)
    add({"method": "wei-net", "authors": "Wei Chen", "run_identity": "wei-1"})
    for attacker in ATTACKERS:
        assert check_name_owner(tmp_path / "results", _board(), "zw-net", attacker) == [], attacker


@pytest.mark.parametrize("attacker", ATTACKERS)
def test_another_pair_of_people_takes_no_rivals_entry_off_the_board(attacker, tmp_path, capsys, monkeypatch):
    assert not names.share_a_person("Wei Chen", attacker) and not names.share_a_person(attacker, "Wei Chen")
    before = _shown_ranks(tmp_path / "before", _records(None), capsys, monkeypatch)
    assert (before["wei-net"], before["mal-net"]) == ("2", "6"), before
    after = _shown_ranks(tmp_path / "after", _records(attacker), capsys, monkeypatch)
    # one more entry ranked above them: each a rank down, none off the board
    assert (after["zw-net"], after["wei-net"], after["mal-net"]) == ("1", "3", "7"), after


def test_one_person_written_last_first_is_still_one_team():
    for a, b in [("Mal Lory", "Lory, Mal A."), ("Mal Lory", "Lory, Mal"), ("Mal Lory", "Lory, M."),
                 ("Mal Lory", "Dr. Lory, Mal"), ("Mal Lory", "Lory, Mal J., Bob Builder"),
                 ("Alice Author, Bob Builder", "Builder, Bob R."), ("Wei Chen", "Chen, W."),
                 ("Wei Chen", "Zhang, W., Chen, Wei")]:
        assert names.share_a_person(a, b) and names.share_a_person(b, a), (a, b)
    assert names.share_a_person("Mal Lory", "Zhang, Wei, Lory, Mal A.")
    for a, b in [("Wei Chen", "Li Chen, Wei Zhang"), ("Mal Lory", "Lory-Smith, Mal"), ("Wei Li", "Zhang, Wei, Li Chen")]:
        assert not names.share_a_person(a, b), (a, b)


def test_control_every_piece_a_surname_again(tmp_path, capsys, monkeypatch):
    monkeypatch.setattr(names, "_surname_pieces", lambda pieces, *commas: [True] * len(pieces))
    for attacker in ATTACKERS:
        assert names.share_a_person("Wei Chen", attacker), attacker
    assert names.share_a_person("Wei Li", "Zhang, Wei, Li Chen")
    after = _shown_ranks(tmp_path / "after", _records(ATTACKERS[0]), capsys, monkeypatch)
    assert (after["zw-net"], after["wei-net"], after["mal-net"]) == ("1", "–", "6"), after


def test_a_middle_initial_makes_no_namesakes_one_team(tmp_path, capsys, monkeypatch):
    assert not names.share_a_person("Ann J. Smith", "Bob J. Smith")
    assert not names.share_a_person("Wei A. Chen", "Li A. Chen")
    assert names.share_a_person("Ann J. Smith", "A. J. Smith") and names.share_a_person("Mal Lory", "Mal A. Lory")
    after = _shown_ranks(tmp_path, _records("Bob J. Smith", rival="Ann J. Smith"), capsys, monkeypatch)
    assert (after["zw-net"], after["wei-net"], after["mal-net"]) == ("1", "3", "7"), after


def test_control_a_middle_initial_a_name_again(tmp_path, capsys, monkeypatch):
    monkeypatch.setattr(names, "_named_pairs_in", lambda words: set(zip(words, words[1:])))
    assert names.share_a_person("Ann J. Smith", "Bob J. Smith")
    after = _shown_ranks(tmp_path, _records("Bob J. Smith", rival="Ann J. Smith"), capsys, monkeypatch)
    assert (after["zw-net"], after["wei-net"], after["mal-net"]) == ("1", "–", "6"), after


RUN_IN = ["Mal Lory-2", "Mal Lory2", "Mal2 Lory", "Lory2, Mal"]


def test_a_number_run_into_his_name_is_still_his_team(tmp_path):
    for authors in RUN_IN:
        assert _owner(tmp_path, "gnn-y", authors) == "", authors  # check passes each beside his record
        assert names.share_a_person("Mal Lory", authors) and names.share_a_person(authors, "Mal Lory"), authors
    for a, b in (("Team42", "Team43"), ("Ann2 Lee", "Bob2 Lee"), ("Ann42 Lee", "Bob42 Lee")):
        assert not names.share_a_person(a, b), (a, b)
    assert _mal_board("Mal Lory-2") == {"gnn-x": "1", "rival-net": "2", "gnn-y": "–"}


def test_control_a_number_kept_in_the_name(monkeypatch):
    monkeypatch.setattr(names, "_run_in_numbers_dropped", lambda authors: authors)
    for authors in RUN_IN:
        assert not names.share_a_person("Mal Lory", authors), authors
    assert _mal_board("Mal Lory-2") == {"gnn-x": "1", "gnn-y": "1", "rival-net": "3"}
