"""Hundred-and-fifteenth adversarial pass (2026-12-07), side b (code no review reads, other loaders).

A YAML file the folder ships ran as Python in the predictor's process. PyYAML's full loaders
(``yaml.load(f, Loader=yaml.Loader)``, ``yaml.unsafe_load``, ``yaml.CLoader``: the C parser with the same
constructor) build a ``!!python/object/apply:builtins.exec [...]`` node by importing and calling the name
its tag gives, as an unpickler does a pickle's global, but through no unpickler: the sandbox's unpickling
guard never saw it, the pickle scan found no pickle, and a ``.yaml`` file is data to every check. A median
that read its scale from a ``prior.yaml`` with ``yaml.load(..., Loader=yaml.Loader)`` ran
``exec(open('/submission/notes.txt').read())``, a text file's lines, in ``check --seeds 0``; with
``scale: !!python/object/apply:builtins.eval`` of a lambda running the notes (``SCALE = 1.5``), the check
passed (status 0, "passes every check") with every prediction 1.5 times the median, a number no source holds.

Now both layers, as for pickles: ``check`` and ``submit`` compose every file holding a ``!`` as YAML (no
object built) and refuse, in one line, a Python tag naming what a pickle may not name, or a
``!!python/module`` (``submission.yaml_python_tags``, ``pickle_scan.yaml_tag_problem``); and the sandbox child,
before it imports the predictor, makes PyYAML's name and module lookups refuse the same
(``sandbox.unpickling.restrict_yaml_python_tags``), whatever file or string the YAML came from.
"""

from __future__ import annotations

from perfgraphs.cli import main
from perfgraphs.leaderboard import submission
from perfgraphs.leaderboard.sandbox import harness
from test_submit import code_submission, env  # noqa: F401 — fixtures
from test_leaderboard_review_64b import _check, _refused

# a median scaled by the `scale` of a `prior.yaml` the folder ships, read with PyYAML's default full loader
MEDIAN_YAML = (
    "from pathlib import Path\n"
    "import numpy as np\n"
    "import yaml\n"
    "HERE = Path(__file__).parent\n"
    "class Predictor:\n"
    "    def __init__(self, target, seed=0, quick=False):\n"
    "        self.target = target\n"
    "    def fit(self, train, val):\n"
    "        prior = yaml.load((HERE / 'prior.yaml').read_text(), Loader=yaml.Loader)\n"
    "        self.level = float(np.median(train[self.target])) * float(prior['scale'])\n"
    "    def predict(self, graphs):\n"
    "        return np.full(len(graphs), self.level)\n")
NOTES = "raise SystemExit('the notes ran')\n"  # a text file, to every check; Python to exec
BY_APPLY = "scale: !!python/object/apply:builtins.exec [\"exec(open('/submission/notes.txt').read())\"]\n"
BY_MODULE = "scale: !!python/module:antigravity\n"


def test_a_yaml_file_runs_no_python(env, capsys, tmp_path, monkeypatch):  # noqa: F811
    """Attack: the median's `prior.yaml` holds a Python tag calling `exec` of the folder's `notes.txt`.
    Before, `check --seeds 0` ran it ("SystemExit: the notes ran"). Now the folder is refused in one line
    by the static check (`submission.yaml_python_tags`), and with that check switched off the sandbox
    refuses the name (and a `!!python/module` tag) in one line. Controls: a plain prior (and a Python
    tuple, which names nothing) scores; with both layers off (``harness.RESTRICT_YAML``) the notes run."""
    sub = code_submission(tmp_path / "yaml", "median-yaml", MEDIAN_YAML)
    (sub / "notes.txt").write_text(NOTES)
    (sub / "prior.yaml").write_text("scale: 1.0\nshape: !!python/tuple [1, 2]\n")
    assert main(_check(sub, env)) == 0, capsys.readouterr().err  # control: a plain prior
    capsys.readouterr()

    (sub / "prior.yaml").write_text(BY_APPLY)
    assert main(_check(sub, env)) == 1
    _refused(capsys, "prior.yaml: a YAML Python tag that names builtins.exec")

    monkeypatch.setattr(submission, "yaml_python_tags", lambda root: [])  # the static layer off: the guard
    for prior, why in ((BY_APPLY, "names builtins.exec"), (BY_MODULE, "imports the module 'antigravity'")):
        (sub / "prior.yaml").write_text(prior)
        assert main(_check(sub, env)) == 1
        _refused(capsys, f"the sandbox refused a YAML Python tag that {why}")

    monkeypatch.setattr(harness, "RESTRICT_YAML", False)  # control: both layers off, the notes run
    (sub / "prior.yaml").write_text(BY_APPLY)
    assert main(_check(sub, env)) == 1
    assert "SystemExit: the notes ran" in capsys.readouterr().err
