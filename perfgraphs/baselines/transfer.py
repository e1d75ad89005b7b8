"""Reference predictors for a new platform from K labelled architectures (leave-one-platform-out,
:mod:`perfgraphs.evaluation.platform_transfer`). Each is a scikit-learn estimator fitted on a
masked :class:`~perfgraphs.evaluation.platform_transfer.PlatformTable` for one platform: the K shots
are the rows that platform still labels; every other column is a source platform.

* :class:`RatioTransfer` — the transfer rule done properly: the source platform (and a global
  log-ratio or log-affine map from it) that best explains the shots by leave-one-out, then a
  per-family or operator-mix correction of its residuals only where leave-one-out on the shots
  says it helps. Needs the test architectures' labels on a source ("known models").
* :class:`SourceModelTransfer` — a model of log latency trained on every source platform's labels
  (gradient boosting on the architecture's labels on the other platforms, its log static graph
  features and the platform's descriptor), queried with the new platform's descriptor and
  corrected with the shots (log-offset or log-affine, by leave-one-out), then stacked with the
  ratio rule where that helps. Without source labels of the test architectures ("unseen
  models") it is a static-feature + descriptor model adapted with the shots (HELP's setting).

All work in log space: latencies span five orders of magnitude and errors are relative.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from sklearn.base import BaseEstimator, RegressorMixin

from perfgraphs.errors import PerfgraphsError


class TransferFitError(PerfgraphsError):
    """A transfer predictor that cannot be fitted on what the table holds."""


def _rel_error(log_pred: np.ndarray, log_true: np.ndarray) -> float:
    """MAPE (as a fraction) of log-space predictions, on the original scale."""
    return float(np.mean(np.abs(np.expm1(log_pred - log_true))))


def _shots(table, platform: str) -> tuple[int, np.ndarray, np.ndarray]:
    p = table.column(platform)
    logs = np.log(table.labels)
    rows = np.flatnonzero(np.isfinite(logs[:, p]))
    if len(rows) < 2:
        raise TransferFitError(f"platform {platform} has {len(rows)} labelled architecture(s); a transfer fit needs 2")
    return p, rows, logs


# -- the ratio rule -------------------------------------------------------------------------------


def _fit_map(x: np.ndarray, y: np.ndarray, kind: str) -> tuple[float, float]:
    """(slope, offset) of y ≈ slope·x + offset: "ratio" fixes the slope at 1 (a constant ratio,
    the median log-ratio: robust to one odd shot); "affine" is least squares."""
    if kind == "ratio" or len(x) < 3 or np.ptp(x) == 0:
        return 1.0, float(np.median(y - x))
    slope, offset = np.polyfit(x, y, 1)
    return float(slope), float(offset)


def _family_offsets(families: np.ndarray, resid: np.ndarray, shrinkage: float) -> dict:
    """Per family, its mean residual shrunk toward 0 by ``shrinkage`` pseudo-shots."""
    out = {}
    for f in set(families.tolist()):
        r = resid[families == f]
        out[f] = float(r.sum() / (len(r) + shrinkage))
    return out


def _op_mix_fit(z: np.ndarray, resid: np.ndarray, alpha: float):
    from sklearn.linear_model import Ridge

    return Ridge(alpha=alpha).fit(z, resid)


N_MIX = 7  # the correction inputs' operator shares (5) and log size (2); a profile follows them


def _profile_correction(kind: str, profile: np.ndarray, resid: np.ndarray, k: int = 7, alpha: float = 30.0):
    """A residual correction from the architectures' profiles across the source platforms: the
    shots whose profiles are nearest ("profile-knn", inverse-distance weights over the ``k``
    nearest, shrunk toward 0 by one pseudo-shot) or a ridge on the profile ("profile-ridge")."""
    if kind == "profile-ridge":
        from sklearn.linear_model import RidgeCV

        # the penalty by the shots' own (efficient) leave-one-out, inside each outer fold
        model = RidgeCV(alphas=(0.03, 0.1, 0.3, 1.0, 3.0, 10.0, 30.0)).fit(profile, resid)
        return lambda fam, zz: model.predict(zz[:, N_MIX:])

    def knn(fam, zz):
        d = np.sqrt(((zz[:, N_MIX:][:, None, :] - profile[None, :, :]) ** 2).sum(axis=2))
        near = np.argsort(d, axis=1)[:, :k]
        w = 1.0 / (np.take_along_axis(d, near, axis=1) + 0.05)
        return (w * resid[near]).sum(axis=1) / (w.sum(axis=1) + w.mean(axis=1))
    return knn


@dataclass(frozen=True)
class SourceMap:
    """log y(new) ≈ slope · log y(source) + offset, and its leave-one-out error on the shots."""

    source: str
    kind: str
    slope: float
    offset: float
    loo_mape: float
    coverage: int  # shots the source labels


RULE_CORRECTIONS = ("none", "family", "op-mix")  # the ratio rule's own


class RatioTransfer(RegressorMixin, BaseEstimator):
    """The ratio/affine transfer rule from the best source platform.

    ``fit(table, platform)``: every other platform labelling at least ``min_coverage`` of the
    shots is a candidate source; for each and each map kind ("ratio": a constant log-ratio,
    "affine": log-affine) the leave-one-out relative error on the shots ranks the (source, map)
    pairs. The best pair predicts; a test row its source does not label falls back to the next
    best pair that does. A correction of the residuals ("family": shrunk per-family offsets;
    "op-mix": ridge on the operator shares and log size) is kept only if the whole pipeline's
    leave-one-out error on the shots drops by it. A correction beyond the rule's own (a profile
    correction) must beat the rule's choice by more than one paired standard error of the shots'
    errors: it is fitted on the same shots, and taking it on a gain within their noise left
    ``profile-transfer`` 0.1-0.3 points behind the rule on three held-out GPUs at K = 64-128.
    """

    def __init__(self, maps: tuple[str, ...] = ("ratio", "affine"),
                 corrections: tuple[str, ...] = RULE_CORRECTIONS, min_coverage: float = 0.8,
                 family_shrinkage: float = 3.0, op_mix_alpha: float = 3.0, min_regression_shots: int = 16):
        self.maps = maps
        self.corrections = corrections
        self.min_coverage = min_coverage
        self.family_shrinkage = family_shrinkage
        self.op_mix_alpha = op_mix_alpha
        self.min_regression_shots = min_regression_shots

    def descriptor_platforms(self, table, platform: str) -> tuple:
        """The platform records whose hardware descriptor fitting on ``platform`` reads: none."""
        return ()

    # the correction's inputs: operator shares and log size, standardised on the shots
    def _mix_features(self, table, rows: np.ndarray) -> np.ndarray:
        mix = table.op_mix()[rows]
        size = np.log1p(table.static[rows][:, [0, 2]])  # MACs, parameters
        if getattr(self, "_profile", None) is None:
            return np.column_stack([mix, size])
        return np.column_stack([mix, size, self._profile[rows]])

    def _profile_matrix(self, table, p: int, s: int):
        """Each architecture's profile across the source platforms: its log label on each relative
        to the chosen source, minus that platform's median (0 where unlabelled). Only profile
        corrections read it."""
        if not any(c.startswith("profile-") for c in self.corrections):
            return None
        logs = np.log(table.labels)
        rel = np.delete(logs - logs[:, [s]], [p, s], axis=1)
        labelled = np.isfinite(rel).any(axis=0)  # a source hidden whole (other-devices) says nothing
        rel = rel[:, labelled]
        rel = rel - np.nanmedian(rel, axis=0, keepdims=True)
        return np.nan_to_num(rel, nan=0.0)

    def _correction(self, kind: str, families, z, resid):
        if kind == "none":
            return lambda fam, zz: np.zeros(len(fam))
        if kind == "family":
            offsets = _family_offsets(families, resid, self.family_shrinkage)
            return lambda fam, zz: np.array([offsets.get(f, 0.0) for f in fam])
        # a regression's correction stays within the residuals the shots showed: a test graph far
        # outside the shots' operator mix or profile must not be extrapolated into a wild factor
        lo, hi = float(resid.min()), float(resid.max())
        if kind == "op-mix":
            z = z[:, :N_MIX]
            mu, sd = z.mean(axis=0), z.std(axis=0) + 1e-9
            model = _op_mix_fit((z - mu) / sd, resid, self.op_mix_alpha)
            return lambda fam, zz: np.clip(model.predict((zz[:, :N_MIX] - mu) / sd), lo, hi)
        if kind.startswith("profile-"):
            correction = _profile_correction(kind, z[:, N_MIX:], resid)
            return lambda fam, zz: np.clip(correction(fam, zz), lo, hi)
        raise TransferFitError(f"unknown correction {kind!r} (none, family, op-mix, profile-knn, profile-ridge)")

    def fit(self, table, platform: str):
        p, rows, logs = _shots(table, platform)
        self._profile = None
        y = logs[rows, p]
        # a source must label most shots; where none does (an old file's architectures, the new
        # card's twins excluded), the best-covering sources compete on the shots they label
        covered = [int(np.isfinite(logs[rows, j]).sum()) for j in range(logs.shape[1]) if j != p]
        need = min(max(2, int(np.ceil(self.min_coverage * len(rows)))), max(max(covered, default=0), 2))
        maps = []
        for j, name in enumerate(table.platform_names):
            if j == p:
                continue
            x_all = logs[rows, j]
            ok = np.isfinite(x_all)
            if ok.sum() < need:
                continue
            x, yy = x_all[ok], y[ok]
            for kind in self.maps:
                loo = np.empty(len(x))
                for i in range(len(x)):
                    m = np.arange(len(x)) != i
                    slope, offset = _fit_map(x[m], yy[m], kind)
                    loo[i] = slope * x[i] + offset
                slope, offset = _fit_map(x, yy, kind)
                maps.append(SourceMap(name, kind, slope, offset, _rel_error(loo, yy), int(ok.sum())))
        if not maps:
            raise TransferFitError(f"no source platform labels {need} of the {len(rows)} shots of {platform}")
        maps.sort(key=lambda m: (m.loo_mape, -m.coverage, m.source, m.kind))
        self.maps_ = tuple(maps)
        best = maps[0]
        self._profile = self._profile_matrix(table, p, table.column(best.source))
        # the correction: leave-one-out of map + correction together, over the shots the best source labels
        j = table.column(best.source)
        ok = np.isfinite(logs[rows, j])
        r_rows, x, yy = rows[ok], logs[rows[ok], j], y[ok]
        fam = np.asarray(table.families)[r_rows]
        z = self._mix_features(table, r_rows)
        loo_error, loo_pred = {}, {}
        # regressions need shots to spare: below min_regression_shots only offsets are tried
        kinds = [k for k in self.corrections if k in ("none", "family") or len(x) >= self.min_regression_shots]
        for kind in kinds:
            pred = np.empty(len(x))
            for i in range(len(x)):
                m = np.arange(len(x)) != i
                slope, offset = _fit_map(x[m], yy[m], best.kind)
                base = slope * x[m] + offset
                corr = self._correction(kind, fam[m], z[m], yy[m] - base)
                pred[i] = slope * x[i] + offset + corr(fam[i:i + 1], z[i:i + 1])[0]
            loo_error[kind], loo_pred[kind] = _rel_error(pred, yy), pred
        self.loo_mape_by_correction_ = loo_error
        self.correction_kind_ = self._choose_correction(kinds, loo_pred, yy)
        # each shot's prediction by the rule fitted without it (the source choice aside), for stacking
        self.loo_log_pred_ = dict(zip(r_rows.tolist(), loo_pred[self.correction_kind_].tolist()))
        base = best.slope * x + best.offset
        self.correction_ = self._correction(self.correction_kind_, fam, z, yy - base)
        self.platform_ = platform
        self.fallback_ = float(np.median(y))
        return self

    @staticmethod
    def _choose_correction(kinds: list[str], loo_pred: dict[str, np.ndarray], y: np.ndarray) -> str:
        """The rule's correction of least leave-one-out error (it must lower the error, not tie it
        within rounding); another only where it beats that by more than a paired standard error."""
        errors = {k: np.abs(np.expm1(loo_pred[k] - y)) for k in kinds}
        mean = {k: float(np.mean(e)) for k, e in errors.items()}
        own = [k for k in kinds if k in RULE_CORRECTIONS] or kinds  # a list without the rule's: all compete
        rule = min(own, key=lambda k: (round(mean[k], 9), k != "none"))
        extra = [k for k in kinds if k not in own]
        if not extra or len(y) < 2:
            return rule
        best = min(extra, key=lambda k: (mean[k], k))
        gain = errors[rule] - errors[best]
        return best if gain.mean() > gain.std(ddof=1) / np.sqrt(len(gain)) else rule

    def predict_log(self, table, rows: np.ndarray) -> np.ndarray:
        if len(rows) == 0:
            return np.empty(0)
        logs = np.log(table.labels[rows])
        out = np.full(len(rows), np.nan)
        for m in self.maps_:
            todo = ~np.isfinite(out)
            if not todo.any():
                break
            x = logs[:, table.column(m.source)]
            use = todo & np.isfinite(x)
            out[use] = m.slope * x[use] + m.offset
        self.unmapped_ = int((~np.isfinite(out)).sum())  # no source labels the row: the shots' median
        out[~np.isfinite(out)] = self.fallback_
        fam = np.asarray(table.families)[rows]
        return out + self.correction_(fam, self._mix_features(table, rows))

    def predict(self, table, rows: np.ndarray) -> np.ndarray:
        rows = np.asarray(rows, dtype=int)
        return np.exp(self.predict_log(table, rows)) if len(rows) else np.empty(0)


# -- a model trained on every source platform -------------------------------------------------------


def version_number(v) -> float:
    """A version as a number (``2.4.1+cu124`` → 2.04); NaN where unrecorded."""
    try:
        major, minor = (str(v).split("+")[0].split(".") + ["0"])[:2]
        return float(major) + float(minor) / 100.0
    except (TypeError, ValueError):
        return np.nan


def platform_descriptor(platform, devices: tuple[str, ...]) -> np.ndarray:
    """A platform as numbers: device (one-hot over ``devices``), GPU or CPU, precision, layout,
    framework, compile mode, framework and CUDA versions. Built from the typed
    :class:`~perfgraphs.data.platforms.LabelPlatform` record, never from its name."""
    onehot = [float(platform.device == d) for d in devices]
    return np.array([*onehot, float(platform.device_kind == "gpu"), float(platform.precision == "amp"),
                     float(platform.precision == "int8"), float(platform.layout == "nhwc"),
                     float(platform.framework == "onnxruntime"), float(bool(platform.compiled)),
                     version_number(platform.torch_version), version_number(platform.cuda_version),
                     float(platform.peak_gflop_per_s or np.nan), float(platform.memory_bandwidth_gb_per_s or np.nan)])


class SourceModelTransfer(RegressorMixin, BaseEstimator):
    """Gradient boosting in log space trained on all source platforms' labels, adapted with the shots.

    Training rows are (architecture, source platform q) pairs; features are the architecture's
    log labels on the other source platforms (q's own column and the new platform's hidden, missing
    values left to the trees), its log static features and operator shares, and q's descriptor.
    The new platform is queried with its descriptor; the shots then choose, by leave-one-out,
    among: the model as is, plus a log-offset, or a log-affine map of it; and, when source labels
    of the queried rows exist (known models), a ridge blend with the ratio rule.
    ``use_labels=False`` drops the other platforms' labels from the features (a static-feature +
    descriptor model, for architectures labelled nowhere).
    """

    def __init__(self, use_labels: bool = True, max_iter: int = 80, learning_rate: float = 0.15,
                 max_leaf_nodes: int = 31, random_state: int = 0):
        self.use_labels = use_labels
        self.max_iter = max_iter
        self.learning_rate = learning_rate
        self.max_leaf_nodes = max_leaf_nodes
        self.random_state = random_state

    def descriptor_platforms(self, table, platform: str) -> tuple:
        """The platform records whose hardware descriptor fitting on ``platform`` reads: none."""
        return ()

    def _features(self, table, rows: np.ndarray, q: int, hide: int) -> np.ndarray:
        desc = np.tile(np.nan_to_num(platform_descriptor(table.platforms[q], self.devices_)), (len(rows), 1))
        static = np.log1p(table.static[rows])
        parts = [static, table.op_mix()[rows], desc]
        if self.use_labels:
            logs = np.log(table.labels[rows])
            logs[:, q] = np.nan  # a source's own label is its target; the new platform is no feature at all
            parts.insert(0, np.delete(logs, hide, axis=1))
        return np.column_stack(parts)

    def _source_model(self, table, p: int):
        from sklearn.ensemble import HistGradientBoostingRegressor

        xs, ys = [], []
        for q in range(len(table.platforms)):
            if q == p:
                continue
            rows = np.flatnonzero(np.isfinite(table.labels[:, q]))
            if len(rows):
                xs.append(self._features(table, rows, q, p))
                ys.append(np.log(table.labels[rows, q]))
        if not xs:
            raise TransferFitError("no source platform has labels to train on")
        model = HistGradientBoostingRegressor(max_iter=self.max_iter, learning_rate=self.learning_rate,
                                              max_leaf_nodes=self.max_leaf_nodes, random_state=self.random_state)
        return model.fit(np.vstack(xs), np.concatenate(ys))

    def _candidates(self, base: np.ndarray, ratio: np.ndarray | None) -> dict[str, np.ndarray]:
        cols = {"model": base[:, None], "model+offset": np.column_stack([base, np.ones_like(base)]),
                "model-affine": np.column_stack([base, np.ones_like(base)])}
        if ratio is not None:
            cols["blend-ratio"] = np.column_stack([base, ratio, np.ones_like(base)])
        return cols

    @staticmethod
    def _solve(kind: str, a: np.ndarray, y: np.ndarray) -> np.ndarray:
        if kind == "model":
            return np.array([1.0])
        if kind == "model+offset":
            return np.array([1.0, float(np.mean(y - a[:, 0]))])
        if kind == "blend-ratio":
            # weights on (model, ratio rule) summing to 1, plus an offset: one free weight
            d = a[:, 0] - a[:, 1]
            t = y - a[:, 1]
            dc, tc = d - d.mean(), t - t.mean()
            w = float(np.clip((dc @ tc) / (dc @ dc + 1e-9), 0.0, 1.0))
            return np.array([w, 1.0 - w, float(np.mean(t - w * d))])
        coef, *_ = np.linalg.lstsq(a, y, rcond=None)
        return coef

    def fit(self, table, platform: str):
        p, rows, logs = _shots(table, platform)
        self.devices_ = tuple(sorted({q.device for q in table.platforms}))
        self.model_ = self._source_model(table, p)
        self.ratio_ = None
        if self.use_labels:
            try:
                self.ratio_ = RatioTransfer().fit(table, platform)
            except TransferFitError:
                self.ratio_ = None
        y = logs[rows, p]
        base = self.model_.predict(self._features(table, rows, p, p))
        ratio = None
        if self.ratio_ is not None:  # the rule's leave-one-out predictions of the shots, so a blend is not flattered
            ratio = self.ratio_.predict_log(table, rows)
            loo = self.ratio_.loo_log_pred_
            ratio = np.array([loo.get(int(r), v) for r, v in zip(rows, ratio)])
        loo_error = {}
        for kind, a in self._candidates(base, ratio).items():
            pred = np.empty(len(y))
            for i in range(len(y)):
                m = np.arange(len(y)) != i
                pred[i] = a[i] @ self._solve(kind, a[m], y[m])
            loo_error[kind] = _rel_error(pred, y)
        self.loo_mape_by_adapter_ = loo_error
        self.adapter_ = min(loo_error, key=lambda k: (loo_error[k], k))
        self.coef_ = self._solve(self.adapter_, self._candidates(base, ratio)[self.adapter_], y)
        self.platform_ = platform
        return self

    def predict(self, table, rows: np.ndarray) -> np.ndarray:
        rows = np.asarray(rows, dtype=int)
        p = table.column(self.platform_)
        base = self.model_.predict(self._features(table, rows, p, p))
        ratio = self.ratio_.predict_log(table, rows) if self.ratio_ is not None else None
        a = self._candidates(base, ratio)[self.adapter_]
        return np.exp(a @ self.coef_)


# the stronger known-models rule: the ratio rule whose residual may also be explained by the
# architecture's profile across every source platform (a ridge on its log labels there)
PROFILE_CORRECTIONS = ("none", "family", "op-mix", "profile-ridge")
