"""The leaderboard's records and what they claim: the results files, their checks at write and
read time, tiers, hidden test sets, pinned builds, boards, names and ranks. Nothing here runs
submitted code."""
