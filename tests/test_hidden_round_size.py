"""A hidden board says how many of its round's drawn architectures the round holds: ``build-hidden``
leaves out a drawn variant named in a public file, and a round that lost most of its draw read like
any other, ``test n`` its only size (hidden.hidden_round_text; pass 112b's lead)."""

from __future__ import annotations

import json

from perfgraphs.leaderboard.records.hidden import commitment_hash, commitment_path, definition_path, hidden_round_text
from perfgraphs.leaderboard.site.pages import board_facts

DATASET, CONFIG = "perfgraphs/dippm", "cpu-torch-fp32"


def _round(root, sha: str, held: int, left: int, earlier: list[dict] | None = None) -> None:
    root.mkdir(parents=True, exist_ok=True)
    commitment_path(DATASET, CONFIG, root).write_text(f"{sha}  dippm-cpu-torch-fp32.parquet\n")
    doc = {"sha256": sha, "architectures": [f"timm:resnet26+layers=1x1x{i}x1" for i in range(held)],
           "left_out": [f"timm:resnet26+layers=2x2x{i}x2" for i in range(left)], "earlier_rounds": earlier or []}
    definition_path(DATASET, CONFIG, root).write_text(json.dumps(doc))


def test_a_round_that_lost_drawn_architectures_says_so(tmp_path):
    shrunk, full = "ab" * 32, "cd" * 32
    _round(tmp_path / "shrunk", shrunk, held=5, left=20)
    text = hidden_round_text(DATASET, CONFIG, shrunk, tmp_path / "shrunk")
    assert text == ("The round holds 5 of the 25 architectures its draw took: 20 left out before measuring, named "
                    "in public files."), text
    assert "20 left out" in board_facts(None, "latency_ms", [], "Noise floor: 1 %.", None, text)

    # a later round: the earlier one is still found by its hash, and the current one is whole
    _round(tmp_path / "later", full, held=25, left=0,
           earlier=[{"sha256": shrunk, "architectures": ["a"] * 5, "left_out": ["b"] * 20}])
    assert hidden_round_text(DATASET, CONFIG, full, tmp_path / "later") == \
        "The round holds all 25 architectures its draw took."
    assert "5 of the 25" in hidden_round_text(DATASET, CONFIG, shrunk, tmp_path / "later")
    # a set the definition does not describe, or a round that states no draw: nothing claimed
    assert hidden_round_text(DATASET, CONFIG, "ef" * 32, tmp_path / "later") is None
    definition_path(DATASET, CONFIG, tmp_path / "later").write_text(json.dumps({"sha256": full, "architectures": []}))
    assert hidden_round_text(DATASET, CONFIG, full, tmp_path / "later") is None


def test_the_live_rounds_state_their_draw_as_committed():
    """Against the committed definition itself: each described round's counts, read independently."""
    from perfgraphs.collect.variants import definition_rounds
    from perfgraphs.leaderboard.records.hidden import read_definition

    path = definition_path(DATASET, CONFIG)
    current = commitment_hash(commitment_path(DATASET, CONFIG))
    for i, round_ in enumerate(definition_rounds(read_definition(path))):
        sha = round_.get("sha256") or (current if i == 0 else None)
        if sha is None:  # an earlier round that names no set (the withdrawn named set): no board reads it
            continue
        text = hidden_round_text(DATASET, CONFIG, sha)
        if not isinstance(round_.get("architectures"), list) or not isinstance(round_.get("left_out"), list):
            assert text is None
            continue
        drawn = len(round_["architectures"]) + len(round_["left_out"])
        assert f"{drawn} architectures" in text and (round_["left_out"] or "all" in text), (sha, text)
