"""The fitted roofline and its boosted correction (issue 34 item 4) on real exported graphs.

Ground truth: labels made here, node by node from each graph's :class:`PerfGraph` (not the Arrow
columns the baselines read), by a machine with known constants; the fit must give those labels and,
where a regime carries a real share of the time, those constants back. Controls: the same graphs
with their labels shuffled, which no roofline fits, and a label physics cannot express, which the
boosted correction learns and the roofline alone does not.
"""

from __future__ import annotations

import numpy as np
import pytest

from perfgraphs.baselines.catalog import BASELINES, ROOFLINE_BOOST, ROOFLINE_FIT, ROOFLINE_SAGE
from perfgraphs.baselines.common import BaselineInputError, NotFittedError
from perfgraphs.baselines.roofline_fit import CONSTANTS, FittedRoofline, RooflineBoost
from perfgraphs.baselines.roofline_sage import RooflineSage
from perfgraphs.evaluation.evaluator import mape_pct
from perfgraphs.views.hf import from_hf_row

# a machine, per millisecond, on which every regime governs part of the tiny graphs' time: 50 GFLOP/s
# on matrix products, 1 GFLOP/s elsewhere (slow enough that some elementwise kernels are
# compute-bound), 8 GB/s, 0.2 ms a kernel
TRUTH = {"matrix_flops_per_unit": 50e6, "vector_flops_per_unit": 1e6, "bytes_per_unit": 8e6, "launch_units": 0.2}
MATRIX_OPS = {"Conv", "ConvTranspose", "Gemm", "MatMul", "Einsum"}
VIEW_OPS = {"Shape", "Constant", "ConstantOfShape", "Reshape", "Flatten", "Squeeze", "Unsqueeze", "Identity", "Range",
            "Size", "Cast", "Dropout"}


def machine_time(graph, truth=TRUTH) -> tuple[float, dict[str, float]]:
    """The time of a graph on the machine ``truth``, and how much of it each constant governs."""
    shares = dict.fromkeys(CONSTANTS, 0.0)
    for op, flops, params, memory in zip(graph.onnx_ops, graph.flops, graph.params, graph.memory_bytes):
        if op in VIEW_OPS:
            continue
        rate = "matrix_flops_per_unit" if op in MATRIX_OPS else "vector_flops_per_unit"
        compute = float(flops) / truth[rate]
        moved = max(float(memory), 4.0 * float(params)) / truth["bytes_per_unit"]
        shares[rate if compute >= moved else "bytes_per_unit"] += max(compute, moved)
        shares["launch_units"] += truth["launch_units"]
    return sum(shares.values()), shares


@pytest.fixture(scope="module")
def graphs(tiny_dippm_rows):
    rows = tiny_dippm_rows
    timed = [machine_time(from_hf_row(rows[i])) for i in range(len(rows))]
    y = np.array([t for t, _ in timed])
    shares = {c: float(np.mean([s[c] / t for t, s in timed])) for c in CONSTANTS}  # a graph's, on average
    return rows, y, shares


def test_the_fit_gives_back_the_machine(graphs):
    rows, y, shares = graphs
    model = FittedRoofline().fit(rows, y)
    assert mape_pct(y, model.predict(rows)) < 0.5
    fitted = model.hardware_[0]
    governing = [c for c in CONSTANTS if shares[c] > 0.05]
    assert len(governing) == 4, shares  # the test graphs exercise the whole machine
    for c in governing:
        assert fitted[c] == pytest.approx(TRUTH[c], rel=0.05), (c, fitted[c], TRUTH[c], shares)
    # with 10 % multiplicative noise on the labels the fit stays close to the machine, not the noise
    noisy = y * np.exp(np.random.default_rng(0).normal(0.0, 0.1, len(y)))
    assert mape_pct(y, FittedRoofline().fit(rows, noisy).predict(rows)) < 4.0


def test_control_shuffled_labels_are_not_a_machine(graphs):
    rows, y, _ = graphs
    shuffled = np.random.default_rng(1).permutation(y)
    assert mape_pct(shuffled, FittedRoofline().fit(rows, shuffled).predict(rows)) > 50.0


