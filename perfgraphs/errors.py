"""Typed errors raised by the public API.

Every error a user can cause by bad input derives from :class:`PerfgraphsError`; the CLI turns
these into one line on stderr and a non-zero exit code.
"""


class PerfgraphsError(Exception):
    """Base class for errors caused by user input or missing resources."""


class SourceNotFoundError(PerfgraphsError):
    """A file named as a graph source does not exist."""


class InvalidModelError(PerfgraphsError):
    """Bytes or a file that are not a readable ONNX model (or a model we cannot analyse)."""


class UnknownModelError(PerfgraphsError):
    """A model name (``timm:...``, ``torchvision:...``, ``hf:...``) that the zoo cannot build."""


class InvalidInputSpecError(PerfgraphsError):
    """An input specification (batch size, image shape, sequence length) that is not valid."""


class ExportError(PerfgraphsError):
    """A model that was built but could not be exported to ONNX."""


class CorruptFileError(PerfgraphsError):
    """A stored file cannot be read or does not match its recorded checksum."""


class FileIOError(PerfgraphsError):
    """A file that cannot be read or written: read-only or full disk, permissions, I/O error."""


class DatasetIntegrityError(CorruptFileError):
    """A built dataset whose files do not match its manifest: corrupted, modified, missing or extra."""


class StaleDatasetError(PerfgraphsError):
    """A built dataset whose sources (measurements, graph pool, external files) changed since its build."""


class DatasetNotBuiltError(PerfgraphsError):
    """A dataset config that is not built (or was built by an older, unverifiable format)."""


class DatasetBuildError(PerfgraphsError):
    """A build that could not be written (disk full, read-only cache, ...)."""
