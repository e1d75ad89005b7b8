"""Hundred-and-twenty-fifth pass (2026-12-08), side c: the draw reads another history (123a's lead).

Found: the keeper's draw counts as public every architecture an earlier hidden round declared, read since pass
123a from every version of ``leaderboard/hidden/*.json`` on HEAD's first-parent line
(``variants.committed_declarations``). Two git histories hid those versions from it, with no line printed:

* A pull request forked before the keeper's definition (here: from the repository's first commit) that merged
  main, deleting ``dippm-cpu-torch-fp32.json`` in its merge, and landed by fast-forward (RULES forbids it; the
  history does not say how it was made) put the keeper's commits on a second parent: the first-parent line held no
  version of the definition, the draw counted 40 public structure keys, not 135, and the Swins left went from 9
  (fewer than 4 x 5, not drawn) to 24 (drawn), the visformers from 146 to 166, the resnets from 226 to 246, the vits
  from 132 to 152; a redraw took earlier rounds' architectures again (as 123a's deletion did). The boards refuse
  such a history since the eighty-ninth pass (``hidden.main_line_rewritten``); the draw did not ask.
* A pull request that replaced ``leaderboard/hidden/`` with a submodule whose one commit held the definition
  without its ``earlier_rounds`` had, in a recursive clone, the submodule's own history read (git asked from the
  folder answers for the submodule): 60 public keys, the Swins 24, the visformers 161. The boards refuse such a
  folder since the ninetieth pass (``history.committed_inside_another``); the draw did not.

Now every version reachable from HEAD, through any parent, is read (``variants._versions_log``: all of it is
public history), and a folder in a repository committed inside another is refused in one line
(``variants._written_inside_another``). Each control switches its fix back and the draw widens again.

Found too (123b's lead): a reference run listed in ``leaderboard/reference_records.sha256`` whose line no results
file holds is named in one warning line since 123b, but only while the manifest still lists it. A pull request
deleting the official ML.ENERGY energy-per-token ``serving-prior-boost`` line (rank 1, 21.78 %) and its manifest
line together re-ranked the board with nothing printed: ``static-mlp`` rank 1 "best" (was 2), ``llm-xgboost`` 2
(was 3), stderr empty. The harness only appends to the manifest (no main-line commit of the repository ever took a
line out of it), so its own main-line history is the anchor: a digest a main-line version listed stays listed
(``reference_runs.once_listed``), and the run is named as before. `leaderboard show` on HEAD is byte-identical.
"""

from __future__ import annotations

import json
import shutil

import pytest

from test_hidden_variants import REPO
from test_leaderboard_review_123a import DEFINITION, _git, _redrawn, with_definition


def _fast_forwarded(tmp_path):
    """A repository whose main line, after the keeper committed the definition, fast-forwarded to a pull request
    forked before it that merged main deleting the definition."""
    repo = tmp_path / "checkout"
    hidden = repo / "leaderboard" / "hidden"
    hidden.mkdir(parents=True)
    _git(repo, "init", "-q", "-b", "main")
    (repo / "README.md").write_text("perfgraphs\n")
    _git(repo, "add", "-A")
    _git(repo, "commit", "-qm", "first commit")
    _git(repo, "branch", "tidy")
    (hidden / DEFINITION.name).write_text(DEFINITION.read_text())
    _git(repo, "add", "-A")
    _git(repo, "commit", "-qm", "the keeper's definition")
    _git(repo, "checkout", "-q", "tidy")
    (repo / "notes.md").write_text("a pull request's work\n")
    _git(repo, "add", "-A")
    _git(repo, "commit", "-qm", "a pull request's work")
    _git(repo, "merge", "-q", "--no-ff", "--no-commit", "main")
    _git(repo, "rm", "-qf", f"leaderboard/hidden/{DEFINITION.name}")
    _git(repo, "commit", "-qm", "Merge branch 'main' into tidy")
    _git(repo, "checkout", "-q", "main")
    _git(repo, "merge", "-q", "--ff-only", "tidy")
    assert not (hidden / DEFINITION.name).exists()
    return hidden


def _as_submodule(tmp_path):
    """A repository whose ``leaderboard/hidden/`` a merged pull request replaced with a submodule holding the
    definition without its earlier rounds, checked out as a recursive clone does."""
    repo, hidden = with_definition(tmp_path)
    theirs = tmp_path / "theirs"
    theirs.mkdir()
    doc = json.loads(DEFINITION.read_text())
    doc.pop("earlier_rounds")
    (theirs / DEFINITION.name).write_text(json.dumps(doc, indent=1))
    _git(theirs, "init", "-q")
    _git(theirs, "add", "-A")
    _git(theirs, "commit", "-qm", "the definition")
    _git(repo, "rm", "-r", "-q", "leaderboard/hidden")
    shutil.rmtree(hidden, ignore_errors=True)
    _git(repo, "-c", "protocol.file.allow=always", "submodule", "add", "-q", str(theirs), "leaderboard/hidden")
    _git(repo, "commit", "-qm", "leaderboard/hidden as a submodule")
    assert (hidden / DEFINITION.name).is_file()
    return hidden


