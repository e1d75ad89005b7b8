"""Sixty-second adversarial pass (2026-12-05), submit side: a median whose `fit` configured logging from
a file it ships (`logging.config.dictConfig(json.loads(logging.json))`, or `fileConfig(logging.ini)`)
ran code no check or review reads. `dictConfig` imports whatever dotted name the dictionary gives under
`()`, `class` or `ext://` and calls it with the entry's other keys: `{"()": "runpy.run_path",
"path_name": "/submission/notes.txt"}` ran a text file's lines as Python, and `{"()":
"2024_scripts.hook.H"}` imported a helper script of a folder of no Python name (the importer of a
string the sixtieth pass's lead asked for); `fileConfig` evaluates its handler lines as Python. The
configuration is a data file to every check. Now the sandbox child, before it imports the predictor,
lets `logging.config` build only the logging package's classes, `sys.stdout`/`sys.stderr` and the
submission's own classes, and evaluate nothing (`perfgraphs.leaderboard.sandbox.logconfig`)."""

from __future__ import annotations

import json
from pathlib import Path

from perfgraphs.cli import main
from perfgraphs.leaderboard.sandbox import harness
from test_submit import BOARD, code_submission, env  # noqa: F401 — env is a fixture

# a median that configures its logging from a file it ships
MEDIAN_LOGGING = (
    "import json\n"
    "import logging.config\n"
    "from pathlib import Path\n"
    "import numpy as np\n"
    "HERE = Path(__file__).parent\n"
    "class Predictor:\n"
    "    def __init__(self, target, seed=0, quick=False):\n"
    "        self.target = target\n"
    "    def fit(self, train, val):\n"
    "        if (HERE / 'logging.json').exists():\n"
    "            logging.config.dictConfig(json.loads((HERE / 'logging.json').read_text()))\n"
    "        else:\n"
    "            logging.config.fileConfig(HERE / 'logging.ini', disable_existing_loggers=False)\n"
    "        logging.getLogger(__name__).info('fitting a median')\n"
    "        self.level = float(np.median(train[self.target]))\n"
    "    def predict(self, graphs):\n"
    "        return np.full(len(graphs), self.level)\n")
NOTES = "raise SystemExit('the notes ran')\n"  # a text file, to every check; Python to runpy


def _check(sub: Path, env) -> list[str]:  # noqa: F811
    return ["check", str(sub), *BOARD, "--quick", "--seeds", "0", "--results", str(env["results"])]


def _dict_config(sub: Path, handler: dict, formatter: dict | None = None) -> None:
    config = {"version": 1, "disable_existing_loggers": False, "handlers": {"console": handler},
              "root": {"handlers": ["console"], "level": "WARNING"}}
    if formatter is not None:
        config["formatters"] = {"plain": formatter}
        handler["formatter"] = "plain"
    (sub / "logging.json").write_text(json.dumps(config))


def _refused(capsys, what: str) -> None:
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and f"the sandbox refused {what}" in err and "ran" not in err, err


def test_a_logging_configuration_builds_nothing_else(env, capsys, tmp_path, monkeypatch):  # noqa: F811
    """Attack: the median's `logging.json` names `runpy.run_path` with `path_name` a text file of the
    folder, then a class of a helper script in `2024_scripts/` (no Python name), then a function reached
    through the logging package's attributes (`logging.os.system`). Before, the first two ran (`check`
    failed with "SystemExit: the notes ran" / "the helper script ran"); now each is refused in the
    sandbox, in one line, and nothing ran. Controls: the median with a plain configuration (a logging
    class, `ext://sys.stderr`) scores; with the guard off the notes run."""
    sub = code_submission(tmp_path / "logging", "median-logging", MEDIAN_LOGGING)
    (sub / "notes.txt").write_text(NOTES)
    (sub / "2024_scripts").mkdir()
    (sub / "2024_scripts" / "hook.py").write_text("class H:\n    pass\n\n\nraise SystemExit('the helper script ran')\n")
    _dict_config(sub, {"class": "logging.StreamHandler", "stream": "ext://sys.stderr"})
    assert main(_check(sub, env)) == 0, capsys.readouterr().err  # control: a plain configuration
    capsys.readouterr()

    _dict_config(sub, {"()": "runpy.run_path", "path_name": "/submission/notes.txt"})
    assert main(_check(sub, env)) == 1
    _refused(capsys, "to let logging.config build runpy.run_path")

    _dict_config(sub, {"()": "2024_scripts.hook.H"})
    assert main(_check(sub, env)) == 1
    _refused(capsys, "to let logging.config build 2024_scripts.hook.H")

    _dict_config(sub, {"class": "logging.StreamHandler"}, {"class": "logging.os.system", "format": "id"})
    assert main(_check(sub, env)) == 1
    _refused(capsys, "to let logging.config build logging.os.system (not a class of the logging package)")

    monkeypatch.setattr(harness, "RESTRICT_LOGGING_CONFIG", False)  # control: the guard off, the notes run
    _dict_config(sub, {"()": "runpy.run_path", "path_name": "/submission/notes.txt"})
    assert main(_check(sub, env)) == 1
    assert "SystemExit: the notes ran" in capsys.readouterr().err


def test_a_file_configuration_evaluates_nothing(env, capsys, tmp_path, monkeypatch):  # noqa: F811
    """Attack: the median's `logging.ini` (read by `fileConfig`) whose handler's `args` line is Python
    that runs the notes. Before, they ran; now fileConfig's evaluation is refused in one line. Control:
    with the guard off, they run."""
    sub = code_submission(tmp_path / "ini", "median-logging", MEDIAN_LOGGING)
    (sub / "notes.txt").write_text(NOTES)
    (sub / "logging.ini").write_text(
        "[loggers]\nkeys=root\n\n[handlers]\nkeys=console\n\n[formatters]\nkeys=\n\n"
        "[logger_root]\nlevel=WARNING\nhandlers=console\n\n"
        "[handler_console]\nclass=StreamHandler\n"
        "args=(__import__('runpy').run_path('/submission/notes.txt') and sys.stderr,)\n")
    assert main(_check(sub, env)) == 1
    _refused(capsys, "logging.config.fileConfig's handler lines")

    monkeypatch.setattr(harness, "RESTRICT_LOGGING_CONFIG", False)  # control: the guard off
    assert main(_check(sub, env)) == 1
    assert "SystemExit: the notes ran" in capsys.readouterr().err


def test_a_formatter_of_the_submissions_own_class_still_scores(env, capsys, tmp_path):  # noqa: F811
    """Control: a configuration naming a formatter class the predictor's own `helpers.py` defines (and
    imports), `ext://sys.stdout` and a class of `logging.handlers` is built and the median scores."""
    sub = code_submission(tmp_path / "own", "median-logging", MEDIAN_LOGGING.replace(
        "import numpy as np\n", "import numpy as np\nimport helpers  # noqa: F401 — the log's formatter\n", 1))
    (sub / "helpers.py").write_text("import logging\n\n\nclass Plain(logging.Formatter):\n    pass\n")
    _dict_config(sub, {"class": "logging.handlers.MemoryHandler", "capacity": 10},
                 {"()": "helpers.Plain", "format": "%(message)s"})
    config = json.loads((sub / "logging.json").read_text())
    config["handlers"]["out"] = {"class": "logging.StreamHandler", "stream": "ext://sys.stdout"}
    (sub / "logging.json").write_text(json.dumps(config))
    assert main(_check(sub, env)) == 0, capsys.readouterr().err
