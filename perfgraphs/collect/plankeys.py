"""Which keys a plan may hold, where, and what its suite may be called.

Why: a plan is read with ``dict.get(key, default)``, so a misspelt key (``protocl``,
``platfroms``, ``batch_size``, ``modles``) used to be ignored and its default measured instead —
hours of machine time on the wrong configurations, with nothing said. Every key is now checked
against the ones the parser reads, and a wrong one is named with the closest valid key.

The suite names a folder under ``data/measurements/`` (:func:`perfgraphs.cli.collect_cmd.default_store`),
so it must be a plain folder name: ``..`` or a path would write outside the measurements.
"""

from __future__ import annotations

import difflib
import re

from perfgraphs.collect.errors import PlanError

# what a model entry may override (read from the group merged with the entry)
MODEL_KEYS = frozenset({"name", "input_sizes", "seq_lens", "batch_sizes", "timeout_s", "gmacs", "gmacs_at"})
# a group's own keys, plus every model option as the group's default
GROUP_KEYS = frozenset({"family", "mode", "protocol", "platforms", "timeout_s", "core", "models"}
                       | (MODEL_KEYS - {"name"}))
# the plan's own keys, plus every group key as the default of all groups
TOP_KEYS = frozenset({"suite", "description", "groups", "rounds", "schedule"} | GROUP_KEYS)

# a folder name: starts with a letter or digit (so never "." or ".."), no separators
_SUITE = re.compile(r"[A-Za-z0-9][A-Za-z0-9._+-]*")


def check_keys(mapping: dict, allowed: frozenset, where: str) -> None:
    """Refuse the first key ``allowed`` does not hold, naming the closest one that it does."""
    for key in mapping:
        if key in allowed:
            continue
        close = difflib.get_close_matches(str(key), sorted(allowed), n=1)
        hint = f" (did you mean {close[0]!r}?)" if close else f" (valid: {', '.join(sorted(allowed))})"
        raise PlanError(f"{where}: unknown key {key!r}{hint}")


def check_suite(suite, name: str) -> str:
    if not isinstance(suite, str) or not _SUITE.fullmatch(suite):
        raise PlanError(f"{name}: suite must be a plain folder name (letters, digits, '.', '_', '+', '-', "
                        f"starting with a letter or digit), got {suite!r}")
    return suite
