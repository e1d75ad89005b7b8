"""Measurement collector: platforms, protocols, isolated workers, plans, crash-safe storage.

Typical use is the CLI (``perfgraphs collect plans/dippm-cpu.yaml``); the pieces are importable
for notebooks and tests.
"""

# Each name is imported on first use (PEP 562, as in perfgraphs/__init__.py): the CLI imports this
# package's errors on every call, and the store would bring pyarrow with it.
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


def __getattr__(name: str):
    if name in _LAZY:
        import importlib

        value = getattr(importlib.import_module(_LAZY[name]), name)
        globals()[name] = value
        return value
    raise AttributeError(f"module 'perfgraphs.collect' has no attribute {name!r}")
