"""Do a store's rows belong to it? The check shared by the reader and ``collect verify``.

Why: a file with a valid sidecar vouches only for its own bytes. A shard of another suite copied in
(a trappm shard in ``dippm-cpu``), or a held-out store's file dropped into ``parts/`` (parts are
pending rows, so no inventory lists them), read and verified like the store's own and entered
builds: held-out architectures leaked into training sets. Every row names what wrote it, so a row
whose suite is not the store's, whose campaign is not one of the store's runs, or whose platform is
not the folder it sits in, is refused. A null value (rows written before the column was filled)
is not evidence either way.
"""

from __future__ import annotations

from pathlib import Path

import pyarrow as pa
import pyarrow.compute as pc

from perfgraphs.collect.errors import IncompleteStoreError, StoreError
from perfgraphs.collect.metafile import META


def _values(table: pa.Table, column: str) -> set:
    return {v for v in pc.unique(table.column(column)).to_pylist() if v is not None}


def foreign_rows(root: Path, meta: dict, tables: dict[str, pa.Table]) -> list[StoreError]:
    """One problem per file (``"<platform>/..." -> table``) holding rows another store wrote."""
    suite = meta.get("suite")
    runs = meta.get("runs")
    campaigns = {r.get("campaign_id") for r in runs if isinstance(r, dict)} if isinstance(runs, list) else None
    problems: list[StoreError] = []
    for name, table in sorted(tables.items()):
        platform = name.split("/", 1)[0]
        why = None
        if suite and (other := _values(table, "suite") - {suite}):
            why = f"rows of suite {sorted(other)[0]!r}, not this store's {suite!r}"
        elif campaigns is not None and (other := _values(table, "campaign_id") - campaigns):
            why = f"rows of campaign {sorted(other)[0]}, which is not among the runs {META} records"
        elif other := _values(table, "platform") - {platform}:
            why = f"rows of platform {sorted(other)[0]!r} in the {platform} folder"
        if why:
            problems.append(IncompleteStoreError(
                f"{root / name}: holds {why} (a file from another store? move it out)"))
    return problems
