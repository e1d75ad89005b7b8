"""The paired-bootstrap rank groups (perfgraphs.evaluation.ranking) on synthetic predictors whose
true differences are known by construction, each case with a control that flips the verdict."""

import numpy as np
import pytest

from perfgraphs.evaluation.ranking import Contender, LabelRepetitions, RankingInputError, holm, paired_ranking


def _errors(n: int, rng, sigma: float = 0.2) -> np.ndarray:
    """A shared per-configuration log error: what every predictor of one board gets wrong together
    (the configurations that are hard are hard for all)."""
    return rng.normal(0.0, sigma, n)


def _predictor(name: str, shared: np.ndarray, scale: float, jitter: float, rng, seeds: int = 5) -> Contender:
    """prediction / label = exp(scale × shared error + own jitter), per seed."""
    return Contender(name, np.exp(scale * shared[None, :] + rng.normal(0.0, jitter, (seeds, shared.size))))


def _ranks(ranking) -> dict[str, int]:
    return {e.name: e.rank for e in ranking.entries}


def test_ten_percent_closer_on_300_configurations_separates():
    rng = np.random.default_rng(1)
    shared = _errors(300, rng)
    better = _predictor("better", shared, 0.9, 0.03, rng)
    worse = _predictor("worse", shared, 1.0, 0.03, rng)
    r = paired_ranking([worse, better])
    assert _ranks(r) == {"better": 1, "worse": 2}
    assert r.entries[1].better_than == () and r.entries[0].better_than == ("worse",)
    lo, hi = r.entries[1].diff_ci95
    assert 0 < lo < r.entries[1].diff_to_best < hi


def test_control_the_same_predictor_twice_does_not_separate():
    rng = np.random.default_rng(1)
    shared = _errors(300, rng)
    a, b = _predictor("a", shared, 1.0, 0.03, rng), _predictor("b", shared, 1.0, 0.03, rng)
    r = paired_ranking([a, b])
    assert _ranks(r) == {"a": 1, "b": 1}
    lo, hi = r.entries[1].diff_ci95
    assert lo <= 0 <= hi or r.entries[1].diff_to_best == 0


def test_one_percent_closer_on_30_configurations_does_not_separate():
    rng = np.random.default_rng(2)
    shared = _errors(30, rng)
    better, worse = _predictor("better", shared, 0.99, 0.05, rng), _predictor("worse", shared, 1.0, 0.05, rng)
    r = paired_ranking([worse, better], min_configs=0)
    assert set(_ranks(r).values()) == {1}


def test_control_one_percent_closer_everywhere_and_always_separates_even_on_30():
    # no jitter: the better predictor is closer on every configuration and seed, which 30 configurations show
    rng = np.random.default_rng(2)
    shared = _errors(30, rng)
    better, worse = _predictor("better", shared, 0.99, 0.0, rng), _predictor("worse", shared, 1.0, 0.0, rng)
    r = paired_ranking([worse, better], min_configs=0)
    assert _ranks(r) == {"better": 1, "worse": 2}


def test_a_board_below_the_minimum_test_size_is_not_ranked():
    rng = np.random.default_rng(3)
    shared = _errors(60, rng)
    better, worse = _predictor("better", shared, 0.5, 0.0, rng), _predictor("worse", shared, 1.0, 0.0, rng)
    r = paired_ranking([worse, better], min_configs=100)
    assert not r.ranked and "60 test configurations" in r.reason and set(_ranks(r).values()) == {1}
    assert paired_ranking([worse, better], min_configs=50).ranked  # control: the same data above the minimum


def test_a_wide_interval_never_ranks_first():
    # the attack: a ridge whose predictions were multiplied by 20 on two of five seeds
    rng = np.random.default_rng(4)
    shared = _errors(311, rng)
    best = _predictor("best", shared, 0.9, 0.03, rng)
    honest = _predictor("ridge", shared, 1.0, 0.03, rng)
    scaled = honest.ratios.copy()
    scaled[[1, 3]] *= 20
    r = paired_ranking([best, Contender("ridge x20", scaled)])
    assert _ranks(r) == {"best": 1, "ridge x20": 2}
    assert r.entries[0].name == "best"
    # control: without the scaling it is the honest ridge, still behind; with the best removed it is alone at 1
    assert _ranks(paired_ranking([best, honest]))["ridge"] == 2
    assert _ranks(paired_ranking([Contender("ridge x20", scaled)]))["ridge x20"] == 1


