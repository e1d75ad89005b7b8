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

Two strengths of comparison, for two questions (review of 2026-12-02, after five adversarial
passes on one fuzzy rule for both):

- **Reference names** (:func:`taken_name`), strict: the reference baselines are the one author
  whose names code can guard. A name **takes** a reserved name when one of its keys is the
  reserved name's canonical form, or starts with it followed by anything but a letter or digit
  (``static-xgboost/v2``, ``Static-XGBoost (quick)``, ``static-xgboost+tuned``); when it reads as
  it once punctuation is dropped and a trailing version set aside (:func:`reads_as`); when a number
  is run into it (``static-xgboost2``); and with ``vv`` read as ``w`` and ``cl`` as ``d``
  (``layervvise-boost``, ``clippm-sage``), and, for these method names only, ``ri`` as ``n`` and ``li``
  as ``h`` (``graph-riet-transfer``: :func:`_taken_as_read`). ``my-xgboost``, ``xgboost-static-variant`` and
  ``static-xgboosted`` do not take it (containing a reference name elsewhere is fine).
- **Between entries** (:func:`same_method`), exact: every board shows the authors beside the
  method, so another team's ``gnn-x v3`` beside ``gnn-x v2`` is visibly another team's entry,
  not a taken-over one. A recorded method name belongs to its author list as written: another
  list under the *same* name (case, punctuation, spaces and a ``(quick…)`` suffix aside; no
  look-alike folding: ``vit-v1`` and ``vit-vl`` are two names, the charset is ASCII) is refused.
  A fuzzier rule refused honest names (``mlp-3`` after another team's ``mlp``) and still never
  converged. What tells rows apart is then the authors, so *their* look-alikes are what is refused
  (:func:`lookalike_people`: ``AIice Author`` with a capital ``I`` for Alice Author's ``l``, ``Bob
  Builder'`` for Bob Builder), and the site prints names and authors in a monospace font, where
  ASCII look-alikes differ.

**Character set** (:func:`check_charset`). ``method`` and ``authors`` are plain ASCII: letters
``A-Z a-z``, digits ``0-9``, the space (single, between words; no empty name between ``, ; &``),
and ``- _ . ( ) / + , & ' @`` — no
other punctuation, no accents (transliterate: ``Jose Muller``), no control, invisible or non-Latin
characters. A method
is at most 64 characters, the authors at most 200. A method holds no credit (:func:`credit_in_method`:
the word ``by``, the reference authors, a word the board prints about a row such as ``verified`` or
``rank 1``, the project's name); authors read one way (:func:`ambiguous_authors`: ``Bob, Lory, Mal`` is
refused, ``Bob & Lory, Mal`` is not). The same rules are in leaderboard/RULES.md.
"""

from __future__ import annotations

import functools
import re
import unicodedata

import disarm

METHOD_MAX_CHARS = 64
AUTHORS_MAX_CHARS = 200
ALLOWED_PUNCTUATION = "-_.()/+,&'@"
_LIMITS = {"method": METHOD_MAX_CHARS, "authors": AUTHORS_MAX_CHARS}


def _remembered(function):
    """``function`` of short texts remembered for the process (4096 answers, texts of at most 1,000
    characters: a hand-written record's megabyte of authors is checked, never kept). The results
    readers ask the same questions of every line; :func:`perfgraphs.leaderboard.records.results.forget_checked`
    forgets the answers (``cache_clear``)."""
    cached = functools.lru_cache(maxsize=4096)(function)

    @functools.wraps(function)
    def answer(*texts: str):
        return cached(*texts) if all(isinstance(x, str) and len(x) <= 1000 for x in texts) else function(*texts)

    answer.cache_clear = cached.cache_clear
    return answer


_ALLOWED = re.compile(r"[A-Za-z0-9 " + re.escape(ALLOWED_PUNCTUATION) + r"]*")
_SEPARATORS = re.compile(r"[\s\-_./]+")
_ALLOWED_TEXT = "ASCII letters, digits, spaces and " + " ".join(ALLOWED_PUNCTUATION)


# A capital L read in the cased key: it reads as no other letter, while case folding would make it
# the ``l`` that a capital ``I`` reads as (``Lan Chen`` is not ``Ian Chen``; ninth pass of 2026-12-02).
# It is marked as ``Ḻ`` (U+1E3A), which NFKC and the confusables table keep, and which case folds
# to ``ḻ`` (U+1E3B); no name holds it (the charset is ASCII). disarm drops private-use characters.
_CAPITAL_L = "\u1e3a"
_CAPITAL_L_KEY = _CAPITAL_L.casefold()


def _fold(text: str, cased: bool) -> str:
    text = unicodedata.normalize("NFKC", str(text))
    if cased:
        text = text.replace("I", "l").replace("L", _CAPITAL_L)
    else:
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


def _compact(key: str) -> str:
    return re.sub(r"[^0-9a-z" + _CAPITAL_L_KEY + r"]+", "", key.casefold())


# cached (every read of a board compares each record's names with every reference's: 120,000 calls
# and 3.7 s of one `perfgraphs check`), so frozen: a caller cannot change what the next one is given
@functools.lru_cache(maxsize=65536)
def _compact_keys(text: str) -> frozenset[str]:
    """Every :func:`keys` form, compacted: the cased one reads a capital ``I`` as ``l``."""
    return frozenset(k for _, k in _compact_keys_by_kind(text))


@functools.lru_cache(maxsize=65536)
def _compact_keys_by_kind(text: str) -> frozenset[tuple[bool, str]]:
    """:func:`_compact_keys`, each with whether it is the cased key: a cased key is compared with
    cased keys only, since ``Lan`` folds to the ``lan`` that ``Ian``'s cased key reads as."""
    return frozenset((cased, k) for cased in (False, True) if (k := _compact(_fold(text, cased))))


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


# letter pairs that read as one letter in most fonts (UTS #39 lists ``rn`` for ``m``, folded in
# :func:`_fold`), as written: a lowercase ``cl`` reads ``d`` but ``CL`` does not (``CLIP-PM`` is no
# ``dippm``). For the reference names and people's names only: between teams' methods, folding
# ``cl`` would make ``CLIP`` and ``DIP`` one name
_PAIRS = (("vv", "w"), ("VV", "W"), ("cl", "d"))


def _pairs_as_read(text: str) -> str:
    """``text`` with the mixed-case and look-alike spellings of :data:`_PAIRS` written as the pair:
    ``Vv``/``vV`` as ``VV``/``vv``, and a ``c`` before a capital ``I`` or a ``1`` (each an ``l`` to a
    reader, :func:`_fold`) as ``cl``. The pairs were matched as written only, so ``Vvei Chen`` beside
    ``Wei Chen`` and ``AcIam Smith`` beside ``Adam Smith`` were no look-alikes (submitted, and shown
    with no board note), and ``cIippm-sage`` and ``layerVvise-linear`` took no reference name
    (hundred-and-third pass, side c)."""
    text = re.sub(r"Vv|vV", lambda m: "VV" if m[0][0] == "V" else "vv", text)
    return re.sub(r"c[I1]", "cl", text)


def _loose(text: str) -> str:
    """``text`` with each pair of :data:`_PAIRS` read as its letter (NFKC first, case kept; mixed-case
    and look-alike spellings of a pair too: :func:`_pairs_as_read`)."""
    text = _pairs_as_read(unicodedata.normalize("NFKC", str(text)))
    for pair, letter in _PAIRS:
        text = text.replace(pair, letter)
    return text


def _spellings(text: str) -> tuple[str, str]:
    return (str(text), _loose(text))


def reads_as(name: str, other: str) -> bool:
    """Whether a person would read ``name`` as ``other``, or as another version of the same name:
    the same once :func:`compact` (and ``vv``/``cl`` read as ``w``/``d``), with any trailing version
    (``/v2``, `` v3``, ``-2.1``, ``version 2``) set aside on both. Another word after it
    (``gnn-lite`` after ``gnn``, ``ViT-L`` after ``ViT``) makes another name. The reference names'
    rule (:func:`taken_name`); between teams, :func:`same_method`."""
    mine = set().union(*(_compact_keys(_unversioned(x)) for x in _spellings(name)))
    return bool(mine & set().union(*(_compact_keys(_unversioned(x)) for x in _spellings(other))))


def taken_name(name: str, reserved: set[str] | list[str] | tuple[str, ...]) -> str | None:
    """The reserved name that ``name`` takes (equal once canonical or once :func:`compact`, or that
    plus a separator and a suffix such as ``/v2``, ``-v2`` or `` (quick)``, or a number run into it;
    ``vv`` and ``cl`` read as ``w`` and ``d``, and ``ri`` and ``li`` as ``n`` and ``h``:
    :func:`_taken_as_read`), or None. ``reserved`` may be raw names or canonical forms."""
    reserved = frozenset(reserved)
    return _taken_name(str(name), reserved) or _taken_as_read(str(name), reserved)


# letter pairs that read as one letter in a method name skimmed on a board: ``ri`` as ``n`` and ``li``
# as ``h`` (as written, lowercase; an ``l`` written ``I`` or ``1`` too, as :func:`_pairs_as_read`
# reads ``cl``). For the reference names only, never people's: there they would make Ana and Aria,
# Maria and Mana, Juha and Julia one person (hundred-and-tenth pass, side b)
_METHOD_PAIRS = (("ri", "n"), ("li", "h"))


def _method_pairs_as_read(text: str) -> str:
    """``text`` (NFKC) with :data:`_METHOD_PAIRS` read as their letter: ``graph-riet`` as ``graph-net``,
    ``rooflirie`` as ``roofhne``, ``roofline`` too. No two pairs overlap (neither starts with ``i``),
    so the reading is one."""
    text = re.sub(r"[I1]i", "li", unicodedata.normalize("NFKC", str(text)))
    for pair, letter in _METHOD_PAIRS:
        text = text.replace(pair, letter)
    return text


def _taken_as_read(name: str, reserved: frozenset[str]) -> str | None:
    """The reserved name that ``name`` takes once both are read with :data:`_METHOD_PAIRS`
    (:func:`_method_pairs_as_read`, every other rule of :func:`_taken_name` on top), or None.
    ``ri`` reads ``n`` and ``li`` reads ``h`` in the boards' font as ``rn`` reads ``m``, but only
    ``rn``, ``vv`` and ``cl`` were folded: ``graph-riet-transfer``, ``lowrank-trarisfer``,
    ``rooflirie-prior``, ``grapli-net-transfer``, ``nnlqp-grin`` and ``serving-pnor`` took no reference
    name (196 of the 200 such spellings of the 21 reference names, a ``(quick)``, ``+tuned`` or
    `` (tuned)`` after them too), and a hand-written ``graph-riet-transfer`` was read and shown by
    ``leaderboard show`` with no note (hundred-and-tenth pass, side b). Method names only: people's
    names keep :data:`_PAIRS`."""
    read = {_method_pairs_as_read(canonical(r)): r for r in sorted(reserved, reverse=True)}
    found = _taken_name(_method_pairs_as_read(name), frozenset(read))
    return None if found is None else read[found]


# every read of the results files asks this of each record (800 times, 5 s of one `perfgraphs check`),
# mostly of the same few methods against the same reference names
@functools.lru_cache(maxsize=16384)
def _taken_name(name: str, reserved: frozenset[str]) -> str | None:
    mine = set().union(*(keys(x) for x in _spellings(name)))
    mine_compact = set().union(*(_compact_keys(x) for x in _spellings(name)))
    for other in sorted(reserved):
        theirs = set().union(*(_compact_keys(x) for x in _spellings(other)))
        # a reference name with a number run into it (``static-xgboost2``) is still its name
        numbered = any(m.startswith(t) and m[len(t):].isdigit() for m in mine_compact for t in theirs)
        # one letter off a reference name of six or more: ``stat1c-xgboost``, ``layenwise-linear``,
        # ``nnlqp-gmn`` read as the reference's (seventeenth pass), and so with a suffix after it, as
        # the name exactly is with one: ``statlc-xgboost (tuned)``, ``static-xgbost-tuned``,
        # ``trappn-ish``, ``statlc-xgboostv2`` (twenty-fifth pass)
        typo = _one_letter_off(name, mine_compact, theirs)
        if any(_prefix_of(k, r) for k in mine for r in keys(other)) or numbered or typo or reads_as(name, other):
            return other
    return None


def _one_letter_off(name: str, mine_compact: set[str], theirs: set[str]) -> bool:
    """Whether ``name`` (its compact keys ``mine_compact``), or what of it a suffix follows
    (:func:`_stems`), is one edit (:func:`_one_off`) from a reserved name's compact key in ``theirs``,
    an ``m`` counted as the one letter it is (:func:`_m_whole`). The keys spell ``m`` as ``rn``
    (:func:`_fold`), so an ``m`` doubled, dropped or put for another letter was two edits:
    ``dippmm-sage``, ``dipp-sage``, ``roofline-same``, ``trappmm`` and ``ll-xgboost`` stood beside the
    references under another team while ``static-xgbooost`` and ``static-xgbost`` were refused: 686 such
    names, 11 to 66 for each of the 21 reference names (hundred-and-first pass, side c)."""
    stems = _stems(name, theirs) | _run_in_stems(name)
    if any(_one_off(m, t) for m in mine_compact | stems for t in theirs):
        return True
    return any(_one_off(_m_whole(m), _m_whole(t)) for m in mine_compact | stems for t in theirs)


# a version run into a name's last word: ``2``, ``v2``, ``ver2``, ``2.1`` (as written, before ``0``
# and ``1`` fold to ``o`` and ``l``)
_RUN_IN_VERSION = re.compile(r"(?P<stem>.*?[a-z])(?:v|ver|version|rev|revision)?[0-9]+(?:[._][0-9]+)*")


def _run_in_stems(name: str) -> set[str]:
    """The compact keys of ``name``, and of what of it precedes each separator or parenthesis, with a
    version run into its last word set aside (``static-xgbost`` of ``static-xgbost2``,
    ``static-xgbostv2``, ``static-xgbost2 (quick)``), for :func:`_one_letter_off`. A number run into a
    reference name takes it (``static-xgboost2``), and so does one letter off it with a suffix after
    (``static-xgbost-v2``), but the two together kept only what :func:`_stems` cuts by the reference's
    length, one letter too long or short once a letter was dropped or doubled: ``static-xgbost2``,
    ``dipm-sage2``, ``ll-xgboost2`` and ``dippm-ssagev2`` were read as another team's names and shown beside
    the references (hundred-and-ninth pass, side a)."""
    found = set()
    for spelling in _spellings(name):
        text = unicodedata.normalize("NFKC", spelling)
        pieces = [text[:cut.start()] for cut in re.finditer(r"[\W_]+", text)] + [text]
        for piece in pieces:
            m = _RUN_IN_VERSION.fullmatch(piece.casefold())
            if m:
                found |= _compact_keys(m["stem"])
    return found


def _m_whole(key: str) -> str:
    """A compact key with TR39's ``rn`` read back as the one letter ``m`` (both sides of a comparison
    read alike, ``rn`` and ``m`` being one reading), for counting edits letter by letter."""
    return key.replace("rn", "m")


def _stems(name: str, reserved_compact: set[str]) -> set[str]:
    """What of ``name`` a suffix may follow, compacted: the name up to each separator or parenthesis
    (``static-xgbost`` of ``static-xgbost-tuned``), and its first as many letters and digits as a
    reserved name has (``statlcxgboost`` of ``statlc-xgboostv2``; a name that *is* the reserved
    name there is :func:`_prefix_of`'s, and ``static-xgboosted`` stays free: zero edits are no typo)."""
    stems = set()
    for spelling in _spellings(name):
        text = unicodedata.normalize("NFKC", spelling)
        stems |= {k for cut in re.finditer(r"[\W_]+", text) for k in _compact_keys(text[:cut.start()])}
    whole = set().union(*(_compact_keys(x) for x in _spellings(name)))
    # (and as many letters as it has with ``m`` one letter: :func:`_one_letter_off`, ``roofline-samev2``)
    return stems | {m[:len(t)] for m in whole for t in reserved_compact} | {
        _m_whole(m)[:len(_m_whole(t))] for m in whole for t in reserved_compact}


@functools.lru_cache(maxsize=65536)
def _one_off(mine: str, reserved: str) -> bool:
    """``mine`` is one edit (:func:`_edits`) from a reserved name's compact form of six or more characters."""
    return len(reserved) >= 6 and abs(len(mine) - len(reserved)) <= 1 and 0 < _edits(mine, reserved) <= 1


def without_quick(method: str) -> str:
    """The name without a ``--quick`` run's suffix, whatever it says inside (``(quick)``,
    ``(Quick, 400 training graphs)``; :func:`perfgraphs.leaderboard.records.ranks.is_quick`)."""
    return re.sub(r"\s*\(quick[,)].*$", "", str(method).strip(), flags=re.IGNORECASE)


def method_key(text: str) -> str:
    """A method name between entries: NFKC, case folded, every character but letters and digits
    dropped, no look-alike folding (``gnn-1`` and ``gnn-l`` are two names). What ``check`` compares
    (:func:`same_method`) and what the boards group one team's records by."""
    return re.sub(r"[^0-9a-z]+", "", unicodedata.normalize("NFKC", str(text)).casefold())


def same_method(a: str, b: str) -> bool:
    """Between teams: ``a`` is ``b`` once case, punctuation and spaces are set aside, with any
    ``(quick…)`` suffix too. ``GNN_X``, ``gnnx``, ``gnn-x'`` and ``(gnn-x)`` are ``gnn-x``;
    ``gnn-x v3``, ``mlp-3`` and ``vit-vl`` are other names than ``gnn-x v2``, ``mlp`` and ``vit-v1``
    (the boards show whose each is, and refuse look-alike authors: :func:`lookalike_people`)."""
    return method_key(without_quick(a)) == method_key(without_quick(b))


# entries of an author list that name nobody (``et al.``) or too little to be one person (an initial)
_NOBODY = re.compile(r"^(et al\.?|and others|others|[a-z]\.?)$")
_INITIALS = re.compile(r"^(?:[a-z]\.\s*-?\s*)*[a-z]\.?$")  # "J.", "J. R.", "J.-P.", "J"


# author lists that name nobody in particular: any team could write them
PLACEHOLDER_AUTHORS = frozenset({"anonymous", "anon", "author", "authors", "the authors", "unknown", "n/a", "na",
                                 "none", "nobody", "tbd", "todo", "me", "us", "we", "team", "my team", "user"})


@functools.lru_cache(maxsize=4096)
def people(authors: str) -> tuple[str, ...]:
    """The people of an author list as written (NFKC, spaces collapsed, case kept). People are
    separated by ``,``, ``;``, ``&`` or ``and``; a "Last, F." list keeps each surname with its
    initials (``Smith, J.`` and ``Smith, K.`` are two people); ``et al.`` and a lone initial name
    nobody."""
    people: list[str] = []
    text = " ".join(unicodedata.normalize("NFKC", str(authors)).split())
    for piece in re.split(r"\s*(?:[,;&]|\b[Aa][Nn][Dd]\b)\s*", text):
        if piece and _INITIALS.fullmatch(piece.casefold()) and people and " " not in people[-1]:
            people[-1] = f"{people[-1]} {piece}"  # "Last, F.": the initials belong to the surname before them
        elif piece:
            people.append(piece)
    return tuple(p for p in people if not _NOBODY.fullmatch(p.casefold()))


def team(authors: str) -> frozenset[str]:
    """The people of an author list (:func:`people`), case folded; never look-alikes folded
    together (``Tirn B1o0m`` is not ``Tim Bloom``: :func:`lookalike_people` says they read alike)."""
    return frozenset(p.casefold() for p in people(authors))


_AFFILIATION = re.compile(r"\([^)]*\)|[@/].*$")


_TITLES = frozenset({"dr", "prof", "mr", "mrs", "ms", "jr", "sr", "ii", "iii", "iv", "phd"})


@functools.lru_cache(maxsize=4096)
def _name_parts(person: str) -> tuple[str, ...]:
    """A person's name words as teams are told apart: the affiliation dropped (``(ETH Zurich)``,
    ``@ETH``, ``/MIT``), case folded, titles and suffixes aside (``Dr.``, ``Jr.``), a hyphenated
    surname one word; a ``Lory M.`` (a "Last, F." list's person) read surname last. () when
    nothing is left."""
    words = [w for w in re.findall(r"[a-z0-9'][a-z0-9'-]*", _AFFILIATION.sub(" ", unicodedata.normalize("NFKC", person)).casefold())
             if w not in _TITLES and w != "team"]  # ``Team Lory`` is no T. Lory (review of 2026-12-08)
    if len(words) >= 2 and len(words[0]) > 1 and all(len(w) == 1 for w in words[1:]):
        words = words[1:] + words[:1]
    return tuple(words)


def same_person_loosely(p: str, q: str) -> bool:
    """Whether two people may be one person written two ways, as a team is counted: the same
    surname (last word) and first name, or a first name and its initial, and no two middle names
    that differ (``Mal Lory``, ``M. Lory``, ``Mal R. Lory``, ``Mal Lory (ETH Zurich)``). Six
    spellings of one author made six teams, each ranked (twenty-first pass of 2026-12-02); a
    surname alone matches only itself, and ``MIT Han Lab`` not ``MIT Systems Lab`` (twenty-second pass).
    Namesakes written with an initial (``W. Chen`` beside ``Wei Chen``) are one team: write the
    full name."""
    a, b = _name_parts(p), _name_parts(q)
    if a and a == b:  # the same name, as written (case, affiliation and titles aside)
        return True
    if len(a) < 2 or len(b) < 2 or a[-1] != b[-1]:
        return False
    f1, f2 = a[0], b[0]
    if not (f1 == f2 or (len(f1) == 1 and f2.startswith(f1)) or (len(f2) == 1 and f1.startswith(f2))):
        return False
    m1, m2 = [w for w in a[1:-1] if len(w) > 1], [w for w in b[1:-1] if len(w) > 1]
    return not (m1 and m2 and m1 != m2)


def named_person(method: str, authors: str, other_authors: str) -> str | None:
    """A person of ``other_authors`` whose name ``method`` holds, when ``authors`` do not include
    them: ``gnn-x (Alice Author)`` by Mal Lory reads as Alice's entry (twenty-first pass of
    2026-12-02). Held: their name (six or more letters and digits) anywhere in the method, a
    capital ``I`` read as ``l`` (``gnn-z (MaI Lory)``); or the method's parenthesised part or its
    last words written as them loosely (:func:`same_person_loosely`: ``gnn-x (M. Lory)``,
    ``gnn-x (Li Bo)``, ``gnn-x-li-bo``), or a parenthesised part that is their surname of four or
    more letters (``gnn-x (Lory)``): each was accepted beside Mal Lory's entry, with no board note
    (twenty-fifth pass). None when there is none. A ``--quick`` run's suffix is the harness's, never
    a person: ``gnn-x (quick)`` read as naming an author surnamed Quick, a note under every board
    holding another team's quick entry (thirty-seventh pass)."""
    method = without_quick(method)
    mine = people(authors)
    held = _person_keys(method)
    parts = _written_people(method)
    for q in people(other_authors):
        if any(same_person_loosely(p, q) for p in mine):
            continue
        name_keys = _person_keys(_AFFILIATION.sub(" ", q))
        # cased keys with cased keys only (``Lan`` is not ``Ian``: :func:`_compact_keys_by_kind`)
        if any(len(k) >= 6 and c == d and k in m for c, k in name_keys for d, m in held):
            return q
        if any(same_person_loosely(part, q) for part in parts) or _surname_named(method, q, mine):
            return q
    return None


@functools.lru_cache(maxsize=4096)
def _written_people(method: str) -> tuple[str, ...]:
    """The parts of a method that could be a person written whole: each person of a parenthesised
    part (``gnn-x (M. Lory, Bob)``), and its last two and three words (``gnn-x Li Bo``,
    ``gnn-x-mal-r-lory``), affiliations and separators aside. One word alone is never a person
    here: a team named ``Gnn`` would otherwise own every ``...-gnn`` (a long one is found whole)."""
    text = _plain_name(unicodedata.normalize("NFKC", str(method)))
    parts = [p for inside in re.findall(r"\(([^()]*)\)", text) for p in people(_plain_name(inside))]
    parts += [p for inside in re.findall(r"\(([^()]*)\)", text) for p in _surname_first_people(_plain_name(inside))]
    words = re.findall(r"[A-Za-z0-9']+", _plain_name(re.sub(r"\([^()]*\)", " ", text)))
    parts += [" ".join(words[-n:]) for n in (2, 3) if len(words) >= n]
    # a two-word name in either order, as teams are told (``gnn-x Bo Li``, ``Lory, Mal``)
    parts += [" ".join(p.split()[::-1]) for p in parts if len(p.split()) == 2]
    return tuple(parts)


def _surname_first_people(text: str) -> list[str]:
    """The people a "Last, First" list writes, each as "First Last": a one-word piece followed by the
    piece after its comma (``Lory, Mal`` and ``Lory, Mal A.`` are ``Mal Lory`` and ``Mal A. Lory``). Why:
    :func:`people` reads them as two, a surname and a first name, and ``gnn-x (Lory, Mal)`` by another
    team named Mal Lory on the board with ``check`` passing it (hundred-and-twenty-third pass, side c)."""
    pieces = people(text)
    return [f"{first} {last}" for last, first in zip(pieces, pieces[1:]) if len(last.split()) == 1]


# what may follow a name without making it another: a version (``gnn-x Li Bo 2``, ``gnn-li-bo-v2``,
# ``(Li Bo v2)``) and a possessive (``gnn-x Li Bo's``): each hid the name from the rule above, which
# read the last words or the bracket whole (twenty-sixth pass of 2026-12-03)
_VERSION_TOKEN = re.compile(r"(?:v|ver|version|rev|revision)?[0-9]+", re.IGNORECASE)
_VERSION_WORDS = frozenset({"v", "ver", "version", "rev", "revision"})


def _plain_name(text: str) -> str:
    """``text`` without possessives and a trailing version (read token by token from the end: a
    regular expression for it backtracked for minutes on ``1-1-1-…x``)."""
    tokens = re.findall(r"[A-Za-z0-9]+|[^A-Za-z0-9]+", re.sub(r"'s\b|'(?=\s|$|\))", "", text))
    numbered = False
    while len(tokens) > 1:
        last = tokens[-1]
        if not last[0].isalnum() and last.strip(" -_./") == "":
            tokens.pop()  # a separator
        elif _VERSION_TOKEN.fullmatch(last) or (numbered and last.casefold() in _VERSION_WORDS):
            numbered = numbered or last[-1].isdigit()
            tokens.pop()
        else:
            break
    return "".join(tokens) if any(t[0].isalnum() for t in tokens) else text


def _surname_named(method: str, person: str, mine: tuple[str, ...]) -> bool:
    """Whether a parenthesised part of ``method`` is ``person``'s surname alone (four or more
    letters; ``gnn-x (Lory)``), and none of ``mine`` bears that surname."""
    surname = (_name_parts(person) or ("",))[-1]
    if len(surname) < 4 or len(_name_parts(person)) < 2 or any(_name_parts(p)[-1:] == (surname,) for p in mine):
        return False
    inside = re.findall(r"\(([^()]*)\)", unicodedata.normalize("NFKC", str(method)))
    return any(_name_parts(_plain_name(part)) == (surname,) for part in inside)


# words that stand for a name without being one: a person made only of them (and numbers, and the
# ``N.N.`` of "nomen nescio") is a placeholder however it is put together (``Anonymous Authors``,
# ``Anon. Team``, ``Authors withheld``, ``Blind Submission``, ``Anonymous 1``): whole strings only
# made two teams writing ``Anonymous Authors`` one team (twenty-fifth pass of 2026-12-02)
_PLACEHOLDER_WORDS = frozenset(w for a in PLACEHOLDER_AUTHORS for w in re.findall(r"[a-z]+", a)) | {
    "anonymous", "anonymised", "anonymized", "anon", "author", "authors", "withheld", "blind", "submission",
    "submitted", "redacted", "team", "the", "my", "our", "et", "al", "others", "name", "names", "hidden",
    "undisclosed", "unnamed", "tba", "private", "confidential", "placeholder", "review", "double", "anonymously",
    "for"}


def _placeholder_person(person: str) -> bool:
    """Whether ``person`` is made of :data:`_PLACEHOLDER_WORDS`, numbers and ``N.N.`` only."""
    text = re.sub(r"\bn\.\s*n\.?", " ", unicodedata.normalize("NFKC", person).casefold())
    return all(w.isdigit() or w in _PLACEHOLDER_WORDS for w in re.findall(r"[a-z0-9]+", text))


def names_nobody(authors: str) -> bool:
    """Whether an author list names no one in particular (``Anonymous``, ``et al.``, ``TBD``,
    ``Anonymous Authors``, ``Anon. Team``, ``Redacted``, ``N.N.``): each of its people is a
    placeholder, as a whole or word by word (:func:`_placeholder_person`)."""
    return all(p.casefold() in PLACEHOLDER_AUTHORS or _placeholder_person(p) for p in people(authors))


def lookalike_people(a: str, b: str) -> list[tuple[str, str]]:
    """The people of ``a`` who read as someone of ``b`` without being them as written (case aside):
    the same once look-alikes are folded and punctuation dropped (``vv``/``cl`` too): ``AIice
    Author`` with a capital ``I`` and ``Alice Author``, ``Tirn Bloorn`` and ``Tim Bloom``, ``Bob
    Builder'`` and ``Bob Builder``. Pairs (a's, b's)."""
    found = []
    for p in people(a) + _last_first_people(a):
        for q in people(b) + _last_first_people(b):
            if p.casefold() != q.casefold() and _person_keys(p) & _person_keys(q):
                found.append((p, q))
    return found


@functools.lru_cache(maxsize=4096)
def _person_keys(person: str) -> frozenset[tuple[bool, str]]:
    """What a person's name reads as (:func:`lookalike_people`); a board compares every pair of its
    authors with every author of the leaderboard, so each name is folded once."""
    return frozenset().union(*(_compact_keys_by_kind(x) for x in _spellings(person)))


def lookalike_notes(rows, elsewhere=()) -> list[str]:
    """For a board's (method, authors) rows: one line for each two entries whose authors read alike
    without being written the same (:func:`lookalike_people`), or that share a method name under two
    author lists, on this board or between one of its rows and a record of another board
    (``elsewhere``: (method, authors) of every record, wherever it is; names belong to their authors
    across the leaderboard). ``check``/``submit`` refuse such names; a hand-written record is
    shown, and this line says what to look at."""
    rows = list(dict.fromkeys((str(m), str(a)) for m, a in rows))
    others = [r for r in dict.fromkeys((str(m), str(a)) for m, a in elsewhere) if r not in rows]
    out = []
    for i, (m1, a1) in enumerate(rows):
        for (m2, a2), where in [(r, "") for r in rows[i + 1:]] + [(r, ", on another board") for r in others]:
            for p, q in lookalike_people(a1, a2)[:1]:
                out.append(f"look-alike authors: {p!r} ({m1}) and {q!r} ({m2}{where}) read alike but are written "
                           "differently: two entries, told apart letter by letter")
            for method, authors, other, other_method in ((m1, a1, a2, m2), (m2, a2, a1, m1)):
                named = named_person(method, authors, other)
                if named is not None:
                    out.append(f"a method names another entry's author: {method!r} by {authors!r} names {named!r} "
                               f"(an author of {other_method!r}{where}): two entries, told apart by their authors")
            if a1 != a2 and same_method(m1, m2):
                out.append(f"one method name, two author lists: {m1!r} by {a1!r} and {m2!r} by {a2!r}{where}: "
                           "two entries, told apart by their authors")
    return out


def same_name(a: str, b: str) -> bool:
    """Whether ``a`` and ``b`` read the same (a key in common)."""
    return bool(keys(a) & keys(b))


def is_reference_authors(authors: str) -> bool:
    """Whether ``authors`` reads as the reference baselines' author: it canonicalises onto
    ``REFERENCE_AUTHORS`` or names a "reference baseline" at all (:func:`_names_reference_authors`),
    names the project (:func:`names_project`) or its people (``official``, ``maintainers``,
    ``organisers``, ``keeper``: twenty-fifth pass). Byte-equal or look-alike."""
    return _names_reference_authors(authors) or names_project(authors) or any(
        _names_organisers(words) for words in _words_as_read(authors))


def _words_as_read(text: str) -> list[list[str]]:
    """The words of ``text`` as written (NFKC, case folded), and as read: those of each of its keys
    (:func:`keys`, ``m`` kept whole), so that a board's, a tier's or the organisers' word spelled with a
    look-alike is that word. They were compared as written only: authors ``officiaI team`` (a capital
    ``I``), ``0fficial team`` and ``benchmark rnaintainers``, and the method ``gnn-x (reproducecl)``, were
    accepted where ``official team`` and ``gnn-x (reproduced)`` are refused (hundred-and-tenth pass,
    side b). Each reading also with its credit words as read (:func:`_credit_words_as_read`: ``1``, ``I``,
    ``l`` and ``i`` alike; hundred-and-eleventh pass, side a)."""
    plain = re.findall(r"[a-z0-9]+", unicodedata.normalize("NFKC", str(text)).casefold())
    read = {_m_whole(k).replace(_CAPITAL_L_KEY, "l") for x in _spellings(text) for k in keys(x)}
    readings = [plain] + [re.findall(r"[a-z0-9]+", k) for k in sorted(read)]
    return readings + [_credit_words_as_read(words) for words in readings]


def _shapes(word: str) -> frozenset[str]:
    """What a lowercase ``word`` looks like on a board, ``i``, ``l`` and ``1`` alike (each a stroke in
    the boards' font) and ``0`` as ``o``: as written, and with the letter pairs read as one letter
    (``rn`` ``m``, ``vv`` ``w``, ``cl`` ``d``, ``ri`` ``n``, ``li`` ``h``). For credit words and the
    project's name only: between people's names it would make Ian and Lan one."""
    paired = word
    for pair, letter in (("rn", "m"), ("vv", "w"), ("c[l1]", "d"), ("r[i1]", "n"), ("[l1][i1]", "h")):
        paired = re.sub(pair, letter, paired)
    return frozenset(x.replace("1", "l").replace("i", "l").replace("0", "o") for x in (word, paired))


_CREDIT_WORDS = frozenset({"official", "officials", "maintainer", "maintainers", "organiser", "organisers",
                           "organizer", "organizers", "verified", "reproduced", "selfreported", "reported",
                           "self", "hidden", "reference", "references", "tier", "rank"})


@functools.lru_cache(maxsize=4096)
def _credit_shapes() -> dict[str, str]:
    return {shape: word for word in sorted(_CREDIT_WORDS) for shape in _shapes(word)}


def _credit_words_as_read(words: list[str]) -> list[str]:
    """``words`` with each that looks like a credit word written as it (:func:`_shapes`), and a rank's
    number written with letters (``rank l``, ``rank I``, ``rankl``, ``rank 1o``) as digits. Look-alikes
    were folded by the confusables table, which reads ``1`` and ``I`` as ``l`` only, never as ``i``, and
    ``ri``/``li`` as themselves: the method ``gnn-x (verif1ed)``, ``gnn-x (rank l)``, and authors
    ``organ1sers``, ``offlcial team`` and ``perfgraplis team`` were accepted and shown
    (hundred-and-eleventh pass, side a)."""
    shapes = _credit_shapes()
    read = [next((shapes[s] for s in sorted(_shapes(w)) if s in shapes), None) or _credit_typo(w) or w for w in words]
    for i, w in enumerate(read):
        if re.fullmatch(r"rank(?:[lio]|[lio0-9]*[0-9][lio0-9]*)", w):
            read[i] = "rank" + w[4:].translate(str.maketrans("lio", "110"))
        elif i and read[i - 1] == "rank" and re.fullmatch(r"[lio]|[lio0-9]*[0-9][lio0-9]*", w):
            read[i] = w.translate(str.maketrans("lio", "110"))
    return read


_VOWELS = frozenset("aeiouy")


def _credit_typo(word: str) -> str | None:
    """The credit word of six letters or more (:data:`_CREDIT_WORDS`) that ``word``, a whole word, is a
    plain typo of, else None: a letter dropped or added inside it (``offical``, ``maintaners``,
    ``verifed``, ``hiden``), two neighbours swapped (``officail``), or a vowel put for a vowel
    (``organisors``). Credit words were read with look-alikes folded but no typo: authors ``offical
    team``, ``benchmark mantainers``, ``organisors``, ``Mal Lory verifed`` and the methods ``gnn-x
    (hiden)``, ``gnn-x (verifed)`` were accepted and shown (hundred-and-twelfth pass, side a). Not
    any one edit: a consonant put for another or a last letter dropped or added makes another word
    (``mlp-verifier``, ``maintained``, ``organise``, ``reproduces`` stay free)."""
    return next((credit for credit in sorted(w for w in _CREDIT_WORDS if len(w) >= 6) if _typo_of(word, credit)),
                None) or _credit_typo_as_read(word)


def _typo_of(word: str, credit: str) -> bool:
    """Whether ``word`` is ``credit`` with one plain typo (:func:`_credit_typo`'s kinds)."""
    if word == credit or abs(len(word) - len(credit)) > 1:
        return False
    short, long_ = sorted((word, credit), key=len)
    if len(short) < len(long_):
        return any(long_[:i] + long_[i + 1:] == short for i in range(1, len(long_) - 1))
    diff = [i for i in range(len(word)) if word[i] != credit[i]]
    return (len(diff) == 1 and {word[diff[0]], credit[diff[0]]} <= _VOWELS) or (
        len(diff) == 2 and diff[1] == diff[0] + 1 and word[diff[0]] == credit[diff[1]] and word[diff[1]] == credit[diff[0]])


def _credit_typo_as_read(word: str) -> str | None:
    """The credit word ``word`` is a plain typo of once both are read as look-alikes (:func:`_shapes`: ``i``,
    ``l``, ``1`` one stroke), else None. Each rule alone let the pair through: ``offlcal team`` (an ``i`` as
    ``l`` and an ``i`` dropped) and the method ``gnn-x (offlcal)`` were free (hundred-and-fourteenth pass,
    mine; 112a's lead)."""
    for credit in sorted(w for w in _CREDIT_WORDS if len(w) >= 6):
        if any(_typo_of(a, b) for a in _shapes(word) for b in _shapes(credit)):
            return credit
    return None


@_remembered
def _names_reference_authors(authors: str) -> bool:
    """Whether ``authors`` canonicalises onto ``REFERENCE_AUTHORS`` or names a "reference baseline"."""
    from perfgraphs.leaderboard.records.references import REFERENCE_AUTHORS

    if same_name(authors, REFERENCE_AUTHORS):
        return True
    marker = canonical("reference baseline")
    # punctuation between the words does not make another author (``referencebaselines``,
    # ``reference (baselines)``), nor does the project's name with a word of "reference baselines",
    # abbreviated or reordered (``perfgraphs ref. baselines``): review of 2026-12-02
    plain = compact(authors)
    # a word of "reference baselines": "ref", "ref.", "refer…", "baseline…" (not "Refik" or "Trefethen"),
    # or one typo away (``refrence``, ``baselnes``); the project's name, or a typo of it
    # (``pefrgraphs``, ``perfgraph``): typo-squats of the reference authors (review of 2026-12-02); and both
    # words without the project's name (:func:`_typed_reference_baselines`)
    words = re.findall(r"[a-z0-9]+", unicodedata.normalize("NFKC", str(authors)).casefold())
    project = compact("perfgraphs") in plain or any(len(w) >= 7 and _edits(w, "perfgraphs") <= 2 for w in words)
    return any(marker in k for k in keys(authors)) or compact("reference baseline") in plain \
        or (project and any(_reference_word(w) or _baseline_word(w) for w in words)) \
        or _typed_reference_baselines(words)


def _reference_word(word: str) -> bool:
    """``ref``, ``refer…``, ``references`` or two typos from ``reference(s)`` (not ``Refik``)."""
    return len(word) >= 3 and "references".startswith(word) or \
        len(word) >= 6 and min(_edits(word, x) for x in ("reference", "references")) <= 2


def _baseline_word(word: str) -> bool:
    """``baseline…`` or two typos from ``baseline(s)``."""
    return word.startswith("baseline") or len(word) >= 6 and min(_edits(word, x) for x in ("baseline", "baselines")) <= 2


def _typed_reference_baselines(words: list[str]) -> bool:
    """Both words of "reference baselines" without the project's name, either typed so: only the
    words as written, or the project's name with one of them, took the reference authors' name, and
    ``refrence baselines``, ``reference baselnes``, ``ref baselines`` and ``baseline references`` were
    free (hundred-and-thirteenth pass, side c, 112a's lead)."""
    return any(map(_reference_word, words)) and any(map(_baseline_word, words))


# author words that read as the project's own people: ``perfgraphs official``, ``benchmark maintainers``,
# ``leaderboard organisers``, ``hidden-set keeper`` were accepted as a team's authors and shown on the
# official board (twenty-fifth pass of 2026-12-02); no person is named so
_ORGANISER_WORDS = frozenset({"official", "officials", "maintainer", "maintainers", "organiser", "organisers",
                              "organizer", "organizers"})
# ``Keeper`` is also a surname (``Ann Keeper`` was refused): the word names the project's people
# alone or after what it keeps (``hidden-set keeper``, ``leaderboard keeper``)
_KEEPER_WORDS = frozenset({"keeper", "keepers"})
_KEPT_WORDS = frozenset({"hidden", "set", "hiddenset", "label", "labels", "board", "leaderboard", "benchmark",
                         "data", "dataset", "test", "secret", "the"})


def _names_organisers(words: list[str]) -> bool:
    """Whether the author words name the project's people: an organiser's word, or ``keeper`` alone
    or after what is kept."""
    if _ORGANISER_WORDS & set(words):
        return True
    return any(w in _KEEPER_WORDS and (len(words) == 1 or (i > 0 and words[i - 1] in _KEPT_WORDS))
               for i, w in enumerate(words))


def names_project(text: str) -> bool:
    """Whether ``text`` names the project: ``perfgraphs`` anywhere once punctuation and look-alikes are
    set aside (``perf graphs team``), or a word, or two words run together, one edit from it
    (``perfgraph``, ``pefrgraphs``, ``perf grahps``). Only the reference authors, and no method,
    may (twenty-fifth pass of 2026-12-02)."""
    words = re.findall(r"[a-z0-9]+", unicodedata.normalize("NFKC", str(text)).casefold())
    runs = words + [a + b for a, b in zip(words, words[1:])]
    return compact("perfgraphs") in compact(text) or any(
        9 <= len(w) <= 11 and _edits(w, "perfgraphs") <= 1 for w in runs) or any(
        _project_as_read(read + [a + b for a, b in zip(read, read[1:])]) for read in _words_as_read(text))


def _project_as_read(runs: list[str]) -> bool:
    """Whether a word, or two run together, looks like the project's name (:func:`_shapes`: ``i``, ``l``
    and ``1`` alike, ``li`` as ``h``, ``rn`` as ``m``), then one edit. The one edit was counted on the
    letters as written, where ``li`` for ``h`` is two: authors ``perfgraplis team``, ``perfgrapIis`` and
    ``perfgrap1is`` were accepted and shown (hundred-and-eleventh pass, side a)."""
    targets = _shapes("perfgraphs")
    return any(8 <= len(s) <= 11 and _edits(s, t) <= 1 for w in runs for s in _shapes(w) for t in targets)


def _edits(a: str, b: str) -> int:
    """Optimal-string-alignment distance: insertions, deletions, substitutions and swaps of two
    neighbours (``pefr`` for ``perf``) each count one."""
    d = [[i + j if i * j == 0 else 0 for j in range(len(b) + 1)] for i in range(len(a) + 1)]
    for i in range(1, len(a) + 1):
        for j in range(1, len(b) + 1):
            d[i][j] = min(d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + (a[i - 1] != b[j - 1]))
            if i > 1 and j > 1 and a[i - 1] == b[j - 2] and a[i - 2] == b[j - 1]:
                d[i][j] = min(d[i][j], d[i - 2][j - 2] + 1)
    return d[len(a)][len(b)]


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
    """``method`` or ``authors`` (``field``) outside the documented character set or length limit,
    or a method holding a credit (:func:`credit_in_method`): one line each, saying what to do. Empty
    when ``text`` is fine."""
    return list(_charset_problems(field, str(text)))


@_remembered
def _charset_problems(field: str, text: str) -> tuple[str, ...]:
    problems = []
    limit = _LIMITS.get(field)
    if limit is not None and len(text) > limit:
        # that line alone: the readings below are slow on long text, and a hand-written record's 900,000
        # characters of ``a, a, …`` took ``leaderboard show`` 138 s to skip (review of 2026-12-08)
        return (f"{field} is {len(text)} characters long: shorten it to at most {limit}",)
    if field == "authors" and any(not piece.strip() for piece in re.split(r"[,;&]", text)):
        problems.append(f"authors {text!r} has an empty name between separators (, ; &): list names only")
    if text != " ".join(text.split(" ")).strip() or "  " in text:
        # spaces that a page collapses would make two author lists display alike (review of 2026-12-02)
        problems.append(f"{field} {text!r} has leading, trailing or repeated spaces: write single spaces between words")
    bad = sorted({c for c in text if not _ALLOWED.fullmatch(c)})
    if bad:
        shown = ", ".join(f"{c!r} (U+{ord(c):04X} {unicodedata.name(c, 'unnamed')})" for c in bad[:5])
        more = f" and {len(bad) - 5} more" if len(bad) > 5 else ""
        problems.append(f"{field} {text!r} has character(s) outside the allowed set: {shown}{more}; "
                        f"use only {_ALLOWED_TEXT}")
    if field == "method":
        problems += credit_in_method(text)
    if field == "authors":
        problems += tier_in_authors(text) + ambiguous_authors(text)
    return tuple(problems)


_OTHERS = re.compile(r"^(et al\.?|and others|others)$")  # :data:`_NOBODY` but initials, which a "Last, F." list writes


def ambiguous_authors(authors: str) -> list[str]:
    """An author list whose commas can be read as two lists of people, one line; else empty. A comma
    parts people (``Mal Lory, Bob Builder``) and also a "Last, First" name (``Lory, Mal``, ``Zhang, W.``):
    where one name word stands alone before a comma, both readings are open. A run of pieces between
    other separators (``;``, ``&``, ``and``, ``+``, ``/``, ``with``) is read one way only when no lone
    word stands before a comma in it, or when it is a "Last, First" list throughout: a lone word, then a
    first name (a word, with initials after it) or initials, pair after pair (:func:`_reads_one_way`).
    Why: ``Bob, Lory, Mal`` and ``MIT, Lory, Mal`` are Mal Lory's team or not depending on the reading
    (``Zhang, Wei, Li Chen``, the same shape, is Wei Zhang's and Li Chen's, and must not be a ``Wei Li``);
    any rule chose one and the other reading got a second ranked entry or a rival's taken off the board
    (hundred-and-twenty-fifth pass, sides d and e). ``DeepMind, Bob Builder`` read as a "Bob DeepMind"
    too. Refused in ``check`` and when records are read: write people apart with ``&`` (``;`` is outside the
    character set)."""
    if len(str(authors)) > AUTHORS_MAX_CHARS:
        return []  # refused for its length (:func:`check_charset`); the reading below is quadratic in ``((((``
    if all(_reads_one_way(pieces) for pieces in _comma_runs(authors)):
        return []
    return [f"authors {authors!r} can be read as more than one list of people (a name word alone before a "
            f"comma may be a surname written first, 'Lory, Mal', or a person): write people apart with '&' "
            f"('Lory, Mal & Bob Builder'), an affiliation in brackets ('Bob Builder (MIT)')"]


@functools.lru_cache(maxsize=4096)
def _comma_runs(authors: str) -> tuple[tuple[str, ...], ...]:
    """An author list's runs of comma-parted pieces, as written: a run between the separators that part
    people only (``;``, ``&``, ``and``, ``+``, ``/``, ``with``), affiliations in brackets or after ``@`` and
    ``et al.`` left out."""
    text = re.sub(r"\([^)]*\)|@[^,;&+/]*", " ", unicodedata.normalize("NFKC", str(authors)))
    # ``et al.`` after a name is no part of it (``Lory, Mal et al.``: 126g's lead, refused as reading two ways)
    text = re.sub(r"\s+[Ee][Tt]\s+[Aa][Ll]\b\.?", " ", text)
    runs = re.split(r"[;&+/]|\b(?:[Aa][Nn][Dd]|[Ww][Ii][Tt][Hh])\b", text)
    return tuple(tuple(" ".join(p.split()) for p in run.split(",") if _a_person_piece(p)) for run in runs)


def _a_person_piece(piece: str) -> bool:
    """Whether a comma-parted piece of an author list may be (part of) a person: not empty, not ``et al.`` or
    ``others``, not a suffix or title alone (``Lory, Mal, Jr.`` is Mal Lory Jr.: 126g's lead, where the ``Jr.``
    piece made the list read two ways)."""
    words = re.findall(r"[a-z0-9]+", piece.casefold())
    return bool(words) and not _OTHERS.fullmatch(piece.strip().casefold()) and not all(w in _BESIDE_A_SURNAME for w in words)


def _one_word(piece: str) -> str:
    """A piece with a hyphenated or apostrophed name written as one word, as :func:`_name_pairs` reads it
    (``O'Brien``, ``Lory-Smith``)."""
    return _apostrophes_joined(re.sub(r"(?<=\w)-(?=\w)", "", piece))


def _last_first_people(authors: str) -> tuple[str, ...]:
    """The people a "Last, First" list writes (one that reads one way: :func:`ambiguous_authors`), each as
    "First Last", spelled as written (``Lo-ry, Mal`` is ``Mal Lo-ry``), for :func:`lookalike_people`."""
    found: list[str] = []
    for pieces in _comma_runs(authors):
        if any(_written_as_surname(_one_word(p)) for p in pieces[:-1]) and _reads_one_way(pieces):
            found += [f"{first} {last}" for last, first in zip(pieces[0::2], pieces[1::2])]
    return tuple(found)


def _reads_one_way(pieces: list[str]) -> bool:
    """Whether the comma-parted ``pieces`` of an author list read as one list of people
    (:func:`ambiguous_authors`): no piece but the last written as a surname alone
    (:func:`_written_as_surname`), or surname and first name pair after pair."""
    surnames = [_written_as_surname(_one_word(p)) for p in pieces]
    if not any(surnames[:-1]):
        return True
    return len(pieces) % 2 == 0 and all(surnames[0::2]) and all(_written_as_first_name(_one_word(p)) for p in pieces[1::2])


def _written_as_first_name(piece: str) -> bool:
    """Whether a piece after a "Last," is a first name as such lists write it: initials (``W.``, ``J. R.``)
    or one name word with initials after it (``Mal``, ``Mal A.``), titles aside."""
    words = [w for w in re.findall(r"[a-z0-9]+", unicodedata.normalize("NFKC", str(piece)).casefold())
             if w not in _BESIDE_A_SURNAME]
    return bool(words) and all(len(w) == 1 for w in words[1:])


# a tier's words, never a person's: authors ``Tier Verified`` (or ``Mal Lory (verified, hidden test
# set)``) were shown beside the row's own tier (twenty-seventh pass of 2026-12-03). Narrower than a
# method's board words: ``Rank``, ``Official``, ``Keeper`` and ``Reference`` are surnames too.
_AUTHOR_TIER_WORDS = frozenset({"verified", "reproduced", "selfreported", "tier"})


# what a hidden board keeps, after ``hidden`` in an author list: ``Mal Lory (hidden set)`` and ``Mal Lory hidden
# labels`` were accepted where ``hidden test`` was refused (hundred-and-seventeenth pass, side c)
_HIDDEN_OBJECTS = frozenset({"test", "tests", "testset", "set", "sets", "label", "labels", "board", "leaderboard",
                             "round", "split", "data", "dataset"})


def tier_in_authors(authors: str) -> list[str]:
    """An author list holding a tier's word, or ``hidden`` and what a hidden board keeps (``hidden test``,
    ``hidden set``, ``hidden labels``: :data:`_HIDDEN_OBJECTS`), one line; else empty."""
    found = next((w if w in _AUTHOR_TIER_WORDS else f"{w} {after}".strip() for words in _words_as_read(authors)
                  for w, after in zip(words, words[1:] + [""])
                  if w in _AUTHOR_TIER_WORDS or w + after == "selfreported"
                  # ``hidden-set keeper`` names the project's people: that rule's line says so (``_names_organisers``)
                  or (_hidden_object(w, after) and not _names_organisers(words))), None)
    if found is None:
        return []
    return [f"authors {authors!r} hold {found!r}, a tier's word the boards print in their own column: list "
            "people's names only"]


def _hidden_object(word: str, after: str) -> bool:
    """Whether ``word`` and the word after it say "hidden" and what a hidden board keeps, apart or run together
    (``hiddenset``)."""
    return (word == "hidden" and after in _HIDDEN_OBJECTS) or (
        word.startswith("hidden") and word[len("hidden"):] in _HIDDEN_OBJECTS)


# words a board prints about a row, never a method's own: ``gnn-v (verified, hidden test set)`` by
# ``perfgraphs official`` was shown on the official board beside its tier column saying
# "reproduced", and ``gnn-x (rank 1)`` beside its real rank (twenty-fifth pass of 2026-12-02)
_BOARD_WORDS = frozenset({"verified", "reproduced", "selfreported", "hidden", "official", "reference", "references",
                          "keeper"})


def _board_label(words: list[str]) -> str:
    """The first of a method's ``words`` (lowercase letters and digits) that is a board's word
    (:data:`_BOARD_WORDS`, ``self-reported`` split or not), or ``rank`` and a number, or a place
    claimed in words (:func:`_place_claim`), or ''."""
    for word, after in zip(words, words[1:] + [""]):
        if word in _BOARD_WORDS:
            return word
        if word + after == "selfreported":
            return "self-reported"
        if re.fullmatch(r"rank[0-9]+(?:st|nd|rd|th)?", word + after if word == "rank" else word):
            return f"rank {(word + after)[4:] if word == 'rank' else word[4:]}"
    return _place_claim(words)


# a place on a board as words: a number (digits, with or without an ordinal's ending) or its word
_PLACE_NUMBER = r"(?:[0-9]+(?:st|nd|rd|th)?|one|two|three|first|second|third)"


def _place_claim(words: list[str]) -> str:
    """A place on the board claimed in words, else '': ``rank one``, ``ranked 1``, ``no 1``, ``number
    one``, ``first place``, ``place 1``, ``top 1`` or ``1st``/``2nd``/``3rd`` at the end, ``winner``,
    ``champion``. Only ``rank`` and a digit were read as a rank: the methods ``gnn-x (rank one)``,
    ``gnn-x (1st)``, ``gnn-x (top 1)``, ``gnn-x (winner)`` were accepted and shown beside their real
    rank (hundred-and-thirteenth pass, side c). ``top-k``, ``first-order``, ``lstm-1st-order``,
    ``gnn-top-3-features`` and ``one-shot`` stay free: a place needs its number and its word together."""
    text = " ".join(words)
    found = re.search(rf"\b(?:(?:rank(?:ed)?|no|number|place)\s?{_PLACE_NUMBER}|{_PLACE_NUMBER}\s?place"
                      rf"|top\s?{_PLACE_NUMBER}$|[123](?:st|nd|rd)$|winner|winners|champion|champions)\b", text)
    return found.group(0) if found else ""


def credit_in_method(method: str) -> list[str]:
    """A method name that reads as a credit, one line: the boards print ``<method> by <authors>``,
    so ``gnn-x by Alice Author`` under Mal Lory read as Alice's row, and ``mlp-plus by perfgraphs
    reference baselines`` as a reference's (twentieth pass of 2026-12-02). The word ``by`` and the
    reference authors (:func:`is_reference_authors`) are the authors column's, never a method's; a
    tier, the hidden set, a rank (:func:`_board_label`) and the project's name are the board's
    (twenty-fifth pass)."""
    words = re.findall(r"[a-z0-9]+", unicodedata.normalize("NFKC", str(method)).casefold())
    if "by" in words:
        return [f"method {method!r} has the word 'by', which the boards print before the authors: name the "
                "method alone (the authors field says whose it is)"]
    if _names_reference_authors(method):
        return [f"method {method!r} names the reference baselines' authors: name the method alone"]
    label = next((x for read in _words_as_read(method) if (x := _board_label(read))), "")
    if label:
        return [f"method {method!r} has {label!r}, which reads as the board's own word (a tier, the hidden test "
                "set, a rank, the official or reference rows): name the method alone; the board says the rest"]
    if names_project(method) or is_reference_authors(method):
        return [f"method {method!r} names the project or its people: name the method alone"]
    return []


# Words that join or qualify names, never a name's own: a pair holding one is no person
_NOT_NAME_WORDS = _TITLES | frozenset({"et", "al", "and", "with", "the", "of", "team", "group", "lab", "s", "msc",
                                       "bsc"})
# ... as :func:`_name_pairs` reads them, :func:`canonical` (``team`` as ``tearn``, ``ms`` as ``rns``: TR39's
# ``m``). Compared unfolded, they were never dropped: ``Team Lory`` held the pair ``tearn lory``, of which
# ``T. Lory`` is an initial, and ``Ms Lory`` that of ``R. Lory``, other people made one team (review of 2026-12-08)
_NOT_NAME_KEYS = _NOT_NAME_WORDS | frozenset(canonical(w) for w in _NOT_NAME_WORDS)


def _name_pairs(authors: str) -> set[tuple[str, str]]:
    """The adjacent name words of an author list, folded (:func:`canonical`): each piece read on its
    own (``,``, ``;``, ``&``, ``+``, ``/``, ``and``, ``with`` between people; an affiliation in
    brackets or after ``@`` dropped), and two one-word pieces in a row read as one name
    (``Lory, Mal``)."""
    text = re.sub(r"\([^)]*\)|@[^,;&+/]*", " ", unicodedata.normalize("NFKC", str(authors)))
    # a hyphenated name is one word, as a person's name parts read it (:func:`_name_parts`): split, its
    # last part paired with the next word, and ``Ann Mal Lory-Smith`` held the name ``Mal Lory``, one
    # team with him, whose entry left the ranks beside hers (forty-fourth pass)
    text = re.sub(r"(?<=\w)-(?=\w)", "", text)
    joined = _apostrophes_joined(text)
    return _written_pairs(text) | (_written_pairs(joined) if joined != text else set())


def _written_pairs(text: str) -> set[tuple[str, str]]:
    """:func:`_name_pairs` of ``text`` with its brackets, ``@`` parts and hyphens already taken out."""
    parts = re.split(r"([,;&+/]|\b(?:[Aa][Nn][Dd]|[Ww][Ii][Tt][Hh])\b)", text)
    pieces, commas = parts[0::2], [separator == "," for separator in parts[1::2]]
    words = [[w for w in re.findall(r"[a-z0-9]+", canonical(piece)) if w not in _NOT_NAME_KEYS] for piece in pieces]
    pairs = {pair for piece in words for pair in _adjacent(piece)}
    pairs |= _surname_first_pairs(words, _surname_pieces(pieces, commas), commas)
    return pairs


# a number written apart from the name words, an ordinal too (``2``, ``42``, ``2nd``): no name word
_NUMBER_WORD = re.compile(r"[0-9]+(?:st|nd|rd|th)?")


def _numbers_apart_dropped(text: str) -> str:
    """``text`` without the numbers written apart from its name words (``Lory 2, Mal`` as ``Lory, Mal``,
    ``Mal Lory 2`` as ``Mal Lory``), for :func:`_name_pairs`, as :func:`_written_as_surname` reads a piece
    (a number run into a word is :func:`_run_in_numbers_dropped`'s). Why: ``Lory 2`` was a piece of two
    words, so no "Last, First" surname, and ``Lory 2, Mal`` (``Lory 1``, ``Lory 2nd``, ``2 Lory`` alike) held
    no ``Mal Lory`` across its comma, while ``Mal Lory 2`` and ``Lory2, Mal`` were his team: ``check`` passed
    it beside his record (no look-alike: a digit is no letter), and on 123c's dippm h200 latency board his
    second entry under it ranked 1 beside his first, a rival's pushed from 2 to 3 (hundred-and-twenty-sixth
    pass, side g)."""
    return re.sub(r"(?<![\w.'-])[0-9]+(?:st|nd|rd|th)?(?![\w'-])", " ", text)  # ``Lory-2``: run in


def _apostrophes_joined(text: str) -> str:
    """``text`` with an apostrophe inside a name word taken out (``O'Brien`` as ``OBrien``, one word of
    two or more letters), a possessive ``'s`` kept apart (``Mal Lory's group``); :func:`_name_pairs` reads
    both (``Ana D'Souza`` holds ``Ana Souza`` as before). Why: split there, ``O'Brien`` was the words ``o``
    and ``brien``, ``o`` a middle initial to :func:`_named_pairs_in` after a first name and the piece two
    words to :func:`_written_as_surname`, so ``Mal O'Brien`` and ``O'Brien, Mal`` (one person, one team
    before side d of the same pass) shared no name: ``check`` passed the second beside the first's record,
    and his second entry under it ranked 1 beside his first on 123c's dippm h200 latency board, a rival's
    pushed from 2 to 3 (hundred-and-twenty-fifth pass, side e)."""
    return re.sub(r"(?<=[A-Za-z])['’](?=[A-Za-z]{2})", "", text)


def _surname_first_pairs(words: list[list[str]], surnames: list[bool] | None = None,
                         commas: list[bool] | None = None) -> set[tuple[str, str]]:
    """The names a "Last, First" list writes across its comma: a one-word piece (the surname) with the
    first word of the piece after it, whatever follows that word (``Lory, Mal`` and ``Lory, Mal A.``,
    ``Lory, Mal Ann``). Why: only two one-word pieces in a row were read so, and ``Lory, Mal A.`` held no
    pair of ``Mal Lory``: his second entry under it was ranked beside his first, a rival's entry a rank
    down (hundred-and-twenty-third pass, side c). ``surnames``: whether each piece may be a surname
    (:func:`_surname_pieces`); every piece may where not given. ``commas``: whether each piece and the next are
    parted by a comma, the one separator a "Last, First" name is written across (``;``, ``&``, ``and``… part
    people only); every pair of pieces is where not given."""
    surnames = surnames if surnames is not None else [True] * len(words)
    commas = commas if commas is not None else [True] * max(len(words) - 1, 0)
    return {(a[0], b[0]) for a, b, surname, comma in zip(words, words[1:], surnames, commas)
            if surname and comma and len(a) == 1 and b}


# what may stand beside a surname written alone without making it another piece: titles and degrees
_BESIDE_A_SURNAME = _TITLES | frozenset({"msc", "bsc"})


def _surname_pieces(pieces: list[str], commas: list[bool] | None = None) -> list[bool]:
    """Whether each piece of an author list is read as a "Last, First" list's surname: written as one
    (:func:`_written_as_surname`), and not itself the first name of the surname before it (``Zhang, Wei,
    Li Chen`` is Wei Zhang and Li Chen: ``Wei`` is Zhang's first name, so holds no ``Wei Li``; read left to
    right). Why: every one-word piece was a surname, so ``Zhang, Wei, Li Chen`` and ``Zhang, Wei, Chen, Li``
    held ``Wei Li`` and ``Wei Chen`` across the comma after a first name, and took such an honest rival's
    entry off the board as their team's second (hundred-and-twenty-fifth pass, side d). The reading starts
    again after any separator but a comma (``commas``, as :func:`_surname_first_pairs`): ``Smith; Lory, Mal``
    read ``Lory`` as Smith's first name, held the person "Lory Smith" and not Mal Lory, and ranked his second
    entry beside his first (the lead of the same pass's side e)."""
    commas = commas if commas is not None else [True] * max(len(pieces) - 1, 0)
    surnames: list[bool] = []
    for i, piece in enumerate(pieces):
        after_a_surname = i > 0 and commas[i - 1] and surnames[-1]
        surnames.append(_written_as_surname(piece) and not after_a_surname)
    return surnames


def _written_as_surname(piece: str) -> bool:
    """Whether a piece of an author list (between ``,``, ``;``, ``&``, ...) is written as a surname a
    "Last, First" list puts before its comma: one name word of two or more letters, alone but for titles
    (``Lory``, ``Dr. Lory``). An initial is a first name (``W.`` of ``Zhang, W.``), and a piece that
    held a group's word is a group (``Chen Lab``, ``The Chen Group``), never a surname. Why: only the name
    words left once ``lab``, ``group``, ``the`` were dropped were counted, so the citation list ``Zhang,
    W., Chen, L.`` (W. Zhang and L. Chen) held the pair ``W. Chen`` across ``W., Chen`` and ``Chen Lab, Wei
    Zhang`` the pair ``Wei Chen``: each, scoring better, took an honest ``Wei Chen``'s rank-2 entry off the
    dippm cpu latency board as its own team's second (hundred-and-twenty-fifth pass, side d)."""
    words = [w for w in re.findall(r"[a-z0-9]+", unicodedata.normalize("NFKC", str(piece)).casefold())
             if w not in _BESIDE_A_SURNAME and not _NUMBER_WORD.fullmatch(w)]  # ``Lory 2``: 126g
    return len(words) == 1 and len(words[0]) > 1


def _adjacent(words: list[str]) -> set[tuple[str, str]]:
    """A piece's pairs of adjacent name words, and those with two adjacent words read as one (``Jean
    Luc Picard`` holds ``jeanluc picard``, the pair of ``Jean-Luc Picard``: one person written two ways,
    and still one team now that a hyphenated name is one word)."""
    pairs = _named_pairs_in(words)
    pairs |= {(a + b, c) for a, b, c in zip(words, words[1:], words[2:])}
    pairs |= {(a, b + c) for a, b, c in zip(words, words[1:], words[2:])}
    # a middle initial between two names (``Mal A. Lory`` holds ``mal lory``, which ``Lory, Mal`` writes)
    pairs |= {(a, c) for a, b, c in zip(words, words[1:], words[2:]) if _initial(b) and not _initial(a) and not _initial(c)}
    return pairs


def _named_pairs_in(words: list[str]) -> set[tuple[str, str]]:
    """A piece's adjacent name words, an initial first only where it begins the piece (``M. Lory``), never a
    middle initial with the surname after it: ``Ann J. Smith`` held the pair ``J. Smith`` of ``Bob J. Smith``,
    and ``Wei A. Chen`` that of ``Li A. Chen``, two people of one surname made one team, the better entry
    taking the other's off the board (hundred-and-twenty-fifth pass, side d)."""
    return {(a, b) for i, (a, b) in enumerate(zip(words, words[1:])) if i == 0 or not _initial(a)}


# a letter as :func:`canonical` folds it, one letter or two: TR39 reads ``m`` as ``rn``
_INITIAL_KEYS = frozenset(canonical(c) for c in "abcdefghijklmnopqrstuvwxyz")


def _initial(word: str) -> bool:
    """Whether a folded name word (:func:`canonical`) is an initial: one letter, or ``rn``, the key of an ``M.``.
    Why: an initial was a word of one letter, and ``M.`` folds to ``rn``, so ``Lory, M. (MIT)`` (and ``Lory, M.
    Jr.``, ``Lory, Dr. M.``) held the pair ``lory rn``, no initial of ``Mal Lory``'s ``rnal``: ``check`` passed it
    beside his record and his second entry under it ranked 1 beside his first, a rival's pushed from 2 to 3 on
    123c's dippm h200 latency board, while ``Lory, B. (MIT)`` was Bob Lory's team; and ``Ann M. Smith`` held
    ``M. Smith`` as a name (a middle initial of two letters), one team with ``Bob M. Smith`` where ``Ann J. Smith``
    and ``Bob J. Smith`` are two (hundred-and-twenty-sixth pass, side g)."""
    return word in _INITIAL_KEYS


def _pairs_alike(p: tuple[str, str], q: tuple[str, str]) -> bool:
    """Two name pairs that may be one person: in either order, each word the same or an initial of
    the other, one of them the same word of two or more letters."""
    def alike(x: str, y: str) -> bool:
        return x == y or (_initial(x) and y.startswith(x)) or (_initial(y) and x.startswith(y))
    return any(alike(p[0], a) and alike(p[1], b) and ((p[0] == a and not _initial(a)) or (p[1] == b and not _initial(b)))
               for a, b in (q, q[::-1]))


def share_a_person(authors: str, other: str) -> bool:
    """Whether two author lists share a person, however written: a person of each is
    :func:`same_person_loosely`, or a name of one (two adjacent name words) is in the other.
    ``Mal Lory et al.``, ``Lory, Mal``, ``Mal Lory + Bob Builder``, ``ETH/Mal Lory``, ``Team Mal
    Lory``, ``Mal Lory's group`` and ``LORY Mal`` were each a team of their own beside ``Mal
    Lory``, each ranked (twenty-fifth pass of 2026-12-02). A number run into a name word is set aside
    in its names (:func:`_run_in_numbers_dropped`)."""
    if any(same_person_loosely(p, q) for p in people(authors) for q in people(other)):
        return True
    mine, theirs = (_name_pairs(_run_in_numbers_dropped(_numbers_apart_dropped(text))) for text in (authors, other))
    return any(_pairs_alike(p, q) for p in mine for q in theirs)


def _run_in_numbers_dropped(authors: str) -> str:
    """``authors`` without the numbers run into a name word, or joined to it by ``-``, ``_`` or ``.``
    (``Mal Lory2``, ``Mal Lory-2``, ``Mal2 Lory``, ``Lory2, Mal`` as ``Mal Lory`` and ``Lory, Mal``), for the
    names two lists share (:func:`_name_pairs`; a person written whole, ``Team42``, keeps its number). Why:
    ``Mal Lory 2`` was Mal Lory's team but ``Mal Lory2``, ``Mal Lory-2``, ``Mal2 Lory`` and ``Lory2, Mal`` were
    no one's (their name word ``lory2``; no look-alike either, a digit being no letter), ``check`` passed each
    beside his record, and his second entry under one was ranked beside his first, a rival's a rank down
    (hundred-and-twenty-fifth pass, side d)."""
    return re.sub(r"(?<=[A-Za-z])(?:[-_.]?[0-9]+)+|(?:[0-9]+[-_.]?)+(?=[A-Za-z])", "", str(authors))
