"""Consistency: least squares against a dense GLS solve, Hay's closed form, seed 000's rule by hand."""

from fractions import Fraction

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from dpstudio.core import consistency
from dpstudio.core.consistency import TreeLevels, hay_generalized, least_squares, least_squares_variances


@pytest.fixture(params=["levels vectorised", "node by node", "mixed"], autouse=True)
def level_strategy(request, monkeypatch):
    """Run every test with each way of doing a level (narrow levels go node by node by default)."""
    limit = {"levels vectorised": -1, "node by node": 10**9, "mixed": 2}[request.param]
    monkeypatch.setattr(consistency, "SCALAR_LEVEL_MAX", limit)


# ---------------------------------------------------------------- independent reference computations


def incidence(parents):
    """Node x leaf matrix: A[v, j] = 1 iff leaf j lies under node v (plain Python walk up the tree)."""
    n = len(parents)
    has_child = [False] * n
    for p in parents:
        if p >= 0:
            has_child[p] = True
    leaves = [v for v in range(n) if not has_child[v]]
    A = np.zeros((n, len(leaves)))
    for j, leaf in enumerate(leaves):
        v = leaf
        while v >= 0:
            A[v, j] = 1.0
            v = parents[v]
    return A


def dense_gls(parents, noisy, variances):
    """Generalized least squares over the leaf values; returns None if they are not identifiable."""
    A = incidence(parents)
    y = np.asarray(noisy, dtype=float).reshape(len(parents), -1)
    w = 1.0 / np.asarray(variances, dtype=float)
    rows = w > 0
    if np.linalg.matrix_rank(A[rows]) < A.shape[1]:
        return None
    sw = np.sqrt(w[rows])[:, None]
    x, *_ = np.linalg.lstsq(sw * A[rows], sw * y[rows], rcond=None)
    return (A @ x).reshape(np.shape(noisy))


def assert_consistent(parents, est):
    est = np.asarray(est, dtype=float).reshape(len(parents), -1)
    sums = np.zeros_like(est)
    kids = np.zeros(len(parents), dtype=bool)
    for v, p in enumerate(parents):
        if p >= 0:
            sums[p] += est[v]
            kids[p] = True
    np.testing.assert_allclose(est[kids], sums[kids], rtol=1e-9, atol=1e-8)


def random_tree(rng_draw, n):
    """Random ragged tree on n nodes, relabelled in a random order; returns the parents list."""
    attach = [-1] + [rng_draw(st.integers(0, i - 1)) for i in range(1, n)]
    perm = rng_draw(st.permutations(range(n)))  # new label of old node i is perm[i]
    parents = [0] * n
    for old in range(n):
        parents[perm[old]] = -1 if attach[old] < 0 else perm[attach[old]]
    return parents


def hay_closed_form(k, height, y):
    """Hay et al. (VLDB 2010) on a complete k-ary tree, nodes in BFS order (children of i: k i + 1 ..).

    ``height`` counts the levels (a lone leaf has height 1); y is (nodes,) or (nodes, classes).
    """
    y = np.asarray(y, dtype=float)
    n = (k**height - 1) // (k - 1)
    first_leaf = (k ** (height - 1) - 1) // (k - 1)
    children = {i: list(range(k * i + 1, k * i + k + 1)) for i in range(first_leaf)}
    level = {}

    def set_level(v):
        level[v] = 1 if v >= first_leaf else 1 + set_level(children[v][0])
        for c in children.get(v, []):
            set_level(c)
        return level[v]

    set_level(0)
    z = [None] * n
    for v in range(n - 1, -1, -1):
        if v >= first_leaf:
            z[v] = y[v]
        else:
            lv = level[v]
            a = (k**lv - k ** (lv - 1)) / (k**lv - 1)
            b = (k ** (lv - 1) - 1) / (k**lv - 1)
            z[v] = a * y[v] + b * sum(z[c] for c in children[v])
    hbar = [None] * n
    hbar[0] = z[0]
    for v in range(first_leaf):
        fam = sum(z[c] for c in children[v])
        for c in children[v]:
            hbar[c] = z[c] + (hbar[v] - fam) / k
    return np.array(hbar), n


# ---------------------------------------------------------------- least squares == dense GLS


@st.composite
def noisy_trees(draw, classes):
    n = draw(st.integers(1, 28))
    parents = random_tree(draw, n)
    var = st.floats(0.05, 20.0, allow_nan=False)
    variances = np.array([draw(var) for _ in range(n)])
    root = parents.index(-1)
    if n > 1 and draw(st.booleans()):
        variances[root] = np.inf  # root not noised (H_b without root, DiffGen's public total)
    for v in draw(st.lists(st.integers(0, n - 1), max_size=3)):
        variances[v] = np.inf
    shape = (n,) if classes == 0 else (n, classes)
    noisy = np.array(
        draw(st.lists(st.floats(-50, 50), min_size=n * max(classes, 1), max_size=n * max(classes, 1)))
    ).reshape(shape)
    return parents, noisy, variances


