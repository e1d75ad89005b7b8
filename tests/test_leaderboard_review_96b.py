"""Ninety-sixth adversarial pass (2026-12-06), side b (hidden rounds: what the boards read besides the
records): the exposure scan walked the committed stores and splits with ``Path.rglob``/``glob("**")``,
which never descends into a linked folder, while the readers follow links: ``MeasurementStore`` lists
its platform folders with ``is_dir()`` and a split is opened by its path. A pull request that adds a
store ``data/measurements/ort-cpu-mirror/`` whose three platform folders are committed links to a copy
of the ``ort-cpu`` store elsewhere in the repository (``docs/mirror/``) publishes measurements of 6 of
the 10 architectures of the dippm hidden set's first round: ``load_measurements`` reads all 6, and
``public_mentions`` found none, so ``test_hidden_architectures_are_in_no_public_store_split_or_artifact``
passed with the set undeclared (its records stay *verified*, not *reproduced*), and the keeper's build
(``hidden.leave_out_public``) kept those rows in the hidden file. Now the scan finds files as the
readers do (``exposure.files_as_read``: through linked folders, each real folder once)."""

from __future__ import annotations

import json
import shutil

import pyarrow as pa

from test_hidden_variants import _empty_repo
from test_leaderboard_trust import REPO, _hidden_architectures


def _first_dippm_round() -> list[str]:
    from perfgraphs.leaderboard.records.hidden import definition_rounds

    rounds = definition_rounds(json.loads((REPO / "leaderboard" / "hidden" / "dippm-cpu-torch-fp32.json").read_text()))
    return _hidden_architectures(next(r for r in rounds if r.get("plan") == "plans/dippm-cpu-hidden.yaml"))


def _walk_without_links(folder, suffixes):
    """The scan before this pass: ``rglob``, which does not descend into a linked folder."""
    return sorted(p for p in folder.rglob("*") if p.name.endswith(suffixes))


def test_a_store_of_linked_platform_folders_is_scanned_as_its_reader_reads_it(tmp_path, monkeypatch):
    from perfgraphs.collect.store import load_measurements
    from perfgraphs.collect import public_files
    from perfgraphs.leaderboard.records import exposure
    from perfgraphs.leaderboard.records.hidden import leave_out_public

    architectures = _first_dippm_round()
    repo, external = _empty_repo(tmp_path / "repo"), tmp_path / "external"
    external.mkdir()  # no importer's source: the committed stores alone
    shutil.copytree(REPO / "data" / "measurements" / "ort-cpu", repo / "docs" / "mirror")
    store = repo / "data" / "measurements" / "ort-cpu-mirror"
    store.mkdir()
    shutil.copy(REPO / "data" / "measurements" / "ort-cpu" / "campaign.json", store)
    for platform in sorted(p for p in (repo / "docs" / "mirror").iterdir() if p.is_dir()):
        (store / platform.name).symlink_to(f"../../../docs/mirror/{platform.name}", target_is_directory=True)
    measured = set(load_measurements(store).column("model").to_pylist())
    exposed = sorted(a for a in architectures if a.split(":", 1)[-1] in measured or a in measured)
    assert len(architectures) == 10 and len(exposed) == 6  # the store's reader reads their latencies

    where = ["data/measurements/ort-cpu-mirror"]
    assert exposure.public_mentions(architectures, repo, external=external) == {a: where for a in exposed}
    hidden = pa.table({"name": architectures, "sample_id": list(range(len(architectures)))})
    assert sorted(leave_out_public(hidden, repo, external).column("name").to_pylist()) == sorted(
        set(architectures) - set(exposed))

    # control: with the scan's walk as it was, the same store names none of them
    monkeypatch.setattr(exposure, "files_as_read", _walk_without_links)
    monkeypatch.setattr(public_files, "files_as_read", _walk_without_links)  # the stores' reader (111b moved it)
    assert exposure.public_mentions(architectures, repo, external=external) == {}
    assert leave_out_public(hidden, repo, external).num_rows == 10
