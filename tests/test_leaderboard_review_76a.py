"""Seventy-sixth adversarial pass (2026-12-06), read side: the site's reference warning ("reference
baselines not yet at full strength") read the pin of ``leaderboard/builds.json`` as written, while since the
seventy-second pass the board it stands above ranks ``builds.pinned_build`` (the newest reference record's
build where the pin holds records but is not it). One pull request that only re-pinned dippm's
``cpu-torch-fp32`` to the earlier build every reference had been scored on made the site say "every
applicable reference baseline is at full strength" above a table ranking the current build, where
``trappm`` (not yet re-scored there) is absent and Mal's entry ranks above the field it lacks; a re-pin to a
build holding only Mal's record listed every reference as missing above the references' own rows. Now the
warning reads the build the board ranks (``boards.missing_reference_entries`` through
``builds.split_by_build``)."""

from __future__ import annotations

import json

from test_leaderboard_review_37a import _public_record

REFERENCES = ("layerwise-linear", "layerwise-boost", "static-xgboost", "static-mlp", "dippm-sage", "nnlqp-gnn",
              "trappm")
OLD, CURRENT, MAL = "a" * 64, "937e48dcc8bf596136be1b5c0baae0fb04da8e04513cf2140a31804dd3926125", "e" * 64


def _results(tmp_path):
    """Every reference at full strength on an earlier build; all but ``trappm`` re-scored on the current
    build (the pinned one); Mal's reproduced entry on the current build and one on Mal's own build."""
    results = tmp_path / "leaderboard" / "results"
    results.mkdir(parents=True)
    records = [_public_record(method=m, dataset_content_hash=OLD, date_utc=f"2026-11-20T0{i}:00:00+00:00",
                              run_identity=f"old-{m}") for i, m in enumerate(REFERENCES)]
    records += [_public_record(method=m, run_identity=f"now-{m}", date_utc=f"2026-11-28T0{i}:00:00+00:00")
                for i, m in enumerate(REFERENCES) if m != "trappm"]
    records += [_public_record("static-xgboost", method="mal-net", authors="Mal Lory", run_identity=f"mal-{h[0]}",
                               dataset_content_hash=h, date_utc="2026-11-29T00:00:00+00:00") for h in (CURRENT, MAL)]
    (results / "dippm.jsonl").write_text("".join(json.dumps(r, sort_keys=True) + "\n" for r in records))
    return results


def _pin(results, content_hash: str) -> None:
    """The config's pin (the fields `pin-builds` writes); Mal's pull request changes only its hash."""
    (results.parent / "builds.json").write_text(json.dumps({"perfgraphs/dippm cpu-torch-fp32": {
        "content_hash": content_hash, "generators": {}, "test_n": {"latency_ms": 311, "peak_memory_mb": 311}}}))


def _warning(results) -> list[str]:
    """What the site's reference warning of the dippm CPU latency board lists, and the builds its table ranks."""
    from perfgraphs.leaderboard.records.boards import missing_reference_entries, official
    from perfgraphs.leaderboard.records.builds import read_pins, pins_file, split_by_build
    from perfgraphs.leaderboard.records.results import read_entries

    board = official("perfgraphs/dippm", "cpu-torch-fp32", "latency_ms")
    on_board = [e for e in read_entries("dippm", results) if (e.config, e.target) == ("cpu-torch-fp32", "latency_ms")]
    build = split_by_build(on_board, read_pins(pins_file(results)).get("perfgraphs/dippm cpu-torch-fp32"))[0]
    assert build == CURRENT, build  # the table ranks the current build whatever the pin (seventy-second pass)
    return missing_reference_entries(results).get(board, [])


def test_a_re_pin_neither_hides_nor_forges_the_reference_warning(tmp_path, monkeypatch):
    """Attack: honestly pinned to the current build, the warning names ``trappm``. Mal's pull request
    re-pins the config to the earlier build (where every reference has a record): the board still ranks the
    current build, and the warning said every reference was at full strength; re-pinned to Mal's own
    build, it listed all seven as missing. Now both re-pins leave the warning as the ranked build has it.
    Control: with the pin read as written (the rule before), the first re-pin hides the true warning and
    the second forges one."""
    from perfgraphs.leaderboard.records import boards
    from perfgraphs.leaderboard.site.pages import build_site

    results = _results(tmp_path)
    _pin(results, CURRENT)
    assert _warning(results) == ["trappm"]
    _pin(results, OLD)
    assert _warning(results) == ["trappm"]
    page = build_site(tmp_path / "site", results).read_text()
    assert "reference baselines not yet at full strength: trappm" in page
    _pin(results, MAL)
    assert _warning(results) == ["trappm"]

    # control: the warning reads the pin as written, as before
    monkeypatch.setattr(boards, "_on_ranked_build", lambda on_board, pin: [
        e for e in on_board if e.dataset_content_hash == pin["content_hash"]])
    _pin(results, OLD)
    assert _warning(results) == []
    _pin(results, MAL)
    assert _warning(results) == list(REFERENCES)
