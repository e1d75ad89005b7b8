"""Eighty-third adversarial pass (2026-12-06), submit side: a harness-fitted hidden run trained on data
that landed after its set was drawn. ``frozen_fits.code_before`` dates the folder's code, but the run
fits on the public build the keeper loads at scoring time, and nothing tied that build to the one of the
draw: a pull request after the draw that only added committed measurements of a hidden family's
neighbour (densenet201's rows beside a hidden densenet121) to a public store (and re-pinned
``builds.json``), the keeper's build holding them, made the example ridge, committed before the draw and
unchanged, score a keeper-signed *verified* 14.5 % MAPE on the hidden set where its fit on the build of
the draw earns 40.6 %. Now a harness-fitted hidden run fits only on the build ``builds.json`` pinned just
before the set's hash was published (``submit._fitted_build_problems``, ``frozen_fits.pins_before``)."""

from __future__ import annotations

import json
import os
import shutil

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq
import pytest

from perfgraphs.leaderboard import submit as submit_module
from test_leaderboard_review_67b import _predict, _refit
from test_leaderboard_review_79b import _record
from test_submit import (BOARD, commit_tiny_hidden_set, env, example_copy, numpy_mape, parts,  # noqa: F401 — fixtures
                         run_cli)

pytestmark = pytest.mark.skipif(os.geteuid() != 0 or shutil.which("bwrap") is None,
                                reason="a hidden board's runs drop the page cache and run in the sandbox")

NEIGHBOUR = "timm:densenet201"  # a committed public measurement, the hidden densenet121's family


def _home_after_the_draw(tiny_labeled_sources, root):
    """The keeper's build after a pull request that added the neighbour's committed rows to the store."""
    from perfgraphs import paths
    from perfgraphs.collect.store import MeasurementStore, load_measurements
    from perfgraphs.data.build import build_labeled_config, measurement_root
    from perfgraphs.evaluation.protocol import load_protocol
    from perfgraphs.pool.graph_pool import GraphPool
    from perfgraphs.pool.structures import structure_id
    from perfgraphs.registry import get_dataset

    rows, pool_dir = tiny_labeled_sources
    ds = get_dataset("dippm")
    cfg = ds.config("cpu-torch-fp32")
    added = [r for r in load_measurements(measurement_root(ds, cfg)).to_pylist()
             if r["model"] == NEIGHBOUR and r["status"] == "ok" and r["platform"] == cfg.platform]
    sids = pa.array(sorted({structure_id(r["model"], r["image_size"], r["seq_len"]) for r in added}))
    pool = root / "pool"
    pool.mkdir(parents=True)
    shutil.copy(pool_dir / "part-00000.parquet", pool / "part-00000.parquet")
    pq.write_table(pa.concat_tables([t.filter(pc.is_in(t.column("structure_id"), sids))
                                     for t in map(pq.read_table, sorted(paths.graph_pool_dir().glob("*.parquet")))]),
                   pool / "part-00001.parquet")
    store = MeasurementStore(root / "measurements")
    for r in rows + added:
        store.append(r)
    build_labeled_config(ds, cfg, pool=GraphPool(pool), home=root / "home", measurements=root / "measurements")
    return root / "home", load_protocol("dippm", "cpu-torch-fp32", root / "home")


def test_rows_added_after_the_draw_are_not_fitted_on(env, parts, tiny_labeled_sources, capsys, git_commitments,
                                                     monkeypatch):
    """Attack: the ridge committed before the draw; after it, the neighbour's rows land in the public
    store and the pin moves to that build; the keeper's run is refused in one line. Control: with the
    check off the keeper signs a verified record better than the ridge earns on the build of the draw."""
    commitments, commit = git_commitments
    repo = commitments.parent.parent
    folder = example_copy(repo / "submissions" / "ridge", "ridge-83b")
    commit("a team's ridge, before the draw")
    commit_tiny_hidden_set(env["tmp"] / "keeper", parts, git_commitments, capsys, monkeypatch)

    home, after = _home_after_the_draw(tiny_labeled_sources, env["tmp"] / "after")
    assert after.content_hash != parts.content_hash
    hidden = set(parts.test.data.table.column("structure_hash").to_pylist())
    assert not hidden & set(after.train.data.table.column("structure_hash").to_pylist())
    (commitments.parent / "builds.json").write_text(json.dumps(
        {"perfgraphs/dippm cpu-torch-fp32": {"content_hash": after.content_hash}}))
    commit("measurements of densenet201; re-pin")
    monkeypatch.setenv("PERFGRAPHS_HOME", str(home))

    submit = ["submit", str(folder), *BOARD, "--quick", "--hidden-labels", "--results", str(env["results"]),
              "--no-mlflow"]
    rc, err = run_cli(submit, capsys)
    assert rc == 1 and len(err) == 1 and "not the one pinned before the set was drawn" in err[0], err
    assert f"build {parts.content_hash[:12]} in builds.json" in err[0], err  # the pin of the draw, read
    assert not (env["results"] / "dippm.jsonl").exists()

    monkeypatch.setattr(submit_module, "_fitted_build_problems", lambda *a: [])  # the check as it was
    rc, err = run_cli(submit, capsys)
    assert rc == 0, err
    record = _record(env, "ridge-83b")
    y = np.asarray(parts.test.data.table.column("latency_ms").to_pylist(), dtype=np.float64)
    earned = numpy_mape(y, _predict(_refit(parts.train), parts.test))  # its fit on the build of the draw
    assert record["tier"] == "verified" and record["keeper_signature"]
    for s in record["per_seed"]:
        assert s["mape_pct"] == pytest.approx(numpy_mape(y, _predict(_refit(after.train), parts.test)), rel=1e-4)
        assert s["mape_pct"] < earned - 10.0, (s["mape_pct"], earned)
    print(f"83b: verified {record['per_seed'][0]['mape_pct']:.2f} % where the draw's build earns {earned:.2f} %")
