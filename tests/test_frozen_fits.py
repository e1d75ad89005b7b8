"""Frozen fits through `perfgraphs submit` (leaderboard/RULES.md, "Frozen fits"): ``--freeze`` fits
each seed in the sandbox on the public training part and keeps its state with a manifest;
``--hidden-labels --frozen`` predicts a hidden set from those states without fitting, and only
from fits of this submission, this board and build, committed unchanged before the set's
commitment. Expected scores are recomputed here with numpy from the states and the labels."""

from __future__ import annotations

import hashlib
import json
import os
import shutil

import numpy as np
import pytest

from perfgraphs.data.load import static_features
from test_submit import (BOARD, commit_tiny_hidden_set, env, example_copy, numpy_mape, parts,  # noqa: F401 — fixtures
                         run_cli)

pytestmark = pytest.mark.skipif(os.geteuid() != 0, reason="a hidden board's runs drop the page cache: needs root")


def _ridge(folder, method="ridge-frozen"):
    """The example, whose load_state refuses to run where a training part is in reach: a frozen run
    gets none (the state is what scores, nothing is fitted again)."""
    hook = "    def load_state(self, state: dict[str, np.ndarray]) -> None:\n"

    def edit(source: str) -> str:
        assert hook in source
        return source.replace(hook, hook + (
            "        import os\n"
            "        assert not os.path.exists('/job/train.parquet'), 'a training part in a frozen run'\n"))

    return example_copy(folder, method, edit)


def _predict(state: dict, rows) -> np.ndarray:
    """The example's prediction, written here from its state's numbers."""
    z = (static_features(rows).astype(np.float64) - state["mean"]) / state["scale"]
    return np.exp(z @ state["coef"] + float(state["intercept"]))


@pytest.fixture
def frozen_round(env, parts, capsys, git_commitments, monkeypatch):
    """A submission frozen into the organisers' repository and committed, then a hidden set (the tiny
    test part) committed after it: (submission, frozen folder, commit, keeper, commitments)."""
    commitments, commit = git_commitments
    sub = _ridge(env["tmp"] / "ridge")
    frozen = commitments.parent / "frozen" / "ridge"
    rc, err = run_cli(["submit", str(sub), *BOARD, "--quick", "--freeze", str(frozen), "--results",
                       str(env["results"]), "--no-mlflow"], capsys)
    assert rc == 0, err
    assert not (env["results"] / "dippm.jsonl").exists()  # a freeze records nothing
    commit("frozen fits")
    keeper = env["tmp"] / "keeper"
    commit_tiny_hidden_set(keeper, parts, git_commitments, capsys, monkeypatch)
    return sub, frozen, commit, keeper, commitments


def _hidden(env, sub, frozen):
    return ["submit", str(sub), *BOARD, "--quick", "--hidden-labels", "--frozen", str(frozen),
            "--results", str(env["results"]), "--no-mlflow"]


def test_a_frozen_fit_scores_a_hidden_set_as_the_fitted_predictor_would(env, parts, capsys, frozen_round):
    sub, frozen, *_ = frozen_round
    manifest = json.loads((frozen / "manifest.json").read_text())
    assert [s["seed"] for s in manifest["seeds"]] == [0, 1, 2, 3, 4]
    assert manifest["isolation"].startswith("bubblewrap") and manifest["target"] == "latency_ms"
    # the states are the fitted ridge's: the public test part's MAPE recomputed from them
    states = {s["seed"]: dict(np.load(frozen / f"seed-{s['seed']}.npz", allow_pickle=False)) for s in manifest["seeds"]}
    y = np.asarray(parts.test["latency_ms"], dtype=float)
    for s in manifest["seeds"]:
        assert s["public"]["mape_pct"] == pytest.approx(numpy_mape(y, _predict(states[s["seed"]], parts.test)), rel=1e-9)
        assert s["fit"]["fit_seconds"] > 0
    rc, err = run_cli(_hidden(env, sub, frozen), capsys)
    assert rc == 0, err
    (record,) = [json.loads(line) for line in (env["results"] / "dippm.jsonl").read_text().splitlines()]
    assert record["test_set"] == "hidden" and record["tier"] == "verified"
    assert record["frozen_fit"] == hashlib.sha256((frozen / "manifest.json").read_bytes()).hexdigest()
    # the fit the record states is the frozen one and the hidden run's own load of the state (fifty-second pass);
    # its scores are the states' predictions of the hidden rows
    assert record["fit_seconds"] > np.mean([s["fit"]["fit_seconds"] for s in manifest["seeds"]])
    assert record["cores"] == manifest["seeds"][0]["fit"]["cores"]
    for s in record["per_seed"]:
        assert s["mape_pct"] == pytest.approx(numpy_mape(y, _predict(states[s["seed"]], parts.test)), rel=1e-9)


