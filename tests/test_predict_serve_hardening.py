"""The web form's hard edges (issue 26, item 7), in a real browser against a real server: two
first-time exports at once, server paths typed as a model, an oversized upload, a name and a file
together. After each, the server still answers.

The export slot's control is not a test: it is a race. With the slot replaced by a no-op, the
concurrent test below failed once in a browser run here ("could not export
timm:mobilenetv3_small_100 to ONNX: AssertionError: GLOBALS.in_onnx_export must be False", the
issue's symptom) and passed on the next run; a barrier-started pair of API calls did not overlap
in the one try made. The slot makes the outcome independent of the timing."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

pytest.importorskip("fastapi", reason="the serve extra is not installed (pip install -e '.[serve]')")
pytest.importorskip("multipart", reason="the serve extra is not installed (pip install -e '.[serve]')")

from test_leaderboard import BROWSER_ARGS, _chromium  # noqa: E402
from test_predict import _serve  # noqa: E402


@pytest.fixture()
def browser_page(tmp_path, monkeypatch):
    """A fresh graph cache (every export is a first one), a server, a browser; yields (new_page, url)."""
    monkeypatch.setenv("PERFGRAPHS_HOME", str(tmp_path / "home"))
    chromium, playwright = _chromium()
    from perfgraphs.predict import serve

    monkeypatch.setattr(serve, "MAX_UPLOAD_MB", 1)  # the cap's code path with a small file
    server, thread, url = _serve(serve.create_app())
    try:
        with playwright.sync_playwright() as p:
            browser = p.chromium.launch(executable_path=chromium, args=BROWSER_ARGS)
            yield browser.new_page, url
            browser.close()
    finally:
        server.should_exit = True
        thread.join(timeout=10)


def _still_up(new_page, url) -> None:
    page = new_page()
    page.goto(url)
    assert page.locator("#predict-form").is_visible()


def test_two_first_time_exports_at_once_both_answer(browser_page):
    new_page, url = browser_page
    pages = []
    for model in ("timm:resnet18", "timm:mobilenetv3_small_100"):
        page = new_page()
        page.goto(url)
        page.fill("#model", model)
        pages.append(page)
    for page in pages:  # both submitted before either answers: two exports in flight
        page.click("#submit", no_wait_after=True)
    for page in pages:
        page.wait_for_selector("#predictions, #error", timeout=240_000)
        assert page.locator("#error").count() == 0, page.locator("#error").inner_text()
    _still_up(new_page, url)


def test_a_server_path_is_refused_without_saying_whether_it_exists(browser_page, tmp_path):
    new_page, url = browser_page
    real, missing = tmp_path / "real.onnx", tmp_path / "miss.onnx"  # names of one length: the message may cut a path
    real.write_bytes(b"not really onnx")
    texts = {}
    for name in (str(real), str(missing), "/etc/passwd", "timm:../../etc/passwd"):
        page = new_page()
        page.goto(url)
        page.fill("#model", name)
        page.click("#submit")
        page.wait_for_selector("#error", timeout=60_000)
        texts[name] = page.locator("#error").inner_text()
        assert "zoo name" in texts[name], texts[name]
    # the existing file and the missing one get the same words (their names aside)
    assert texts[str(real)].replace("/real.", "/X.") == texts[str(missing)].replace("/miss.", "/X."), texts
    _still_up(new_page, url)


def test_an_oversized_upload_is_refused(browser_page, tmp_path):
    new_page, url = browser_page
    big = tmp_path / "big.onnx"
    big.write_bytes(os.urandom(3 * 2**20))  # over the 1 MB cap set by the fixture
    page = new_page()
    page.goto(url)
    page.set_input_files("#onnx", str(big))
    page.click("#submit")
    page.wait_for_selector("#error", timeout=60_000)
    assert "up to 1 MB" in page.locator("#error").inner_text()
    _still_up(new_page, url)


def test_a_name_and_a_file_together_ask_for_one(browser_page, tmp_path):
    new_page, url = browser_page
    small = tmp_path / "small.onnx"
    small.write_bytes(b"x" * 100)
    page = new_page()
    page.goto(url)
    page.fill("#model", "timm:resnet18")
    page.set_input_files("#onnx", str(small))
    page.click("#submit")
    page.wait_for_selector("#error", timeout=60_000)
    assert "not both" in page.locator("#error").inner_text()
    _still_up(new_page, url)


def test_control_the_api_reads_server_paths(tmp_path):
    # Why the form refuses paths: the API it calls takes a path to an ONNX file and reads it.
    import perfgraphs
    from perfgraphs.errors import PerfgraphsError

    missing = tmp_path / "missing.onnx"
    with pytest.raises(PerfgraphsError) as info:
        perfgraphs.predict(str(missing), batch=1, platform="cpu-torch-fp32")
    assert "missing.onnx" in str(info.value)
    assert not Path(missing).exists()
