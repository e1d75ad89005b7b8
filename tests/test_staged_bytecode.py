"""The sandbox runs the staged package code's bytecode, compiled by the harness before the run
(``isolation.compile_staged``): the staged folder is read-only inside, so without it every seed
compiled each perfgraphs module it imported (0.35 s of a one-second seed on the tiny board)."""

from __future__ import annotations

import pytest

from perfgraphs.leaderboard.sandbox import isolation
from test_leaderboard_adversarial import env, parts  # noqa: F401 — fixtures
from test_leaderboard_redteam import log_lines, run_predictor

pytestmark = pytest.mark.skipif(isolation.unavailable_reason() is not None,
                                reason=f"no isolation here: {isolation.unavailable_reason()}")

# inside the sandbox, for every perfgraphs module it has imported: is the bytecode file Python looks for
# there, readable, and valid for the source as the import system checks a checked-hash file
# (importlib._bootstrap_external._validate_hash_pyc: flags 3, the source's hash)?
COUNT_VALID = """
def attack(model):
    import importlib.util
    found = []
    for name, module in sorted(sys.modules.items()):
        source = getattr(module, "__file__", None) or ""
        if not name.startswith("perfgraphs") or not source.endswith(".py"):
            continue
        try:
            data = open(importlib.util.cache_from_source(source), "rb").read()
            with open(source, "rb") as f:
                digest = importlib.util.source_hash(f.read())
            found.append(data[4:8] == (3).to_bytes(4, "little") and data[8:16] == digest)
        except OSError:
            found.append(False)
    print(f"PYC {sum(found)} {len(found)}", flush=True)
"""


def test_each_seed_imports_the_staged_code_compiled(env, parts, monkeypatch):  # noqa: F811
    """Every perfgraphs module a seed imports has valid bytecode beside its staged source; control:
    staged without it (the code as before), none has."""
    out, log, _ = run_predictor(env, parts, "bytecode", COUNT_VALID)
    assert not isinstance(out, Exception), out
    valid, imported = map(int, log_lines(log, "PYC ")[0].split())
    assert imported >= 10 and valid == imported, (valid, imported)

    monkeypatch.setattr(isolation, "compile_staged", lambda dest: None)
    out, log, _ = run_predictor(env, parts, "bytecode-off", COUNT_VALID)
    assert not isinstance(out, Exception), out
    valid, imported = map(int, log_lines(log, "PYC ")[0].split())
    assert imported >= 10 and valid == 0, (valid, imported)
