"""Fiftieth adversarial pass (2026-12-05), read side: a folder the boards read the history of
(``leaderboard/hidden/``, ``leaderboard/reference/``) replaced by a committed link to a copy of it."""

from __future__ import annotations

import json
import shutil
from pathlib import Path


from perfgraphs.leaderboard.records import results



def _signed(keeper: Path, entry) -> dict:
    """What the readers check of a hidden-set record: its set, its tier and a keeper's signature."""
    from perfgraphs.leaderboard.records.digest import record_sha256
    from perfgraphs.leaderboard.records.keeper_key import record_message, sign

    return {"dataset": entry.dataset, "config": entry.config, "hidden_labels_sha256": entry.hidden_labels_sha256,
            "tier": "verified", "keeper_signature": sign(keeper, record_message(record_sha256(entry), "verified"))}


def _follow_links(monkeypatch) -> None:
    """The readers as before this pass: the commitments folder's history asked through its link."""
    from perfgraphs.leaderboard.records import hidden, history, keeper_key

    place = history.repository_place
    monkeypatch.setattr(history, "repository_place", lambda folder: place(Path(folder).resolve()))
    monkeypatch.setattr(hidden, "repository_place", history.repository_place)
    for cached in (keeper_key._first_committed_key, keeper_key._first_committed, hidden._history,
                   hidden._ever_compromised):
        cached.cache_clear()


def test_a_linked_commitments_folder_does_not_let_its_writer_sign_for_the_keeper(git_commitments, tmp_path, monkeypatch):
    """Attack: the readers of ``leaderboard/hidden/`` (the commitments' history, the first committed
    public key, the frozen records' list, the declarations, the ranks' versions) asked git from that
    folder, and git follows a link to it. A pull request replaces the folder with one committed link,
    ``hidden -> hidden-copy``, to a copy of it whose set key is a key of its writer's own (the
    commitment, the definition and the ranks files copied beside it). The copy's history is one
    commit that added the set's ``.sha256`` and that key together, so the key "was committed with the
    set's commitment" and was read as the set's first committed key: the writer's signed ranks file
    (``roofline-boost`` first, the keeper's rank-1 entry third) ruled the live set's board, a record
    the writer signed read as the keeper's, and the keeper's own records no longer verified. The
    history is now read at the path the repository holds (``history.repository_place``), where the
    link's commit deletes the organisers' files and adds nothing. Control: the readers that follow
    the link (the code before this pass) show the writer's ranks and take its signature."""
    from perfgraphs.leaderboard.records.keeper_key import record_signature_problem, write_public_key
    from perfgraphs.leaderboard.records.digest import record_sha256
    from perfgraphs.leaderboard.records.sealed_ranks import write_sealed
    from test_leaderboard_review_48a import _board as sealed_board
    from test_leaderboard_review_48a import CONFIG, DATASET, SET, _ranks, ranked_twice

    folder, commit = git_commitments
    keeper, writer = tmp_path / "keeper", tmp_path / "writer"
    _, _, (reference, other, contender) = ranked_twice(folder, commit, keeper)
    latest = {"gnn-contender": 1, "layerwise-boost": 2, "roofline-boost": 3}
    assert sealed_board([reference, other, contender]) == latest  # control: as the keeper committed it

    writer.mkdir()
    copy = folder.parent / "hidden-copy"
    shutil.copytree(folder, copy)
    write_public_key(writer, DATASET, CONFIG, SET, copy)
    write_sealed(_ranks(writer, [(other, 1), (reference, 2), (contender, 3)], "2026-12-07T00:00:00+00:00"), copy)
    shutil.rmtree(folder)
    folder.symlink_to("hidden-copy", target_is_directory=True)
    commit("leaderboard: the organisers' folder in one place")
    mine = {"roofline-boost": 1, "layerwise-boost": 2, "gnn-contender": 3}
    assert json.loads((folder / "ranks" / "dippm-cpu-torch-fp32--latency_ms.json").read_text())["entries"][0][
        "method"] == "roofline-boost"  # the setup: the board's path reads the writer's ranks

    assert sealed_board([reference, other, contender]) == latest
    assert record_signature_problem(_signed(keeper, reference), record_sha256(reference)) is None
    assert "not signed by the hidden set's keeper" in record_signature_problem(_signed(writer, other),
                                                                               record_sha256(other))

    _follow_links(monkeypatch)  # control: the readers before this pass
    assert sealed_board([reference, other, contender]) == mine
    assert record_signature_problem(_signed(writer, other), record_sha256(other)) is None
    assert record_signature_problem(_signed(keeper, reference), record_sha256(reference)) is not None


def test_a_linked_reference_folder_does_not_re_date_the_references(tmp_path, monkeypatch):
    """Attack: a record under a reference's name by other authors stands only if its line reached the
    main line before that reference's folder (thirty-sixth pass); ``history.folder_arrivals`` asked
    git from ``leaderboard/reference/``, following a link. Bob's ``gnn-y``, merged after the
    reference folder ``gnn`` and refused since, was one pull request away from the boards: one
    committed link, ``reference -> reference-copy``, to a copy of the folder, made every reference
    folder "arrive" with the link, after Bob's line, and his record was shown under the reference's
    name. The arrivals are now read at the path the repository holds. Control: the line is refused
    before the link, and a team's line that did come first still stands."""
    from test_leaderboard_review_36a import _git
    from test_leaderboard_review_40a import _public_record

    from perfgraphs.leaderboard.records import history, trust

    repo = tmp_path / "repo"
    (repo / "results").mkdir(parents=True)
    _git(repo, "init", "-q", "-b", "main")
    path = repo / "results" / "dippm.jsonl"
    line = {name: json.dumps(_public_record(method=method, authors=authors, run_identity=name, tier="reproduced"),
                             sort_keys=True) + "\n"
            for name, method, authors in [("alice", "gnn-x", "Alice Author"), ("bob", "gnn-y", "Bob Builder"),
                                          ("carol", "carol-net", "Carol Coder")]}

    def commit(text: str | None = None) -> None:
        if text is not None:
            path.write_text(text)
        _git(repo, "add", "-A")
        _git(repo, "commit", "-q", "--allow-empty", "-m", "change")

    commit(line["alice"] + line["carol"])
    (repo / "reference" / "gnn").mkdir(parents=True)
    (repo / "reference" / "gnn" / "README.md").write_text("a reference baseline\n")
    commit()
    commit(line["alice"] + line["carol"] + line["bob"])
    monkeypatch.setattr(trust, "REFERENCE_DIR", repo / "reference")

    def shown() -> list[str]:
        trust.reference_spellings.cache_clear()
        history._folder_arrivals.cache_clear()
        results.forget_checked()
        return [e.method for e in results.read_entries("dippm", repo / "results", [])]

    assert shown() == ["gnn-x", "carol-net"]  # control: Bob's line came after the folder
    shutil.copytree(repo / "reference", repo / "reference-copy")
    shutil.rmtree(repo / "reference")
    (repo / "reference").symlink_to("reference-copy", target_is_directory=True)
    commit()
    assert (repo / "reference" / "gnn" / "README.md").is_file()  # the setup: the readers see the folder
    assert shown() == ["gnn-x", "carol-net"]
    place = history.repository_place  # control: the arrivals asked through the link, as before
    monkeypatch.setattr(history, "repository_place", lambda folder: place(Path(folder).resolve()))
    assert shown() == ["gnn-x", "carol-net", "gnn-y"]
