"""Expression and template strings in the predictor's process: pandas' expressions read data, and no
template runs Python.

``DataFrame.eval``, ``DataFrame.query`` and ``pandas.eval`` (the python engine: numexpr is not installed
here, and the pandas parser walks the same tree) evaluate an expression by walking its syntax tree: a name
is a column, an ``@`` local or a global of the caller, an attribute is ``getattr`` on whatever the walk
holds and a call calls it. So an expression reaches a function's ``__globals__`` and every module from
there: a median whose ``fit`` scaled its level by a formula it ships (``prior.txt``) through ``frame.eval``
ran ``median.__class__.__init__.__globals__["sys"].modules["builtins"].exec(...)`` of a text file's lines,
code no review reads (sixty-fourth pass of 2026-12-06). Through public attributes alone an expression also
reaches jinja2 (``median.to_frame().style.env.from_string(...)``: pandas' Styler keeps a jinja2
environment), whose templates read ``__globals__`` as well, as a template the folder ships and renders
does; and a Mako template is Python.

As the SymPy guard does for formulas (:mod:`perfgraphs.leaderboard.sandbox.formulas`), the sandbox child,
before it imports the predictor, makes pandas' expressions refuse a name or attribute starting with ``_``
(an ``@`` local's own name is what counts), any module a name, attribute or call reaches, and any class or
function an attribute, call or subscript makes (:func:`expression_problem`, :func:`value_problem`), makes every jinja2 environment sandboxed as jinja2's
own ``SandboxedEnvironment`` is (no attribute starting with ``_``, no internal attribute of a function,
frame or code object, ``str.format`` sandboxed too), and refuses to build a Mako template.

The modules are guarded as they are first imported (an import hook ahead of every other finder), or at
once where they are loaded already (the child's ``datasets`` imports pandas).
"""

from __future__ import annotations

import ast
import functools
import sys
import types

from perfgraphs.leaderboard.sandbox.formulas import GuardingFinder

PANDAS = "pandas.core.computation.expr"  # the visitor of every pandas expression (eval, query, where)
JINJA2 = "jinja2"
MAKO = "mako.template"
# what jinja2's SandboxedEnvironment adds to an Environment, read by the compiler (``sandboxed``: calls go
# through ``call``, operators through the tables), the runtime (``getattr``, ``getitem``) and the filters
SANDBOX_MEMBERS = ("sandboxed", "default_binop_table", "default_unop_table", "intercepted_binops",
                   "intercepted_unops", "is_safe_attribute", "is_safe_callable", "call_binop", "call_unop",
                   "getitem", "getattr", "unsafe_undefined", "wrap_str_format", "call")


class RefusedExpression(ValueError):
    """pandas was about to evaluate, or Mako to compile, an expression or template that is more than data."""


def _refused(what: str, why: str) -> RefusedExpression:
    return RefusedExpression(f"the sandbox refused {what} {why}: a pandas expression reads columns, @ locals, "
                             "numbers and their public methods; code belongs in the predictor's source")


def expression_problem(clean: str) -> str | None:
    """Why pandas may not evaluate the expression ``clean`` (as its preparser left it; None: it may): a name
    or attribute starting with ``_`` (``__class__``, ``__globals__``, ``__builtins__``), which reaches past the
    data to any function's module."""
    from pandas.core.computation.ops import LOCAL_TAG

    try:
        tree = ast.parse(clean)
    except (SyntaxError, ValueError):
        return None  # pandas raises the same error and evaluates nothing
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and node.attr.startswith("_"):
            return f"the attribute {node.attr}"
        if isinstance(node, ast.Name) and node.id.removeprefix(LOCAL_TAG).startswith("_"):
            return f"the name {node.id.removeprefix(LOCAL_TAG)}"
    return None


