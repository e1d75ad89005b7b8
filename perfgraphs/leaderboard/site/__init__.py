"""The static leaderboard site, built from the records alone."""
