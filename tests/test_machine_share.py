"""The parallel suite's lock (tests/machine_share.py): a ``machine_alone`` test runs with no other test
beside it, on a real two-worker pytest-xdist run of tests that log when they run."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

TESTS = Path(__file__).resolve().parent

BUSY = '''
import json, os, time

import pytest


def _log(name):
    start = time.monotonic()
    time.sleep(0.6)
    with open(os.environ["SPAN_LOG"], "a") as f:
        f.write(json.dumps([name, start, time.monotonic()]) + "\\n")
'''


def _spans(tmp_path: Path, alone: bool) -> dict[str, tuple[float, float]]:
    """Two files run by two workers: one with six busy tests, one whose second test may be machine_alone."""
    tmp_path.mkdir()
    (tmp_path / "conftest.py").write_text(f"import sys\nsys.path.insert(0, {str(TESTS)!r})\n"
                                          "from machine_share import pytest_configure, pytest_runtest_protocol\n")
    (tmp_path / "test_others.py").write_text(BUSY + "".join(f"\n\ndef test_other_{i}():\n    _log('other_{i}')\n"
                                                              for i in range(6)))
    mark = "@pytest.mark.machine_alone\n" if alone else ""
    (tmp_path / "test_alone.py").write_text(BUSY + "\n\ndef test_first():\n    _log('first')\n\n\n"
                                            f"{mark}def test_alone():\n    _log('alone')\n")
    log = tmp_path / "spans.jsonl"
    done = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-n", "2", "--dist", "loadfile",
                           "-o", "addopts=", str(tmp_path)], cwd=tmp_path, capture_output=True, text=True, timeout=300,
                          env={**__import__("os").environ, "SPAN_LOG": str(log)})
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    return {name: (a, b) for name, a, b in map(json.loads, log.read_text().splitlines())}


def _overlapping(spans: dict, name: str) -> list[str]:
    a, b = spans[name]
    return [other for other, (c, d) in spans.items() if other != name and c < b and a < d]


def test_a_machine_alone_test_runs_beside_no_other(tmp_path):
    spans = _spans(tmp_path / "marked", alone=True)
    assert len(spans) == 8 and _overlapping(spans, "alone") == [], spans
    assert _overlapping(spans, "first"), spans  # the other tests do run in parallel
    # control: unmarked, it runs beside one of the other worker's tests
    spans = _spans(tmp_path / "unmarked", alone=False)
    assert _overlapping(spans, "alone"), spans
