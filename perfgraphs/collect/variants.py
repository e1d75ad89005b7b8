"""Architectures no zoo names, for a hidden test set (issue 32): structure variants of the dippm
families, drawn with a secret seed.

A hidden test set is hidden only while no public file holds its architectures (and no predictor
could have seen them measured). Named timm architectures run out, and any of them may turn up in a
later public plan; a variant of a family's base architecture with other depths, widths or stage
layouts (``timm:resnet26+layers=1x3x4x2``, :mod:`perfgraphs.graph.zoo`'s override syntax) is in
no zoo and no public store. The draw is seeded by the organiser's secret (:func:`secrets.randbits`),
kept with the labels outside the repository, so nobody can regenerate the set before it is
published.

Each family's knobs stay inside the ranges its named members span, so a variant is a plausible
member of the family, not an outlier: a hidden board measures generalisation to unseen
architectures, not extrapolation. A variant that equals a named member's structure is left out
here (the known stage layouts below) and, whatever slips through, by the structure-hash check of
:func:`perfgraphs.leaderboard.records.hidden.build_hidden`.

Each drawn architecture gets ``--sizes`` input sizes and ``--batches`` batch sizes, drawn from
those its family has in the source plan, so the hidden configurations follow the public
distribution. The plan keeps the source plan's protocol and platform:

    python -m perfgraphs.collect.variants --source plans/dippm-cuda.yaml --per-family 5 \\
        --out "$PERFGRAPHS_HIDDEN_DIR/round"      # writes hidden-plan.yaml and seed.txt there
"""

from __future__ import annotations

import argparse
import json
import math
import random
import secrets
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

import yaml

from perfgraphs.collect.errors import PlanError
from perfgraphs.collect.plan import load_plan, parse_plan, plan_files
from perfgraphs.graph.zoo import variant_name
from perfgraphs.paths import leaderboard_dir, plans_dir
from perfgraphs.safe_git import SAFE_GIT
from perfgraphs.yamlio import read_yaml


@dataclass(frozen=True)
class Family:
    base: str  # the timm architecture the overrides apply to
    draw: Callable[[random.Random], dict]
    named: tuple[dict, ...] = ()  # overrides that rebuild a named member: never drawn


def _ints(rng: random.Random, ranges) -> tuple[int, ...]:
    return tuple(rng.randint(lo, hi) for lo, hi in ranges)


def _vit(rng: random.Random) -> dict:
    width = rng.choice((192, 256, 320, 384, 448, 512))
    return {"depth": rng.randint(4, 12), "embed_dim": width, "num_heads": width // 64,
            "mlp_ratio": rng.choice((2.0, 3.0, 4.0))}


