"""Entry ``serving-prior`` as a leaderboard submission: :class:`perfgraphs.baselines.serving_prior.ServingPrior`
for the board's target behind the predictor interface, the same code path as
``perfgraphs benchmark --baseline serving-prior``."""

from perfgraphs.baselines.catalog import SERVING_PRIOR
from perfgraphs.leaderboard.predictors import BaselinePredictor


class Predictor(BaselinePredictor):
    def __init__(self, target: str, seed: int = 0, quick: bool = False):
        super().__init__(SERVING_PRIOR.name, target, seed=seed, quick=quick)
