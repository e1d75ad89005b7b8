"""Reference baseline ``nnlqp-gnn`` (NNLQP supervised GNN with TraPPM node features) as a leaderboard submission:
:class:`perfgraphs.baselines.NNLQPGNN` behind the predictor interface, the same code path as
``perfgraphs benchmark --baseline nnlqp-gnn``."""

from perfgraphs.baselines.catalog import NNLQP_GNN
from perfgraphs.leaderboard.predictors import BaselinePredictor


class Predictor(BaselinePredictor):
    def __init__(self, target: str, seed: int = 0, quick: bool = False):
        super().__init__(NNLQP_GNN.name, target, seed=seed, quick=quick)
