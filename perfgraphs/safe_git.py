"""How perfgraphs asks git about a repository it did not write (a submission's folder, a pull request's
checkout): the options every such call carries, shared by the leaderboard's readers and the hidden-round
draw (``perfgraphs.collect.variants``), so that there is one list to keep."""

# Git reads a folder that holds HEAD, objects/ and refs/ as a bare repository, config included, and
# `git status` runs that config's core.fsmonitor as a command: a submission folder with those files
# ran its writer's command on the reviewer's machine under `reproduce --submission`, and named any
# commit as its HEAD (twentieth pass of 2026-12-02). Every git call here reads .git folders only
# and runs no monitor.
# Nor does it fetch: a repository's config can make it a partial clone whose missing objects git
# fetches on demand, running the config's remote.*.uploadpack (or core.sshCommand) as a command: a
# submission folder's .git/config ran its writer's command when `check` resolved `commit: auto`
# (twenty-third pass of 2026-12-02). No transport is allowed and no lazy fetch made. Nor are hooks
# run, nor the index written: `git status` in a copied folder rewrote its index and ran the folder's
# .git/hooks/post-index-change (twenty-fourth pass).
SAFE_GIT = ("-c", "safe.bareRepository=explicit", "-c", "core.fsmonitor=false", "-c", "protocol.allow=never",
            "-c", "core.hooksPath=/dev/null", "--no-optional-locks")
