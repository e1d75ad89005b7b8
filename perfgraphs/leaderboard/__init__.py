"""Leaderboard: canonical results records, ranking and the static site."""

from perfgraphs.leaderboard.estimators import estimator_submission

__all__ = ["estimator_submission"]
