"""Fortieth adversarial pass (2026-12-04), read side: what a record says about how it was scored,
against its own tier; whose word a board's test size is; and a pull request whose diff is empty,
fast-forwarded, re-dating another team's line (its name, its record beside a later reference)."""

from __future__ import annotations

import json

import pytest

from test_leaderboard_review_37a import _public_record  # noqa: F401 — shared helpers


def _self_reported(**changes) -> dict:
    """A predictions-files record as ``submit`` writes one: nothing measured (dippm CPU latency)."""
    return _public_record("static-mlp", **{
        "method": "mal-net", "authors": "Mal Lory", "run_identity": "mal-1", "code_commit": "1" * 40,
        "tier": "self-reported", "hardware": "not measured (self-reported)", "isolation": "", "fit_seconds": None,
        "fit_cpu_seconds": None, "cores": None, "predictions_per_second": None, "num_params": None,
        "peak_memory_mb": None, **changes})



@pytest.fixture(autouse=True)
def _forget_tmp_references():
    """Each test reads records under a tmp reference folder: what was cached under it (the reference
    names, the references' code checks, the lines checked) is forgotten after it, or later tests read
    the committed records against the tmp folder's references."""
    from perfgraphs.leaderboard.records import results, trust

    yield
    for cached in (trust.reference_spellings, trust._reference_code_problem, trust._reference_files):
        cached.cache_clear()
    results.forget_checked()

def test_a_self_reported_record_does_not_claim_the_harness_measured_it(tmp_path, monkeypatch):
    """Attack: a pull request adds a *self-reported* record (predictions files: nothing ran here)
    that also writes what only the harness measures: ``peak_memory_mb: 12``, ``isolation:
    bubblewrap``, a 0.1 s fit and 10**6 predictions/s. Every reader showed it: its page said
    "12 MB (measured by the harness)" and "isolation bubblewrap", and its row led the board's
    predictions/s and fit-time columns beside the measurements of the entries the harness ran. (The
    twenty-sixth pass refused the converse, a harness tier whose fields say nothing ran.) Now such a
    record is skipped with one warning naming what it claims. Control: without that check it is read
    and its page says the harness measured it; the same record as ``submit`` writes it is read."""
    from perfgraphs.leaderboard.records import results
    from perfgraphs.leaderboard.site.pages import _entry_page

    folder = tmp_path / "results"
    folder.mkdir()
    path = folder / "dippm.jsonl"
    honest = _self_reported()
    claims = _self_reported(peak_memory_mb=12.0, isolation="bubblewrap", fit_seconds=0.1,
                            predictions_per_second=1e6, run_identity="mal-2")
    assert results.read_line(json.dumps(honest), path)[1] is None
    record, why = results.read_line(json.dumps(claims), path)
    assert why is not None and "says nothing ran here" in why and "peak_memory_mb" in why and "bubblewrap" in why, why
    path.write_text(json.dumps(honest) + "\n" + json.dumps(claims) + "\n")
    skipped: list[str] = []
    assert [e.run_identity for e in results.read_entries("dippm", folder, skipped)] == ["mal-1"]
    assert len(skipped) == 1 and "dippm.jsonl:2:" in skipped[0] and "\n" not in skipped[0], skipped

    # control: without the check, the record is read and its page credits the harness
    monkeypatch.setattr(results, "_measured_problem", lambda record: None)
    record, why = results.read_line(json.dumps(claims), path)
    assert why is None
    page = _entry_page(results.Entry(**record), "", "")
    assert "12 MB (measured by the harness" in page and "bubblewrap" in page and "tier self-reported" in page


