"""The sandbox's second layer for TorchScript (``sandbox.torchscript.refuse_torchscript``): in a fresh
interpreter where the guard is set before torch is imported (as the sandbox child sets it before the
predictor's import), every loader of a serialized program refuses it, whatever route the bytes take
(a path, a buffer, ``torch.load`` of a TorchScript archive), while weights still load. Control: the
same script without the guard runs the program."""

from __future__ import annotations

import subprocess
import sys
import textwrap

import pytest

pytest.importorskip("torch")

SCRIPT = textwrap.dedent("""
    import io, sys
    if sys.argv[1] == "guarded":
        from perfgraphs.leaderboard.sandbox.torchscript import refuse_torchscript
        refuse_torchscript()
    import torch

    class Doubles(torch.nn.Module):
        def forward(self, x):
            return x * 2

    buffer = io.BytesIO()
    torch.jit.save(torch.jit.script(Doubles()), buffer)
    program = buffer.getvalue()
    path = sys.argv[2]
    open(path, "wb").write(program)
    routes = {"jit.load(path)": lambda: torch.jit.load(path),
              "jit.load(buffer)": lambda: torch.jit.load(io.BytesIO(program)),
              "torch.load(path)": lambda: torch.load(path, weights_only=False)}
    for name, load in routes.items():
        try:
            print(name, "ran", float(load()(torch.ones(1))[0]))
        except RuntimeError as exc:
            print(name, "refused" if "not loaded in the sandbox" in str(exc) else f"other {exc}")
    weights = io.BytesIO()
    torch.save({"w": torch.ones(3)}, weights)
    weights.seek(0)
    print("weights", float(torch.load(weights)["w"].sum()))
""")


def _run(tmp_path, mode: str) -> list[str]:
    script = tmp_path / "script.py"  # a file: torch.jit.script reads the module's source
    script.write_text(SCRIPT)
    out = subprocess.run([sys.executable, str(script), mode, str(tmp_path / "program.pt")],
                         capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr[-2000:]
    return out.stdout.splitlines()


def test_every_program_loader_refuses_and_weights_still_load(tmp_path):
    lines = _run(tmp_path, "guarded")
    assert lines == ["jit.load(path) refused", "jit.load(buffer) refused", "torch.load(path) refused", "weights 3.0"]


def test_control_without_the_guard_the_program_runs(tmp_path):
    lines = _run(tmp_path, "unguarded")
    assert lines == ["jit.load(path) ran 2.0", "jit.load(buffer) ran 2.0", "torch.load(path) ran 2.0", "weights 3.0"]


def test_a_guard_set_after_torch_was_imported_disarms_it_too():
    """The child sets the guard before the predictor's import; were torch imported first (a library
    the child loads one day), the loaders already bound in ``torch._C`` are replaced in place."""
    script = ("import torch\n"
              "from perfgraphs.leaderboard.sandbox.torchscript import PROGRAM_LOADERS, refuse_torchscript\n"
              "refuse_torchscript()\n"
              "import io\n"
              "try:\n"
              "    torch.jit.load(io.BytesIO(b'PK'))\n"
              "except RuntimeError as exc:\n"
              "    print('refused' if 'not loaded in the sandbox' in str(exc) else 'other')\n")
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=300)
    assert out.stdout.split() == ["refused"], out.stderr[-2000:]
