"""Reference baseline ``static-xgboost`` (XGBoost on static features, grid selected on the validation part) as a leaderboard submission:
:class:`perfgraphs.baselines.StaticXGBoost` behind the predictor interface, the same code path as
``perfgraphs benchmark --baseline static-xgboost``."""

from perfgraphs.baselines.catalog import STATIC_XGBOOST
from perfgraphs.leaderboard.predictors import BaselinePredictor


class Predictor(BaselinePredictor):
    def __init__(self, target: str, seed: int = 0, quick: bool = False):
        super().__init__(STATIC_XGBOOST.name, target, seed=seed, quick=quick)
