"""Sixtieth adversarial pass (2026-12-05), submit side: a folder of package metadata at the top of the
submission (`cpu_extras-1.0.dist-info/`, a `METADATA` and an `entry_points.txt`: data files to every
check) passed every check, and the sandbox ran a function of a helper script that nothing imports.
The child puts the folder first on `sys.path`; `importlib.metadata` reads every `*.dist-info` /
`*.egg-info` of a `sys.path` folder as an installed distribution, and `import torch` loads and calls
each entry point of the group `torch.backends` (out-of-tree device plugins). The entry point named
`2024_scripts.hook:run`: a helper scripts' folder whose name is no Python name (RULES' place for
scripts the predictor does not import, which `unimported_modules` does not judge), yet one that
`importlib.import_module` takes. So a predictor that reads as a median ran code a review reads as
offline tooling (it could, say, replace `predict` by one that times the test models, rule 3).

Also found: the peak memory a record states left out the weights a predictor maps from its folder.
The harness's copy of the folder leaves the files' pages cached and charged to the harness, so the
run's cgroup never counted them (300 MB mapped and touched: a peak of 134 MB, where reading them into
memory stated 434 MB). The harness now drops the job's files from the page cache before each run."""

from __future__ import annotations

from pathlib import Path

import pytest

from perfgraphs.cli import main
from perfgraphs.leaderboard.sandbox import harness
from test_leaderboard_review_58b import MEDIAN_TORCH  # the median whose fit imports torch, nothing else
from test_submit import BOARD, code_submission, env  # noqa: F401 — env is a fixture

HOOK = "def run():\n    raise SystemExit('the helper script ran')\n"


def _check(sub: Path, env) -> list[str]:  # noqa: F811
    return ["check", str(sub), *BOARD, "--quick", "--seeds", "0", "--results", str(env["results"])]


def _metadata(sub: Path, folder: str, entry_point: str) -> None:
    """A distribution's metadata folder declaring ``entry_point`` as a torch device plugin."""
    (sub / folder).mkdir()
    (sub / folder / "METADATA").write_text("Metadata-Version: 2.1\nName: cpu-extras\nVersion: 1.0\n")
    (sub / folder / "entry_points.txt").write_text(f"[torch.backends]\ncpu_extras = {entry_point}\n")


def test_package_metadata_at_the_top_is_refused(env, capsys, tmp_path, monkeypatch):  # noqa: F811
    """Attack: a median whose only import is torch, a helper scripts' folder `2024_scripts/` (no Python
    name) whose `hook.py` nothing imports, and `cpu_extras-1.0.dist-info/entry_points.txt` naming
    `2024_scripts.hook:run` under `[torch.backends]`. Now `check` refuses the metadata in one line.
    Controls: the median with its helper scripts alone scores; with the refusal off nothing runs (the
    sandbox's copy leaves helper scripts out), and with that off too the hook runs."""
    from perfgraphs.leaderboard import submission

    sub = code_submission(tmp_path / "plugin", "median-torch", MEDIAN_TORCH)
    (sub / "2024_scripts").mkdir()
    (sub / "2024_scripts" / "hook.py").write_text(HOOK)
    assert main(_check(sub, env)) == 0, capsys.readouterr().err  # control: helper scripts nothing imports
    capsys.readouterr()

    _metadata(sub, "cpu_extras-1.0.dist-info", "2024_scripts.hook:run")
    assert main(_check(sub, env)) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "cpu_extras-1.0.dist-info: package metadata" in err, err
    assert "ran" not in err

    monkeypatch.setattr(submission, "package_metadata", lambda root: [])
    assert main(_check(sub, env)) == 1  # the refusal off: the sandbox's copy holds no helper script
    assert "ran" not in capsys.readouterr().err
    monkeypatch.setattr(harness, "is_helper_script", lambda rel: False)  # control: both off
    assert main(_check(sub, env)) == 1
    assert "SystemExit: the helper script ran" in capsys.readouterr().err


def test_egg_info_in_any_case_is_refused(env, capsys, tmp_path):  # noqa: F811
    """The same metadata as an `.egg-info` folder, written in capitals (importlib.metadata lower-cases
    the names it reads), naming a module of a package the predictor imports that nothing imports:
    refused in one line, before anything runs."""
    sub = code_submission(tmp_path / "egg", "median-torch", MEDIAN_TORCH.replace(
        "import numpy as np\n", "import numpy as np\nimport helpers  # noqa: F401\n"))
    (sub / "helpers").mkdir()
    (sub / "helpers" / "__init__.py").write_text("")
    (sub / "helpers" / "offline.py").write_text(HOOK)
    _metadata(sub, "Cpu_Extras.EGG-INFO", "helpers.offline:run")
    assert main(_check(sub, env)) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "Cpu_Extras.EGG-INFO: package metadata" in err, err


# a median that maps the weights shipped in its folder and reads one byte of every page
MAPPED = (
    "import mmap\n"
    "import os\n"
    "import numpy as np\n"
    "class Predictor:\n"
    "    def __init__(self, target, seed=0, quick=False):\n"
    "        self.target = target\n"
    "    def fit(self, train, val):\n"
    "        with open(os.path.join(os.path.dirname(__file__), 'weights.bin'), 'rb') as f:\n"
    "            self.weights = mmap.mmap(f.fileno(), 0, prot=mmap.PROT_READ)\n"
    "        self.checksum = int(np.frombuffer(self.weights, np.uint8)[::4096].sum())\n"
    "        self.level = float(np.median(train[self.target]))\n"
    "    def predict(self, graphs):\n"
    "        return np.full(len(graphs), self.level)\n")
WEIGHTS_MB = 64


def _peak_mb(sub: Path, env, capsys) -> float:  # noqa: F811
    import re

    assert main(_check(sub, env)) == 0, capsys.readouterr().err
    out = capsys.readouterr().out
    return float(re.search(r"peak memory (\d+) MB", out).group(1))


def test_mapped_weights_count_in_the_peak_memory(env, capsys, tmp_path, monkeypatch):  # noqa: F811
    """Attack: a predictor maps 64 MB of weights shipped in its folder and touches every page. The
    harness's copy of the folder left those pages in the page cache, charged to the harness's cgroup,
    so the run's cgroup (its peak and its limit) counted none of them: 300 MB mapped stated a peak of
    134 MB, 434 MB when read into memory. Now the harness drops the job's files from the cache before
    each run, and the pages count where they are faulted in. Control: with that off, the same run
    states 64 MB less (what a predictor mapping nothing states)."""
    from perfgraphs.leaderboard.sandbox import confine, harness

    with confine.Confinement(256, 64, name="probe") as box:
        cgroup = box.available
    if not cgroup:
        pytest.skip("no memory cgroup here: the peak is the process tree's high-water mark, mapped pages included")
    sub = code_submission(tmp_path / "mapped", "mapped-weights", MAPPED)
    (sub / "weights.bin").write_bytes(bytes(WEIGHTS_MB * 2**20))
    counted = _peak_mb(sub, env, capsys)

    monkeypatch.setattr(harness, "uncached", lambda *folders: None)  # control: the pages stay the harness's
    assert counted - _peak_mb(sub, env, capsys) >= 0.75 * WEIGHTS_MB
