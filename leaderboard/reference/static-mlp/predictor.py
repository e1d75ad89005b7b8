"""Reference baseline ``static-mlp`` (MLP on static graph features (the TraPPM comparison's MLP baseline)) as a leaderboard submission:
:class:`perfgraphs.baselines.StaticMLP` behind the predictor interface, the same code path as
``perfgraphs benchmark --baseline static-mlp``."""

from perfgraphs.baselines.catalog import STATIC_MLP
from perfgraphs.leaderboard.predictors import BaselinePredictor


class Predictor(BaselinePredictor):
    def __init__(self, target: str, seed: int = 0, quick: bool = False):
        super().__init__(STATIC_MLP.name, target, seed=seed, quick=quick)
