"""Leaderboard: canonical results records, ranking and the static site."""
