"""A results line as its reviewer reads it (:func:`as_shown`): a leaf module, so that the results
readers and the line history (:mod:`perfgraphs.leaderboard.records.history`, which the readers
import) key lines alike without importing each other."""

from __future__ import annotations

import unicodedata

# what a diff, an editor or a terminal shows as nothing: zero-width characters that reorder nothing
# (the bidirectional controls and marks do, and a line holding one stays no record)
_ZERO_WIDTH = frozenset("\u200b\u200c\u200d\u2060\u2061\u2062\u2063\u2064\ufeff\u00ad\u180e")


def as_shown(line: str) -> str:
    """A results line as its reviewer reads it: each space separator (no-break, thin, ideographic…:
    Unicode's ``Zs``) a space, each zero-width character (:data:`_ZERO_WIDTH`, a byte-order mark
    too) nothing. A pull request's diff that showed another team's line unchanged held a no-break
    space after ``"tier":`` (or a byte-order mark before the file's first line): JSON refused the
    line, and every board stopped showing the rank-1 entry of the dippm cpu latency board, its
    neighbours ranked one place up (forty-third pass of 2026-12-04). No valid record holds such a
    character (its text fields are ASCII), so this changes no record; it reads one as it is seen."""
    if line.isascii():
        return line
    return "".join("" if c in _ZERO_WIDTH else " " if unicodedata.category(c) == "Zs" else c for c in line)
