"""Monte-Carlo range error against analytic variances on small trees (simulation noise)."""

import numpy as np
import pytest

from dpstudio.algorithms.diffgen_variance import discrete_laplace_variance, least_squares_variances
from dpstudio.core.range_queries import CategoricalAxis, Domain, NumericAxis, random_boxes
from dpstudio.core.taxonomy import Node, Taxonomy
from dpstudio.evaluation.range_error import (
    LEAF_ONLY,
    LEAST_SQUARES,
    RAW_TREE,
    SEED_RULE,
    SIMULATION_LABEL,
    count_records,
    error_by_query_size,
    format_table,
)


def _binary_tree(n_leaves=8):
    """A complete binary partition tree of [0, n_leaves) by unit intervals; preorder ids."""
    parents, cells = [], []

    def build(lo, hi, parent):
        i = len(parents)
        parents.append(parent)
        cells.append((lo, hi))
        if hi - lo > 1:
            mid = (lo + hi) // 2
            build(lo, mid, i)
            build(mid, hi, i)

    build(0, n_leaves, -1)
    parents = np.array(parents)
    leaves = np.array([i for i in range(len(parents)) if i not in set(parents.tolist())])
    return parents, np.array(cells, dtype=float), leaves


def _tree_with_data(rng, n_leaves=8, n=400):
    domain = Domain([NumericAxis(0, n_leaves, name="x")])
    parents, cells, leaves = _binary_tree(n_leaves)
    x = rng.integers(0, n_leaves, n).astype(float)
    y = rng.integers(0, 2, n)
    tree = count_records(domain, parents, (cells,), [x], y, 2)
    assert tree.leaves.tolist() == leaves.tolist()
    return domain, tree, x, y


def test_count_records_matches_a_loop():
    rng = np.random.default_rng(0)
    domain, tree, x, y = _tree_with_data(rng)
    _, cells, _ = _binary_tree()
    for i, (lo, hi) in enumerate(cells):
        for c in (0, 1):
            assert tree.counts[i, c] == np.sum((x >= lo) & (x < hi) & (y == c))
    assert tree.path_length == 4


def test_count_records_categorical_and_upper_bound():
    tax = Taxonomy(Node("*", [Node("A", [Node("a1"), Node("a2")]), Node("b")]), "c")
    domain = Domain([CategoricalAxis(tax), NumericAxis(0, 10, name="x")])
    parents = np.array([-1, 0, 0, 2, 2])
    cells = domain.cells({"c": ["*", "A", "b", "b", "b"], "x": [(0, 10), (0, 10), (0, 10), (0, 4), (4, 10)]})
    recs = [np.array([tax.index(v) for v in ["a1", "a2", "b", "b", "b"]]), np.array([1.0, 9, 3.9, 4, 10])]
    tree = count_records(domain, parents, cells, recs, np.zeros(5, int), 1)
    assert tree.counts[:, 0].tolist() == [5, 2, 3, 1, 2]  # x = 10 (the upper bound) lands in [4, 10)
    assert tree.leaves.tolist() == [1, 3, 4]
    with pytest.raises(ValueError, match="leaf ids"):
        count_records(domain, parents, cells, [np.array([1]), np.array([1.0])], np.zeros(1, int), 1)
    gap = domain.cells({"c": ["*", "A", "b", "b", "b"], "x": [(0, 10), (0, 10), (0, 10), (0, 4), (5, 10)]})
    with pytest.raises(ValueError, match="do not partition"):
        count_records(domain, parents, gap, [recs[0][2:3], np.array([4.5])], np.zeros(1, int), 1)


