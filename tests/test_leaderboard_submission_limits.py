"""Issue 32, item 6: every bad submission.yaml is one line.

Each attack goes through the real ``perfgraphs check`` / ``perfgraphs submit`` CLI (or, for stored
records, ``perfgraphs leaderboard show``) and must end with a non-zero exit and exactly one line
that names the problem — never a traceback or an "internal error". Each has a control: the same
attack with the guard switched off (or the lower-level call it protects made directly) does the
damage the adversary reported: a RecursionError or ValueError from PyYAML or int(), a read of
files outside the submission folder, a NaN timing shown and ranked.
"""

from __future__ import annotations

import json
import math
from dataclasses import asdict
from pathlib import Path

import pytest
import yaml

from perfgraphs.cli import main
from perfgraphs.leaderboard.records import record_check
from perfgraphs.leaderboard import submission
from perfgraphs.leaderboard.records.results import Entry, results_path
from test_submit import env, metadata, parts, predictions_submission  # noqa: F401 — env, parts: fixtures

REPO = Path(__file__).resolve().parents[1]
EXAMPLE = REPO / "leaderboard" / "examples" / "ridge"
BOARD = ["--dataset", "dippm", "--config", "cpu-torch-fp32", "--target", "latency_ms"]
PREDICTOR = "class Predictor:\n    def __init__(self, target, seed=0, quick=False):\n        pass\n"




def run_cli(args: list[str], capsys) -> tuple[int, list[str], str]:
    rc = main(args)
    captured = capsys.readouterr()
    return rc, [line for line in captured.err.splitlines() if line.strip()], captured.out


def assert_one_line(rc: int, err: list[str], command: str, *expected: str) -> None:
    assert rc != 0, err
    assert len(err) == 1, err
    assert err[0].startswith(f"perfgraphs {command}: "), err
    assert "Traceback" not in err[0] and "internal error" not in err[0], err
    for text in expected:
        assert text in err[0], err


def yaml_folder(folder: Path, text: str) -> Path:
    """A code submission whose submission.yaml is ``text`` as given."""
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "predictor.py").write_text(PREDICTOR)
    (folder / "submission.yaml").write_text(text)
    return folder


def valid_yaml(method: str = "limits") -> str:
    return yaml.safe_dump(metadata(method, entry_point="predictor:Predictor"))


def check(folder: Path, tmp_path: Path, capsys, command: str = "check") -> tuple[int, list[str], str]:
    extra = ["--no-mlflow"] if command == "submit" else []
    return run_cli([command, str(folder), *BOARD, "--results", str(tmp_path / "results"), *extra], capsys)


class _AliasOnlyLoader(yaml.SafeLoader):
    """The loader before this fix: aliases refused, nothing else limited."""

    def compose_node(self, parent, index):
        if self.check_event(yaml.AliasEvent):
            raise yaml.YAMLError("aliases are not allowed")
        return super().compose_node(parent, index)


def bypass_yaml_guards(monkeypatch) -> None:
    monkeypatch.setattr(submission, "_NoAliasLoader", _AliasOnlyLoader)
    monkeypatch.setattr(submission, "MAX_YAML_BYTES", 16 * 1024 * 1024)


# -- depth, size and number limits, checked before PyYAML builds any object --------------------

@pytest.mark.parametrize("command", ["check", "submit"])
def test_the_reported_50000_deep_document_is_one_line(tmp_path, capsys, monkeypatch, command):
    text = "method: " + "[" * 50_000 + "]" * 50_000 + "\n"
    folder = yaml_folder(tmp_path / "deep", text)
    rc, err, _ = check(folder, tmp_path, capsys, command)
    assert_one_line(rc, err, command, "submission.yaml", f"at most {submission.MAX_YAML_BYTES // 1024} KiB")
    assert not (tmp_path / "results").exists()
    # control: PyYAML itself recurses on it, and with the guards off the CLI says "internal error"
    with pytest.raises(RecursionError):
        yaml.safe_load(text)
    bypass_yaml_guards(monkeypatch)
    rc, err, _ = check(folder, tmp_path, capsys, command)
    assert rc != 0 and any("internal error: RecursionError" in line for line in err), err