def test_boost_learns_what_physics_misses(graphs):
    rows, y, _ = graphs
    # a runtime that gets 40 % faster per doubling of the batch beyond the roofline's own batching:
    # nothing the four constants can express
    batch = np.asarray(rows["batch_size"], dtype=np.float64)
    label = y * batch ** -0.5
    val = np.arange(len(y)) % 4 == 0
    roofline_mape = mape_pct(label, FittedRoofline().fit(rows, label).predict(rows))
    boost = RooflineBoost(quick=True, seed=0).fit(rows.select(np.flatnonzero(~val)), label[~val])
    boosted = boost.predict(rows)
    assert mape_pct(label, boosted) < 0.5 * roofline_mape, (mape_pct(label, boosted), roofline_mape)
    again = RooflineBoost(quick=True, seed=0).fit(rows.select(np.flatnonzero(~val)), label[~val]).predict(rows)
    assert np.array_equal(boosted, again)
    # the validation path selects the grid point with the lowest validation MAPE
    searched = RooflineBoost(grid={"n_estimators": (20, 150), "max_depth": (3,), "learning_rate": (0.1,)}).fit(
        rows.select(np.flatnonzero(~val)), label[~val], rows.select(np.flatnonzero(val)), label[val])
    assert len(searched.grid_scores_) == 2
    assert searched.best_params_[0] == min(searched.grid_scores_, key=lambda ps: ps[1])[0]


def test_bad_input_is_one_typed_error(graphs):
    rows, y, _ = graphs
    with pytest.raises(BaselineInputError, match="positive"):
        FittedRoofline().fit(rows, np.where(np.arange(len(y)) == 3, -1.0, y))
    with pytest.raises(BaselineInputError, match="targets for"):
        FittedRoofline().fit(rows, y[:-1])
    with pytest.raises(BaselineInputError, match="Hugging Face part"):
        FittedRoofline().fit(np.zeros((3, 4)), y[:3])
    with pytest.raises(NotFittedError):
        FittedRoofline().predict(rows)
    with pytest.raises(NotFittedError):
        RooflineBoost().predict(rows)


def test_the_network_on_the_residual_stays_with_physics_on_an_unseen_family(graphs):
    """Labels that are pure physics (the machine's time), one family held out: the network on
    log(label / roofline) keeps the physics' answer; control: the same network on the labels
    themselves (dippm-sage) is far off on the family it never saw."""
    from perfgraphs.baselines.dippm_sage import DIPPMSage
    from perfgraphs.data.load import to_pyg
    from perfgraphs.registry import DIPPM

    rows, y, _ = graphs
    family = np.asarray(rows["family"])
    for held in sorted(set(family)):
        train, test = rows.select(np.flatnonzero(family != held)), rows.select(np.flatnonzero(family == held))
        residual = RooflineSage(quick=True, seed=0).fit(train, y[family != held])
        assert mape_pct(y[family == held], residual.predict(test)) < 2.0, held
        plain = DIPPMSage(quick=True, seed=0).fit(to_pyg(train, DIPPM), y[family != held])
        assert mape_pct(y[family == held], plain.predict(to_pyg(test, DIPPM))) > 20.0, held


def test_the_network_learns_what_physics_misses(graphs):
    rows, y, _ = graphs
    label = y * np.asarray(rows["batch_size"], dtype=np.float64) ** -0.5  # as in the boost's test
    val = np.arange(len(y)) % 4 == 0
    train, test = rows.select(np.flatnonzero(~val)), rows.select(np.flatnonzero(val))
    model = RooflineSage(quick=True, seed=0).fit(train, label[~val])
    predicted, prior = model.predict(test), model.prior(test)
    assert mape_pct(label[val], predicted) < 0.5 * mape_pct(label[val], prior)
    # the prediction is the roofline times the network's correction, and a seed reproduces it
    assert np.allclose(predicted / prior, model.network_.predict(model._pyg(test)), rtol=1e-12)
    assert np.array_equal(predicted, RooflineSage(quick=True, seed=0).fit(train, label[~val]).predict(test))
    with pytest.raises(BaselineInputError, match="one target"):
        RooflineSage(quick=True).fit(train, np.column_stack([label[~val], label[~val]]))
    with pytest.raises(NotFittedError):
        RooflineSage().predict(test)


def test_catalog_builds_them_as_entries_not_references():
    assert isinstance(BASELINES[ROOFLINE_FIT.name].make(), FittedRoofline)
    assert isinstance(BASELINES[ROOFLINE_BOOST.name].make(quick=True, seed=3), RooflineBoost)
    assert isinstance(BASELINES[ROOFLINE_SAGE.name].make(quick=True, seed=3), RooflineSage)
    assert not ROOFLINE_FIT.reference_on and not ROOFLINE_BOOST.reference_on and not ROOFLINE_SAGE.reference_on
