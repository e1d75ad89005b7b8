"""Sixty-fifth adversarial pass (2026-12-06), submit side: a type hint a data file held ran Python.

A median whose ``fit`` scaled its level by a pydantic model of its prior, built with ``pydantic.create_model``
from the field types its ``prior.json`` holds (``{"scale": "float"}``), ran code no check or review reads:
pydantic resolves a field type given as text as a forward reference, and ``typing`` evaluates a
``ForwardRef``'s text as Python, so ``{"scale": "exec(open('/submission/notes.txt').read()) or float"}`` ran
the text file's lines (as ``typing.get_type_hints`` of a ``NamedTuple`` built from such types and
``pydantic.TypeAdapter`` of such a string do). It passed every check: the types are a data file. The
sixty-fourth pass guarded PyG's own ``eval_type`` only. Now the sandbox child, before it imports the
predictor, makes every ``ForwardRef`` evaluate only a type hint (names, public attributes, subscripts,
constants, ``|``: ``expressions.guard_type_hints``); the controls: a plain field type scores, and with the
guard off (``harness.RESTRICT_EXPRESSIONS``) the notes run."""

from __future__ import annotations

import json

import pytest

from perfgraphs.cli import main
from perfgraphs.leaderboard.sandbox import harness
from test_submit import BOARD, code_submission, env  # noqa: F401 — fixtures

# a median scaled by a pydantic model whose field types the folder ships (`prior.json`), or by the type hints of
# a NamedTuple built from them (typing.get_type_hints)
MEDIAN_MODEL = (
    "import json\n"
    "import typing\n"
    "from pathlib import Path\n"
    "import numpy as np\n"
    "import pydantic\n"
    "HERE = Path(__file__).parent\n"
    "class Predictor:\n"
    "    def __init__(self, target, seed=0, quick=False):\n"
    "        self.target = target\n"
    "    def fit(self, train, val):\n"
    "        fields = json.loads((HERE / 'prior.json').read_text())\n"
    "        {build}\n"
    "        self.level = float(np.median(train[self.target])) * scale\n"
    "    def predict(self, graphs):\n"
    "        return np.full(len(graphs), self.level)\n")
BUILDS = {
    "create_model": "scale = pydantic.create_model('Prior', **{k: (v, 1.0) for k, v in fields.items()})().scale",
    "get_type_hints": ("scale = float(len(typing.get_type_hints(typing.NamedTuple('Prior', list(fields.items())))))"),
}
NOTES = "raise SystemExit('the notes ran')\n"  # a text file, to every check; Python to exec
BY_TYPE = {"scale": "exec(open('/submission/notes.txt').read()) or float"}


def _check(sub, env) -> list[str]:  # noqa: F811
    return ["check", str(sub), *BOARD, "--quick", "--seeds", "0", "--results", str(env["results"])]


@pytest.mark.parametrize("build", sorted(BUILDS))
def test_a_type_hint_read_from_data_runs_no_python(build, env, capsys, tmp_path, monkeypatch):  # noqa: F811
    """Attack: the median's prior is a model built from the field types its `prior.json` holds, one of which
    (`exec(...) or float`) runs `notes.txt` when typing evaluates it. Before, it ran (`check` failed with
    "SystemExit: the notes ran"); now the sandbox refuses it in one line. Controls: a plain field type scores;
    with the guard off the notes run."""
    sub = code_submission(tmp_path / build, f"median-{build.replace('_', '-')}",
                          MEDIAN_MODEL.format(build=BUILDS[build]))
    (sub / "notes.txt").write_text(NOTES)
    prior = sub / "prior.json"
    prior.write_text(json.dumps({"scale": "float"}))
    assert main(_check(sub, env)) == 0, capsys.readouterr().err  # control: a field type
    capsys.readouterr()

    prior.write_text(json.dumps(BY_TYPE))
    assert main(_check(sub, env)) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "the sandbox refused to evaluate BoolOp in the type hint" in err, err
    assert "the notes ran" not in err

    monkeypatch.setattr(harness, "RESTRICT_EXPRESSIONS", False)  # control: the guard off, the notes run
    assert main(_check(sub, env)) == 1
    assert "SystemExit: the notes ran" in capsys.readouterr().err
