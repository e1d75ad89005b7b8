"""Named, versioned featurizers: ``get_featurizer("trappm")``."""

from perfgraphs.errors import PerfgraphsError
from perfgraphs.features.base import Featurizer
from perfgraphs.features.dippm import DIPPM
from perfgraphs.features.nnlqp import NNLQP
from perfgraphs.features.trappm import TRAPPM

FEATURIZERS: dict[str, Featurizer] = {f.name: f for f in (DIPPM, TRAPPM, NNLQP)}


def get_featurizer(name: str | Featurizer) -> Featurizer:
    if isinstance(name, Featurizer):
        return name
    try:
        return FEATURIZERS[name]
    except KeyError:
        raise PerfgraphsError(
            f"unknown featurizer {name!r} (available: {', '.join(sorted(FEATURIZERS))})"
        ) from None


__all__ = ["FEATURIZERS", "Featurizer", "get_featurizer"]
