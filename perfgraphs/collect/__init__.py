"""Measurement collector: platforms, protocols, isolated workers, plans, crash-safe storage.

Typical use is the CLI (``perfgraphs collect plans/dippm-cpu.yaml``); the pieces are importable
for notebooks and tests.
"""

from perfgraphs.collect.errors import (CampaignLockedError, CollectError, CoreBusyError, CorruptShardError,
                                       PlanError, PlatformUnavailableError, StoreError, StoreIOError,
                                       UnknownPlatformError)
from perfgraphs.collect.plan import ConfigSpec, Plan, load_plan, parse_plan
from perfgraphs.collect.platforms import PLATFORMS, CollectorPlatform, get_platform
from perfgraphs.collect.protocols import PROTOCOLS, Protocol, get_protocol
from perfgraphs.collect.stats import RunStats, run_stats
from perfgraphs.collect.store import MeasurementStore, load_measurements

__all__ = [
    "CampaignLockedError", "CollectError", "CollectorPlatform", "ConfigSpec", "CoreBusyError", "CorruptShardError",
    "MeasurementStore", "PLATFORMS", "PROTOCOLS", "Plan", "PlanError", "PlatformUnavailableError",
    "Protocol", "RunStats", "StoreError", "StoreIOError", "UnknownPlatformError", "get_platform", "get_protocol",
    "load_measurements", "load_plan", "parse_plan", "run_stats",
]
