"""The twenty-seventh adversarial pass of 2026-12-03, submit side (`perfgraphs check` / `submit` on a
folder the submitter controls byte for byte). Each test names the attack and what it did on the code
before the fix, and has a control (the attack's effect without the guard, or the honest variant that
must still pass), so it can fail."""

from __future__ import annotations

import ast
import io
import pickle
import shutil
import subprocess
import sys
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest

from perfgraphs.leaderboard.label_scan import LabelArray, scan_submission

ROOT = Path(__file__).resolve().parents[1]
EXAMPLE = ROOT / "leaderboard" / "examples" / "ridge"
LABELS = np.round(np.random.default_rng(1).uniform(0.5, 80, 300), 6)
OTHER = np.round(np.random.default_rng(2).uniform(0.5, 80, 300), 6)  # honest numbers, no label among them


def _example(tmp_path: Path, **replaced: str) -> Path:
    """The ridge example with a fixed commit, its submission.yaml lines replaced by key."""
    folder = tmp_path / "sub"
    shutil.copytree(EXAMPLE, folder)
    meta = folder / "submission.yaml"
    text = meta.read_text().replace("commit: auto", "commit: 0123456789abcdef0123456789abcdef01234567")
    lines = [next((f"{k}: {v}" for k, v in replaced.items() if line.startswith(f"{k}:")), line)
             for line in text.splitlines()]
    meta.write_text("\n".join(lines) + "\n")
    return folder


def test_file_names_in_problem_lines_reach_the_terminal_as_one_printable_line(tmp_path, capsys):
    """Attack: a submission file named ``x ESC[2K CR perfgraphs check: all fine LF ESC[8m.py`` (a
    syntax error in it), and a symlink named ``link LF OK: example passes every check ESC[8m.py``.
    Before: `perfgraphs check` printed the names raw: the escape erased its refusal, a line "OK:
    example passes every check" stood on its own and the rest of the line was concealed (it still
    exited 1). Now every problem line is written with its controls escaped, one line each."""
    from perfgraphs.cli import main
    from perfgraphs.leaderboard.submission import SubmissionError, load_submission

    folder = _example(tmp_path)
    (folder / "x\x1b[2K\rperfgraphs check: all fine\n\x1b[8m.py").write_text("def (:\n")
    (folder / "link\nOK: example passes every check\x1b[8m.py").symlink_to("/etc/passwd")
    with pytest.raises(SubmissionError) as raised:  # control: the problems themselves quote the names raw
        load_submission(folder)
    assert sum("\x1b" in p or "\n" in p for p in raised.value.problems) == 2
    assert main(["check", str(folder), "--seeds", "0"]) == 1
    err = capsys.readouterr().err
    assert "\x1b" not in err and "\r" not in err
    lines = err.splitlines()
    assert len(lines) == len(raised.value.problems) == 2
    assert all(line.startswith("perfgraphs check: ") for line in lines)
    assert "\\x1b[8m" in err  # shown, not obeyed


@pytest.mark.parametrize("field, value", [("paper", '"Müller, J., Ridge graphs, NeurIPS 2026"'),
                                          ("paper", '"Ridge graphs\\nNeurIPS 2026"'),
                                          ("paper", "x" * 301),
                                          ("  url", "https://example.org/" + "a" * 300)])
def test_a_paper_or_url_the_record_refuses_is_refused_by_check(tmp_path, field, value):
    """Attack (an honest one): ``paper: "Müller, J., …"`` (or a line break, or 301 characters; a
    code.url of 320). Before: `perfgraphs check` scored every seed and said OK; `perfgraphs submit`
    scored them all again and then refused to write the record ("paper must be printable ASCII of
    at most 300 characters"). Now submission.yaml is refused by the record's rule before anything
    runs, and `check` refuses an entry the record store would refuse (its seed count aside)."""
    from perfgraphs.leaderboard.records.results import read_entries
    from perfgraphs.leaderboard.submission import SubmissionError, load_submission
    from perfgraphs.leaderboard.submit import _unrecordable

    honest = load_submission(_example(tmp_path / "honest", paper='"Mueller, J., Ridge graphs, NeurIPS 2026"'))
    assert honest.meta.paper.startswith("Mueller")  # control: an ASCII citation passes
    with pytest.raises(SubmissionError) as raised:
        load_submission(_example(tmp_path, **{field: value}))
    assert any("printable ASCII of at most 300" in p for p in raised.value.problems), raised.value.problems
    # the safety net behind it: what the store refuses, check refuses (an entry as recorded passes)
    entry = read_entries("dippm", ROOT / "leaderboard" / "results")[0]
    assert _unrecordable(entry) is None
    assert "printable ASCII" in _unrecordable(replace(entry, paper="Müller et al."))


