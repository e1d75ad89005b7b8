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

    from perfgraphs.leaderboard.pickle_scan import _as_python3, _runs_its_state, global_problem

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

    def refuse(module, name, why: str):
        raise RefusedGlobal(f"the sandbox refused to unpickle {str(module)[:80]}.{str(name)[:80]} ({why}): "
                            "a pickle may name only the classes leaderboard/RULES.md lists")

    def checked(module: str, name: str) -> None:
        if (why := refusal(str(module), str(name))) is not None:
            refuse(module, name, why)

    def found(module, name, obj):
        """The class looked up, refused where its unpickling runs its state as code whoever defines
        it: a submission's ``class Prior(rv_continuous)`` passed as its own (forty-eighth pass)."""
        if isinstance(obj, type) and (why := _runs_its_state(obj, loaded_only=True)) is not None:
            refuse(module, name, why)
        return obj

    class Unpickler(_pickle.Unpickler):
        def find_class(self, module, name):
            checked(module, name)
            return found(module, name, super().find_class(module, name))

        def __init_subclass__(cls, **kwargs):
            super().__init_subclass__(**kwargs)
            _guard_own_find_class(cls, checked, found)

    def load(file, **kwargs):
        return Unpickler(file, **kwargs).load()

    def loads(data, /, **kwargs):
        if isinstance(data, str):
            raise TypeError("Can't load pickle from unicode string")
        return Unpickler(io.BytesIO(data), **kwargs).load()

    pure_find_class = pickle._Unpickler.find_class

    def pure_checked(self, module, name):
        checked(module, name)
        return found(module, name, pure_find_class(self, module, name))

    pickle._Unpickler.find_class = pure_checked
    _guard_pure_subclasses(pickle._Unpickler, checked, found)
    held = ((_pickle.load, load), (_pickle.loads, loads))  # the C functions, kept alive while compared
    c_unpickler = _pickle.Unpickler
    for module in (pickle, _pickle):
        module.Unpickler, module.load, module.loads = Unpickler, load, loads
    _restrict_what_modules_hold(c_unpickler, held, checked, found, skip=Unpickler)


def _guard_own_find_class(cls: type, checked, found) -> None:
    """``cls.find_class``, where ``cls`` defines its own, checking first: an unpickler's own
    ``find_class`` is its lookup and need never call the guarded one. ``torch.package``'s
    ``PackageUnpickler`` (``PackageImporter.load_pickle``) imports the module from its importer and
    returns ``getattr(module, name)``, and a package's pickle naming ``builtins.exec`` ran its line in
    the sandbox (fifty-third pass)."""
    own = vars(cls).get("find_class")
    if own is None or getattr(own, "_perfgraphs_guarded", False):
        return

    def find_class(self, module, name, _own=own):
        checked(module, name)
        return found(module, name, _own.__get__(self, type(self))(module, name))

    find_class._perfgraphs_guarded = True
    try:
        cls.find_class = find_class
    except TypeError:  # a final (C) type
        pass


def _guard_pure_subclasses(base: type, checked, found) -> None:
    """Every subclass of the pure-Python ``base`` (``pickle._Unpickler``), defined now or later, has
    its own ``find_class`` checked (:func:`_guard_own_find_class`): the patched ``base.find_class``
    covers only those that call it."""
    def subclasses(cls: type):
        for sub in type.__subclasses__(cls):
            yield sub
            yield from subclasses(sub)

    for sub in list(subclasses(base)):
        _guard_own_find_class(sub, checked, found)

    def __init_subclass__(cls, **kwargs):
        super(base, cls).__init_subclass__(**kwargs)
        _guard_own_find_class(cls, checked, found)

    base.__init_subclass__ = classmethod(__init_subclass__)


# the pools' own channels: a worker unpickles the task it is sent (``mapstar``, the mapped function),
# which no shipped pickle may name, so these keep the unrestricted unpickler; calling one on a file
# is in the source, as calling ``_pickle`` kept from before is
IPC_CLASSES = (("multiprocessing.reduction", "ForkingPickler"), ("multiprocess.reduction", "ForkingPickler"))


