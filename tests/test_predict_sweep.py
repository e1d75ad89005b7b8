"""Batch sweep and side-by-side comparison of `perfgraphs predict` (issue 33, item 5): the CLI table,
its JSON, the HTML report and the web form, each checked against the single-call API
(`perfgraphs.predict` of each (model, batch)), the independent ground truth; bad sweeps are one
line, refused before any export."""

from __future__ import annotations

import json
import os
import re
from html.parser import HTMLParser
from pathlib import Path

import pytest

import perfgraphs
from perfgraphs.errors import InvalidInputSpecError
from perfgraphs.predict import Comparison, predict_many

# small models (a few seconds to export; the module's graph cache keeps each export for every test)
SOURCES = ("timm:resnet18", "timm:mobilenetv3_small_100")
BATCHES = (1, 2)
COLUMNS = [(s, b) for s in SOURCES for b in BATCHES]
SWEEP_ARGS = ["predict", SOURCES[0], "--batch", ",".join(map(str, BATCHES)), "--compare", SOURCES[1]]


@pytest.fixture(scope="module", autouse=True)
def own_cache(tmp_path_factory):
    """A graph cache of this module's own (as test_predict.py keeps one): exports kept apart from the user's."""
    old = os.environ.get("PERFGRAPHS_HOME")
    os.environ["PERFGRAPHS_HOME"] = str(tmp_path_factory.mktemp("home"))
    yield Path(os.environ["PERFGRAPHS_HOME"])
    if old is None:
        os.environ.pop("PERFGRAPHS_HOME", None)
    else:
        os.environ["PERFGRAPHS_HOME"] = old


@pytest.fixture(scope="module")
def singles(own_cache) -> dict:
    """The ground truth: one `perfgraphs.predict` call per (model, batch)."""
    return {(s, b): perfgraphs.predict(s, batch=b, platform="cpu-torch-fp32") for s, b in COLUMNS}


def _cli(args, capsys, monkeypatch) -> tuple[int, str, str]:
    from perfgraphs.cli import main

    monkeypatch.delenv("COLUMNS", raising=False)  # captured output: the table's own width, no wrapping
    rc = main(args)
    out = capsys.readouterr()
    return rc, out.out, out.err


def _number(text: str) -> float:
    return float(text.replace(",", "").lstrip("$"))


# -- the API --------------------------------------------------------------------------------------
def test_predict_many_is_the_single_calls_in_source_then_batch_order(singles):
    c = predict_many(list(SOURCES), list(BATCHES), platform="cpu-torch-fp32")
    assert isinstance(c, Comparison) and c.columns == tuple(COLUMNS)
    for column, p in zip(COLUMNS, c.predictions):
        want = singles[column]
        assert [(t.target, t.value, t.intervals) for t in p.targets] == \
               [(t.target, t.value, t.intervals) for t in want.targets]
        assert p.cost == want.cost and c[column] is p
    with pytest.raises(AttributeError):
        c.predictions = ()  # frozen
    json.dumps(c.to_dict(), default=str)


@pytest.mark.parametrize("sources,batches,text", [
    (["timm:not_a_model_at_all"], list(range(1, 10)), "at most 8 batch sizes"),
    (["timm:not_a_model_at_all", "timm:b_not_a_model", "timm:c_not_a_model"], [1], "at most 2 models"),
    (["timm:not_a_model_at_all"], [1, 0], "batch size must be an integer in 1.."),
    (["timm:not_a_model_at_all"], [2, 2], "more than once"),
    (["timm:not_a_model_at_all"], "1,x", "comma-separated"),
    (["timm:not_a_model_at_all"], [], "at least one batch size"),
])
def test_a_bad_sweep_is_refused_before_any_export(sources, batches, text):
    # the models do not exist: an export attempted first would fail with UnknownModelError instead
    with pytest.raises(InvalidInputSpecError, match=re.escape(text)):
        predict_many(sources, batches)


# -- the CLI --------------------------------------------------------------------------------------
def _table(out: str) -> tuple[list[str], dict[str, list[str]]]:
    """(the column headers, {row label: its cells}) of the one rich table the sweep prints."""
    head = [[c.strip() for c in line.strip("┃").split("┃")] for line in out.splitlines() if line.startswith("┃")]
    rows = [[c.strip() for c in line.strip("│").split("│")] for line in out.splitlines() if line.startswith("│")]
    headers = [" ".join(part for part in parts if part) for parts in zip(*head)]
    return headers[1:], {cells[0]: cells[1:] for cells in rows}