def test_a_pull_request_with_an_empty_diff_does_not_move_a_name(tmp_path, monkeypatch):
    """Attack: a name belongs to the first record on the main line (``--first-parent``) that has
    held it without a gap. Alice's ``gnn-x`` is recorded; Eve's hand-written ``gnn-x`` merged after
    it is nobody's. A pull request of two commits, fast-forwarded onto the main line (git's default
    merge when the main line has not moved; a rebase merge does the same), removes Alice's line and
    puts it back: its diff is empty, and Alice's name re-dated after Eve's, so ``check`` refused
    Alice her own method and passed Eve's. Now a gap in which no competing record arrived is no gap.
    A name retracted, taken meanwhile and written again still re-dates (twentieth pass). Control:
    with every gap counted (the rule before), the same history gives the name to Eve."""
    from test_leaderboard_review_20261202 import _ALICE, _git, _records_repo

    from perfgraphs.leaderboard.records import check
    from perfgraphs.registry import task

    board = task("perfgraphs/dippm", "h200-torch-fp32", "latency_ms")
    results, add = _records_repo(tmp_path)
    add(_ALICE)
    add({"method": "gnn-x", "authors": "Eve Evil", "run_identity": "eve-1"})
    path = results / "dippm.jsonl"
    text = path.read_text()
    path.write_text("".join(text.splitlines(keepends=True)[1:]))  # Alice's line out ...
    _git(results, "commit", "-q", "-am", "tidy")
    path.write_text(text)  # ... and back: the pull request's diff is empty
    _git(results, "commit", "-q", "-am", "tidy")
    assert path.read_text() == text

    assert check.check_name_owner(results, board, "gnn-x", "Alice Author") == []
    assert "is recorded by 'Alice Author'" in " ".join(check.check_name_owner(results, board, "gnn-x", "Eve Evil"))
    # a competing record that arrives while Alice's is out re-dates it, as a name retracted and taken
    taken = tmp_path / "taken"
    taken.mkdir()
    results2, add2 = _records_repo(taken)
    add2(_ALICE)
    text2 = (results2 / "dippm.jsonl").read_text()
    (results2 / "dippm.jsonl").write_text("")
    _git(results2, "commit", "-q", "-am", "retract")
    add2({"method": "gnn-x", "authors": "Eve Evil", "run_identity": "eve-1"})
    (results2 / "dippm.jsonl").write_text(text2 + (results2 / "dippm.jsonl").read_text())
    _git(results2, "commit", "-q", "-am", "again")
    assert check.check_name_owner(results2, board, "gnn-x", "Eve Evil") == []

    # control: every gap re-dates (the rule before), and the empty pull request hands the name to Eve
    monkeypatch.setattr(check, "_put_back", lambda key, ended, arrivals: False)
    assert check.check_name_owner(results, board, "gnn-x", "Eve Evil") == []
    assert "is recorded by 'Eve Evil'" in " ".join(check.check_name_owner(results, board, "gnn-x", "Alice Author"))


def test_a_hand_written_record_does_not_state_a_boards_test_size(tmp_path, capsys, monkeypatch):
    """Attack: a board whose test size ``leaderboard/builds.json`` does not pin (dippm's unpinned
    ``amd-epyc-23059b2f-torch-fp32``, a target the pin does not list) stated the first seed's ``n``
    of its first current record, the one dated oldest, and a date is written by hand. A pull request
    adds a *self-reported* line dated 2020 with ``n: 7`` and no per-configuration ratios (nothing to
    check the count by): ``leaderboard show`` and the site titled the board "test n = 7" above the
    reference ranked on its 311 configurations (boards under 100 are not ranked). Now the test size
    is the board's configurations' (``ranks.board_test_n``: the references', else one record a team;
    never a self-reported record's). Control: with the first record's ``n`` (the rule before), 7."""
    from test_leaderboard_review_37a import UNPINNED, _board, _show

    from perfgraphs.leaderboard.records import ranks
    from perfgraphs.leaderboard.records.results import Entry
    from perfgraphs.leaderboard.site import pages

    reference = _public_record(config=UNPINNED)
    line = _self_reported(config=UNPINNED, date_utc="2020-01-01T00:00:00+00:00", actual_vs_predicted=[])
    line["per_seed"] = [{k: s[k] for k in ("seed", "mape_pct", "rmse", "acc_10_pct", "kendall_tau")} | {"n": 7}
                        for s in line["per_seed"]]
    results = tmp_path / "results"
    results.mkdir()
    (results / "dippm.jsonl").write_text(json.dumps(reference) + "\n" + json.dumps(line) + "\n")
    title = f"perfgraphs/dippm · {UNPINNED} · latency_ms"
    board = _board(_show(results, capsys), title)
    assert "test n = 311" in board and "mal-net" in board, board
    current = [Entry(**line), Entry(**reference)]  # the oldest first, as the boards list them
    assert "test n = 311" in pages.board_facts(None, "latency_ms", current, None)

    # control: the first current record's own n
    before = lambda entries: entries[0].per_seed[0].get("n")  # noqa: E731
    monkeypatch.setattr(ranks, "board_test_n", before)
    monkeypatch.setattr(pages, "board_test_n", before)
    assert "test n = 7" in _board(_show(results, capsys), title)
    assert "test n = 7" in pages.board_facts(None, "latency_ms", current, None)