def _restrict_what_modules_hold(c_unpickler: type, held: tuple, checked, found, skip: type) -> None:
    """The unrestricted unpickler that libraries imported before the guard still hold (the child
    imports ``datasets``, which imports dill, cloudpickle and multiprocessing): a subclass of the C
    ``Unpickler`` (``dill._dill.Unpickler``, whose ``find_class`` calls the C one: ``dill.load``,
    ``dill.loads``) gets a ``find_class`` that checks first, and a module's reference to the C
    ``load`` or ``loads`` (``cloudpickle.loads``) is replaced by the restricted one. ``dill.loads``
    and ``cloudpickle.loads`` of a pickle naming ``builtins.exec``, behind a header no static form
    reads, ran it in the sandbox (forty-eighth pass of 2026-12-05). The pools' channels
    (:data:`IPC_CLASSES`) keep what they held."""
    import sys
    import types

    def subclasses(cls: type):
        for sub in type.__subclasses__(cls):
            yield sub
            yield from subclasses(sub)

    inherited: dict[type, object] = {}
    for cls in list(subclasses(c_unpickler)):
        if cls is skip:
            continue

        def find_class(self, module, name, _inherited=cls.find_class):
            checked(module, name)
            return found(module, name, _inherited(self, module, name))

        try:
            inherited[cls], cls.find_class = cls.find_class, find_class
        except TypeError:  # a final (C) type: no Python code makes its instances unless it holds it
            continue
    ipc = {getattr(sys.modules.get(module), name, None) for module, name in IPC_CLASSES} - {None}
    for owner in ipc:  # multiprocess's loads is dill's, whose Unpickler is restricted now
        dill_unpickler = getattr(vars(owner).get("loads"), "__globals__", {}).get("Unpickler")
        if dill_unpickler in inherited:
            channel = type("ChannelUnpickler", (dill_unpickler,), {"find_class": inherited[dill_unpickler]})
            owner.loads = staticmethod(_channel_loads(channel))
    for module in list(sys.modules.values()):
        if not isinstance(module, types.ModuleType):
            continue
        for key, value in list(vars(module).items()):
            if (new := next((ours for theirs, ours in held if value is theirs), None)) is not None:
                setattr(module, key, new)
            elif isinstance(value, type) and value not in ipc:
                for attr, member in list(vars(value).items()):
                    if (new := next((ours for theirs, ours in held if member is theirs), None)) is not None:
                        try:
                            setattr(value, attr, staticmethod(new))
                        except TypeError:
                            continue


def _channel_loads(unpickler: type):
    """``dill.loads`` through ``unpickler`` (a pool's channel, multiprocess's ``ForkingPickler.loads``)."""
    def loads(data, /, ignore=None, **kwargs):
        return unpickler(io.BytesIO(data), ignore=ignore, **kwargs).load()
    return loads


def restrict_yaml_python_tags(root: Path) -> None:
    """From now on, in this process, PyYAML's full loaders build a Python tag only where
    :func:`perfgraphs.leaderboard.pickle_scan.yaml_tag_problem` passes it (``root``: the submission folder).
    They import and call the name a ``!!python/object/apply:`` tag gives through no unpickler, so this
    module's guard never saw it: a median whose ``fit`` read a ``prior.yaml`` with
    ``yaml.load(..., Loader=yaml.Loader)`` ran ``exec`` of the folder's ``notes.txt`` (hundred-and-fifteenth
    pass, side b). The lookups of ``FullConstructor``, which ``UnsafeConstructor`` and the C loaders' call,
    are wrapped as ``yaml.constructor`` is loaded (at once where it is)."""
    from perfgraphs.leaderboard.sandbox.import_guard import guard_on_import

    guard_on_import({"yaml.constructor": functools.partial(_guard_yaml_constructor, root)})


def _guard_yaml_constructor(root: Path, module) -> None:
    """``module``'s (``yaml.constructor``'s) ``FullConstructor.find_python_name`` and ``find_python_module``
    refuse what :func:`perfgraphs.leaderboard.pickle_scan.yaml_tag_problem` refuses, before any import."""
    from perfgraphs.leaderboard.pickle_scan import YAML_PYTHON_TAG, _runs_its_state, yaml_tag_problem

    full = module.FullConstructor
    if getattr(full.find_python_name, "_perfgraphs_guarded", False):
        return
    find_name, find_module = full.find_python_name, full.find_python_module

    def checked(kind: str, name) -> None:
        if (why := yaml_tag_problem(root, f"{YAML_PYTHON_TAG}{kind}{name}")) is not None:
            raise RefusedGlobal(f"the sandbox refused a YAML Python tag that {why}: a YAML file may name only the "
                                "classes a pickle may (leaderboard/RULES.md); read data with yaml.safe_load")

    def find_python_name(self, name, mark, unsafe=False):
        checked("name:", name)
        obj = find_name(self, name, mark, unsafe)
        if isinstance(obj, type) and (why := _runs_its_state(obj, loaded_only=True)) is not None:
            raise RefusedGlobal(f"the sandbox refused a YAML Python tag naming {str(name)[:80]} ({why})")
        return obj

    def find_python_module(self, name, mark, unsafe=False):
        checked("module:", name)
        return find_module(self, name, mark, unsafe)

    find_python_name._perfgraphs_guarded = True
    full.find_python_name, full.find_python_module = find_python_name, find_python_module
