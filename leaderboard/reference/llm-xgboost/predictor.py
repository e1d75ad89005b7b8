"""Reference baseline ``llm-xgboost`` (the LLM study's tree model: XGBoost on model + hardware features, grid selected inside the training rows) as a leaderboard submission:
:class:`perfgraphs.baselines.LLMXGBoost` behind the predictor interface, the same code path as
``perfgraphs benchmark --baseline llm-xgboost``."""

from perfgraphs.baselines.catalog import LLM_XGBOOST
from perfgraphs.leaderboard.predictors import BaselinePredictor


class Predictor(BaselinePredictor):
    def __init__(self, target: str, seed: int = 0, quick: bool = False):
        super().__init__(LLM_XGBOOST.name, target, seed=seed, quick=quick)
