"""Leaderboard: submissions checked and scored (:mod:`.submit`) in the isolated harness
(:mod:`.sandbox`), their records and tiers (:mod:`.records`), and the static site (:mod:`.site`)."""

from perfgraphs.leaderboard.estimators import estimator_submission

__all__ = ["estimator_submission"]
