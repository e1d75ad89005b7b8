"""Where a hidden test set's architectures appear in public data.

A hidden set is hidden only while no public file carries its architectures: a public measurement
of the same model on the same machine is its label, and even another platform's latency, or the
model sitting in a training split, is a signal no predictor of a "hidden" architecture should
have. :func:`public_mentions` lists, per architecture, every committed place that names it — the
committed measurement stores (``data/measurements``, a held-out suite's too: no dataset reads it,
but its labels are public), the committed plans (``plans/``: a held-out suite's, such as
predict's second held-out set of structure variants, names what its store will label), the split files (``data/splits``) and the
predict artifacts (``perfgraphs/predict/artifacts``, whose
``*.rows.npz`` name their rows) — and the public sources the importers read (``external:<source>``:
timm's published benchmark results, ML.ENERGY's leaderboard), which name architectures only: there
a structure variant is found as the named architecture it builds (:mod:`perfgraphs.graph.fingerprint`;
``timm:resnet50+layers=2x2x2x2`` is timm's ``resnet26``, whose latency timm publishes on four
machines). ``tests/test_leaderboard_trust.py`` compares it with what each hidden set's definition
declares compromised (``leaderboard/hidden/<dataset>-<config>.json``).
"""

from __future__ import annotations

from pathlib import Path

# the committed files' readers live below the leaderboard, where the keeper's draw reads them too (111b)
from perfgraphs.collect.public_files import (_SEPARATORS, _artifact_names, _json_strings, _split_strings,
                                             _store_names, files_as_read, measurement_documents, row_tokens,
                                             staged_package_data)
from perfgraphs.yamlio import read_yaml


def _bare(name: str) -> str:
    """``timm:resnet18`` and ``resnet18`` are the same architecture; ``resnet18d`` is not."""
    return name.split(":", 1)[1] if ":" in name else name


def _timm(name: str) -> str:
    return name if ":" in name else f"timm:{name}"


def _named(strings, wanted: dict[str, str]) -> set[str]:
    found = set()
    for s in strings:
        for token in _SEPARATORS.split(str(s)):
            for part in (token, *token.split("/")):
                if _bare(part) in wanted:
                    found.add(wanted[_bare(part)])
    return found


def same_graph(strings, architectures: list[str]) -> set[str]:
    """The structure variants among ``architectures`` whose network one of ``strings`` builds under
    another spelling: a timm name (``timm:`` optional) of the same timm module whose module tree and
    parameter shapes, built on the meta device, are the variant's (:mod:`perfgraphs.graph.fingerprint`).
    :func:`perfgraphs.collect.variants.structure_key` compares a base and its overrides as written, so
    another base that builds the same graph (``resnet50+layers=1x1x2x3`` for ``resnet26+layers=1x1x2x3``,
    ``densenet169`` for ``densenet121`` with both block_config and growth_rate given, ``deit_small`` for
    ``vit_small``) or a default written out or left out (``mlp_ratio=4.0``) was another architecture to
    the scan, while the graph pool exports the same graph for it and a predictor reads its latency as
    the variant's: a store committed before the draw naming 3 of the current dippm round's 25 variants
    so was found nowhere, and the keeper's build kept all 25 (hundred-and-seventh pass, side a). Only
    names of a module a variant is of are built (each once: ``architecture_structure`` is cached)."""
    import timm

    from perfgraphs.errors import UnknownModelError
    from perfgraphs.graph.fingerprint import architecture_structure
    from perfgraphs.graph.zoo import parse_model_name, timm_module_of

    def module(name: str) -> str | None:
        try:
            parsed = parse_model_name(name if ":" in name else f"timm:{name}")
        except UnknownModelError:
            return None
        return timm_module_of(parsed.arch) if parsed.zoo == "timm" and timm.is_model(parsed.arch) else None

    by_module: dict[str, list[str]] = {}
    for a in architectures:
        if (m := module(a)) is not None:
            by_module.setdefault(m, []).append(a)
    found: set[str] = set()
    for name in {s for s in strings if isinstance(s, str)} - set(architectures):
        of = by_module.get(module(name) or "", [])
        built = architecture_structure(name) if of else None
        if built is not None:
            found |= {a for a in of if (own := architecture_structure(a)) is not None
                      and own.fingerprint == built.fingerprint}
    return found


def _external_folder(external: Path | None) -> Path:
    from perfgraphs.errors import SourceNotFoundError
    from perfgraphs.paths import external_dir, shared_external_dir

    folder = external or external_dir() or shared_external_dir()
    if folder is None or not Path(folder).is_dir():
        raise SourceNotFoundError("the exposure scan reads the importers' public sources and found none: set "
                                  "PERFGRAPHS_EXTERNAL_DIR to the folder holding timm-benchmark/ and "
                                  "mlenergy-leaderboard/")
    return Path(folder)


# a structure variant is looked up among a source's named architectures whose published parameter
# count is within this fraction of its own (a ViT's position embedding grows with the input size it
# was benchmarked at: 0.7 % for vit_small at 384), so that only a few of them are built
_PARAM_TOLERANCE = 0.05


