"""Entry ``roofline-fit`` (the roofline with its four hardware constants fitted to the board's
labels) as a leaderboard submission: :class:`perfgraphs.baselines.roofline_fit.FittedRoofline`
behind the predictor interface, the same code path as ``perfgraphs benchmark --baseline roofline-fit``."""

from perfgraphs.baselines.catalog import ROOFLINE_FIT
from perfgraphs.leaderboard.predictors import BaselinePredictor


class Predictor(BaselinePredictor):
    def __init__(self, target: str, seed: int = 0, quick: bool = False):
        super().__init__(ROOFLINE_FIT.name, target, seed=seed, quick=quick)
