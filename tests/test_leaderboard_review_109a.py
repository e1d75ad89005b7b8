"""Hundred-and-ninth pass, side a (names as people read them): a typo with a version run into it.

A method takes a reference name when a number is run into it (``static-xgboost2``,
``static-xgboostv2``), and when it is one letter off it, with a suffix as without
(``static-xgbost-v2``, ``statlc-xgboostv2``). The two together escaped: ``names._stems`` compared
the name's first as many letters as the reference has, one too many or too few once a letter was
dropped or doubled, so ``static-xgbost2``, ``dipm-sage2``, ``ll-xgboost2`` and ``dippm-ssagev2``
took no reference name. ``check_reserved`` passed them, and a hand-written ``dipm-sage2`` by Mal
Lory in the dippm results was read and printed by ``leaderboard show`` beside the reference
``dippm-sage`` with no note. Of the 720 such spellings of the 15 reference names (one letter
dropped or doubled, then ``2`` or ``v2``), 660 were free, 16 to 64 for each name; none is now.

Now ``names._run_in_stems`` sets a run-in version aside (on the whole name and on what precedes
each separator) before the one-letter comparison.
"""
from perfgraphs.leaderboard.records import names

from test_leaderboard_review_103c import refused_as_reference, shown_unnoted

_TAKEN = ["dipm-sage2", "static-xgbost2", "static-xgbostv2", "ll-xgboost2", "dippm-ssagev2",
          "static-xgbost2 (quick)", "layerwise-liner3"]
_FREE = ["static-xgboosted2", "my-xgboost2", "xgboost-static-variant2", "gnn-x v2", "resnet50"]


def test_one_letter_off_with_a_run_in_version_takes_the_reference_name(tmp_path, capsys, monkeypatch):
    """``dipm-sage2`` by Mal Lory, hand-written into the dippm results, is not read (it takes
    ``dippm-sage``), and ``check_reserved`` refuses the other spellings; honest names stay free.
    Control: with the run-in version not set aside, each passes and ``show`` prints the record, unnoted."""
    results = refused_as_reference(tmp_path, "dipm-sage2", _TAKEN, _FREE)

    monkeypatch.setattr(names, "_run_in_stems", lambda name: set())
    shown_unnoted(results, "dipm-sage2", _TAKEN, capsys, monkeypatch)
