"""The benchmark's one scorer: ``Evaluator(dataset, target).eval(input_dict) -> dict``.

As OGB's evaluators, the Evaluator is driven by the registry (dataset, config, target, unit, whether
the target is positive), so every leaderboard entry is scored by the same code with the same
checks. It validates before it scores: a submission with a wrong length, NaN, a non-positive
latency or ids that do not match the split fails loudly with a one-line
:class:`EvaluationError` instead of producing a plausible but meaningless number.

Metrics (SPEC §5), all on the original (not log) scale:

* ``mape_pct`` — mean |y − ŷ| / y × 100;
* ``rmse`` — root mean squared error in the target's unit (``unit`` in the result);
* ``acc_5_pct`` / ``acc_10_pct`` / ``acc_15_pct`` — share of predictions whose relative error
  |y − ŷ| / y is at most δ = 5 / 10 / 15 %, in percent (δ = 10 % is the standard one);
* ``kendall_tau`` — Kendall's τ-b rank correlation (``scipy.stats.kendalltau``); NaN when it is
  undefined (fewer than two samples or a constant input).
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any, Iterable, Sequence

import numpy as np

from perfgraphs.errors import PerfgraphsError
from perfgraphs.registry import Config, Dataset, Target, Task, task

ACC_THRESHOLDS_PCT: tuple[int, ...] = (5, 10, 15)
_SHOW = 3  # ids shown in an id-mismatch message


class EvaluationError(PerfgraphsError):
    """A submission the Evaluator refuses to score."""


class InputFormatError(EvaluationError):
    """Missing keys, wrong shapes or lengths, unusable dtypes."""


class InvalidValueError(EvaluationError):
    """NaN / inf values, or non-positive values where the target is positive."""


class IdMismatchError(EvaluationError):
    """``sample_id`` is not exactly the expected set of ids (duplicates, missing, unknown)."""


@dataclass(frozen=True)
class Metrics:
    """Scores of one group of predictions; ``rmse`` is in the target's unit."""

    n: int
    mape_pct: float
    rmse: float
    acc_5_pct: float
    acc_10_pct: float
    acc_15_pct: float
    kendall_tau: float

    def as_dict(self) -> dict[str, float]:
        return asdict(self)


def compute_metrics(y_true: np.ndarray, y_pred: np.ndarray) -> Metrics:
    """Metrics of already-validated 1-D arrays (y_true non-zero). Pure function, also used by tests
    and baselines that score graph properties the registry has no target for."""
    from scipy.stats import kendalltau

    y_true = np.asarray(y_true, dtype=np.float64)
    y_pred = np.asarray(y_pred, dtype=np.float64)
    rel_err = np.abs(y_true - y_pred) / np.abs(y_true)
    acc = {d: float(np.mean(rel_err <= d / 100.0) * 100.0) for d in ACC_THRESHOLDS_PCT}
    if len(y_true) >= 2:
        tau = float(kendalltau(y_true, y_pred).statistic)
    else:
        tau = float("nan")
    return Metrics(
        n=int(len(y_true)),
        mape_pct=float(np.mean(rel_err) * 100.0),
        rmse=float(np.sqrt(np.mean((y_true - y_pred) ** 2))),
        acc_5_pct=acc[5], acc_10_pct=acc[10], acc_15_pct=acc[15],
        kendall_tau=tau,
    )


def mape_pct(y_true: np.ndarray, y_pred: np.ndarray) -> float:
    y_true = np.asarray(y_true, dtype=np.float64)
    return float(np.mean(np.abs(y_true - np.asarray(y_pred, dtype=np.float64)) / np.abs(y_true)) * 100.0)


def _few(values: Iterable[str]) -> str:
    values = sorted(values)
    shown = ", ".join(repr(v) for v in values[:_SHOW])
    return shown + (", ..." if len(values) > _SHOW else "")


