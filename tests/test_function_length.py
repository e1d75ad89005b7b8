"""No function of the library is longer than a reader can hold: at most MAX_LINES lines, from its
``def`` (decorators not counted) to its last line, nested functions counted in their parent too."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "perfgraphs"
MAX_LINES = 80


def long_functions(package: Path, root: Path, max_lines: int = MAX_LINES) -> list[tuple[str, int]]:
    """(``path::name``, lines) of every function in ``package`` longer than ``max_lines``."""
    found = []
    for path in sorted(package.rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
        for node in ast.walk(tree):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                lines = node.end_lineno - node.lineno + 1
                if lines > max_lines:
                    found.append((f"{path.relative_to(root).as_posix()}::{node.name}", lines))
    return found


def test_no_library_function_is_over_the_limit():
    found = long_functions(PACKAGE, ROOT)  # no exemption
    assert not found, (f"functions over {MAX_LINES} lines (split them where a reader would): "
                       + "; ".join(f"{name} ({lines})" for name, lines in found))


def test_a_long_function_is_found(tmp_path):
    package = tmp_path / "pkg"
    (package / "sub").mkdir(parents=True)
    body = "\n".join(f"        x{i} = {i}" for i in range(MAX_LINES))  # the def line makes it MAX_LINES + 1
    (package / "sub" / "long.py").write_text(f"def short():\n    return 1\n\n\nclass C:\n    def long(self):\n{body}\n")
    (package / "ok.py").write_text("def f():\n" + "\n".join(f"    y{i} = {i}" for i in range(MAX_LINES - 1)) + "\n")
    assert long_functions(package, tmp_path) == [("pkg/sub/long.py::long", MAX_LINES + 1)]
