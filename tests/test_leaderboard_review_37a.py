"""Thirty-seventh adversarial pass (2026-12-04), read side: which records a board shows as current,
and what the readers say of the files a pull request can change."""

from __future__ import annotations

import argparse
import json
import subprocess
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
UNPINNED = "amd-epyc-23059b2f-torch-fp32"  # a dippm config builds.json does not pin


def _public_record(source: str = "static-mlp", **changes) -> dict:
    """A committed reference record (of the method ``source``) of the dippm CPU latency board, with ``changes``."""
    for line in (REPO / "leaderboard" / "results" / "dippm.jsonl").read_text().splitlines():
        r = json.loads(line)
        if (r["config"], r["target"], r.get("test_set"), r["method"]) == ("cpu-torch-fp32", "latency_ms", "public",
                                                                          source):
            return {**r, **changes}
    raise AssertionError(f"no {source} record on the dippm cpu latency board")


def _show(results: Path, capsys) -> str:
    from perfgraphs.cli.leaderboard_cmd import _show as show

    capsys.readouterr()
    assert show(argparse.Namespace(results=results)) == 0
    return capsys.readouterr().out


def _board(out: str, title: str) -> str:
    """The table of the board whose title holds ``title``, up to the next board's, its spaces and
    line breaks read as one space (the console wraps a long title)."""
    start = out.index(title)
    end = out.find("perfgraphs/", start + len(title))
    return " ".join(out[start:end if end > 0 else len(out)].split())


def test_a_self_reported_line_does_not_choose_an_unpinned_boards_build(tmp_path, capsys, monkeypatch):
    """Attack: on a board that ``leaderboard/builds.json`` does not pin (dippm's
    ``amd-epyc-23059b2f-torch-fp32``), the readers ranked the build of the board's newest record. A
    pull request adds one *self-reported* line (predictions files: never run here, never ranked on a
    public board), dated after the others and naming a made-up build (``ffff…``): ``leaderboard
    show`` and the site then titled the board with that build, listed only that line, and moved the
    reference and Alice's ranked entry under "2 entries on earlier builds not ranked". Now the build
    of an unpinned board is the one of its newest record the harness ran (``reproduce`` compares a
    harness record's build hash before it lands), else its newest record's: the two entries stay
    ranked and the line is the one on an earlier build. Control: with the newest record of any tier
    choosing the build (the rule before), the attack empties the board again."""
    from perfgraphs.leaderboard.records import builds

    results = tmp_path / "results"
    results.mkdir()
    honest = [_public_record(config=UNPINNED),
              _public_record("static-xgboost", config=UNPINNED, method="gnn-a", authors="Alice Author",
                             run_identity="alice-1")]
    forged = _public_record(config=UNPINNED, method="mal-net", authors="Mal Lory", run_identity="mal-1",
                            tier="self-reported", hardware="not measured (self-reported)", fit_seconds=None,
                            predictions_per_second=None, peak_memory_mb=None, fit_cpu_seconds=None, cores=None,
                            isolation="", dataset_content_hash="f" * 64, date_utc="2026-12-04T17:00:00+00:00")
    assert forged["date_utc"] > max(r["date_utc"] for r in honest)
    (results / "dippm.jsonl").write_text("".join(json.dumps(r, sort_keys=True) + "\n" for r in (*honest, forged)))
    title = f"perfgraphs/dippm · {UNPINNED} · latency_ms"

    board = _board(_show(results, capsys), title)
    assert f"build {honest[0]['dataset_content_hash'][:12]}" in board, board
    assert "gnn-a" in board and "static-mlp" in board and "1 entries on earlier builds not ranked" in board, board
    assert "mal-net" not in board, board

    # control: the newest record of any tier chooses the build, as before
    monkeypatch.setattr(builds, "unpinned_build", lambda entries: max(entries, key=lambda e: e.date_utc).dataset_content_hash)
    board = _board(_show(results, capsys), title)
    assert "build ffffffffffff" in board and "mal-net" in board, board
    assert "gnn-a" not in board and "2 entries on earlier builds not ranked" in board, board


def _git(repo: Path, *args: str) -> None:
    subprocess.run(["git", "-C", str(repo), "-c", "user.name=someone", "-c", "user.email=s@example.org", *args],
                   check=True, capture_output=True)


def test_a_gitattributes_line_converting_a_noise_probe_stops_the_boards_in_one_line(tmp_path, capsys, monkeypatch):
    """Attack: a pull request adds one line at the top of the repository, outside the folders the
    thirty-sixth pass guarded: ``data/measurements/noise-floor/*.json working-tree-encoding=UTF-16``.
    A fresh clone checks the dippm CPU noise probe out as UTF-16, and ``leaderboard show`` and
    ``build`` stopped with "internal error: UnicodeDecodeError" (``leaderboard/RULES.md`` converted
    did the same to ``build``; a converted store, split or definition is read as other text). Now
    the readers of the boards check first that git converts none of the files they read from
    (``leaderboard/`` and ``data/``: ``results.boards_checkout_problem``) and stop in one line
    naming the file and the attribute. Control: without that check, the same clone's probe stops
    ``show`` with the internal error."""
    from perfgraphs import paths
    from perfgraphs.cli import main
    from perfgraphs.leaderboard.records import results

    origin = tmp_path / "origin"
    probe = Path("data/measurements/noise-floor/noise-floor-dippm-cpu.json")
    (origin / probe.parent).mkdir(parents=True)
    (origin / probe).write_bytes((REPO / probe).read_bytes())
    (origin / "leaderboard").mkdir()
    (origin / "leaderboard" / "RULES.md").write_text("# rules\n")
    _git(origin, "init", "-q", "-b", "main")
    _git(origin, "add", "-A")
    _git(origin, "commit", "-q", "-m", "a probe")
    (origin / ".gitattributes").write_text("data/measurements/noise-floor/*.json working-tree-encoding=UTF-16\n")
    _git(origin, "add", ".gitattributes")  # the pull request's one line
    _git(origin, "commit", "-q", "-m", "attributes")
    clone = tmp_path / "clone"
    subprocess.run(["git", "clone", "-q", str(origin), str(clone)], check=True, capture_output=True)
    assert (clone / probe).read_bytes()[:2] in (b"\xff\xfe", b"\xfe\xff")  # checked out as UTF-16

    why = results.boards_checkout_problem(clone)
    assert why is not None and str(probe) in why and "working-tree-encoding=UTF-16" in why, why
    assert results.boards_checkout_problem(REPO) is None  # this checkout: nothing converted
    # the board readers, as in the clone: its probe is the one the noise floor reads
    monkeypatch.setattr(paths, "noise_floor_dir", lambda: clone / probe.parent)
    guarded = results.boards_checkout_problem
    monkeypatch.setattr(results, "boards_checkout_problem", lambda root=None: guarded(clone))
    folder = tmp_path / "results"
    folder.mkdir()
    (folder / "dippm.jsonl").write_text(json.dumps(_public_record(), sort_keys=True) + "\n")

    capsys.readouterr()
    assert main(["leaderboard", "show", "--results", str(folder)]) == 2
    err = capsys.readouterr().err
    assert len(err.splitlines()) == 1 and "out converted" in err and str(probe) in err, err

    # control: the check away, the probe is read converted (since the forty-first pass its reader
    # quotes it as not shown; before that, "internal error: UnicodeDecodeError")
    monkeypatch.setattr(results, "boards_checkout_problem", lambda root=None: None)
    assert main(["leaderboard", "show", "--results", str(folder)]) == 0
    out = " ".join(capsys.readouterr().out.split())
    assert "Noise floor: not shown" in out, out
