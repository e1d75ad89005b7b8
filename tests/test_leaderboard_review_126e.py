"""Hundred-and-twenty-sixth pass (2026-12-08), side e: bad input to `leaderboard build`, the site's folder.

Tried, on the readers of ``leaderboard/results/`` (a fuzz of every top-level and per-seed field of a reference
record and of a team's copy, each set to null, lists, objects, text, booleans, 10**400, 1e300, 2**63: 0 of some 900
lines stopped ``read_line``, and none of the 135 lines it accepted stopped the ranking or its texts), and on bad
arguments to ``predict`` (batches, shapes, price tables, artifacts, --html paths), ``leaderboard reproduce``,
``show`` and ``rank-hidden``: each gave one ``error:`` line, exit 2.

Found: ``leaderboard build`` made the site's folder with a bare ``mkdir``. ``leaderboard/site`` committed as a
regular file (the ignore rule ``leaderboard/site/`` is a folder's and does not cover it; the thirty-fifth pass
refused a link there), ``--out`` naming a file, a path under a file, or one that cannot be made (``/proc/x``)
printed ``perfgraphs: internal error: FileExistsError: [Errno 17] File exists: ...`` (``NotADirectoryError``,
``FileNotFoundError``), exit 1, where every other bad input is one ``error:`` line, exit 2. Now
``pages.made_site_folder`` refuses each in one line saying what is there; the file is left as it was. The control
puts the bare ``mkdir`` back and the internal error returns.

Found too: ``--results`` naming a file (``leaderboard/results/dippm.jsonl``, the file for its folder) was read as a
folder of no record: `leaderboard show` listed all 13 official boards as "no entry has been scored on it yet" and
`leaderboard build` wrote a site of "No entries yet", both exit 0 (`submit` refuses such a ``--results``). Now
``boards.results_folder_problem`` refuses it in one line, exit 2 (a folder not made yet still reads as empty).

Found on the records' side: the reference runs' manifest (``leaderboard/reference_records.sha256``) was read at
Python's line breaks (``str.splitlines``: ``\x1c``, ``\x0b``, ``\x85``, U+2028...), not git's. The committed manifest's
last line edited to end ``\x1c<digest>  static-xgboost`` (a character a terminal shows as nothing; the diff: one
line of the organisers' file retouched, no run added) listed the 119th pass's forged reference line (each ratio
1.01 or 0.99, 1.00 % MAPE): it was read and ranked 1 on the official ML.ENERGY energy-per-token board,
``serving-prior-boost`` (21.78 %) 2. Now ``reference_runs.manifest_lines`` splits at ``\n`` only; the forged line is
skipped as no reference run, as without the edit. The control puts ``splitlines`` back and the forged row ranks 1.
"""

from __future__ import annotations

import json

import pytest

from perfgraphs.cli import main
from perfgraphs.leaderboard.records import boards, reference_runs
from perfgraphs.leaderboard.records.results import forget_checked, read_line, run_digest
from perfgraphs.paths import leaderboard_dir
from test_leaderboard_review_104c import _board_records, _ranks
from test_leaderboard_review_119b import _ratios_near_one
from perfgraphs.leaderboard.site import pages


def _places(tmp_path):
    """Where a site cannot be made: a regular file in the folder's place, a path under a file, one not makeable."""
    planted = tmp_path / "leaderboard" / "site"
    planted.parent.mkdir()
    planted.write_text("a pull request's file\n")
    return [planted, planted / "sub", "/proc/perfgraphs-site"]


def _build(out, results, capsys) -> tuple[int, str]:
    capsys.readouterr()
    code = main(["leaderboard", "build", "--out", str(out), "--results", str(results)])
    return code, capsys.readouterr().err


def test_a_site_folder_that_cannot_be_made_is_one_error_line(tmp_path, capsys):
    """Attack: the site's folder is a file (or lies under one, or cannot be made). Guard: one ``error:`` line,
    exit 2, the file untouched; a real folder still builds."""
    results = tmp_path / "results"
    results.mkdir()
    for out in _places(tmp_path):
        code, err = _build(out, results, capsys)
        assert code == 2 and err.startswith("perfgraphs: error: ") and err.count("\n") == 1, (out, code, err)
        assert "internal error" not in err and "the site's folder cannot be made" in err, err
    assert (tmp_path / "leaderboard" / "site").read_text() == "a pull request's file\n"
    code, err = _build(tmp_path / "built", results, capsys)
    assert code == 0 and (tmp_path / "built" / "index.html").is_file(), err


@pytest.mark.parametrize("which", [0, 1])
def test_control_a_bare_mkdir_is_an_internal_error(tmp_path, capsys, monkeypatch, which):
    """Control: ``made_site_folder`` as it was before (the link check, then ``mkdir``): an internal error, exit 1."""
    def before(out):
        if why := pages.site_folder_problem(out):
            raise pages.PerfgraphsError(why)
        out.mkdir(parents=True, exist_ok=True)

    monkeypatch.setattr(pages, "made_site_folder", before)
    results = tmp_path / "results"
    results.mkdir()
    code, err = _build(_places(tmp_path)[which], results, capsys)
    assert code == 1 and "internal error: " + ("FileExistsError", "NotADirectoryError")[which] in err, err


