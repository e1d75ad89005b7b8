"""Hundred-and-twenty-second pass (2026-12-07), side a: what a pull request deletes, II.

Found: a hidden board's noise floor, its machine's drift and its round's size (``hidden.hidden_noise_text``,
``hidden.hidden_round_text``, printed above the keeper's ranks by `leaderboard show`, the site and `submit`)
are the keeper's, stated once: the sixty-ninth pass and the hundred-and-sixteenth (side c) made them the first
main-line version's that stated them, so a pull request that edits the definition takes nothing back. But both
readers first asked whether ``leaderboard/hidden/dippm-cpu-torch-fp32.json`` and its ``.sha256`` exist *now*,
and returned nothing, before reading any history, when either did not. One commit deleting the definition
(``git rm``, no record, key, commitment or ranks file touched) took the noise floor, drift and draw sentences off
all seven hidden boards of the config that print them (29 lines of `leaderboard show` gone, each board's seven
"noise floor not measured for these labels" in their place, stderr empty, ranks and tiers unchanged): the live
round's latency board, layerwise-boost 1 at 10.83 % and roofline-boost 2 at 12.41 %, lost "two visits of one
configuration differ by 13.7 % MAPE", and the round of 2026-12-05's lost "the machine ran 43 public
configurations at 0.62x ... a score here includes that drift". Deleting the ``.sha256`` instead did the same
(the same 29 lines gone; the boards' order changes too). Now ``hidden._definition_now`` reads a deleted file as
empty and the history is read on: with the definition deleted, `leaderboard show` is byte-identical to HEAD's.
Not closed: the draw (``collect.variants.public_variants``) still reads the earlier rounds' architectures from
the definition as it is (95 of its 135 "public" structure keys), so a deleted definition lets a later draw take
an earlier round's architecture again.
"""

from __future__ import annotations

import subprocess

import pytest

from test_hidden_round_size import _round as _sized_round
from test_leaderboard_review_69a import CONFIG, DATASET, TARGET, _round, _text


def _delete(folder, commit, name: str) -> None:
    (folder / name).unlink()
    commit(f"remove the stale {name}")


def _as_before(original):
    """The readers before the fix: no file now, no set (the history never read)."""
    def now(commitment, path):
        if not commitment.is_file() or not path.is_file():
            raise OSError("no such file")
        return original(commitment, path)
    return now


@pytest.mark.parametrize("name", ["dippm-cpu-torch-fp32.json", "dippm-cpu-torch-fp32.sha256"])
def test_a_deleted_definition_takes_back_no_noise_floor_or_drift(git_commitments, tmp_path, monkeypatch, name):
    """Attack: the round's definition (or its commitment) deleted in a later commit. Guard: the board still
    prints the floor and the drift the main line stated. Control: the readers as they were print nothing."""
    from perfgraphs.leaderboard.records import hidden

    folder, commit = _round(git_commitments, tmp_path)
    before = _text()
    assert "5.5 %" in before and "0.62x" in before, before
    _delete(folder, commit, name)
    assert _text() == before

    monkeypatch.setattr(hidden, "_definition_now", _as_before(hidden._definition_now))  # control
    assert _text() == ""


def test_a_deleted_definition_takes_back_no_round_size(git_commitments, monkeypatch):
    """The round's size too: a round that lost 20 of its 25 drawn architectures still says so once its
    definition is deleted. Control: the readers as they were say nothing of its size."""
    from perfgraphs.leaderboard.records import hidden

    folder, commit = git_commitments
    sha = "ab" * 32
    _sized_round(folder, sha, held=5, left=20)
    commit("the round's definition, as finish writes it: 5 of the 25 drawn architectures measured")
    shrunk = hidden.hidden_round_text(DATASET, CONFIG, sha)
    assert shrunk is not None and "5 of the 25" in shrunk
    _delete(folder, commit, "dippm-cpu-torch-fp32.json")
    assert hidden.hidden_round_text(DATASET, CONFIG, sha) == shrunk

    monkeypatch.setattr(hidden, "_definition_now", _as_before(hidden._definition_now))  # control
    assert hidden.hidden_round_text(DATASET, CONFIG, sha) is None


def test_the_live_rounds_keep_their_floor_when_the_definition_is_deleted(tmp_path):
    """Against this repository's own history: a clone whose last commit deletes the definition prints the
    live round's floor (13.7 % between visits) and the round of 2026-12-05's drift (0.62x) as HEAD does."""
    from perfgraphs import paths
    from perfgraphs.collect.variants import definition_rounds
    from perfgraphs.leaderboard.records.hidden import definition_path, hidden_noise_text, read_definition

    top = paths.checkout_root()
    if top is None or subprocess.run(["git", "-C", str(top), "rev-parse", "--is-shallow-repository"],
                                     capture_output=True, text=True).stdout.strip() != "false":
        pytest.skip("needs this repository's full history")
    clone = tmp_path / "clone"
    subprocess.run(["git", "clone", "-q", str(top), str(clone)], check=True)
    folder = clone / "leaderboard" / "hidden"
    rounds = definition_rounds(read_definition(definition_path(DATASET, CONFIG, folder)))
    live, earlier = (next(r["sha256"] for r in rounds if r.get("sha256", "").startswith(p)) for p in ("2e577140", "1ece2037"))
    stated = {sha: hidden_noise_text(DATASET, CONFIG, TARGET, sha, folder) for sha in (live, earlier)}
    assert "differ by 13.7 % MAPE" in stated[live] and "at 0.62x" in stated[earlier], stated

    git = ["git", "-C", str(clone), "-c", "user.name=eve", "-c", "user.email=eve@example.org"]
    subprocess.run([*git, "rm", "-q", "leaderboard/hidden/dippm-cpu-torch-fp32.json"], check=True)
    subprocess.run([*git, "commit", "-q", "-m", "drop a stale note"], check=True)
    assert {sha: hidden_noise_text(DATASET, CONFIG, TARGET, sha, folder) for sha in (live, earlier)} == stated
