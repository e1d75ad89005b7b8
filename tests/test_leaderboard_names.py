"""Names compared as people read them (issue 32, item 3).

An adversary got through ``perfgraphs check`` under a reference baseline's name with look-alikes:
a Cyrillic ``ѕ``, a fullwidth ``ｓ``, ``static_xgboost``, ``static.xgboost``, ``static xgboost``,
``static-xgboost/v2``, and the reference authors spelled with a Cyrillic ``е``. Each is refused
now, by ``check_reserved`` and end to end by ``perfgraphs check``; each has a control: the old
comparison (lowercase, spaces collapsed, `` (…)`` stripped) lets it through. Honest names that merely
contain a reference name pass, and ``method``/``authors`` outside the character set are refused.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from perfgraphs.cli import main
from perfgraphs.leaderboard.records import check, names
from perfgraphs.leaderboard.records.boards import REFERENCE_AUTHORS
from perfgraphs.leaderboard.submission import SubmissionError, load_submission

REPO = Path(__file__).resolve().parents[1]
REFERENCE = REPO / "leaderboard" / "reference" / "static-xgboost"

# the look-alikes of the report, each of the reference name static-xgboost
LOOKALIKE_METHODS = {
    "cyrillic-dze": "static-xgboo\u0455t",          # ѕ CYRILLIC SMALL LETTER DZE
    "fullwidth-s": "static-xgboo\uff53t",           # ｓ FULLWIDTH LATIN SMALL LETTER S
    "underscore": "static_xgboost",
    "dot": "static.xgboost",
    "space": "static xgboost",
    "slash-version": "static-xgboost/v2",
    "space-version": "static-xgboost v2",
    "dash-version": "static-xgboost-v2",
    "glued-quick": "static-xgboost(quick)",
    "zero-for-o": "static-xgb00st",
    "cyrillic-capitals": "\u0405TATIC-XGBOOST",     # Ѕ CYRILLIC CAPITAL LETTER DZE
}
LOOKALIKE_AUTHORS = {
    "cyrillic-ie": "perfgraphs r\u0435ference baselines",   # е CYRILLIC SMALL LETTER IE
    "fullwidth": "perfgraphs \uff52eference baselines",
    "separators": "perfgraphs_reference-baselines",
    "zero-width": "perfgraphs refer\u200bence baselines",
}
HONEST = ["my-xgboost", "xgboost-static-variant", "static-xgboosted", "my static-xgboost", "example-ridge",
          "gnn+lm (v2)"]


def _old_normal(text: str) -> str:
    """The comparison these names got through: check.py's ``_normal`` before this issue."""
    return " ".join(str(text).casefold().split())


def _old_reserved(method: str, authors: str) -> bool:
    raw = check._reserved_spellings()
    taken = _old_normal(method.split(" (")[0]) in {_old_normal(n) for n in raw}
    by_reference = _old_normal(authors) == _old_normal(REFERENCE_AUTHORS) or "reference baseline" in _old_normal(authors)
    return taken or by_reference


def _folder(tmp_path: Path, name: str) -> Path:
    folder = tmp_path / name
    folder.mkdir()
    (folder / "predictor.py").write_text("class Predictor: pass\n")
    return folder


# -- canonical forms ------------------------------------------------------------------------------

@pytest.mark.parametrize("method", LOOKALIKE_METHODS.values(), ids=LOOKALIKE_METHODS.keys())
def test_each_lookalike_takes_the_reference_name(method):
    assert names.taken_name(method, {"static-xgboost", "trappm"}) == "static-xgboost"


def test_canonical_folds_case_width_confusables_and_separators():
    c = names.canonical
    assert c("static-xgboost") == c("STATIC_XGBOOST") == c("static.xgboost") == c(" static  xgboost ") \
        == c("static/xgboost") == c("ｓｔａｔｉｃ－ｘｇｂｏｏｓｔ") == c("static-xgboo\u0455t") == "static xgboost"
    assert c("perfgraphs r\u0435ference baselines") == c(REFERENCE_AUTHORS)
    for text in ["static-xgboost", "STATIC-XGBOOST", "Ω-\u0455", "straße", "a\u0301b", "m", ""]:
        assert c(c(text)) == c(text)  # a key: idempotent
    # the cased key: a capital I reads as l (case folding alone would make it an i)
    assert names.taken_name("Iayerwise-boost", {"layerwise-boost"}) == "layerwise-boost"
    # TR39's m -> rn
    assert names.taken_name("static-rnlp", {"static-mlp"}) == "static-mlp"


@pytest.mark.parametrize("method", HONEST)
def test_a_name_containing_a_reference_name_elsewhere_is_not_taken(method):
    assert names.taken_name(method, check.reserved_names()) is None


