"""Hundred-and-twenty-third pass (2026-12-07), side b: a reference's line taken out (pass 122a's lead).

Found: the boards rank the records a results file holds now, and nothing read that the reference runs listed in
``leaderboard/reference_records.sha256`` are all still there (the 119th pass reads the manifest only to skip a
reference-authored line it does not list). A re-run supersedes a record and leaves its line in the file
(``site.pages.current_and_superseded``), so the 220 listed runs are all present on HEAD; a pull request deleting
one line ("a stale line", one removal in a 1.3 MB data file) re-ranked its board with no line printed. On the
repository: deleting the official dippm cpu latency ``static-mlp`` line (rank 3, 12.70 %) moved ``roofline-fit``
5 -> 4 and ``static-xgboost`` 6 -> 5 ("5 rank group(s)" -> 4), stderr empty. Here, on the official ML.ENERGY
energy-per-token board: deleting ``serving-prior-boost`` (rank 1, 21.78 %) made ``static-mlp`` rank 1 "best"
(was 2), ``llm-xgboost`` 2 (was 3) and ``static-xgboost`` / ``serving-prior`` 3 (were 4), stderr empty.
Now the readers name, in one warning line a results folder, each listed run whose line no results file of the
folder holds (``reference_runs.taken_out_problem``), with its file and board where the main line's history
shows the line; one whose removed line a later listed record of its board, method and tier supersedes is not
named. `leaderboard show` on HEAD is byte-identical (stdout and stderr). The control switches the check off and
the re-ranked board reads in silence again. Not closed: a pull request that also deletes the run's manifest line
(the organisers' file, which no team's pull request touches) is not caught; the board itself carries no note.
"""

from __future__ import annotations

import json
import re
import subprocess

from perfgraphs.cli import main
from perfgraphs.leaderboard.records import reference_runs
from perfgraphs.leaderboard.records.results import forget_checked, read_entries, run_digest
from perfgraphs.paths import leaderboard_dir
from test_leaderboard_review_104c import BOARD, _board_records


def _leaderboard(folder, records: list[dict], listed: list[dict] | None = None):
    """A leaderboard folder whose results hold ``records`` and whose manifest lists ``listed`` (default: them)."""
    (folder / "results").mkdir(parents=True)
    (folder / "builds.json").write_text((leaderboard_dir() / "builds.json").read_text())
    (folder / "results" / "llm.jsonl").write_text("".join(json.dumps(r) + "\n" for r in records))
    (folder / reference_runs.MANIFEST_NAME).write_text(
        "".join(f"{run_digest(json.dumps(r))}  {r['method']}\n" for r in (records if listed is None else listed)))
    return folder


def _show(folder, capsys, monkeypatch) -> tuple[dict[str, str], str]:
    """Each entry's rank on the board (``–``: unranked) as `leaderboard show` prints it, and its stderr."""
    forget_checked()
    monkeypatch.setenv("COLUMNS", "250")
    capsys.readouterr()
    assert main(["leaderboard", "show", "--results", str(folder / "results")]) == 0
    out, err = capsys.readouterr()
    board = out.split(" · ".join(BOARD))[1].split("Ranks (#)")[0]
    return {m: r for r, m in re.findall(r"│ (\d+|–)\s+│ ([a-z0-9-]+)\s", board)}, err


def test_a_reference_line_taken_out_is_named(tmp_path, capsys, monkeypatch):
    """Attack: the rank-1 reference's line deleted, its run still listed. Guard: one warning line naming it.
    Control: with the check off, the board re-ranks in silence."""
    references = _board_records()
    ranks, err = _show(_leaderboard(tmp_path / "before", references), capsys, monkeypatch)
    assert (ranks["serving-prior-boost"], ranks["static-mlp"], ranks["llm-xgboost"]) == ("1", "2", "3"), ranks
    assert "taken out" not in err and "no results file" not in err, err

    kept = [r for r in references if r["method"] != "serving-prior-boost"]
    ranks, err = _show(_leaderboard(tmp_path / "attack", kept, references), capsys, monkeypatch)
    assert (ranks["static-mlp"], ranks["llm-xgboost"]) == ("1", "2"), ranks  # each a rank up
    assert err.count("\n") == 1 and "lists 1 reference run whose line no results file" in err, err
    assert "serving-prior-boost" in err, err

    monkeypatch.setattr(reference_runs, "taken_out_problem", lambda folder, present, removed: None)  # control
    ranks, err = _show(_leaderboard(tmp_path / "control", kept, references), capsys, monkeypatch)
    assert (ranks["static-mlp"], ranks["llm-xgboost"]) == ("1", "2") and err == "", (ranks, err)


def _committed(folder, records: list[dict], listed: list[dict]):
    """``_leaderboard`` in a git repository, committed."""
    _leaderboard(folder, records, listed)
    subprocess.run(["git", "init", "-q", str(folder)], check=True)
    _commit(folder, "records")
    return folder


def _commit(folder, message: str) -> None:
    subprocess.run(["git", "-C", str(folder), "add", "-A"], check=True)
    subprocess.run(["git", "-C", str(folder), "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", message],
                   check=True)


def test_a_superseded_line_taken_out_is_not_named_a_ranked_one_is(tmp_path):
    """A re-run (listed, dated later, same board) supersedes the older record: its line taken out changes no
    rank and is not named. The ranked record's line taken out is named, with its file and board."""
    references = _board_records()
    old = next(r for r in references if r["method"] == "static-mlp")
    rerun = {**old, "date_utc": "2026-12-07T00:00:00+00:00", "run_identity": old["run_identity"] + "-rerun"}
    folder = _committed(tmp_path / "leaderboard", [*references, rerun], [*references, rerun])
    results = folder / "results"
    for gone, named in ((old, False), (rerun, True)):
        lines = (results / "llm.jsonl").read_text().splitlines(keepends=True)
        (results / "llm.jsonl").write_text("".join(x for x in lines if json.loads(x) != gone))
        _commit(folder, "clean up a stale line")
        forget_checked()
        skipped: list[str] = []
        read_entries("llm", results, skipped)
        taken = [s for s in skipped if "no results file" in s]
        assert bool(taken) == named, skipped
    assert "static-mlp of 2026-12-07T00:00:00+00:00 (llm.jsonl: mlenergy energy_per_token_joules" in taken[0], taken
