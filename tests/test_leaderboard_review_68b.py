"""Sixty-eighth adversarial pass (2026-12-06), submit side: an fx graph built from a data file ran Python.

A median whose ``fit`` scaled its level by a small ``torch.fx`` graph it built from a shipped ``scale.json``
(an input name, weights by name: ``graph.placeholder(spec["input"])``, ``graph.get_attr(name)``, then
``torch.fx.GraphModule(weights, graph)``) ran code no check or review reads: fx generates the Python of the
module's ``forward`` from the graph and ``exec``s it, printing a placeholder's name as a parameter of the
``def`` line and an attribute's name inside ``getattr(self, "<name>")`` as they are (the sixty-sixth pass's
lead: ``torch.fx.graph._format_target``). A weight named ``w") if exec(bytes([...])) else getattr(self, "w``
or an input named ``x=exec(bytes([...]))`` ran the folder's ``notes.txt``; the folder is a median's source,
a JSON file and a text file, and passed every check. Now, in the sandbox, fx generates code only from a
graph whose names print as themselves (``expressions.fx_graph_problem``); the controls: the honest
``scale.json`` still scores, and with the guard off (``harness.RESTRICT_EXPRESSIONS``) the notes run."""

from __future__ import annotations

import json

import pytest

from perfgraphs.cli import main
from perfgraphs.leaderboard.sandbox import harness
from test_submit import BOARD, code_submission, env  # noqa: F401 — fixtures

MEDIAN_SCALED = (
    "import json\n"
    "from pathlib import Path\n"
    "import numpy as np\n"
    "import torch\n"
    "import torch.fx as fx\n"
    "HERE = Path(__file__).parent\n"
    "class Predictor:\n"
    "    def __init__(self, target, seed=0, quick=False):\n"
    "        self.target = target\n"
    "    def fit(self, train, val):\n"
    "        spec = json.loads((HERE / 'scale.json').read_text())\n"
    "        weights = {name: torch.tensor(w) for name, w in spec['weights'].items()}\n"
    "        graph = fx.Graph()\n"
    "        x = graph.placeholder(spec['input'])\n"
    "        for name in weights:\n"
    "            x = graph.call_function(torch.mul, (x, graph.get_attr(name)))\n"
    "        graph.output(graph.call_method('sum', (x,)))\n"
    "        net = fx.GraphModule(weights, graph)\n"
    "        scale = float(net(torch.full((3,), 1 / 3)))\n"
    "        self.level = float(np.median(train[self.target])) * scale\n"
    "    def predict(self, graphs):\n"
    "        return np.full(len(graphs), self.level)\n")
NOTES = "raise SystemExit('the notes ran')\n"  # a text file, to every check; Python to exec
RUN_NOTES = "exec(bytes(%s))" % list(b"exec(open('/submission/notes.txt').read())")  # no dots: fx splits names at them
HONEST = {"input": "x", "weights": {"w": [1.0, 1.0, 1.0]}}
FORGED = {"get_attr": {"input": "x", "weights": {f'w") if {RUN_NOTES} else getattr(self, "w': [1.0, 1.0, 1.0]}},
          "placeholder": {"input": f"x={RUN_NOTES}", "weights": {"w": [1.0, 1.0, 1.0]}}}


def _check(sub, env) -> list[str]:  # noqa: F811
    return ["check", str(sub), *BOARD, "--quick", "--seeds", "0", "--results", str(env["results"])]


def _submission(folder, spec: dict):
    sub = code_submission(folder, "median-fx-scaled", MEDIAN_SCALED)
    (sub / "notes.txt").write_text(NOTES)
    (sub / "scale.json").write_text(json.dumps(spec))
    return sub


def test_an_honest_fx_graph_still_scores(env, capsys, tmp_path):  # noqa: F811
    """Control: the same median, its graph built from an honest ``scale.json``, scores."""
    assert main(_check(_submission(tmp_path / "honest", HONEST), env)) == 0, capsys.readouterr().err


@pytest.mark.parametrize("route", sorted(FORGED))
def test_an_fx_graph_from_data_runs_no_python(route, env, capsys, tmp_path, monkeypatch):  # noqa: F811
    """Attack: a name the median's ``scale.json`` gives its fx graph is printed into the ``forward`` fx
    generates and runs. Before, the notes ran (`check` failed with "SystemExit: the notes ran"); now the
    sandbox refuses the graph in one line. Control: with the guard off the notes run."""
    sub = _submission(tmp_path / route, FORGED[route])
    assert main(_check(sub, env)) == 1
    err = capsys.readouterr().err
    assert "the notes ran" not in err, err
    assert err.count("\n") == 1 and "the sandbox refused to generate fx code" in err, err

    monkeypatch.setattr(harness, "RESTRICT_EXPRESSIONS", False)  # control: the guard off, the notes run
    assert main(_check(sub, env)) == 1
    assert "SystemExit: the notes ran" in capsys.readouterr().err
