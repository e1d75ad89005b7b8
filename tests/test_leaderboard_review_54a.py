"""Fifty-fourth adversarial pass (2026-12-05), read side: the history of the commitments folder
(``hidden._history``, the ``git log -p`` every hidden-set record and key is checked against) read a
file's own lines as diff headers, and read whatever diff a committed ``.gitattributes`` asked for."""

from __future__ import annotations

import dataclasses
import subprocess

import pytest

from test_leaderboard_review_48a import CONFIG, DATASET, SET, _entry, _keyed_set

MADE_UP = "ee" * 32  # a set nobody measured: the contributor's own hash


def _signed_record(signer, entry) -> dict:
    """The record as stored, with ``signer``'s signature over its digest and tier."""
    from perfgraphs.leaderboard.records.digest import record_sha256
    from perfgraphs.leaderboard.records.keeper_key import record_message, sign

    entry = dataclasses.replace(entry, date_utc="2099-01-01T00:00:00+00:00")  # scored after the test's commits
    return {**dataclasses.asdict(entry), "keeper_signature": sign(signer, record_message(record_sha256(entry), "verified"))}


def _trust(record: dict) -> str | None:
    from perfgraphs.leaderboard.records.trust import trust_problem

    return trust_problem(record)


def _log(folder, *args: str) -> str:
    return subprocess.run(["git", "-C", str(folder), "log", "-p", *args, "--", "."], capture_output=True,
                          text=True, check=True).stdout


@pytest.mark.parametrize("joined, plus", [("\n", ""), ("\r", "+")], ids=["own-lines", "lone-carriage-returns"])
def test_a_key_files_own_lines_commit_no_hidden_set(git_commitments, tmp_path, joined, plus):
    """Attack: one new file in a pull request, a contributor's public key named as a set's key
    (``dippm-cpu-torch-fp32-eeeeeeeeeeeeeeee.pub``), with two lines after its PEM block:
    ``++ b/dippm-cpu-torch-fp32.sha256`` and a made-up 64-hex hash. The commitments' history is read
    from ``git log -p``, where those lines show as ``+++ b/dippm-cpu-torch-fp32.sha256`` and
    ``+<hash>``, and the parser took the first for a file header: the made-up hash read as committed
    for the official ``dippm cpu-torch-fp32`` board, in the same commit as the key, so the key
    "was committed with the set's commitment", and the contributor's own signed record of 12 % MAPE
    read as *verified* (a board of its own, ranked by a ranks file the same key signs). Joined by lone
    carriage returns (``+++ b/...`` and ``+<hash>``) the lines were one line to git but three to the
    reader, whose text turned each CR into a line break. The diff is now read by its hunks' counts, split at line feeds alone: a
    file's own lines are never headers. Control: the same key and hash committed as a set (the
    config's ``.sha256``) verify, and git's output does show the header-looking line."""
    from perfgraphs.leaderboard.records import hidden
    from perfgraphs.leaderboard.records.keeper_key import write_public_key

    folder, commit = git_commitments
    keeper, writer = tmp_path / "keeper", tmp_path / "writer"
    keeper.mkdir(), writer.mkdir()
    _keyed_set(folder, commit, keeper, SET)
    theirs = _signed_record(keeper, _entry("team-net", "Tea Team", 48.9, "ae2028e42030c933"))
    assert _trust(theirs) is None  # the keeper's own record of its set verifies

    key = write_public_key(writer, DATASET, CONFIG, MADE_UP, folder)
    key.write_bytes(key.read_bytes() + joined.join(["# the key of our team's round",
                                                    plus + "++ b/dippm-cpu-torch-fp32.sha256", plus + MADE_UP,
                                                    ""]).encode())
    commit("our team's key")
    assert "\n+++ b/dippm-cpu-torch-fp32.sha256" in _log(folder, "-1").replace("\r", "\n")  # the setup reaches git's output
    mine = _signed_record(writer, _entry("gnn-contender", "Cy Contender", 12.0, "c0c0c0c0c0c0c0c0", hidden_set=MADE_UP))

    assert MADE_UP not in hidden.committed_commitments()
    assert "matches no commitment ever committed" in _trust(mine)
    assert _trust(theirs) is None

    # control: the same key, record and hash, committed as the config's set, do verify
    (folder / "dippm-cpu-torch-fp32.sha256").write_text(f"{MADE_UP}  dippm-cpu-torch-fp32.parquet\n")
    commit("a set of the config")
    assert _trust(mine) is None


def test_a_committed_gitattributes_line_does_not_empty_the_commitments_history(git_commitments, tmp_path):
    """Attack: one line in a pull request's ``.gitattributes`` at the top of the repository,
    ``leaderboard/hidden/* binary`` (or ``-diff``), changes no checked-out byte (so the converted
    checkout check, ``history.converted_files``, passes it) but turns every diff of the folder into
    "Binary files ... differ": the commitments' history held no hash and no key, every keeper-signed
    record read as "matches no commitment ever committed", and every verified row (the live set's
    twelve, the first round's twelve) left every board. The history is now read with ``--text`` and
    no textconv. Control: git's own diff of the folder is binary under that line."""
    from perfgraphs.leaderboard.records.results import boards_checkout_problem

    folder, commit = git_commitments
    keeper = tmp_path / "keeper"
    keeper.mkdir()
    _keyed_set(folder, commit, keeper, SET)
    record = _signed_record(keeper, _entry("team-net", "Tea Team", 48.9, "ae2028e42030c933"))
    assert _trust(record) is None

    top = folder.parent.parent
    (top / ".gitattributes").write_text("leaderboard/hidden/* binary\n")
    commit("line ends of the data files")
    assert "Binary files /dev/null and b/leaderboard/hidden/dippm-cpu-torch-fp32.sha256 differ" in _log(folder)
    assert boards_checkout_problem(top) is None  # nothing converts the checkout: that check passes it

    assert _trust(record) is None