_CELL = re.compile(r"^(?P<value>[\d,.]+) (?P<unit>\S+) \[(?P<low>[\d,.]+)–(?P<high>[\d,.]+)\](?: @b(?P<at>\d+))?$")


def test_the_cli_sweep_shows_the_single_calls_side_by_side(singles, capsys, monkeypatch):
    rc, out, err = _cli(SWEEP_ARGS, capsys, monkeypatch)
    assert rc == 0, err
    headers, rows = _table(out)
    assert headers == [f"{s} batch {b}" for s, b in COLUMNS]
    labels = list(rows)
    for target in {t.target for p in singles.values() for t in p.targets}:
        flags = [p[target].recommended for p in singles.values()]
        role = "" if all(flags) else " (secondary)" if not any(flags) else " (secondary in some columns)"
        label = target + role
        assert label in rows, (label, labels)
        if not role:  # the rows recommended in every column come before the others
            assert all(labels.index(label) < i for i, lab in enumerate(labels) if "(secondary" in lab)
        for (source, batch), cell in zip(COLUMNS, rows[label]):
            t = singles[(source, batch)][target]
            m = _CELL.match(cell)
            assert m, cell  # every target answered here: a value, its unit and its 80 % interval
            # three significant digits on screen: within half a unit of the third digit
            for shown, want in ((m["value"], t.value), (m["low"], t.low), (m["high"], t.high)):
                assert _number(shown) == pytest.approx(want, rel=6e-3), (target, source, batch)
            assert m["unit"] == t.unit and int(m["at"] or batch) == t.batch_size
    cost = next(cells for label, cells in rows.items() if label.startswith("cost of"))
    for column, cell in zip(COLUMNS, cost):
        c = singles[column].cost
        usd, low, high = re.match(r"^(\S+) \[(\S+)–(\S+)\]$", cell).groups()
        assert [_number(usd), _number(low), _number(high)] == pytest.approx([c.usd, c.usd_low, c.usd_high], rel=6e-3)


def test_the_cli_sweep_json_round_trips_the_numbers(singles, capsys, monkeypatch):
    rc, out, err = _cli([*SWEEP_ARGS, "--json"], capsys, monkeypatch)
    assert rc == 0, err
    data = json.loads(out)
    assert [(c["source"], c["batch_size"]) for c in data["columns"]] == COLUMNS
    for column, p in zip(COLUMNS, data["predictions"]):
        want = singles[column]
        assert {t["target"]: t["value"] for t in p["targets"]} == {t.target: t.value for t in want.targets}
        assert {t["target"]: [i["low"] for i in t["intervals"]] for t in p["targets"]} == \
               {t.target: [i.low for i in t.intervals] for t in want.targets}
        assert p["cost"]["usd"] == want.cost.usd and p["graph"]["batch_size"] == column[1]
    # one model at one batch: the Prediction's own dict, as before the sweep existed
    rc, out, err = _cli(["predict", SOURCES[0], "--batch", "2", "--json"], capsys, monkeypatch)
    assert rc == 0, err
    assert json.loads(out)["targets"][0]["value"] == singles[(SOURCES[0], 2)].targets[0].value


@pytest.mark.parametrize("args,text", [
    (["--batch", "0"], "batch size must be an integer in 1.."),
    (["--batch", "1,x"], "comma-separated list"),
    (["--batch", ""], "batch must be an integer, got ''"),
    (["--batch", ",".join(str(b) for b in range(1, 10))], "at most 8 batch sizes"),
    (["--batch", "1,2", "--compare", "timm:b_not_a_model", "--compare", "timm:c_not_a_model"], "at most 2 models"),
])
def test_a_bad_sweep_is_one_line_from_the_cli(args, text, capsys, monkeypatch):
    # an unknown model: the line names the sweep's error, so nothing was exported before the check
    rc, out, err = _cli(["predict", "timm:not_a_model_at_all", *args], capsys, monkeypatch)
    assert rc == 2 and err.startswith("perfgraphs: error:") and len(err.strip().splitlines()) == 1, err
    assert text in err and "Traceback" not in err + out


# -- the HTML report ------------------------------------------------------------------------------
class _Comparison(HTMLParser):
    """The cells of the page's <table id='comparison'>: rows of (tag attributes, text)."""

    def __init__(self):
        super().__init__()
        self.rows, self._inside, self._cell = [], False, None

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if tag == "table":
            self._inside = attrs.get("id") == "comparison"
        elif self._inside and tag == "tr":
            self.rows.append((attrs, []))
        elif self._inside and tag in ("td", "th"):
            self._cell = (attrs, [])
            self.rows[-1][1].append(self._cell)

    def handle_endtag(self, tag):
        if tag == "table":
            self._inside = False
        if tag in ("td", "th"):
            self._cell = None

    def handle_data(self, data):
        if self._inside and self._cell is not None:
            self._cell[1].append(data)


