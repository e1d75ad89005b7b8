"""Entry ``serving-prior-boost`` as a leaderboard submission: :class:`perfgraphs.baselines.serving_prior.ServingPriorBoost`
for the board's target behind the predictor interface, the same code path as
``perfgraphs benchmark --baseline serving-prior-boost``."""

from perfgraphs.baselines.catalog import SERVING_PRIOR_BOOST
from perfgraphs.leaderboard.predictors import BaselinePredictor


class Predictor(BaselinePredictor):
    def __init__(self, target: str, seed: int = 0, quick: bool = False):
        super().__init__(SERVING_PRIOR_BOOST.name, target, seed=seed, quick=quick)
