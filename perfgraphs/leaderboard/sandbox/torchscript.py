"""TorchScript programs refused in the predictor's process: torch's loaders of a serialized program
(``torch.jit.load``, ``torch.load`` of a TorchScript archive, ``torch.package``'s modules, the lite
interpreter, flatbuffer modules) raise instead of running it.

A TorchScript archive holds its program as code in a binary file, which no review of the folder
reads, and runs it in TorchScript's own interpreter, which never asks Python's unpickler (so the
pickle guard, :mod:`perfgraphs.leaderboard.sandbox.unpickling`, never sees it). The static checks
refuse such archives (``submission.zipped_modules``, ``pickle_scan``), and three passes in a row
(fifty-third to fifty-fifth of 2026-12-05) got one past them by a zip that Python's readers and
torch's read differently. This is the second layer, as the unpickling guard is for pickles: whatever
the bytes look like to the scan, the program is refused where it would be loaded. The model's code
ships as ``.py`` files and its weights as a state dict; ``torch.load`` of weights is unaffected. So is
a serialized ``torch.export`` program refused (``torch.export.load`` of a ``.pt2``): torch generates Python
from its JSON and runs it (sixty-sixth pass).

torch is not imported here (a predictor without it pays nothing): the guard disarms ``torch._C``
when it is first imported, through an import hook placed ahead of every other finder. A predictor
that takes the hook off ``sys.meta_path`` before importing torch does so in its source, where the
review reads it (as one calling ``_pickle`` kept from before does).
"""

from __future__ import annotations

from perfgraphs.leaderboard.sandbox.import_guard import guard_on_import

# torch._C's entry points that deserialize a program (torch 2.x): torch.jit.load and torch.load of a
# TorchScript zip (import_ir_module*), torch.package's scripted modules, the lite interpreter and
# mobile modules, flatbuffer modules (torch.jit._serialization)
PROGRAM_LOADERS = ("import_ir_module", "import_ir_module_from_buffer", "_import_ir_module_from_package",
                   "_load_for_lite_interpreter", "_load_for_lite_interpreter_from_buffer",
                   "_load_jit_module_from_file", "_load_jit_module_from_bytes",
                   "_load_mobile_module_from_file", "_load_mobile_module_from_bytes")
TORCH_EXTENSION = "torch._C"
# torch._C._aoti's loaders of an AOTInductor package or library (torch._inductor.aoti_load_package,
# torch.export's pt2 archives): they dlopen the compiled model's .so, whose constructors run machine
# code no review reads (fifty-sixth pass of 2026-12-05)
NATIVE_LOADERS = ("AOTIModelPackageLoader", "AOTIModelContainerRunnerCpu", "AOTIModelContainerRunnerCuda",
                  "AOTIModelContainerRunnerMps", "AOTIModelContainerRunnerXpu")


# torch.export's deserializers of a serialized program (``torch.export.load`` of a ``.pt2`` archive, the older
# zip format, ``torch._export.serde.serialize.deserialize``): the program's JSON becomes Python source that torch
# ``exec``s, its ``guards_code`` strings pasted in as they are and its parameters' names printed unescaped into
# the generated ``forward``, and a ``scale.pt2`` of a median ran the folder's ``notes.txt`` (sixty-sixth pass)
EXPORT_SERDE = "torch._export.serde.serialize"
EXPORT_DESERIALIZERS = ("GraphModuleDeserializer", "ExportedProgramDeserializer")


class RefusedProgram(RuntimeError):
    """A serialized TorchScript program was about to be loaded in the sandbox."""


class RefusedExportedProgram(Exception):
    """A serialized ``torch.export`` program was about to be loaded in the sandbox (not a ``RuntimeError``:
    ``torch.export.load`` swallows those and raises a message of its own)."""


def _refusing(name: str, what: str = "a TorchScript program"):
    def refuse(*args, **kwargs):
        raise RefusedProgram(f"{what} is not loaded in the sandbox (torch._C.{name}): its code sits "
                             "in a binary file no review reads; ship the model's code as .py files and its weights "
                             "as a state dict (torch.load)")

    refuse.__name__ = name
    return refuse


def disarm(module) -> None:
    """Replace ``module``'s (``torch._C``'s) program loaders, and its ``_aoti`` submodule's loaders of
    compiled AOTInductor libraries, with ones that refuse."""
    for name in PROGRAM_LOADERS:
        if hasattr(module, name):
            setattr(module, name, _refusing(name))
    aoti = getattr(module, "_aoti", None)
    for name in NATIVE_LOADERS:
        if aoti is not None and hasattr(aoti, name):
            setattr(aoti, name, _refusing(f"_aoti.{name}", "a compiled AOTInductor library"))


def disarm_export(module) -> None:
    """Replace the ``deserialize`` methods of ``module``'s (``torch._export.serde.serialize``'s) program
    deserializers with ones that refuse: an exported program is code in a data file, as a TorchScript
    archive is, and torch generates and runs Python from it (its guards, its parameters' names)."""
    for name in EXPORT_DESERIALIZERS:
        cls = getattr(module, name, None)
        if cls is None:
            continue

        def refuse(*args, _name=name, **kwargs):
            raise RefusedExportedProgram(
                f"an exported program is not loaded in the sandbox ({EXPORT_SERDE}.{_name}): torch runs Python "
                "generated from its file, which no review reads; ship the model's code as .py files and its weights "
                "as a state dict (torch.load)")

        cls.deserialize = refuse


def refuse_torchscript() -> None:
    """From now on, in this process, loading a TorchScript program raises :class:`RefusedProgram`, and
    loading an exported program :class:`RefusedExportedProgram`."""
    guard_on_import({TORCH_EXTENSION: disarm, EXPORT_SERDE: disarm_export})