@pytest.mark.parametrize("classes", [0, 1, 3])
@settings(
    max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture]
)
@given(data=st.data())
def test_least_squares_equals_dense_gls_on_random_ragged_trees(classes, data):
    parents, noisy, variances = data.draw(noisy_trees(classes))
    expected = dense_gls(parents, noisy, variances)
    if expected is None:
        with pytest.raises(ValueError, match="do not determine"):
            least_squares(parents, noisy, variances)
        return
    noisy_with_nan = noisy.copy()
    noisy_with_nan[np.isinf(variances)] = np.nan  # entries of nodes not noised are ignored
    got = least_squares(parents, noisy_with_nan, variances)
    assert got.shape == noisy.shape
    scale = 1.0 + np.abs(noisy).max()
    np.testing.assert_allclose(got, expected, rtol=1e-8, atol=1e-8 * scale)
    assert_consistent(parents, got)


@settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture]
)
@given(data=st.data())
def test_least_squares_variances_equal_the_dense_covariance(data):
    parents, _, variances = data.draw(noisy_trees(0))
    A = incidence(parents)
    w = 1.0 / variances
    rows = w > 0
    if np.linalg.matrix_rank(A[rows]) < A.shape[1]:
        with pytest.raises(ValueError, match="do not determine"):
            least_squares_variances(parents, variances)
        return
    cov = A @ np.linalg.inv(A[rows].T @ (w[rows][:, None] * A[rows])) @ A.T
    np.testing.assert_allclose(least_squares_variances(parents, variances), np.diag(cov), rtol=1e-8)


def test_least_squares_variances_on_a_path_and_a_star():
    # a path: every node is the one total, estimated with precision sum(1/s2)
    s2 = np.array([1.0, 2.0, 4.0])
    np.testing.assert_allclose(least_squares_variances([-1, 0, 1], s2), np.full(3, 1 / np.sum(1 / s2)))
    # a star with the root not noised: nothing to combine, the leaves keep their variances
    np.testing.assert_allclose(least_squares_variances([-1, 0, 0], [np.inf, 2.0, 3.0]), [5.0, 2.0, 3.0])


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_hay_generalized_is_consistent_on_random_trees(data):
    n = data.draw(st.integers(1, 30))
    parents = random_tree(data.draw, n)
    noisy = np.array(data.draw(st.lists(st.floats(-50, 50), min_size=n, max_size=n)))
    assert_consistent(parents, hay_generalized(parents, noisy))


def test_unnoised_root_with_public_children():
    # Root not noised, both leaves noised: nothing to reconcile, the leaves stay and the root is their sum.
    got = least_squares([-1, 0, 0], [np.nan, 3.0, 4.0], [np.inf, 2.0, 2.0])
    np.testing.assert_allclose(got, [7.0, 3.0, 4.0])


def test_unidentifiable_trees_are_refused():
    with pytest.raises(ValueError, match="do not determine"):
        least_squares([-1, 0, 0], [1.0, 2.0, 3.0], [1.0, np.inf, np.inf])
    with pytest.raises(ValueError, match="do not determine"):
        least_squares([-1, 0], [1.0, 2.0], [np.inf, np.inf])


def test_path_estimates_the_precision_weighted_mean_everywhere():
    # Every node of a path counts the same records, so the BLUE is one weighted mean for all of them.
    rng = np.random.default_rng(5)
    n = 2000
    parents = np.arange(-1, n - 1)
    y = rng.normal(100.0, 5.0, n)
    s2 = rng.uniform(0.5, 4.0, n)
    expected = np.sum(y / s2) / np.sum(1.0 / s2)
    np.testing.assert_allclose(least_squares(parents, y, s2), np.full(n, expected), rtol=1e-12)
    # Seed 000's rule on a path: leafnum = 1, totalnum = size of the subtree (checked step by step).
    z = y[::-1].copy()  # z[i] is the node at depth n-1-i
    for i in range(1, n):
        z[i] = (y[n - 1 - i] + i * z[i - 1]) / (i + 1)
    np.testing.assert_allclose(hay_generalized(parents, y), np.full(n, z[-1]), rtol=1e-12)


# ---------------------------------------------------------------- complete k-ary trees: Hay's closed form


