"""Importers for public third-party measurement data (read from a local copy or a pinned download).

Nothing imported here is committed to the repository: each importer pins an upstream commit and
the sha256 of every file, and builds its table from verified bytes on the user's machine.
"""

from perfgraphs.loaders.mlenergy import MLENERGY_COMMIT, load_mlenergy
from perfgraphs.loaders.sources import (ChecksumMismatchError, DownloadError, ExternalSourceError,
                                        SourceFile, SourceFileMissingError, SourceFormatError,
                                        resolve_source)
from perfgraphs.loaders.timm_benchmark import (TIMM_COMMIT, NoiseFloor, TimmPlatform,
                                               cross_version_noise_floor,
                                               cross_version_noise_floor_details, dedupe_latest,
                                               load_timm_benchmark, parse_platform, platforms)

__all__ = [
    "ChecksumMismatchError", "DownloadError", "ExternalSourceError", "MLENERGY_COMMIT",
    "NoiseFloor", "SourceFile", "SourceFileMissingError", "SourceFormatError", "TIMM_COMMIT",
    "TimmPlatform", "cross_version_noise_floor", "cross_version_noise_floor_details",
    "dedupe_latest", "load_mlenergy", "load_timm_benchmark", "parse_platform", "platforms",
    "resolve_source",
]
