"""Guards that run on a library's module as it is first imported, in the sandbox child.

The sandbox's guards (TorchScript's loaders, SymPy's parser, pandas' expressions, jinja2, PyG) replace a
few functions of a library's module before the predictor can reach them, without importing the library
where the predictor does not (a predictor without it pays nothing): a module loaded already is guarded at
once, any other as it is first imported, through a finder ahead of every other on ``sys.meta_path`` that
finds the module as the finders after it would and wraps its loader.
"""

from __future__ import annotations

import importlib.abc
import sys
from typing import Callable


class _Guarding(importlib.abc.Loader):
    """The module's own loader, then its guard before any other module reads it."""

    def __init__(self, loader, guard: Callable) -> None:
        self._loader, self._guard = loader, guard

    def create_module(self, spec):
        return self._loader.create_module(spec)

    def exec_module(self, module) -> None:
        self._loader.exec_module(module)
        self._guard(module)

    def __getattr__(self, name):  # get_source, is_package, ...: the module's own loader's
        return getattr(self._loader, name)


class GuardingFinder(importlib.abc.MetaPathFinder):
    """Finds the modules of ``guards`` (module name -> guard) as the finders after it would, and wraps their
    loaders so that each module's guard runs as it is first imported."""

    def __init__(self, guards: dict[str, Callable]) -> None:
        self._guards = guards

    def find_spec(self, fullname, path, target=None):
        if fullname not in self._guards:
            return None
        for finder in sys.meta_path:
            find = getattr(finder, "find_spec", None)
            if finder is self or find is None:
                continue
            spec = find(fullname, path, target)
            if spec is not None:
                spec.loader = _Guarding(spec.loader, self._guards[fullname])
                return spec
        return None


def guard_on_import(guards: dict[str, Callable]) -> None:
    """Run each guard of ``guards`` (module name -> guard) on its module: now where the module is loaded,
    else as it is first imported."""
    for name, guard in guards.items():
        if name in sys.modules:
            guard(sys.modules[name])
    sys.meta_path.insert(0, GuardingFinder(guards))
