"""Forty-ninth adversarial pass (2026-12-05), read side: hand-written lines under the reference
authors' name, and the keeper's ranks read through a linked folder."""

from __future__ import annotations

import json
import shutil
from pathlib import Path


from perfgraphs.leaderboard.records import results
from stated_scores import with_rmse_restated

REPO = Path(__file__).resolve().parents[1]
NNLQP_TARGET = "latency_per_sample_ms__timm-rtx4090-amp-nchw-pt240-cu124"



def _board(root: Path, dataset: str, target: str):
    """The official public board of ``target`` as `leaderboard show` ranks it from the results folder
    ``root`` (its pinned build, its latest records, its label repetitions)."""
    from perfgraphs.leaderboard.records.boards import entry_groups, official
    from perfgraphs.leaderboard.records.builds import board_pin, pins_file, read_pins, split_by_build
    from perfgraphs.leaderboard.records.ranks import label_repetitions, rank_board
    from perfgraphs.leaderboard.records.results import RecordedBoards
    from perfgraphs.leaderboard.site.pages import current_and_superseded

    recorded = RecordedBoards()
    groups = entry_groups(root, recorded)
    key = next(k for k in groups if k[0] == dataset and k[2] == target and k[4] == "public" and official(*k[:4]))
    _, on_build, _ = split_by_build(groups[key], board_pin(read_pins(pins_file(root)), key[0], key[1], "public"))
    current = current_and_superseded(on_build)[0]
    return rank_board(current, label_repetitions(recorded.task(*key[:3]), "public", key[3]), official=True), current


def _self_reported_copies(reference: dict, k: int) -> list[dict]:
    """``k`` hand-written predictions-files lines under the reference authors' name (a reference's
    method with a suffix, its landed commit): the reference's (label, prediction) pairs × 1.01."""
    seeds = [{key: v for key, v in s.items() if key not in ("pred_over_label", "predictions_sha256", "predict_cpu_seconds",
                                                            "peak_memory_mb", "fit_cpu_seconds", "cores", "fit_seconds",
                                                            "predictions_per_second")}
             for s in reference["per_seed"]]
    return [with_rmse_restated({**reference, "method": f"{reference['method']} (files {i})", "tier": "self-reported",
             "hardware": "not measured (self-reported)", "fit_seconds": None, "predictions_per_second": None,
             "peak_memory_mb": None, "isolation": "", "fit_cpu_seconds": None, "cores": None,
             "run_identity": f"files-{i}", "per_seed": seeds,
             "actual_vs_predicted": [[t * 1.01, p * 1.01] for t, p in reference["actual_vs_predicted"]]})
            for i in range(k)]