def _results_file(tmp_path):
    results = tmp_path / "leaderboard" / "results"
    results.mkdir(parents=True)
    (results / "dippm.jsonl").write_text("")
    return results / "dippm.jsonl"


def test_a_results_file_given_as_the_results_folder_is_one_error_line(tmp_path, capsys):
    """Attack: ``--results`` names a results file. Guard: `show` and `build` refuse it in one line, exit 2, and no
    board is printed as empty. A folder not made yet still reads as one holding no record."""
    given = _results_file(tmp_path)
    for verb in (["show"], ["build", "--out", str(tmp_path / "site")]):
        capsys.readouterr()
        code = main(["leaderboard", *verb, "--results", str(given)])
        out, err = capsys.readouterr()
        assert code == 2 and err.startswith("perfgraphs: error: --results ") and err.count("\n") == 1, (verb, err)
        assert "not a folder" in err and "no entry has been scored" not in out, (verb, out, err)
    assert not (tmp_path / "site" / "index.html").exists()
    assert boards.results_folder_problem(tmp_path / "not-made-yet") is None
    assert given.read_text() == ""


def test_control_a_results_file_read_as_an_empty_folder(tmp_path, capsys, monkeypatch):
    """Control: without the check, `show` lists every official board as having no entry, exit 0."""
    monkeypatch.setattr(boards, "results_folder_problem", lambda results: None)
    given = _results_file(tmp_path)
    capsys.readouterr()
    assert main(["leaderboard", "show", "--results", str(given)]) == 0
    out = capsys.readouterr().out
    assert " ".join(out.split()).count("no entry has been scored on it yet") == len(boards.BOARDS), out


def test_check_refuses_a_results_file_as_submit_does(tmp_path, capsys):
    """Side e's lead: ``check --results <a file>`` checked every name against no record and said OK where
    ``submit`` refuses the file; now ``check`` refuses it first, in one line (``submit.evaluate_submission``)."""
    given = _results_file(tmp_path)
    capsys.readouterr()
    for verb in ("check", "submit"):
        code = main([verb, str(tmp_path / "no-submission-needed"), "--results", str(given)])
        err = capsys.readouterr().err
        assert code == 1 and err.count("\n") == 1 and "--results " in err and "not a folder" in err, (verb, err)
    assert given.read_text() == ""


def _retouched_manifest(folder, forged: dict):
    """A leaderboard folder whose manifest is the committed one, its last line ending ``\\x1c<forged's digest> ...``."""
    folder.mkdir(parents=True)
    text = (leaderboard_dir() / reference_runs.MANIFEST_NAME).read_text()
    assert text.endswith("\n") and "\x1c" not in text
    (folder / reference_runs.MANIFEST_NAME).write_text(text[:-1] + f"\x1c{run_digest(json.dumps(forged))}  static-xgboost\n")
    return folder


def test_a_digest_after_a_hidden_line_break_lists_no_run(tmp_path, capsys, monkeypatch):
    """Attack: 119b's forged reference line, its digest hidden on the manifest's last line after ``\\x1c``. Guard:
    the manifest's lines are git's, the forged line is no run; the reference keeps rank 1."""
    references = _board_records()
    forged = _ratios_near_one(next(r for r in references if r["method"] == "static-xgboost"))
    forget_checked()
    folder = _retouched_manifest(tmp_path / "attack", forged)
    ranks = _ranks(folder, [*references, forged], capsys, monkeypatch)
    assert ranks["serving-prior-boost"] == "1" and ranks["static-xgboost"] not in ("1", "–"), ranks
    _, why = read_line(json.dumps(forged), folder / "results" / "llm.jsonl")
    assert why and "no reference run wrote" in why, why


def test_control_python_line_breaks_list_the_forged_run(tmp_path, capsys, monkeypatch):
    """Control: the manifest read with ``str.splitlines`` again: the forged row is read and ranked 1."""
    monkeypatch.setattr(reference_runs, "manifest_lines", lambda text: text.splitlines())
    references = _board_records()
    forged = _ratios_near_one(next(r for r in references if r["method"] == "static-xgboost"))
    forget_checked()
    ranks = _ranks(_retouched_manifest(tmp_path / "control", forged), [*references, forged], capsys, monkeypatch)
    assert ranks["static-xgboost"] == "1" and ranks["serving-prior-boost"] == "2", ranks


def test_a_results_name_too_long_is_one_error_line(tmp_path, capsys):
    """A ``--results`` name past the file system's limit raised from ``exists`` ("internal error: OSError: File
    name too long") in `show`, `build` and `check`; now one line each (review of 2026-12-08)."""
    long_name = str(tmp_path / ("a" * 5000))
    for argv in (["leaderboard", "show"], ["leaderboard", "build", "--out", str(tmp_path / "site")],
                 ["check", str(tmp_path / "no-submission-needed")]):
        capsys.readouterr()
        code = main([*argv, "--results", long_name])
        err = capsys.readouterr().err
        assert code in (1, 2) and err.count("\n") == 1 and "cannot be used" in err and "internal error" not in err, \
            (argv, err[:300])
