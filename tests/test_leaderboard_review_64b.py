"""Sixty-fourth adversarial pass (2026-12-06), submit side: pandas' expressions and templates ran Python.

A median whose ``fit`` scaled its level by a formula it ships (``prior.txt``), evaluated with pandas'
``DataFrame.eval`` (``query`` and ``pandas.eval`` walk the same tree), ran code no check or review reads:
pandas evaluates an expression by walking its syntax tree, an attribute a ``getattr`` on whatever it
holds and a call a call of it, so ``median.__class__.__init__.__globals__["sys"].modules["builtins"].exec(...)``
of ``/submission/notes.txt`` ran the text file's lines, and so did ``@pd.core.common.builtins.exec(...)``,
through modules alone. Public attributes alone reach jinja2 too (``median.to_frame().style.env``:
pandas' Styler keeps a jinja2 environment), whose template ``{{ cycler.__init__.__globals__... }}`` ran the
notes as well, as did a ``prior.j2`` the median rendered with ``jinja2.Template`` and a ``prior.mako``
rendered with Mako (whose templates are Python). Each passed every check: the formula and the
templates are data files. Now the sandbox child, before it imports the predictor, makes pandas'
expressions refuse a name or attribute starting with ``_``, any module they reach and any class or function
they make (a string names a method to pandas' ``agg``: ``median.agg("__getattribute__", 0, "__class__")``
passed the names' check), every jinja2 environment sandboxed as jinja2's ``SandboxedEnvironment`` is, and
Mako build no template (``perfgraphs.leaderboard.sandbox.expressions``); the controls: plain formulas and
templates score, and with the guard off (``harness.RESTRICT_EXPRESSIONS``) the notes run.

And a median passed through a PyG ``Sequential`` built from a signature its ``arch.json`` holds ran the
notes too: PyG evaluates the signature's type hints with ``typing`` (``x: exec(...) or Tensor`` is Python to
it) and prints the signature's names into the ``forward`` it renders from a jinja2 template and imports
(``x)\n    exec(...)\n    (x -> x``). Now PyG's ``eval_type`` evaluates only type hints (names, public
attributes, subscripts, ``|``) and its ``module_from_template`` prints only such hints and Python
identifiers; every ``MessagePassing`` convolution of PyG still generates its ``propagate``."""

from __future__ import annotations

import json

import pytest

from perfgraphs.cli import main
from perfgraphs.leaderboard.sandbox import harness
from test_submit import BOARD, code_submission, env  # noqa: F401 — fixtures

# a median scaled by a formula the folder ships (`prior.txt`), evaluated over a one-row frame
MEDIAN_QUERY = (
    "from pathlib import Path\n"
    "import numpy as np\n"
    "import pandas as pd\n"
    "HERE = Path(__file__).parent\n"
    "class Predictor:\n"
    "    def __init__(self, target, seed=0, quick=False):\n"
    "        self.target = target\n"
    "    def fit(self, train, val):\n"
    "        frame = pd.DataFrame({'median': [float(np.median(train[self.target]))]})\n"
    "        self.level = float(np.asarray(frame.eval((HERE / 'prior.txt').read_text().strip()))[0])\n"
    "    def predict(self, graphs):\n"
    "        return np.full(len(graphs), self.level)\n")
# a median scaled by a template the folder ships, rendered with jinja2 or Mako
MEDIAN_TEMPLATE = (
    "from pathlib import Path\n"
    "import numpy as np\n"
    "{imports}\n"
    "HERE = Path(__file__).parent\n"
    "class Predictor:\n"
    "    def __init__(self, target, seed=0, quick=False):\n"
    "        self.target = target\n"
    "    def fit(self, train, val):\n"
    "        text = (HERE / '{prior}').read_text()\n"
    "        self.level = float({render}.render(median=float(np.median(train[self.target]))))\n"
    "    def predict(self, graphs):\n"
    "        return np.full(len(graphs), self.level)\n")
JINJA2 = {"imports": "import jinja2", "prior": "prior.j2", "render": "jinja2.Template(text)"}
MAKO = {"imports": "import mako.template", "prior": "prior.mako", "render": "mako.template.Template(text)"}
NOTES = "raise SystemExit('the notes ran')\n"  # a text file, to every check; Python to exec
SYS = 'median.__class__.__init__.__globals__["sys"]'
BY_GLOBALS = f'{SYS}.modules["builtins"].exec({SYS}.modules["io"].open("/submission/notes.txt").read())'
BY_MODULES = ('@pd.core.common.builtins.exec(@pd.core.common.builtins.open("/submission/notes.txt")'
              '.read())')
B = "cycler.__init__.__globals__.__builtins__"  # jinja2's default global, a function's module's builtins
TEMPLATE = f"{{{{ {B}.exec({B}.open('/submission/notes.txt').read()) }}}}{{{{ median }}}}"
BY_STYLER = f'median.to_frame().style.env.from_string("{TEMPLATE}").render()'
# a method named by a string (pandas' `agg` looks it up with getattr): the Series' class, past the names' check
BY_NAMED_METHOD = 'median.agg("__getattribute__", 0, "__class__").mro()'


def _check(sub, env) -> list[str]:  # noqa: F811
    return ["check", str(sub), *BOARD, "--quick", "--seeds", "0", "--results", str(env["results"])]


def _refused(capsys, what: str) -> None:
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and what in err and "the notes ran" not in err, err


