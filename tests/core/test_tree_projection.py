"""Non-negative, integral, consistent counts from least-squares estimates (core.tree_projection)."""

import numpy as np
import pytest

from dpstudio.core.consistency import TreeLevels, least_squares
from dpstudio.core.tree_projection import project_tree


def random_tree(rng, n):
    return np.array([-1] + [int(rng.integers(0, i)) for i in range(1, n)])


def child_sums(parents, x):
    out = np.zeros_like(x)
    np.add.at(out, parents[1:], x[1:])
    return out


@pytest.mark.parametrize("seed", range(20))
def test_projection_is_nonnegative_integral_consistent_and_keeps_the_root(seed):
    rng = np.random.default_rng(seed)
    parents = random_tree(rng, int(rng.integers(2, 80)))
    internal = ~TreeLevels(parents).is_leaf
    est = least_squares(parents, rng.normal(1, 4, size=(parents.size, 3)), 1.0)
    weights = rng.uniform(0.2, 5, size=parents.size)
    for integral in (True, False):
        out = project_tree(parents, est, weights, integral=integral)
        assert out.shape == est.shape and (out >= 0).all()
        assert np.allclose(child_sums(parents, out)[internal], out[internal])
        root = np.maximum(est[0], 0)
        assert np.allclose(out[0], np.round(root) if integral else root)
        if integral:
            assert np.array_equal(out, np.round(out))


def test_a_nonnegative_integral_consistent_input_is_kept():
    rng = np.random.default_rng(3)
    parents = random_tree(rng, 40)
    leaves = TreeLevels(parents).is_leaf
    x = np.where(leaves, rng.integers(0, 9, size=40), 0).astype(float)
    for nodes in reversed(TreeLevels(parents).levels[1:]):  # fill parents with their children's sums
        x += np.bincount(parents[nodes], weights=x[nodes], minlength=40) * ~leaves
    assert np.array_equal(project_tree(parents, x), x)


def test_projection_is_the_weighted_simplex_projection():
    # one family: value 10 over estimates (8, 6, -3), weights (1, 1, 1): tau = 2 -> (6, 4, 0)
    out = project_tree([-1, 0, 0, 0], [10.0, 8.0, 6.0, -3.0], integral=False)
    assert np.allclose(out, [10, 6, 4, 0])
    # weights (1, 3, 1): x = e - tau w on the active set {0, 1}: 14 - 4 tau = 10 -> tau = 1 -> (7, 3, 0)
    out = project_tree([-1, 0, 0, 0], [10.0, 8.0, 6.0, -3.0], [1, 1, 3, 1], integral=False)
    assert np.allclose(out, [10, 7, 3, 0])
    # largest remainder: 10 over (3.4, 3.3, 3.3) -> floors 3,3,3 and the one unit to the largest fraction
    assert np.array_equal(project_tree([-1, 0, 0, 0], [10.0, 3.4, 3.3, 3.3]), [10, 4, 3, 3])


def test_monte_carlo_total_is_unbiased_where_clamping_inflates_it():
    """A sparse 4-ary tree of depth 3 (64 leaves, most empty), Laplace noise on every node, least squares:
    the projected total's mean is within 4 standard errors of the true total; clamping the leaves (the
    old default) inflates it far beyond."""
    rng = np.random.default_rng(11)
    parents = np.array([-1] + [(i - 1) // 4 for i in range(1, 85)])
    lv = TreeLevels(parents)
    true = np.zeros(85)
    leaves = np.flatnonzero(lv.is_leaf)
    true[leaves[:6]] = [40, 25, 10, 8, 3, 1]
    for nodes in reversed(lv.levels[1:]):
        true += np.bincount(parents[nodes], weights=true[nodes], minlength=85) * ~lv.is_leaf
    runs, scale = 600, 4.0
    proj_tot, clamp_tot = np.empty(runs), np.empty(runs)
    for r in range(runs):
        est = least_squares(parents, true + rng.laplace(0, scale, 85), 2 * scale**2)
        out = project_tree(parents, est)
        proj_tot[r] = out[leaves].sum()
        clamp_tot[r] = np.maximum(np.round(est[leaves]), 0).sum()
    se = proj_tot.std() / np.sqrt(runs)
    assert abs(proj_tot.mean() - true[0]) < 4 * se + 0.5
    assert clamp_tot.mean() - true[0] > 20 * se + 10


def _simplex_brute(e, total, grid=None):
    """The Euclidean projection of e onto {x >= 0, sum x = total} by bisection on tau (independent of the
    sorting algorithm in the code)."""
    lo, hi = e.min() - total - 1, e.max() + 1
    for _ in range(200):
        tau = (lo + hi) / 2
        if np.maximum(e - tau, 0).sum() > total:
            lo = tau
        else:
            hi = tau
    return np.maximum(e - (lo + hi) / 2, 0)


@pytest.mark.parametrize("seed", range(5))
def test_split_rows_is_the_simplex_projection_per_row_and_rounding_keeps_the_rows(seed):
    from dpstudio.core.tree_projection import split_rows

    rng = np.random.default_rng(seed)
    est = rng.normal(3, 6, size=(40, 3))
    tot = rng.integers(0, 25, size=40).astype(float)
    real = split_rows(tot, est, integral=False)
    for r in range(40):
        assert np.allclose(real[r], _simplex_brute(est[r], tot[r]), atol=1e-7)
    ints = split_rows(tot, est, integral=True)
    assert (ints >= 0).all() and np.array_equal(ints, np.round(ints))
    assert np.array_equal(ints.sum(axis=1), tot)
    assert np.all(np.abs(ints - real) < 1 + 1e-9)
    with pytest.raises(ValueError, match="non-negative"):
        split_rows(-tot - 1, est)
