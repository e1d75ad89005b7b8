"""Hundred-and-eighth adversarial pass, side b (what the keeper installs and runs).

The keeper's environment lives inside the checkout: the README's first command makes ``.venv`` there, ignored,
and ``plans/hidden-round.sh`` runs ``$PYTHON`` and ``$PERFGRAPHS`` (the keeper's PATH finds them there). Git
treats an ignored file as expendable: a file a pull request committed under ``.venv`` with ``git add -f`` is
written by the keeper's ``git pull``, over an ignored one if one is there. One line, a pull request after the
draw adding ``.venv/lib/python3.11/site-packages/zz-mallory.pth`` (no source of the package, no root module
changed), runs at the start of every Python of that environment: ``score``'s first command (the
``PYTHONSAFEPATH`` check 107b added) ran it as the keeper, with ``PERFGRAPHS_HIDDEN_DIR`` in its environment;
it read ``keeper-key.pem`` and signed ``<digest>:verified`` for a digest of its choosing, and the set's committed
public key accepts the signature (``keeper_key.signature_problem``: None), before ``root_modules_shadowing``
and any ``submit`` check (``bound_files_tracked`` among them, which asks the same question inside ``submit``,
in the environment's own Python: too late). With that environment on PATH a tracked ``.venv/bin/git`` or
``tar`` runs for the script's bare names the same way. Now the script, before any program but the shell's
builtins, drops every PATH folder inside the checkout, names ``$PYTHON`` and ``$PERFGRAPHS`` by the paths the
keeper's PATH found, and refuses a round in one line while git tracks any file of their environment inside the
checkout (``checkout_environment_tracked`` in ``plans/hidden-round.sh``; the guard cannot be Python: the
interpreter is what the pull request changed).
"""

from __future__ import annotations

import os
import site
import subprocess
import sys
from pathlib import Path

import perfgraphs
from test_leaderboard_review_107b import DIGEST, SCRIPT, assert_signed_as_verified
from test_submit import commit_tiny_hidden_set, env, parts  # noqa: F401 — fixtures

# one line of a .pth: Python's site module runs it at every start of the environment's interpreter
PAYLOAD = ("import atexit, os; exec(\"def _sign():\\n from pathlib import Path\\n from perfgraphs.leaderboard.records"
           ".keeper_key import record_message, sign\\n Path('mallory.sig').write_text(sign(Path(os.environ["
           "'PERFGRAPHS_HIDDEN_DIR']), record_message('%s', 'verified')))\\natexit.register(_sign)\")\n" % DIGEST)


def _git(repo: Path, *args: str) -> None:
    subprocess.run(["git", "-C", str(repo), "-c", "user.name=k", "-c", "user.email=k@x", *args], check=True,
                   capture_output=True)


def _keepers_environment(repo: Path) -> Path:
    """``.venv`` inside the keeper's checkout, ignored, as the README makes it; perfgraphs and its dependencies
    reach it through one ``.pth`` (the keeper's install, never committed). Returns its site-packages."""
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(repo / ".venv")], check=True)
    site_packages = repo / ".venv" / "lib" / f"python{sys.version_info[0]}.{sys.version_info[1]}" / "site-packages"
    package_root = str(Path(perfgraphs.__file__).resolve().parent.parent)
    (site_packages / "_keepers_install.pth").write_text("\n".join([package_root, *site.getsitepackages()]) + "\n")
    return site_packages


def _score(script: Path, repo: Path) -> subprocess.CompletedProcess:
    """``bash script score`` from the keeper's checkout, the environment's ``bin`` first on PATH (activated);
    no ``submit`` (``PERFGRAPHS=true``): the attack runs before any."""
    path = os.pathsep.join([str(repo / ".venv" / "bin"), os.environ.get("PATH", "")])
    run_env = {**os.environ, "PATH": path, "PYTHON": "python", "PERFGRAPHS": "true", "DATASET": "dippm",
               "CONFIG": "cpu-torch-fp32"}
    run_env.pop("PYTHONPATH", None)
    return subprocess.run(["bash", str(script), "score"], cwd=repo, env=run_env, capture_output=True, text=True,
                          timeout=120)


def test_a_file_a_pull_request_commits_in_the_keepers_environment_does_not_run(env, parts, capsys,
                                                                                 git_commitments, monkeypatch,
                                                                                 tmp_path):
    """Attack: the keeper's checkout holds the script, the tiny set's commitment and public key and its ignored
    ``.venv``; a pull request after the draw commits one ``.pth`` under it with ``git add -f`` and the keeper
    pulls it; ``score`` is refused in one line and the file never runs. Control: the script without the guard
    runs it, and it signs a record digest of its choosing as verified with the keeper's key."""
    commitments, commit = git_commitments
    repo = commitments.parent.parent
    (repo / "plans").mkdir()
    (repo / "plans" / "hidden-round.sh").write_bytes(SCRIPT.read_bytes())
    (repo / ".gitignore").write_text("/.venv/\n")
    commit("the keeper's script, before the draw")
    site_packages = _keepers_environment(repo)
    commit_tiny_hidden_set(env["tmp"] / "keeper", parts, git_commitments, capsys, monkeypatch)

    writer = tmp_path / "writer"  # the pull request, from its writer's clone
    _git(tmp_path, "clone", "-q", str(repo), str(writer))
    planted = writer / site_packages.relative_to(repo) / "zz-mallory.pth"
    planted.parent.mkdir(parents=True)
    planted.write_text(PAYLOAD)
    _git(writer, "add", "-f", str(planted))
    _git(writer, "commit", "-q", "-m", "a pull request after the draw: pin the environment's site configuration")
    _git(repo, "pull", "-q", "--no-rebase", str(writer))
    assert (site_packages / "zz-mallory.pth").read_text() == PAYLOAD  # written beside the keeper's install

    done = _score(repo / "plans" / "hidden-round.sh", repo)
    err = [line for line in done.stderr.splitlines() if line.strip()]
    assert done.returncode == 2 and len(err) == 1 and "holds files git tracks" in err[0], (done.returncode, done.stderr)
    assert "zz-mallory.pth" in err[0] and not (repo / "mallory.sig").exists()

    # control: the guard off; the first Python of score starts the environment, which runs the pulled line
    text = SCRIPT.read_text()
    guard = "why=\"\"\ncheckout_environment_tracked\n"
    assert text.count(guard) == 1
    unguarded = tmp_path / "unguarded.sh"
    unguarded.write_text(text.replace(guard, "why=\"\"\n"))
    done = _score(unguarded, repo)
    assert_signed_as_verified(repo, done)