def test_frozen_fits_are_refused_when_they_do_not_belong_to_the_round(env, parts, capsys, frozen_round, monkeypatch):
    sub, frozen, commit, keeper, commitments = frozen_round
    args = _hidden(env, sub, frozen)
    # fits frozen after the set's commitment (the same fits, first committed after it; the control: the
    # first test, these fits committed before it)
    late = frozen.parent / "late"
    shutil.copytree(frozen, late)
    rc, err = run_cli(_hidden(env, sub, late), capsys)
    assert rc == 1 and len(err) == 1 and "not committed to git as it is now" in err[0], err
    commit("frozen late")
    rc, err = run_cli(_hidden(env, sub, late), capsys)
    assert rc == 1 and len(err) == 1 and "not before the set's commitment" in err[0], err
    # a state swapped after the freeze
    seed0 = frozen / "seed-0.npz"
    kept = seed0.read_bytes()
    np.savez(seed0, **{**dict(np.load(frozen / "seed-1.npz")), "coef": np.zeros(6)})
    rc, err = run_cli(args, capsys)
    assert rc == 1 and len(err) == 1 and "seed-0.npz is not the state the manifest names" in err[0], err
    seed0.write_bytes(kept)
    # another submission (one line of its predictor changed) under the same frozen fits
    changed = env["tmp"] / "changed"
    shutil.copytree(sub, changed)
    (changed / "predictor.py").write_text((sub / "predictor.py").read_text() + "\n# changed\n")
    rc, err = run_cli(_hidden(env, changed, frozen), capsys)
    assert rc == 1 and len(err) == 1 and "submission_sha256" in err[0], err
    # the manifest edited (and committed) after the round's commitment: not as first committed
    manifest = frozen / "manifest.json"
    doc = json.loads(manifest.read_text())
    doc["seeds"][0]["fit"]["fit_seconds"] = 0.001
    manifest.write_text(json.dumps(doc, indent=1, sort_keys=True) + "\n")
    rc, err = run_cli(args, capsys)
    assert rc == 1 and len(err) == 1 and "not committed to git as it is now" in err[0], err
    commit("faster fits")
    rc, err = run_cli(args, capsys)
    assert rc == 1 and len(err) == 1 and "not as it was first committed" in err[0], err
    assert not (env["results"] / "dippm.jsonl").exists()
    # --frozen on a public board, and --freeze into a folder of other fits: one line, before any run
    rc, err = run_cli(["submit", str(sub), *BOARD, "--quick", "--frozen", str(frozen), "--results",
                       str(env["results"])], capsys)
    assert rc == 1 and len(err) == 1 and "--frozen without --hidden-labels" in err[0], err
    rc, err = run_cli(["submit", str(sub), *BOARD, "--quick", "--freeze", str(frozen), "--results",
                       str(env["results"])], capsys)
    assert rc == 1 and len(err) == 1 and "not an empty folder" in err[0], err
    # a predictor without state(): the freeze stops at its first seed, in one line, and writes nothing
    plain = _ridge(env["tmp"] / "plain", "ridge-plain")
    (plain / "predictor.py").write_text((plain / "predictor.py").read_text().replace("def state(", "def _state("))
    rc, err = run_cli(["submit", str(plain), *BOARD, "--quick", "--freeze", str(env["tmp"] / "f"), "--results",
                       str(env["results"])], capsys)
    assert rc == 1 and len(err) == 1 and "has no method state" in err[0], err
    assert not (env["tmp"] / "f").exists() or not any((env["tmp"] / "f").iterdir())
    # a predictor that sends other bytes than numbers as its state (it replaced the writer the child calls): the
    # harness reads every state as a frozen run will before writing any, and refuses it in one line
    forged = _ridge(env["tmp"] / "forged", "ridge-forged")
    (forged / "predictor.py").write_text((forged / "predictor.py").read_text().replace(
        "    def state(self) -> dict[str, np.ndarray]:\n",
        "    def state(self) -> dict[str, np.ndarray]:\n"
        "        savez = np.savez\n"
        "        np.savez = lambda file, **arrays: savez(file, w=np.array([print], dtype=object))\n"))
    rc, err = run_cli(["submit", str(forged), *BOARD, "--quick", "--freeze", str(env["tmp"] / "g"), "--results",
                       str(env["results"])], capsys)
    assert rc == 1 and len(err) == 1 and "seed 0's state is not an .npz of numeric arrays" in err[0], err
    assert not (env["tmp"] / "g").exists()
    # control: without that read, the forged state is written as the seed's fit
    from perfgraphs.baselines import fitted_state

    monkeypatch.setattr(fitted_state, "from_bytes", lambda data, what="": {})
    rc, err = run_cli(["submit", str(forged), *BOARD, "--quick", "--freeze", str(env["tmp"] / "g"), "--results",
                       str(env["results"])], capsys)
    assert rc == 0, err
    with pytest.raises(ValueError, match="allow_pickle"):
        np.load(env["tmp"] / "g" / "seed-0.npz", allow_pickle=False)["w"]
