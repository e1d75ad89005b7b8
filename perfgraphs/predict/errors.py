"""Errors of ``perfgraphs.predict``: each one a user can cause, each a :class:`PerfgraphsError`
(one line from the CLI, a visible message in the web form)."""

from __future__ import annotations

from perfgraphs.errors import PerfgraphsError


class UnknownPlatformError(PerfgraphsError):
    """A platform (or a platform and mode) without labels: nothing to predict from."""


class ArtifactMissingError(PerfgraphsError):
    """No trained predictor artifact for a platform's target."""


class ArtifactMismatchError(PerfgraphsError):
    """An artifact trained on another dataset build or another feature version than this checkout's."""


class PriceTableError(PerfgraphsError):
    """A price table (the committed one or a user's override) that cannot be read."""


class CalibrationError(PerfgraphsError):
    """No calibration to this machine (or one of another machine), or too few references to fit one."""