@pytest.mark.parametrize("flow", [True, False])
def test_nesting_deeper_than_the_limit_within_the_size_limit_is_one_line(tmp_path, capsys, monkeypatch, flow):
    if flow:  # 30,000 levels in 60 kB: under the size limit, far over the depth limit
        deep = "description: " + "[" * 30_000 + "]" * 30_000 + "\n"
    else:  # block style: 40 levels of indentation
        deep = "description:\n" + "".join(" " * (i + 1) + f"k{i}:\n" for i in range(40)) + " " * 41 + "x\n"
    text = valid_yaml() + deep
    assert len(text.encode()) <= submission.MAX_YAML_BYTES
    folder = yaml_folder(tmp_path / "deep", text)
    rc, err, _ = check(folder, tmp_path, capsys)
    assert_one_line(rc, err, "check", f"nested more than {submission.MAX_YAML_DEPTH} levels deep", "line ")
    if flow:  # control: the same document crashes the composer without the guard
        with pytest.raises(RecursionError):
            yaml.safe_load(text)
        bypass_yaml_guards(monkeypatch)
        rc, err, _ = check(folder, tmp_path, capsys)
        assert rc != 0 and any("internal error: RecursionError" in line for line in err), err
    else:  # control: valid YAML, refused for its depth alone
        assert isinstance(yaml.safe_load(text)["description"], dict)


def test_the_reported_5000_digit_integer_is_one_line(tmp_path, capsys, monkeypatch):
    text = valid_yaml() + "description: " + "9" * 5000 + "\n"
    folder = yaml_folder(tmp_path / "bigint", text)
    rc, err, _ = check(folder, tmp_path, capsys)
    assert_one_line(rc, err, "check", "a number of 5000 characters", f"at most {submission.MAX_YAML_NUMBER_CHARS}")
    # control: Python's int-string conversion limit, and the CLI's internal error without the guard
    with pytest.raises(ValueError):
        int("9" * 5000)
    bypass_yaml_guards(monkeypatch)
    rc, err, _ = check(folder, tmp_path, capsys)
    assert rc != 0 and any("internal error: ValueError" in line for line in err), err


@pytest.mark.parametrize("literal", ["0x" + "f" * 200, "9" * 200, "1" + ":0" * 2500, "!!int '" + "9" * 200 + "'",
                                     "1." + "0" * 200])
def test_every_spelling_of_a_long_number_is_one_line(tmp_path, capsys, literal):
    """Hex, decimal, base 60 (YAML 1.1: ``1:0:0`` is an int), an explicit ``!!int`` tag, a float:
    each is refused by its length, whatever value it would have."""
    folder = yaml_folder(tmp_path / "number", valid_yaml() + f"description: {literal}\n")
    rc, err, _ = check(folder, tmp_path, capsys)
    assert_one_line(rc, err, "check", "a number of", f"at most {submission.MAX_YAML_NUMBER_CHARS}")


def test_a_base_60_integer_would_break_str_after_loading(tmp_path):
    """Control for the base-60 spelling: 5,000 characters load as one int that str() (and so every
    message and record naming it) refuses."""
    value = yaml.safe_load("a: 1" + ":0" * 2500)["a"]
    assert isinstance(value, int)
    with pytest.raises(ValueError):
        str(value)


def test_too_many_values_and_too_long_a_value_are_one_line(tmp_path, capsys):
    many = valid_yaml() + "description: [" + ",".join(["0"] * (submission.MAX_YAML_NODES + 10)) + "]\n"
    assert yaml.safe_load(many)  # control: valid YAML, refused for its size alone
    rc, err, _ = check(yaml_folder(tmp_path / "many", many), tmp_path, capsys)
    assert_one_line(rc, err, "check", f"more than {submission.MAX_YAML_NODES} keys and values")
    long = valid_yaml() + "description: " + "x" * (submission.MAX_YAML_SCALAR_CHARS + 1) + "\n"
    rc, err, _ = check(yaml_folder(tmp_path / "long", long), tmp_path, capsys)
    assert_one_line(rc, err, "check", f"a value of {submission.MAX_YAML_SCALAR_CHARS + 1} characters")
    big = valid_yaml() + "description: '" + "x" * (submission.MAX_YAML_BYTES + 1) + "'\n"
    rc, err, _ = check(yaml_folder(tmp_path / "big", big), tmp_path, capsys)
    assert_one_line(rc, err, "check", f"at most {submission.MAX_YAML_BYTES // 1024} KiB")


