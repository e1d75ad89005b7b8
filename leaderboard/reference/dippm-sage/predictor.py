"""Reference baseline ``dippm-sage`` (DIPPM GraphSAGE predictor) as a leaderboard submission:
:class:`perfgraphs.baselines.DIPPMSage` behind the predictor interface, the same code path as
``perfgraphs benchmark --baseline dippm-sage``."""

from perfgraphs.baselines.catalog import DIPPM_SAGE
from perfgraphs.leaderboard.predictors import BaselinePredictor


class Predictor(BaselinePredictor):
    def __init__(self, target: str, seed: int = 0, quick: bool = False):
        super().__init__(DIPPM_SAGE.name, target, seed=seed, quick=quick)
