"""The committed files the exposure scan reads by name (:mod:`perfgraphs.leaderboard.records.exposure`), read as
their readers read them, and the structure variants' spellings in them (:func:`variant_spellings`): here, below the
leaderboard, so that the keeper's draw (:mod:`perfgraphs.collect.variants`) counts as public what the build's scan
leaves out of a hidden set (hundred-and-eleventh pass, side b)."""

from __future__ import annotations

import json
import re
from pathlib import Path


_SEPARATORS = re.compile(r"[\s,;|@#]+")
# a model in a path (``runs/resnet50/…``) or a hub id (``timm/resnet50``) is named by one of its parts
# too; a hub id with an organisation (``hf:prajjwal1/bert-tiny``) only whole


def row_tokens(strings) -> set[str]:
    """Every structure variant's spelling a row name or a split's entry may hold, as a token (``timm:<arch>@224#b1``
    is ``timm:<arch>``; a path's or hub id's parts too): what :func:`public_mentions` gives the structure
    variants' matchers (a structure key, :func:`same_graph`) for the split files and the predict
    artifacts' ``*.rows.npz``, which it read by exact name only. A ``rows.npz`` committed before the draw
    holds each row's real label by name, and one naming 3 of the current dippm round's 25 variants under
    another spelling of their graph (``resnet50+layers=…`` for ``resnet26+layers=…``, ``densenet169+…``
    for ``densenet121+…``, a ViT without its default ``mlp_ratio=4.0``) was found nowhere, and the
    keeper's build kept all 25 (hundred-and-eighth pass, side a). Only spellings with overrides (``+``):
    nnlqp's splits and artifacts name some 160 timm models no committed store does, and building each
    doubled the scan's time; a named model that builds a variant's graph is left to the importers'
    sources (:func:`_source_mentions`) and the stores."""
    return {part for s in strings for token in _SEPARATORS.split(str(s)) for part in (token, *token.split("/"))
            if "+" in part}


def _json_strings(value):
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for k, v in value.items():
            yield k
            yield from _json_strings(v)
    elif isinstance(value, list):
        for v in value:
            yield from _json_strings(v)


def files_as_read(folder: Path, suffixes: tuple[str, ...]) -> list[Path]:
    """Every file under ``folder`` whose name ends in one of ``suffixes``, sorted, found through linked
    folders too (each real folder once), as the readers find them: a store's reader lists its platform
    folders with ``is_dir()`` and a split is opened by its path, both through a committed link, where
    ``Path.rglob`` does not descend. A store whose three platform folders were links to a copy of
    ``ort-cpu`` elsewhere in the repository read 6 of the dippm hidden set's 10 architectures, and the
    scan found none (ninety-sixth pass, side b): the set stayed undeclared, its records *verified*."""
    import os

    found, seen = [], set()
    for top, dirs, files in os.walk(folder, followlinks=True):
        real = os.path.realpath(top)
        if real in seen:  # a link back up the tree, or two links to one folder: read once
            dirs[:] = []
            continue
        seen.add(real)
        found += [Path(top, f) for f in files if f.endswith(suffixes)]
    return sorted(found)


def _cell_strings(value):
    """The text a store's ``model`` cell holds, as the store's reader reads it: a string; bytes as UTF-8 (a
    binary column holds the same names, and the reader reads them); every item of a list or a mapping; any
    other value as printed. A binary or list column made the scan raise ``TypeError`` mid-build (the
    hundred-and-eighth pass's lead)."""
    if isinstance(value, str):
        yield value
    elif isinstance(value, (bytes, bytearray, memoryview)):
        yield bytes(value).decode("utf-8", errors="replace")
    elif isinstance(value, (list, tuple)):
        for item in value:
            yield from _cell_strings(item)
    elif isinstance(value, dict):
        for item in value.values():
            yield from _cell_strings(item)
    elif value is not None:
        yield str(value)