def test_reserved_names_are_canonical():
    reserved = check.reserved_names()
    assert "static xgboost" in reserved and names.canonical("dippm-sage") == "dipprn sage" in reserved
    assert all(names.canonical(n) == n for n in reserved)


# -- check_reserved -------------------------------------------------------------------------------

@pytest.mark.parametrize("method", LOOKALIKE_METHODS.values(), ids=LOOKALIKE_METHODS.keys())
def test_lookalike_methods_are_refused_and_the_old_compare_let_them_through(tmp_path, method):
    problems = check.check_reserved(method, "an impostor", _folder(tmp_path, "impostor"))
    assert len(problems) == 1 and "reserved for leaderboard/reference/" in problems[0], problems
    assert "'static-xgboost'" in problems[0] and "choose a method name" in problems[0]
    # control: the old comparison found no reserved name in it
    assert not _old_reserved(method, "an impostor")


@pytest.mark.parametrize("authors", LOOKALIKE_AUTHORS.values(), ids=LOOKALIKE_AUTHORS.keys())
def test_lookalike_reference_authors_are_refused_and_the_old_compare_let_them_through(tmp_path, authors):
    problems = check.check_reserved("my-method", authors, _folder(tmp_path, "impostor"))
    assert len(problems) == 1 and "read as the reference authors" in problems[0], problems
    assert not _old_reserved("my-method", authors)


def test_lookalike_authors_are_refused_even_from_the_pristine_reference():
    assert check.check_reserved("static-xgboost", REFERENCE_AUTHORS, REFERENCE) == []
    for authors in ["Perfgraphs Reference Baselines", "perfgraphs r\u0435ference baselines"]:
        problems = check.check_reserved("static-xgboost", authors, REFERENCE)
        assert len(problems) == 1 and "read as the reference authors" in problems[0], problems
    # the pristine reference keeps its own name only: not a look-alike of it
    assert check.check_reserved("static_xgboost", REFERENCE_AUTHORS, REFERENCE)


def test_a_copy_of_the_reference_under_a_lookalike_name_is_refused(tmp_path):
    shutil.copytree(REFERENCE, tmp_path / "static-xgbooѕt")
    problems = check.check_reserved("static-xgboo\u0455t", REFERENCE_AUTHORS, tmp_path / "static-xgbooѕt")
    assert len(problems) == 1 and "reserved for leaderboard/reference/" in problems[0]


@pytest.mark.parametrize("method", HONEST)
def test_honest_names_pass(tmp_path, method):
    assert check.check_reserved(method, "Jane Doe, ACME Lab", _folder(tmp_path, "ok")) == []


# -- reserved_taken (for records being read) --------------------------------------------------------

def test_reserved_taken_flags_records_under_lookalike_names_or_authors():
    ref = check.reserved_names()
    assert names.reserved_taken("static-xgboost", REFERENCE_AUTHORS, ref) is None
    assert names.reserved_taken("static-xgboost (quick)", REFERENCE_AUTHORS, ref) is None
    assert names.reserved_taken("my-xgboost", "Jane Doe", ref) is None
    for method in LOOKALIKE_METHODS.values():
        reason = names.reserved_taken(method, "an impostor", ref)
        assert reason and "\n" not in reason and "name 'static xgboost'" in reason, (method, reason)
    for authors in LOOKALIKE_AUTHORS.values():
        reason = names.reserved_taken("static-xgboost", authors, ref)
        assert reason and "imitate the reference authors" in reason
        assert names.reserved_taken("my-method", authors, ref)
    # raw names work as well as canonical ones
    assert names.reserved_taken("static_xgboost", "x", {"static-xgboost"})


# -- the character set ----------------------------------------------------------------------------

@pytest.mark.parametrize("field, text, fragment", [
    ("method", "static-xgboo\u0455t", "U+0455 CYRILLIC SMALL LETTER DZE"),
    ("method", "ｍｙ-method", "U+FF4D FULLWIDTH LATIN SMALL LETTER M"),
    ("method", "my\u200bmethod", "U+200B ZERO WIDTH SPACE"),
    ("method", "my\u202emethod", "U+202E RIGHT-TO-LEFT OVERRIDE"),
    ("method", "my:method", "':'"),
    ("method", "x" * 65, "at most 64"),
    ("authors", "perfgraphs r\u0435ference baselines", "U+0435 CYRILLIC SMALL LETTER IE"),
    ("authors", "José Müller", "U+00E9"),
    ("authors", "a" * 201, "at most 200"),
])
def test_charset_refusals(field, text, fragment):
    problems = names.check_charset(field, text)
    assert len(problems) == 1 and fragment in problems[0], problems
    assert problems[0].startswith(field) and ("use only ASCII letters" in problems[0] or "shorten it" in problems[0])