@pytest.mark.parametrize("key, reads_as", [("1", "int"), ("yes", "bool"), ("null", "null"), ("2024-01-01", "timestamp")])
def test_a_key_that_is_not_text_is_one_line(tmp_path, capsys, monkeypatch, key, reads_as):
    text = valid_yaml() + f"{key}: surprise\n"
    folder = yaml_folder(tmp_path / "key", text)
    rc, err, _ = check(folder, tmp_path, capsys)
    assert_one_line(rc, err, "check", f"the key '{key}'", f"reads as {reads_as}, not text")
    # control: without the guard the unknown-field message sorts and joins an int/bool/None/date
    bypass_yaml_guards(monkeypatch)
    rc, err, _ = check(folder, tmp_path, capsys)
    assert rc != 0 and any("internal error: TypeError" in line for line in err), err


def test_a_complex_key_is_one_line(tmp_path, capsys):
    rc, err, _ = check(yaml_folder(tmp_path / "key", valid_yaml() + "? [a, b]\n: c\n"), tmp_path, capsys)
    assert_one_line(rc, err, "check", "used as a key")


@pytest.mark.parametrize("value, expected", [("2020-13-45", "timestamp"), ("!!int abc", "int"),
                                             ("!!float abc", "float")])
def test_a_value_pyyaml_cannot_convert_is_one_line(tmp_path, capsys, monkeypatch, value, expected):
    text = valid_yaml().replace("paper: null", f"paper: {value}")
    assert f"paper: {value}" in text
    folder = yaml_folder(tmp_path / "value", text)
    rc, err, _ = check(folder, tmp_path, capsys)
    assert_one_line(rc, err, "check", f"is not a valid {expected}", "line ")
    with pytest.raises(ValueError):  # control: PyYAML's own loader raises a bare ValueError
        yaml.safe_load(text)
    bypass_yaml_guards(monkeypatch)
    rc, err, _ = check(folder, tmp_path, capsys)
    assert rc != 0 and any("internal error: ValueError" in line for line in err), err


def test_a_reader_error_is_one_line_not_two(tmp_path, capsys):
    text = valid_yaml() + "description: a\x00b\n"
    with pytest.raises(yaml.YAMLError) as raised:  # control: PyYAML's message spans two lines
        yaml.safe_load(text)
    assert "\n" in str(raised.value).strip()
    rc, err, _ = check(yaml_folder(tmp_path / "nul", text), tmp_path, capsys)
    assert_one_line(rc, err, "check", "not valid YAML", "#x0000")


def test_the_limits_leave_room_for_real_metadata(tmp_path):
    """At the limits, not over them: 32 levels (the document itself is one), a value of the
    longest length, a number of the longest length, and text keys. (The longest value is the
    contact's: a paper or code.url is shown in the record, which holds 300 characters of them,
    refused before anything runs since the twenty-seventh pass.)"""
    nested = "[" * (submission.MAX_YAML_DEPTH - 1) + "]" * (submission.MAX_YAML_DEPTH - 1)
    longest = {**yaml.safe_load(valid_yaml()), "contact": "x" * submission.MAX_YAML_SCALAR_CHARS}
    text = yaml.safe_dump(longest) + f"description: {nested}\n"
    text = text.replace("grid: {}", "grid: {alpha: [" + "1" * submission.MAX_YAML_NUMBER_CHARS + "]}").replace(
        "chosen: {}", "chosen: {alpha: " + "1" * submission.MAX_YAML_NUMBER_CHARS + "}")
    sub = submission.load_submission(yaml_folder(tmp_path / "edge", text))
    assert sub.meta.hyperparameters.chosen == {"alpha": int("1" * submission.MAX_YAML_NUMBER_CHARS)}
    assert len(sub.meta.contact) == submission.MAX_YAML_SCALAR_CHARS


# -- the predictions folder stays inside the submission -------------------------------------------

