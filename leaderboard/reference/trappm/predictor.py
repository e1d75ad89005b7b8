"""Reference baseline ``trappm`` (TraPPM: graph auto-encoder pre-training + SAGE regressor) as a leaderboard submission:
:class:`perfgraphs.baselines.TraPPM` behind the predictor interface, the same code path as
``perfgraphs benchmark --baseline trappm``."""

from perfgraphs.baselines.catalog import TRAPPM_GNN
from perfgraphs.leaderboard.predictors import BaselinePredictor


class Predictor(BaselinePredictor):
    def __init__(self, target: str, seed: int = 0, quick: bool = False):
        super().__init__(TRAPPM_GNN.name, target, seed=seed, quick=quick)