def _store_names(store: Path) -> list[str]:
    import pyarrow.parquet as pq

    names = []
    for path in files_as_read(store, (".parquet",)):
        schema = pq.read_schema(path)
        if "model" in schema.names:
            cells = pq.read_table(path, columns=["model"]).column("model").to_pylist()
            names += [text for cell in cells for text in _cell_strings(cell)]
    return names


def measurement_documents(measurements: Path) -> list[tuple[str, list[str]]]:
    """(place, every string) of each JSON file under ``measurements`` (``data/measurements``), its place
    the top folder or file it lies in there: the noise floors (``noise-floor/noise-floor-<store>.json``,
    which ``plans/run-on-gpu.sh`` asks to commit) hold each probe configuration's latency twice, a label
    as public as a store's row, and a store's ``campaign.json`` names what it measured. The scan read
    only the stores' parquet ``model`` column: a pull request committing a noise floor that named a
    round's drawn variants (with their two latencies) left them in the keeper's hidden file, and the
    set undeclared, its records *verified* (hundred-and-fourth pass, side b)."""
    out = []
    for path in files_as_read(measurements, (".json",)):
        try:
            strings = list(_json_strings(json.loads(path.read_text(errors="replace"))))
        except ValueError:  # not JSON after all: read as text, every token of it
            strings = [path.read_text(errors="replace")]
        out.append((f"data/measurements/{path.relative_to(measurements).parts[0]}", strings))
    return out


_TOKENS = re.compile(r"[\s,;|@#\"'`\[\](){}]+")  # a table's cell, a JSON or YAML string, a word of text


def staged_package_data(repo: Path) -> list[tuple[str, list[str]]]:
    """(place, every token) of each file of the repository's package that the sandbox stages beside the
    code (:func:`perfgraphs.paths.is_staged_data`: the tables under ``perfgraphs/features``, the model
    configs under ``perfgraphs/graph/hf_configs``): a predictor reads them at fit time, as the checkout
    holds them, and a hidden run's check of them (``frozen_fits.package_data_before``) dates them from
    the draw, not what they name. The scan read none of them: a pull request before the draw committing
    ``perfgraphs/features/<table>.csv`` that named 3 of the current dippm round's 25 variants (one
    respelled) with a latency each left all 25 in the keeper's hidden file and the set undeclared, its
    records *verified* (hundred-and-sixth pass, side a). Code (``.py``) is left to review, as there."""
    from perfgraphs.paths import is_staged_data

    package, out = repo / "perfgraphs", []
    for path in files_as_read(package, ("",)) if package.is_dir() else []:
        if is_staged_data(path.relative_to(package).parts):
            text = path.read_text(errors="replace")
            out.append((str(path.relative_to(repo)), [t for t in _TOKENS.split(text) if t]))
    return out


def _split_strings(split: Path) -> list[str]:
    """Every string of a split file (``.json``), or its text (``.txt``)."""
    text = split.read_text(errors="replace")
    return list(_json_strings(json.loads(text))) if split.suffix == ".json" else [text]


def _artifact_names(artifact: Path) -> list[str]:
    """The row names a predict artifact's ``*.rows.npz`` holds (each row's label is beside its name)."""
    import numpy as np

    with np.load(artifact, allow_pickle=False) as rows:
        return rows["names"].tolist() if "names" in rows.files else []


