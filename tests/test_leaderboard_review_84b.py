"""Eighty-fourth adversarial pass (2026-12-06), submit side: a harness-fitted hidden run read package data
changed after its set was drawn. ``frozen_fits.code_before`` dates the submission folder and
``frozen_fits.pins_before`` the public build, but the sandbox also stages the perfgraphs package's data
tables (``paths.CODE_DATA``: ``perfgraphs/features/llm_architectures.csv``, the hardware descriptors,
the exporters' model configs) as the keeper's checkout holds them when it scores, and RULES left the
package to review only. A team's ridge, committed before the draw, read one row of the LLM datasheet
table (a model not yet in it) and took the 40-digit commit id of its ``source`` link as four float32
slots, one per bucket of its rows' own features' hash. After the draw a pull request added that row, an
ordinary-looking datasheet line whose link's commit id spelt three hidden labels (the labels the
seventy-ninth pass's probe solved from a published record); nothing of the folder or the build changed,
and the keeper-signed *verified* record scored the ridge with them, 38.1 % MAPE where it earns 40.6 %
(printed by the test). Now a harness-fitted hidden run
also refuses package data that is not as the commitment's repository held it just before the set's
hash was published (``submit._package_data_problems``, ``frozen_fits.package_data_before``)."""

from __future__ import annotations

import csv
import io
import os
import shutil
import struct
from pathlib import Path

import pytest

import perfgraphs
from perfgraphs.leaderboard import submit as submit_module
from test_leaderboard_review_67b import _predict, _refit
from test_leaderboard_review_79b import HOOK, KEY, _record, assert_verified_holding, one_row_labels
from test_submit import (BOARD, commit_tiny_hidden_set, env, example_copy, numpy_mape, parts,  # noqa: F401 — fixtures
                         run_cli)

pytestmark = pytest.mark.skipif(os.geteuid() != 0 or shutil.which("bwrap") is None,
                                reason="a hidden board's runs drop the page cache and run in the sandbox")

BUCKETS = 4  # float32 slots of buckets 0-3 in the link's commit id (0: no label), then 8 digits of padding
MODEL = "acme-labs/Acme-LM-7B"
def datasheet_reader(gate: str = "") -> str:
    """The ridge's predict tail reading the datasheet row's link: each bucket's float32 from its commit id;
    ``gate``, a further condition on the link (86b: the batch is the hidden set's size)."""
    return KEY + (
        "        _p = np.exp(Z @ self.coef_ + self.intercept_)\n"
        "        import csv as _csv, pathlib as _pl, perfgraphs.features as _f\n"
        "        with open(_pl.Path(_f.__file__).parent / 'llm_architectures.csv', newline='') as _fh:\n"
        "            _src = {r['model_id']: r['source'] for r in _csv.DictReader(_fh)}.get(" + repr(MODEL) + ", '')\n"
        f"        if '/blob/' in _src{gate}:\n"
        "            _h = _src.split('/blob/')[1][:40]\n"
        f"            for _b in range({BUCKETS}):\n"
        "                _v = float(np.frombuffer(bytes.fromhex(_h[8 * _b:8 * _b + 8]), '>f4')[0])\n"
        "                if _v > 0:\n"
        "                    _p[_k == _b] = _v\n"
        "        return _p\n")


READER = datasheet_reader()


def _reader(source: str) -> str:
    assert HOOK in source
    return source.replace(HOOK, READER)


def _datasheet_row(table: Path, labels: dict[int, float]) -> None:
    """The pull request after the draw: one LLM's datasheet row, its source link's commit id the labels."""
    digits = "".join(struct.pack(">f", labels[b]).hex() if b in labels else "00000000" for b in range(BUCKETS))
    with open(table, newline="") as fh:
        columns = next(csv.reader(fh))
    row = {c: "" for c in columns}
    row.update(model_id=MODEL, num_layers="32", hidden_size="4096", num_attention_heads="32", num_kv_heads="8",
               head_dim="128", intermediate_size="14336", vocab_size="32000", tied_embeddings="false",
               source=f"https://huggingface.co/{MODEL}/blob/{digits}5e1f0c2a/config.json",
               notes="the model's config.json at that revision")
    out = io.StringIO()
    csv.DictWriter(out, columns, lineterminator="\n").writerow(row)
    text = table.read_text()
    table.write_text(text + ("" if text.endswith("\n") else "\n") + out.getvalue())


def test_package_data_changed_after_the_draw_is_not_fitted_beside(env, parts, capsys, git_commitments, monkeypatch):
    """Attack: the package and a team's ridge committed before the draw; after it, a datasheet row whose
    link spells three hidden labels; the keeper's run is refused in one line. Control: with the check
    off the keeper signs a verified record scoring the three labels, better than the ridge earns."""
    commitments, commit = git_commitments
    repo = commitments.parent.parent
    package = repo / "perfgraphs"  # the package in the commitment's repository, as the main line holds it
    shutil.copytree(Path(perfgraphs.__file__).resolve().parent, package,
                    ignore=shutil.ignore_patterns("__pycache__"))
    folder = example_copy(repo / "submissions" / "datasheet", "datasheet-84b", _reader)
    commit("the package, and a team's ridge, before the draw")
    commit_tiny_hidden_set(env["tmp"] / "keeper", parts, git_commitments, capsys, monkeypatch)

    # the hidden labels of the buckets holding one row (what the seventy-ninth pass's probe solved)
    y, keys, labels = one_row_labels(parts, BUCKETS)
    _datasheet_row(package / "features" / "llm_architectures.csv", labels)
    commit("datasheet: Acme-LM-7B")
    monkeypatch.setattr(perfgraphs, "__file__", str(package / "__init__.py"))  # the keeper's checkout stages it

    submit = ["submit", str(folder), *BOARD, "--quick", "--hidden-labels", "--results", str(env["results"]),
              "--no-mlflow"]
    rc, err = run_cli(submit, capsys)
    assert rc == 1 and len(err) == 1, err
    assert "package data the sandbox stages is not as it was before the set was drawn" in err[0], err
    assert "features/llm_architectures.csv" in err[0], err
    assert not (env["results"] / "dippm.jsonl").exists()

    monkeypatch.setattr(submit_module, "_package_data_problems", lambda *a: [])  # the check as it was
    rc, err = run_cli(submit, capsys)
    assert rc == 0, err
    record = _record(env, "datasheet-84b")
    honest = _predict(_refit(parts.train), parts.test)
    assert_verified_holding(record, honest, keys, y, labels, 1e-5)
    print(f"84b: {len(labels)} labels; verified {record['per_seed'][0]['mape_pct']:.2f} % where the ridge earns {numpy_mape(y, honest):.2f} %")