def test_hand_written_reference_lines_do_not_set_the_boards_configurations(tmp_path):
    """Attack: a board without label repetitions takes its test configurations from the element-wise
    median of the reference baselines' labels, and every record by ``perfgraphs reference baselines``
    counted, a *self-reported* one too (``ranks.board_configurations`` took the board's unranked
    records, predictions files included, as references without ratios). The read-time check lets a
    line by the reference authors stand under a reference's name at a landed commit, and
    `reproduce` refuses to score a self-reported line again ("nothing here can score it again"), so
    nothing checks what it says. One pull request of as many hand-written self-reported lines
    (``static-xgboost (files 0)``…, a reference's labels × 1.01) as the board has reference records
    moved the median off the honest labels, and the official nnlqp RTX 4090 board printed "not ranked:
    the entries' per-configuration records are not on the same test configurations": every reference
    lost its rank. A predictions-files record is a contributor's; the references are code the harness
    runs, so a line by the reference authors that the harness did not write is not read. Control:
    the board as committed ranks its references; the copies read as records otherwise (under a team's
    authors they are listed, self-reported, and leave the ranks alone)."""
    from perfgraphs.leaderboard.records.references import REFERENCE_AUTHORS
    from perfgraphs.leaderboard.records.results import read_entries, results_path
    from perfgraphs.paths import leaderboard_dir

    source = results_path("nnlqp", leaderboard_dir() / "results")
    honest, current = _board(leaderboard_dir() / "results", "perfgraphs/nnlqp", NNLQP_TARGET)
    ranked = {r.entry.method for r in honest.rows if r.ranked is not None and r.ranked.rank > 0}
    assert len(ranked) >= 3 and "static-xgboost" in ranked, honest.lines()  # control: the board as committed
    references = [e for e in current if e.authors == REFERENCE_AUTHORS and e.actual_vs_predicted]
    full = next(e for e in references if "(quick" not in e.method)
    reference = next(json.loads(line) for line in source.read_text().splitlines()
                     if line.strip() and json.loads(line)["run_identity"] == full.run_identity
                     and json.loads(line)["method"] == full.method)
    copies = _self_reported_copies(reference, len(references))

    root = tmp_path / "results"
    shutil.copytree(leaderboard_dir() / "results", root)
    (root / source.name).write_text(source.read_text() + "".join(json.dumps(c) + "\n" for c in copies))
    board, _ = _board(root, "perfgraphs/nnlqp", NNLQP_TARGET)
    assert {r.entry.method for r in board.rows if r.ranked is not None and r.ranked.rank > 0} == ranked, board.lines()
    results.forget_checked()
    skipped: list[str] = []
    read = [e.method for e in read_entries("nnlqp", root, skipped) if "(files" in e.method]
    assert read == [], read
    assert len([s for s in skipped if "never predictions files" in s]) == len(copies), skipped

    # control: the same lines as a team's (its own method, its authors) are read, listed unranked, and rank nothing away
    results.forget_checked()
    teams = [{**c, "method": f"mal-net (files {i})", "authors": "Mal Lory"} for i, c in enumerate(copies)]
    (root / source.name).write_text(source.read_text() + "".join(json.dumps(c) + "\n" for c in teams))
    assert len([e for e in read_entries("nnlqp", root, []) if "(files" in e.method]) == len(copies)
    board, _ = _board(root, "perfgraphs/nnlqp", NNLQP_TARGET)
    assert {r.entry.method for r in board.rows if r.ranked is not None and r.ranked.rank > 0} == ranked, board.lines()


def test_a_linked_ranks_folder_does_not_hide_the_keepers_latest_ranks(git_commitments, tmp_path):
    """Attack: ``read_sealed`` reads the ranks file as it is and every version the main line committed,
    asking git from the ranks folder (``git -C leaderboard/hidden/ranks log -- <name>``). A pull
    request replaces that folder with a link to a folder of its own (``ranks -> ranks-copy``, one
    committed symlink) holding the round's first signed ranks file, byte for byte. Git follows the
    link into ``ranks-copy``, whose history is that one version: the keeper's later ranks (a
    contributor's entry first, the reference second) were never read, and the board showed the
    reference at rank 1 alone and the contributor's entry unranked as "scored after the keeper's
    ranks", the forty-eighth pass's stale ranks again. The versions are now read at the path the
    repository holds them under, the folder's link not followed. Control: the keeper's latest ranks
    rank the board before the pull request, and the first file alone ranks the reference first."""
    import subprocess

    from perfgraphs.leaderboard.records.sealed_ranks import ranks_path
    from test_leaderboard_review_48a import _board as sealed_board
    from test_leaderboard_review_48a import CONFIG, DATASET, TARGET, ranked_twice

    folder, commit = git_commitments
    first, first_text, (reference, other, contender) = ranked_twice(folder, commit, tmp_path / "keeper")
    latest = {"gnn-contender": 1, "layerwise-boost": 2, "roofline-boost": 3}
    assert sealed_board([reference, other, contender]) == latest  # control: as the keeper committed it

    path = ranks_path(DATASET, CONFIG, TARGET, folder)
    copy = folder / "ranks-copy"
    copy.mkdir()
    (copy / path.name).write_text(first_text)
    shutil.rmtree(path.parent)
    path.parent.symlink_to("ranks-copy", target_is_directory=True)
    assert path.read_text() == first_text  # the setup: the board's path reads the first ranks
    assert subprocess.run(["git", "-C", str(folder), "status", "--porcelain"], capture_output=True,
                          text=True).stdout.strip()  # a change a pull request commits
    assert sealed_board([reference, other, contender]) == latest  # the pull request's checkout
    commit("ranks: one folder")
    assert sealed_board([reference, other, contender]) == latest  # ... and once merged
