"""Method and author names compared as people read them (issue 32, item 3).

A reference baseline's method name and the reference authors are reserved
(:func:`perfgraphs.leaderboard.records.check.check_reserved`). Comparing them byte for byte, or after a
plain lowercase, lets a look-alike through: ``static-xgbooѕt`` with a Cyrillic ``ѕ``, a fullwidth
``ｓ``, ``static_xgboost``, ``static.xgboost``, ``static xgboost``, ``static-xgboost/v2``, or the
reference authors spelled with a Cyrillic ``е``. Here names are compared by their
:func:`canonical` form:

1. NFKC normalisation (fullwidth and other compatibility forms become their plain letters);
2. case folding;
3. Unicode's confusable folding, the UTS #39 skeleton of Unicode's confusables table, as the
   maintained ``disarm`` library implements it (``disarm.skeleton_key`` with TR39's digit classes:
   ``0`` reads as ``o`` and ``1`` as ``l``; it also drops invisible, zero-width and bidi
   characters), plus TR39's ``m`` → ``rn`` entry, which disarm leaves out;
4. ``-``, ``_``, ``.``, ``/`` and whitespace alike: every run of them is one space.

A capital ``I`` reads as ``l`` too, which case folding alone would turn into ``i``; so a name is
also compared by its *cased* key (confusables before case folding, :func:`keys`).

A name **takes** a reserved name when one of its keys is the reserved name's canonical form, or
starts with it followed by anything but a letter or digit: ``static-xgboost/v2``,
``static-xgboost v2``, ``Static-XGBoost (quick)`` and ``static-xgboost+tuned`` all take
``static-xgboost``; ``my-xgboost``, ``xgboost-static-variant`` and ``static-xgboosted`` do not
(containing a reference name elsewhere is fine).

**Character set** (:func:`check_charset`). ``method`` and ``authors`` are plain ASCII: letters
``A-Z a-z``, digits ``0-9``, the space, and ``- _ . ( ) / + , & ' @`` — no other punctuation, no
accents (transliterate: ``Jose Muller``), no control, invisible or non-Latin characters. A method
is at most 64 characters, the authors at most 200. The same rules are in leaderboard/RULES.md.
"""

from __future__ import annotations

import re
import unicodedata

import disarm

METHOD_MAX_CHARS = 64
AUTHORS_MAX_CHARS = 200
ALLOWED_PUNCTUATION = "-_.()/+,&'@"
_LIMITS = {"method": METHOD_MAX_CHARS, "authors": AUTHORS_MAX_CHARS}
_ALLOWED = re.compile(r"[A-Za-z0-9 " + re.escape(ALLOWED_PUNCTUATION) + r"]*")
_SEPARATORS = re.compile(r"[\s\-_./]+")
_ALLOWED_TEXT = "ASCII letters, digits, spaces and " + " ".join(ALLOWED_PUNCTUATION)


def _fold(text: str, cased: bool) -> str:
    text = unicodedata.normalize("NFKC", str(text))
    if not cased:
        text = text.casefold()
    # confusables -> case fold -> confusables, to a fixed point (disarm's key is one)
    text = disarm.skeleton_key(text, digit_policy="tr39").replace("m", "rn")
    return " ".join(_SEPARATORS.sub(" ", text).split())


def canonical(text: str) -> str:
    """The form two names are compared in: NFKC, casefold, confusables folded, separators alike
    (see the module docstring). Idempotent; a key, not for display."""
    return _fold(text, cased=False)


def keys(text: str) -> set[str]:
    """:func:`canonical`, and the cased key (confusables before case folding: ``I`` reads ``l``)."""
    return {_fold(text, cased=False), _fold(text, cased=True)}


def _prefix_of(name_key: str, reserved_key: str) -> bool:
    if not reserved_key or not name_key.startswith(reserved_key):
        return False
    rest = name_key[len(reserved_key):]
    return not rest or not rest[0].isalnum()


def compact(text: str) -> str:
    """:func:`canonical` with every character that is not a letter or a digit dropped: ``gnnx``,
    ``(gnn-x)``, ``gnn-x+`` and ``GNN X`` read as one name to a person skimming a board."""
    return re.sub(r"[^0-9a-z]+", "", canonical(text))


def _compact_keys(text: str) -> set[str]:
    """Every :func:`keys` form, compacted: the cased one reads a capital ``I`` as ``l``."""
    return {re.sub(r"[^0-9a-z]+", "", k.casefold()) for k in keys(text)} - {""}


# a name followed by a version: a separator or a ``v`` before the digits (``/v2``, `` 3``, ``-2.1``,
# ``v2``), read on the name as written (case and width folded, never letters for digits: ``ViT-L``
# is another model, not version 1 of ``ViT``; review of 2026-12-02)
_VERSION_WORD = r"(?:v|ver|version|rev|revision)"
_VERSIONED = re.compile(r"(?P<stem>.*?)(?:[^0-9a-z]+(?:" + _VERSION_WORD + r"[^0-9a-z]*)?|" + _VERSION_WORD +
                        r"[^0-9a-z]*)[0-9]+(?:[^0-9a-z]+[0-9]+)*[^0-9a-z]*")