def _source_mentions(architectures: list[str], wanted: dict[str, str], external: Path) -> dict[str, set[str]]:
    """architecture → the importers' sources (``external:<folder>``) that name it, or, for a structure
    variant, name the architecture it builds (same timm module, same fingerprint)."""
    from perfgraphs.graph.fingerprint import architecture_structure
    from perfgraphs.graph.zoo import parse_model_name, timm_module_of
    from perfgraphs.loaders.mlenergy import MLENERGY_SUBDIR, import_mlenergy
    from perfgraphs.loaders.timm_benchmark import TIMM_SUBDIR, import_timm_benchmark

    found: dict[str, set[str]] = {}
    if (external / MLENERGY_SUBDIR).is_dir():
        table = import_mlenergy(external / MLENERGY_SUBDIR, progress=False, download=False, warn=False).table
        for a in _named(set(table.column("model_id").to_pylist()), wanted):
            found.setdefault(a, set()).add(f"external:{MLENERGY_SUBDIR}")
    if not (external / TIMM_SUBDIR).is_dir():
        return found
    table = import_timm_benchmark(external / TIMM_SUBDIR, progress=False, download=False, warn=False).table
    place = f"external:{TIMM_SUBDIR}"
    params: dict[str, set[float]] = {}
    for arch, millions in zip(table.column("arch").to_pylist(), table.column("param_count_millions").to_pylist()):
        params.setdefault(arch, set()).add(millions)
    for a in _named(params, wanted):
        found.setdefault(a, set()).add(place)
    for a in architectures:
        # a structure variant, or a named architecture under an alias (``tv_densenet121``)
        own = None if place in found.get(a, ()) else architecture_structure(a)
        if own is None:
            continue
        module, millions = timm_module_of(parse_model_name(_timm(a)).arch.split(".")[0]), own.num_params / 1e6
        for arch, counts in params.items():
            close = any(c is not None and abs(c - millions) <= _PARAM_TOLERANCE * millions + 0.01 for c in counts)
            if close and timm_module_of(arch) == module:
                named = architecture_structure(arch)
                if named is not None and named.fingerprint == own.fingerprint:
                    found.setdefault(a, set()).add(place)
                    break
    return found


def public_mentions(architectures: list[str], repo: Path, own_plan: str | None = None,
                    external: Path | None = None) -> dict[str, list[str]]:
    """architecture → sorted public places (repository-relative, or ``external:<source>`` for an
    importer's source) that name it; absent when none.
    ``own_plan``: the set's own plan (repository-relative), which names it without exposing it.
    A structure variant is matched under any spelling of its structure
    (:func:`perfgraphs.collect.variants.structure_key`) or that builds its network (:func:`same_graph`),
    not only the one written, and in the
    importers' sources as the named architecture it builds. ``external``: the folder of the public
    sources (default ``$PERFGRAPHS_EXTERNAL_DIR``, else the project's ``shared/external``);
    :class:`~perfgraphs.errors.SourceNotFoundError` when there is none: a scan that skipped them
    would say less than it seems to."""
    from perfgraphs.collect.plan import parse_plan, plan_files
    from perfgraphs.collect.variants import structure_key

    wanted = {_bare(a): a for a in architectures}
    keys = {k: a for a in architectures if (k := structure_key(a)) is not None}
    places: dict[str, set[str]] = {}

    def note(found: set[str], place: str) -> None:
        for a in found:
            places.setdefault(a, set()).add(place)

    def variants(names) -> set[str]:
        names = set(names)
        return ({keys[k] for k in map(structure_key, names) if k in keys} | same_graph(names, architectures)
                if keys else set())

    # every committed store, a held-out suite's too: no dataset reads it, but its labels are public
    for store in sorted(p for p in (repo / "data" / "measurements").iterdir() if p.is_dir()):
        names = _store_names(store)
        note(_named(names, wanted) | variants(names), f"data/measurements/{store.name}")
    for place, strings in measurement_documents(repo / "data" / "measurements"):
        note(_named(strings, wanted) | variants(strings), place)
    for place, tokens in staged_package_data(repo):
        note(_named(tokens, wanted) | variants(tokens), place)
    for split in files_as_read(repo / "data" / "splits", (".json", ".txt")):
        if split.is_file() and split.suffix in (".json", ".txt"):
            strings = _split_strings(split)
            note(_named(strings, wanted) | variants(row_tokens(strings)), str(split.parent.relative_to(repo)))
    for plan in plan_files(repo / "plans"):
        place = str(plan.relative_to(repo))
        if place != own_plan:  # every string of the file, and every model the collector's parser reads in it
            data = read_yaml(plan.read_text())
            found = _named(_json_strings(data), wanted)
            parsed = parse_plan(data, name=plan.stem, path=str(plan))
            note(found | variants(c.model for c in parsed.configs), place)
    for artifact in sorted((repo / "perfgraphs" / "predict" / "artifacts").glob("*.rows.npz")):
        names = _artifact_names(artifact)
        place = f"perfgraphs/predict/artifacts/{artifact.name.split('--')[0]}--*.rows.npz"
        note(_named(names, wanted) | variants(row_tokens(names)), place)
    for a, found in _source_mentions(architectures, wanted, _external_folder(external)).items():
        places.setdefault(a, set()).update(found)
    return {a: sorted(p) for a, p in sorted(places.items())}
