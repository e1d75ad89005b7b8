"""Entry ``encoder-roofline`` as a leaderboard submission: :class:`perfgraphs.baselines.encoder_roofline.EncoderRoofline`
for the board's target behind the predictor interface, the same code path as
``perfgraphs benchmark --baseline encoder-roofline``."""

from perfgraphs.baselines.catalog import ENCODER_ROOFLINE
from perfgraphs.leaderboard.predictors import BaselinePredictor


class Predictor(BaselinePredictor):
    def __init__(self, target: str, seed: int = 0, quick: bool = False):
        super().__init__(ENCODER_ROOFLINE.name, target, seed=seed, quick=quick)
