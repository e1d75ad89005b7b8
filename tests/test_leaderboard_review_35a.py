"""Thirty-fifth adversarial pass (2026-12-03), read side: the files ``leaderboard build`` writes."""

from __future__ import annotations

import subprocess
import sys

import pytest


def test_a_link_in_the_site_folder_is_replaced_never_written_through(tmp_path, monkeypatch):
    """Attack: ``leaderboard/site/`` is ignored by git, but a pull request can still commit into it
    (``git add -f``). A link committed there as ``index.html`` (to ``../results/dippm.jsonl``) or
    ``rules.html`` (to any file the builder can write) had ``perfgraphs leaderboard build`` write the
    page through it: the results file, and the other file, became HTML (an entry's page linked to
    another entry's page made two pages one). Now each page is written as a new file in the site's
    folder and put in the page's place: the link is replaced, its target untouched, and a page of an
    earlier build is replaced as before. Control: writing the pages as before (``Path.write_text``)
    overwrites both targets."""
    from perfgraphs.leaderboard.site import pages

    def planted(name: str):
        site, results, victims = tmp_path / name / "site", tmp_path / name / "results", tmp_path / name / "victims"
        for folder in (site, results, victims):
            folder.mkdir(parents=True)
        (victims / "dippm.jsonl").write_text('{"a": "record"}\n')
        (victims / "notes.txt").write_text("keep me\n")
        (site / "index.html").symlink_to("../victims/dippm.jsonl")
        (site / "rules.html").symlink_to(victims / "notes.txt")
        return site, results, victims

    site, results, victims = planted("guarded")
    index = pages.build_site(site, results)
    assert (victims / "dippm.jsonl").read_text() == '{"a": "record"}\n'
    assert (victims / "notes.txt").read_text() == "keep me\n"
    for page in (index, site / "rules.html"):
        assert not page.is_symlink() and page.read_text(encoding="utf-8").startswith("<!doctype html>")
    assert not list(site.glob(".page-*"))  # no temporary file left behind
    # an honest rebuild replaces the pages of the earlier build
    (site / "index.html").write_text("stale")
    assert pages.build_site(site, results).read_text(encoding="utf-8").startswith("<!doctype html>")
    # control: the pages written through the links, as before
    monkeypatch.setattr(pages, "write_page", lambda path, text: path.write_text(text))
    site, results, victims = planted("control")
    pages.build_site(site, results)
    assert (victims / "dippm.jsonl").read_text().startswith("<!doctype html>")
    assert (victims / "notes.txt").read_text().startswith("<!doctype html>")


def test_a_site_folder_that_is_a_link_is_refused_in_one_line(tmp_path):
    """Attack: ``leaderboard/site`` committed as a link to another folder of the repository (``docs``)
    had ``leaderboard build`` write its pages there, over that folder's own ``index.html``. Now the
    build is refused in one line, exit 2, and the folder is untouched. Control: the folder itself,
    named with ``--out``, is built."""
    docs, results = tmp_path / "docs", tmp_path / "results"
    docs.mkdir()
    results.mkdir()
    (docs / "index.html").write_text("the project's docs\n")
    (tmp_path / "site").symlink_to(docs)
    run = subprocess.run([sys.executable, "-m", "perfgraphs", "leaderboard", "build", "--out", str(tmp_path / "site"),
                          "--results", str(results)], capture_output=True, text=True)
    assert run.returncode == 2, run.stderr
    assert run.stderr.strip().count("\n") == 0 and "the site's folder is a link" in run.stderr, run.stderr
    assert "Traceback" not in run.stderr
    assert (docs / "index.html").read_text() == "the project's docs\n" and sorted(p.name for p in docs.iterdir()) == ["index.html"]
    # control: the folder itself is built
    from perfgraphs.leaderboard.site.pages import build_site

    assert build_site(docs, results).read_text(encoding="utf-8").startswith("<!doctype html>")


def test_a_folder_where_a_page_goes_is_one_clear_line(tmp_path):
    """A folder committed where a page goes (``index.html/``) stops the build with one line naming it."""
    from perfgraphs.errors import PerfgraphsError
    from perfgraphs.leaderboard.site.pages import build_site

    (tmp_path / "site" / "index.html").mkdir(parents=True)
    (tmp_path / "results").mkdir()
    with pytest.raises(PerfgraphsError, match="a folder where the site writes a page"):
        build_site(tmp_path / "site", tmp_path / "results")
