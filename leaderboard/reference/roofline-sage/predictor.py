"""Entry ``roofline-sage`` (the fitted roofline times DIPPM's network's correction of its log ratio) as a
leaderboard submission: :class:`perfgraphs.baselines.roofline_sage.RooflineSage` behind the
predictor interface, the same code path as ``perfgraphs benchmark --baseline roofline-sage``."""

from perfgraphs.baselines.catalog import ROOFLINE_SAGE
from perfgraphs.leaderboard.predictors import BaselinePredictor


class Predictor(BaselinePredictor):
    def __init__(self, target: str, seed: int = 0, quick: bool = False):
        super().__init__(ROOFLINE_SAGE.name, target, seed=seed, quick=quick)
