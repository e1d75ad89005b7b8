"""Fifty-third adversarial pass (2026-12-05), read side: a round's probe of the machine decides which
targets it scores (``hidden.target_not_scored``), and that probe is read from the set's definition,
a file a pull request can edit. The definition as it stands was read alone: a later main-line commit
that widened the round's band (``within``), dropped its latency probe, or changed one hex digit of
the round's own ``sha256`` (so no round of the definition names the set any more) made the round of
2026-12-05 (8b5c2778, latency at 0.68x its public labels) score latency again, so its keeper would
sign a verified latency record of a drifted day. A target a main-line version of the definition held
out of its band stays held out, as a compromised declaration stays declared."""

from __future__ import annotations

import json

import pytest

from perfgraphs.leaderboard.records.hidden import (HiddenLabelsError, definition_path, load_hidden,
                                                   target_not_scored)
from perfgraphs.registry import task

from test_hidden_round_targets import _speed, keeper_set  # a round's probe blocks and keeper set

DATASET, CONFIG = "perfgraphs/dippm", "cpu-torch-fp32"


def _round(tmp_path, git_commitments, speed: dict) -> tuple[str, object, object, dict]:
    """A committed hidden set whose committed definition records ``speed`` (the organisers' commit)."""
    folder, commit = git_commitments
    keeper = tmp_path / "keeper"
    sha = keeper_set(keeper, folder)
    doc = {"about": "test round", "sha256": sha, "architectures": ["timm:resnet26+layers=1x1x1x1"], "left_out": [],
           "measured": {"visits": 3, "configurations": 3, "host_speed": speed}}
    definition_path(DATASET, CONFIG, folder).write_text(json.dumps(doc))
    commit()
    return sha, folder, keeper, doc


def _pull_request(folder, commit, doc: dict) -> None:
    definition_path(DATASET, CONFIG, folder).write_text(json.dumps(doc))
    commit("a pull request edits the round's definition")


def _widened(doc: dict, sha: str) -> dict:
    return {**doc, "measured": {**doc["measured"], "host_speed": {**doc["measured"]["host_speed"], "within": [0.6, 1.1]}}}


def _latency_dropped(doc: dict, sha: str) -> dict:
    speed = {k: v for k, v in doc["measured"]["host_speed"].items() if k != "latency_ms"}
    return {**doc, "measured": {**doc["measured"], "host_speed": speed}}


def _sha_digit_changed(doc: dict, sha: str) -> dict:
    # one hex digit of a 64-digit hash: no round of the definition names the set, nothing is held back
    return {**doc, "sha256": sha[:40] + ("0" if sha[40] != "0" else "1") + sha[41:]}


@pytest.mark.parametrize("edit", [_widened, _latency_dropped, _sha_digit_changed])
def test_a_later_edit_of_the_definition_does_not_make_a_drifted_target_scored(tmp_path, git_commitments, edit):
    sha, folder, keeper, doc = _round(tmp_path, git_commitments, _speed(0.68, 0.99))
    _pull_request(folder, git_commitments[1], edit(doc, sha))
    why = target_not_scored(DATASET, CONFIG, "latency_ms", sha, folder)
    assert why is not None and "does not score latency_ms" in why and "0.68x" in why
    with pytest.raises(HiddenLabelsError, match="does not score latency_ms"):
        load_hidden(keeper, task("dippm", CONFIG, "latency_ms"), root=folder)
    # memory, within the band in every version, still scores
    assert load_hidden(keeper, task("dippm", CONFIG, "peak_memory_mb"), root=folder).sha256 == sha


def test_control_each_edit_alone_opens_the_target(tmp_path, git_commitments):
    from perfgraphs.collect.host_speed import in_band

    sha, folder, keeper, doc = _round(tmp_path, git_commitments, _speed(0.68, 0.99))
    # what each pull request's definition says on its own: latency in the band, or no probe of it
    assert in_band(_widened(doc, sha)["measured"]["host_speed"], "latency_ms") is True
    assert in_band(_latency_dropped(doc, sha)["measured"]["host_speed"], "latency_ms") is None
    assert _sha_digit_changed(doc, sha)["sha256"] != sha
    # before any edit, the committed round holds latency back and scores memory
    assert "0.68x" in (target_not_scored(DATASET, CONFIG, "latency_ms", sha, folder) or "")
    assert target_not_scored(DATASET, CONFIG, "peak_memory_mb", sha, folder) is None

def test_control_a_round_within_the_band_scores_both_targets_after_an_unrelated_edit(tmp_path, git_commitments):
    sha, folder, keeper, doc = _round(tmp_path, git_commitments, _speed(0.97, 1.0))
    _pull_request(folder, git_commitments[1], {**doc, "about": "test round, reworded"})
    for target in ("latency_ms", "peak_memory_mb"):
        assert target_not_scored(DATASET, CONFIG, target, sha, folder) is None
        assert load_hidden(keeper, task("dippm", CONFIG, target), root=folder).sha256 == sha


def test_a_definition_that_no_longer_parses_still_holds_the_drifted_target_back(tmp_path, git_commitments):
    sha, folder, keeper, doc = _round(tmp_path, git_commitments, _speed(0.68, 0.99))
    _pull_request(folder, git_commitments[1], {**doc, "earlier_rounds": "none"})
    assert "0.68x" in (target_not_scored(DATASET, CONFIG, "latency_ms", sha, folder) or "")
