"""Public names a package imports on first use (PEP 562): ``import perfgraphs`` and every
``python -m perfgraphs.<module>`` (the CLI, each sandboxed predictor process of the harness) pay only
for the modules they touch, not for pyarrow, onnx and the graph layers (about 0.8 s a process)."""

from __future__ import annotations

import importlib
from collections.abc import Callable


def lazy_getattr(package: str, names: dict[str, str], namespace: dict) -> Callable[[str], object]:
    """A module ``__getattr__`` for ``package`` that imports ``names[name]`` (a module) when ``name``
    is first asked for and keeps the value in ``namespace`` (the package's globals), so later
    lookups do not come back here."""

    def __getattr__(name: str):
        if name not in names:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        value = getattr(importlib.import_module(names[name]), name)
        namespace[name] = value
        return value

    return __getattr__
