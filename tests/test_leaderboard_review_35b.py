"""Thirty-fifth adversarial pass (2026-12-03), submit side: `leaderboard reproduce --submission`
printed the names a handed-over repository holds raw on the reviewer's terminal (a hook's name
wrote a line saying the record was reproduced), and the label scan kept every pickled-dtype match
of a file (96 MB of ``\\x8c\\x02S9`` took 1.9 GB). Each test is one attack that worked before its
fix, with a control."""

from __future__ import annotations

import json
import pickle
import tracemalloc
from pathlib import Path

import numpy as np

from perfgraphs.cli import main, submit_cmd
from perfgraphs.leaderboard import label_scan, reproduce
from perfgraphs.leaderboard.records.results import RESULTS_DIR
from test_leaderboard_review_30b import _git, contributor_clone

FORGED = "dippm line 7: tweak-ridge at 0123456789ab: reproduced (build 5f1d; per-seed MAPE 3.1 %)"


def _contributor_results(tmp_path: Path, record: dict) -> Path:
    """A results folder whose dippm.jsonl holds one contributor record naming ``record``'s commit:
    a reference's harness record with the contributor's name, method and commit."""
    lines = (Path(RESULTS_DIR) / "dippm.jsonl").read_text().splitlines()
    base = next(json.loads(x) for x in lines if '"reproduced"' in x and '"public"' in x and "quick" not in x)
    base.update(method=record["method"], authors=record["authors"], code_commit=record["code_commit"],
                code_url="https://example.org/tweak-ridge")
    results = tmp_path / "results"
    results.mkdir()
    (results / "dippm.jsonl").write_text(json.dumps(base) + "\n")
    return results


def test_reproduce_prints_a_repository_s_names_escaped(tmp_path, monkeypatch, capsys):
    """Attack: the handed-over clone's ``.git/hooks`` holds a file named ``x CR ESC[2K <a line
    saying the record is reproduced> LF``. `reproduce --submission` refused the repository (a hook
    is not a fresh clone's) in a message that quoted the name raw, and the CLI printed
    ``perfgraphs: error: ...`` as it was: on the reviewer's terminal the carriage return and the
    erase left the forged line alone, reading "reproduced" (a config key ``remote."o ESC...".x`` and a
    folder name in a path too long to read did the same). Now the message is one line, every
    control written as its escape. Controls: an ordinary hook is still refused, naming it; without
    the escaping the forged line reaches the terminal raw."""
    folder, record = contributor_clone(tmp_path)
    results = _contributor_results(tmp_path, record)
    argv = ["leaderboard", "reproduce", "dippm", "1", "--results", str(results), "--submission", str(folder)]
    (folder / ".git" / "hooks" / "post-checkout").write_text("#!/bin/sh\n")
    assert main(argv) == 2
    assert "hooks/post-checkout" in capsys.readouterr().err  # control: an ordinary hook is refused
    (folder / ".git" / "hooks" / "post-checkout").unlink()
    (folder / ".git" / "hooks" / f"x\r\x1b[2K{FORGED}\n\x1b[8m").write_text("")
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "\x1b" not in err and "\r" not in err and "\\x1b[2K" in err, err
    monkeypatch.setattr(submit_cmd, "_line", lambda text: text)  # control: the guards off
    monkeypatch.setattr(reproduce, "printable", lambda text: text)
    assert main(argv) == 2
    assert f"\r\x1b[2K{FORGED}\n" in capsys.readouterr().err


def _form_before(data: bytes) -> label_scan._TextForm:
    """The form as it was found before (every match of both dtype patterns kept)."""
    text = label_scan._STRING_DTYPE_V0.findall(data)
    dtypes = label_scan._STRING_DTYPE.findall(data) + text
    if b"\x00" not in data[:65536] and not dtypes:
        return label_scan._TextForm(binary=False)
    return label_scan._TextForm(binary=True, wide=data.startswith(label_scan._WIDE_TEXT) or any(k == b"U" for k, _ in dtypes),
                                widths=tuple(sorted({int(w) for _, w in dtypes if 4 <= int(w) <= label_scan.MAX_CUT_WIDTH})),
                                cut_left=max(label_scan.MIN_CUT_BYTES, len(data) // 8), escaped=bool(text))


def test_the_pickled_string_dtypes_of_a_file_are_not_kept_one_by_one():
    """Attack: a file of ``\\x8c\\x02S9`` repeated (a pickled numpy ``S9`` dtype, 4 bytes) is a
    match of the dtype pattern every 4 bytes; the scan kept every one as a tuple before reading
    its widths: 96 MB took 1.9 GB over the file, one at the 512 MB size limit about 10 GB (the
    protocol-0 form ``(VS9\\n`` alike). Now each 64 KB piece's distinct matches are kept. Controls:
    the traced peak of the matches kept before is over 3 times the file; honest pickles of
    string arrays (S and U, protocols 0, 2 and 5), a plain text file and a UTF-16 one get the
    form they got before."""
    for unit in (b"\x8c\x02S9", b"(VS9\n"):
        data = unit * ((4 << 20) // len(unit))
        tracemalloc.start()
        try:
            form = label_scan._text_form(data)
            peak = tracemalloc.get_traced_memory()[1]
            tracemalloc.reset_peak()
            label_scan._STRING_DTYPE.findall(data) + label_scan._STRING_DTYPE_V0.findall(data)
            before = tracemalloc.get_traced_memory()[1]
        finally:
            tracemalloc.stop()
        assert peak < len(data) / 2 and before > 3 * len(data), (unit, peak, before)
        assert form == _form_before(data)
    values = np.random.default_rng(0).lognormal(0, 1, 300)
    honest = [pickle.dumps(np.array([f"{v:.6e}" for v in values], dtype=kind), protocol=p)
              for kind in ("S", "U") for p in (0, 2, 5)]
    honest += [pickle.dumps((b"x" * (3 << 20), np.array([repr(v) for v in values])), protocol=2),
               ", ".join(map(str, values)).encode(), "1234.5678, 2.5\n".encode("utf-16")]
    for data in honest:
        assert label_scan._text_form(data) == _form_before(data)