def _unversioned(name: str) -> str:
    """``name`` without a trailing version (``gnn-x v2`` -> ``gnn-x``), else ``name``."""
    m = _VERSIONED.fullmatch(unicodedata.normalize("NFKC", str(name)).casefold())
    return m["stem"] if m and compact(m["stem"]) else str(name)


def reads_as(name: str, other: str) -> bool:
    """Whether a person would read ``name`` as ``other``, or as another version of the same name:
    the same once :func:`compact`, with any trailing version (``/v2``, `` v3``, ``-2.1``,
    ``version 2``) set aside on both. Another word after it (``gnn-lite`` after ``gnn``, ``ViT-L``
    after ``ViT``) makes another name."""
    return bool(_compact_keys(_unversioned(name)) & _compact_keys(_unversioned(other)))


def taken_name(name: str, reserved: set[str] | list[str] | tuple[str, ...]) -> str | None:
    """The reserved name that ``name`` takes (equal once canonical or once :func:`compact`, or that
    plus a separator and a suffix such as ``/v2``, ``-v2`` or `` (quick)``), or None. ``reserved``
    may be raw names or canonical forms."""
    mine, mine_compact = keys(name), compact(name)
    for other in sorted(reserved):
        theirs = compact(other)
        # a reference name with a number run into it (``static-xgboost2``) is still its name
        numbered = bool(theirs) and mine_compact.startswith(theirs) and mine_compact[len(theirs):].isdigit()
        if any(_prefix_of(k, r) for k in mine for r in keys(other)) or numbered or reads_as(name, other):
            return other
    return None


def same_name(a: str, b: str) -> bool:
    """Whether ``a`` and ``b`` read the same (a key in common)."""
    return bool(keys(a) & keys(b))


def is_reference_authors(authors: str) -> bool:
    """Whether ``authors`` reads as the reference baselines' author: it canonicalises onto
    ``REFERENCE_AUTHORS`` or names a "reference baseline" at all. Byte-equal or look-alike."""
    from perfgraphs.leaderboard.records.references import REFERENCE_AUTHORS

    if same_name(authors, REFERENCE_AUTHORS):
        return True
    marker = canonical("reference baseline")
    # punctuation between the words does not make another author (``referencebaselines``,
    # ``reference (baselines)``), nor does the project's name with a word of "reference baselines",
    # abbreviated or reordered (``perfgraphs ref. baselines``): review of 2026-12-02
    plain = compact(authors)
    return any(marker in k for k in keys(authors)) or compact("reference baseline") in plain \
        or (compact("perfgraphs") in plain and any(w in plain for w in ("ref", compact("baseline"))))


def lookalike_authors(authors: str) -> bool:
    """Reads as the reference authors without being them byte for byte."""
    from perfgraphs.leaderboard.records.references import REFERENCE_AUTHORS

    return authors != REFERENCE_AUTHORS and is_reference_authors(authors)


def reserved_taken(method: str, authors: str, reference_names: set[str]) -> str | None:
    """For a record being read: a one-line reason when its ``method`` takes one of
    ``reference_names`` (raw or canonical) but its ``authors`` are not exactly the reference
    authors, or when its authors are a look-alike of the reference authors; else None."""
    from perfgraphs.leaderboard.records.references import REFERENCE_AUTHORS

    method, authors = str(method), str(authors)
    if lookalike_authors(authors):
        return (f"authors {authors!r} imitate the reference authors {REFERENCE_AUTHORS!r}: a record by "
                "look-alike authors is not the reference's; remove it or record it under your own names")
    name = taken_name(method, reference_names)
    if name is not None and authors != REFERENCE_AUTHORS:
        return (f"method {method!r} takes the reference baseline name {name!r} but its authors {authors!r} "
                "are not the reference authors: remove the record or rename its method")
    return None


def check_charset(field: str, text: str) -> list[str]:
    """``method`` or ``authors`` (``field``) outside the documented character set or length limit:
    one line each, saying what to do. Empty when ``text`` is fine."""
    text = str(text)
    problems = []
    limit = _LIMITS.get(field)
    if limit is not None and len(text) > limit:
        problems.append(f"{field} is {len(text)} characters long: shorten it to at most {limit}")
    bad = sorted({c for c in text if not _ALLOWED.fullmatch(c)})
    if bad:
        shown = ", ".join(f"{c!r} (U+{ord(c):04X} {unicodedata.name(c, 'unnamed')})" for c in bad[:5])
        more = f" and {len(bad) - 5} more" if len(bad) > 5 else ""
        problems.append(f"{field} {text!r} has character(s) outside the allowed set: {shown}{more}; "
                        f"use only {_ALLOWED_TEXT}")
    return problems