def check_ids(sample_ids: Sequence[str], expected_ids: Sequence[str]) -> None:
    """Raise :class:`IdMismatchError` unless ``sample_ids`` is a permutation of ``expected_ids``."""
    seen: set[str] = set()
    duplicated: set[str] = set()
    for sid in sample_ids:
        (duplicated if sid in seen else seen).add(sid)
    expected = set(expected_ids)
    missing, unknown = expected - seen, seen - expected
    problems = []
    if duplicated:
        problems.append(f"{len(duplicated)} duplicated (e.g. {_few(duplicated)})")
    if missing:
        problems.append(f"{len(missing)} missing (e.g. {_few(missing)})")
    if unknown:
        problems.append(f"{len(unknown)} unknown (e.g. {_few(unknown)})")
    if problems:
        raise IdMismatchError(
            f"sample_id does not match the {len(expected)} expected ids: " + "; ".join(problems)
        )


class Evaluator:
    """Scores predictions of one registered target.

    ``config=None`` picks the dataset's first config that has ``target``. ``expected_ids`` (here
    or per :meth:`eval` call) makes ``sample_id`` mandatory and checks it is exactly that set.
    """

    def __init__(self, dataset: str, target: str, config: str | None = None,
                 expected_ids: Sequence[str] | None = None):
        self._bind(task(dataset, config, target), expected_ids)

    @classmethod
    def for_task(cls, resolved: Task, expected_ids: Sequence[str] | None = None) -> "Evaluator":
        """The Evaluator of a board already resolved (:func:`perfgraphs.registry.task`)."""
        evaluator = cls.__new__(cls)
        evaluator._bind(resolved, expected_ids)
        return evaluator

    def _bind(self, resolved: Task, expected_ids: Sequence[str] | None) -> None:
        self.task = resolved
        self.dataset: Dataset = resolved.dataset
        self.config: Config = resolved.config
        self.target: Target = resolved.target
        self.expected_ids = None if expected_ids is None else [str(i) for i in expected_ids]

    @property
    def expected_input_format(self) -> str:
        sign = "> 0" if self.target.positive else "non-zero y_true"
        return (
            f"==== Expected input format of Evaluator for {self.dataset.name} / {self.config.name} / "
            f"{self.target.name} ({self.target.unit})\n"
            "{'y_true': y_true, 'y_pred': y_pred[, 'sample_id': ids][, 'family': f][, 'platform': p]}\n"
            "- y_true: numpy.ndarray (or torch.Tensor / list) of shape (n,), the measured values\n"
            f"- y_pred: numpy.ndarray of shape (n,), predictions in {self.target.unit}, finite, {sign}\n"
            "- sample_id: list[str] of length n; required when expected ids are set, which it must\n"
            "  match exactly (no duplicates, none missing, none unknown); order is free\n"
            "- family / platform: optional array-likes of length n; each adds a per-group breakdown\n"
            "  ('per_family' / 'per_platform') and its unweighted mean over groups ('family_mean' /\n"
            "  'platform_mean')\n"
            "Metrics are computed on the original scale (not log)."
        )

    @property
    def expected_output_format(self) -> str:
        return (
            f"==== Expected output format of Evaluator for {self.dataset.name} / {self.target.name}\n"
            "{'dataset', 'config', 'target', 'unit', 'n', 'mape_pct', 'rmse', 'acc_5_pct', 'acc_10_pct',\n"
            " 'acc_15_pct', 'kendall_tau'[, 'per_family': {family: metrics}, 'family_mean': metrics]\n"
            "[, 'per_platform': {platform: metrics}, 'platform_mean': metrics]}\n"
            f"- rmse is in {self.target.unit}; percentages are in [0, 100]; kendall_tau in [-1, 1] or NaN"
        )

    # -- validation ------------------------------------------------------------------------
    @staticmethod
    def _array(input_dict: dict, key: str) -> np.ndarray:
        value = input_dict[key]
        if hasattr(value, "detach"):  # torch tensor
            value = value.detach().cpu().numpy()
        arr = np.asarray(value)
        if arr.dtype == object or not (np.issubdtype(arr.dtype, np.number) or arr.dtype == bool):
            raise InputFormatError(f"{key} must be numeric, got dtype {arr.dtype}")
        if arr.ndim != 1:
            hint = " (flatten it with .ravel())" if arr.ndim == 2 and 1 in arr.shape else ""
            raise InputFormatError(f"{key} must be 1-D of shape (n,), got shape {arr.shape}{hint}")
        return arr.astype(np.float64)

    def _labels(self, input_dict: dict, key: str, n: int) -> list[str] | None:
        if key not in input_dict or input_dict[key] is None:
            return None
        value = input_dict[key]
        values = [str(v) for v in (value.tolist() if hasattr(value, "tolist") else value)]
        if len(values) != n:
            raise InputFormatError(f"{key} has {len(values)} entries but y_true has {n}")
        return values

    def _validate(self, input_dict: dict, expected_ids: Sequence[str] | None):
        if not isinstance(input_dict, dict):
            raise InputFormatError(f"input must be a dict, got {type(input_dict).__name__}")
        missing = [k for k in ("y_true", "y_pred") if k not in input_dict]
        if missing:
            raise InputFormatError(f"input is missing key(s) {', '.join(missing)} (see expected_input_format)")
        y_true, y_pred = self._array(input_dict, "y_true"), self._array(input_dict, "y_pred")
        if len(y_true) != len(y_pred):
            raise InputFormatError(f"y_pred has {len(y_pred)} entries but y_true has {len(y_true)}")
        if len(y_true) == 0:
            raise InputFormatError("y_true and y_pred are empty")
        for key, arr in (("y_true", y_true), ("y_pred", y_pred)):
            bad = ~np.isfinite(arr)
            if bad.any():
                raise InvalidValueError(
                    f"{key} has {int(bad.sum())} non-finite value(s) (NaN/inf), first at index {int(np.argmax(bad))}")
        if self.target.positive:
            for key, arr in (("y_true", y_true), ("y_pred", y_pred)):
                bad = arr <= 0
                if bad.any():
                    raise InvalidValueError(
                        f"{key} has {int(bad.sum())} non-positive value(s) but {self.target.name} is positive "
                        f"(first {arr[np.argmax(bad)]:g} at index {int(np.argmax(bad))})")
        elif (y_true == 0).any():
            raise InvalidValueError(f"y_true has {int((y_true == 0).sum())} zero value(s): MAPE is undefined")
        n = len(y_true)
        ids = self._labels(input_dict, "sample_id", n)
        expected = expected_ids if expected_ids is not None else self.expected_ids
        if expected is not None:
            if ids is None:
                raise InputFormatError("sample_id is required when expected ids are given")
            check_ids(ids, [str(i) for i in expected])
        elif ids is not None and len(set(ids)) != n:
            check_ids(ids, sorted(set(ids)))  # reports the duplicates
        return y_true, y_pred, self._labels(input_dict, "family", n), self._labels(input_dict, "platform", n)

    # -- scoring ---------------------------------------------------------------------------
    @staticmethod
    def _breakdown(groups: list[str], y_true: np.ndarray, y_pred: np.ndarray):
        labels = np.asarray(groups)
        per = {g: compute_metrics(y_true[labels == g], y_pred[labels == g]).as_dict() for g in sorted(set(groups))}
        keys = [k for k in Metrics.__dataclass_fields__ if k != "n"]
        mean: dict[str, float] = {"groups": len(per)}
        for k in keys:
            values = np.array([m[k] for m in per.values()], dtype=np.float64)
            mean[k] = float(np.nanmean(values)) if np.isfinite(values).any() else float("nan")
        return per, mean

    def eval(self, input_dict: dict, expected_ids: Sequence[str] | None = None) -> dict[str, Any]:
        """Validate ``input_dict`` (see :attr:`expected_input_format`) and return the metrics."""
        y_true, y_pred, family, platform = self._validate(input_dict, expected_ids)
        result: dict[str, Any] = {
            "dataset": self.dataset.name, "config": self.config.name,
            "target": self.target.name, "unit": self.target.unit,
            **compute_metrics(y_true, y_pred).as_dict(),
        }
        for key, groups in (("family", family), ("platform", platform)):
            if groups is not None:
                result[f"per_{key}"], result[f"{key}_mean"] = self._breakdown(groups, y_true, y_pred)
        return result