def test_ranks_are_monotone_in_the_point_estimate():
    # a noisy entry with a higher mean can never sit above one with a lower mean
    rng = np.random.default_rng(5)
    shared = _errors(200, rng)
    entries = [_predictor("a", shared, 0.8, 0.02, rng), _predictor("b", shared, 0.9, 0.02, rng),
               Contender("noisy", np.exp(shared[None, :] * 0.85 + rng.normal(0, 0.6, (5, 200))))]
    r = paired_ranking(entries)
    by_mape = sorted(r.entries, key=lambda e: e.mape_pct)
    assert [e.rank for e in by_mape] == sorted(e.rank for e in by_mape)


def test_label_noise_widens_the_interval_and_can_undo_a_separation():
    # two predictors wrong in opposite directions: a label drawn higher helps one and hurts the other
    rng = np.random.default_rng(6)
    n = 150
    shared = _errors(n, rng)
    better = _predictor("better", shared, 0.9, 0.01, rng)
    worse = _predictor("worse", -shared, 1.0, 0.01, rng)
    plain = paired_ranking([worse, better])
    labels = np.full(n, 100.0)
    quiet = LabelRepetitions(labels, tuple(np.full(4, 100.0) for _ in range(n)))  # they agree exactly: no label noise
    # each row's repetitions have the label, 100, as their mean (the ratios against it stay as they are)
    noisy = LabelRepetitions(labels, tuple(100.0 * np.append(1.0, d) / np.mean(np.append(1.0, d))
                                           for d in np.exp(rng.normal(0, 0.2, (n, 3)))))
    with_quiet = paired_ranking([worse, better], repetitions=quiet)
    with_noise = paired_ranking([worse, better], repetitions=noisy)
    width = {k: (lambda e: e.diff_ci95[1] - e.diff_ci95[0])(next(e for e in r.entries if e.name == "worse"))
             for k, r in (("plain", plain), ("quiet", with_quiet), ("noisy", with_noise))}
    assert with_noise.label_noise and with_quiet.label_noise
    assert width["noisy"] > 2 * width["plain"]
    assert abs(width["quiet"] / width["plain"] - 1) < 0.1  # control: identical repetitions change nothing
    assert _ranks(plain) == {"better": 1, "worse": 2} and _ranks(with_quiet) == {"better": 1, "worse": 2}
    assert set(_ranks(with_noise).values()) == {1}
    for e in with_noise.entries:  # centred: re-drawn labels widen the interval around the score, never shift it
        assert e.mape_ci95[0] < e.mape_pct < e.mape_ci95[1]


def test_many_equal_predictors_share_one_group():
    # 10 entries, 45 comparisons: without a multiple-comparison correction some pair would look different
    rng = np.random.default_rng(7)
    shared = _errors(300, rng)
    r = paired_ranking([_predictor(f"p{i}", shared, 1.0, 0.05, rng) for i in range(10)])
    assert set(_ranks(r).values()) == {1}


def test_holm_rejects_step_down():
    p = {(0, 1): 0.001, (0, 2): 0.02, (1, 2): 0.04}
    assert holm(p) == {(0, 1), (0, 2), (1, 2)}  # 0.001 ≤ .05/3, 0.02 ≤ .05/2, 0.04 ≤ .05/1
    assert holm({(0, 1): 0.001, (0, 2): 0.03, (1, 2): 0.04}) == {(0, 1)}  # 0.03 > .05/2 stops the descent
    assert holm({(0, 1): 0.03, (0, 2): 0.001}) == {(0, 2), (0, 1)}
    assert holm({(0, 1): 0.03, (0, 2): 0.02, (1, 2): 0.02}) == set()  # 0.02 > .05/3


def test_unpairable_inputs_are_refused():
    with pytest.raises(RankingInputError):
        paired_ranking([Contender("a", np.ones((1, 5))), Contender("b", np.ones((1, 6)))])
    with pytest.raises(RankingInputError):
        Contender("nan", np.array([[1.0, np.nan]]))


def test_entries_far_below_do_not_move_a_rank():
    # review finding: with one Holm family over every pair, ten near-duplicate entries added below the
    # board made the runner-up's rank 2 into a shared rank 1; each rank is now its own family
    rng = np.random.default_rng(8)
    shared = _errors(300, rng)
    best, second = _predictor("best", shared, 0.85, 0.03, rng), _predictor("second", shared, 0.9, 0.03, rng)
    alone = _ranks(paired_ranking([best, second]))
    junk = [_predictor(f"junk{i}", shared, 1.5, 0.05, rng) for i in range(10)]
    crowded = _ranks(paired_ranking([best, second, *junk]))
    assert alone["second"] == 2 and crowded["second"] == 2
    assert all(crowded[f"junk{i}"] > 2 for i in range(10))