def test_the_comparison_report_is_self_contained_and_shows_a_refusal(own_cache, tmp_path, capsys, monkeypatch):
    # a training step beyond the fitted batch range: the API's own verdict says which cells to expect refused
    source, batches = SOURCES[0], (2, 32)
    want = {b: perfgraphs.predict(source, batch=b, platform="cpu-torch-fp32", mode="train") for b in batches}
    refused = {(b, t.target) for b, p in want.items() for t in p.targets if t.refused}
    assert refused, "no refused target: pick a batch further beyond the training labels"
    out = tmp_path / "sweep.html"
    rc, stdout, err = _cli(["predict", source, "--batch", ",".join(map(str, batches)), "--mode", "train",
                            "--html", str(out)], capsys, monkeypatch)
    assert rc == 0, err
    assert "refused" in stdout and f"report: {out}" in stdout
    page = out.read_text()
    assert "<script" not in page and " src=" not in page and "<link" not in page
    parser = _Comparison()
    parser.feed(page)
    head, *rows, cost = parser.rows
    assert [(a["data-source"], int(a["data-batch"])) for a, _ in head[1][1:]] == [(source, b) for b in batches]
    for attrs, cells in rows:
        target = attrs["data-target"]
        for b, (cell, text) in zip(batches, cells[1:]):
            text = "".join(text)
            if (b, target) in refused:  # "refused", and no number anywhere in the cell
                assert text == "refused" and cell["data-value"] == "" and not re.search(r"\d", text)
            else:
                assert float(cell["data-value"]) == want[b][target].value
    for b, (cell, text) in zip(batches, cost[1][1:]):
        assert ("".join(text) == "not priced") == (want[b].cost is None)
    # then each column's full report, in the table's order, with ids of its own
    sections = re.findall(r"<section class='prediction-body' id='column-(\d+)'><h1>([^<]*)</h1><p>[^<]*batch (\d+) ",
                          page)
    assert [(int(i), int(b)) for i, _, b in sections] == [(1, batches[0]), (2, batches[1])]
    ids = re.findall(r"id='([^']+)'", page)
    assert len(ids) == len(set(ids))


# -- the web form ---------------------------------------------------------------------------------
def test_the_web_form_sweeps_and_compares_in_a_headless_browser(singles):
    pytest.importorskip("fastapi", reason="the serve extra is not installed (pip install -e '.[serve]')")
    pytest.importorskip("multipart", reason="the serve extra is not installed (pip install -e '.[serve]')")
    from test_leaderboard import BROWSER_ARGS, _chromium
    from test_predict import _serve

    chromium, playwright = _chromium()
    from perfgraphs.predict.serve import create_app

    server, thread, url = _serve(create_app())
    try:
        with playwright.sync_playwright() as p:
            browser = p.chromium.launch(executable_path=chromium, args=BROWSER_ARGS)
            page = browser.new_page()
            page.goto(url)
            page.fill("#model", SOURCES[0])
            page.fill("#compare", SOURCES[1])
            page.fill("#batch", ",".join(map(str, BATCHES)))
            page.select_option("#platform", "cpu-torch-fp32")
            page.click("#submit")
            page.wait_for_selector("#comparison, #error", timeout=120_000)
            assert page.locator("#error").count() == 0, page.locator("#error").inner_text()
            heads = page.locator("#comparison th.column")
            assert heads.count() == 4
            assert [(heads.nth(i).get_attribute("data-source"), int(heads.nth(i).get_attribute("data-batch")))
                    for i in range(4)] == COLUMNS
            cells = page.locator("#comparison tr[data-target='peak_memory_mb'] td.cell")
            assert [float(cells.nth(i).get_attribute("data-value")) for i in range(4)] == \
                   [singles[c]["peak_memory_mb"].value for c in COLUMNS]
            assert page.locator("section.prediction-body").count() == 4
            # the second model is a zoo name only: a server path is refused without being looked at
            for field, value, message in (("#compare", "/etc/passwd", "zoo name"), ("#batch", "1,x", "comma-separated")):
                page.goto(url)
                page.fill("#model", SOURCES[0])
                page.fill(field, value)
                page.click("#submit")
                page.wait_for_selector("#error", timeout=60_000)
                assert message in page.locator("#error").inner_text()
                assert page.locator("#predict-form").is_visible()
            browser.close()
    finally:
        server.should_exit = True
        thread.join(timeout=10)
