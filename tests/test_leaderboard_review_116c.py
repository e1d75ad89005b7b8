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


def _hardest_dropped(reference: dict) -> dict:
    """``reference`` (the K32 `ratio-transfer` record) as Eve's self-reported line whose every draw drops its
    hardest GPU platform's row and adds that row's n to its easiest's: the draw keeps the board's size, and its
    headline is the mean of the rows left (self-consistent: the readers' check passes)."""
    from test_leaderboard_review_115a import _self_reported

    from perfgraphs.leaderboard.records import record_check

    record = _self_reported(reference, "eve-transfer", "Eve Rival", None)
    for seed in record["per_seed"]:
        rows = seed["per_platform"]
        chosen = next(c for c in record_check._platform_sets(rows, seed["n"])
                      if record_check._gives_the_draw(seed, [rows[p] for p in c]))
        gpu = {p: rows[p] for p in chosen}  # the rows the headline is the mean of
        hardest = max(gpu, key=lambda p: gpu[p]["mape_pct"])
        easiest = min(gpu, key=lambda p: gpu[p]["mape_pct"])
        seed["per_platform"][easiest]["n"] += seed["per_platform"].pop(hardest)["n"]
        del gpu[hardest]
        for key in ("mape_pct", "acc_10_pct", "kendall_tau"):
            seed[key] = sum(r[key] for r in gpu.values()) / len(gpu)
    return record


def test_a_transfer_line_on_other_platforms_of_the_boards_size_says_so(tmp_path, capsys, monkeypatch):
    """Attack: the line keeps n = 13,795 while holding out one platform fewer (its MAPE lower than the
    reference's it was copied from): the board names it as scored on another test. Control: the note by size
    alone (the 115th pass's) says nothing of it."""
    import json

    from test_leaderboard_review_115a import _board_lines
    from test_leaderboard_review_99b import shown_with

    from perfgraphs.leaderboard.records import ranks

    lines = _board_lines()
    reference = next(json.loads(line) for line in lines if json.loads(line)["method"] == "ratio-transfer")
    eve = _hardest_dropped(reference)
    assert [s["n"] for s in eve["per_seed"]] == [s["n"] for s in reference["per_seed"]]
    assert all(a["mape_pct"] < b["mape_pct"] for a, b in zip(eve["per_seed"], reference["per_seed"]))
    out, err = shown_with(tmp_path / "noted", lines, eve, capsys)
    flat = " ".join(out.split())
    assert "eve-transfer" in out and "eve-transfer" not in err, err  # read: its rows give its scores
    assert "scored on another test than the board's (n = 13795 on its 17 held-out platforms)" in flat, flat
    assert "eve-transfer by Eve Rival (n = 13795)" in flat, flat

    monkeypatch.setattr(ranks, "board_platform_rows", lambda entries: None)  # control: by size alone
    out, _ = shown_with(tmp_path / "control", lines, eve, capsys)
    assert "eve-transfer" in out and "another test" not in " ".join(out.split()), out


def test_bytecode_a_submodule_tracks_is_found(tmp_path, monkeypatch):
    """116b's open lead: the keeper's checkout with a submodule committing an unchecked-hash
    ``__pycache__/evaluator.cpython-311.pyc``: ``compiled_code_tracked`` names it (the submodule's files
    listed with the checkout's, ``frozen_fits.TRACKED_LISTING``). Control: listed as a plain ``ls-files``
    does, the submodule is one gitlink and nothing is found."""
    import subprocess

    from perfgraphs.leaderboard import frozen_fits

    def git(repo, *args):
        subprocess.run(["git", "-C", str(repo), "-c", "user.name=t", "-c", "user.email=t@t",
                        "-c", "protocol.file.allow=always", *args], check=True, capture_output=True)

    sub, top = tmp_path / "sub", tmp_path / "checkout"
    (sub / "evaluation" / "__pycache__").mkdir(parents=True)
    (sub / "evaluation" / "evaluator.py").write_text("def score(y, p):\n    return 0.0\n")
    (sub / "evaluation" / "__pycache__" / "evaluator.cpython-311.pyc").write_bytes(b"\x00" * 16)
    top.mkdir()
    for repo in (sub, top):
        git(repo, "init", "-q")
    git(sub, "add", "-f", ".")
    git(sub, "commit", "-q", "-m", "package")
    (top / "README.md").write_text("checkout\n")
    git(top, "add", "README.md")
    git(top, "submodule", "add", "-q", str(sub), "perfgraphs")
    git(top, "commit", "-q", "-m", "the package as a submodule")

    why = frozen_fits.compiled_code_tracked(top)
    assert why is not None and "perfgraphs/evaluation/__pycache__/evaluator.cpython-311.pyc" in why, why
    monkeypatch.setattr(frozen_fits, "TRACKED_LISTING", ("ls-files", "-z"))  # control: the gitlink alone
    assert frozen_fits.compiled_code_tracked(top) is None
