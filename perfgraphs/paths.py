"""Every location perfgraphs reads or writes, in one module.

Three places, each a documented setting:

* **data directory** (``PERFGRAPHS_DATA_DIR``, or ``load_dataset(..., data_dir=...)``): the
  measurement stores (``measurements/<suite>/``), the graph pool (``graphs/timm/``), the
  committed split files (``splits/``), noise floors (``measurements/noise-floor/``) and the
  release index (``releases.json``). Default: the ``data/`` folder of the checkout this package
  runs from. An installed wheel has no checkout: without the setting, anything that needs
  measurements or graphs stops with :class:`DataDirNotFoundError`, one line saying how to point
  it at data; committed splits, noise floors and the release index travel inside the wheel
  (``perfgraphs/committed_data``), so released datasets load without a data directory.
* **release folder** (``PERFGRAPHS_RELEASE_DIR``, or ``load_dataset(..., release_dir=...)``): a
  folder written by ``perfgraphs datasets export DIR`` (one Hugging-Face-Hub-ready folder per
  dataset); ``load_dataset(name, config, version=...)`` serves a release from it, verified.
* **cache home** (``PERFGRAPHS_HOME``, default ``~/.cache/perfgraphs``): built datasets, the
  releases kept on this machine, downloaded external files, MLflow.

External measurement sources (timm's results, ML.ENERGY) are read from ``PERFGRAPHS_EXTERNAL_DIR``
when set, else downloaded into the cache (:mod:`perfgraphs.loaders.sources`).

Functions, not constants: a setting changed after import (a test, a ``data_dir=`` argument) is
seen by the next call, and the library asks these functions at use (``paths.splits_dir()``, never a
copy taken at import), so this module alone decides every location.
"""

from __future__ import annotations

import contextlib
import os
from contextvars import ContextVar
from pathlib import Path
from typing import Iterator

from perfgraphs.errors import PerfgraphsError

ENV_DATA_DIR = "PERFGRAPHS_DATA_DIR"
ENV_RELEASE_DIR = "PERFGRAPHS_RELEASE_DIR"
ENV_HOME = "PERFGRAPHS_HOME"
ENV_EXTERNAL_DIR = "PERFGRAPHS_EXTERNAL_DIR"

PACKAGE_DIR = Path(__file__).resolve().parent
# The committed small files a wheel carries (pyproject maps the checkout's data/ to this package
# and includes only these patterns): the checkout itself reads them in data/.
PACKAGED_DATA_DIR = PACKAGE_DIR / "committed_data"
RELEASES_FILE_NAME = "releases.json"

# Package folders of perfgraphs whose Python code a predictor may import (its featurizers and
# reference baselines); data folders beside them (results, reference predictions, site) are left out,
# and with "site" the site's code (perfgraphs/leaderboard/site/), which no predictor has a use for.
CODE_EXCLUDE = {"results", "site", "reference", "hidden", "examples", "out", "__pycache__"}
# package data the code reads, staged with it (folder of the package -> suffix): the exporters' model
# configs, the hardware descriptor and LLM architecture tables (datasheet and model-card facts, no
# label). Never predict's artifacts: they are fitted on labels.
CODE_DATA = {("graph", "hf_configs"): ".json", ("features",): ".csv", ("features", "hardware"): ".csv"}


def is_staged_data(parts: tuple[str, ...]) -> bool:
    """Whether the package's file at ``parts`` (its path inside the package folder) is package data
    :func:`perfgraphs.leaderboard.sandbox.isolation.stage_code` copies into the sandbox (:data:`CODE_DATA`):
    what a predictor reads beside the code, what :func:`perfgraphs.leaderboard.frozen_fits.package_data_before`
    dates and what the exposure scan reads (:func:`perfgraphs.collect.public_files.staged_package_data`)."""
    return (not any(part in CODE_EXCLUDE for part in parts[:-1]) and bool(parts)
            and CODE_DATA.get(tuple(parts[:-1])) == Path(parts[-1]).suffix)


_data_dir_override: ContextVar[Path | None] = ContextVar("perfgraphs_data_dir", default=None)
_release_dir_override: ContextVar[Path | None] = ContextVar("perfgraphs_release_dir", default=None)


class DataDirNotFoundError(PerfgraphsError):
    """No data directory is set and this package does not run from a checkout (or the one set is missing)."""


def checkout_root() -> Path | None:
    """The repository this package runs from (an editable install), None for an installed wheel."""
    root = PACKAGE_DIR.parent
    return root if (root / "pyproject.toml").is_file() and (root / "data").is_dir() else None


@contextlib.contextmanager
def using(data_dir: Path | str | None = None, release_dir: Path | str | None = None) -> Iterator[None]:
    """Within the block, read data from ``data_dir`` / releases from ``release_dir`` (None: unchanged)."""
    tokens = []
    if data_dir is not None:
        tokens.append((_data_dir_override, _data_dir_override.set(Path(data_dir).expanduser())))
    if release_dir is not None:
        tokens.append((_release_dir_override, _release_dir_override.set(Path(release_dir).expanduser())))
    try:
        yield
    finally:
        for var, token in reversed(tokens):
            var.reset(token)


