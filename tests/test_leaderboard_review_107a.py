"""Hundred-and-seventh adversarial pass (2026-12-07), side a (the exposure scan): the scan matched a
structure variant in the repository's files by :func:`perfgraphs.collect.variants.structure_key` only, the
base architecture and its overrides as written, numbers by value. Another spelling of the same network was
another architecture to it: another base that builds the same graph (``timm:resnet50+layers=1x1x2x3`` is
the drawn ``timm:resnet26+layers=1x1x2x3``; ``densenet169`` with block_config and growth_rate given is
``densenet121`` with them), or a default left out (``mlp_ratio=4.0``). The graph pool exports the same graph
for either spelling (the same fingerprint: module tree and parameter shapes on the meta device), so a
predictor fitting on such a row reads the variant's latency, and ``build_hidden``'s structure-hash backstop
compares with the config's own public build only, not another store. A store committed before the draw
(``data/measurements/<store>/cpu-torch-fp32/shard-*.parquet``, a shard the store's reader reads) naming 3 of
the current dippm round's 25 variants so had them found nowhere by ``public_mentions``; the keeper's build
(``hidden.leave_out_public``) kept all 25 rows in the hidden file, the set undeclared, its records
*verified*. Now a timm name of a variant's module is built and compared by fingerprint too
(``exposure.same_graph``). Binary, dictionary and list ``model`` columns (lead 1) make the scan raise, never
skip: not this finding."""

from __future__ import annotations

import pyarrow as pa
import pyarrow.parquet as pq

from test_hidden_variants import _empty_repo
from test_leaderboard_review_104b import _current_dippm_round
from test_leaderboard_trust import REPO

RESPELT = {"timm:resnet26+": "timm:resnet50+", "timm:densenet121+": "timm:densenet169+", "+mlp_ratio=4.0": ""}


def _respelt(name: str) -> str:
    for old, new in RESPELT.items():
        name = name.replace(old, new)
    return name


def test_a_store_naming_drawn_variants_by_another_spelling_of_their_graph_exposes_them(tmp_path, monkeypatch):
    from perfgraphs.atomic import atomic_write_table
    from perfgraphs.collect.store import read_verified
    from perfgraphs.collect.variants import structure_key
    from perfgraphs.graph.fingerprint import architecture_structure
    from perfgraphs.leaderboard.records import exposure
    from perfgraphs.leaderboard.records.hidden import leave_out_public

    architectures = _current_dippm_round()
    named = [architectures[0], architectures[5], architectures[-1]]  # a densenet, a resnet26, a vit (mlp_ratio=4.0)
    spelt = [_respelt(a) for a in named]
    assert len(architectures) == 25 and len(set(named)) == 3 and not set(spelt) & set(architectures)
    assert all(structure_key(s) != structure_key(a) for s, a in zip(spelt, named))  # another key ...
    assert all(architecture_structure(s) == architecture_structure(a) for s, a in zip(spelt, named))  # ... one graph
    repo, external = _empty_repo(tmp_path / "repo"), tmp_path / "external"
    external.mkdir()  # no importer's source: the committed store alone
    shard = next((REPO / "data" / "measurements" / "dippm-cpu" / "cpu-torch-fp32").glob("shard-*.parquet"))
    rows = pq.read_table(shard).slice(0, 3)
    rows = rows.set_column(rows.column_names.index("model"), "model", pa.array(spelt))
    store = repo / "data" / "measurements" / "dippm-cpu-extra"
    (store / "cpu-torch-fp32").mkdir(parents=True)
    path = store / "cpu-torch-fp32" / "shard-00000-20261201T000000.parquet"
    atomic_write_table(rows, path)
    assert read_verified(path).column("model").to_pylist() == spelt  # a shard as the store's reader reads it

    where = ["data/measurements/dippm-cpu-extra"]
    assert exposure.public_mentions(architectures, repo, external=external) == {a: where for a in named}
    hidden = pa.table({"name": architectures, "sample_id": list(range(len(architectures)))})
    assert sorted(leave_out_public(hidden, repo, external).column("name").to_pylist()) == sorted(
        set(architectures) - set(named))

    # control: with the scan as it was (structure keys only), the store names none of them
    monkeypatch.setattr(exposure, "same_graph", lambda strings, architectures: set())
    assert exposure.public_mentions(architectures, repo, external=external) == {}
    assert leave_out_public(hidden, repo, external).num_rows == 25
