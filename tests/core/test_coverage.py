"""Coverage probabilities: seed 003's worked examples and brute force over all ranges."""

from fractions import Fraction

import numpy as np
import pytest

from dpstudio.algorithms.interval_shapes import IntervalTree, regular_tree, sc_tree, subtree_coverage_sum
from dpstudio.core.coverage import coverage_counts, coverage_probabilities, effective_coverage, n_ranges
from dpstudio.core.range_error import canonical_cover


def seed_tree_n5():
    """Seed 003 figure 3.2: [1,5] -> [1,2], [3,5]; [1,2] -> [1,1], [2,2]; [3,5] -> [3,3], [4,5] -> [4,4], [5,5].
    Nodes given as 1-based inclusive intervals, stored 0-based half-open."""
    iv = [(1, 5), (1, 2), (3, 5), (1, 1), (2, 2), (3, 3), (4, 5), (4, 4), (5, 5)]
    parents = [-1, 0, 0, 1, 1, 2, 2, 6, 6]
    lo = [a - 1 for a, _ in iv]
    hi = [b for _, b in iv]
    return IntervalTree.from_intervals(5, parents, lo, hi), iv


def prob_of(tree, p, L, R):
    i = np.flatnonzero((tree.lo == L - 1) & (tree.hi == R))[0]
    return p[i]


def test_seed_example_3_1_n5_binary_tree():
    tree, _ = seed_tree_n5()
    p = tree.coverage()
    assert prob_of(tree, p, 1, 5) == pytest.approx(0.066667, abs=1e-6)  # node 0
    assert prob_of(tree, p, 3, 3) == pytest.approx(0.4)  # node 5, the most covered
    # Example 3.4: H(3, 5, 2) = 0.13333 + 0.4 + 0.066667 + 0.266667 + 0.066667 ~ 0.933
    sub = [(3, 5), (3, 3), (4, 5), (4, 4), (5, 5)]
    assert [round(prob_of(tree, p, a, b), 5) for a, b in sub] == [0.13333, 0.4, 0.06667, 0.26667, 0.06667]
    assert sum(prob_of(tree, p, a, b) for a, b in sub) == pytest.approx(14 / 15)
    # Our near-equal split puts the larger child first ([3,4], [5,5]): the same sum over that shape
    ours = IntervalTree.from_intervals(
        5, [-1, 0, 0, 1, 1, 2, 2, 5, 5], [0, 0, 2, 0, 1, 2, 4, 2, 3], [5, 2, 5, 1, 2, 4, 5, 3, 4]
    )
    q = ours.coverage()
    direct = sum(prob_of(ours, q, a, b) for a, b in [(3, 5), (3, 4), (5, 5), (3, 3), (4, 4)])
    assert subtree_coverage_sum(5, 2, 5, 2, parent_lo=0, parent_hi=5) == pytest.approx(direct)
    # ... and split 3 ways (figure 3.7): 0.13333 + 0.4 + 0.33333 + 0.13333 = 1.0
    assert subtree_coverage_sum(5, 2, 5, 3, parent_lo=0, parent_hi=5) == pytest.approx(1.0)


def test_seed_example_3_3_n6_ternary_node_8_over_21():
    tree = regular_tree(6, 3)
    counts = coverage_counts(tree.parents, tree.lo, tree.hi, 6)
    i = np.flatnonzero((tree.lo == 2) & (tree.hi == 4))[0]  # [3,4]
    assert n_ranges(6) == 21
    assert Fraction(int(counts[i]), 21) == Fraction(8, 21)
    # property 3.1's inclusion-exclusion form: P_L + P_R - P_C with parent [1,6]
    L, R, Ly, Ry, n = 3, 4, 1, 6, 6
    assert (L - Ly) * (n - R + 1) + L * (Ry - R) - (L - Ly) * (Ry - R) == 8


def test_seed_example_3_2_n3_trees():
    flat3 = IntervalTree.from_intervals(3, [-1, 0, 0, 0], [0, 0, 1, 2], [3, 1, 2, 3])
    p = flat3.coverage()
    assert np.allclose(sorted(p), sorted([1 / 6, 1 / 3, 1 / 2, 1 / 3]))
    assert 2 * 2**2 * p.sum() == pytest.approx(10.667, abs=1e-3)  # E1 ~ 10.664 with rounded p
    binary3 = IntervalTree.from_intervals(3, [-1, 0, 0, 1, 1], [0, 0, 2, 0, 1], [3, 2, 3, 1, 2])
    p = binary3.coverage()
    assert p.sum() == pytest.approx(7 / 6)
    assert 2 * 3**2 * p.sum() == pytest.approx(21.0)  # E2 ~ 21.006 with rounded p


def brute_force_coverage(tree, noised):
    n = tree.n_bins
    hits = np.zeros(tree.n_nodes)
    for l in range(n):
        for r in range(l + 1, n + 1):
            hits[canonical_cover(tree.parents, tree.lo, tree.hi, noised, l, r)] += 1
    return hits / n_ranges(n)


@pytest.mark.parametrize("n,b", [(7, 2), (10, 3), (13, 4), (9, 9)])
def test_closed_form_equals_enumeration(n, b):
    tree = regular_tree(n, b)
    noised = np.ones(tree.n_nodes, dtype=bool)
    assert np.allclose(tree.coverage(), brute_force_coverage(tree, noised))


def test_effective_coverage_without_root_equals_enumeration():
    tree = sc_tree(23, k=2)
    noised = np.ones(tree.n_nodes, dtype=bool)
    noised[0] = False
    eff = effective_coverage(tree.parents, tree.coverage(), noised)
    assert np.allclose(eff, brute_force_coverage(tree, noised))
    assert eff[0] == 0


def test_coverage_is_linear_in_nodes_for_a_million_bins():
    tree = regular_tree(1_000_000, 16)
    p = coverage_probabilities(tree.parents, tree.lo, tree.hi, tree.n_bins)
    assert p.min() > 0
    # every range has a non-empty cover; the expected cover size is at most 2 (b - 1) per level
    assert 1 <= p.sum() <= 2 * 15 * (tree.height + 1)
