"""Issue 25 item 6: a misspelt plan key is refused (it used to be replaced by its default, silently),
and a suite that is not a plain folder name is refused (``suite: ..`` wrote into ``data/``)."""

from __future__ import annotations

import copy

import pytest
import yaml

from perfgraphs.cli import main
from perfgraphs.collect.errors import PlanError
from perfgraphs.collect.plan import parse_plan

BASE = {"suite": "t", "protocol": "tiny", "platforms": ["cpu-torch-fp32"],
        "groups": [{"family": "r", "models": ["timm:resnet10t", {"name": "timm:resnet18", "batch_sizes": [2]}],
                    "input_sizes": [32]}]}


def _top(key):
    return lambda p: p.update({key: p.pop(key.replace("protocl", "protocol").replace("platfroms", "platforms"))})


@pytest.mark.parametrize("mutate, typo, meant", [
    (_top("protocl"), "protocl", "protocol"),
    (_top("platfroms"), "platfroms", "platforms"),
    (lambda p: p["groups"][0].update(modles=p["groups"][0].pop("models")), "modles", "models"),
    (lambda p: p["groups"][0].update(batch_size=[4]), "batch_size", "batch_sizes"),
    (lambda p: p["groups"][0]["models"][1].update(batch_size=4), "batch_size", "batch_sizes"),
    (lambda p: p.update(protocol={"name": "x", "warmup_runs": 1, "timed_run": 3}), "timed_run", "timed_runs"),
])
def test_misspelt_key_is_named_with_the_closest_valid_one(mutate, typo, meant):
    data = copy.deepcopy(BASE)
    parse_plan(data, "ok")  # the unchanged plan parses
    mutate(data)
    with pytest.raises(PlanError) as err:
        parse_plan(data, "bad")
    assert f"unknown key '{typo}'" in str(err.value) and f"did you mean '{meant}'" in str(err.value)


@pytest.mark.parametrize("suite", ["..", ".", "../x", "/tmp/x", "a\\b", ".hidden", ""])
def test_suite_that_is_not_a_folder_name_is_refused(tmp_path, capsys, suite):
    plan = tmp_path / "plan.yaml"
    plan.write_text(yaml.safe_dump({**BASE, "suite": suite or None}))
    if suite == "":  # no suite: the plan's file name, a valid one
        assert main(["collect", str(plan), "--dry-run"]) == 0
        return
    assert main(["collect", str(plan), "--dry-run"]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "suite must be a plain folder name" in err, err
