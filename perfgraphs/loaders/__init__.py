"""Importers for public third-party measurement data (read from a local copy or a pinned download).

Nothing imported here is committed to the repository: each importer reads every file of its
source folder that parses (skipping the others with one line each), holds the files of a pinned
upstream commit to their committed sha256, and reports the name and sha256 of every file it read.
"""

from perfgraphs.loaders.mlenergy import MLENERGY_COMMIT, MLEnergyImport, import_mlenergy, load_mlenergy
from perfgraphs.loaders.sources import (ChecksumMismatchError, DownloadError, ExternalSourceError,
                                        ImportedFile, SkippedFile, SkippedSourceFileWarning, SourceFile,
                                        SourceFileMissingError, SourceFormatError, discover_source,
                                        resolve_source)
from perfgraphs.loaders.timm_benchmark import (TIMM_COMMIT, NoiseFloor, TimmImport, TimmPlatform,
                                               cross_version_noise_floor,
                                               cross_version_noise_floor_details, dedupe_latest,
                                               import_timm_benchmark, load_timm_benchmark, parse_platform,
                                               platforms)

__all__ = [
    "ChecksumMismatchError", "DownloadError", "ExternalSourceError", "ImportedFile", "MLENERGY_COMMIT",
    "MLEnergyImport", "NoiseFloor", "SkippedFile", "SkippedSourceFileWarning", "SourceFile",
    "SourceFileMissingError", "SourceFormatError", "TIMM_COMMIT", "TimmImport", "TimmPlatform",
    "cross_version_noise_floor", "cross_version_noise_floor_details", "dedupe_latest",
    "discover_source", "import_mlenergy", "import_timm_benchmark", "load_mlenergy",
    "load_timm_benchmark", "parse_platform", "platforms", "resolve_source",
]