def _scan(tmp_path, name: str, data: bytes) -> list[str]:
    folder = tmp_path / name.replace(".", "-")
    folder.mkdir(parents=True)
    (folder / name).write_bytes(data)
    return scan_submission(folder, [LabelArray("the test labels", LABELS)])


def _joblib(array: np.ndarray) -> bytes:
    import joblib

    out = io.BytesIO()
    joblib.dump(array, out)
    return out.getvalue()


FORMATS = {
    "utf16.csv": lambda v: ("y\n" + "\n".join(repr(float(x)) for x in v) + "\n").encode("utf-16"),
    "utf32.json": lambda v: str([repr(float(x)) for x in v]).encode("utf-32"),
    "strings-S.pkl": lambda v: pickle.dumps(np.array([repr(float(x)) for x in v], dtype="S")),
    "strings-U.pkl": lambda v: pickle.dumps(np.array([repr(float(x)) for x in v])),
    "strings-U-protocol2.pkl": lambda v: pickle.dumps(np.array([f"{x:09.6f}" for x in v]), protocol=2),
    "strings-S.joblib": lambda v: _joblib(np.array([f"{x:09.6f}" for x in v], dtype="S")),
}


@pytest.mark.parametrize("name", sorted(FORMATS))
def test_labels_in_a_pickled_numpy_string_array_are_found(tmp_path, name):
    """Attack: the public test labels as a numpy string array (``np.array([repr(v) ...])``, S or U)
    pickled (protocol 2 or the default) or dumped with joblib: "a pickle of strings", which the scan
    says it reads since the twenty-sixth pass. Before: passed: an array's full-width items are stored
    back to back ("68.49054468.972038…" read as one garbled number: 12 of 300 labels found in the
    S array) and a U array's characters are UTF-32, a NUL after each (0 found). Now a pickled string
    dtype's width cuts the runs, and where a U dtype (or a UTF-16/32 byte-order mark: UTF-16 text was
    a documented gap, closed along the way) is in the file, its text is read without the NULs.
    Control: the same files of other numbers pass."""
    assert _scan(tmp_path / "honest", name, FORMATS[name](OTHER)) == []
    problems = _scan(tmp_path, name, FORMATS[name](LABELS))
    assert len(problems) == 1 and "holds 300 of the 300 distinct values of the test labels" in problems[0], problems



def test_a_python_file_that_takes_gigabytes_to_parse_is_refused_within_a_limit(tmp_path, monkeypatch):
    """Attack: a submission whose table.py is one list literal (``x = [1,1,…]``): valid Python under
    the 16 MB a file. Before: `check` parsed every .py file in its own process, and 9.5 MB of it
    took 53 s and 4.7 GB (the entry module is parsed twice; ten such files, 95 MB, far under the
    scan's 2 GB, were ten times that); and ``x = 1+1+…`` (0.6 MB) stopped `check` with "internal
    error: RecursionError". Now the static checks run in a forked child within MAX_PARSE_MEMORY
    (here 100 MB) and MAX_PARSE_SECONDS, and over either, or too deep, the submission is refused in
    one line. Control: the list file parses without the limit (it is valid Python), ast.parse
    raises on the deep one, and the example passes under the limit."""
    from perfgraphs.leaderboard import submission
    from perfgraphs.leaderboard.isolated import in_child
    from perfgraphs.leaderboard.submission import SubmissionError, load_submission

    folder = _example(tmp_path)
    monkeypatch.setattr(submission, "MAX_PARSE_MEMORY", 100 * 2**20)
    assert load_submission(folder).meta.entry_point == "predictor:Predictor"  # control: honest code parses
    (folder / "table.py").write_text("x = [" + ",".join(["1"] * 300_000) + "]\n")  # 0.6 MB
    with open(folder / "predictor.py", "a") as f:  # the predictor's own module (one none imports is refused)
        f.write("\nimport table  # noqa: E402,F401\n")
    assert in_child(submission._code_problems, folder, "predictor:Predictor") == []  # control: valid, unlimited
    # in a fresh interpreter: the limit is on memory beyond what the process holds, and a process that
    # has run hundreds of tests holds freed heap the parse reuses without asking for more (the full
    # suite's process parsed the file within its limit)
    code = ("import sys; from pathlib import Path; from perfgraphs.leaderboard import submission as s\n"
            "s.MAX_PARSE_MEMORY = 100 * 2**20\n"
            "try:\n    s.load_submission(Path(sys.argv[1]))\nexcept s.SubmissionError as e:\n"
            "    print('\\n'.join(e.problems))\n")
    done = subprocess.run([sys.executable, "-c", code, str(folder)], capture_output=True, text=True, timeout=300)
    problems = done.stdout.splitlines()
    assert len(problems) == 1 and "could not be parsed in 100 MB (MemoryError)" in problems[0], (problems, done.stderr)
    monkeypatch.setattr(submission, "MAX_PARSE_MEMORY", 2**31)
    deep = "x = 1" + "+1" * 300_000 + "\n"  # 0.6 MB: ast.parse raises RecursionError ("internal error" before)
    with pytest.raises(RecursionError):
        ast.parse(deep)
    (folder / "table.py").write_text(deep)
    with pytest.raises(SubmissionError) as raised:
        load_submission(folder)
    assert len(raised.value.problems) == 1 and "(nested deeper than the parser goes) (RecursionError)" in \
        raised.value.problems[0], raised.value.problems
    monkeypatch.setattr(submission, "MAX_PARSE_SECONDS", 0.2)
    with pytest.raises(SubmissionError) as raised:
        load_submission(folder)
    assert len(raised.value.problems) == 1 and "ran past 0.2 s" in raised.value.problems[0], raised.value.problems