def _attacker(env, parts, predictions) -> tuple[Path, Path]:
    """A valid predictions-file submission ("victim", its files in victim/predictions) and a copy
    of its submission.yaml in attacker/sub whose ``predictions`` is ``predictions(victim, sub)``."""
    victim = predictions_submission(env["tmp"] / "victim", parts, method="outside")
    sub = env["tmp"] / "attacker" / "sub"
    sub.mkdir(parents=True)
    meta = yaml.safe_load((victim / "submission.yaml").read_text())
    meta["predictions"] = predictions(victim, sub)
    (sub / "submission.yaml").write_text(yaml.safe_dump(meta))
    return victim, sub


def _absolute(victim: Path, sub: Path) -> str:
    return str(victim / "predictions")


def _dotdot(victim: Path, sub: Path) -> str:
    return "../../victim/predictions"


def _symlink(victim: Path, sub: Path) -> str:
    (sub / "preds").symlink_to(victim / "predictions", target_is_directory=True)
    return "preds"


@pytest.mark.parametrize("how, expected", [(_absolute, "is an absolute path"), (_dotdot, "resolves outside"),
                                           (_symlink, "resolves outside")])
def test_a_predictions_folder_outside_the_submission_is_refused_unread(env, parts, capsys, monkeypatch, how,
                                                                       expected):
    victim, sub = _attacker(env, parts, how)
    predictions = yaml.safe_load((sub / "submission.yaml").read_text())["predictions"]
    read: list[Path] = []
    original = submission.read_regular

    def spy(path, *args, **kwargs):
        read.append(Path(path))
        return original(path, *args, **kwargs)

    monkeypatch.setattr(submission, "read_regular", spy)
    for command in ("check", "submit"):
        rc, err, _ = check(sub, env["tmp"], capsys, command)
        assert_one_line(rc, err, command, f"predictions {predictions!r}", expected)
    assert read == [sub / "submission.yaml"] * 2  # nothing else was opened
    assert not env["results"].exists()
    # control: the path really leads outside, and without the guard its files are read and scored
    assert not (sub / predictions).resolve().is_relative_to(sub.resolve())

    def old_check(root, value, problems):
        if not (root / str(value)).is_dir():
            problems.append("predictions folder not found")

    monkeypatch.setattr(submission, "_check_predictions_folder", old_check)
    rc, err, _ = check(sub, env["tmp"], capsys)
    assert rc == 0, err
    outside = [p for p in read if p.name.startswith("seed-")]
    assert len(outside) == 5 and all(p.resolve().is_relative_to(victim.resolve()) for p in outside), read


def test_the_reported_etc_path_is_refused(env, tmp_path, capsys):
    folder = yaml_folder(tmp_path / "etc", "")
    up = "../" * len(folder.resolve().parts) + "etc"
    assert (folder / up).resolve() == Path("/etc")  # control: it names the host's /etc
    meta = metadata("etc", predictions=up, dataset={"name": "perfgraphs/dippm", "config": "cpu-torch-fp32",
                                                    "target": "latency_ms", "version": "0", "content_hash": "0"},
                    reported={"mape_pct": {"mean": 1.0, "std": 0.0}})
    (folder / "submission.yaml").write_text(yaml.safe_dump(meta))
    rc, err, _ = check(folder, tmp_path, capsys)
    assert_one_line(rc, err, "check", "resolves outside the submission folder")
    meta["predictions"] = "/etc"
    (folder / "submission.yaml").write_text(yaml.safe_dump(meta))
    rc, err, _ = check(folder, tmp_path, capsys)
    assert_one_line(rc, err, "check", "is an absolute path")
    meta["predictions"] = 2024
    (folder / "submission.yaml").write_text(yaml.safe_dump(meta))
    rc, err, _ = check(folder, tmp_path, capsys)
    assert_one_line(rc, err, "check", "must be a folder name as text")


# -- valid submissions still pass ------------------------------------------------------------------

def test_the_example_still_passes(env, capsys):
    rc, err, out = run_cli(["check", str(EXAMPLE), *BOARD, "--quick", "--seeds", "0", "--results",
                            str(env["results"])], capsys)
    assert rc == 0, err
    assert "passes every check" in out


