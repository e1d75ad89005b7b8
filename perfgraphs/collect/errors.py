"""Errors of the measurement collector; all derive from PerfgraphsError so the CLI prints one line."""

from perfgraphs.errors import FileIOError, PerfgraphsError


class CollectError(PerfgraphsError):
    """Base class for collector errors."""


class PlanError(CollectError):
    """A plan file that cannot be read or does not describe a valid campaign."""


class UnknownPlatformError(CollectError):
    """A platform name that is not in the registry."""


class PlatformUnavailableError(CollectError):
    """A known platform that this machine cannot run (no CUDA device, missing package)."""


class StoreError(CollectError):
    """A measurement store that is not exactly what its campaigns wrote."""


class CorruptStoreFileError(StoreError):
    """A store file (shard, part, sidecar, ``campaign.json``, ``hardware.json``) that cannot be read
    or whose bytes are not the ones written."""

    def __init__(self, path, reason: str):
        self.path = str(path)
        super().__init__(f"corrupt measurement store file {self.path}: {reason}")


class CorruptShardError(CorruptStoreFileError):
    """A measurement shard that cannot be read or whose checksum does not match its sidecar."""

    def __init__(self, path, reason: str):
        self.path = str(path)
        StoreError.__init__(self, f"corrupt measurement shard {self.path}: {reason}")


class IncompleteStoreError(StoreError):
    """Files missing from, or added to, a store: a recorded shard that is gone, a shard or a sidecar
    without its partner, row counts that differ from what ``campaign.json`` records."""


class StoreNotFoundError(StoreError):
    """A path that does not exist or does not hold a measurement store (no ``campaign.json``)."""


# a measurement store's file that cannot be read or written (perfgraphs.atomic raises it)
StoreIOError = FileIOError


class CampaignLockedError(CollectError):
    """Another campaign process is writing to the same output directory."""


class CoreBusyError(CollectError):
    """The measuring core stayed busy with another process for longer than the campaign waits."""


class ForeignMachineError(StoreError):
    """A row measured on other hardware than the rows already in its store."""


class LegacyStoreError(StoreError):
    """A store written before ``campaign.json`` recorded its shards: a shard deleted together with
    its sidecar cannot be seen, so it cannot be verified whole (``perfgraphs collect inventory``)."""
