"""Hundred-and-fourth adversarial pass (2026-12-07), side b (the keeper's steps): the exposure scan read
``data/measurements`` as stores only, the ``model`` column of their parquet files, while the folder also
holds the collector's JSON: the noise floors (``noise-floor/noise-floor-<store>.json``, written by
``perfgraphs collect noise-floor`` and committed as ``plans/run-on-gpu.sh`` asks) carry each probe
configuration's latency twice (``round1_ms``, ``round2_ms``), labels as public as a store's rows. A pull
request that commits a "noise floor" naming structure variants of a family before a round's draw, with
their measured latencies (the draw excludes variants a plan names, not those a measurement file names),
had 3 of the current dippm round's 25 variants (one of them respelled, ``mlp_ratio=2`` for ``2.0``)
found nowhere by ``public_mentions``: the keeper's build (``hidden.leave_out_public``) kept all 25 rows
in the hidden file and ``test_hidden_architectures_are_in_no_public_store_split_or_artifact`` passed
with the set undeclared, its records *verified*. Now every JSON file under ``data/measurements`` is
read too, every string of it, a variant under any spelling of its structure
(``exposure.measurement_documents``)."""

from __future__ import annotations

import json

import pyarrow as pa

from test_hidden_variants import _empty_repo
from test_leaderboard_trust import REPO, _hidden_architectures


# the round these passes were written against (2026-12-05, second): 25 variants, a ViT at mlp_ratio=2.0;
# read by its hash, since a newer round (2026-12-07: 20 variants) moved it under earlier_rounds
ROUND_OF_20261205 = "8b5c2778d268b2aa6a90ce8e5d0b870c64258d60ad0d62a84f297d6841271f0b"


def _current_dippm_round() -> list[str]:
    from perfgraphs.leaderboard.records.hidden import definition_rounds

    rounds = definition_rounds(json.loads((REPO / "leaderboard" / "hidden" / "dippm-cpu-torch-fp32.json").read_text()))
    return _hidden_architectures(next(r for r in rounds if r.get("sha256") == ROUND_OF_20261205))


def test_a_committed_noise_floor_naming_drawn_variants_exposes_them(tmp_path, monkeypatch):
    from perfgraphs.leaderboard.records import exposure
    from perfgraphs.leaderboard.records.hidden import leave_out_public

    architectures = _current_dippm_round()
    vit = next(a for a in architectures if "mlp_ratio=2.0" in a)
    named = [architectures[0], architectures[5], vit]
    assert len(architectures) == 25 and len(set(named)) == 3
    repo, external = _empty_repo(tmp_path / "repo"), tmp_path / "external"
    external.mkdir()  # no importer's source: the committed measurements alone
    floor = repo / "data" / "measurements" / "noise-floor"
    floor.mkdir()
    # the collector's noise-floor format, one of them spelled as no plan or definition writes it
    probe = [{"model": m.replace("mlp_ratio=2.0", "mlp_ratio=2"), "input": "3,224,224", "batch_size": 1,
              "round1_ms": 40.0 + i, "round2_ms": 40.5 + i} for i, m in enumerate(named)]
    (floor / "noise-floor-dippm-cpu-variants.json").write_text(json.dumps({"plan": "dippm-cpu", "core": 1,
                                                                           "probe": probe}, indent=2))

    where = ["data/measurements/noise-floor"]
    assert exposure.public_mentions(architectures, repo, external=external) == {a: where for a in named}
    hidden = pa.table({"name": architectures, "sample_id": list(range(len(architectures)))})
    assert sorted(leave_out_public(hidden, repo, external).column("name").to_pylist()) == sorted(
        set(architectures) - set(named))

    # control: with the scan as it was (stores' parquet only), the noise floor names none of them
    monkeypatch.setattr(exposure, "measurement_documents", lambda measurements: [])
    assert exposure.public_mentions(architectures, repo, external=external) == {}
    assert leave_out_public(hidden, repo, external).num_rows == 25
