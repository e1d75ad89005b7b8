"""Hundred-and-sixteenth adversarial pass (2026-12-07), side c (what a hidden board says of its round's size).
``hidden.hidden_round_text`` read a round's ``architectures`` and ``left_out`` from the definition as it is,
though the round's noise floor and drift are read from the first main-line version that stated them (69th
pass). A round that lost 20 of its 25 drawn architectures before measuring (named in public files) printed
"The round holds 5 of the 25 architectures its draw took"; one later commit moving the 20 names of
``left_out`` into ``architectures`` (no label, commitment or record touched) made its board print "The round
holds all 25 architectures its draw took." Now the counts are the first main-line version's that stated them
for the set (``hidden._first_stated_draw``), the file as it is only where no committed version did."""

from __future__ import annotations

from test_hidden_round_size import CONFIG, DATASET, _round


def test_a_later_edit_of_left_out_does_not_make_a_shrunk_round_whole(git_commitments, monkeypatch):
    """Attack: the keeper commits a round of 5 of 25; a later commit states 25 held and none left out. The
    board still says 5 of 25. Control: with the committed versions not read, it says all 25."""
    from perfgraphs.leaderboard.records import hidden

    folder, commit = git_commitments
    sha = "ab" * 32
    _round(folder, sha, held=5, left=20)
    commit("the round's definition, as finish writes it: 5 of the 25 drawn architectures measured")
    shrunk = ("The round holds 5 of the 25 architectures its draw took: 20 left out before measuring, named "
              "in public files.")
    assert hidden.hidden_round_text(DATASET, CONFIG, sha) == shrunk

    _round(folder, sha, held=25, left=0)
    commit("tidy the definition")
    assert hidden.hidden_round_text(DATASET, CONFIG, sha) == shrunk
    # an edit not committed, or a second one, changes nothing either: the first statement stands
    _round(folder, sha, held=24, left=1)
    assert hidden.hidden_round_text(DATASET, CONFIG, sha) == shrunk

    monkeypatch.setattr(hidden, "_first_stated_draw", lambda *args: None)  # control: the file as it is
    assert hidden.hidden_round_text(DATASET, CONFIG, sha) == (
        "The round holds 24 of the 25 architectures its draw took: 1 left out before measuring, named in public "
        "files.")
    _round(folder, sha, held=25, left=0)
    assert hidden.hidden_round_text(DATASET, CONFIG, sha) == "The round holds all 25 architectures its draw took."
