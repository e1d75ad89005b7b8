"""The project's one YAML reader (perfgraphs.yamlio) against PyYAML's pure-Python safe loader."""

from __future__ import annotations

import ast
import subprocess
from pathlib import Path

import pytest
import yaml

from perfgraphs.yamlio import read_yaml

REPO = Path(__file__).resolve().parents[1]


def test_every_committed_yaml_file_reads_as_the_pure_python_safe_loader_reads_it():
    """Ground truth: PyYAML's reference loader, written independently of libyaml. Every YAML file the
    repository holds (plans, examples, configs) gives the same document."""
    listed = subprocess.run(["git", "ls-files", "-z", "*.yaml", "*.yml"], cwd=REPO, capture_output=True,
                            check=True).stdout.decode().split("\0")
    files = [REPO / name for name in listed if name and (REPO / name).is_file()]
    assert len(files) >= 15
    for path in files:
        text = path.read_text()
        assert read_yaml(text) == yaml.load(text, Loader=yaml.SafeLoader), path


@pytest.mark.parametrize("text", ["a: [1, 2\n", "- a\n b: c\n", "a: !!python/object:os.system ls\n"])
def test_what_is_not_safe_yaml_is_a_yaml_error(text):
    with pytest.raises(yaml.YAMLError):
        read_yaml(text)
    with pytest.raises(yaml.YAMLError):
        yaml.load(text, Loader=yaml.SafeLoader)


def test_no_module_parses_yaml_another_way():
    """One reader: the package calls ``yaml.safe_load``/``yaml.load`` only in yamlio and in the submission
    reader (untrusted input, its own limits)."""
    allowed = {"perfgraphs/yamlio.py", "perfgraphs/leaderboard/submission.py"}
    found = []
    for path in sorted((REPO / "perfgraphs").rglob("*.py")):
        rel = path.relative_to(REPO).as_posix()
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id == "yaml" \
                    and node.attr in ("safe_load", "load", "full_load", "unsafe_load", "load_all", "safe_load_all"):
                if rel not in allowed:
                    found.append(f"{rel}:{node.lineno}")
    assert not found, found
