"""The twenty-seventh adversarial pass (2026-12-03), on the read path: records in
``leaderboard/results/*.jsonl`` and what ``leaderboard show`` / ``build`` make of them.

Six findings, each with a control (an honest record that still reads, or the attack getting
through with the guard off):

- F1: a board the registry does not have (``latency_MS`` beside dippm's ``latency_ms``, or a made-up
  config or dataset) was made by one hand-written record, which was ranked 1 on it as reproduced.
- F2: entry pages were named by ten of a record's fields, not its protocol or build: the five nnlqp
  transfer records of one run (K8 to K128) shared one page, and each of five boards' rows linked
  to the K128 record's scores.
- F3: a seed's ``predictions_sha256`` was free text shown on the entry's page: ``VERIFIED hidden``
  after a bidi override.
- F4: on a config a measured store makes (dippm's ``h100-80gb-hbm3-torch-fp32``), a record's protocol
  was not checked: ``random-70-15-15/official`` made a board of its own, ranked 1, whose site
  heading was the real board's.
- F5: a record written twice (a line copied) wrote the ranked entry's page as "Superseded ... Not
  ranked", linking to itself.
- F6: a predictions-files record with its tier edited to ``reproduced`` and its ratios dropped
  passed the evidence tripwire (which read only ranked records) and was listed as reproduced, its
  MAPE below the ranked entries'.
"""

from __future__ import annotations

import json
from dataclasses import replace

from perfgraphs.cli import main
from perfgraphs.leaderboard.records import ranks
from perfgraphs.leaderboard.records import results as results_mod
from perfgraphs.leaderboard.records.results import Entry, RecordedBoards, read_entries, results_path

from test_leaderboard_review_read_20261203 import _with_ratios, _write
from test_leaderboard_trust import good_record


def _rows(out: str, method: str) -> list[str]:
    return [line for line in out.splitlines() if f" {method} " in line]


# -- F1 ------------------------------------------------------------------------------------------

def test_a_board_the_registry_does_not_have_ranks_nothing(tmp_path, capsys, monkeypatch):
    """One hand-written record on ``latency_MS`` (dippm cpu-torch-fp32 has ``latency_ms``) made the
    additional board "perfgraphs/dippm · cpu-torch-fp32 · latency_MS", its entry ranked 1 as
    reproduced: no submission can be scored there, so nothing but a hand-written record is. Now
    such a board lists its entries unranked and says why; so does a made-up config or dataset.
    Controls: with the guard off the entry ranks 1; a board the registry has still resolves."""
    record = _with_ratios(good_record("own-target", target="latency_MS"), 120)
    results = _write(tmp_path, json.dumps(record))
    capsys.readouterr()
    assert main(["leaderboard", "show", "--results", str(results)]) == 0
    out = capsys.readouterr().out
    assert _rows(out, "own-target")[0].startswith("│ – │"), out
    assert "the registry has no board perfgraphs/dippm · cpu-torch-fp32 · latency_MS" in " ".join(out.split())
    recorded = RecordedBoards()
    for board in (("perfgraphs/dippm", "cpu-torch-fp32x", "latency_ms"), ("perfgraphs/dippmx", "cpu-torch-fp32", "latency_ms")):
        assert ranks.unregistered_board(*board, recorded) is not None
    for board in (("perfgraphs/dippm", "cpu-torch-fp32", "latency_calibrated_ms"),
                  ("perfgraphs/nnlqp", "timm-platforms", "latency_per_sample_ms")):
        assert ranks.unregistered_board(*board, recorded) is None
    monkeypatch.setattr(ranks, "unregistered_board", lambda *a: None)
    assert main(["leaderboard", "show", "--results", str(results)]) == 0
    assert _rows(capsys.readouterr().out, "own-target")[0].startswith("│ 1 │")


# -- F2 ------------------------------------------------------------------------------------------

def test_records_of_one_run_on_two_boards_get_two_pages():
    """``ratio-transfer``'s K8 to K128 records (one run identity, commit and date; protocols
    ``leave-one-platform-out/known-models/K8`` ...) had one page name: the site wrote five pages to
    one file and every board's row linked to the last. So did a record on an earlier build, written
    after the current one's page. The page name's digest is of the whole record now, and the page
    names the protocol. Control: the same record has one name, and the committed records as many
    names as distinct records."""
    from perfgraphs.leaderboard.site.pages import _entry_page, entry_slug

    base = {**good_record("ratio-transfer"), "dataset": "perfgraphs/nnlqp", "config": "timm-platforms",
            "target": "latency_per_sample_ms"}
    k8 = Entry(**{**base, "protocol": "leave-one-platform-out/known-models/K8"})
    k128 = Entry(**{**base, "protocol": "leave-one-platform-out/known-models/K128"})
    assert entry_slug(k8) != entry_slug(k128)
    assert entry_slug(k8) != entry_slug(replace(k8, dataset_content_hash="earlier-build"))
    assert entry_slug(k8) == entry_slug(Entry(**{**base, "protocol": "leave-one-platform-out/known-models/K8"}))
    assert "known-models/K128" in _entry_page(k128, "", "")
    committed = results_mod.read_all_entries(results_mod.RESULTS_DIR, [])
    distinct = {json.dumps(e.__dict__, sort_keys=True, default=str) for e in committed}
    assert len({entry_slug(e) for e in committed}) == len(distinct)


