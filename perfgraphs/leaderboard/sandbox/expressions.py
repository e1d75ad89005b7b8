"""Expression and template strings in the predictor's process: pandas' expressions read data, no template
runs Python, and PyG evaluates type hints and prints names only.

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
function an attribute, call or subscript makes (:func:`expression_problem`, :func:`value_problem`), makes
every jinja2 environment sandboxed as jinja2's own ``SandboxedEnvironment`` is (no attribute starting with
``_``, no internal attribute of a function, frame or code object, ``str.format`` sandboxed too), and
refuses to build a Mako template.

PyG's ``Sequential('x: Tensor', [(conv, 'x, edge_index -> x')])`` takes a signature as text, evaluates its
type hints as Python (``typing`` evaluates a hint's text) and prints its names into the code of the
``forward`` it generates from a jinja2 template and imports: a median that built a ``Sequential`` from a
signature its ``arch.txt`` holds ran the notes through ``x: exec(open(...).read()) or Tensor`` (the same
pass). So PyG's ``eval_type`` evaluates only type hints (:func:`type_problem`: names, public attributes,
subscripts, ``|``), and its ``module_from_template`` prints only Python identifiers and such hints
(:func:`template_problem`), which covers ``MessagePassing``'s generated ``propagate`` too, whose hints PyG
reads from a comment of the class's source.

PyG's signatures are one case of a type hint given as text: ``typing`` evaluates every forward reference's text
as Python, whoever resolves it (``get_type_hints``, pydantic's ``create_model`` and ``TypeAdapter`` of field
types read from a data file: sixty-fifth pass), so a ``ForwardRef`` evaluates only what :func:`type_problem`
passes (:func:`guard_type_hints`).

``torch.fx`` prints names into the code it generates as well: a ``GraphModule``'s ``forward`` is Python that fx
writes from its graph and ``exec``s, a placeholder's name as a parameter, an attribute's name inside
``getattr(self, "...")`` unescaped, a keyword's name before ``=``, so a median that built a graph from the input and
weight names its ``scale.json`` gave ran the notes (sixty-eighth pass); fx generates code only from a graph whose
names print as themselves (:func:`fx_graph_problem`, :func:`guard_fx`).

The modules are guarded as they are first imported (an import hook ahead of every other finder), or at
once where they are loaded already (the child's ``datasets`` imports pandas).
"""

from __future__ import annotations

import ast
import functools
import sys
import types

from perfgraphs.leaderboard.sandbox.import_guard import guard_on_import

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


# what a type hint's text may hold: names, public attributes, subscripts, tuples, lists, constants and ``|``
TYPE_NODES = (ast.Expression, ast.Name, ast.Attribute, ast.Subscript, ast.Tuple, ast.List, ast.Constant, ast.BinOp,
              ast.BitOr, ast.Load)
# the fields of PyG's template arguments (inspector.Parameter and Signature) printed as type hints; their objects
# (``type``, ``return_type``) and a parameter's ``default`` are no text of the template
TYPE_FIELDS, OBJECT_FIELDS = ("type_repr", "return_type_repr"), ("type", "return_type", "default")


def type_problem(text: str) -> str | None:
    """Why PyG may not evaluate ``text`` as a type hint, or print it into the code it generates (None: it may):
    anything but names, public attributes, subscripts, tuples, lists, constants and ``|`` (a call runs
    code), a quoted part being a type hint too (typing evaluates it in turn)."""
    try:
        tree = ast.parse(text.strip(), mode="eval")
    except (SyntaxError, ValueError):
        return None  # typing raises the same error and evaluates nothing
    for node in ast.walk(tree):
        if not isinstance(node, TYPE_NODES) or (isinstance(node, ast.BinOp) and not isinstance(node.op, ast.BitOr)):
            return f"{type(node).__name__} in the type hint {text.strip()[:60]!r}"
        name = node.attr if isinstance(node, ast.Attribute) else node.id if isinstance(node, ast.Name) else ""
        if name.startswith("_"):
            return f"the name {name} in the type hint {text.strip()[:60]!r}"
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and (why := type_problem(node.value)):
            return why
    return None


def template_problem(value, field: str = "") -> str | None:
    """Why PyG may not print ``value`` (a keyword argument of its code templates) into the module it generates
    and imports (None: it may): a name that is no dotted Python identifier (a :class:`Sequential`'s
    ``"x -> y"`` names), or a type hint :func:`type_problem` refuses."""
    if isinstance(value, str):
        if field in TYPE_FIELDS:
            return type_problem(value)
        if all(part.isidentifier() for part in value.split(".")):
            return None
        return f"the name {value[:60]!r}, which is no Python identifier"
    if isinstance(value, tuple) and hasattr(value, "_fields"):  # Parameter, Signature, Sequential's Child
        items = [(getattr(value, f), f) for f in value._fields if f not in OBJECT_FIELDS]
    elif isinstance(value, dict):
        items = [(v, field) for pair in value.items() for v in pair]
    elif isinstance(value, (list, tuple, set)):
        items = [(v, field) for v in value]
    else:
        return None
    return next((why for v, f in items if (why := template_problem(v, f)) is not None), None)


def _refused_code(what: str, why: str) -> RefusedExpression:
    return RefusedExpression(f"the sandbox refused {what} {why}: a type hint names types, and a name is a Python "
                             "identifier; code belongs in the predictor's source")


# PyG's modules that bind the guarded functions by name (``from torch_geometric.inspector import eval_type``)
PYG_HOLDERS = ("torch_geometric.nn.sequential", "torch_geometric.nn.conv.message_passing")


def _rebind(name: str, old, new) -> None:
    for holder in map(sys.modules.get, PYG_HOLDERS):
        if holder is not None and getattr(holder, name, None) is old:
            setattr(holder, name, new)


