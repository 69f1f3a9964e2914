"""p-Identity histograms (algorithms/pidentity.py): exact error, exact least squares, privacy per bin,
Monte-Carlo agreement, and the release path."""

import math
from fractions import Fraction

import numpy as np
import pytest

from dpstudio.algorithms.interval_trees import (HistogramInputError, IntervalTreeParams, plan_interval_tree,
                                                release_histogram)
from dpstudio.algorithms.pidentity import _objective, gram_mul, monte_carlo_all_range_mse, plan_pidentity
from dpstudio.core.budget import Ledger
from dpstudio.core.noise import SimulationNoise


def dense_gram(n):
    """K[i, j] = how many ranges [l, r] contain both bins, counted range by range."""
    K = np.zeros((n, n))
    for l in range(n):
        for r in range(l, n):
            K[l:r + 1, l:r + 1] += 1
    return K


def dense_strategy(plan):
    n = plan.tree.n_bins
    Q = np.vstack([np.eye(n), plan.weights])
    v = np.concatenate([plan.bin_variances, np.full(plan.n_rows, plan.row_variance)])
    return Q, v


def test_gram_product_counts_ranges():
    V = np.random.default_rng(0).normal(size=(23, 3))
    assert gram_mul(V) == pytest.approx(dense_gram(23) @ V)


def test_objective_gradient_matches_finite_differences():
    theta = np.random.default_rng(1).random((3, 20)).ravel()
    f, g = _objective(theta, 3, 20)
    for k in (0, 17, 44):
        t = theta.copy()
        t[k] += 1e-6
        assert (_objective(t, 3, 20)[0] - f) / 1e-6 == pytest.approx(g[k], rel=1e-4)


@pytest.mark.parametrize("n", [40, 97])
def test_expected_error_and_least_squares_are_exact_for_the_integer_strategy(n):
    plan = plan_pidentity(n, Fraction(1, 2))
    Q, v = dense_strategy(plan)
    cov = np.linalg.inv(Q.T @ (Q / v[:, None]))
    assert plan.expected_consistent_mse == pytest.approx(np.trace(dense_gram(n) @ cov) / (n * (n + 1) / 2),
                                                         rel=1e-9)
    y = np.random.default_rng(2).normal(50, 9, size=(n + plan.n_rows, 2))
    assert plan.least_squares(y[:n], y[n:]) == pytest.approx(cov @ (Q.T @ (y / v[:, None])), abs=1e-8)


@pytest.mark.parametrize("eps", [Fraction(1), Fraction(1, 10), Fraction(7, 3)])
def test_every_bin_is_charged_at_most_epsilon_exactly(eps):
    plan = plan_pidentity(50, eps)
    assert (plan.weights >= 0).all() and plan.weights.dtype.kind == "i" and plan.n_rows == 3
    for j in range(50):
        total = Fraction(float(plan.bin_epsilons[j])) + sum(
            Fraction(int(m)) / Fraction(plan.row_scale) for m in plan.weights[:, j])
        assert total <= eps
    assert plan.bin_path_sums().min() > 0.99 * float(eps)  # and hardly any budget is left unused
    for j in range(50):  # each scale is at least 1 / (its budget)
        assert Fraction(plan.bin_scales[j]) * Fraction(float(plan.bin_epsilons[j])) >= 1


def test_monte_carlo_error_agrees_with_the_analytic_error_within_3_percent():
    plan = plan_pidentity(64, Fraction(1))
    mean, se = monte_carlo_all_range_mse(plan, runs=6000, seed=5)
    assert se < 0.01 * mean  # the check has the power to fail
    assert mean == pytest.approx(plan.expected_consistent_mse, rel=0.03)


def test_beats_the_best_tree_at_1024_bins_and_reaches_the_target():
    pid = plan_interval_tree(1024, IntervalTreeParams("pidentity", 1))
    hopt = plan_interval_tree(1024, IntervalTreeParams("hopt", 1))
    assert math.sqrt(pid.expected_consistent_mse) <= 11.7
    assert pid.expected_consistent_mse < 0.95 * hopt.expected_consistent_mse


def test_release_spends_epsilon_once_and_post_processes_like_the_trees():
    counts = np.random.default_rng(3).poisson(30, 120)
    ledger = Ledger(Fraction(1, 2))
    params = IntervalTreeParams("pidentity", "0.5", round_counts=True, clamp_negative=True)
    res = release_histogram(counts, params, SimulationNoise(4), ledger)
    assert ledger.spent == Fraction(1, 2) and len(ledger.to_dict()["entries"]) == 1
    plan = res.plan
    n = counts.size
    expect = plan.least_squares(res.noisy[:n], res.noisy[n:])
    assert res.released == pytest.approx(np.round(np.maximum(expect, 0)))
    assert res.estimates[0] == pytest.approx(expect.sum()) and res.consistent_leaves == pytest.approx(expect)
    assert res.post_processing["order"][1:] == ["clamped negative counts to 0", "rounded to whole numbers"]
    assert abs(res.released.sum() - counts.sum()) < 300  # noise of a few units per bin, not the counts


@pytest.mark.parametrize("kw, msg", [({"branching": 4}, "no branching"), ({"noise_root": False}, "no-root"),
                                     ({"epsilon": "1e12"}, "too large")])
def test_refuses_tree_options_and_vanishing_noise(kw, msg):
    with pytest.raises(HistogramInputError, match=msg):
        plan_interval_tree(40, IntervalTreeParams(**{"algorithm": "pidentity", "epsilon": 1, **kw}))
