"""Hundred-and-twenty-third pass (2026-12-07), side a: the draw reads what a pull request deleted.

Found (the lead 122a left): the keeper's draw (``python -m perfgraphs.collect.variants``) counted as public the
architectures earlier hidden rounds declared by reading ``leaderboard/hidden/*.json`` as the files are now
(``variants.public_variants``), and 95 of its 135 public structure keys came only from
``dippm-cpu-torch-fp32.json``. The boards read that file's history since pass 122a, so a pull request deleting it
(``git rm``, nothing else touched) changed no board, and the next draw then counted 40 public keys: the Swins left
went from 9 (not drawn, fewer than 4 x 5) to 24 (drawn), the visformers from 146 to 166, the resnets from 226 to
246, the vits from 132 to 152; with the secret seed 0 the round (``variants.hidden_plan``, ``plans/dippm-cpu.yaml``)
drew all five families and six architectures of the earlier rounds again, ``timm:resnet26+layers=4x1x3x4``,
``visformer_tiny+depth=6x4x2`` and three of its five Swins among them. Those names are public in git history, so
whoever holds the public machine kind could have measured them before the draw: a round that redraws them hands
a prepared submitter its labels (and the build's exposure scan, which reads no definition, keeps them). Now the
draw also reads every main-line (``--first-parent``) version of ``leaderboard/hidden/*.json`` from git
(``variants.committed_declarations``, a merged pull request read against its first parent): with the definition
deleted the draw is the one with it in place. A shallow (or partial) clone is refused in one line rather than
under-counted; a folder in no repository (an installed package) counts its files as they are.
"""

from __future__ import annotations

import json
import subprocess

import pytest

from test_hidden_variants import REPO

DEFINITION = REPO / "leaderboard" / "hidden" / "dippm-cpu-torch-fp32.json"
SOURCE = REPO / "plans" / "dippm-cpu.yaml"


def _git(folder, *args):
    subprocess.run(["git", "-C", str(folder), "-c", "user.name=t", "-c", "user.email=t@t", *args],
                   check=True, capture_output=True)


def with_definition(tmp_path):
    """(a fresh repository ``checkout`` whose first commit is the keeper's definition, its ``leaderboard/hidden``)."""
    repo = tmp_path / "checkout"
    hidden = repo / "leaderboard" / "hidden"
    hidden.mkdir(parents=True)
    _git(repo, "init", "-q", "-b", "main")
    (hidden / DEFINITION.name).write_text(DEFINITION.read_text())
    _git(repo, "add", "-A")
    _git(repo, "commit", "-qm", "the keeper's definition")
    return repo, hidden


@pytest.fixture()
def deleted(tmp_path):
    """A repository whose main line committed the definition, then merged a pull request deleting it."""
    repo, hidden = with_definition(tmp_path)
    _git(repo, "checkout", "-qb", "tidy")
    _git(repo, "rm", "-q", f"leaderboard/hidden/{DEFINITION.name}")
    _git(repo, "commit", "-qm", "remove a stale definition")
    _git(repo, "checkout", "-q", "main")
    _git(repo, "merge", "-q", "--no-ff", "-m", "Merge pull request: tidy", "tidy")
    assert not hidden.exists()
    return hidden


def _earlier() -> set:
    from perfgraphs.collect import variants

    rounds = variants.definition_rounds(json.loads(DEFINITION.read_text()))
    return {variants.structure_key(n) for r in rounds for n in [*r.get("architectures", []), *r.get("left_out", [])]} - {None}


def _redrawn(hidden, seeds=range(3)) -> tuple[dict, list[str]]:
    """Each family's structures left, and the earlier rounds' architectures the first of ``seeds`` that draws any
    takes (or none)."""
    from perfgraphs.collect import variants

    public = variants.public_variants(REPO / "plans", hidden)
    left = variants.thin_families(5, public, factor=10**6)
    earlier = _earlier()
    for seed in seeds:
        plan = variants.hidden_plan(SOURCE, seed, 5, public=public)
        taken = [m["name"] for g in plan["groups"] for m in g["models"] if variants.structure_key(m["name"]) in earlier]
        if taken:
            return left, taken
    return left, []


def test_a_deleted_definition_lets_no_draw_take_an_earlier_rounds_architecture(deleted):
    """Attack: the definition deleted by a merged pull request. Guard: the draw counts what the main line declared."""
    as_it_was, _ = _redrawn(DEFINITION.parent, seeds=())
    left, taken = _redrawn(deleted)
    assert left == as_it_was and left["swin"] < 20 and taken == [], (left, taken)


def test_control_without_the_history_the_draw_takes_earlier_rounds_architectures(deleted, monkeypatch):
    """Control: the draw as it was (the files as they are only) widens every family and redraws earlier rounds'."""
    from perfgraphs.collect import variants

    as_it_was, _ = _redrawn(DEFINITION.parent, seeds=())
    monkeypatch.setattr(variants, "committed_declarations", lambda hidden: set())
    left, taken = _redrawn(deleted)
    assert all(left[f] > as_it_was[f] for f in ("resnet", "vit", "swin", "visformer")), (as_it_was, left)
    assert as_it_was["swin"] < 20 <= left["swin"] and taken, (left, taken)


def test_a_shallow_clone_is_refused_in_one_line(deleted, tmp_path):
    from perfgraphs.collect import variants
    from perfgraphs.collect.errors import PlanError

    shallow = tmp_path / "shallow"
    subprocess.run(["git", "clone", "-q", "--depth", "1", f"file://{deleted.parents[1]}", str(shallow)],
                   check=True, capture_output=True)
    with pytest.raises(PlanError, match="shallow or partial clone") as info:
        variants.public_variants(REPO / "plans", shallow / "leaderboard" / "hidden")
    assert "\n" not in str(info.value)
    loose = tmp_path / "installed" / "hidden"  # no repository: the files as they are
    loose.mkdir(parents=True)
    (loose / DEFINITION.name).write_text(DEFINITION.read_text())
    assert _earlier() <= variants.public_variants(REPO / "plans", loose)