def variant_spellings(repo: Path) -> set[str]:
    """Every structure variant's spelling (:func:`row_tokens`) that the committed files the exposure scan
    reads besides the plans and the hidden definitions hold: the stores' ``model`` cells, the JSON
    documents under ``data/measurements``, the staged package data, the split files and the predict
    artifacts' row names. The keeper's draw (:func:`perfgraphs.collect.variants.main`) skipped, and
    :func:`perfgraphs.collect.variants.thin_families` counted as public, only what the plans and the
    hidden definitions name, while the build (:func:`perfgraphs.leaderboard.records.hidden.leave_out_public`)
    leaves out what this scan finds: a split committed before the draw naming 146 of the 151 visformer
    structures still left had every drawn visformer outside the writer's other 5 left out of the built
    set, so the round kept only visformers whose labels the writer could hold (or none), for any secret
    seed, with the family counted as 151 left (hundred-and-eleventh pass, side b). Spellings only (no
    graph is built): another base that builds a variant's graph is left to the build's scan."""
    strings: list[str] = []
    measurements = repo / "data" / "measurements"
    for store in sorted(p for p in measurements.iterdir() if p.is_dir()) if measurements.is_dir() else []:
        strings += _store_names(store)
    for _, found in [*measurement_documents(measurements), *staged_package_data(repo)]:
        strings += found
    for split in files_as_read(repo / "data" / "splits", (".json", ".txt")):
        strings += _split_strings(split) if split.is_file() else []
    for artifact in sorted((repo / "perfgraphs" / "predict" / "artifacts").glob("*.rows.npz")):
        strings += _artifact_names(artifact)
    return row_tokens(strings)


_GRAPH_HASH = re.compile(r"(?<![0-9a-f])[0-9a-f]{64}(?![0-9a-f])")  # a structure hash (``PerfGraph.structure_hash``)


