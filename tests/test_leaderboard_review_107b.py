"""Hundred-and-seventh adversarial pass, side b (what the keeper's script runs).

``plans/hidden-round.sh`` runs each step's Python from the checkout's root as ``$py -`` (a heredoc) or
``$py -m``, and both put the working folder first on ``sys.path``, ahead of the standard library and the
installed packages (the console script ``perfgraphs`` does not: its first entry is the venv's ``bin``).
A pull request after the draw that adds one file at the root, ``json.py`` (no source of the package
changed; ``.gitignore`` names nothing there, and a root ``json.pyc`` or ``json.cpython-311-...so`` would do
the same unread), is imported by ``score``'s first heredoc in place of the standard library's ``json``:
there it runs as the keeper, with ``PERFGRAPHS_HIDDEN_DIR`` in its environment, reads ``keeper-key.pem``
and signs ``<digest>:verified`` for a digest of its choosing; the signature verifies against the set's
committed public key (``keeper_key.signature_problem`` finds nothing), before any ``submit`` and its checks
(``bytecode_tracked``, ``extension_modules_tracked``) ran. ``prepare``'s ``-m perfgraphs.collect.variants``
imports ``secrets`` the same way (the draw's seed). ``plans/run-on-gpu.sh`` already set ``PYTHONSAFEPATH``;
this script did not. Now it exports ``PYTHONSAFEPATH=1``, refuses an interpreter that does not honour it,
and refuses a round while the root tracks a module of the standard library's or an installed
distribution's name (``hidden.root_modules_shadowing``, for ``python -m`` run by hand from the root).
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import perfgraphs
from perfgraphs.leaderboard.records import hidden, keeper_key
from perfgraphs.registry import get_dataset
from test_submit import commit_tiny_hidden_set, env, parts  # noqa: F401 — fixtures

SCRIPT = Path(__file__).resolve().parent.parent / "plans" / "hidden-round.sh"
DIGEST = "ab" * 32  # a record of the writer's choosing
# a root json.py: steps aside for the real json, and at exit signs with the key of the keeper folder
PAYLOAD = '''import atexit, os, sys
_here = os.path.dirname(os.path.abspath(__file__))
sys.path[:] = [p for p in sys.path if os.path.abspath(p or os.curdir) != _here]
del sys.modules[__name__]
import json as _json
sys.modules[__name__] = _json


def _sign():
    from pathlib import Path
    from perfgraphs.leaderboard.records.keeper_key import record_message, sign
    signed = sign(Path(os.environ["PERFGRAPHS_HIDDEN_DIR"]), record_message("%s", "verified"))
    Path(_here, "mallory.sig").write_text(signed)


atexit.register(_sign)
''' % DIGEST


def _guard() -> str:
    """The script's block the fix added (the control runs the script without it)."""
    text = SCRIPT.read_text()
    start = text.index("# the checkout's root first on Python's path no more")
    end = text.index("|| exit 2\n", text.index("root_modules_shadowing as r")) + len("|| exit 2\n")
    return text[start:end]


def _score(script: Path, repo: Path) -> subprocess.CompletedProcess:
    """``bash script score`` from the keeper's checkout ``repo``, the keeper's environment (no ``submit``:
    ``PERFGRAPHS=true``, the attack runs before any)."""
    package_root = str(Path(perfgraphs.__file__).resolve().parent.parent)
    run_env = {**os.environ, "PYTHON": sys.executable, "PERFGRAPHS": "true", "DATASET": "dippm",
               "CONFIG": "cpu-torch-fp32", "PYTHONPATH": os.pathsep.join(filter(None, [package_root,
                                                                                       os.environ.get("PYTHONPATH")]))}
    return subprocess.run(["bash", str(script), "score"], cwd=repo, env=run_env, capture_output=True, text=True,
                          timeout=120)


def test_a_root_module_a_pull_request_commits_does_not_run_in_the_keepers_script(env, parts, capsys,
                                                                                  git_commitments, monkeypatch,
                                                                                  tmp_path):
    """Attack: the keeper's checkout holds the script and the tiny set's commitment and public key; a pull
    request after the draw adds ``json.py`` at the root; ``score`` is refused in one line and the file never
    runs. Control: the script without the guard runs it, and it signs a record digest of its choosing as
    verified with the keeper's key, a signature the committed public key accepts."""
    commitments, commit = git_commitments
    repo = commitments.parent.parent
    (repo / "plans").mkdir()
    shutil.copyfile(SCRIPT, repo / "plans" / "hidden-round.sh")
    commit("the keeper's script, before the draw")
    commit_tiny_hidden_set(env["tmp"] / "keeper", parts, git_commitments, capsys, monkeypatch)
    (repo / "json.py").write_text(PAYLOAD)
    commit("a pull request after the draw: one file at the root")

    done = _score(repo / "plans" / "hidden-round.sh", repo)
    err = [line for line in done.stderr.splitlines() if line.strip()]
    assert done.returncode == 2 and len(err) == 1 and "root holds json" in err[0], (done.returncode, done.stderr)
    assert not (repo / "mallory.sig").exists()

    # control: the guard off; score's first heredoc imports the root json.py, which signs with the keeper's key
    unguarded = tmp_path / "unguarded.sh"
    text = SCRIPT.read_text()
    assert text.count(_guard()) == 1
    unguarded.write_text(text.replace(_guard(), ""))
    done = _score(unguarded, repo)
    assert_signed_as_verified(repo, done)


def assert_signed_as_verified(repo, done) -> None:
    """What the planted code wrote (``mallory.sig``) is the keeper's signature of ``DIGEST`` as verified: the
    set's committed public key accepts it."""
    signature = (repo / "mallory.sig").read_text()
    name = get_dataset("dippm").name
    set_sha256 = hidden.commitment_hash(hidden.commitment_path(name, "cpu-torch-fp32"))
    message = keeper_key.record_message(DIGEST, "verified")
    assert keeper_key.signature_problem(name, "cpu-torch-fp32", set_sha256, message, signature) is None, done.stderr