def _configured_data_dir() -> Path | None:
    explicit = _data_dir_override.get()
    if explicit is None and os.environ.get(ENV_DATA_DIR):
        explicit = Path(os.environ[ENV_DATA_DIR]).expanduser()
    if explicit is not None and not explicit.is_dir():
        raise DataDirNotFoundError(f"the data directory {explicit} does not exist (set {ENV_DATA_DIR} to a folder "
                                   "with measurements/ and graphs/, e.g. a perfgraphs checkout's data/)")
    return explicit


def data_dir() -> Path:
    """The data directory: the setting, else the checkout's ``data/``; else one line saying what to set."""
    configured = _configured_data_dir()
    if configured is not None:
        return configured
    root = checkout_root()
    if root is not None:
        return root / "data"
    raise DataDirNotFoundError(
        f"no data directory: this perfgraphs is installed outside a checkout, so set {ENV_DATA_DIR} to a "
        f"folder with measurements/ and graphs/ (a perfgraphs checkout's data/), or load a release with "
        f"{ENV_RELEASE_DIR}=DIR (a folder written by `perfgraphs datasets export DIR`)")


def _committed(rel: str) -> Path:
    """A small committed file or folder: in the data directory when it has it, else the wheel's copy."""
    try:
        configured = _configured_data_dir()
    except DataDirNotFoundError:
        configured = None
    root = checkout_root()
    for base in (configured, root / "data" if root else None):
        if base is not None and (base / rel).exists():
            return base / rel
    if root is not None:  # a checkout without the file yet: it is written there
        return root / "data" / rel
    return PACKAGED_DATA_DIR / rel


def measurements_dir() -> Path:
    return data_dir() / "measurements"


def measurement_store(suite: str) -> Path:
    """``<data dir>/measurements/<suite>``: one campaign's store."""
    return measurements_dir() / suite


def graph_pool_dir() -> Path:
    return data_dir() / "graphs/timm"


def splits_dir() -> Path:
    return _committed("splits")


def noise_floor_dir() -> Path:
    return _committed("measurements/noise-floor")


def releases_file() -> Path:
    """The release index: the set data directory's own (its releases describe its data), else the
    checkout's or the wheel's."""
    configured = _configured_data_dir()
    return configured / RELEASES_FILE_NAME if configured is not None else _committed(RELEASES_FILE_NAME)


def release_dir() -> Path | None:
    """The folder of exported releases to read (``PERFGRAPHS_RELEASE_DIR``), if one is set."""
    explicit = _release_dir_override.get()
    if explicit is None and os.environ.get(ENV_RELEASE_DIR):
        explicit = Path(os.environ[ENV_RELEASE_DIR]).expanduser()
    return explicit


def cache_home() -> Path:
    """``$PERFGRAPHS_HOME`` or ``~/.cache/perfgraphs``."""
    env = os.environ.get(ENV_HOME)
    return Path(env).expanduser() if env else Path.home() / ".cache" / "perfgraphs"


def user_hardware_dir(home: Path | None = None) -> Path:
    """``<home>/hardware``: the user's own tables (hardware descriptors, prices), each read over the
    shipped table of the same name, so a new device or price needs no edit of the installed package."""
    return (home or cache_home()) / "hardware"


def datasets_cache(home: Path | None = None) -> Path:
    """Working builds: ``<home>/datasets/<short name>/<version>/<config>``."""
    return (home or cache_home()) / "datasets"


def releases_cache(home: Path | None = None) -> Path:
    """Released builds kept on this machine: ``<home>/releases/<short name>/<version>/<config>``."""
    return (home or cache_home()) / "releases"


def external_dir() -> Path | None:
    """``$PERFGRAPHS_EXTERNAL_DIR``: local copies of the public sources, one subfolder each."""
    env = os.environ.get(ENV_EXTERNAL_DIR)
    return Path(env).expanduser() if env else None


def shared_external_dir() -> Path | None:
    """``shared/external`` in a folder above the package (the project's machines keep the public
    sources there): what the tests and the ground-truth checks use when nothing is set."""
    for parent in PACKAGE_DIR.parents:
        candidate = parent / "shared" / "external"
        if candidate.is_dir():
            return candidate
    return None


def leaderboard_dir() -> Path:
    """The leaderboard's committed files: results, pinned builds, reference runs, hidden-set
    commitments (the checkout's ``leaderboard/``; a wheel's copy, ``perfgraphs/leaderboard_data``)."""
    root = checkout_root()
    return root / "leaderboard" if root is not None else PACKAGE_DIR / "leaderboard_data"


def leaderboard_results_dir() -> Path:
    return leaderboard_dir() / "results"


def plans_dir() -> Path:
    """The measurement plans of a checkout (``plans/``)."""
    return (checkout_root() or PACKAGE_DIR.parent) / "plans"


def dataset_cards_dir() -> Path:
    """The committed, generated dataset cards of a checkout (``dataset_cards/``)."""
    return (checkout_root() or PACKAGE_DIR.parent) / "dataset_cards"


def perfgraphs_home() -> Path:
    """The user's cache (:func:`cache_home`): built datasets, imported external data, MLflow runs."""
    return cache_home()
