"""Unpickling in the predictor's process, allow-listed: every unpickler of the process asks
:func:`perfgraphs.leaderboard.pickle_scan.global_problem` before it looks a global up.

The static scan (:mod:`perfgraphs.leaderboard.pickle_scan`) reads the pickles a submission ships in
every form a loader may read them, and each adversarial pass found another (a pickle behind a header,
in a headerless zlib stream, a zstd frame, a ``.py`` file that is one: forty-second and forty-third
passes of 2026-12-04): the bytes' routes are open-ended. Their destination is not: whatever route they
take, a pickle becomes objects through an unpickler's ``find_class``. So the sandbox child, before it
imports the predictor, replaces ``pickle``'s (and ``_pickle``'s) ``Unpickler``, ``load`` and ``loads``
with an unpickler whose ``find_class`` refuses what the scan refuses, and makes the pure-Python
``pickle._Unpickler`` (joblib's, pandas') do the same, as torch's ``weights_only`` loader does for
``torch.load``. numpy's ``np.load(allow_pickle=True)``, ``torch.load(weights_only=False)``,
``pandas.read_pickle`` and joblib call these at load time. A predictor that calls another unpickler
(``_pickle`` saved before, ``marshal``) does so in its source, where the review reads it.
"""

from __future__ import annotations

import functools
import importlib.util
import io
import pickle
from pathlib import Path


# joblib's array wrappers: a joblib file the static scan refuses (their bytes sit between opcodes)
# may still be written and read back by the predictor itself; the arrays they rebuild are numpy's,
# and an object array inside goes through ``pickle.load``, this module's
JOBLIB_WRAPPERS = frozenset({("joblib.numpy_pickle", "NumpyArrayWrapper"),
                             ("joblib.numpy_pickle_compat", "NDArrayWrapper"),
                             ("joblib.numpy_pickle_compat", "ZNDArrayWrapper")})


class RefusedGlobal(pickle.UnpicklingError):
    """A pickle named a global outside the allow-list."""


def restrict_unpickling(root: Path) -> None:
    """From now on, in this process, unpickling refuses the globals the static scan refuses
    (``root``: the submission folder, whose own classes are allowed)."""
    import _pickle

    from perfgraphs.leaderboard.pickle_scan import _as_python3, global_problem

    @functools.lru_cache(maxsize=4096)
    def refusal(module: str, name: str) -> str | None:
        if (module, name) in JOBLIB_WRAPPERS:
            return None
        renamed = _as_python3(module, name)
        if renamed == (module, name):
            return global_problem(root, module, name)
        # a protocol 0-2 pickle's Python 2 name: the unpickler looks the renamed one up (below
        # protocol 3) or the name as written, which exists only where something ships it
        try:
            written_exists = importlib.util.find_spec(module.split(".")[0]) is not None
        except (ImportError, ValueError):
            written_exists = True
        if written_exists and (why := global_problem(root, module, name)) is not None:
            return why
        return global_problem(root, *renamed)

    def checked(module: str, name: str) -> None:
        if (why := refusal(str(module), str(name))) is not None:
            raise RefusedGlobal(f"the sandbox refused to unpickle {str(module)[:80]}.{str(name)[:80]} ({why}): "
                                "a pickle may name only the classes leaderboard/RULES.md lists")

    class Unpickler(_pickle.Unpickler):
        def find_class(self, module, name):
            checked(module, name)
            return super().find_class(module, name)

    def load(file, **kwargs):
        return Unpickler(file, **kwargs).load()

    def loads(data, /, **kwargs):
        if isinstance(data, str):
            raise TypeError("Can't load pickle from unicode string")
        return Unpickler(io.BytesIO(data), **kwargs).load()

    pure_find_class = pickle._Unpickler.find_class

    def pure_checked(self, module, name):
        checked(module, name)
        return pure_find_class(self, module, name)

    pickle._Unpickler.find_class = pure_checked
    for module in (pickle, _pickle):
        module.Unpickler, module.load, module.loads = Unpickler, load, loads
