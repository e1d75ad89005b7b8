"""The architecture the README draws, enforced: one-way layers (import-linter contracts of
pyproject.toml), no import cycle between modules, and no dataset or config chosen by its name
outside the registry and the recipes."""

from __future__ import annotations

import ast
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "perfgraphs"
# where names are defined (the registry) and where a config's code is chosen by its recipe
NAME_HOMES = ("registry.py", "data/recipes/")


def lint_imports(config: Path, cwd: Path) -> tuple[int, str]:
    """import-linter's own command on a config, in a child (it reads the package from sys.path)."""
    import subprocess

    code = ("import sys; from importlinter.cli import lint_imports; "
            f"sys.exit(lint_imports(config_filename={str(config)!r}, no_cache=True, no_logo=True))")
    env = {**__import__("os").environ, "PYTHONPATH": str(cwd)}
    done = subprocess.run([sys.executable, "-c", code], cwd=cwd, env=env, capture_output=True, text=True, timeout=300)
    return done.returncode, done.stdout + done.stderr


def test_import_linter_contracts_hold():
    pytest.importorskip("importlinter")
    rc, out = lint_imports(ROOT / "pyproject.toml", ROOT)
    assert rc == 0 and "broken" in out and "0 broken" in out, out


def test_a_back_edge_breaks_the_contract(tmp_path):
    # the same kind of contract on a two-layer package whose lower layer imports the upper one
    pytest.importorskip("importlinter")
    pkg = tmp_path / "layered"
    (pkg / "low").mkdir(parents=True)
    (pkg / "high").mkdir()
    for init in (pkg, pkg / "low", pkg / "high"):
        (init / "__init__.py").write_text("")
    (pkg / "high" / "a.py").write_text("from layered.low import b\n")
    (pkg / "low" / "b.py").write_text("def f():\n    from layered.high import a  # the back-edge\n")
    config = tmp_path / "setup.toml"
    config.write_text('[tool.importlinter]\nroot_package = "layered"\n[[tool.importlinter.contracts]]\n'
                      'name = "layers"\ntype = "layers"\nlayers = ["layered.high", "layered.low"]\n')
    rc, out = lint_imports(config, tmp_path)
    assert rc != 0 and "layered.low.b -> layered.high.a" in out, out


def import_graph() -> dict[str, set[str]]:
    """Module → the perfgraphs modules it imports (at module level or inside functions)."""
    import grimp

    graph = grimp.build_graph("perfgraphs")
    return {m: set(graph.find_modules_directly_imported_by(m)) for m in graph.modules}


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components of more than one module (Tarjan, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found = []
    counter = 0
    for root in sorted(graph):
        if root in index:
            continue
        work = [(root, iter(sorted(graph[root])))]
        index[root] = low[root] = counter
        counter += 1
        stack.append(root)
        on_stack.add(root)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = counter
                    counter += 1
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(graph.get(child, ())))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                if len(component) > 1:
                    found.append(sorted(component))
    return found


def test_cycle_finder_finds_a_cycle():
    # the finder itself, on graphs whose answer is known
    assert cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    assert cycles({"a": {"b"}, "b": set(), "c": {"c"}}) == []


def test_no_import_cycles():
    pytest.importorskip("grimp")
    assert cycles(import_graph()) == []


def _forbidden_names() -> set[str]:
    """Every registered dataset name, and every config name that names nothing else: a config
    named like a platform (cpu-torch-fp32), a row kind (graphs), a featurizer (dippm) or an importer
    (mlenergy) names that
    thing where it appears outside the registry. Short dataset names (dippm, trappm) are also the
    featurizers', protocols' and baselines' names, so a dataset is caught by its registry name."""
    from perfgraphs.collect.platforms import PLATFORMS
    from perfgraphs.collect.protocols import PROTOCOLS
    from perfgraphs.features import FEATURIZERS
    from perfgraphs.registry import DATASETS

    others = set(PLATFORMS) | set(PROTOCOLS) | set(FEATURIZERS) | {"graphs", "tabular"}
    others |= {s.split(":", 1)[1] for ds in DATASETS.values() for c in ds.configs for s in c.sources
               if s.startswith("external:")}  # an importer's name (mlenergy)
    names = set()
    for ds in DATASETS.values():
        names |= {ds.name} | ({c.name for c in ds.configs} - others)
    return names


def name_literals(source: str, forbidden: set[str]) -> list[tuple[int, str]]:
    """(line, literal) of every string constant equal to a forbidden name, docstrings left out."""
    tree = ast.parse(source)
    docstrings = {id(node.body[0].value) for node in ast.walk(tree)
                  if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef))
                  and node.body and isinstance(node.body[0], ast.Expr)
                  and isinstance(node.body[0].value, ast.Constant)}
    return [(node.lineno, node.value) for node in ast.walk(tree)
            if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in docstrings
            and node.value in forbidden]


def test_name_literal_finder_sees_comparisons_and_tables():
    source = 'x = 1\nif ds.name == "perfgraphs/llm":\n    pass\nT = {("perfgraphs/dippm", "mlenergy"): 1}\n'
    assert name_literals(source, {"perfgraphs/llm", "perfgraphs/dippm", "mlenergy"}) == [
        (2, "perfgraphs/llm"), (4, "perfgraphs/dippm"), (4, "mlenergy")]
    assert name_literals('"""perfgraphs/llm"""\n', {"perfgraphs/llm"}) == []


def test_no_dataset_or_config_name_outside_the_registry_and_recipes():
    forbidden = _forbidden_names()
    found = []
    for path in sorted(PACKAGE.rglob("*.py")):
        rel = path.relative_to(PACKAGE).as_posix()
        if any(rel == home or rel.startswith(home) for home in NAME_HOMES):
            continue
        found += [f"perfgraphs/{rel}:{line}: {value!r}" for line, value in name_literals(path.read_text(), forbidden)]
    assert not found, "dataset/config names outside the registry:\n" + "\n".join(found)


def test_every_subpackage_is_in_the_wheel():
    # pyproject lists packages by hand (three are mapped from top-level folders): a package folder
    # left out of the list would work in a checkout and be missing from an installed wheel
    import tomllib

    listed = set(tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]["packages"])
    found = {".".join(p.parent.relative_to(ROOT).parts) for p in PACKAGE.rglob("__init__.py")
             if "__pycache__" not in p.parts}
    assert found - listed == set(), "add these to [tool.setuptools] packages in pyproject.toml"
