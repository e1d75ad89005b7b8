"""Twenty-ninth adversarial pass (2026-12-03), read side: what a pull request's hand-written files in
``leaderboard/hidden/`` and ``leaderboard/builds.json`` made `leaderboard show` and the site say."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
LIVE = "2ee8d095fa5ae2c9b71c0e2ab5a9a51b6545dce2fabb08d49e88fcd4832b358f"


def _hidden_records(tmp_path: Path) -> Path:
    """A results folder holding the committed hidden-set records only (the live set's ten, the
    withdrawn set's three) beside a copy of the repository's pins."""
    lines = [line for line in (REPO / "leaderboard" / "results" / "dippm.jsonl").read_text().splitlines()
             if line.strip() and json.loads(line).get("test_set") == "hidden"]
    results = tmp_path / "leaderboard" / "results"
    results.mkdir(parents=True)
    (results / "dippm.jsonl").write_text("\n".join(lines) + "\n")
    (results.parent / "builds.json").write_text((REPO / "leaderboard" / "builds.json").read_text())
    return results


def test_a_noise_floor_written_as_text_in_a_definition_stops_no_board(tmp_path, monkeypatch, capsys):
    """Attack: a pull request edits the live set's definition (``dippm-cpu-torch-fp32.json``) so one
    noise-floor number of ``measured`` is text (``"between_visits_median_pct": "many"``), or leaves
    one out: `leaderboard show` stopped halfway with ``internal error: ValueError: Unknown format code
    'f' for object of type 'str'`` (a KeyError for a missing one), and `leaderboard build` with it. A
    floor that is not four finite numbers now reads as not measured; the other boards are shown."""
    from perfgraphs.cli import main
    from perfgraphs.leaderboard.records import hidden

    definition = json.loads((REPO / "leaderboard" / "hidden" / "dippm-cpu-torch-fp32.json").read_text())
    # LIVE's round is under earlier_rounds since the round of 2026-12-05 replaced its commitment
    live_measured = next(r for r in definition["earlier_rounds"] if r.get("sha256") == LIVE)["measured"]

    def with_measured(measured):
        return {**definition, "earlier_rounds": [{**r, "measured": measured} if r.get("sha256") == LIVE else r
                                                 for r in definition["earlier_rounds"]]}

    control = hidden.hidden_noise_text("perfgraphs/dippm", "cpu-torch-fp32", "latency_ms", LIVE)
    assert control and "16.3 % MAPE" in control  # the honest definition: the floor as measured
    bad = tmp_path / "definition.json"
    monkeypatch.setattr(hidden, "definition_path", lambda dataset, config, root=None: bad)
    for value in ("many", None, float("nan"), True, [1.0]):
        floor = dict(live_measured["noise_floor"]["latency_ms"], between_visits_median_pct=value)
        bad.write_text(json.dumps(with_measured({**live_measured, "noise_floor": {
            **live_measured["noise_floor"], "latency_ms": floor}})))
        assert hidden.hidden_noise_text("perfgraphs/dippm", "cpu-torch-fp32", "latency_ms", LIVE) is None, value
        # the other target's floor, stated as numbers, still reads
        assert "5.0 % MAPE" in hidden.hidden_noise_text("perfgraphs/dippm", "cpu-torch-fp32", "peak_memory_mb", LIVE)
    for shape in ({"noise_floor": [1]}, {"noise_floor": {"latency_ms": "x"}}, ["x"]):
        bad.write_text(json.dumps(with_measured(shape)))
        assert hidden.hidden_noise_text("perfgraphs/dippm", "cpu-torch-fp32", "latency_ms", LIVE) is None
    bad.write_text(json.dumps(with_measured({**live_measured, "noise_floor": {
        "latency_ms": {"between_visits_mape_pct": "many"}}})))
    monkeypatch.setenv("COLUMNS", "300")  # each board's title on one line
    assert main(["leaderboard", "show", "--results", str(_hidden_records(tmp_path))]) == 0
    out = capsys.readouterr().out
    assert "internal error" not in out and out.count("(hidden 2ee8d095") == 2
    assert "noise floor not measured for these labels" in out


def test_a_compromise_once_on_the_main_line_stays_declared(git_commitments, monkeypatch):
    """Attack: the first hidden set ``4e45d0b9`` is withdrawn by the ``compromised`` block of its round,
    kept under ``earlier_rounds`` of ``dippm-cpu-torch-fp32.json``. Only the file as it is was read,
    so a pull request that dropped that round (``"earlier_rounds": []``) made the set's three frozen
    records read as **verified** in `leaderboard show`, with the COMPROMISED note gone. A declaration
    the main line ever held now counts, whatever the file says later."""
    from perfgraphs.leaderboard.records import hidden
    from perfgraphs.leaderboard.records.tiers import honest_tier

    commitments, commit = git_commitments
    old, new = "cd" * 32, "ab" * 32
    (commitments / "dippm-cpu-torch-fp32.sha256").write_text(f"{old}  dippm-cpu-torch-fp32.parquet\n")
    commit("first round")
    definition = commitments / "dippm-cpu-torch-fp32.json"
    first = {"architectures": ["timm:resnet18"], "compromised": {"sha256": old, "why": "public"}}
    definition.write_text(json.dumps(first))
    commit("the first round is compromised")
    (commitments / "dippm-cpu-torch-fp32.sha256").write_text(f"{new}  dippm-cpu-torch-fp32.parquet\n")
    definition.write_text(json.dumps(hidden.next_definition(first, {"architectures": ["timm:x+depth=3"]})))
    commit("second round")

    def declared() -> frozenset[str]:
        hidden._compromised.cache_clear()
        return hidden.compromised_hashes()

    assert old in declared() and new not in declared()  # control: as committed
    # the pull request: the withdrawn round taken out of the definition (in the work tree, then committed)
    definition.write_text(json.dumps({"architectures": ["timm:x+depth=3"], "earlier_rounds": []}))
    assert old in declared() and honest_tier("verified", "hidden", old) == "reproduced"
    commit("drop the first round")
    assert old in declared() and honest_tier("verified", "hidden", old) == "reproduced"
    assert new not in declared() and honest_tier("verified", "hidden", new) == "verified"  # the live set stays live
    # the guard off (the file as it is alone): the withdrawn set's records read as verified again
    with monkeypatch.context() as m:
        m.setattr(hidden, "_ever_compromised", lambda root, head: frozenset())
        assert old not in declared() and honest_tier("verified", "hidden", old) == "verified"
    hidden._compromised.cache_clear()


def test_a_stray_definition_that_does_not_parse_stops_no_board(git_commitments):
    """Attack: a pull request adds ``leaderboard/hidden/zz-note.json`` holding ``{"earlier_rounds": 5}``.
    Every ``*.json`` there was read for compromised declarations, so `leaderboard show` stopped at the
    first hidden board with ``a hidden-set definition's earlier_rounds must be a list of JSON objects``,
    naming no file, and printed no board after it. A file that defines no committed set and does not
    parse now declares nothing; a set's own definition that does not parse is refused naming it."""
    from perfgraphs.leaderboard.records import hidden

    commitments, commit = git_commitments
    (commitments / "dippm-cpu-torch-fp32.sha256").write_text("ab" * 32 + "  dippm-cpu-torch-fp32.parquet\n")
    (commitments / "dippm-cpu-torch-fp32.json").write_text(json.dumps({"architectures": []}))
    commit()
    for text in ('{"earlier_rounds": 5}', '{"earlier_rounds": [1]}', "[1]", "{not json"):
        (commitments / "zz-note.json").write_text(text)
        hidden._compromised.cache_clear()
        assert hidden.compromised_hashes() == frozenset(), text
    # control: the set's own definition, broken the same way, is refused in one line that names it
    (commitments / "dippm-cpu-torch-fp32.json").write_text('{"earlier_rounds": 5}')
    hidden._compromised.cache_clear()
    with pytest.raises(hidden.HiddenLabelsError, match="dippm-cpu-torch-fp32.json"):
        hidden.compromised_hashes()
    hidden._compromised.cache_clear()


def test_show_and_the_site_split_a_hidden_board_by_the_same_build(tmp_path, monkeypatch, capsys):
    """Attack: `leaderboard show` left the public pin (``leaderboard/builds.json``) out of a hidden
    board, the site applied it. With the dippm cpu-torch-fp32 pin moved (a pull request's re-pin, or
    the release step), `show` ranked the live set ``2ee8d095``'s ten verified rows as current while the
    site said "no entries on the current build yet" and listed them under previous builds. Both (and
    `rank-hidden`) now take the pin from one place, ``builds.board_pin``: none for a hidden board."""
    from perfgraphs.cli import main
    from perfgraphs.leaderboard.records import builds
    from perfgraphs.leaderboard.site import pages
    from perfgraphs.leaderboard.site.pages import build_site

    results = _hidden_records(tmp_path)
    pins = json.loads((results.parent / "builds.json").read_text())
    pins["perfgraphs/dippm cpu-torch-fp32"]["content_hash"] = "f" * 64  # a build none of them was scored on
    (results.parent / "builds.json").write_text(json.dumps(pins))

    def site_says() -> str:
        return build_site(tmp_path / "site", results).read_text()

    monkeypatch.setenv("COLUMNS", "300")  # each board's title on one line
    page = site_says()
    assert "hidden test set 2ee8d095: no entries on the current build yet" not in page
    assert page.count("hidden test set 2ee8d095") >= 2 and "Previous builds: 6" not in page
    assert main(["leaderboard", "show", "--results", str(results)]) == 0
    out = capsys.readouterr().out
    assert out.count("(hidden 2ee8d095") == 2 and "(hidden 2ee8d095, official) · build 937e48dcc8bf: no current" not in out
    # the guard off (the site's pin applied to hidden boards, as before): the site drops the live rows
    with monkeypatch.context() as m:
        m.setattr(pages, "board_pin", lambda pins, dataset, config, test_set: pins.get(f"{dataset} {config}"))
        page = site_says()
    assert "hidden test set 2ee8d095: no entries on the current build yet" in page
    assert "Previous builds: 6 entries" in page
    # a public board still splits by its pin
    assert builds.board_pin(pins, "perfgraphs/dippm", "cpu-torch-fp32", "public")["content_hash"] == "f" * 64
    assert builds.board_pin(pins, "perfgraphs/dippm", "cpu-torch-fp32", "hidden") is None
