"""Sixty-first adversarial pass (2026-12-05), submit side: a pickle the submission ships named a class of
a helper scripts' folder whose name is no Python name (`prior.pkl` naming `2024_scripts.hook.Prior`), and
loading it ran that folder's code. RULES puts helper scripts the predictor does not import in such a
folder (`scripts-train/`), which `unimported_modules` does not judge; the pickle scan and the sandbox's
unpickling guard allow "a class the submission's own source defines at a module's top level", and
`2024_scripts/hook.py` defines `Prior` there, so both passed it, and the unpickler imports any text that
names a folder: a median whose `fit` reads a flat prior with `pickle.load` ran the helper script (here a
line that raises; it could as well replace `predict` by one that times the test models, rule 3). Now a
pickle may name the submission's classes only in modules an `import` statement can write
(`pickle_scan.importable_by_statement`), in the scan and in the guard alike."""

from __future__ import annotations

import shutil
from pathlib import Path

from perfgraphs.cli import main
from test_submit import BOARD, code_submission, env  # noqa: F401 — env is a fixture

# a median that reads a flat prior, an instance of a class of its own, from a pickle it ships
MEDIAN_PRIOR = (
    "import pickle\n"
    "from pathlib import Path\n"
    "import numpy as np\n"
    "class Predictor:\n"
    "    def __init__(self, target, seed=0, quick=False):\n"
    "        self.target = target\n"
    "    def fit(self, train, val):\n"
    "        with open(Path(__file__).parent / 'prior.pkl', 'rb') as f:\n"
    "            self.prior = pickle.load(f)\n"
    "        self.level = float(np.median(train[self.target]))\n"
    "    def predict(self, graphs):\n"
    "        return np.full(len(graphs), self.level)\n")
# a helper script: a class at its top level, and a line that must never run in the sandbox
HOOK = "class Prior:\n    pass\n\n\nraise SystemExit('the helper script ran')\n"


def pickle_of(module: str, name: str) -> bytes:
    """A protocol-4 pickle of one instance of ``module``.``name`` (no state), as ``pickle.dumps`` writes
    it where the module imports under that name."""
    m, n = module.encode(), name.encode()
    return b"\x80\x04\x8c" + bytes([len(m)]) + m + b"\x94\x8c" + bytes([len(n)]) + n + b"\x94\x93\x94)\x81\x94."


def _check(sub: Path, env) -> list[str]:  # noqa: F811
    return ["check", str(sub), *BOARD, "--quick", "--seeds", "0", "--results", str(env["results"])]


def _helper_scripts(sub: Path, folder: str) -> None:
    (sub / folder).mkdir()
    (sub / folder / "__init__.py").write_text("")
    (sub / folder / "hook.py").write_text(HOOK)


def test_a_pickled_class_of_a_helper_scripts_folder_is_refused(env, capsys, tmp_path, monkeypatch):  # noqa: F811
    """Attack: a median whose fit unpickles `prior.pkl`, naming `2024_scripts.hook.Prior`. Before, `check`
    passed every static check and the seed failed with "SystemExit: the helper script ran" (its line ran
    in the sandbox). Now `check` refuses the pickle in one line, and so does a folder named with a hyphen
    (`scripts-train`, RULES' own example) or a keyword (`class`). Controls: the median beside the helper scripts, no pickle
    naming them, scores; with the static refusal off the sandbox's guard refuses the load, nothing ran."""
    from perfgraphs.leaderboard import submission

    sub = code_submission(tmp_path / "prior", "median-prior", MEDIAN_PRIOR)
    _helper_scripts(sub, "2024_scripts")
    (sub / "prior.pkl").write_bytes(pickle_of("builtins", "object"))  # a flat prior: an object of no class
    assert main(_check(sub, env)) == 0, capsys.readouterr().err  # control: helper scripts nothing names
    capsys.readouterr()

    (sub / "prior.pkl").write_bytes(pickle_of("2024_scripts.hook", "Prior"))
    assert main(_check(sub, env)) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "prior.pkl: a pickle naming 2024_scripts.hook.Prior" in err, err
    assert "no Python name" in err and "ran" not in err, err

    _helper_scripts(sub, "scripts-train")
    (sub / "prior.pkl").write_bytes(pickle_of("scripts-train.hook", "Prior"))
    assert main(_check(sub, env)) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "a pickle naming scripts-train.hook.Prior" in err and "ran" not in err, err

    _helper_scripts(sub, "class")  # an identifier, yet a keyword no import statement can write
    (sub / "prior.pkl").write_bytes(pickle_of("class.hook", "Prior"))
    assert main(_check(sub, env)) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "a pickle naming class.hook.Prior" in err and "ran" not in err, err
    shutil.rmtree(sub / "class")  # a folder of a Python name that nothing imports: unimported_modules refuses it
    (sub / "prior.pkl").write_bytes(pickle_of("scripts-train.hook", "Prior"))

    # the scan's refusal off: the sandbox's guard refuses the load before it imports the folder
    monkeypatch.setattr(submission, "shipped_pickles", lambda root: ([], set()))
    assert main(_check(sub, env)) == 1
    err = capsys.readouterr().err
    assert "the sandbox refused to unpickle scripts-train.hook.Prior" in err and "ran" not in err, err


def test_a_pickled_class_of_an_imported_module_still_scores(env, capsys, tmp_path):  # noqa: F811
    """Control: the same prior pickled from a class of a module the predictor imports (`helpers.Prior`,
    `import helpers` in its source) passes the scan and the guard and scores."""
    sub = code_submission(tmp_path / "honest", "median-prior", MEDIAN_PRIOR.replace(
        "import numpy as np\n", "import numpy as np\nimport helpers  # noqa: F401 — the prior's class\n"))
    (sub / "helpers").mkdir()
    (sub / "helpers" / "__init__.py").write_text("class Prior:\n    pass\n")
    (sub / "prior.pkl").write_bytes(pickle_of("helpers", "Prior"))
    assert main(_check(sub, env)) == 0, capsys.readouterr().err
