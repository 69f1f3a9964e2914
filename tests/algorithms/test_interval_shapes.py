"""Tree shapes: near-equal b-ary splits, Qardaji's branching, SC."""

import numpy as np
import pytest

from dpstudio.algorithms.interval_shapes import (
    IntervalTree,
    _uniform_raw_error_factor,
    build_tree,
    ceil_log,
    flat_tree,
    qardaji_branching,
    regular_tree,
    sc_arity,
    sc_tree,
    subtree_coverage_sum,
)


def check_partition(tree):
    par = tree.parents
    assert par[0] == -1 and tree.lo[0] == 0 and tree.hi[0] == tree.n_bins
    assert np.all(par[1:] < np.arange(1, tree.n_nodes))  # breadth-first: parent first
    for v in np.flatnonzero(~tree.is_leaf):
        ch = np.flatnonzero(par == v)
        assert ch.size >= 2
        assert tree.lo[ch[0]] == tree.lo[v] and tree.hi[ch[-1]] == tree.hi[v]
        assert np.all(tree.lo[ch[1:]] == tree.hi[ch[:-1]])
    assert np.array_equal(np.sort(tree.lo[tree.is_leaf]), np.arange(tree.n_bins))


@pytest.mark.parametrize("n,b", [(2, 2), (5, 2), (100, 3), (1000, 16), (17, 16), (4096, 16), (97, 7)])
def test_regular_tree_is_near_equal_and_as_short_as_possible(n, b):
    tree = regular_tree(n, b)
    check_partition(tree)
    assert tree.height == ceil_log(n, b)
    for v in np.flatnonzero(~tree.is_leaf):
        sizes = tree.hi[tree.parents == v] - tree.lo[tree.parents == v]
        assert sizes.max() - sizes.min() <= 1
        assert np.all(np.diff(sizes) <= 0)  # larger children first
    for d in range(tree.height + 1):
        m = tree.hi[tree.depth == d] - tree.lo[tree.depth == d]
        big = m[m > 1] if d else m
        if big.size:
            assert set(np.unique(big)) <= {-(-n // b**d), n // b**d} | {1}


def test_flat_tree():
    tree = flat_tree(9)
    check_partition(tree)
    assert tree.height == 1 and tree.n_nodes == 10


def test_qardaji_branching():
    assert qardaji_branching(256) == 16
    assert qardaji_branching(4096) == 16
    for n in (10, 300, 5000):
        b = qardaji_branching(n)
        val = lambda b: (b - 1) * ceil_log(n, b) ** 3 - 2 * (b + 1) * ceil_log(n, b) ** 2 / 3
        assert all(val(b) <= val(c) for c in range(2, n + 1))


def test_from_intervals_rejects_bad_trees():
    with pytest.raises(ValueError, match="partition"):
        IntervalTree.from_intervals(3, [-1, 0, 0], [0, 0, 2], [3, 1, 3])
    with pytest.raises(ValueError, match="2 children"):
        IntervalTree.from_intervals(2, [-1, 0, 1, 1], [0, 0, 0, 1], [2, 2, 1, 2])


def brute_subtree_sum(n, lo, hi, w, plo, phi):
    """Coverage sum of the w-ary near-equal subtree of [lo, hi), built as a tree of its own and shifted."""
    sub = build_tree(hi - lo, lambda a, b: np.full(a.size, w))
    L = sub.lo + lo + 1
    R = sub.hi + lo
    cnt = L * (n - R + 1)
    pc = np.where(sub.parents >= 0, cnt[np.maximum(sub.parents, 0)], (plo + 1) * (n - phi + 1))
    return (cnt - pc).sum() / (n * (n + 1) / 2)


@pytest.mark.parametrize("n,lo,hi,w", [(50, 10, 37, 3), (50, 1, 50, 4), (200, 60, 200, 5), (31, 5, 9, 2)])
def test_subtree_coverage_sum_formula(n, lo, hi, w):
    assert subtree_coverage_sum(n, lo, hi, w, 0, n) == pytest.approx(brute_subtree_sum(n, lo, hi, w, 0, n))


@pytest.mark.parametrize("n", [37, 100, 300, 1000])
@pytest.mark.parametrize("root", [True, False])
def test_sc_keeps_height_and_never_raises_expected_error(n, root):
    k = sc_arity(n, root)
    base = regular_tree(n, k)
    tree = sc_tree(n, noise_root=root)
    check_partition(tree)
    assert tree.height == base.height
    assert _uniform_raw_error_factor(tree, root) <= _uniform_raw_error_factor(base, root) + 1e-12
    # k is the arity in 2..20 with the smallest expected raw error of the k-ary tree
    vals = {c: _uniform_raw_error_factor(regular_tree(n, c), root) for c in range(2, 21)}
    assert vals[k] == pytest.approx(min(vals.values()))
    # the leftmost path keeps arity k; every other split is >= k or straight to leaves
    kids = tree.n_children
    for v in np.flatnonzero(~tree.is_leaf):
        m = tree.hi[v] - tree.lo[v]
        if tree.lo[v] == 0:
            assert kids[v] == min(k, m)
        else:
            assert kids[v] >= min(k, m)


def test_sc_greedy_choice_matches_brute_force():
    n, k = 60, 2
    tree = sc_tree(n, k=k)
    for v in np.flatnonzero(~tree.is_leaf & (tree.lo > 0)):
        lo, hi = int(tree.lo[v]), int(tree.hi[v])
        if hi - lo <= k:
            continue
        p = tree.parents[v]
        options = {
            w: brute_subtree_sum(n, lo, hi, w, int(tree.lo[p]), int(tree.hi[p])) for w in range(k, min(20, hi - lo) + 1)
        }
        best = min(options.values())
        assert options[int(tree.n_children[v])] == pytest.approx(best)
