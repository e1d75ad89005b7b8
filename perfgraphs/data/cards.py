"""Dataset cards, generated: the registry says what each config is, the release index what each
released version holds, and ``card_text/<short name>.md`` carries the prose (method, provenance,
noise floor, limitations) with the card's Hugging Face metadata (license, tags, task categories).

A card is a Hugging Face dataset card: YAML front matter whose ``configs`` list every config with
its data files (``<config>/data/<split>-*.parquet``, the layout ``perfgraphs datasets export``
writes), then Markdown. ``perfgraphs datasets cards`` writes the committed ones
(``dataset_cards/``); a test fails when one differs from what this module generates.
"""

from __future__ import annotations

from pathlib import Path

import yaml

from perfgraphs import paths
from perfgraphs.registry import DATASETS, Config, Dataset
from perfgraphs.yamlio import read_yaml

TEXT_DIR = Path(__file__).resolve().parent / "card_text"


def short_name(ds: Dataset) -> str:
    return ds.name.split("/", 1)[1]


def _template(ds: Dataset) -> tuple[dict, str]:
    """(front matter, prose) of the dataset's card text."""
    text = (TEXT_DIR / f"{short_name(ds)}.md").read_text()
    if not text.startswith("---\n"):
        return {"pretty_name": ds.name}, text
    front, body = text[4:].split("\n---\n", 1)
    return read_yaml(front) or {}, body.lstrip("\n")


def split_names(cfg: Config, record=None) -> list[str]:
    """The splits of a config's build: the released ones, else its first protocol's parts (a
    cross-validated config's rows are one part with a ``fold`` column)."""
    from perfgraphs.data.splits import GROUP_PROTOCOLS, PROTOCOLS

    protocol = cfg.split_protocols[0] if cfg.split_protocols else None
    parts = list(PROTOCOLS[protocol]["parts"]) if protocol in GROUP_PROTOCOLS else ["train"]
    if record is not None:  # in the protocol's order
        return sorted(record.row_counts, key=lambda s: (parts.index(s) if s in parts else len(parts), s))
    return parts


def hf_configs(ds: Dataset, records: dict, only: list[str] | None = None) -> list[dict]:
    """The ``configs`` of the card's YAML: every config (or ``only`` these), the first the default."""
    out = []
    for cfg in ds.configs:
        if only is not None and cfg.name not in only:
            continue
        files = [{"split": s, "path": f"{cfg.name}/data/{s}-*.parquet"} for s in split_names(cfg, records.get(cfg.name))]
        out.append({"config_name": cfg.name, "data_files": files, **({"default": True} if not out else {})})
    return out


def _records(ds: Dataset, version: str | None, index: dict) -> dict:
    from perfgraphs.data.releases import ConfigRelease

    if version is None:
        return {}
    return {c: ConfigRelease.from_record(r) for c, r in index.get(ds.name, {}).get(version, {}).items()}


def _config_table(ds: Dataset, version: str | None, records: dict, only: list[str] | None) -> str:
    rows = ["| config | labels | targets | splits (rows) | content hash |", "|---|---|---|---|---|"]
    for cfg in ds.configs:
        if only is not None and cfg.name not in only:
            continue
        rec = records.get(cfg.name)
        # a multi-platform config's platforms are whatever its sources hold on the machine that
        # builds it (a cache, an external folder): the card names the sources, so it reads the same
        # on every machine; the build's manifest lists the platforms
        labels = cfg.hardware or cfg.platform or ("per platform, from: " + ", ".join(cfg.platform_sources)
                                                  if cfg.platform_sources else "none (graphs only)")
        targets = ", ".join(f"`{t.name}` ({t.unit})" for t in cfg.targets) or "—"
        if rec is None:
            splits, content = ", ".join(split_names(cfg)) + " (not released)", "—"
        else:
            splits = ", ".join(f"{s} {rec.row_counts[s]:,}" for s in split_names(cfg, rec))
            content = f"`{rec.content_hash[:16]}`"
        rows.append(f"| `{cfg.name}`: {cfg.description} | {labels} | {targets} | {splits} | {content} |")
    return "\n".join(rows)


def render(ds: Dataset, version: str | None = None, index: dict | None = None, only: list[str] | None = None) -> str:
    """The card of ``ds`` at ``version`` (default: its latest release), listing ``only`` these configs
    (default: every registered config)."""
    from perfgraphs.data.releases import latest_version, read_index

    index = read_index() if index is None else index
    version = version or latest_version(ds.name, index)
    records = _records(ds, version, index)
    front, prose = _template(ds)
    front = {**front, "configs": hf_configs(ds, records, only)}
    released = (f"version **{version}**" if version else f"version {ds.version}, **not released yet**")
    example = next((c for c in ds.configs if c.name in records), ds.default_config)
    header = (f"# {ds.name} ({released})\n\n{ds.description}. License: {ds.license}.\n\n"
              f"{_config_table(ds, version, records, only)}\n\n"
              f"```python\nimport perfgraphs\nds = perfgraphs.load_dataset({ds.name!r}, {example.name!r}"
              f"{f', version={version!r}' if example.name in records else ''})\n```\n\n"
              "<!-- Generated by `perfgraphs datasets cards` from perfgraphs/registry.py, the release index "
              f"(data/releases.json) and perfgraphs/data/card_text/{short_name(ds)}.md: edit those, not this file. -->\n")
    return "---\n" + yaml.safe_dump(front, sort_keys=False, allow_unicode=True, width=1000) + "---\n\n" + header + "\n" + prose


def card_path(ds: Dataset, folder: Path | None = None) -> Path:
    return (folder or paths.dataset_cards_dir()) / f"{short_name(ds)}.md"


def write_cards(folder: Path | None = None) -> list[Path]:
    """Write every dataset's card (the committed ones by default)."""
    written = []
    for ds in DATASETS.values():
        path = card_path(ds, folder)
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(render(ds))
        written.append(path)
    return written


def stale_cards(folder: Path | None = None) -> list[Path]:
    """Committed cards that differ from what the registry and release index generate now."""
    return [card_path(ds, folder) for ds in DATASETS.values()
            if not card_path(ds, folder).is_file() or card_path(ds, folder).read_text() != render(ds)]
