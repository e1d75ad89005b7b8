"""Reference baseline ``nnlqp-gnn`` (NNLQP supervised GNN with TraPPM node features) as a leaderboard submission:
:class:`perfgraphs.baselines.NNLQPGNN` behind the predictor interface, the same code path as
``perfgraphs benchmark --baseline nnlqp-gnn``."""

from perfgraphs.leaderboard.predictors import BaselinePredictor


class Predictor(BaselinePredictor):
    def __init__(self, target: str, seed: int = 0, quick: bool = False):
        super().__init__("nnlqp-gnn", target, seed=seed, quick=quick)
