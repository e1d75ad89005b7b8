"""Hundred-and-eighth adversarial pass (2026-12-07), side a (the exposure scan and the draw): the scan gave the
structure variants' matchers (a structure key, :func:`perfgraphs.leaderboard.records.exposure.same_graph`) the
committed stores, JSON documents, staged package data and plans, but read the split files (``data/splits``) and the
predict artifacts (``perfgraphs/predict/artifacts/*.rows.npz``) by exact name only. A ``rows.npz`` holds each
labeled row's real label under its name (``timm:<arch>@224#b1``), so a public file committed before the draw that
named 3 of the current dippm round's 25 variants under another spelling of their graph
(``timm:resnet50+layers=1x1x2x3`` for the drawn ``timm:resnet26+layers=1x1x2x3``, ``densenet169+…`` for
``densenet121+…``, a ViT without its default ``mlp_ratio=4.0``: 107a's respellings), each with a latency, published
their labels while ``public_mentions`` found none of them, and the keeper's build (``hidden.leave_out_public``) kept
all 25 rows in the hidden file, the set undeclared, its records *verified*. A split naming one so (its group) was
found nowhere either. Now every spelling with overrides (``+``) in a row name or a split's entry goes through the
variants' matchers too (``exposure.row_tokens``): 3 found in the artifact, 1 in the split, 22 rows kept. Left: a
*named* timm model that builds a variant's graph, named in a split or an artifact only (built, nnlqp's 160 names
doubled the scan's time); lead 4 (a binary ``model`` column raises ``TypeError``)."""

from __future__ import annotations

import json

import numpy as np
import pyarrow as pa

from test_hidden_variants import _empty_repo
from test_leaderboard_review_104b import _current_dippm_round
from test_leaderboard_review_107a import _respelt
from test_leaderboard_trust import REPO


def test_an_artifact_naming_drawn_variants_by_another_spelling_of_their_graph_exposes_them(tmp_path, monkeypatch):
    from perfgraphs.graph.fingerprint import architecture_structure
    from perfgraphs.leaderboard.records import exposure
    from perfgraphs.leaderboard.records.hidden import leave_out_public

    architectures = _current_dippm_round()
    named = [architectures[0], architectures[5], architectures[-1]]  # a densenet, a resnet26, a vit (mlp_ratio=4.0)
    spelt = [_respelt(a) for a in named]
    assert len(architectures) == 25 and not set(spelt) & set(architectures)
    assert all(architecture_structure(s) == architecture_structure(a) for s, a in zip(spelt, named))  # one graph
    repo, external = _empty_repo(tmp_path / "repo"), tmp_path / "external"
    external.mkdir()  # no importer's source: the committed artifact and split alone
    public = next((REPO / "perfgraphs" / "predict" / "artifacts").glob("dippm--cpu-torch-fp32--*.rows.npz"))
    with np.load(public, allow_pickle=False) as rows:  # an artifact's rows as predict writes them, renamed
        arrays = {k: rows[k][:3] for k in rows.files}
    arrays["names"] = np.array([f"{s}@224#b1" for s in spelt])
    np.savez(repo / "perfgraphs" / "predict" / "artifacts" / "dippm--cpu-torch-fp32--latency_ms.rows.npz", **arrays)
    (repo / "data" / "splits" / "dippm").mkdir()
    (repo / "data" / "splits" / "dippm" / "extra.json").write_text(json.dumps({"parts": {"test": [f"{spelt[1]}@224"]}}))

    artifact = "perfgraphs/predict/artifacts/dippm--*.rows.npz"
    found = exposure.public_mentions(architectures, repo, external=external)
    assert found == {named[0]: [artifact], named[1]: ["data/splits/dippm", artifact], named[2]: [artifact]}
    hidden = pa.table({"name": architectures, "sample_id": list(range(len(architectures)))})
    assert sorted(leave_out_public(hidden, repo, external).column("name").to_pylist()) == sorted(
        set(architectures) - set(named))

    # control: with the artifacts and splits read by exact name only, as they were, none is found
    monkeypatch.setattr(exposure, "row_tokens", lambda strings: set())
    assert exposure.public_mentions(architectures, repo, external=external) == {}
    assert leave_out_public(hidden, repo, external).num_rows == 25
