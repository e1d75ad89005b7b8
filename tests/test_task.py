"""One board, resolved once: :func:`perfgraphs.registry.task` at the edge, the Task passed down.

The registry's ``get_dataset`` and the manifest reader are wrapped in a counter (the real functions
still run: instrumentation, not a stand-in), rebound wherever a module imported them by name, and
one real quick submission runs end to end: ``perfgraphs submit`` of the example on the tiny dippm
board (conftest's ``tiny_labeled_home``), scored in the sandbox, recorded, logged and summarised
with its noise-floor line. A leave-one-platform-out run (``perfgraphs benchmark --protocol
leave-one-platform-out``) resolves its board once as well.
"""

from __future__ import annotations

import os
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



# -- a leave-one-platform-out run: `perfgraphs benchmark --protocol leave-one-platform-out` ------------------

TRANSFER_RUN = ["benchmark", "--dataset", "nnlqp", "--config", "timm-platforms", "--target", "latency_per_sample_ms",
                "--baseline", "ratio-transfer", "--protocol", "leave-one-platform-out", "--shots", "8", "16",
                "--seeds", "0", "--platforms", "timm-rtx4090-amp-nchw-pt240-cu124"]
needs_timm = pytest.mark.skipif(not os.environ.get("PERFGRAPHS_EXTERNAL_DIR"),
                                reason="needs timm's files (PERFGRAPHS_EXTERNAL_DIR) to build perfgraphs/nnlqp")


def _transfer_run(capsys) -> str:
    from perfgraphs.cli import main

    rc = main(TRANSFER_RUN)
    out, err = capsys.readouterr()
    assert rc == 0, err
    assert "ratio-transfer known-models K=16 mean over GPU platforms (1)" in " ".join(out.split())
    return out


@needs_timm
def test_a_transfer_run_resolves_its_board_once(monkeypatch, capsys):
    # the CLI resolves the board; loading the platform table, ordering the held-out platforms,
    # scoring each (platform, K, draw) with the Evaluator and summarising take the Task
    datasets = count_calls(monkeypatch, registry, "get_dataset")
    _transfer_run(capsys)
    assert len(datasets) == 1, "\n---\n".join(datasets)


@needs_timm
def test_the_counter_sees_a_transfer_run_that_resolves_again(monkeypatch, capsys):
    # the control: the same run, its scorer building the Evaluator from the board's names (as each
    # scored task did before it took the Task), counts one resolution more per scored task (2 K x 1 draw)
    from perfgraphs.evaluation.evaluator import Evaluator
    from perfgraphs.leaderboard import transfer_runner

    scored = transfer_runner.score_task

    def by_names(transfer, pred, board):
        Evaluator(board.dataset.name, board.target.name, board.config.name)
        return scored(transfer, pred, board)

    monkeypatch.setattr(transfer_runner, "score_task", by_names)
    datasets = count_calls(monkeypatch, registry, "get_dataset")
    _transfer_run(capsys)
    assert len(datasets) == 1 + 2, "\n---\n".join(datasets)
