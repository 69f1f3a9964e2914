"""Per-node privacy budgets of interval trees (public: they depend on the shape, never on the counts).

Privacy (seed 003 conclusion 3.4; neighbours add or remove one record): a record lies in exactly one bin,
so it changes by 1 the counts of the nodes on one root-to-leaf path and no other. Noising node x with
Laplace(1/eps_x) is eps_x-DP for that node; siblings hold disjoint records (parallel composition) and the
nodes of one path add up (sequential composition), so the whole tree is (max over leaves of the path sum)-DP.

- ``uniform_budgets``: eps / L on every noised node, L = the number of noised nodes on the longest path
  (H_b and SC: Lap(L/eps) everywhere; flat: the root is not noised, L = 1).
- ``luedp_budgets``: LUEDPTree (seed 003 section 3.4): minimises sum_x p_x / eps_x^2 subject to every
  root-to-leaf path summing to eps. Node coefficients bottom-up: leaves a = b = 1; internal
  a_x = (p_x / sum_children p_y b_y^3 / a_y^3)^(1/3), b_x = a_x + 1; top-down eps_x = (a_x / b_x) psum(x),
  children get psum(x) - eps_x, psum(root) = eps. An un-noised node (root of a tree "without root") has
  a = 0: it takes nothing and passes its whole psum to its children; its coverage goes to its children
  (``effective_coverage``).
- ``round_down_to_grid``: budgets rounded down to the grid 2^(j / steps), so that secure sampling can batch
  nodes by noise scale; rounding down keeps every path sum <= eps.
"""

from __future__ import annotations

import numpy as np

from dpstudio.core.coverage import effective_coverage

from .interval_shapes import IntervalTree

#: Budgets are multiplied by this before use so that floating-point path sums cannot exceed epsilon.
SAFETY = 1.0 - 1e-9


def noised_levels(tree: IntervalTree, noised) -> int:
    """The largest number of noised nodes on a root-to-leaf path (the sensitivity of all noised counts)."""
    noised = np.asarray(noised, dtype=bool)
    if noised[1:].all():
        return tree.height + int(noised[0])
    per = noised.astype(np.int64)
    par = tree.parents
    for level in tree.levels.levels[1:]:
        per[level] += per[par[level]]
    return int(per[tree.is_leaf].max())


def path_sums(tree: IntervalTree, epsilons) -> np.ndarray:
    """Sum of the budgets on the path from the root to every leaf, in bin order."""
    acc = np.asarray(epsilons, dtype=float).copy()
    par = tree.parents
    for s in tree.level_slices[1:]:
        acc[s] += acc[par[s]]
    return acc[tree.leaf_of_bin]


def uniform_budgets(tree: IntervalTree, epsilon: float, noised) -> np.ndarray:
    """eps / L on every noised node, 0 elsewhere."""
    noised = np.asarray(noised, dtype=bool)
    L = noised_levels(tree, noised)
    return np.where(noised, float(epsilon) / L, 0.0)


def luedp_coefficients(tree: IntervalTree, p, noised):
    """Node coefficients (a, b) of seed 003's algorithm 3.3, and C_x = p_x b_x^3 / a_x^3, the optimal
    cost of x's subtree per unit of 1/psum^2 (C_leaf = p, C_x = (1 + a_x)^3 sum_children C_y)."""
    p = np.asarray(p, dtype=float)
    noised = np.asarray(noised, dtype=bool)
    par = tree.parents
    n = tree.n_nodes
    a = np.ones(n)
    C = p.copy()
    S = np.zeros(n)
    leaf = tree.is_leaf
    if np.any(leaf & ~noised):
        raise ValueError("every leaf must be noised")
    sl = tree.level_slices
    for d in range(len(sl) - 1, -1, -1):
        s = sl[d]
        internal = ~leaf[s]
        own = np.where(noised[s], p[s], 0.0)
        Sd = S[s]
        ratio = np.divide(own, Sd, out=np.ones_like(Sd), where=internal)
        a[s] = np.where(internal, np.cbrt(ratio), 1.0)
        C[s] = np.where(internal, (1.0 + a[s]) ** 3 * Sd, p[s])
        if d:
            prev = sl[d - 1]
            S[prev] += np.bincount(par[s] - prev.start, weights=C[s], minlength=prev.stop - prev.start)
    return a, a + 1.0, C


def luedp_budgets(tree: IntervalTree, epsilon: float, noised=None, p=None) -> np.ndarray:
    """LUEDPTree's per-node budgets (algorithm 3.4 of seed 003); every root-to-leaf path sums to eps.

    ``p`` defaults to the coverage probabilities of uniformly random ranges (made effective when some
    nodes are not noised)."""
    noised = np.ones(tree.n_nodes, dtype=bool) if noised is None else np.asarray(noised, dtype=bool)
    if p is None:
        p = effective_coverage(tree.parents, tree.coverage(), noised, tree.levels)
    a, b, _ = luedp_coefficients(tree, p, noised)
    eps = np.zeros(tree.n_nodes)
    rest = np.zeros(tree.n_nodes)  # psum(x) - eps_x: what x's children receive
    par = tree.parents
    for d, s in enumerate(tree.level_slices):
        psum = rest[par[s]] if d else np.full(s.stop - s.start, float(epsilon))
        eps[s] = np.where(tree.is_leaf[s], psum, a[s] / b[s] * psum)
        rest[s] = psum - eps[s]
    return eps


def round_down_to_grid(epsilons, steps: int = 256) -> np.ndarray:
    """Round positive budgets down to the geometric grid 2^(j / steps) (relative loss < 2^(1/steps) - 1);
    zeros stay zero. Fewer distinct noise scales means fewer secure-sampler set-ups."""
    e = np.asarray(epsilons, dtype=float)
    out = np.zeros_like(e)
    pos = e > 0
    j = np.floor(np.log2(e[pos]) * steps + 1e-9)
    out[pos] = np.minimum(np.exp2(j / steps), e[pos])
    return out
