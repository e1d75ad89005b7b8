"""Predict's intervals and verdicts: the conformal percentiles against a known distribution, the
stated coverage on families no model saw (nested: the intervals are fitted without the scored
families, as a user's new architecture is), and the verdict's refusals, each forced on purpose."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

import perfgraphs
from perfgraphs.predict import intervals as iv
from perfgraphs.predict.artifacts import load_artifact
from perfgraphs.predict.platforms import find_platform, served_targets
from perfgraphs.predict.result import HardwareProbe
from perfgraphs.predict.verdict import ANSWERED, FLAGGED, REFUSED, ROOFLINE_SLACK, judge


def test_conformal_offsets_are_the_residual_distribution_percentiles():
    # three bands of log residuals drawn from normals of known spread and shift: the stored offsets
    # are their 10/90 and 5/95 percentiles (up to sampling), and fresh draws fall inside at the stated rate
    rng = np.random.default_rng(0)
    n = 6000
    pred = np.exp(rng.uniform(0, 9, n))
    band = iv.band_of(np.log(pred), iv.band_edges(np.log(pred)))
    sigma, shift = np.array([0.1, 0.3, 0.6])[band], np.array([0.0, 0.2, -0.1])[band]
    y = pred * np.exp(shift + sigma * rng.standard_normal(n))
    fitted = iv.fit_intervals(y, pred, groups=np.arange(n) % 50)
    z = {0.8: 1.2816, 0.9: 1.6449}
    for b, (s, m) in enumerate(zip((0.1, 0.3, 0.6), (0.0, 0.2, -0.1))):
        for level in iv.LEVELS:
            lo, hi = fitted["bands"][b]["offsets"][f"{level:g}"]
            assert lo == pytest.approx(m - z[level] * s, abs=0.12 * s)
            assert hi == pytest.approx(m + z[level] * s, abs=0.12 * s)
    fresh = np.exp(rng.uniform(0, 9, n))
    band = iv.band_of(np.log(fresh), fitted["edges_log"])
    y_new = fresh * np.exp(np.array([0.0, 0.2, -0.1])[band] + np.array([0.1, 0.3, 0.6])[band] * rng.standard_normal(n))
    for level in iv.LEVELS:
        got = [iv.interval_of(fitted, p, level) for p in fresh]
        assert iv.coverage(y_new, [i.low for i in got], [i.high for i in got]) == pytest.approx(level, abs=0.02)


def test_a_band_with_too_few_rows_states_no_interval():
    # 5 residuals cannot bound a 90 % interval (the conformal quantile needs about 1 / 0.05 of them)
    fitted = iv.fit_intervals(np.arange(1, 16.0), np.arange(1, 16.0) * 1.1, groups=np.arange(15), n_bands=3)
    assert all(b["offsets"]["0.9"] == [None, None] for b in fitted["bands"])
    assert iv.interval_of(fitted, 5.0, 0.9) is None and iv.interval_of(None, 5.0, 0.8) is None


def _rows(dataset, config, column):
    import datasets

    from perfgraphs.data.load import load_dataset
    from perfgraphs.evaluation.parts import labeled_parts
    from perfgraphs.predict.features import rows_features

    parts = labeled_parts(load_dataset(dataset, config), column)
    rows = datasets.concatenate_datasets(list(parts.values()))
    return rows_features(rows, "graphs"), np.asarray(rows[column], dtype=np.float64), np.asarray(rows["family"])


@pytest.mark.parametrize("dataset,config,column,hyper", [
    ("perfgraphs/dippm", "cpu-torch-fp32", "latency_ms", "dippm--cpu-torch-fp32--latency_ms"),
    ("perfgraphs/dippm", "cpu-torch-fp32", "peak_memory_mb", "dippm--cpu-torch-fp32--peak_memory_mb"),
])
def test_the_stated_coverage_holds_on_families_no_model_saw(dataset, config, column, hyper):
    # nested: each family fold is scored by a predictor fitted without it, with intervals fitted
    # (grouped out-of-fold, as predict train does) on the other families only
    from sklearn.model_selection import GroupKFold

    from perfgraphs.baselines import StaticXGBoost
    from perfgraphs.predict.artifacts import read_meta

    X, y, families = _rows(dataset, config, column)
    grid = {k: (v,) for k, v in read_meta(hyper)["hyperparameters"].items()}

    def fit_predict(X_tr, y_tr, X_te):
        return StaticXGBoost(grid=grid).fit(X_tr, y_tr).predict(X_te)

    covered = {lv: np.zeros(len(y), dtype=bool) for lv in iv.LEVELS}
    for cal, test in GroupKFold(n_splits=5).split(X, y, families):
        oof = iv.grouped_out_of_fold(X[cal], y[cal], families[cal], fit_predict)
        fitted = iv.fit_intervals(y[cal], oof, families[cal])
        pred = fit_predict(X[cal], y[cal], X[test])
        for lv in iv.LEVELS:
            got = [iv.interval_of(fitted, p, lv) for p in pred]
            covered[lv][test] = [i is not None and i.low <= t <= i.high for i, t in zip(got, y[test])]
    for lv in iv.LEVELS:
        # families, not rows, are the unit: each family's share covered, averaged over families
        per_family = np.mean([covered[lv][families == f].mean() for f in np.unique(families)])
        assert abs(covered[lv].mean() - lv) <= 0.08 and abs(per_family - lv) <= 0.1, (lv, covered[lv].mean(),
                                                                                       per_family)


@pytest.fixture(scope="module")
def latency_artifact():
    plat = find_platform("cpu-torch-fp32")
    pt = next(t for t in served_targets(plat, False) if t.target == "latency_ms")
    return pt, load_artifact(pt)


def _graph(module, batch=1, shape=(3, 32, 32)):
    from perfgraphs.predict.sources import graph_of, template_of

    return graph_of(template_of(module, image_shape=shape), batch, None)


def test_a_fitted_row_is_answered_and_a_batch_beyond_the_fitted_ones_is_refused(latency_artifact):
    pt, art = latency_artifact
    i = int(np.flatnonzero(art.in_training)[0])
    x = art.features[i].copy()
    value = float(art.labels[i])
    assert judge(art, x, None, value).verdict == ANSWERED
    batch = art.meta["feature_names"].index("batch_size")
    x[batch] = art.features[:, batch].max() * 4
    d = judge(art, x, None, value)
    assert d.verdict == REFUSED and not d.in_distribution and "batch_size" in d.reason


def test_a_prediction_under_the_roofline_is_refused(latency_artifact):
    import torch

    pt, art = latency_artifact
    g = _graph(torch.nn.Sequential(torch.nn.Conv2d(3, 16, 3), torch.nn.ReLU()))
    from perfgraphs.predict.features import graph_features

    x = graph_features(g)[0]
    flops = g.static_features()["total_flops"]
    # a machine of 1 GFLOP/s at most: the graph needs flops / 1e9 s; a prediction of a tenth of it is impossible
    slow = HardwareProbe("a slow machine", 1.0, 1e6, "", "")
    bound_ms = 1e3 * flops / 1e9
    from perfgraphs.predict.verdict import roofline_ms

    assert roofline_ms(g, slow) == pytest.approx(bound_ms)
    d = judge(art, x, g, 0.1 * bound_ms, roofline=bound_ms)
    assert d.verdict == REFUSED and "roofline" in d.reason
    assert "roofline" not in judge(art, x, g, ROOFLINE_SLACK * bound_ms * 1.01, roofline=bound_ms).reason


def test_unseen_operators_refuse_by_their_share_of_the_work(latency_artifact):
    import torch

    pt, art = latency_artifact
    assert "Sin" not in art.meta["seen_operators"] and "ConvTranspose" not in art.meta["seen_operators"]

    class TinySin(torch.nn.Module):  # a convolution network with a negligible sine (a position encoding)
        def __init__(self):
            super().__init__()
            self.conv = torch.nn.Sequential(torch.nn.Conv2d(3, 64, 3, padding=1), torch.nn.Conv2d(64, 64, 3, padding=1))

        def forward(self, x):
            return self.conv(x) + torch.sin(x[:, :1, :1, :1])

    class BigTranspose(torch.nn.Module):  # the same with most of its work in a transposed convolution
        def __init__(self):
            super().__init__()
            self.up = torch.nn.ConvTranspose2d(3, 64, 3, padding=1)
            self.conv = torch.nn.Conv2d(64, 8, 1)

        def forward(self, x):
            return self.conv(self.up(x))

    from perfgraphs.predict.features import graph_features

    for module, verdict in ((TinySin(), FLAGGED), (BigTranspose(), REFUSED)):
        g = _graph(module)
        d = judge(art, graph_features(g)[0], g, 10.0)
        unseen = set(d.unseen_operators)
        assert unseen and unseen <= {"Sin", "ConvTranspose", "Slice", "Unsqueeze", "Shape", "Gather"}, unseen
        if verdict == FLAGGED:
            # the verdict may still refuse for distance or range (a 2-layer toy lies far from timm
            # models); the unseen operators themselves only add a caveat
            assert "predicted as if they cost nothing" in d.reason and d.unseen_share_pct < 5
        else:
            assert d.verdict == REFUSED and d.unseen_share_pct >= 5 and "ConvTranspose" in d.reason


def test_the_recommended_answer_moves_when_the_narrowest_is_refused():
    from perfgraphs.predict.api import _recommend

    r = perfgraphs.predict("timm:resnet50", batch=8, platform="cpu-torch-fp32")
    best = next(t for t in r.targets if t.recommended and t.question == r["latency_ms"].question)
    refused = replace(best, value=None, intervals=(), distribution=replace(best.distribution, in_distribution=False,
                                                                          verdict=REFUSED, reason="forced"))
    again = _recommend([refused if t is best else replace(t, recommended=True, why="") for t in r.targets])
    forward = [t for t in again if t.question == best.question]
    chosen = [t for t in forward if t.recommended]
    assert len(chosen) == 1 and chosen[0].target != best.target and best.target in chosen[0].why
    # every forward-time target refused: none is recommended, and each says so
    none = _recommend([replace(t, value=None, intervals=()) if t.question == best.question else t for t in r.targets])
    assert not any(t.recommended for t in none if t.question == best.question)
    assert all("no target answers" in t.why for t in none if t.question == best.question)