def _parquet_strings(path: Path):
    """Every string cell of a Parquet file, whatever its column (a list column's items too)."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    schema = pq.read_schema(path)
    text = [f.name for f in schema if pa.types.is_string(f.type) or pa.types.is_large_string(f.type)
            or pa.types.is_binary(f.type) or pa.types.is_list(f.type) or pa.types.is_dictionary(f.type)]
    for cells in pq.read_table(path, columns=text).to_pydict().values() if text else ():
        for cell in cells:
            yield from _cell_strings(cell)


def committed_graph_hashes(repo: Path) -> dict[str, str]:
    """structure hash -> the first place that holds it, of every graph's structure hash
    (:attr:`perfgraphs.graph.ir.PerfGraph.structure_hash`, 64 hex digits) in the committed files the exposure
    scan reads: every string cell of the stores' Parquet files, the JSON under ``data/measurements``, the staged
    package data, the split files and the predict artifacts' row names. The scan matched those files by model
    name only, while a predictor gets each hidden row's ``structure_hash`` as an input column: a table committed
    before the draw as ``perfgraphs/features/graph_latency.csv`` (staged beside the code, read in the sandbox)
    holding a drawn resnet's structure hash and its latency, no name, was found nowhere, and the draw and the
    build counted the variant as fresh (hundred-and-eighteenth pass, side a). The build
    (:func:`perfgraphs.leaderboard.records.hidden.leave_out_public`) leaves such rows out by hash."""
    found: dict[str, str] = {}

    def note(strings, place: str) -> None:
        for s in strings:
            for h in _GRAPH_HASH.findall(str(s).lower()):
                found.setdefault(h, place)

    measurements = repo / "data" / "measurements"
    for store in sorted(p for p in measurements.iterdir() if p.is_dir()) if measurements.is_dir() else []:
        for path in files_as_read(store, (".parquet",)):
            note(_parquet_strings(path), f"data/measurements/{store.name}")
    for place, strings in [*measurement_documents(measurements), *staged_package_data(repo)]:
        note(strings, place)
    for split in files_as_read(repo / "data" / "splits", (".json", ".txt")):
        note(_split_strings(split) if split.is_file() else [], str(split.parent.relative_to(repo)))
    for artifact in sorted((repo / "perfgraphs" / "predict" / "artifacts").glob("*.rows.npz")):
        note(_artifact_names(artifact), f"perfgraphs/predict/artifacts/{artifact.name.split('--')[0]}--*.rows.npz")
    return found


COST_COLUMNS = ("total_macs", "total_flops", "total_params", "total_memory_bytes")  # a graph's counts, its row's inputs
MIN_COST_KEY = 10 ** 6  # a count of 7 digits or more: a structure's key within its family, rarely another number's


def _numbers(values) -> set[int]:
    """The integer-valued numbers of at least :data:`MIN_COST_KEY` among ``values`` (numbers, or text read as
    numbers; anything else skipped)."""
    out = set()
    for v in values:
        try:
            f = float(v)
        except (TypeError, ValueError, OverflowError):
            continue
        if f == f and abs(f) != float("inf") and f.is_integer() and abs(f) >= MIN_COST_KEY:
            out.add(int(f))
    return out


def _json_numbers(value):
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        yield value
    elif isinstance(value, dict):
        for v in value.values():
            yield from _json_numbers(v)
    elif isinstance(value, list):
        for v in value:
            yield from _json_numbers(v)


def _file_numbers(path: Path) -> set:
    """Every number a committed table or document holds, as its reader reads it: a Parquet file's numeric cells, a
    ``.npz``'s arrays, a JSON document's numbers, any other file's words; and each row of a ``.npz``'s 2-D array as a
    tuple of float32 (a predict artifact's ``features`` are a featurizer's vectors, the counts' logarithms)."""
    import numpy as np
    import pyarrow as pa
    import pyarrow.parquet as pq

    if path.suffix == ".parquet":
        schema = pq.read_schema(path)
        cols = [f.name for f in schema if pa.types.is_integer(f.type) or pa.types.is_floating(f.type)
                or pa.types.is_decimal(f.type)]
        return _numbers(v for c in pq.read_table(path, columns=cols).itercolumns() for v in c.to_numpy(False)) if cols else set()
    if path.suffix == ".npz":
        with np.load(path, allow_pickle=False) as z:
            arrays = [z[k] for k in z.files if z[k].dtype.kind in "iuf"]
        return _numbers(v for a in arrays for v in a.ravel().tolist()) | {
            tuple(r) for a in arrays if a.ndim == 2 for r in a.astype(np.float32).tolist()}
    text = path.read_text(errors="replace")
    if path.suffix == ".json":
        try:
            return _numbers(_json_numbers(json.loads(text)))
        except ValueError:
            pass
    return _numbers(t for t in _TOKENS.split(text) if t)


def committed_cost_numbers(repo: Path) -> dict:
    """integer (or float32 row) -> the first place that holds it, of every integer of :data:`MIN_COST_KEY` or more
    (and every row of a 2-D ``.npz`` array) in the committed files the exposure scan reads (the stores' Parquet and
    JSON, the staged package data, the split files, the predict artifacts' ``*.rows.npz``), where a graph's cost
    counts (:data:`COST_COLUMNS`), or its featurizer's vector, would lie. Each is an
    input column of its hidden row, and within a family a key to its structure: a table committed before the draw
    as ``perfgraphs/features/<table>.csv`` holding a drawn resnet's ``total_flops`` and its latency, no name and
    no hash, was found by neither scan, and the build kept the row a predictor looks its label up in by the
    features it is handed (hundred-and-twenty-first pass, side a). The build
    (:func:`perfgraphs.leaderboard.records.hidden.leave_out_public`) leaves such rows out."""
    from perfgraphs.paths import is_staged_data

    places: list[tuple[Path, str]] = []
    measurements, package = repo / "data" / "measurements", repo / "perfgraphs"
    for path in files_as_read(measurements, (".parquet", ".json")) if measurements.is_dir() else []:
        places.append((path, f"data/measurements/{path.relative_to(measurements).parts[0]}"))
    for path in files_as_read(package, ("",)) if package.is_dir() else []:
        if is_staged_data(path.relative_to(package).parts):
            places.append((path, str(path.relative_to(repo))))
    for split in files_as_read(repo / "data" / "splits", (".json", ".txt")):
        places.append((split, str(split.parent.relative_to(repo))))
    for artifact in sorted((package / "predict" / "artifacts").glob("*.rows.npz")):
        places.append((artifact, f"perfgraphs/predict/artifacts/{artifact.name.split('--')[0]}--*.rows.npz"))
    found: dict = {}
    for path, place in places:
        for n in _file_numbers(path) if path.is_file() else ():
            found.setdefault(n, place)
    return found
