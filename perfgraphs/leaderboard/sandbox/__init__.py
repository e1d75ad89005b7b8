"""The isolated harness: a submission's predictor runs in one sandboxed process per seed
(bubblewrap, a memory cgroup, a task cap, a seccomp filter) and talks to the harness over one
framed channel. Nothing here reads or writes leaderboard records."""