def value_problem(value, made: bool) -> str | None:
    """Why an expression may not hold ``value`` (None: it may): a module, whose attributes are every
    function of the library (``pd.io.common.os.system``, ``np.lib``); and where the expression ``made`` it (an
    attribute's, a call's or a subscript's result, not a name), a class, a function or a module's built-in
    function: a string names a method to pandas (``median.agg("__getattribute__", 0, "__class__")``), past the
    check of the expression's names and attributes, and a class or a function reaches further through its
    methods and ``pipe`` (a class's unbound ``agg`` takes any object as ``self``) and its ``__globals__``."""
    if isinstance(value, types.ModuleType):
        return f"a module ({value.__name__})"
    if not made:  # pandas' own globals (Timestamp, datetime, list) and the caller's names: the source shows them
        return None
    if isinstance(value, type):
        return f"a class ({value.__name__})"
    if isinstance(value, types.FunctionType) or (
            isinstance(value, types.BuiltinFunctionType) and (value.__self__ is None
                                                              or isinstance(value.__self__, types.ModuleType))):
        return f"a function ({getattr(value, '__qualname__', '?')})"
    return None


def guard_pandas(module) -> None:
    """Every expression ``module``'s (pandas' expression module's) visitors walk is checked before the walk,
    and every value it names or makes as it goes (the scope's names and temporaries)."""
    from pandas.core.computation.scope import Scope

    visitor = module.BaseExprVisitor
    if getattr(visitor.visit, "_perfgraphs_guarded", False):
        return
    visit, resolve, add_tmp = visitor.visit, Scope.resolve, Scope.add_tmp

    @functools.wraps(visit)
    def checked_visit(self, node, **kwargs):
        if isinstance(node, str) and (why := expression_problem(self.preparser(node))) is not None:
            raise _refused("to evaluate a pandas expression holding", why)
        return visit(self, node, **kwargs)

    @functools.wraps(resolve)
    def checked_resolve(self, key, is_local):
        value = resolve(self, key, is_local)
        if (why := value_problem(value, made=False)) is not None:
            raise _refused(f"to evaluate a pandas expression whose name {key} is", why)
        return value

    @functools.wraps(add_tmp)
    def checked_add_tmp(self, value):
        if (why := value_problem(value, made=True)) is not None:
            raise _refused("to evaluate a pandas expression reaching", why)
        return add_tmp(self, value)

    checked_visit._perfgraphs_guarded = True
    visitor.visit, Scope.resolve, Scope.add_tmp = checked_visit, checked_resolve, checked_add_tmp


def guard_jinja2(module) -> None:
    """Every environment of ``module`` (jinja2), and every template compiled from now on, is sandboxed as
    jinja2's ``SandboxedEnvironment`` is (whose own subclasses keep their own rules)."""
    from jinja2.sandbox import SandboxedEnvironment

    environment = module.Environment
    if environment.sandboxed:
        return
    for name in SANDBOX_MEMBERS:
        setattr(environment, name, SandboxedEnvironment.__dict__[name])


def guard_mako(module) -> None:
    """``module``'s (Mako's template module's) templates refuse to be built: their text is Python
    (``${...}``, ``<% %>``) that no check of the folder reads, and no subset of it is safe."""
    template = module.Template
    if getattr(template.__init__, "_perfgraphs_guarded", False):
        return

    def refused(self, *args, **kwargs):
        raise RefusedExpression("the sandbox refused to build a Mako template: a Mako template's text is Python "
                                "no check reads; code belongs in the predictor's source")

    refused._perfgraphs_guarded = True
    template.__init__ = refused


GUARDS = {PANDAS: guard_pandas, JINJA2: guard_jinja2, MAKO: guard_mako}


def restrict_expressions() -> None:
    """From now on, in this process, pandas' expressions read data only, jinja2 renders sandboxed and Mako
    builds no template (:class:`RefusedExpression`, or jinja2's ``SecurityError``, otherwise)."""
    for name, guard in GUARDS.items():
        if name in sys.modules:
            guard(sys.modules[name])
    sys.meta_path.insert(0, GuardingFinder(GUARDS))
