"""Thirty-sixth adversarial pass (2026-12-04), read side: what the readers of the results files say
and whose records they show."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]


def _git(repo: Path, *args: str) -> str:
    return subprocess.run(["git", "-C", str(repo), "-c", "user.name=someone", "-c", "user.email=s@example.org", *args],
                          check=True, capture_output=True, text=True).stdout


def _public_record(**changes) -> dict:
    """A committed reference record of the dippm CPU latency board, with ``changes``."""
    for line in (REPO / "leaderboard" / "results" / "dippm.jsonl").read_text().splitlines():
        r = json.loads(line)
        if (r["config"], r["target"], r.get("test_set"), r["method"]) == ("cpu-torch-fp32", "latency_ms", "public",
                                                                          "static-mlp"):
            return {**r, **changes}
    raise AssertionError("no static-mlp record on the dippm cpu latency board")


def test_a_results_file_named_with_escapes_warns_in_one_escaped_line(tmp_path, capsys, monkeypatch):
    """Attack: a pull request commits a results file whose *name* holds a carriage return, terminal
    escapes and a line break (``x CR ESC[2K ESC[1A info: dippm board ok, every record verified ...
    LF z.jsonl``, one line ``not json``). ``leaderboard show`` and ``build`` warned about its line with
    the file's name raw (only the reason was escaped): on the reviewer's terminal the warning was
    erased and the forged line stood alone. Now the whole warning is escaped: one line, no control
    character. Control: without the escaping (``printable`` as the identity, as the file's name was
    printed before) the escapes and the line break reach stderr."""
    from perfgraphs.leaderboard.records import results

    forged = "x\r\x1b[2K\x1b[1Ainfo: dippm board ok, every record verified (rank 1: gnn-x by Mal Lory)\nz.jsonl"

    def warned(folder: Path) -> str:
        folder.mkdir()
        (folder / forged).write_text("not json\n")
        assert results.read_all_entries(folder) == []
        return capsys.readouterr().err

    err = warned(tmp_path / "now")
    assert len(err.splitlines()) == 1 and not any(c in err for c in "\r\x1b"), repr(err)
    assert "\\x1b[2K" in err and "not JSON" in err

    monkeypatch.setattr(results, "printable", lambda text: str(text))  # control: the guard away
    err = warned(tmp_path / "before")
    assert "\x1b[2K" in err and "\r" in err and err.count("\n") == 2, repr(err)


def test_a_reference_folder_added_later_does_not_take_a_teams_recorded_name(tmp_path, monkeypatch):
    """Attack: Alice Author's ``gnn-x`` is recorded and merged; a later pull request adds a folder
    ``leaderboard/reference/gnn/`` holding any one file (a "coming soon" README). The readers count
    every reference folder as a reserved name, and ``gnn-x`` takes ``gnn``: every board stopped
    showing Alice's records (one warning line), though rule 5 gives a name to whoever recorded it
    first. Now a record by other authors under a reference's name is shown when its line reached the
    main line before the reference's folder did; one merged after it (Bob's ``gnn-y``), or a record
    not committed, is still refused. Control: without the check of the order (the guard returning
    False) Alice's record is skipped too."""
    from perfgraphs.leaderboard.records import results, trust

    repo = tmp_path / "repo"
    (repo / "results").mkdir(parents=True)
    (repo / "reference").mkdir()
    _git(repo, "init", "-q", "-b", "main")
    path = repo / "results" / "dippm.jsonl"

    def commit(message: str, *records: dict) -> None:
        with path.open("a") as f:
            f.writelines(json.dumps(r, sort_keys=True) + "\n" for r in records)
        _git(repo, "add", "-A")
        _git(repo, "commit", "-q", "-m", message)

    commit("gnn-x by Alice", _public_record(method="gnn-x", authors="Alice Author", run_identity="alice-1",
                                            tier="reproduced"))
    (repo / "reference" / "gnn").mkdir()
    (repo / "reference" / "gnn" / "README.md").write_text("a reference baseline, coming soon\n")
    commit("reference gnn")
    commit("gnn-y by Bob", _public_record(method="gnn-y", authors="Bob Builder", run_identity="bob-1",
                                          tier="reproduced"))
    with path.open("a") as f:  # not committed: after everything
        f.write(json.dumps(_public_record(method="gnn-z", authors="Carol Coder", run_identity="carol-1",
                                          tier="reproduced"), sort_keys=True) + "\n")
    monkeypatch.setattr(trust, "REFERENCE_DIR", repo / "reference")

    def shown() -> tuple[list[str], list[str]]:
        trust.reference_spellings.cache_clear()
        results.forget_checked()
        skipped: list[str] = []
        return [e.method for e in results.read_entries("dippm", repo / "results", skipped)], skipped

    methods, skipped = shown()
    assert methods == ["gnn-x"], (methods, skipped)
    assert len(skipped) == 2 and all("takes the reference baseline name 'gnn'" in s for s in skipped), skipped

    monkeypatch.setattr(trust, "_named_before_its_reference", lambda *a: False)  # control: the guard away
    methods, skipped = shown()
    assert methods == [] and len(skipped) == 3, (methods, skipped)
    trust.reference_spellings.cache_clear()


def test_a_gitattributes_line_that_converts_the_results_checkout_stops_the_readers(tmp_path, monkeypatch):
    """Attack: a pull request adds one line, ``*.jsonl working-tree-encoding=UTF-16``, to
    ``leaderboard/results/.gitattributes``. Every fresh clone then checks the results files out as
    UTF-16: ``leaderboard show`` and ``build`` skipped every line of every file (one warning each)
    and said of each board that no entry had been scored on it, while the history readers, which
    read the committed blobs, still found the records; and ``submit`` appended a UTF-8 record to the
    UTF-16 file, which git then converted back as one. Now a results file whose checkout git
    converts (``working-tree-encoding``, ``filter``, ``ident``) stops the readers in one line
    (``ResultsCheckoutError``), and the writer refuses to append, the file untouched. Control: without
    the check the clone's reader finds no record at all in a file that holds one. The same for the
    list of frozen hidden-set records (``leaderboard/hidden/unsigned-records.txt``), converted by a
    ``.gitattributes`` line at the top of the repository, outside the organisers' folder: no line
    matched and the live set's ten verified records left every board; now one line."""
    from perfgraphs.leaderboard.records import results

    origin = tmp_path / "origin"
    (origin / "results").mkdir(parents=True)
    _git(origin, "init", "-q", "-b", "main")
    record = _public_record(method="gnn-x", authors="Alice Author", run_identity="alice-1", tier="reproduced")
    (origin / "results" / "dippm.jsonl").write_text(json.dumps(record, sort_keys=True) + "\n")
    (origin / "hidden").mkdir()
    frozen = ("a" * 64, "b" * 64)
    (origin / "hidden" / "unsigned-records.txt").write_text(" ".join(frozen) + "\n")
    _git(origin, "add", "-A")
    _git(origin, "commit", "-q", "-m", "gnn-x by Alice, a frozen record")
    (origin / "results" / ".gitattributes").write_text("*.jsonl working-tree-encoding=UTF-16\n")
    # and one at the top, outside the organisers' folder, for the frozen records' list
    (origin / ".gitattributes").write_text("hidden/*.txt working-tree-encoding=UTF-16\n")
    _git(origin, "add", "results/.gitattributes", ".gitattributes")  # the pull request's lines
    _git(origin, "commit", "-q", "-m", "attributes")
    clone = tmp_path / "clone"
    subprocess.run(["git", "clone", "-q", str(origin), str(clone)], check=True, capture_output=True)
    path = clone / "results" / "dippm.jsonl"
    assert path.read_bytes()[:2] in (b"\xff\xfe", b"\xfe\xff")  # checked out as UTF-16
    results.forget_checked()

    try:
        results.read_entries("dippm", clone / "results", [])
        raise AssertionError("a converted checkout was read")
    except results.ResultsCheckoutError as exc:
        assert "working-tree-encoding=UTF-16" in str(exc) and "\n" not in str(exc)
    before = path.read_bytes()
    try:
        results.append_entry(results.Entry(**{**record, "run_identity": "alice-2", "code_commit": "b" * 40}),
                             clone / "results")
        raise AssertionError("a record was appended to a converted checkout")
    except results.InvalidRecordError as exc:
        assert "working-tree-encoding" in str(exc)
    assert path.read_bytes() == before

    from perfgraphs.leaderboard.records import hidden, keeper_key

    keeper_key._first_committed.cache_clear()
    try:
        keeper_key.unsigned_records(clone / "hidden")
        raise AssertionError("a converted list of frozen records was read")
    except hidden.HiddenLabelsError as exc:
        assert "unsigned-records.txt" in str(exc) and "working-tree-encoding=UTF-16" in str(exc)

    # control: the guard away, the clone's reader finds no record in a file that holds one, and no
    # frozen record in the list (the live set's verified records left every board)
    monkeypatch.setattr(results, "checkout_problem", lambda path: None)
    monkeypatch.setattr(keeper_key, "converted_checkout", lambda path: None)
    skipped: list[str] = []
    assert results.read_entries("dippm", clone / "results", skipped) == [] and skipped, skipped
    assert keeper_key.unsigned_records(clone / "hidden") == frozenset()  # though git holds the line
    assert " ".join(frozen) in _git(clone, "show", "HEAD:hidden/unsigned-records.txt")