@pytest.mark.parametrize("field, text", [
    ("method", "gnn+lm (v2)"), ("method", "my_method/3.1"), ("method", "x" * 64),
    ("authors", "A. O'Brien & B. Smith, lab@example.org"), ("authors", "a" * 200),
])
def test_charset_accepts(field, text):
    assert names.check_charset(field, text) == []


def _yaml_folder(tmp_path: Path, method: str, authors) -> Path:
    import yaml

    folder = tmp_path / "sub"
    (folder / "predictions").mkdir(parents=True)
    meta = {"method": method, "authors": authors, "contact": "t@example.org",
            "code": {"url": "https://example.org/c", "commit": "ab" * 20}, "paper": None, "external_data": False,
            "division": "closed", "hyperparameters": {"grid": {}, "chosen": {}}, "predictions": "predictions",
            "dataset": {"name": "perfgraphs/dippm", "config": "cpu-torch-fp32", "target": "latency_ms",
                        "version": "0", "content_hash": "h"},
            "reported": {"mape_pct": {"mean": 0.0, "std": 0.0}}}
    (folder / "submission.yaml").write_text(yaml.safe_dump(meta, allow_unicode=True), encoding="utf-8")
    return folder


def test_submission_metadata_applies_the_charset(tmp_path):
    with pytest.raises(SubmissionError) as exc:
        load_submission(_yaml_folder(tmp_path / "a", "static-xgboo\u0455t", ["Jane Doe", "J\u043ehn"]))
    lines = exc.value.problems
    assert len(lines) == 2 and all(line.startswith("submission.yaml: ") for line in lines), lines
    assert "method 'static-xgbooѕt'" in lines[0] and "authors 'Jane Doe, Jоhn'" in lines[1]
    assert load_submission(_yaml_folder(tmp_path / "b", "my-method", ["Jane Doe", "John O'Neil"])).meta.authors \
        == "Jane Doe, John O'Neil"


# -- end to end through `perfgraphs check` -----------------------------------------------------------

from test_leaderboard_trust import env, parts  # noqa: E402,F401 — the same fixtures


def _predictions(folder: Path, parts, method: str, authors: str) -> Path:
    import yaml

    (folder / "predictions").mkdir(parents=True)
    ids = list(parts.test["sample_id"])
    median = float(np.median(parts.train["latency_ms"]))
    y = np.asarray(parts.test["latency_ms"], dtype=float)
    mape = round(float(np.mean(np.abs(median - y) / y) * 100), 2)  # the honest control's own score
    for seed in range(5):
        pq.write_table(pa.table({"sample_id": ids, "target": ["latency_ms"] * len(ids),
                                 "value": pa.array([median] * len(ids), pa.float64())}),
                       folder / "predictions" / f"seed-{seed}.parquet")
    meta = {"method": method, "authors": authors, "contact": "t@example.org",
            "code": {"url": "https://example.org/c", "commit": "ab" * 20}, "paper": None, "external_data": False,
            "division": "closed", "hyperparameters": {"grid": {}, "chosen": {}}, "predictions": "predictions",
            "dataset": {"name": "perfgraphs/dippm", "config": "cpu-torch-fp32", "target": "latency_ms",
                        "version": parts.version, "content_hash": parts.content_hash},
            "reported": {"mape_pct": {"mean": mape, "std": 0.0}}}
    (folder / "submission.yaml").write_text(yaml.safe_dump(meta, allow_unicode=True), encoding="utf-8")
    return folder


def _check(folder: Path, env, capsys) -> tuple[int, list[str]]:
    rc = main(["check", str(folder), "--results", str(env["results"])])
    return rc, [line for line in capsys.readouterr().err.splitlines() if line.strip()]


ALL_LOOKALIKES = [(m, "test author") for m in LOOKALIKE_METHODS.values()] \
    + [("my-method", a) for a in LOOKALIKE_AUTHORS.values()]


def test_perfgraphs_check_refuses_every_lookalike_in_one_line(env, parts, capsys):
    for i, (method, authors) in enumerate(ALL_LOOKALIKES):
        rc, err = _check(_predictions(env["tmp"] / f"impostor-{i}", parts, method, authors), env, capsys)
        assert rc == 1 and len(err) == 1, (method, authors, err)
        ascii_only = (method + authors).isascii()
        expected = "reserved for leaderboard/reference/" if ascii_only else "outside the allowed set"
        assert err[0].startswith("perfgraphs check: ") and expected in err[0], (method, authors, err)
    # control: an honest name goes through the same command
    rc, err = _check(_predictions(env["tmp"] / "honest", parts, "my-xgboost", "test author"), env, capsys)
    assert rc == 0 and not [line for line in err if "warning" not in line], err
