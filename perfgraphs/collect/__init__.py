"""Measurement collector: platforms, protocols, isolated workers, plans, crash-safe storage.

Typical use is the CLI (``perfgraphs collect plans/dippm-cpu.yaml``); the pieces are importable
for notebooks and tests.
"""

from perfgraphs.lazy import lazy_getattr

# each name imported on first use (perfgraphs.lazy): the CLI imports this package's errors on every
# call, and the store would bring pyarrow with it
_LAZY = {
    **dict.fromkeys(("CampaignLockedError", "CollectError", "CoreBusyError", "CorruptShardError", "PlanError",
                     "PlatformUnavailableError", "StoreError", "StoreIOError", "UnknownPlatformError"),
                    "perfgraphs.collect.errors"),
    **dict.fromkeys(("ConfigSpec", "Plan", "load_plan", "parse_plan"), "perfgraphs.collect.plan"),
    **dict.fromkeys(("PLATFORMS", "CollectorPlatform", "get_platform"), "perfgraphs.collect.platforms"),
    **dict.fromkeys(("PROTOCOLS", "Protocol", "get_protocol"), "perfgraphs.collect.protocols"),
    **dict.fromkeys(("RunStats", "run_stats"), "perfgraphs.collect.stats"),
    **dict.fromkeys(("MeasurementStore", "load_measurements"), "perfgraphs.collect.store"),
}

__all__ = [
    "CampaignLockedError", "CollectError", "CollectorPlatform", "ConfigSpec", "CoreBusyError", "CorruptShardError",
    "MeasurementStore", "PLATFORMS", "PROTOCOLS", "Plan", "PlanError", "PlatformUnavailableError",
    "Protocol", "RunStats", "StoreError", "StoreIOError", "UnknownPlatformError", "get_platform", "get_protocol",
    "load_measurements", "load_plan", "parse_plan", "run_stats",
]


__getattr__ = lazy_getattr(__name__, _LAZY, globals())