def _swin_with_third_stage(depths: tuple[int, ...], widths: tuple[int, ...] = (64, 96, 128)
                           ) -> Callable[[random.Random], dict]:
    def draw(rng: random.Random) -> dict:
        width = rng.choice(widths)
        return {"depths": (2, 2, rng.choice(depths), 2), "embed_dim": width,
                "num_heads": (width // 32, width // 16, width // 8, width // 4)}
    return draw


# the third stage spans 2-18 blocks across timm's Swins (tiny 6, small and base 18); the first
# round and predict's second held-out set drew from (2, 4, 8, 10) and used 9 of its 12 structures
# 2026-12-05: after two hidden rounds and predict's third held-out set, 18 of the 21 structures of
# (2-16) x (64, 96, 128) were public or declared, too few for a round of 5, so the space takes the
# named Swins' whole range: the third stage up to 18 blocks (6 and 18 too) and swin_large's width 192
_swin = _swin_with_third_stage((2, 4, 6, 8, 10, 12, 14, 16, 18), (64, 96, 128, 192))
_second_swin = _swin_with_third_stage((2, 4, 8, 10, 12, 14, 16))
_first_swin = _swin_with_third_stage((2, 4, 8, 10))


# the families whose timm builders take structure arguments; EfficientNet, MobileNet, MnasNet and
# PoolFormer fix theirs inside the registered function (an override collides with them)
FAMILIES: dict[str, Family] = {
    "resnet": Family("resnet26", lambda rng: {"layers": _ints(rng, [(1, 4)] * 4)},
                     named=({"layers": (2, 2, 2, 2)}, {"layers": (3, 4, 6, 3)}, {"layers": (1, 1, 1, 1)})),
    "vit": Family("vit_small_patch16_224", _vit,
                  named=({"depth": 12, "embed_dim": 384, "num_heads": 6, "mlp_ratio": 4.0},
                         {"depth": 12, "embed_dim": 192, "num_heads": 3, "mlp_ratio": 4.0})),
    "swin": Family("swin_tiny_patch4_window7_224", _swin,
                   named=({"depths": (2, 2, 6, 2), "embed_dim": 96, "num_heads": (3, 6, 12, 24)},
                          {"depths": (2, 2, 18, 2), "embed_dim": 96, "num_heads": (3, 6, 12, 24)},
                          {"depths": (2, 2, 18, 2), "embed_dim": 128, "num_heads": (4, 8, 16, 32)},
                          {"depths": (2, 2, 18, 2), "embed_dim": 192, "num_heads": (6, 12, 24, 48)})),
    "densenet": Family("densenet121", lambda rng: {"growth_rate": rng.choice((16, 24, 32, 40)),
                                                    "block_config": _ints(rng, [(4, 8), (8, 16), (12, 32), (8, 24)])},
                       named=({"growth_rate": 32, "block_config": (6, 12, 24, 16)},)),
    "visformer": Family("visformer_tiny", lambda rng: {"depth": _ints(rng, [(3, 9), (2, 6), (2, 6)])},
                        named=({"depth": (7, 4, 4)},)),
}

# the knobs as they were until the Swin space was widened (2026-11-29): a set drawn then (predict's
# second held-out set, seed published) is regenerated from these, so its draw stays checkable
FIRST_FAMILIES: dict[str, Family] = {**FAMILIES, "swin": Family(FAMILIES["swin"].base, _first_swin,
                                                                  named=FAMILIES["swin"].named)}
# the knobs from that widening until the next (2026-11-29 to 2026-12-05): predict's third held-out set
SECOND_FAMILIES: dict[str, Family] = {**FAMILIES, "swin": Family(FAMILIES["swin"].base, _second_swin,
                                                                   named=FAMILIES["swin"].named)}


def draw_variants(rng: random.Random, per_family: int, families: dict[str, Family] = FAMILIES,
                  max_tries: int = 1000, public: frozenset[tuple] = frozenset()) -> dict[str, list[str]]:
    """family -> ``per_family`` distinct variant names (sorted overrides, :func:`variant_name`),
    none of them in ``public`` (:func:`public_variants`: structures public data already names)."""
    drawn: dict[str, list[str]] = {}
    for family, spec in families.items():
        names: list[str] = []
        for _ in range(max_tries):
            overrides = spec.draw(rng)
            name = variant_name(spec.base, overrides)
            if overrides not in spec.named and name not in names and not is_public(name, public):
                names.append(name)
            if len(names) == per_family:
                break
        else:
            raise PlanError(f"{family}: only {len(names)} distinct variants in {max_tries} draws")
        drawn[family] = names
    return drawn


def structure_key(name: str) -> tuple | None:
    """One key per spelling of a variant's structure: the base architecture without a pretrained
    tag and its overrides with numbers compared by value (``mlp_ratio=2`` is ``mlp_ratio=2.0``);
    None for a name that is not a timm variant. Two bases that build the same graph
    (``resnet26`` and ``resnet50`` with the same ``layers``) still differ here: the structure-hash
    check of :func:`perfgraphs.leaderboard.records.hidden.build_hidden` is the backstop for those."""
    from perfgraphs.errors import UnknownModelError
    from perfgraphs.graph.zoo import parse_model_name

    try:
        parsed = parse_model_name(name if ":" in name else f"timm:{name}")
    except UnknownModelError:
        return None
    if parsed.zoo != "timm" or not parsed.overrides:
        return None

    def value(v):
        return tuple(float(x) for x in v) if isinstance(v, tuple) else v if isinstance(v, bool) else float(v)

    return (parsed.arch.split(".")[0], tuple((k, value(v)) for k, v in parsed.overrides))


def definition_rounds(doc: dict) -> list[dict]:
    """Every round a definition describes, the current one first: a config's new hidden set
    replaces its commitment, and the rounds before it stay in ``earlier_rounds`` (newest first),
    so a withdrawn set stays withdrawn and its architectures stay declared."""
    earlier = doc.get("earlier_rounds") or []
    if not isinstance(earlier, list) or not all(isinstance(r, dict) for r in earlier):
        raise PlanError("a hidden-set definition's earlier_rounds must be a list of JSON objects")
    return [{k: v for k, v in doc.items() if k != "earlier_rounds"}, *earlier]


def public_variants(plans: Path, hidden: Path | None = None) -> frozenset[tuple]:
    """The :func:`structure_key` of every structure variant a committed plan names (``*.yaml`` and
    ``*.yml``, in subfolders too; read by the collector's own parser, so every shape it accepts
    counts) and of every architecture an earlier hidden round declared (``hidden``: its
    ``leaderboard/hidden/*.json``, whose labels may have been published since). A public plan,
    and the store it fills, would expose a hidden architecture drawn again. A plan that does not
    parse is refused (:class:`PlanError`), never skipped."""
    plans = Path(plans)
    if not plans.is_dir():
        raise PlanError(f"no plans folder at {plans}: the draw cannot check which variants are public")
    names: set[str] = set()
    for path in plan_files(plans):
        names |= {c.model for c in load_plan(path).configs}
    for path in sorted(Path(hidden).glob("*.json")) if hidden is not None and Path(hidden).is_dir() else []:
        names |= declared_names(json.loads(path.read_text()))
    if hidden is not None:
        names |= committed_declarations(Path(hidden))
    return frozenset(k for k in map(structure_key, names) if k is not None)


def declared_names(doc: dict) -> set[str]:
    """Every architecture a hidden-set definition's rounds declare (``architectures`` and ``left_out``)."""
    return {str(n) for r in definition_rounds(doc) for n in [*(r.get("architectures") or []), *(r.get("left_out") or [])]}


# git asked for the organisers' history only: no monitor, hook, transport or lazy fetch (as the leaderboard's readers)
_GIT = ("git", *SAFE_GIT, "-c", "core.quotepath=off")


def _git(top: Path, *args: str, stdin: bytes | None = None) -> bytes | None:
    import os
    import subprocess

    try:
        done = subprocess.run([*_GIT, "-C", str(top), *args], input=stdin, capture_output=True, timeout=120,
                              env={**os.environ, "GIT_NO_LAZY_FETCH": "1", "GIT_OPTIONAL_LOCKS": "0"})
    except (OSError, subprocess.SubprocessError):
        return None
    return done.stdout if done.returncode == 0 else None


def committed_declarations(hidden: Path) -> set[str]:
    """Every architecture any main-line (``--first-parent``) version of ``hidden/*.json`` declared, at HEAD. The
    draw read the definitions as they are, and one pull request deleting ``dippm-cpu-torch-fp32.json`` (95 of the
    draw's 135 public structure keys, every earlier round's architectures, named in git history for anyone to
    measure) left the Swins 24 (not 9) and the visformers 166 (not 146), and the secret seed 0 then drew six of
    the earlier rounds' architectures again (hundred-and-twenty-third pass, side a). A folder in no repository (an
    installed package) has no history: the files as they are count alone. A shallow or partial clone, whose older
    versions are not here, is refused in one line rather than under-counted (:class:`PlanError`), as is a folder
    in a repository committed inside another (:func:`_written_inside_another`). Every version reachable from HEAD
    is read, not the first-parent line's alone (:func:`_versions_log`, hundred-and-twenty-fifth pass, side c)."""
    where = Path(hidden).absolute()
    start = where
    while not start.is_dir() or start.is_symlink():  # the folder may be deleted, or a link a pull request made
        start = start.parent
    top_out = _git(start, "rev-parse", "--show-toplevel")
    if top_out is None:
        if any((a / ".git").exists() for a in (start, *start.parents)):
            raise PlanError(f"cannot ask git for the history of {where}: the draw would miss the rounds it declared")
        return set()
    top = Path(top_out.decode().strip())
    if _written_inside_another(top):
        raise PlanError(f"{top} is a repository committed inside another (a submodule): its history is its writer's, "
                        f"not the main line's, and the draw cannot read every round declared in {where}")
    # the outermost folder that is the top: the path inside the repository as it holds it, no link followed
    inside = next((where.relative_to(a) for a in reversed((where, *where.parents)) if a.resolve() == top), None)
    config = _git(top, "config", "--get-regexp", r"^(extensions\.partialclone|remote\..*\.promisor)$") or b""
    shallow = (_git(top, "rev-parse", "--is-shallow-repository") or b"").strip() != b"false"
    if inside is None or shallow or any(line.split(b" ")[-1].lower() not in (b"false", b"no", b"off", b"0")
                                        for line in config.splitlines()):
        raise PlanError(f"{top} is a shallow or partial clone (or {where} is outside it): the draw cannot read every "
                        "round the main line declared; use a full clone")
    log = _versions_log(top, inside)
    commit, wanted = "", []
    for line in (log or b"").decode("utf-8", "replace").split("\n"):
        if line.startswith("\0"):
            commit = line[1:].strip()
        elif line.strip() and commit:
            wanted.append(f"{commit}:{line}")
    out = _git(top, "cat-file", "--batch", stdin="".join(f"{w}\n" for w in wanted).encode()) if wanted else b""
    names: set[str] = set()
    for text in _batch_blobs(out or b""):
        try:
            doc = json.loads(text)
            names |= declared_names(doc) if isinstance(doc, dict) else set()
        except (ValueError, RecursionError, PlanError, AttributeError, TypeError):
            continue  # a version that did not parse declared nothing
    return names


def _versions_log(top: Path, inside: Path) -> bytes | None:
    """Each commit reachable from HEAD, through any parent (a merge read against its first parent), that changed a
    ``*.json`` of the folder ``inside``, with the files it changed (``git log --name-only``). Read on the
    first-parent line alone, a pull request forked before the keeper's definition that merged main, deleting the
    definition in its merge, and landed by fast-forward (RULES forbids it; the history does not say how it was
    made) put the keeper's commits on a second parent: no version of the definition was read, the draw counted 40
    public structure keys, not 135, and the Swins left went from 9 (not drawn) to 24 (drawn), the visformers from
    146 to 166 (hundred-and-twenty-fifth pass, side c). Every version in the history is public: all count."""
    return _git(top, "log", "--full-history", "--diff-merges=first-parent", "--no-renames", "--name-only",
                "--format=%x00%H", "HEAD", "--", f":(glob){inside.as_posix()}/*.json")


def _written_inside_another(top: Path) -> bool:
    """Whether the repository whose top folder is ``top`` is committed inside an enclosing one as a gitlink (a
    submodule) and does not hold the running perfgraphs package: its files and history are its writer's. A pull
    request that replaced ``leaderboard/hidden/`` with a submodule whose one commit held the definition without
    its ``earlier_rounds`` had, in a recursive clone, only that commit read: the draw counted 60 public structure
    keys, not 135, the Swins left 24 (drawn), not 9 (hundred-and-twenty-fifth pass, side c; the boards' readers
    refuse such a folder since the ninetieth, ``history.committed_inside_another``)."""
    import perfgraphs

    if top.parent == top or Path(perfgraphs.__file__).resolve().is_relative_to(top.resolve()):
        return False
    above = _git(top.parent, "rev-parse", "--show-toplevel")
    if above is None:
        return False
    outer = Path(above.decode().strip()).resolve()
    held = _git(outer, "ls-files", "--stage", "-z", "--", f":(literal){top.resolve().relative_to(outer).as_posix()}")
    return any(entry.startswith(b"160000 ") for entry in (held or b"").split(b"\0"))


def _batch_blobs(out: bytes) -> list[bytes]:
    """The blobs ``git cat-file --batch`` printed (a path a version deleted prints ``missing``: skipped)."""
    blobs, at = [], 0
    while at < len(out):
        end = out.index(b"\n", at)
        header = out[at:end].split()
        at = end + 1
        if len(header) == 3 and header[2].isdigit():
            size = int(header[2])
            if header[1] == b"blob":
                blobs.append(out[at:at + size])
            at += size + 1
    return blobs


def scanned_variants(repo: Path) -> frozenset[tuple]:
    """The :func:`structure_key` of every structure variant that the repository's other committed files
    name, as the exposure scan reads them (:func:`perfgraphs.collect.public_files.variant_spellings`:
    stores, measurement documents, staged package data, splits, predict artifacts): the build leaves those
    out of the hidden set, so a draw that took them let a pull request naming all but five of a family's
    structures in a split decide which of that family's variants the round kept (hundred-and-eleventh
    pass, side b). Public to the draw, and to :func:`thin_families`, like a plan's."""
    from perfgraphs.collect.public_files import variant_spellings

    spellings = variant_spellings(Path(repo))
    return frozenset(k for k in map(structure_key, spellings) if k is not None) | graph_variants(spellings)


_GRAPH = "#graph"  # the first item of a graph's key in ``public``: no timm architecture is so named


def _module(name: str) -> str | None:
    """The timm module a timm name (``timm:`` optional, overrides allowed) builds from; None for another zoo's."""
    from perfgraphs.errors import UnknownModelError
    from perfgraphs.graph.zoo import parse_model_name, timm_module_of

    try:
        parsed = parse_model_name(name if ":" in name else f"timm:{name}")
    except UnknownModelError:
        return None
    return timm_module_of(parsed.arch.split(".")[0]) if parsed.zoo == "timm" else None


def graph_variants(spellings, families: dict[str, Family] | None = None) -> frozenset[tuple]:
    """``(_GRAPH, module, fingerprint)`` of every spelling of a family's timm module that the draw does not
    write itself (another base, or other overrides than the family's knobs), built on the meta device
    (:func:`perfgraphs.graph.fingerprint.architecture_structure`). :func:`structure_key` compares names as
    written, while the build's scan (:func:`perfgraphs.leaderboard.records.exposure.same_graph`) leaves out a
    drawn variant any committed file names under another spelling of its graph: 111b's split with each
    visformer written ``visformer_tiny+depth=AxBxC+mlp_ratio=4.0`` (a default written out) had the family drawn
    as 151 left and the build keep only the writer's other 5 (hundred-and-twelfth pass, side b). With
    :func:`is_public`, such a spelling is public to the draw and to :func:`thin_families` as the build reads it."""
    from perfgraphs.graph.fingerprint import architecture_structure

    families = FAMILIES if families is None else families
    own = {}  # module -> (base, the knobs the draw writes) of each family
    for spec in families.values():
        own.setdefault(_module(spec.base), set()).add((spec.base, frozenset(spec.draw(random.Random(0)))))
    out = set()
    for name in sorted({s for s in spellings if isinstance(s, str)}):
        key, module = structure_key(name), _module(name)
        if key is None or module not in own or (key[0], frozenset(k for k, _ in key[1])) in own[module]:
            continue
        built = architecture_structure(name)
        if built is not None:
            out.add((_GRAPH, module, built.fingerprint))
    return frozenset(out)


def is_public(name: str, public: frozenset[tuple]) -> bool:
    """Whether a drawn name's structure is in ``public``: its :func:`structure_key`, or, where ``public`` holds a
    graph of its module (:func:`graph_variants`), its fingerprint (built only then)."""
    if structure_key(name) in public:
        return True
    graphs = {k[1] for k in public if k[0] == _GRAPH}
    if not graphs or (module := _module(name)) not in graphs:
        return False
    from perfgraphs.graph.fingerprint import architecture_structure

    built = architecture_structure(name)
    return built is not None and (_GRAPH, module, built.fingerprint) in public


# a family's draw is a secret only while it picks among many more structures than it takes
THIN_FACTOR = 4


def thin_families(per_family: int, public: frozenset[tuple], families: dict[str, Family] = FAMILIES,
                  factor: int = THIN_FACTOR, tries: int = 20000) -> dict[str, int]:
    """family -> how many structures it has left (neither named nor in ``public``) where that is fewer
    than ``factor`` x ``per_family``: such a family is not drawn. The space is counted by the family's own
    knobs, with an rng of its own (the secret seed's stream is not touched). Every committed plan's
    variants are public (:func:`public_variants`), so a pull request adding a plan that names all but
    five of the Swin structures still left (nine of 36 were, 2026-12-06) fixed the next round's five
    Swins for any seed, and a submission committed before the draw could hold their labels, measured
    on a GPU of the config's kind (ninety-seventh pass, side b). Leaving the family out is the keeper's
    cue to widen its knobs; a family measured in full by whoever has the GPU is not closed here."""
    thin = {}
    for family, spec in families.items():
        rng, seen, left = random.Random(family), set(), set()
        for _ in range(tries):
            overrides = spec.draw(rng)
            name = variant_name(spec.base, overrides)
            if name not in seen:
                seen.add(name)
                if overrides not in spec.named and not is_public(name, public):
                    left.add(name)
            if len(left) >= factor * per_family:
                break
        if len(left) < factor * per_family:
            thin[family] = len(left)
    return thin


# the least time a round gives each drawn configuration: the public campaign's (plans/dippm-cpu.yaml, 600 s)
ROUND_TIMEOUT_S = 600


def round_timeout_s(raw: dict) -> float:
    """The time a drawn plan gives each configuration: the source plan's ``timeout_s``, never under
    :data:`ROUND_TIMEOUT_S`. The draw copied the source's as it is, a committed file anyone may edit
    after its campaign ended, and the collector records a configuration over its time as timed out,
    which ``build-hidden`` leaves out with no word on the board: a pull request that set
    ``plans/dippm-cpu.yaml``'s ``timeout_s`` from 600 to 10 had the drawn plan give each configuration
    10 s, over which 23 of a draw's 118 of a publicly measured kind run in the protocol's 7 runs alone:
    the round would keep the faster ones, and on the public test part that subset moves
    ``dippm-sage (quick)`` from third to second (hundred-and-twenty-sixth pass, side a)."""
    given = raw.get("timeout_s", 300)
    if isinstance(given, bool) or not isinstance(given, (int, float)) or not math.isfinite(given) or given <= 0:
        return ROUND_TIMEOUT_S
    return max(given, ROUND_TIMEOUT_S)


# Issue 32: a hidden set is measured with the repeated, interleaved protocol: each label the
# median of VISITS passes over the whole set in shuffled order (perfgraphs.collect.rounds.visits),
# a pass apart, so the host's slow drift enters the spread beside the label, not the label alone.
VISITS = 3


def hidden_plan(source: Path, seed: int, per_family: int, sizes: int = 2, batches: int = 3,
                public: frozenset[tuple] = frozenset(), visits: int = VISITS) -> dict:
    """A plan (YAML mapping) of the variants drawn with ``seed`` (none in ``public``): the source
    plan's protocol and platforms, each architecture at ``sizes`` input sizes x ``batches`` batch
    sizes of its family's in the source plan, measured in ``visits`` shuffled passes."""
    plan = load_plan(source)
    raw = read_yaml(Path(source).read_text())
    rng = random.Random(seed)
    groups = []
    thin = thin_families(per_family, public)
    drawn_from = {f: spec for f, spec in FAMILIES.items() if f not in thin}
    if not drawn_from:
        raise PlanError("every family has too few structures left to draw from: "
                        + ", ".join(f"{f}: only {n} distinct variants left" for f, n in thin.items()))
    for family, names in draw_variants(rng, per_family, drawn_from, public=public).items():
        measured = [c for c in plan.configs if c.family == family]
        if not measured:
            raise PlanError(f"{source} has no {family} configurations to take sizes from")
        all_sizes = sorted({c.image_size for c in measured if c.image_size})
        all_batches = sorted({c.batch_size for c in measured})
        models = [{"name": name,
                   "input_sizes": sorted(rng.sample(all_sizes, min(sizes, len(all_sizes)))),
                   "batch_sizes": sorted(rng.sample(all_batches, min(batches, len(all_batches))))}
                  for name in names]
        groups.append({"family": family, "models": models})
    out = {"suite": f"{raw['suite']}-hidden", "description": f"hidden structure variants of {raw['suite']} "
           "(perfgraphs.collect.variants); never committed", "mode": raw.get("mode", "inference"),
           "protocol": raw["protocol"], "platforms": raw["platforms"], "timeout_s": round_timeout_s(raw),
           "rounds": visits, "schedule": "visits", "groups": groups}
    if "core" in raw:
        out["core"] = raw["core"]
    problem = settings_not_measured(plan.configs, parse_plan(out, name=out["suite"]).configs)  # the collector's check
    if problem:
        raise PlanError(f"{source}: {problem}")
    return out


def settings_not_measured(public: list, drawn: list) -> str | None:
    """Why the drawn configurations would not be measured as the source plan's of their families are (None: they
    would): their mode, protocol, platform and core. The drawn plan takes the source's top-level keys, and a group
    or model overrides those for its own configurations: a pull request that set ``plans/dippm-cuda.yaml``'s
    top-level ``mode`` to ``train`` and gave every group ``mode: inference`` left the public plan's 2,297
    configuration keys as they were (the tests pinning them passed) and had the draw write a plan of 120
    configurations, every one a training step, which a GPU round (no probe of the public labels) measures and
    ``build-hidden`` reads as latency; ``protocol: tiny`` so written made it 3 timed runs (hundred-and-twenty-sixth
    pass, side a). The keeper's draw is refused in one line until the source's top level says what its groups do."""
    families = {c.family for c in drawn}

    def settings(configs) -> set:
        return {(c.mode, c.protocol, c.platform, c.core) for c in configs if c.family in families}

    measured, written = settings(public), settings(drawn)
    if written == measured:
        return None
    return (f"its top level draws {len(drawn)} configurations as ({', '.join(sorted({c.mode for c in drawn}))}, "
            f"{', '.join(sorted({c.protocol.name for c in drawn}))}, core {sorted({str(c.core) for c in drawn})}) where "
            "its groups of the drawn families measure otherwise: a hidden round is measured as the public labels were; "
            "make the plan's top-level mode, protocol, platforms and core those of its groups")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m perfgraphs.collect.variants",
                                     description="Draw a hidden test set's architectures with a secret seed.")
    parser.add_argument("--source", required=True, help="the public plan whose protocol and sizes to follow")
    parser.add_argument("--per-family", type=int, default=5)
    parser.add_argument("--sizes", type=int, default=2, help="input sizes per architecture")
    parser.add_argument("--batches", type=int, default=3, help="batch sizes per architecture")
    parser.add_argument("--visits", type=int, default=VISITS,
                        help="shuffled passes over the set; each label is their median")
    parser.add_argument("--out", required=True, help="a folder outside the repository (the keeper's)")
    args = parser.parse_args(argv)
    out = Path(args.out)
    try:
        if (out / "seed.txt").exists():
            raise PlanError(f"{out} already holds a drawn set (seed.txt): one draw per round")
        seed = secrets.randbits(64)
        public = public_variants(plans_dir(), leaderboard_dir() / "hidden") | scanned_variants(plans_dir().parent)
        plan = hidden_plan(Path(args.source), seed, args.per_family, args.sizes, args.batches,
                           public=public, visits=args.visits)
    except PlanError as exc:
        print(f"perfgraphs: {exc}", file=sys.stderr)
        return 1
    for family, left in thin_families(args.per_family, public).items():
        print(f"perfgraphs: {family} not drawn: {left} structures left, fewer than {THIN_FACTOR} x {args.per_family} "
              "(a draw among so few is guessed; widen its knobs)", file=sys.stderr)
    out.mkdir(parents=True, exist_ok=True)
    (out / "seed.txt").write_text(f"{seed}\n")
    (out / "hidden-plan.yaml").write_text(yaml.safe_dump(plan, sort_keys=False))
    n = sum(len(m["input_sizes"]) * len(m["batch_sizes"]) for g in plan["groups"] for m in g["models"])
    print(f"{out / 'hidden-plan.yaml'}: {n} configurations of "
          f"{sum(len(g['models']) for g in plan['groups'])} architectures (keep the folder outside the repository)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