@pytest.mark.parametrize("k,height", [(2, 1), (2, 2), (2, 5), (3, 4), (4, 3), (5, 3), (16, 2)])
@pytest.mark.parametrize("classes", [0, 2])
def test_both_rules_match_hays_closed_form_on_complete_trees(k, height, classes):
    rng = np.random.default_rng(k * 100 + height)
    n = (k**height - 1) // (k - 1)
    y = rng.normal(50.0, 10.0, size=(n,) if classes == 0 else (n, classes))
    expected, n_check = hay_closed_form(k, height, y)
    assert n_check == n
    parents = np.array([-1] + [(i - 1) // k for i in range(1, n)])
    # Shuffle the node ids: the functions must not depend on BFS order.
    perm = rng.permutation(n)
    inv = np.argsort(perm)
    shuffled_parents = np.where(parents[inv] >= 0, perm[np.maximum(parents[inv], 0)], -1)
    shuffled_y = y[inv]
    ls = least_squares(shuffled_parents, shuffled_y, 3.0)
    hay = hay_generalized(shuffled_parents, shuffled_y)
    for got in (ls, hay):
        np.testing.assert_allclose(got[perm], expected, rtol=1e-10, atol=1e-9)


# ---------------------------------------------------------------- seed 000's rule, by hand


def test_seed_rule_worked_example_on_a_ragged_tree():
    #       0
    #     /   \
    #    1     2
    #         / \
    #        3   4
    parents = [-1, 0, 0, 2, 2]
    y = [Fraction(v) for v in (10, 3, 8, 2, 5)]
    # bottom-up: leafnum(2) = 2, totalnum(2) = 3; leafnum(0) = 3, totalnum(0) = 5
    r2 = (2 * y[2] + (3 - 2) * (y[3] + y[4])) / 3
    r0 = (3 * y[0] + (5 - 3) * (y[1] + r2)) / 5
    # top-down: the gap between parent and the sum of its children split evenly among them
    h1 = y[1] + (r0 - (y[1] + r2)) / 2
    h2 = r2 + (r0 - (y[1] + r2)) / 2
    h3 = y[3] + (h2 - (y[3] + y[4])) / 2
    h4 = y[4] + (h2 - (y[3] + y[4])) / 2
    expected = np.array([float(v) for v in (r0, h1, h2, h3, h4)])
    got = hay_generalized(parents, np.array([float(v) for v in y]))
    np.testing.assert_allclose(got, expected, rtol=1e-14)
    # On this ragged tree the rule is not the least-squares estimate.
    ls = least_squares(parents, np.array([float(v) for v in y]), 1.0)
    assert np.max(np.abs(ls - got)) > 0.04  # 0.05 at node 1


def test_seed_rule_differs_from_least_squares_on_random_ragged_trees():
    rng = np.random.default_rng(11)
    differences = []
    for _ in range(20):
        n = 40
        parents = np.concatenate([[-1], rng.integers(0, np.arange(1, n))])
        y = rng.normal(0.0, 10.0, n)
        differences.append(np.max(np.abs(hay_generalized(parents, y) - least_squares(parents, y, 1.0))))
    assert min(differences) > 1e-3


# ---------------------------------------------------------------- TreeLevels and input checks


def test_tree_levels_depths_and_subtree_sizes():
    rng = np.random.default_rng(2)
    n = 300
    parents = np.concatenate([[-1], rng.integers(0, np.arange(1, n))])
    perm = rng.permutation(n)
    inv = np.argsort(perm)
    parents = np.where(parents[inv] >= 0, perm[np.maximum(parents[inv], 0)], -1)
    lv = TreeLevels(parents)
    A = incidence(list(parents))
    depth = np.zeros(n, dtype=int)
    size = np.ones(n, dtype=int)
    for v in range(n):
        u = parents[v]
        while u >= 0:
            depth[v] += 1
            size[u] += 1
            u = parents[u]
    np.testing.assert_array_equal(lv.depth, depth)
    np.testing.assert_array_equal(lv.subtree_size, size)
    np.testing.assert_array_equal(lv.leaf_count, A.sum(axis=1))
    for d, level in enumerate(lv.levels):
        assert set(level.tolist()) == set(np.flatnonzero(depth == d).tolist())
    for v in range(n):
        assert sorted(lv.children(v).tolist()) == np.flatnonzero(parents == v).tolist()
    assert lv.height == depth.max()


@pytest.mark.parametrize(
    "parents,match",
    [
        ([0, 0], "exactly one root"),
        ([-1, -1], "exactly one root"),
        ([-1, 5], "out of range"),
        ([-1, 2, 1], "cycle"),
        ([], "exactly one root"),
    ],
)
def test_bad_trees_are_refused(parents, match):
    with pytest.raises(ValueError, match=match):
        TreeLevels(parents)


@pytest.mark.parametrize("variances", [0.0, -1.0, np.nan, [1.0, 0.0, 1.0]])
def test_bad_variances_are_refused(variances):
    with pytest.raises(ValueError, match="variances must be positive"):
        least_squares([-1, 0, 0], [1.0, 2.0, 3.0], variances)


def test_shape_mismatch_is_refused():
    with pytest.raises(ValueError, match="shape"):
        least_squares([-1, 0, 0], [1.0, 2.0], 1.0)