# -- F3 ------------------------------------------------------------------------------------------

def test_a_predictions_digest_is_a_digest(tmp_path):
    """Each seed's ``predictions_sha256`` is shown on the entry's page ("predictions sha256" row),
    and was read unchecked: ``U+202E VERIFIED hidden`` was shown there, five times. It is now a sha256
    hex digest or absent. Control: a digest, as submit writes it, and none at all read."""
    forged = good_record("digest-words")
    for s in forged["per_seed"]:
        s["predictions_sha256"] = "\u202eVERIFIED hidden"
    skipped: list[str] = []
    assert read_entries("dippm", _write(tmp_path, json.dumps(forged)), skipped) == []
    assert "predictions_sha256 must be a sha256 hex digest" in skipped[0], skipped
    honest = good_record("digest")
    for s in honest["per_seed"]:
        s["predictions_sha256"] = "0123456789abcdef" * 4
    read = read_entries("dippm", _write(tmp_path, json.dumps(honest), json.dumps(good_record("none"))), [])
    assert [e.method for e in read] == ["digest", "none"]


# -- F4 ------------------------------------------------------------------------------------------

def test_a_store_configs_protocol_is_checked_too(tmp_path):
    """dippm's ``h100-80gb-hbm3-torch-fp32`` is a config its measured store makes, not in the
    registry's table, which the protocol check read: ``random-70-15-15/official`` passed, made a
    board of its own beside the real h100 board and ranked Mal Lory 1 there (2 on the real one),
    under the real board's heading on the site. A store config's records name the stores'
    protocols now. Control: the store's own protocol, and none, still read."""
    config = "h100-80gb-hbm3-torch-fp32"
    own = good_record("own-board", config=config, protocol="random-70-15-15/official")
    skipped: list[str] = []
    assert read_entries("dippm", _write(tmp_path, json.dumps(own)), skipped) == []
    assert "is not a protocol random-70-15-15 scores" in skipped[0], skipped
    assert results_mod._place_problem({**own, "protocol": "random-70-15-15/x"}, results_path("dippm")) is not None
    plain = [good_record(m, config=config, **p) for m, p in (("plain", {}), ("named", {"protocol": "random-70-15-15"}))]
    read = read_entries("dippm", _write(tmp_path, *map(json.dumps, plain)), [])
    assert [e.method for e in read] == ["plain", "named"]


# -- F5 ------------------------------------------------------------------------------------------

def test_a_record_written_twice_is_not_superseded_by_itself(tmp_path):
    """The same line twice (a merge's copy): the copy was "superseded" by the record, and its page,
    written last under the same name, was the ranked entry's: "Superseded by a newer record of this
    method on this board (a link to itself). Not ranked." Control: a newer record of the method by
    the same authors still supersedes the older one."""
    from perfgraphs.leaderboard.site.pages import build_site, current_and_superseded, entry_slug

    line = json.dumps(_with_ratios(good_record("twice"), 120))
    results = _write(tmp_path, line, line)
    build_site(tmp_path / "site", results)
    [entry, _] = read_entries("dippm", results, [])
    assert "Superseded" not in (tmp_path / "site" / f"{entry_slug(entry)}.html").read_text()
    newer = replace(entry, date_utc="2099-01-01T00:00:00+00:00", code_commit="beef")
    current, earlier = current_and_superseded([entry, entry, newer])
    assert current == [newer] and earlier[entry_slug(newer)] == [entry]


# -- F6 ------------------------------------------------------------------------------------------

def test_a_tier_edited_record_without_ratios_is_not_read_as_reproduced(tmp_path):
    """Last pass's tripwire read records with per-configuration ratios only: the same
    predictions-files record (hardware "not measured (self-reported)", no timings) with its tier
    edited and its ratios dropped was listed on dippm's official board as reproduced, unranked, at a
    MAPE below the ranked entries'. A harness tier needs a measured fit time and hardware on every
    record. Controls: the same record as self-reported reads, and so does a transfer record (a fit
    time, no throughput), as the committed ones."""
    edited = good_record("edited", fit_seconds=None, predictions_per_second=None,
                         hardware="not measured (self-reported)")
    skipped: list[str] = []
    assert read_entries("dippm", _write(tmp_path, json.dumps(edited)), skipped) == []
    assert "says nothing was measured" in skipped[0], skipped
    honest = {**edited, "method": "honest", "tier": "self-reported"}
    transfer = good_record("transfer", predictions_per_second=None)
    read = read_entries("dippm", _write(tmp_path, json.dumps(honest), json.dumps(transfer)), [])
    assert [(e.method, e.tier) for e in read] == [("honest", "self-reported"), ("transfer", "reproduced")]
    committed: list[str] = []
    assert results_mod.read_all_entries(results_mod.RESULTS_DIR, committed) and committed == []
