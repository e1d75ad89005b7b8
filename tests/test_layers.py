"""The architecture the README draws, enforced: one-way layers (import-linter contracts of
pyproject.toml), no import cycle between modules, and no dataset, config or baseline named outside
the table that defines it (the registry, the baseline catalog)."""

from __future__ import annotations

import ast
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "perfgraphs"
# the trees whose Python the name-literal rule covers (tests/ is not scanned), and the two tables
# that define the names
SCANNED = ("perfgraphs", "benchmarks", "leaderboard", "plans")
NAME_HOMES = ("perfgraphs/registry.py", "perfgraphs/baselines/catalog.py")


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
    """Every registered dataset name, every config name and every baseline name, with no exception
    for names shared with other things (see the rule below)."""
    from perfgraphs.baselines.catalog import BASELINES, TRANSFER_BASELINES
    from perfgraphs.registry import DATASETS

    names = set(BASELINES) | set(TRANSFER_BASELINES)
    for ds in DATASETS.values():
        names |= {ds.name} | {c.name for c in ds.configs}
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


def literal_offences(root: Path, forbidden: set[str]) -> list[str]:
    """``path:line: literal`` of every forbidden name written in a scanned Python file under ``root``
    outside the name homes."""
    found = []
    for tree in SCANNED:
        for path in sorted((root / tree).rglob("*.py")):
            rel = path.relative_to(root).as_posix()
            if rel not in NAME_HOMES:
                found += [f"{rel}:{line}: {value!r}" for line, value in name_literals(path.read_text(), forbidden)]
    return found


def test_the_scan_covers_benchmarks_leaderboard_and_plans_but_not_tests(tmp_path):
    # a control tree: the same forbidden literal in every scanned tree, a home and the tests
    for rel in ("perfgraphs/registry.py", "perfgraphs/baselines/catalog.py", "perfgraphs/x.py",
                "benchmarks/bench_x.py", "leaderboard/reference/x/predictor.py", "plans/make_x.py",
                "tests/test_x.py"):
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text('NAME = "static-xgboost"\n')
    assert literal_offences(tmp_path, {"static-xgboost"}) == [
        "perfgraphs/x.py:1: 'static-xgboost'", "benchmarks/bench_x.py:1: 'static-xgboost'",
        "leaderboard/reference/x/predictor.py:1: 'static-xgboost'", "plans/make_x.py:1: 'static-xgboost'"]
    # and the real trees hold Python files the scan reads
    assert all(any((ROOT / tree).rglob("*.py")) for tree in ("benchmarks", "leaderboard"))


def test_no_dataset_config_or_baseline_name_outside_its_table():
    """A dataset, config or baseline name is written as a string literal in one place: the table
    that defines it (perfgraphs/registry.py for datasets and configs, perfgraphs/baselines/catalog.py
    for baselines). Everything else, in perfgraphs/, benchmarks/, leaderboard/ and plans/, refers to
    the record (``STATIC_XGBOOST.name``, ``cfg.name``) or chooses by a record's attributes (a config's
    ``recipe`` or ``kind``, a baseline's ``inputs`` or ``reference_on``), never by a name. A name
    that is also another thing's (a config named after the platform ``cpu-torch-fp32``, the
    featurizers and protocols named ``dippm`` and ``trappm``, the row kind ``graphs``, the importer
    ``mlenergy``) is a constant of the registry, which the other thing's table uses too, so the
    string still lives in one table only; no file and no shared name is exempt."""
    found = literal_offences(ROOT, _forbidden_names())
    assert not found, "dataset/config/baseline names outside the registry and the baseline catalog:\n" + \
        "\n".join(found)


def test_every_subpackage_is_in_the_wheel():
    # pyproject lists packages by hand (three are mapped from top-level folders): a package folder
    # left out of the list would work in a checkout and be missing from an installed wheel
    import tomllib

    listed = set(tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]["packages"])
    found = {".".join(p.parent.relative_to(ROOT).parts) for p in PACKAGE.rglob("__init__.py")
             if "__pycache__" not in p.parts}
    assert found - listed == set(), "add these to [tool.setuptools] packages in pyproject.toml"
