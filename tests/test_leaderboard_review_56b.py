"""Fifty-sixth adversarial pass (2026-12-05), submit side: native code in an AOTInductor package.
``torch._inductor.aoti_load_package("scaler.pt2")`` reads as loading a compiled model, as
``torch.jit.load`` does; the package is a zip whose ``data/aotinductor/model/*.so`` member torch
extracts to ``/tmp`` and ``dlopen``s, so a constructor in it runs machine code no review reads.
``extension_modules`` refused only files of the folder named as extension modules (not members of a
zip), ``zipped_modules`` only zips holding ``.py``/bytecode members, and the sandbox's TorchScript
layer replaced only ``torch._C``'s own program loaders, not ``torch._C._aoti``'s. A median predictor
loading a three-member ``scaler.pt2`` passed ``check``'s static checks and its library's constructor
ran in the sandbox."""

from __future__ import annotations

import shutil
import subprocess
import zipfile

import pytest

from perfgraphs.cli import main
from perfgraphs.leaderboard.submission import extension_modules, zipped_modules
from test_submit import BOARD, code_submission, env  # noqa: F401 — env is a fixture

torch = pytest.importorskip("torch")
CC = shutil.which("cc") or shutil.which("gcc")
needs_cc = pytest.mark.skipif(CC is None, reason="no C compiler to build the package's library")

# a library whose constructor (run by dlopen, before torch looks up any symbol) says so and exits
HIDDEN_C = (b"#include <unistd.h>\n"
            b"__attribute__((constructor)) static void hidden(void) {\n"
            b"  static const char m[] = \"the hidden native code ran\\n\";\n"
            b"  write(2, m, sizeof m - 1); _exit(7); }\n")

LOADS_A_PACKAGE = (
    "from pathlib import Path\n"
    "import numpy as np\n"
    "import torch\n"
    "import torch._inductor\n"
    "class Predictor:\n"
    "    def __init__(self, target, seed=0, quick=False):\n"
    "        self.target = target\n"
    "        self.scaler = torch._inductor.aoti_load_package(str(Path(__file__).parent / 'scaler.pt2'))\n"
    "    def fit(self, train, val):\n"
    "        self.level = float(np.median(train[self.target]))\n"
    "    def predict(self, graphs):\n"
    "        return self.scaler(torch.full((len(graphs),), self.level)).numpy()\n")


def _library(tmp_path) -> bytes:
    tmp_path.mkdir(exist_ok=True)
    (tmp_path / "hidden.c").write_bytes(HIDDEN_C)
    subprocess.run([CC, "-shared", "-fPIC", "-o", str(tmp_path / "hidden.so"), str(tmp_path / "hidden.c")], check=True)
    return (tmp_path / "hidden.so").read_bytes()


def _package(path, library: bytes) -> None:
    """The members ``AOTIModelPackageLoader`` needs before it ``dlopen``s the model's library."""
    with zipfile.ZipFile(path, "w") as archive:
        archive.writestr("model/archive_format", "pt2")
        archive.writestr("model/data/aotinductor/model/scaler.wrapper.so", library)
        archive.writestr("model/data/aotinductor/model/scaler.wrapper_metadata.json", '{"AOTI_DEVICE_KEY": "cpu"}')


@needs_cc
def test_an_aoti_package_library_does_not_pass(env, capsys, tmp_path, monkeypatch):  # noqa: F811
    """Attack: `scaler.pt2`, three zip members, its `scaler.wrapper.so` a library whose constructor
    exits. `check` passed every static check and the constructor ran in the sandbox. Now
    `extension_modules` refuses a zip holding a library in one line, and with that check off the
    sandbox's second layer refuses `torch._C._aoti`'s loader. Control: with both off the
    constructor runs (its line is the predictor's last output)."""
    from perfgraphs.leaderboard import submission
    from perfgraphs.leaderboard.sandbox import harness

    sub = code_submission(tmp_path / "aoti", "median-scaler", "")
    (sub / "predictor.py").write_text(LOADS_A_PACKAGE)
    _package(sub / "scaler.pt2", _library(tmp_path / "lib"))
    assert zipped_modules(sub) == []  # no module member: the zip check has nothing to say
    problems = extension_modules(sub)
    assert len(problems) == 1 and problems[0].startswith("scaler.pt2: a zip archive holding a compiled library"), problems
    argv = ["check", str(sub), *BOARD, "--quick", "--seeds", "0", "--results", str(env["results"])]
    assert main(argv) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "scaler.pt2: a zip archive holding" in err and "hidden native" not in err, err

    monkeypatch.setattr(submission, "extension_modules", lambda root: [])  # the static check off:
    assert main(argv) == 1
    err = capsys.readouterr().err  # the sandbox's second layer refuses the library where it would load
    assert "AOTInductor library is not loaded in the sandbox" in err and "hidden native" not in err, err

    monkeypatch.setattr(harness, "REFUSE_TORCHSCRIPT", False)  # control: both layers off
    from perfgraphs.leaderboard.sandbox import isolation  # and the noexec /tmp (fifty-seventh pass),
    monkeypatch.setattr(isolation, "NOEXEC_SCRATCH", False)  # where torch extracts the library
    assert main(argv) == 1
    err = capsys.readouterr().err
    assert "the hidden native code ran" in err, err


@needs_cc
def test_an_elf_file_under_any_name_is_refused_and_weights_pass(tmp_path):
    """`ctypes.CDLL`, `torch.ops.load_library` and torch's AOTInductor runner load an ELF library by
    any name (`weights.bin`), and a zip may hold one by another name: both are refused. Controls (no
    false positive): a torch state dict, an `.npz` and a zip of text pass."""
    import numpy as np

    library = _library(tmp_path / "lib")
    folder = tmp_path / "sub"
    folder.mkdir()
    torch.save({"w": torch.ones(3)}, folder / "state.pt")
    np.savez(folder / "weights.npz", w=np.ones(3))
    with zipfile.ZipFile(folder / "notes.zip", "w") as archive:
        archive.writestr("notes.txt", "a table")
    assert extension_modules(folder) == []
    (folder / "weights.bin").write_bytes(library)
    with zipfile.ZipFile(folder / "bundle.zip", "w") as archive:
        archive.writestr("blob.dat", library)
    problems = extension_modules(folder)
    assert [p.split(":")[0] for p in problems] == ["bundle.zip", "weights.bin"], problems
    assert "holding an ELF file (blob.dat)" in problems[0] and "an ELF file (a compiled" in problems[1], problems
