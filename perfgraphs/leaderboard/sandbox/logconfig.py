"""``logging.config`` in the predictor's process, allow-listed: it builds only what the logging package
defines, the standard streams and the submission's own classes, and evaluates no text.

``logging.config.dictConfig`` imports whatever dotted name its dictionary gives under ``()``, ``class``
or ``ext://`` and calls it with the entry's other keys as keyword arguments; ``fileConfig`` evaluates
its file's handler lines (``class``, ``args``, ``kwargs``) as Python. Both read as "configure logging",
and the configuration is a data file to every check of the folder, so a median whose ``fit`` called
``logging.config.dictConfig(json.load(...))`` on a shipped ``logging.json`` ran
``runpy.run_path(path_name="/submission/notes.txt")`` (a text file's lines as Python) or imported a
helper script of a folder of no Python name (``2024_scripts.hook.H``): code no review reads
(sixty-second pass of 2026-12-05). As the unpickling guard does for pickles
(:mod:`perfgraphs.leaderboard.sandbox.unpickling`), the sandbox child, before it imports the predictor,
makes every name ``logging.config`` resolves pass :func:`name_problem` and its ``eval`` refuse.
"""

from __future__ import annotations

from pathlib import Path

STREAMS = ("sys.stdout", "sys.stderr")  # ``ext://sys.stderr``: the documentation's own example


class RefusedLoggingName(ValueError):
    """``logging.config`` was about to build or evaluate what the allow-list leaves out."""


def name_problem(root: Path, dotted: str) -> str | None:
    """Why ``logging.config`` may not resolve ``dotted`` in the sandbox (None: it may, the object then
    checked by :func:`object_problem`): a name of the logging package, a standard stream, or a class the
    submission's own source defines at a module's top level (as a pickle may name it:
    :func:`perfgraphs.leaderboard.pickle_scan.global_problem`)."""
    from perfgraphs.leaderboard.pickle_scan import _own_module, global_problem

    module, _, name = dotted.rpartition(".")
    if dotted.split(".")[0] == "logging" or dotted in STREAMS:
        return None
    if module and _own_module(root, module.split(".")[0]):
        return global_problem(root, module, name)
    return "not a class of the logging package, a standard stream or a class of the submission's own source"


def object_problem(dotted: str, obj) -> str | None:
    """Why the object a logging name resolved to may not be built: only the logging package's classes
    (``logging.os.system`` resolves through the package's attributes to a function of another module)."""
    if dotted.split(".")[0] != "logging":
        return None
    if isinstance(obj, type) and obj.__module__.split(".")[0] == "logging":
        return None
    return "not a class of the logging package"


def restrict_logging_config(root: Path) -> None:
    """From now on, in this process, ``logging.config`` resolves only what :func:`name_problem` allows
    and evaluates nothing (``root``: the submission folder, whose own classes are allowed)."""
    import logging.config

    config = logging.config
    resolve, dict_config = config.BaseConfigurator.resolve, config.dictConfig

    def refuse(dotted: str, why: str):
        raise RefusedLoggingName(f"the sandbox refused to let logging.config build {str(dotted)[:80]} ({why}): a "
                                 "logging configuration may name only the logging package's classes, sys.stdout, "
                                 "sys.stderr and the submission's own classes")

    def checked(dotted: str, look_up):
        if (why := name_problem(root, str(dotted))) is not None:
            refuse(dotted, why)
        obj = look_up(dotted)
        if (why := object_problem(str(dotted), obj)) is not None:
            refuse(dotted, why)
        return obj

    def checked_resolve(self, s):
        return checked(s, lambda dotted: resolve(self, dotted))

    def evaluated(text, *args, **kwargs):
        raise RefusedLoggingName("the sandbox refused logging.config.fileConfig's handler lines: it evaluates their "
                                 "class, args and kwargs as Python, which no review reads: configure logging in the "
                                 "source or with dictConfig")

    def dictConfig(configuration):  # the refusal itself, not dictConfig's "Unable to configure handler"
        try:
            return dict_config(configuration)
        except ValueError as exc:
            cause = exc
            while cause is not None and not isinstance(cause, RefusedLoggingName):
                cause = cause.__cause__
            if cause is None:
                raise
            raise cause from None

    resolve_global = config._resolve
    config.BaseConfigurator.resolve = checked_resolve  # dictConfig's (), class and ext://
    config._resolve = lambda name: checked(name, resolve_global)  # a formatter's class, in both
    config.eval = evaluated  # fileConfig's handler lines: a global of the module, found before the builtin
    config.dictConfig = dictConfig
