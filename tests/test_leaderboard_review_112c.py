"""Hundred-and-twelfth pass (2026-12-07), side c (the round between draw and build: what 112b left). The
draw now counts as public every variant the exposure scan would find (111b, 112b), but ``hidden-round.sh
finish`` runs the build (``leave_out_public``) on the checkout as it is at finish time, hours of measuring
after the draw, and nothing compared it with the commit the draw read. A pull request merged in between
that adds one split file naming 146 of the 151 visformer structures left (the draw has taken 5 it cannot
know) had the build leave out every drawn visformer but those among the writer's other 5: the round kept
only variants the writer chose, or none, whatever the secret seed drew. A file committed after the draw
cannot have been read by a predictor frozen before it, so nothing is lost by building at the draw's
commit: ``prepare`` writes it beside the drawn plan (``drawn-at-commit``) and ``finish`` refuses, in one
line and before unpacking anything, a checkout at any other commit. The control shows the build on the
moved checkout keeping only the writer's visformers, and ``finish`` going on at the draw's commit."""

from __future__ import annotations

import os

import pyarrow as pa
import yaml

from test_hidden_variants import REPO
from test_leaderboard_review_100b import _drawn_plan, _finish, drawn_at
from test_leaderboard_review_111b import _visformers_left, checkout_naming

ROUND = "round-dippm-h200-torch-fp32"


def test_finish_builds_the_round_at_the_commit_the_draw_read(tmp_path):
    from perfgraphs.collect import variants
    from perfgraphs.leaderboard.records.hidden import leave_out_public

    keeper = tmp_path / "keeper"
    (keeper / ROUND).mkdir(parents=True)
    (keeper / ROUND / "hidden-plan.yaml").write_text(yaml.safe_dump(_drawn_plan(), sort_keys=False))
    files_at = tmp_path / "files_at"
    files_at.mkdir()
    path = os.pathsep.join([str(REPO), os.environ.get("PYTHONPATH", "")])

    # the draw read another commit than the checkout's now (a pull request merged since): refused, one line
    drawn_at(keeper / ROUND, REPO, commit="0123456789abcdef" * 2 + "01234567")
    run = _finish(tmp_path, keeper, files_at, path)
    lines = run.stderr.strip().splitlines()
    assert run.returncode == 2 and len(lines) == 1, run.stderr
    assert "drawn at 0123456789ab and the checkout is at" in lines[0] and "git checkout 0123456789ab" in lines[0]
    assert sorted(p.name for p in (keeper / ROUND).iterdir()) == ["drawn-at-commit", "hidden-plan.yaml"]
    (keeper / ROUND / "drawn-at-commit").unlink()  # a round prepared without it: refused too
    run = _finish(tmp_path, keeper, files_at, path)
    assert run.returncode == 2 and "prepare writes the commit the draw read" in run.stderr, run.stderr

    # control: at the draw's commit finish goes on (to the device's archive, which this test leaves empty) ...
    drawn_at(keeper / ROUND, REPO)
    run = _finish(tmp_path, keeper, files_at, path)
    assert run.returncode == 2 and "no *-hidden-*.tar.gz" in run.stderr, run.stderr
    # ... and what building on the moved checkout would have done: five visformers drawn unseen, a split
    # merged after the draw naming 146 of the 151 left, the build keeps only the writer's other five (or none)
    left = _visformers_left(variants.public_variants(REPO / "plans", REPO / "leaderboard" / "hidden"))
    mine, named = left[:5], left[5:]
    drawn = [left[i] for i in (3, 40, 77, 110, 139)]  # any five a secret seed may take
    checkout, external = checkout_naming(tmp_path, named)
    kept = leave_out_public(pa.table({"name": drawn, "sample_id": list(range(5))}), checkout, external)
    assert kept.column("name").to_pylist() == [left[3]] and left[3] in mine


def test_finish_builds_the_round_only_from_the_draws_files(tmp_path):
    """114b's lead: at the drawn commit, a file git does not hold (a populated submodule's folder left behind
    by ``git checkout`` of the drawn commit from a later one: ``unable to rmdir``) is read by the exposure scan
    from disk. ``finish`` refuses a checkout whose status lists anything, in one line before unpacking
    anything. Control: the file removed, finish goes on."""
    import subprocess

    clone = tmp_path / "checkout"
    subprocess.run(["git", "clone", "-q", "--shared", str(REPO), str(clone)], check=True)
    keeper = tmp_path / "keeper"
    (keeper / ROUND).mkdir(parents=True)
    (keeper / ROUND / "hidden-plan.yaml").write_text(yaml.safe_dump(_drawn_plan(), sort_keys=False))
    drawn_at(keeper / ROUND, clone)
    files_at = tmp_path / "files_at"
    files_at.mkdir()
    left = clone / "data" / "splits" / "extra" / "split.json"
    left.parent.mkdir(parents=True)
    left.write_text('{"parts": {"test": ["timm:visformer_tiny+depth=3x2x2@224"]}}')
    path = os.pathsep.join([str(REPO), os.environ.get("PYTHONPATH", "")])

    run = _finish(tmp_path, keeper, files_at, path, checkout=clone)
    lines = run.stderr.strip().splitlines()
    assert run.returncode == 2 and len(lines) == 1, run.stderr
    assert "not the draw's commit as committed" in lines[0] and "data/splits/extra/split.json" in lines[0], lines
    assert sorted(p.name for p in (keeper / ROUND).iterdir()) == ["drawn-at-commit", "hidden-plan.yaml"]

    left.unlink()  # control: the draw's files only, finish goes on (to the device's archive, empty here)
    run = _finish(tmp_path, keeper, files_at, path, checkout=clone)
    assert run.returncode == 2 and "no *-hidden-*.tar.gz" in run.stderr, run.stderr
