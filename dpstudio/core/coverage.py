"""Coverage probabilities of interval-tree nodes under uniformly random range queries (seed 003, 3.3-3.4).

A histogram has ``n`` ordered bins; a range query is [l, r] with 1 <= l <= r <= n, and there are
n(n+1)/2 of them, all equally likely. A range is answered from the raw (noisy, not yet consistent) tree by
its canonical cover: the nodes inside the range whose parent is not inside it. The coverage probability
p_x of node x is the probability that x is in the cover of a random range (seed 003, formula 3.5):

    p_root = 1 / (n(n+1)/2)
    p_x    = [L(x)(n - R(x) + 1) - L(f)(n - R(f) + 1)] / (n(n+1)/2),   f = parent of x

(L, R are 1-based inclusive bin indices; L(x)(n - R(x) + 1) counts the ranges that contain x.)
It equals seed 003's inclusion-exclusion form P_L + P_R - P_C (property 3.1). O(nodes), numpy only.

The probabilities are public: they depend on the tree's shape, never on the counts.
Trees are given as arrays: ``parents`` (-1 for the root), ``lo`` (0-based first bin) and ``hi`` (0-based
end, exclusive), so node x holds bins lo[x] .. hi[x]-1, i.e. L(x) = lo[x] + 1 and R(x) = hi[x].
"""

from __future__ import annotations

import numpy as np

from .consistency import TreeLevels


def n_ranges(n_bins: int) -> int:
    """Number of ranges [l, r] over ``n_bins`` bins: n(n+1)/2."""
    return n_bins * (n_bins + 1) // 2


def ranges_containing(lo, hi, n_bins: int) -> np.ndarray:
    """How many ranges contain each node's interval: L(x) (n - R(x) + 1), exact integers."""
    lo = np.asarray(lo, dtype=np.int64)
    hi = np.asarray(hi, dtype=np.int64)
    return (lo + 1) * (n_bins - hi + 1)


def coverage_counts(parents, lo, hi, n_bins: int) -> np.ndarray:
    """Numerators of the coverage probabilities: how many ranges have node x in their canonical cover."""
    parents = np.asarray(parents, dtype=np.int64)
    cnt = ranges_containing(lo, hi, n_bins)
    out = cnt.copy()
    nonroot = parents >= 0
    out[nonroot] = cnt[nonroot] - cnt[parents[nonroot]]
    out[~nonroot] = 1
    return out


def coverage_probabilities(parents, lo, hi, n_bins: int) -> np.ndarray:
    """p_x for every node (formula 3.5 of seed 003). Sums to the expected number of nodes in a cover."""
    return coverage_counts(parents, lo, hi, n_bins) / float(n_ranges(n_bins))


def effective_coverage(parents, p, noised, levels: TreeLevels | None = None) -> np.ndarray:
    """Coverage probabilities when some nodes are not noised (for example the root of H_b without root).

    A range whose cover would use an un-noised node x uses x's children instead, so each child inherits
    x's (effective) probability. Un-noised nodes get 0. With every node noised this returns ``p``.
    """
    parents = np.asarray(parents, dtype=np.int64)
    p = np.asarray(p, dtype=float)
    noised = np.asarray(noised, dtype=bool)
    if noised.all():
        return p.copy()
    lv = levels if levels is not None else TreeLevels(parents)
    eff = p.copy()
    carry = np.zeros_like(p)  # probability passed down to the children of an un-noised node
    for level in lv.levels:
        nonroot = level[parents[level] >= 0]
        if nonroot.size:
            eff[nonroot] += carry[parents[nonroot]]
        carry[level] = np.where(noised[level], 0.0, eff[level])
    eff[~noised] = 0.0
    return eff