def test_labels_written_in_file_names_are_found(tmp_path):
    """Attack: 300 empty files named ``<i>_<label>`` (``labels/17_12.345678``): the predictor lists
    its own folder (the harness copies the names with the files) and reads the test labels off it.
    Before: passed: the scan read every file's bytes and no file's name (an archive's member names
    are in its bytes, and were found). Now the names of the files and folders are read as one text.
    Control: the same files named by other numbers pass, as do ordinary names."""
    for name, values in (("honest", OTHER), ("labels", LABELS)):
        folder = tmp_path / name / "labels"
        folder.mkdir(parents=True)
        for i, v in enumerate(values):
            (folder / f"{i}_{v!r}").write_bytes(b"")
        (folder.parent / "checkpoint_epoch_0012.pt").write_bytes(b"")
    assert scan_submission(tmp_path / "honest", [LabelArray("the test labels", LABELS)]) == []
    problems = scan_submission(tmp_path / "labels", [LabelArray("the test labels", LABELS)])
    assert len(problems) == 1 and problems[0].startswith("(the names of its files and folders): holds 300 of the 300")


def test_runs_cut_at_string_widths_stay_within_a_budget():
    """The cost side of the pickled-string-array reader: one 100 MB run cut at eight pickled widths
    (eight markers crafted into a binary file) was 8 × 25 M tokens to parse. The runs cut in one file
    are at most a budget (an eighth of it, 1 MB at least), a run past what is left skipped, so a
    test part's labels are cut whole and a crafted file costs about a quarter more than its scan."""
    from perfgraphs.leaderboard import label_scan

    runs = [b"1" * 100, b"12345678" * 2]
    assert label_scan._cut_at_widths(runs, [4, 8], 50) == [b"1234\n5678\n1234\n5678", b"12345678\n12345678"]
    assert label_scan._cut_at_widths(runs, [4], 10_000) == [b"\n".join([b"1111"] * 25), b"1234\n5678\n1234\n5678"]
    assert label_scan._lines_of(b"12345" * 20_000, 5).split() == [b"12345"] * 20_000  # the numpy path


def test_tier_words_in_authors_are_refused_where_names_are_checked(tmp_path, capsys):
    """Authors ``Tier Verified`` (the pass's last lead) and ``Mal Lory (verified, hidden test set)``
    were accepted by check and read from a hand-written record, shown in the authors column beside
    the row's own tier. Refused now by the one charset check both paths use; controls: surnames that
    are also board words (Rank, Official, Keeper, Reference) and an honest record still pass."""
    import json

    from perfgraphs.leaderboard.records import names
    from perfgraphs.leaderboard.records.results import read_entries
    from test_leaderboard_review_read_20261203 import _with_ratios, _write
    from test_leaderboard_trust import good_record

    for authors in ("Tier Verified", "Mal Lory (verified, hidden test set)", "Mal Lory, Self-Reported",
                    "Mal Lory, reproduced"):
        assert any("tier's word" in p for p in names.check_charset("authors", authors)), authors
    for authors in ("Otto Rank", "Ada Official, Hans Keeper", "Mia Reference", "Mal Lory"):
        assert names.check_charset("authors", authors) == [], authors
    bad = _with_ratios(good_record("tierless-net", authors="Tier Verified"), 120)
    honest = _with_ratios(good_record("honest-net", authors="Otto Rank"), 120)
    results = _write(tmp_path, json.dumps(bad) + "\n" + json.dumps(honest))
    skipped: list[str] = []
    read = read_entries("perfgraphs/dippm", results, skipped)
    assert [e.method for e in read] == ["honest-net"]
    assert any("tier's word" in s for s in skipped), skipped