@pytest.mark.parametrize("predictions", ["predictions", "./predictions", "predictions/../predictions"])
def test_a_valid_predictions_submission_still_passes(env, parts, capsys, predictions):
    folder = predictions_submission(env["tmp"] / "ok", parts, method="inside", predictions=predictions)
    rc, err, out = run_cli(["check", str(folder), "--results", str(env["results"])], capsys)
    assert rc == 0, err
    assert "passes every check" in out


# -- per-seed timings ---------------------------------------------------------------------------

def test_predictions_files_carry_no_timings_into_the_record(env, parts, capsys):
    """The predictions route reads sample_id, target and value only: a NaN fit_seconds,
    peak_memory_mb or predictions_per_second column in the files never reaches the record, whose
    timings are null (not measured)."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    folder = predictions_submission(env["tmp"] / "timed", parts, method="timed")
    for path in sorted((folder / "predictions").glob("seed-*.parquet")):
        table = pq.read_table(path)
        for column in ("fit_seconds", "peak_memory_mb", "predictions_per_second"):
            table = table.append_column(column, pa.array([math.nan] * table.num_rows))
        pq.write_table(table, path)
    rc, err, _ = run_cli(["submit", str(folder), "--results", str(env["results"]), "--no-mlflow"], capsys)
    assert rc == 0, err
    record = json.loads(results_path("dippm", env["results"]).read_text())
    assert record["fit_seconds"] is None and record["predictions_per_second"] is None
    assert record["peak_memory_mb"] is None
    assert not any(k in s for s in record["per_seed"] for k in record_check.SEED_MEASUREMENTS)


def _timed_record(method: str, field: str, value) -> dict:
    per_seed = [{"seed": i, "n": 10, "mape_pct": 20.0 + i / 10, "rmse": 1.0, "acc_10_pct": 30.0, "kendall_tau": 0.8,
                 "fit_seconds": 1.0, "predictions_per_second": 100.0, "peak_memory_mb": 50.0,
                 "fit_cpu_seconds": 1.0, "predict_cpu_seconds": 0.1, "cores": 1} for i in range(5)]
    per_seed[2][field] = value
    return asdict(Entry(method=method, authors="test author", dataset="perfgraphs/dippm", dataset_version="0.1.0",
                        dataset_content_hash="h",
                        config="cpu-torch-fp32", target="latency_ms", tier="reproduced", division="closed",
                        code_commit="c0ffee", per_seed=per_seed, fit_seconds=1.0, predictions_per_second=100.0,
                        num_params=None, hardware="cpu", run_identity=method, peak_memory_mb=50.0))


@pytest.mark.parametrize("field", ["fit_seconds", "peak_memory_mb", "predictions_per_second", "fit_cpu_seconds"])
@pytest.mark.parametrize("value", [math.nan, math.inf, -1.0])
def test_a_non_finite_or_negative_seed_timing_is_never_shown_or_ranked(tmp_path, capsys, monkeypatch, field, value):
    results = tmp_path / "results"
    results.mkdir()
    path = results_path("dippm", results)
    honest = _timed_record("honest", "fit_seconds", 1.0)
    path.write_text(json.dumps(honest) + "\n" + json.dumps(_timed_record("forged", field, value)) + "\n")
    rc, err, out = run_cli(["leaderboard", "show", "--results", str(results)], capsys)
    assert rc == 0 and "honest" in out and "forged" not in out, (out, err)
    lines = [line for line in err if "forged" in line or f"{path}:2" in line]
    assert len(lines) == 1 and f"seed 2: {field} = {value!r}" in lines[0], err
    assert not any("Traceback" in line or "internal error" in line for line in err), err
    # the writer's guard is the same function: such a record is never appended either
    assert record_check.record_problem(_timed_record("forged", field, value), frozenset(honest)) is not None
    # control: with the per-seed check off, the forged record is shown and ranked
    monkeypatch.setattr(record_check, "SEED_MEASUREMENTS", ())
    rc, err, out = run_cli(["leaderboard", "show", "--results", str(results)], capsys)
    assert rc == 0 and "forged" in out, (out, err)
