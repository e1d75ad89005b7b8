"""Errors of the measurement collector; all derive from PerfgraphsError so the CLI prints one line."""

from perfgraphs.errors import PerfgraphsError


class CollectError(PerfgraphsError):
    """Base class for collector errors."""


class PlanError(CollectError):
    """A plan file that cannot be read or does not describe a valid campaign."""


class UnknownPlatformError(CollectError):
    """A platform name that is not in the registry."""


class PlatformUnavailableError(CollectError):
    """A known platform that this machine cannot run (no CUDA device, missing package)."""


class CorruptShardError(CollectError):
    """A measurement shard that cannot be read or whose checksum does not match its sidecar."""

    def __init__(self, path, reason: str):
        self.path = str(path)
        super().__init__(f"corrupt measurement shard {self.path}: {reason}")


class CampaignLockedError(CollectError):
    """Another campaign process is writing to the same output directory."""
