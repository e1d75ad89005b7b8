"""Forty-second adversarial pass (2026-12-04), read side: what the readers of records and committed
files trust. Each test states the attack, what stops it now, and a control showing the attack
works without the guard."""

from __future__ import annotations

import shutil
import uuid

import numpy as np
import pytest


def _forge_visits(store_root, favoured, visits: int = 20) -> None:
    """A pull request's shard of ``visits`` passes over the dippm cpu test part, every visit at
    ``favoured``'s predictions, written by the store's own code (part file, compaction, sidecar and
    campaign.json inventory): what `perfgraphs collect verify` accepts."""
    from perfgraphs.collect.floor import TARGET_COLUMNS
    from perfgraphs.collect.store import PARTS, MeasurementStore, to_table
    from perfgraphs.atomic import atomic_write_table
    from perfgraphs.data.build import measurement_root
    from perfgraphs.evaluation.protocol import protocol_parts
    from perfgraphs.leaderboard.records.ranks import per_config_ratios
    from perfgraphs.registry import task

    board = task("perfgraphs/dippm", "cpu-torch-fp32", "latency_ms")
    test = protocol_parts(board)[1].test
    predictions = np.asarray(test["latency_ms"][:], dtype=float) * per_config_ratios(favoured).mean(axis=0)
    own = {r["measurement_id"]: r["key"] for r in MeasurementStore(measurement_root(board.dataset, board.config))
           .read(latest=False).select(["measurement_id", "key"]).to_pylist()}
    store = MeasurementStore(store_root)
    template = {}
    for r in store.round_rows():
        if r["status"] == "ok":
            template.setdefault(r["key"], r)
    rows = []
    for mid, p in zip(test["measurement_id"][:], predictions):
        for k in range(visits):
            row = dict(template[own[mid]], measurement_id=uuid.uuid4().hex, round=100 + k)
            row[TARGET_COLUMNS["latency_ms"]] = float(p)
            rows.append(row)
    atomic_write_table(to_table(rows), store_root / board.config.platform / PARTS / "forged.parquet")
    store.compact()
def forged_store(board, favoured, tmp_path, monkeypatch) -> None:
    """The board's committed repeat store copied under ``tmp_path``, read in its place, with the forged shard of
    visits at ``favoured``'s predictions added (:func:`_forge_visits`)."""
    from perfgraphs import paths

    suite = board.config.repeat_suite
    copy = tmp_path / suite
    shutil.copytree(paths.measurement_store(suite), copy)
    real = paths.measurement_store
    monkeypatch.setattr(paths, "measurement_store", lambda name: copy if name == suite else real(name))
    _forge_visits(copy, favoured)




def test_forged_visits_in_the_repeat_store_do_not_rerank_a_board(tmp_path, monkeypatch):
    """Attack: the visits of a config's test part (``data/measurements/<suite>-test-visits-*``, the
    label repetitions every board of the config ranks against: each label scored against the mean of
    its measurements) are committed files outside ``leaderboard/hidden/`` and no part of the build's
    content hash, so the pin in ``leaderboard/builds.json`` did not cover them. A pull request added
    one shard of 20 passes over the 311 test configurations, each visit at one entry's predictions
    (written with the store's own code: sidecar, campaign.json inventory; `collect verify` passed):
    on the official dippm cpu latency board that entry (layerwise-boost, rank 2 at 10.7 %) went to
    rank 1 at 3.4 % above roofline-boost, not set aside as fitted (the forged visits widen the means'
    standard errors, and so the floor it is tested against). Now the store's files are pinned with
    the build (``repetitions``) and a store that is not the pinned one stops the readers with one
    line. Control: the committed store reads as pinned and ranks roofline-boost first; without the
    pin check the forged store ranks the favoured entry first."""
    from perfgraphs.leaderboard.records import builds
    from perfgraphs.leaderboard.records.builds import RepetitionsPinError, repetitions_pin_problem
    from perfgraphs.leaderboard.records.ranks import label_repetitions, rank_board
    from perfgraphs.leaderboard.records.results import read_entries
    from perfgraphs.leaderboard.site.pages import current_and_superseded
    from perfgraphs.registry import task

    board = task("perfgraphs/dippm", "cpu-torch-fp32", "latency_ms")
    pin = builds.pinned(board)
    entries = [e for e in read_entries("dippm") if (e.config, e.target, e.test_set) == (board.config.name, "latency_ms",
                                                                                      "public")]
    current = current_and_superseded(builds.split_by_build(entries, pin)[1])[0]
    favoured = next(e for e in current if e.method == "layerwise-boost")

    def first(repetitions) -> str:
        ranked = [row for row in rank_board(current, repetitions, official=True).rows if row.ranked is not None]
        return min(ranked, key=lambda row: (row.ranked.rank, row.ranked.mape_pct)).entry.method

    # control: the committed store is the pinned one, and its best entry ranks first
    assert repetitions_pin_problem(board) is None
    assert first(label_repetitions(board)) == "roofline-boost"

    forged_store(board, favoured, tmp_path, monkeypatch)

    with pytest.raises(RepetitionsPinError, match="not the one leaderboard/builds.json pins"):
        label_repetitions(board)
    # control: without the pin check, the forged visits put the favoured entry first
    monkeypatch.setattr(builds, "repetitions_pin_problem", lambda *a, **k: None)
    assert first(label_repetitions(board)) == "layerwise-boost"
