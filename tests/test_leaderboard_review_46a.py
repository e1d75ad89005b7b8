"""Forty-sixth adversarial pass (2026-12-04), read side: committed files that a fresh clone checks out
as other bytes, and the boards read as other data."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pyarrow.parquet as pq
import pytest

from perfgraphs.leaderboard.records import history, results

REPO = Path(__file__).resolve().parents[1]
SHARD = Path("data/measurements/dippm-cpu-test-visits-amd-epyc-23059b2f/cpu-torch-fp32/"
             "shard-00000-20261129T075522.parquet")



def _git(repo: Path, *args: str) -> None:
    subprocess.run(["git", "-C", str(repo), "-c", "user.name=someone", "-c", "user.email=s@example.org", *args],
                   check=True, capture_output=True)


def _clone_with_attributes(tmp_path: Path, name: str, attributes: str) -> Path:
    """A repository holding one committed repeat-store shard (a binary Parquet file under data/) and
    the rules, a pull request's ``.gitattributes`` committed on top, and a fresh clone of it."""
    origin = tmp_path / f"origin-{name}"
    (origin / SHARD.parent).mkdir(parents=True)
    (origin / SHARD).write_bytes((REPO / SHARD).read_bytes())
    (origin / "leaderboard").mkdir()
    (origin / "leaderboard" / "RULES.md").write_text("# rules\n")
    _git(origin, "init", "-q", "-b", "main")
    _git(origin, "add", "-A")
    _git(origin, "commit", "-q", "-m", "a store")
    (origin / ".gitattributes").write_text(attributes)
    _git(origin, "add", ".gitattributes")
    _git(origin, "commit", "-q", "-m", "attributes")
    clone = tmp_path / f"clone-{name}"
    subprocess.run(["git", "clone", "-q", str(origin), str(clone)], check=True, capture_output=True)
    return clone


def test_a_gitattributes_line_converting_line_ends_of_the_stores_stops_the_boards(tmp_path, monkeypatch):
    """Attack: a pull request adds one line at the top of the repository, ``data/** text eol=crlf``.
    The thirty-sixth and thirty-seventh passes' check (``history.converted_files``) looked for
    ``working-tree-encoding``, ``filter`` and ``ident`` only, and left line ends aside as harmless to
    the readers of text; but ``text`` set and ``eol=crlf`` convert every LF byte of a binary file
    too. A fresh clone checked the dippm CPU repeat store's Parquet shards out unreadable, and
    ``leaderboard show`` ranked the official dippm CPU latency board against one measurement a
    label, said "noise floor not measured for these labels" and "the labels have one measurement
    each", and moved static-mlp from rank 3 to rank 2 (every MAPE changed: roofline-boost 8.45 % ->
    14.33 %), exit 0, no word of why. Now a line-end attribute that converts without looking at the
    content (``text``/``crlf`` set, ``eol=crlf``: ``history._converts``) is a conversion too, and
    the readers stop in one line naming the file. ``text=auto`` and ``eol=lf`` are not refused (they
    leave a binary's bytes as committed). Control: with the earlier rule (the three attributes
    only), the check finds nothing in the clone whose shard no longer reads."""
    clone = _clone_with_attributes(tmp_path, "crlf", "data/** text eol=crlf\n")
    converted = (clone / SHARD).read_bytes()
    assert converted != (REPO / SHARD).read_bytes()  # the fresh clone's store is other bytes
    with pytest.raises(OSError):  # ... which no longer read as a Parquet file
        pq.read_table(clone / SHARD)

    why = results.boards_checkout_problem(clone)
    assert why is not None and str(SHARD) in why and "out converted" in why and "text=set" in why, why
    assert len(why.splitlines()) == 1
    assert results.boards_checkout_problem(REPO) is None  # this checkout: nothing converted
    for harmless in ("* text=auto\n", "*.parquet eol=lf\n", "data/** -text\n"):
        kept = _clone_with_attributes(tmp_path, f"ok{len(harmless)}", harmless)
        assert (kept / SHARD).read_bytes() == (REPO / SHARD).read_bytes(), harmless
        assert results.boards_checkout_problem(kept) is None, harmless
    eol_only = _clone_with_attributes(tmp_path, "eol", "*.parquet eol=crlf\n")  # eol=crlf implies text
    assert (eol_only / SHARD).read_bytes() != (REPO / SHARD).read_bytes()
    assert "eol=crlf" in (results.boards_checkout_problem(eol_only) or ""), results.boards_checkout_problem(eol_only)

    # control: the earlier rule, which left line ends aside, finds nothing to refuse
    monkeypatch.setattr(history, "_converts", lambda attr, value: attr in ("working-tree-encoding", "filter", "ident")
                        and value not in ("unspecified", "unset"))
    assert results.boards_checkout_problem(clone) is None
    assert results.boards_checkout_problem(eol_only) is None


def test_a_damaged_store_is_not_read_as_a_board_without_repetitions(monkeypatch):
    """The forty-sixth pass's lead, closed: `ranks.label_repetitions` read every error of loading the
    board's protocol as "a protocol this board does not run", so a damaged store (Parquet shards a
    line-ending conversion rewrote) ranked the board on single measurements and said none were
    repeated. Now a corrupt store file stops the reader (its typed error, one line at the CLI).
    Control: a protocol the board does not run still reads as no repetitions."""
    from perfgraphs.collect.errors import CorruptStoreFileError
    from perfgraphs.errors import PerfgraphsError
    from perfgraphs.evaluation import protocol
    from perfgraphs.leaderboard.records.ranks import label_repetitions
    from perfgraphs.registry import task

    board = task("dippm", "cpu-torch-fp32", "latency_ms")

    def damaged(*args, **kwargs):
        raise CorruptStoreFileError(Path("data/measurements/x/shard-0.parquet"), "not a Parquet file")

    monkeypatch.setattr(protocol, "protocol_parts", damaged)
    with pytest.raises(CorruptStoreFileError):
        label_repetitions(board)

    def not_run(*args, **kwargs):
        raise PerfgraphsError("protocol 'x' is not runnable for dippm/cpu-torch-fp32")

    monkeypatch.setattr(protocol, "protocol_parts", not_run)
    assert label_repetitions(board, protocol="x") is None  # control
