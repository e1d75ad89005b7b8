"""SymPy's formula strings in the predictor's process: parsed as formulas, never run as Python.

``sympy.sympify`` and ``parse_expr`` turn a string into Python code and ``eval`` it with every builtin
function in reach (``exec``, ``open``, ``__import__``), and ``lambdify`` prints what it is given (a string
expression or argument verbatim, a symbol's or an undefined function's name) into the source of the
function it ``exec``-s. Both read as "parse a formula", and the formula is a data file to every check
of the folder, so a median whose ``fit`` read its prior from a shipped ``prior.txt`` through
``sympy.sympify`` ran ``exec(open('/submission/notes.txt').read())``, a text file's lines (and
``lambdify`` of a formula ``Symbol("...")`` the code in the symbol's name): code no review reads
(sixty-third pass of 2026-12-06). As the logging guard does for configurations
(:mod:`perfgraphs.leaderboard.sandbox.logconfig`), the sandbox child, before it imports the predictor,
makes SymPy's parser refuse a formula that is more than a formula (:func:`code_problem`: names of SymPy's
own objects and a few harmless builtins, numbers, strings, operators and calls; no attribute, lambda or
comprehension) and ``lambdify`` refuse strings and names that are no Python identifiers
(:func:`lambdify_problem`).

sympy is not imported here (a predictor without it pays nothing): its two modules are guarded as they
are first imported, through an import hook ahead of every other finder (as
:mod:`perfgraphs.leaderboard.sandbox.torchscript` does for torch), or at once where sympy is loaded.
"""

from __future__ import annotations

import ast
import builtins
import functools
import keyword
import sys

from perfgraphs.leaderboard.sandbox.import_guard import guard_on_import

PARSER = "sympy.parsing.sympy_parser"  # parse_expr (and so sympify) evaluates stringify_expr's code
LAMBDIFY = "sympy.utilities.lambdify"  # lambdify exec-s the source it prints
# builtins a formula may call (parse_expr puts every builtin function in its namespace; these run no text)
HARMLESS_BUILTINS = (abs, round, pow, divmod, sum, len, int, float, complex, bool, tuple, list, range)
# what a formula may not hold: each reaches past SymPy's objects (``Symbol.__new__.__globals__``) or runs
# code of its own
REFUSED_NODES = {ast.Attribute: "an attribute", ast.Lambda: "a lambda", ast.ListComp: "a comprehension",
                 ast.SetComp: "a comprehension", ast.DictComp: "a comprehension",
                 ast.GeneratorExp: "a generator", ast.NamedExpr: "an assignment"}


class RefusedFormula(ValueError):
    """SymPy was about to run, as Python, a formula string that is more than a formula."""


def _formula_object(obj) -> bool:
    """Whether a name of a formula may stand for ``obj``: a SymPy object or class (its functions are
    classes: ``exp``, ``Max``), a function of ``sympy.functions`` (``sqrt``), a number, a harmless builtin."""
    from sympy.core.basic import Basic

    if obj is None or isinstance(obj, (bool, int, float, complex, Basic)):
        return True
    if isinstance(obj, type) and issubclass(obj, Basic):
        return True
    if any(obj is b for b in HARMLESS_BUILTINS):
        return True
    return callable(obj) and not isinstance(obj, type) and str(getattr(obj, "__module__", "")).startswith(
        "sympy.functions.")


def _looked_up(name: str, local_dict: dict, global_dict: dict):
    """(True, what ``name`` names when the code is evaluated: local, global, then builtin), or (False,
    None) where it names nothing (the evaluation stops there with a NameError)."""
    for where in (local_dict, global_dict):
        if name in where:
            return True, where[name]
    names = global_dict.get("__builtins__", builtins)
    names = names if isinstance(names, dict) else vars(names)
    return (True, names[name]) if name in names else (False, None)


def code_problem(code: str, local_dict: dict, global_dict: dict) -> str | None:
    """Why the Python ``code`` that ``parse_expr`` made of a formula may not be evaluated (None: it may):
    it holds an attribute, a lambda or a comprehension, or a name of anything but a formula's objects."""
    try:
        tree = ast.parse(code.strip(), mode="eval")
    except (SyntaxError, ValueError):
        return None  # the evaluation raises the same error and runs nothing
    for node in ast.walk(tree):
        if type(node) in REFUSED_NODES:
            return f"{REFUSED_NODES[type(node)]} ({ast.unparse(node)[:60]})"
        if isinstance(node, ast.Name):
            found, obj = _looked_up(node.id, local_dict, global_dict)
            if found and not _formula_object(obj):
                return f"the name {node.id} ({type(obj).__name__}, not a SymPy object)"
    return None