def test_a_pull_request_with_an_empty_diff_does_not_hide_a_record_behind_a_later_reference(tmp_path, monkeypatch):
    """Attack: Alice's ``gnn-x`` is recorded; a reference folder ``gnn`` merged after it does not take
    her name (thirty-sixth pass: a record whose line reached the main line first stays shown). A pull
    request of two commits fast-forwarded onto the main line takes her line out and puts it back (an
    empty diff): her line then "arrived" after the folder, and every board stopped showing her
    record. Now a gap that did not span the folder's arrival is no gap (``history.held_before``); a
    line out when the folder came and written again after it is still refused. Control: with the
    line's last arrival alone (the rule before), the empty pull request hides Alice's record."""
    from test_leaderboard_review_36a import _git

    from perfgraphs.leaderboard.records import history, results, trust

    repo = tmp_path / "repo"
    (repo / "results").mkdir(parents=True)
    (repo / "reference").mkdir()
    _git(repo, "init", "-q", "-b", "main")
    path = repo / "results" / "dippm.jsonl"
    alice = json.dumps(_public_record(method="gnn-x", authors="Alice Author", run_identity="alice-1",
                                      tier="reproduced"), sort_keys=True) + "\n"
    bob = json.dumps(_public_record(method="gnn-y", authors="Bob Builder", run_identity="bob-1",
                                    tier="reproduced"), sort_keys=True) + "\n"
    carol = json.dumps(_public_record(method="carol-net", authors="Carol Coder", run_identity="carol-1",
                                      tier="reproduced"), sort_keys=True) + "\n"

    def commit(text: str | None = None) -> None:
        if text is not None:
            path.write_text(text)
        _git(repo, "add", "-A")
        _git(repo, "commit", "-q", "--allow-empty", "-m", "change")

    commit(alice + carol)
    (repo / "reference" / "gnn").mkdir()
    (repo / "reference" / "gnn" / "README.md").write_text("a reference baseline, coming soon\n")
    commit()
    commit(carol)  # the pull request: Alice's line out ...
    commit(alice + carol)  # ... and back
    monkeypatch.setattr(trust, "REFERENCE_DIR", repo / "reference")

    def shown() -> list[str]:
        trust.reference_spellings.cache_clear()
        results.forget_checked()
        return [e.method for e in results.read_entries("dippm", repo / "results", [])]

    assert shown() == ["gnn-x", "carol-net"]
    # Bob's gnn-y, out when the folder came and written again since, is refused (a real gap)
    other = tmp_path / "other"
    other.mkdir()
    _git(other, "init", "-q", "-b", "main")
    (other / "results").mkdir()
    (other / "reference").mkdir()
    path = other / "results" / "dippm.jsonl"
    repo = other
    commit(alice + bob)
    commit(alice)
    (other / "reference" / "gnn").mkdir()
    (other / "reference" / "gnn" / "README.md").write_text("coming soon\n")
    commit()
    commit(alice + bob)
    monkeypatch.setattr(trust, "REFERENCE_DIR", other / "reference")
    assert shown() == ["gnn-x"]

    # control: the line's last arrival alone, as before: the empty pull request hides Alice's record
    repo = tmp_path / "repo"
    monkeypatch.setattr(trust, "REFERENCE_DIR", repo / "reference")
    monkeypatch.setattr(history, "held_before", lambda runs, moment: bool(runs) and runs[-1][0] < moment)
    assert shown() == ["carol-net"]