def test_monte_carlo_matches_analytic_variances():
    rng = np.random.default_rng(1)
    domain, tree, _, _ = _tree_with_data(rng)
    eps = 1.0
    # aligned 1-D ranges [a, b) over all classes: leaf-only var = (b - a) * v1; raw tree var = |cover| * vL
    ranges = [(0, 8), (0, 4), (2, 4), (1, 7), (3, 4), (1, 2)]
    covers = [1, 1, 1, 4, 1, 1]  # [1,7) = [1,2) + [2,4) + [4,6) + [6,7)
    wl = domain.workload([{"x": r} for r in ranges])
    res = error_by_query_size(domain, tree, eps, wl, runs=3000, seed=7, size="domain")
    v1 = discrete_laplace_variance(1 / eps)
    vL = discrete_laplace_variance(4 / eps)
    n_cls = 2  # an all-classes query sums both classes' noise
    leaf_expected = np.array([(b - a) * v1 * n_cls for a, b in ranges])
    tree_expected = np.array(covers) * vL * n_cls
    np.testing.assert_allclose(res.mse[LEAF_ONLY], leaf_expected, rtol=0.12)
    np.testing.assert_allclose(res.mse[RAW_TREE], tree_expected, rtol=0.12)
    # on a complete binary tree with equal noise seed 000's rule is least squares: identical answers
    np.testing.assert_allclose(res.mse[SEED_RULE], res.mse[LEAST_SQUARES], rtol=1e-9)
    # node errors by depth agree with the analytic BLUE variances of another module
    ls_var = least_squares_variances(tree.parents, np.full(tree.parents.size, vL))
    depth = np.array([0, 1, 2, 3, 3, 2, 3, 3, 1, 2, 3, 3, 2, 3, 3])
    for d in range(4):
        assert res.per_depth[LEAST_SQUARES][d] == pytest.approx(n_cls * ls_var[depth == d].mean(), rel=0.12)
        assert res.per_depth[RAW_TREE][d] == pytest.approx(n_cls * vL, rel=0.12)
    # BLUE beats every other unbiased linear estimate from the same noisy tree, the minimal cover included
    assert np.all(res.mse[LEAST_SQUARES] < res.mse[RAW_TREE])


def test_buckets_and_labels():
    rng = np.random.default_rng(2)
    domain, tree, _, _ = _tree_with_data(rng, n_leaves=16, n=2000)
    wl = random_boxes(domain, 200, rng, n_classes=2)
    res = error_by_query_size(domain, tree, 0.5, wl, runs=30, seed=3)
    rows = res.table()
    assert sum(r["queries"] for r in rows) == 200
    assert res.sizes.min() >= 0 and res.sizes.max() <= 1
    text = format_table(res)
    assert SIMULATION_LABEL in text and "not a release" in text
    with pytest.raises(ValueError, match="unknown method"):
        error_by_query_size(domain, tree, 1.0, wl, runs=1, methods=["magic"])
    with pytest.raises(ValueError, match="size"):
        error_by_query_size(domain, tree, 1.0, wl, runs=1, size="volume")


def test_query_blocks_do_not_change_the_result():
    rng = np.random.default_rng(4)
    domain, tree, _, _ = _tree_with_data(rng, n_leaves=16, n=500)
    wl = random_boxes(domain, 40, rng, n_classes=2)
    whole = error_by_query_size(domain, tree, 1.0, wl, runs=5, seed=9)
    blocks = error_by_query_size(domain, tree, 1.0, wl, runs=5, seed=9, max_weight_cells=31 * 7)
    for m in whole.methods:
        np.testing.assert_allclose(blocks.mse[m], whole.mse[m])
        np.testing.assert_allclose(blocks.per_depth[m], whole.per_depth[m])
    np.testing.assert_allclose(blocks.sizes, whole.sizes)


def test_optimized_levels_monte_carlo_matches_their_analytic_variances():
    """diffgen-consistent's default budgets (per level for the tree's shape, least squares): the node MSE
    by Monte-Carlo agrees with the exact least-squares variances of those budgets."""
    from dpstudio.algorithms.diffgen_levels import node_shares, optimal_level_shares
    from dpstudio.core.range_queries import node_depths
    from dpstudio.core.scales import noise_scale
    from dpstudio.evaluation.range_error import OPTIMIZED_LEVELS

    rng = np.random.default_rng(4)
    domain, tree, _, _ = _tree_with_data(rng, n_leaves=16)
    eps = 1.0
    wl = random_boxes(domain, 20, np.random.default_rng(5), n_classes=2)
    res = error_by_query_size(domain, tree, eps, wl, runs=3000, methods=[LEAF_ONLY, OPTIMIZED_LEVELS])
    shares = node_shares(tree.parents, optimal_level_shares(tree.parents))
    var = np.array([discrete_laplace_variance(noise_scale(1, eps * s)) for s in shares])
    node_var = 2 * least_squares_variances(tree.parents, var)  # two classes summed
    depth = node_depths(tree.parents)
    for d, mc in enumerate(res.per_depth[OPTIMIZED_LEVELS]):
        assert mc == pytest.approx(node_var[depth == d].mean(), rel=0.1)
