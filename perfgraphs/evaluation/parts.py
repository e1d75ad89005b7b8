"""A loaded protocol's parts: the train / validation / test rows a predictor is fitted and scored
on, with the build that identifies them. Shared by the holdout protocol and the folds."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from perfgraphs.errors import PerfgraphsError


@dataclass(frozen=True)
class ProtocolData:
    dataset: str  # registry name, e.g. perfgraphs/dippm
    config: str
    version: str
    content_hash: str  # manifest content hash of the built config ("" if the manifest lacks it)
    train: Any  # datasets.Dataset parts
    validation: Any | None
    test: Any
    generators: dict = field(default_factory=dict)  # the build's generator versions (manifest)

    @property
    def sizes(self) -> dict[str, int]:
        parts = {"train": self.train, "validation": self.validation, "test": self.test}
        return {k: len(v) for k, v in parts.items() if v is not None}


def labeled_parts(data, target: str):
    """The parts restricted to rows that carry ``target``: multi-platform configs (nnlqp) leave a
    platform's column empty where it has no measurement. Parts left empty are dropped."""
    import datasets

    out = {}
    for name, part in data.items():
        if target not in part.column_names:
            raise PerfgraphsError(f"the {name} part has no column {target!r}")
        values = part[target]
        keep = [i for i, v in enumerate(values) if v is not None and np.isfinite(v)]
        if keep:
            out[name] = part if len(keep) == len(part) else part.select(keep)
    return datasets.DatasetDict(out)