def _identifier(name: str) -> bool:
    return name.isidentifier() and not keyword.iskeyword(name)


def _parts(obj):
    """Every item of ``obj``'s nested lists, tuples, sets and matrices, ``obj`` itself where it is none."""
    from sympy.matrices import MatrixBase

    if isinstance(obj, (list, tuple, set, frozenset)):
        for item in obj:
            yield from _parts(item)
    elif isinstance(obj, MatrixBase):
        for item in obj:
            yield from _parts(item)
    else:
        yield obj


def _printed_names(expr, named: set):
    """The names lambdify's printers write into the code as they are: every symbol-like object's
    (``name``) and every undefined function's, but those of ``named`` (arguments, which it renames)."""
    from sympy import preorder_traversal
    from sympy.core.basic import Basic
    from sympy.core.function import AppliedUndef

    if not isinstance(expr, Basic):
        return
    for node in preorder_traversal(expr):
        if node in named:
            continue
        if isinstance(node, AppliedUndef):
            yield node.func.__name__
        name = getattr(node, "name", None)
        if isinstance(name, str):
            yield name


def _renamed(arg) -> bool:
    """Whether lambdify names the argument ``arg`` itself (a dummy where its own name is no identifier: a
    symbol, a function or a derivative); any other argument is written as ``str(arg)``."""
    from sympy.core.basic import Basic
    from sympy.core.function import Derivative, Function
    from sympy.matrices import DeferredVector

    return isinstance(arg, Basic) and not isinstance(arg, DeferredVector) and (
        bool(arg.is_symbol) or isinstance(arg, (Function, Derivative)))


def lambdify_problem(args, expr) -> str | None:
    """Why ``lambdify(args, expr)`` may not print its function's source (None: it may): a string among
    ``expr`` (printed as it is), or an argument or a name of ``expr`` written as no Python identifier."""
    parts = list(_parts(expr))
    for part in parts:
        if isinstance(part, str):
            return f"a string expression ({part[:60]!r}): sympify the formula first"
    named = set()
    for arg in _parts(args):
        if _renamed(arg):
            named.add(arg)
        elif not _identifier(text := str(arg)):
            return f"the argument {text[:60]!r}, which is no Python identifier"
    for part in parts:
        for name in _printed_names(part, named):
            if not _identifier(name):
                return f"the name {name[:60]!r}, which is no Python identifier"
    return None


def _refused(what: str, why: str) -> RefusedFormula:
    return RefusedFormula(f"the sandbox refused {what} {why}: a formula string holds SymPy's names, numbers and "
                          "operators, and lambdify takes SymPy expressions of named symbols; code belongs in the "
                          "predictor's source")


def guard_parser(module) -> None:
    """``parse_expr`` (and ``sympify`` of a string) of ``module`` (sympy's parser) checks the code it made of
    the formula before evaluating it."""
    stringify = module.stringify_expr
    if getattr(stringify, "_perfgraphs_guarded", False):
        return

    @functools.wraps(stringify)
    def stringify_expr(s, local_dict, global_dict, transformations):
        code = stringify(s, local_dict, global_dict, transformations)
        if (why := code_problem(code, local_dict, global_dict)) is not None:
            raise _refused("to evaluate a SymPy formula holding", why)
        return code

    stringify_expr._perfgraphs_guarded = True
    module.stringify_expr = stringify_expr  # parse_expr's global, read at each call


def guard_lambdify(module) -> None:
    """``module``'s (sympy's lambdify module's) ``lambdify`` checks what it will print before printing."""
    lambdify = module.lambdify
    if getattr(lambdify, "_perfgraphs_guarded", False):
        return

    @functools.wraps(lambdify)
    def checked(args, expr, *rest, **kwargs):
        if (why := lambdify_problem(args, expr)) is not None:
            raise _refused("to lambdify", why)
        return lambdify(args, expr, *rest, **kwargs)

    checked._perfgraphs_guarded = True
    module.lambdify = checked
    for name in ("sympy", "sympy.utilities"):  # where sympy's own import bound the function already
        holder = sys.modules.get(name)
        if holder is not None and getattr(holder, "lambdify", None) is lambdify:
            holder.lambdify = checked


GUARDS = {PARSER: guard_parser, LAMBDIFY: guard_lambdify}


def restrict_sympy() -> None:
    """From now on, in this process, SymPy parses formula strings as formulas and lambdify prints no
    string (:class:`RefusedFormula` otherwise)."""
    guard_on_import(GUARDS)
