"""One board, resolved once: :func:`perfgraphs.registry.task` at the edge, the Task passed down.

The registry's ``get_dataset`` and the manifest reader are wrapped in a counter (the real functions
still run: instrumentation, not a stand-in), rebound wherever a module imported them by name, and
one real quick submission runs end to end: ``perfgraphs submit`` of the example on the tiny dippm
board (conftest's ``tiny_labeled_home``), scored in the sandbox, recorded, logged and summarised
with its noise-floor line.
"""

from __future__ import annotations

import sys
import traceback

import pytest

from perfgraphs import registry
from perfgraphs.data import manifest
from perfgraphs.registry import UnknownDatasetError, task
from test_submit import BOARD, EXAMPLE, env  # noqa: F401 — fixtures


def count_calls(monkeypatch, module, name: str) -> list[str]:
    """Every later call of ``module.<name>``, as the stack that made it; the real function runs."""
    real = getattr(module, name)
    calls = []

    def counting(*args, **kwargs):
        calls.append("".join(traceback.format_stack(limit=8)[:-1]))
        return real(*args, **kwargs)

    for loaded in list(sys.modules.values()):
        if getattr(loaded, "__name__", "").startswith("perfgraphs") and getattr(loaded, name, None) is real:
            monkeypatch.setattr(loaded, name, counting)
    return calls


def test_the_counter_counts_every_resolution(monkeypatch, tmp_path):
    # the control: two resolutions, through a module-level import and the registry itself, count 2,
    # and a manifest read through the data layer's own import counts 1
    from perfgraphs.data import load

    datasets = count_calls(monkeypatch, registry, "get_dataset")
    manifests = count_calls(monkeypatch, manifest, "read_manifest")
    task("dippm", "cpu-torch-fp32", "latency_ms")
    load.get_dataset("dippm")
    load.read_manifest(tmp_path)
    assert len(datasets) == 2 and len(manifests) == 1


def test_a_task_holds_the_resolved_board():
    board = task("dippm", "cpu-torch-fp32", "latency_ms")
    assert (board.dataset.name, board.config.name, board.target.name) == ("perfgraphs/dippm", "cpu-torch-fp32",
                                                                           "latency_ms")
    assert board.target.unit == "ms" and not board.cross_validated and board.protocol() == ""
    llm = task("llm", "mlenergy", "median_itl_ms")
    assert llm.cross_validated and llm.protocol() == "leave-models-out"
    assert llm.protocol("stratified-5-fold") == "stratified-5-fold"
    assert "median_itl_ms" in llm.label_columns
    # no config: the dataset's first config with the target (the Evaluator's rule)
    assert task("dippm", None, "energy_j").config.name == "h200-torch-fp32"


@pytest.mark.parametrize("names, says", [
    (("nope", "cpu-torch-fp32", "latency_ms"), "unknown dataset 'nope'"),
    (("dippm", "nope", "latency_ms"), "has no config 'nope'"),
    (("dippm", "cpu-torch-fp32", "nope"), "has no target 'nope'"),
    (("dippm", None, "nope"), "has no target 'nope'"),
])
def test_a_bad_name_is_one_typed_line(names, says):
    with pytest.raises(UnknownDatasetError) as raised:
        task(*names)
    assert says in str(raised.value) and "\n" not in str(raised.value)


def test_a_submission_resolves_its_board_once_and_reads_its_manifest_once(env, monkeypatch, capsys):
    datasets = count_calls(monkeypatch, registry, "get_dataset")
    manifests = count_calls(monkeypatch, manifest, "read_manifest")
    from perfgraphs.cli import main

    rc = main(["submit", str(EXAMPLE), *BOARD, "--quick", "--results", str(env["results"])])
    out, err = capsys.readouterr()
    assert rc == 0, err
    assert "example-ridge (quick) on perfgraphs/dippm/cpu-torch-fp32 → latency_ms" in out
    assert "oise floor" in out  # the summary's noise-floor line, from the same Task
    assert (env["results"] / "dippm.jsonl").exists()
    assert len(datasets) == 1, "\n---\n".join(datasets)
    assert len(manifests) == 1, "\n---\n".join(manifests)

