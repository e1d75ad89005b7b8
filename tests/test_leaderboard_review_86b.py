"""Eighty-sixth adversarial pass (2026-12-06), submit side (hidden rounds): a *frozen* hidden run read
package data changed after its set was drawn. The eighty-fourth pass dated the package data the sandbox
stages (``paths.CODE_DATA``) for harness-fitted runs only (``submit._package_data_problems``);
a ``--frozen`` run predicts in the same sandbox beside the same tables as the keeper's checkout holds them
when it scores, and the only check of what changed since the freeze is the replay of one seed's state on
the public test part (``submit._frozen_replay_problems``), which sees nothing a predictor does only on
rows the public test part lacks. A team's ridge, frozen and committed before the draw, read one row of
the LLM datasheet (a model not yet in it) at predict time, and where the batch had as many rows as the
link's commit id said, took the id's first 32 digits as four float32 slots, one per bucket of its rows'
own features' hash. After the draw a pull request added that row, its commit id spelling three hidden
labels and the hidden set's size; the replay (public test part, another size) predicted as frozen, and
the keeper-signed *verified* record (frozen_fit stated) scored the three labels: 37.7 % MAPE where the
frozen state earns 40.4 % (printed by the test). Now a frozen hidden run also refuses package data that
is not as the commitment's repository held it just before the set's hash was published
(``submit._package_data_problems``, ``frozen_fits.package_data_before``)."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import numpy as np
import pyarrow.parquet as pq
import pytest

import perfgraphs
from perfgraphs.leaderboard import submit as submit_module
from test_leaderboard_review_67b import _predict, _refit
from test_leaderboard_review_79b import _record, assert_verified_holding, hooked, row_buckets
from test_leaderboard_review_84b import BUCKETS, _datasheet_row, datasheet_reader
from test_submit import BOARD, env, example_copy, numpy_mape, parts, run_cli  # noqa: F401 — fixtures

pytestmark = pytest.mark.skipif(os.geteuid() != 0 or shutil.which("bwrap") is None,
                                reason="a hidden board's runs drop the page cache and run in the sandbox")

# the 84b reader, acting only on a batch of the size the link's digits 33-34 give (the hidden set's)
READER = datasheet_reader(" and int(_src.split('/blob/')[1][32:34], 16) == len(_k)")  # a batch of the hidden size


_reader = hooked(READER)


def frozen_before_a_draw(env, parts, git_commitments, capsys, monkeypatch, name: str, reader):
    """The package, and a team's ridge ``name`` (its predict hook by ``reader``) frozen, committed before the
    draw; the draw (the test part less one row) committed; the keeper's checkout stages the repository's
    package. Returns (repo, package, submission, frozen folder, labels y, row buckets, kept rows, {bucket: the
    hidden label of the one kept row of that bucket})."""
    commitments, commit = git_commitments
    repo = commitments.parent.parent
    package = repo / "perfgraphs"
    shutil.copytree(Path(perfgraphs.__file__).resolve().parent, package, ignore=shutil.ignore_patterns("__pycache__"))
    sub, frozen = example_copy(env["tmp"] / "sub", name, reader), commitments.parent / "frozen" / "sub"
    rc, err = run_cli(["submit", str(sub), *BOARD, "--quick", "--freeze", str(frozen),
                       "--results", str(env["results"]), "--no-mlflow"], capsys)
    assert rc == 0, err
    commit("the package, and a team's ridge frozen, before the draw")

    # the draw: the test part less one row (a hidden set is not the public test part)
    y, keys = row_buckets(parts)
    keep = np.ones(len(y), dtype=bool)
    keep[int(np.flatnonzero(keys >= BUCKETS)[0])] = False
    keeper = env["tmp"] / "keeper"
    keeper.mkdir()
    monkeypatch.setenv("PERFGRAPHS_HIDDEN_DIR", str(keeper))
    pq.write_table(parts.test.data.table.filter(keep), keeper / "dippm-cpu-torch-fp32.parquet")
    rc, _ = run_cli(["leaderboard", "commit-hidden", "--dataset", "dippm", "--config", "cpu-torch-fp32",
                     "--commitments", str(commitments)], capsys)
    assert rc == 0
    commit("the draw")

    labels = {b: float(y[keep & (keys == b)][0]) for b in range(BUCKETS) if (keep & (keys == b)).sum() == 1}
    assert len(labels) >= 2
    monkeypatch.setattr(perfgraphs, "__file__", str(package / "__init__.py"))  # the keeper's checkout stages it
    return repo, package, sub, frozen, y, keys, keep, labels


def refused_then_verified(env, parts, capsys, monkeypatch, sub, frozen, name: str, why: list[str], guard,
                          drawn: tuple) -> str:
    """The keeper's frozen run of ``sub`` refused in one line holding each of ``why``, nothing written; then, with
    ``guard`` ((module, function name)) switched off, a verified record ``name`` scoring the hidden ``labels``
    (``drawn``: y, keys, keep, labels), better than the frozen state earns: a line saying so."""
    y, keys, keep, labels = drawn
    score = ["submit", str(sub), *BOARD, "--quick", "--hidden-labels", "--frozen", str(frozen),
             "--results", str(env["results"]), "--no-mlflow"]
    rc, err = run_cli(score, capsys)
    assert rc == 1 and len(err) == 1, err
    assert "submit: --frozen: " in err[0] and all(w in err[0] for w in why), err
    assert not (env["results"] / "dippm.jsonl").exists()

    module, function = guard
    monkeypatch.setattr(module, function, lambda *a: [] if function.endswith("problems") else None)  # as it was
    rc, err = run_cli(score, capsys)
    assert rc == 0, err
    record = _record(env, name)
    honest = _predict(_refit(parts.train), parts.test)[keep]
    assert record["frozen_fit"]
    assert_verified_holding(record, honest, keys[keep], y[keep], labels, 1e-5)
    return (f"{len(labels)} labels; verified {record['per_seed'][0]['mape_pct']:.2f} % where the frozen state "
            f"earns {numpy_mape(y[keep], honest):.2f} %")


def test_package_data_changed_after_the_draw_does_not_reach_a_frozen_run(env, parts, capsys, git_commitments,
                                                                          monkeypatch):
    """Attack: the package, and a team's ridge frozen, committed before the draw; after it, a datasheet row
    whose link spells three hidden labels and the set's size; the keeper's frozen run is refused in one
    line. Control: with the check off the replay passes and the keeper signs a verified record scoring
    the three labels, better than the frozen state earns."""
    _, commit = git_commitments
    _, package, sub, frozen, y, keys, keep, labels = frozen_before_a_draw(env, parts, git_commitments, capsys,
                                                                          monkeypatch, "datasheet-86b", _reader)
    table = package / "features" / "llm_architectures.csv"
    _datasheet_row(table, labels)
    text = table.read_text()  # the hidden set's size in digits 33-34 of the link's commit id
    table.write_text(text.replace("5e1f0c2a/config.json", f"{int(keep.sum()):02x}1f0c2a/config.json"))
    commit("datasheet: Acme-LM-7B")

    print("86b:", refused_then_verified(
        env, parts, capsys, monkeypatch, sub, frozen, "datasheet-86b",
        ["frozen fits predict a hidden set only beside", "package data the sandbox stages is not as it was before the "
         "set was drawn", "features/llm_architectures.csv"], (submit_module, "_package_data_problems"),
        (y, keys, keep, labels)))
