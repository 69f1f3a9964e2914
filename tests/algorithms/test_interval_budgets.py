"""LUEDPTree budgets: seed 003's figure 3.1, a numerical constrained minimisation, path sums."""

import numpy as np
import pytest
from scipy.optimize import minimize

from dpstudio.algorithms.interval_budgets import (
    luedp_budgets,
    luedp_coefficients,
    path_sums,
    round_down_to_grid,
    uniform_budgets,
)
from dpstudio.algorithms.interval_shapes import IntervalTree, regular_tree, sc_tree
from dpstudio.core.coverage import effective_coverage
from tests.core.test_range_error import random_tree


def expected_error(p, eps):
    return float(np.sum(2 * p / eps**2))


def test_seed_figure_3_1_three_bins():
    tree = IntervalTree.from_intervals(3, [-1, 0, 0, 0], [0, 0, 1, 2], [3, 1, 2, 3])
    p = tree.coverage()
    uni = uniform_budgets(tree, 1.0, np.ones(4, dtype=bool))
    assert np.allclose(uni, 0.5)
    assert expected_error(p, uni) == pytest.approx(10.67, abs=0.005)
    eps = luedp_budgets(tree, 1.0)
    assert eps[0] == pytest.approx(0.34, abs=0.005)  # seed: 0.33
    assert np.allclose(eps[1:], 1 - eps[0]) and eps[1] == pytest.approx(0.66, abs=0.005)  # seed: 0.67
    assert expected_error(p, eps) == pytest.approx(8.24, abs=0.005)  # seed: 8.25 with rounded budgets


def path_matrix(tree, noised):
    """Rows: leaves; columns: noised nodes; 1 where the node lies on the leaf's path."""
    cols = np.flatnonzero(noised)
    M = np.zeros((tree.n_bins, cols.size))
    for j, v in enumerate(cols):
        M[tree.lo[v] : tree.hi[v], j] = 1
    return M, cols


@pytest.mark.parametrize("seed", range(5))
def test_luedp_equals_numerical_minimisation(seed):
    rng = np.random.default_rng(seed)
    tree = random_tree(rng, int(rng.integers(3, 10)))
    noised = np.ones(tree.n_nodes, dtype=bool)
    if seed % 2:
        noised[0] = False
    eps_total = float(rng.uniform(0.2, 2.0))
    p = effective_coverage(tree.parents, tree.coverage(), noised)
    M, cols = path_matrix(tree, noised)
    pc = p[cols]
    x0 = np.full(cols.size, eps_total / M.sum(axis=1).max())
    res = minimize(
        lambda e: np.sum(pc / e**2),
        x0,
        jac=lambda e: -2 * pc / e**3,
        method="SLSQP",
        constraints=[{"type": "eq", "fun": lambda e: M @ e - eps_total, "jac": lambda e: M}],
        bounds=[(1e-6, None)] * cols.size,
        options={"ftol": 1e-14, "maxiter": 1000},
    )
    assert res.success
    ours = luedp_budgets(tree, eps_total, noised)
    assert np.allclose(ours[~noised], 0)
    assert np.sum(pc / ours[cols] ** 2) == pytest.approx(res.fun, rel=1e-7)
    assert np.allclose(ours[cols], res.x, rtol=1e-3, atol=1e-5)
    assert np.allclose(path_sums(tree, ours), eps_total)
    _, _, C = luedp_coefficients(tree, p, noised)
    assert C[0] / eps_total**2 == pytest.approx(np.sum(pc / ours[cols] ** 2))


@pytest.mark.parametrize("tree", [regular_tree(1000, 2), regular_tree(4096, 16), sc_tree(500)])
def test_luedp_paths_sum_to_epsilon_and_rounding_stays_below(tree):
    eps = luedp_budgets(tree, 0.7)
    assert np.allclose(path_sums(tree, eps), 0.7, rtol=1e-12)
    q = round_down_to_grid(eps, 256)
    assert np.all(q <= eps) and np.all(q >= eps / 2 ** (1 / 256) * (1 - 1e-12))
    assert path_sums(tree, q).max() <= 0.7
    assert np.unique(q).size <= np.unique(eps).size


def test_luedp_beats_uniform_on_raw_error():
    tree = regular_tree(256, 4)
    p = tree.coverage()
    noised = np.ones(tree.n_nodes, dtype=bool)
    assert expected_error(p, luedp_budgets(tree, 1.0)) < expected_error(p, uniform_budgets(tree, 1.0, noised))