def guard_pyg_types(module) -> None:
    """``module``'s (PyG's inspector's) ``eval_type`` evaluates a type hint's text only where
    :func:`type_problem` passes it: ``typing`` evaluates the text as Python, and PyG takes it from a
    ``Sequential``'s signature string (data a predictor may read from a file) and from a comment of a
    ``MessagePassing`` class's source (``# propagate_type: (x: Tensor)``)."""
    eval_type = module.eval_type
    if getattr(eval_type, "_perfgraphs_guarded", False):
        return

    @functools.wraps(eval_type)
    def checked(value, _globals):
        if isinstance(value, str) and (why := type_problem(value)) is not None:
            raise _refused_code("to evaluate", why)
        return eval_type(value, _globals)

    checked._perfgraphs_guarded = True
    module.eval_type = checked
    _rebind("eval_type", eval_type, checked)


def guard_pyg_templates(module) -> None:
    """``module``'s (PyG's template module's) ``module_from_template`` renders its code template and imports
    the module only where :func:`template_problem` passes every keyword argument: names are printed into the
    code as they are given."""
    render = module.module_from_template
    if getattr(render, "_perfgraphs_guarded", False):
        return

    @functools.wraps(render)
    def checked(module_name, template_path, tmp_dirname, **kwargs):
        if (why := template_problem(kwargs)) is not None:
            raise _refused_code("to generate PyG code holding", why)
        return render(module_name, template_path, tmp_dirname, **kwargs)

    checked._perfgraphs_guarded = True
    module.module_from_template = checked
    _rebind("module_from_template", render, checked)


def guard_type_hints(module) -> None:
    """``module``'s (``typing``'s) forward references evaluate only what :func:`type_problem` passes: a
    ``ForwardRef``'s text is evaluated as Python by ``typing.get_type_hints`` and by every library that
    resolves a type hint given as a string, and pydantic's ``create_model`` and ``TypeAdapter`` take one from
    data (a median that built its prior's model from the field types its ``prior.json`` held ran
    ``exec(open(...).read()) or float``: sixty-fifth pass). One guard for every caller, PyG's ``eval_type``
    among them."""
    _check_method(module.ForwardRef, "_evaluate", lambda ref: _hint_problem(ref.__forward_arg__), "to evaluate")


def _check_method(cls, name: str, problem, doing: str) -> None:
    """Replace the method ``cls.name`` with one that first asks ``problem(self)`` (a reason or None) and
    refuses, "the sandbox refused ``doing`` ...", where there is one (once: a guarded method is kept)."""
    method = getattr(cls, name)
    if getattr(method, "_perfgraphs_guarded", False):
        return

    @functools.wraps(method)
    def checked(self, *args, **kwargs):
        if (why := problem(self)) is not None:
            raise _refused_code(doing, why)
        return method(self, *args, **kwargs)

    checked._perfgraphs_guarded = True
    setattr(cls, name, checked)


_hint_problem = functools.lru_cache(maxsize=4096)(type_problem)  # a library evaluates its own hints over and over


def _printed_as_itself(part: str) -> bool:
    """fx prints a part of a dotted target as ``.part`` where it is an identifier, else between double quotes
    it does not escape (``getattr(self, "0")``): text holding no quote, backslash or unprintable character."""
    return part.isidentifier() or (part.isprintable() and '"' not in part and "\\" not in part)


def fx_graph_problem(graph) -> str | None:
    """Why fx may not generate the Python of ``graph`` (a ``torch.fx.Graph``; None: it may): a name that fx
    prints into the code as it is and that does not print as itself. fx writes a placeholder's target as a
    parameter of the ``def`` line (``*args``, ``**kwargs`` too), an attribute's, module's or method's target
    part by part (:func:`_printed_as_itself`) and a keyword argument's name before ``=``: a median that built
    its graph from a ``scale.json`` ran the folder's notes through a weight named ``w") if exec(...) else
    getattr(self, "w`` or an input named ``x=exec(...)`` (sixty-eighth pass)."""
    for node in graph.nodes:
        target = str(node.target)
        if node.op == "placeholder":
            bare = target.lstrip("*")
            bad = [] if bare.isidentifier() and len(target) - len(bare) <= 2 else [target]
        elif node.op in ("get_attr", "call_module", "call_method"):
            bad = [part for part in target.split(".") if not _printed_as_itself(part)]
        else:
            bad = []
        bad += [str(key) for key in node.kwargs if not (isinstance(key, str) and key.isidentifier())]
        if bad:
            return f"the name {bad[0][:60]!r} of its {node.op} node {node.name}, which fx prints into the code as it is"
    return None


def guard_fx(module) -> None:
    """``module``'s (fx's graph module's) ``Graph.python_code``, from which every ``GraphModule`` gets the
    ``forward`` it runs, generates code only where :func:`fx_graph_problem` passes the graph."""
    _check_method(module.Graph, "python_code", fx_graph_problem, "to generate fx code from")


GUARDS = {PANDAS: guard_pandas, JINJA2: guard_jinja2, MAKO: guard_mako, "torch_geometric.inspector": guard_pyg_types,
          "torch_geometric.template": guard_pyg_templates, "typing": guard_type_hints, "torch.fx.graph": guard_fx}


def restrict_expressions() -> None:
    """From now on, in this process, pandas' expressions read data only, jinja2 renders sandboxed, Mako
    builds no template, PyG evaluates and prints only type hints and names, and typing's forward references
    are type hints, and fx prints only names that print as themselves (:class:`RefusedExpression`, or jinja2's
    ``SecurityError``, otherwise)."""
    guard_on_import(GUARDS)