def test_a_pandas_expression_runs_no_python(env, capsys, tmp_path, monkeypatch):  # noqa: F811
    """Attack: the median's `prior.txt` is an expression that runs the folder's `notes.txt`: through a
    function's `__globals__`, through modules named by public attributes (`@pd.core.common.builtins`),
    and through the jinja2 environment pandas' Styler keeps. Before, each ran (`check` failed with
    "SystemExit: the notes ran"); now each is refused in the sandbox, in one line, and so is a class
    reached through a method named by a string. Controls: a plain formula scores; with the guard off the
    notes run."""
    sub = code_submission(tmp_path / "query", "median-query", MEDIAN_QUERY)
    (sub / "notes.txt").write_text(NOTES)
    (sub / "prior.txt").write_text("median.abs() * 1.0\n")
    assert main(_check(sub, env)) == 0, capsys.readouterr().err  # control: a formula
    capsys.readouterr()

    for formula, why in ((BY_GLOBALS, "the sandbox refused to evaluate a pandas expression holding the attribute"),
                         (BY_MODULES, "whose name pd is a module (pandas)"),
                         (BY_STYLER, "SecurityError: access to attribute '__init__' of 'type' object is unsafe"),
                         (BY_NAMED_METHOD, "reaching a class (Series)")):
        (sub / "prior.txt").write_text(formula + "\n")
        assert main(_check(sub, env)) == 1
        _refused(capsys, why)

    monkeypatch.setattr(harness, "RESTRICT_EXPRESSIONS", False)  # control: the guard off, the notes run
    (sub / "prior.txt").write_text(BY_GLOBALS + "\n")
    assert main(_check(sub, env)) == 1
    assert "SystemExit: the notes ran" in capsys.readouterr().err


@pytest.mark.parametrize("engine", [JINJA2, MAKO], ids=["jinja2", "mako"])
def test_a_template_runs_no_python(engine, env, capsys, tmp_path, monkeypatch):  # noqa: F811
    """Attack: the median renders a template the folder ships, which runs `notes.txt` (jinja2: through a
    default global's module; Mako: a template is Python). Before, it ran; now jinja2 renders sandboxed
    and Mako builds no template. Controls: a plain jinja2 template scores; with the guard off the notes
    run."""
    sub = code_submission(tmp_path / "template", "median-template", MEDIAN_TEMPLATE.format(**engine))
    (sub / "notes.txt").write_text(NOTES)
    prior = sub / engine["prior"]
    if engine is JINJA2:
        prior.write_text("{{ median * 1.0 }}")
        assert main(_check(sub, env)) == 0, capsys.readouterr().err  # control: a template
        capsys.readouterr()
        prior.write_text(TEMPLATE)
        why = "SecurityError: access to attribute '__init__' of 'type' object is unsafe"
    else:
        prior.write_text("${exec(open('/submission/notes.txt').read()) or median}")
        why = "the sandbox refused to build a Mako template"
    assert main(_check(sub, env)) == 1
    _refused(capsys, why)

    monkeypatch.setattr(harness, "RESTRICT_EXPRESSIONS", False)  # control: the guard off, the notes run
    assert main(_check(sub, env)) == 1
    assert "SystemExit: the notes ran" in capsys.readouterr().err


# -- PyG's Sequential signatures -------------------------------------------------------------------------------

# a median passed through a PyG Sequential whose signature the folder ships (`arch.json`)
MEDIAN_SEQUENTIAL = (
    "import json\n"
    "from pathlib import Path\n"
    "import numpy as np\n"
    "import torch\n"
    "from torch_geometric.nn import Sequential\n"
    "HERE = Path(__file__).parent\n"
    "class Predictor:\n"
    "    def __init__(self, target, seed=0, quick=False):\n"
    "        self.target = target\n"
    "    def fit(self, train, val):\n"
    "        arch = json.loads((HERE / 'arch.json').read_text())\n"
    "        net = Sequential(arch['signature'], [(torch.nn.Identity(), arch['step'])])\n"
    "        self.level = float(net(torch.tensor([float(np.median(train[self.target]))]))[0])\n"
    "    def predict(self, graphs):\n"
    "        return np.full(len(graphs), self.level)\n")
EXEC_NOTES = "exec(open('/submission/notes.txt').read())"
# a type hint typing evaluates, and a name PyG prints into the forward it generates and imports
BY_TYPE_HINT = {"signature": f"x: {EXEC_NOTES} or Tensor", "step": "x -> x"}
BY_NAME = {"signature": "x", "step": f"x)\n    {EXEC_NOTES}\n    (x -> x"}


def test_a_sequential_signature_runs_no_python(env, capsys, tmp_path, monkeypatch):  # noqa: F811
    """Attack: the median's PyG `Sequential` is built from a signature its `arch.json` holds: a type hint
    (`x: exec(...) or Tensor`, which typing evaluates as Python) or a name (which PyG prints into the
    `forward` it generates from a template and imports) runs `notes.txt`. Before, each ran; now each is
    refused in the sandbox, in one line. Controls: a plain signature scores; with the guard off the
    generated `forward` runs the notes."""
    sub = code_submission(tmp_path / "sequential", "median-sequential", MEDIAN_SEQUENTIAL)
    (sub / "notes.txt").write_text(NOTES)
    arch = sub / "arch.json"
    arch.write_text(json.dumps({"signature": "x: Tensor", "step": "x -> x"}))
    assert main(_check(sub, env)) == 0, capsys.readouterr().err  # control: a signature
    capsys.readouterr()

    arch.write_text(json.dumps(BY_TYPE_HINT))
    assert main(_check(sub, env)) == 1
    _refused(capsys, "the sandbox refused to evaluate BoolOp in the type hint")
    arch.write_text(json.dumps(BY_NAME))
    assert main(_check(sub, env)) == 1  # the generated forward is refused; PyG's own then finds no such name
    _refused(capsys, "KeyError")

    monkeypatch.setattr(harness, "RESTRICT_EXPRESSIONS", False)  # control: the guard off, the generated code runs
    assert main(_check(sub, env)) == 1
    assert "SystemExit: the notes ran" in capsys.readouterr().err
