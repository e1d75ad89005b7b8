"""Sixty-sixth adversarial pass (2026-12-06), submit side: a torch.export program the folder shipped ran Python.

A median whose ``fit`` scaled its level by a small network shipped as a ``torch.export`` archive
(``scale.pt2``, read with ``torch.export.load(...).module()``) ran code no check or review reads: the
archive's ``models/*.json`` is a program that torch turns into Python source and ``exec``s. Its
``guards_code`` strings are pasted into a generated guard function as they are
(``torch.export._unlift._convert_guards_code_to_fn``), and a parameter's name is printed unescaped into
the generated ``forward`` (``torch.fx.graph._format_target``: ``getattr(self, "<name>")``), so a guard
``exec(...)`` or a parameter named ``w"); exec(bytes([...])); ("`` ran the folder's ``notes.txt``. It passed
every check: the archive is a zip of JSON and raw weights, no pickle of a refused class, no TorchScript code.
As a TorchScript archive is, a serialized exported program is now refused where it is deserialized
(``torchscript.disarm_export``: the deserializers of ``torch._export.serde.serialize``); the controls: the same
network shipped as a state dict scores, and with the guard off (``harness.REFUSE_TORCHSCRIPT``) the notes run."""

from __future__ import annotations

import io
import json
import zipfile

import pytest

from perfgraphs.cli import main
from perfgraphs.leaderboard.sandbox import harness
from test_submit import BOARD, code_submission, env  # noqa: F401 — fixtures

MEDIAN_SCALED = (
    "from pathlib import Path\n"
    "import numpy as np\n"
    "import torch\n"
    "HERE = Path(__file__).parent\n"
    "class Scale(torch.nn.Module):\n"
    "    def __init__(self):\n"
    "        super().__init__()\n"
    "        self.w = torch.nn.Parameter(torch.ones(3))\n"
    "    def forward(self, x):\n"
    "        return (x * self.w).sum(-1)\n"
    "class Predictor:\n"
    "    def __init__(self, target, seed=0, quick=False):\n"
    "        self.target = target\n"
    "    def fit(self, train, val):\n"
    "        {load}\n"
    "        scale = float(net(torch.full((1, 3), 1 / 3))[0])\n"
    "        self.level = float(np.median(train[self.target])) * scale\n"
    "    def predict(self, graphs):\n"
    "        return np.full(len(graphs), self.level)\n")
LOADS = {"export": "net = torch.export.load(HERE / 'scale.pt2').module()",
         "state_dict": "net = Scale(); net.load_state_dict(torch.load(HERE / 'scale.pth'))"}
NOTES = "raise SystemExit('the notes ran')\n"  # a text file, to every check; Python to exec
NOTES_CODE = "exec(open('/submission/notes.txt').read())"


def _exported(route: str) -> bytes:
    """A ``torch.export`` archive of ``Scale``, its program edited to run ``notes.txt``: through a guard's
    text (``guards_code``) or a parameter's name printed into the generated ``forward`` (no dots: the
    printer splits a name at them)."""
    import torch

    ns: dict = {"__file__": "predictor.py"}
    exec(MEDIAN_SCALED.split("class Predictor")[0], ns)
    buffer = io.BytesIO()
    torch.export.save(torch.export.export(ns["Scale"](), (torch.ones(1, 3),)), buffer)
    with zipfile.ZipFile(io.BytesIO(buffer.getvalue())) as z:
        files = {n: z.read(n) for n in z.namelist()}
    model_name = next(n for n in files if n.endswith("models/model.json"))
    weights_name = next(n for n in files if n.endswith("weights/model_weights_config.json"))
    model, weights = json.loads(files[model_name]), json.loads(files[weights_name])
    if route == "guards_code":
        model["guards_code"] = [f"{NOTES_CODE} or True"]
    else:
        name = 'w", exec(bytes(%s)) or [*getattr(self, "parameters")()][0]); ("' % list(NOTES_CODE.encode())
        assert "." not in name
        for spec in model["graph_module"]["signature"]["input_specs"]:
            if "parameter" in spec:
                spec["parameter"]["parameter_name"] = name
        weights["config"] = {name: weights["config"]["w"]}
    files[model_name], files[weights_name] = json.dumps(model).encode(), json.dumps(weights).encode()
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w") as z:
        for n, data in files.items():
            z.writestr(n, data)
    return out.getvalue()


def _check(sub, env) -> list[str]:  # noqa: F811
    return ["check", str(sub), *BOARD, "--quick", "--seeds", "0", "--results", str(env["results"])]


def test_a_state_dict_still_scores(env, capsys, tmp_path):  # noqa: F811
    """Control: the same network, its code in the predictor and its weights a state dict, scores."""
    import torch

    sub = code_submission(tmp_path / "control", "median-scaled-sd", MEDIAN_SCALED.format(load=LOADS["state_dict"]))
    torch.save({"w": torch.ones(3)}, sub / "scale.pth")
    assert main(_check(sub, env)) == 0, capsys.readouterr().err


@pytest.mark.parametrize("route", ["guards_code", "parameter_name"])
def test_an_exported_program_runs_no_python(route, env, capsys, tmp_path, monkeypatch):  # noqa: F811
    """Attack: the median's scale is a network shipped as a torch.export archive whose program runs
    `notes.txt` when torch generates its Python. Before, it ran (`check` failed with "SystemExit: the notes
    ran"); now the sandbox refuses the archive in one line. Control: with the guard off the notes run."""
    sub = code_submission(tmp_path / route, "median-scaled-pt2", MEDIAN_SCALED.format(load=LOADS["export"]))
    (sub / "notes.txt").write_text(NOTES)
    (sub / "scale.pt2").write_bytes(_exported(route))
    assert main(_check(sub, env)) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "an exported program is not loaded in the sandbox" in err, err
    assert "the notes ran" not in err

    monkeypatch.setattr(harness, "REFUSE_TORCHSCRIPT", False)  # control: the guard off, the notes run
    if route == "parameter_name":  # fx's code generation refuses the name too (sixty-eighth pass): both off
        assert main(_check(sub, env)) == 1
        assert "the sandbox refused to generate fx code" in capsys.readouterr().err
        monkeypatch.setattr(harness, "RESTRICT_EXPRESSIONS", False)
    assert main(_check(sub, env)) == 1
    assert "SystemExit: the notes ran" in capsys.readouterr().err
