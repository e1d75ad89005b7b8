"""Hundred-and-sixth adversarial pass (2026-12-07), side a (the exposure scan): the scan read the stores,
the JSON under ``data/measurements``, the splits, the plans and predict's ``*.rows.npz``, but not the
package data the sandbox stages beside the code (``paths.is_staged_data``: ``perfgraphs/features/*.csv``,
``perfgraphs/features/hardware/*.csv``, ``perfgraphs/graph/hf_configs/*.json``), which a predictor reads
at fit time from ``/opt/perfgraphs-code`` as the checkout holds them. ``frozen_fits.package_data_before``
refuses a hidden run only when those tables changed after the draw, and the draw leaves out the variants
a plan names, not those a table names: a pull request before the draw committing
``perfgraphs/features/variant_latency.csv`` that named 3 of the current dippm round's 25 variants (one
respelled, ``mlp_ratio=2`` for ``2.0``) with a latency each had them found nowhere by ``public_mentions``;
the keeper's build (``hidden.leave_out_public``) kept all 25 rows in the hidden file, the set undeclared,
its records *verified*. Now every file the sandbox stages as package data is read too, every token of it,
a variant under any spelling of its structure (``exposure.staged_package_data``). The other forms named
by passes 104b and 105b (a CSV, ``.jsonl``, ``.yaml``, ``.txt`` or ``.tar.gz`` under ``data/measurements``,
a Parquet column other than ``model``, ``docs/``, notebooks) are read by no reader of the package."""

from __future__ import annotations

import pyarrow as pa

from test_hidden_variants import _empty_repo
from test_leaderboard_review_104b import _current_dippm_round


def test_a_staged_package_table_naming_drawn_variants_exposes_them(tmp_path, monkeypatch):
    from perfgraphs.leaderboard.records import exposure
    from perfgraphs.leaderboard.records.hidden import leave_out_public
    from perfgraphs.paths import is_staged_data

    architectures = _current_dippm_round()
    vit = next(a for a in architectures if "mlp_ratio=2.0" in a)
    named = [architectures[1], architectures[7], vit]
    assert len(architectures) == 25 and len(set(named)) == 3
    repo, external = _empty_repo(tmp_path / "repo"), tmp_path / "external"
    external.mkdir()  # no importer's source: the committed table alone
    features = repo / "perfgraphs" / "features"
    features.mkdir(parents=True)
    assert is_staged_data(("features", "variant_latency.csv"))  # what stage_code copies into the sandbox
    rows = "".join(f'"{m.replace("mlp_ratio=2.0", "mlp_ratio=2")}",3x224x224,{40.0 + i}\n' for i, m in enumerate(named))
    (features / "variant_latency.csv").write_text("model,input,latency_ms\n" + rows)

    where = ["perfgraphs/features/variant_latency.csv"]
    assert exposure.public_mentions(architectures, repo, external=external) == {a: where for a in named}
    hidden = pa.table({"name": architectures, "sample_id": list(range(len(architectures)))})
    assert sorted(leave_out_public(hidden, repo, external).column("name").to_pylist()) == sorted(
        set(architectures) - set(named))

    # control: with the scan as it was (no staged package data read), the table names none of them
    monkeypatch.setattr(exposure, "staged_package_data", lambda repo: [])
    assert exposure.public_mentions(architectures, repo, external=external) == {}
    assert leave_out_public(hidden, repo, external).num_rows == 25