def test_a_fast_forwarded_merge_hides_no_earlier_round_from_the_draw(tmp_path, monkeypatch):
    """Attack: the keeper's definition on a second parent only, deleted in the merge that landed by fast-forward.
    Guard: the draw reads every version in the history. Control: read on the first-parent line alone, the draw
    counts 40 public keys, widens every family and takes earlier rounds' architectures again."""
    from perfgraphs.collect import variants

    hidden = _fast_forwarded(tmp_path)
    as_it_was, _ = _redrawn(DEFINITION.parent, seeds=())
    assert len(variants.public_variants(REPO / "plans", DEFINITION.parent)) == 135
    assert len(variants.public_variants(REPO / "plans", hidden)) == 135
    left, taken = _redrawn(hidden)
    assert left == as_it_was and left["swin"] < 20 and taken == [], (left, taken)

    def first_parent_only(top, inside):  # control: the reading as it was
        return variants._git(top, "log", "--first-parent", "--diff-merges=first-parent", "--no-renames",
                             "--name-only", "--format=%x00%H", "HEAD", "--", f":(glob){inside.as_posix()}/*.json")

    monkeypatch.setattr(variants, "_versions_log", first_parent_only)
    assert len(variants.public_variants(REPO / "plans", hidden)) == 40
    left, taken = _redrawn(hidden)
    assert all(left[f] > as_it_was[f] for f in ("resnet", "vit", "swin", "visformer")), (as_it_was, left)
    assert as_it_was["swin"] < 20 <= left["swin"] and taken, (left, taken)


def test_a_submodule_definitions_folder_is_refused(tmp_path, monkeypatch):
    """Attack: ``leaderboard/hidden/`` a submodule of its writer's, the definition there without its earlier
    rounds. Guard: the draw is refused in one line. Control: without the check, the submodule's history is read
    and the draw counts 60 public keys, the Swins drawn."""
    from perfgraphs.collect import variants
    from perfgraphs.collect.errors import PlanError

    hidden = _as_submodule(tmp_path)
    with pytest.raises(PlanError, match="committed inside another") as info:
        variants.public_variants(REPO / "plans", hidden)
    assert "\n" not in str(info.value)

    monkeypatch.setattr(variants, "_written_inside_another", lambda top: False)  # control
    assert len(variants.public_variants(REPO / "plans", hidden)) == 60
    as_it_was, _ = _redrawn(DEFINITION.parent, seeds=())
    left, _ = _redrawn(hidden, seeds=())
    assert as_it_was["swin"] < 20 <= left["swin"], (as_it_was, left)


def test_the_repository_itself_reads_as_before():
    """The real checkout (which holds the package) is no submodule, and reads all 135 keys, none lost."""
    from perfgraphs.collect import variants

    top = REPO
    assert not variants._written_inside_another(top)
    assert len(variants.public_variants(REPO / "plans", REPO / "leaderboard" / "hidden")) == 135


def test_a_reference_line_taken_out_with_its_manifest_line_is_named(tmp_path, capsys, monkeypatch):
    """Attack: the rank-1 reference's results line and its manifest line deleted in one commit. Guard: one warning
    line naming it (the manifest's history lists it). Control: read as the manifest is, the re-ranked board reads
    in silence."""
    from perfgraphs.leaderboard.records import reference_runs
    from test_leaderboard_review_104c import _board_records
    from test_leaderboard_review_123b import _commit, _committed, _show

    references = _board_records()
    folder = _committed(tmp_path / "leaderboard", references, references)
    ranks, err = _show(folder, capsys, monkeypatch)
    assert (ranks["serving-prior-boost"], ranks["static-mlp"], ranks["llm-xgboost"]) == ("1", "2", "3"), ranks
    assert err == "", err

    gone = next(r for r in references if r["method"] == "serving-prior-boost")
    results = folder / "results" / "llm.jsonl"
    results.write_text("".join(x for x in results.read_text().splitlines(keepends=True) if json.loads(x) != gone))
    manifest = folder / reference_runs.MANIFEST_NAME
    manifest.write_text("".join(x for x in manifest.read_text().splitlines(keepends=True)
                                if x.split()[1:] != ["serving-prior-boost"]))
    assert len(manifest.read_text().splitlines()) == len(references) - 1
    _commit(folder, "remove stale lines")
    ranks, err = _show(folder, capsys, monkeypatch)
    assert (ranks["static-mlp"], ranks["llm-xgboost"]) == ("1", "2"), ranks  # each a rank up
    assert err.count("\n") == 1 and "lists 1 reference run whose line no results file" in err, err
    assert "serving-prior-boost of" in err and "llm.jsonl: mlenergy energy_per_token_joules" in err, err

    monkeypatch.setattr(reference_runs, "once_listed", lambda manifest: {})  # control: the manifest as it is
    ranks, err = _show(folder, capsys, monkeypatch)
    assert (ranks["static-mlp"], ranks["llm-xgboost"]) == ("1", "2") and err == "", (ranks, err)