def test_missing_or_non_positive_label_repetitions_are_not_measurements():
    # review finding: a NaN round made every bootstrap value NaN and every pair "significant"
    rng = np.random.default_rng(9)
    shared = _errors(150, rng)
    a, b = _predictor("a", shared, 1.0, 0.03, rng), _predictor("b", shared, 1.0, 0.03, rng)
    labels = np.full(150, 100.0)
    clean = LabelRepetitions(labels, tuple(np.array([100.0, 101.0, 99.0]) for _ in range(150)))
    dirty = LabelRepetitions(labels, tuple(np.array([100.0, 101.0, 99.0, np.nan, 0.0, -3.0]) for _ in range(150)))
    assert _ranks(paired_ranking([a, b], repetitions=dirty)) == _ranks(paired_ranking([a, b], repetitions=clean)) \
        == {"a": 1, "b": 1}


def test_ragged_or_empty_seed_lists_are_refused_in_one_line():
    with pytest.raises(RankingInputError):
        Contender("ragged", [[1.0, 1.1], [1.0]])
    with pytest.raises(RankingInputError):
        Contender("no seeds", np.empty((0, 5)))


def test_a_label_measured_again_is_scored_against_its_mean():
    # the build serves one measurement, 10 % above the mean of the configuration's five: a predictor of
    # the mean is exact against the mean, and 9.1 % off against the one measurement
    n = 150
    served = np.full(n, 110.0)
    reps = LabelRepetitions(served, tuple(np.array([110.0, 95.0, 100.0, 97.0, 98.0]) for _ in range(n)))
    of_mean = Contender("of-mean", np.full((3, n), 100.0 / 110.0))  # prediction / served label
    of_served = Contender("of-served", np.ones((3, n)))
    against_means = {e.name: e for e in paired_ranking([of_mean, of_served], reps).entries}
    assert against_means["of-mean"].mape_pct == pytest.approx(0.0, abs=1e-9)
    assert against_means["of-served"].mape_pct == pytest.approx(10.0)
    assert _ranks(paired_ranking([of_mean, of_served], reps)) == {"of-mean": 1, "of-served": 2}
    # control: without the repetitions the served label is the truth, and the order flips
    alone = {e.name: e for e in paired_ranking([of_mean, of_served]).entries}
    assert alone["of-served"].mape_pct == 0.0 and alone["of-mean"].mape_pct == pytest.approx(100 / 11)
    # a configuration with one measurement keeps its served label
    single = LabelRepetitions(served, tuple(np.array([110.0]) for _ in range(n)))
    assert not paired_ranking([of_mean, of_served], single).label_noise


def test_repetitions_and_labels_must_cover_the_same_configurations():
    with pytest.raises(RankingInputError):
        LabelRepetitions(np.ones(3), (np.ones(2), np.ones(2)))
    with pytest.raises(RankingInputError):
        paired_ranking([Contender("a", np.ones((1, 5)))], LabelRepetitions(np.ones(4), tuple(np.ones((4, 2)))))


def test_a_label_measured_twice_carries_its_standard_error():
    # two measurements 90 and 110: their mean's standard error is s / sqrt(2) = 14.14 / 1.41 = 10 %;
    # a plain bootstrap of the two gives 7.1 %, and the drawn labels here must give the 10 %
    from perfgraphs.evaluation.ranking import _label_factors

    reps = LabelRepetitions(np.full(200, 100.0), tuple(np.array([90.0, 110.0]) for _ in range(200)))
    factors = _label_factors(reps, np.random.default_rng(0), 2000, 200)
    assert np.std(factors) == pytest.approx(0.10, rel=0.03)
    # control: five measurements, standard error s / sqrt(5)
    five = np.array([90.0, 95.0, 100.0, 105.0, 110.0])
    factors = _label_factors(LabelRepetitions(np.full(200, 100.0), tuple(five for _ in range(200))),
                             np.random.default_rng(1), 2000, 200)
    assert np.std(factors) == pytest.approx(np.std(five, ddof=1) / np.sqrt(5) / 100, rel=0.03)
