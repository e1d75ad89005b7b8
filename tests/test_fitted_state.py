"""Frozen fits: a fitted reference network kept as numbers (``fitted_state``) and read back into a
fresh, unfitted estimator (``load_fitted_state``) predicts what the fitted one predicted, bit for
bit; the ``.npz`` form never unpickles; a state of another predictor or size is refused in one
line. Ground truth: the fitted estimator's own predictions on the tiny real graph set (conftest's
``tiny_dippm_rows``), which the loaded one never saw."""

from __future__ import annotations

import io

import numpy as np
import pytest

from perfgraphs.baselines import DIPPMSage, NNLQPGNN, TraPPM
from perfgraphs.baselines import fitted_state as fs
from perfgraphs.baselines.common import NotFittedError
from perfgraphs.baselines.roofline_fit import FittedRoofline
from perfgraphs.baselines.roofline_sage import RooflineSage
from perfgraphs.data.load import to_pyg

TARGET = "total_memory_bytes"
EPOCHS = 3  # the state, not the fit, is under test: a few epochs move every weight off its init


@pytest.fixture(scope="module")
def tiny(tiny_dippm_rows):
    return tiny_dippm_rows, to_pyg(tiny_dippm_rows, "dippm", targets=[TARGET])


def _round_trip(state):
    return fs.from_bytes(fs.to_bytes(state))


@pytest.mark.parametrize("make", [lambda s: DIPPMSage(quick=True, epochs=EPOCHS, seed=s),
                                  lambda s: NNLQPGNN(quick=True, epochs=EPOCHS, seed=s),
                                  lambda s: TraPPM(quick=True, epochs=EPOCHS, gae_epochs=2, seed=s)],
                         ids=["dippm-sage", "nnlqp-gnn", "trappm"])
def test_a_graph_network_predicts_the_same_from_its_state(tiny, make):
    _, pyg = tiny
    fitted = make(1).fit(pyg)
    expected = fitted.predict(pyg)
    loaded = make(7).load_fitted_state(_round_trip(fitted.fitted_state()))  # another seed: nothing re-drawn
    assert np.array_equal(loaded.predict(pyg), expected)
    # control: an unfitted estimator of the same settings predicts nothing, another fit predicts otherwise
    with pytest.raises(NotFittedError):
        make(7).predict(pyg)
    assert not np.allclose(make(7).fit(pyg).predict(pyg), expected)


def test_roofline_sage_predicts_the_same_from_its_state(tiny):
    rows, _ = tiny
    y = np.asarray(rows[TARGET], dtype=float)
    fitted = RooflineSage(quick=True, seed=0).fit(rows, y)
    loaded = RooflineSage(quick=True, seed=3).load_fitted_state(_round_trip(fitted.fitted_state()))
    assert np.array_equal(loaded.predict(rows), fitted.predict(rows))
    assert np.array_equal(loaded.prior(rows), FittedRoofline().fit(rows, y).predict(rows))


def test_a_state_of_other_sizes_is_refused_in_one_line(tiny):
    _, pyg = tiny
    state = DIPPMSage(quick=True, epochs=1).fit(pyg).fitted_state()
    with pytest.raises(fs.FittedStateError, match="does not fit the module"):
        DIPPMSage(quick=True, hidden_dim=32).load_fitted_state(state)
    with pytest.raises(fs.FittedStateError, match="has no dims"):
        DIPPMSage(quick=True).load_fitted_state({k: v for k, v in state.items() if k != "dims"})
    # control: the writer's settings read it
    DIPPMSage(quick=True).load_fitted_state(state)


def test_the_npz_form_never_unpickles(tmp_path):
    marker = tmp_path / "ran"

    class Payload:
        def __reduce__(self):
            return (open, (str(marker), "w"))

    buffer = io.BytesIO()
    np.savez(buffer, w=np.array([Payload()], dtype=object))
    with pytest.raises(fs.FittedStateError, match="not an .npz of numeric arrays"):
        fs.from_bytes(buffer.getvalue())
    assert not marker.exists()
    with pytest.raises(fs.FittedStateError, match="not a number"):
        fs.to_bytes({"w": np.array(["text"])})
    with pytest.raises(fs.FittedStateError, match="array name"):
        fs.to_bytes({"../w": np.zeros(2)})
    # control: numbers of every kind pass, byte for byte
    state = {"a.b": np.arange(3, dtype=np.int64), "c": np.float32(2.5), "d": np.array([True, False])}
    back = fs.from_bytes(fs.to_bytes(state))
    assert all(np.array_equal(back[k], np.asarray(v)) and back[k].dtype == np.asarray(v).dtype
               for k, v in state.items())


def test_a_reference_predictor_freezes_through_its_estimator(tiny):
    from perfgraphs.leaderboard.predictors import BaselinePredictor

    rows, _ = tiny
    fitted = BaselinePredictor("nnlqp-gnn", TARGET, seed=0, quick=True).fit(rows)
    loaded = BaselinePredictor("nnlqp-gnn", TARGET, seed=0, quick=True).load_state(_round_trip(fitted.state()))
    assert np.array_equal(loaded.predict(rows), fitted.predict(rows))
    assert loaded.n_params == fitted.n_params > 0
    # a tree ensemble has no numbers-only state: refused in one line
    with pytest.raises(Exception, match="static-xgboost cannot be frozen"):
        BaselinePredictor("static-xgboost", TARGET, quick=True).state()
