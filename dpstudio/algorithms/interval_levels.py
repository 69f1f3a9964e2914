"""H_opt: per-level budgets of a b-ary tree optimised for the error AFTER least squares (numpy only).

Public and data-independent: the tree shape, the branching and the budgets depend on n (the number of
public bins) and epsilon only, never on the counts.

A plan gives every node at depth d the budget w_d * eps (weights w_d >= 0 summing to 1 over the depths);
a leaf above the deepest level takes the rest of its path, eps minus its ancestors' budgets, so every
root-to-leaf path sums to exactly eps. A level whose weight falls below ``SKIP`` is not noised at all
(skipping a level merges it into its parent: a tree of larger arity there); the root may be skipped too,
so "no root" is a choice of the optimiser, not of the user. Privacy: a record changes the counts of one
root-to-leaf path by 1 each, node x gets discrete Laplace of scale 1/eps_x, the path sums to eps: eps-DP.

The objective is the exact expected squared error of a uniformly random range answered from the
least-squares leaves (``core.range_error.consistent_all_range_mse``) with the exact variance of the
discrete Laplace noise of each level's scale. It is minimised over log-weights by a pattern search
(coordinate steps that halve when no step improves), for every branching in ``BRANCHINGS`` up to n; the
best (branching, weights) wins.
"""

from __future__ import annotations

from functools import lru_cache

import numpy as np

from dpstudio.core.range_error import consistent_all_range_mse, laplace_variance

from .interval_shapes import IntervalTree, regular_tree

#: Branchings tried (capped at n); skipped levels reach larger arities (64 = 8 x 8 merged). Smaller ones
#: (2..7) need many more evaluations for gains below 1 % at n = 1024 and 4096 (benchmarks/RESULTS.md).
BRANCHINGS = (8, 10, 16, 20, 32)
#: A level whose weight is below this share of epsilon is not noised.
SKIP = 1e-3
#: Above this many nodes the winning tree keeps its coarse weights (planning time).
LARGE_TREE = 1 << 15


def level_budgets(tree: IntervalTree, weights, epsilon: float = 1.0) -> np.ndarray:
    """Per-node budgets: w_d * eps at depth d (0 where w_d < SKIP), leaves take the rest of their path."""
    w = np.asarray(weights, dtype=float)
    w = np.where(w >= SKIP, w, 0.0)
    depth = tree.depth
    eps = w[depth] * float(epsilon)
    above = np.concatenate([[0.0], np.cumsum(w)])[depth] * float(epsilon)  # budgets of the ancestors
    leaf = tree.is_leaf
    eps[leaf] = float(epsilon) - above[leaf]
    return eps


def budget_variances(epsilons) -> np.ndarray:
    """Exact discrete Laplace variance of scale 1/eps_x per node; inf where eps_x = 0 (not noised)."""
    e = np.asarray(epsilons, dtype=float)
    out = np.full(e.size, np.inf)
    pos = e > 0
    out[pos] = laplace_variance(1.0 / e[pos], discrete=True)
    return out


def level_mse(tree: IntervalTree, weights, epsilon: float = 1.0) -> float:
    """Expected all-range squared error of the least-squares leaves for these level weights."""
    s2 = budget_variances(level_budgets(tree, weights, epsilon))
    return consistent_all_range_mse(tree.parents, tree.lo, tree.hi, tree.n_bins, s2, tree.levels)


def _normalise(theta: np.ndarray) -> np.ndarray:
    w = np.exp(theta - theta.max())
    return w / w.sum()


def _pattern_search(f, theta: np.ndarray, step: float, min_step: float, max_evals: int = 20_000):
    """Minimise f over theta: try +-step on each coordinate, keep the first improvement, halve the step
    when none improves, stop below min_step or after ``max_evals`` evaluations. Returns (f(theta), theta).

    An improvement must beat the best by a relative 1e-9 of its size: at epsilons in the hundreds the
    error underflows and rounds to values at or below 0, where ``best * (1 - 1e-9)`` accepted equal values
    for ever."""
    best = f(theta)
    evals = 1
    while step >= min_step and evals < max_evals:
        improved = False
        for d in range(theta.size):
            for s in (step, -step):
                trial = theta.copy()
                trial[d] += s
                val = f(trial)
                evals += 1
                if val < best - 1e-9 * abs(best):
                    best, theta, improved = val, trial, True
                    break
        if not improved:
            step /= 2
    return best, theta


def optimise_levels(
    tree: IntervalTree,
    epsilon: float = 1.0,
    weights=None,
    step: float = 1.0,
    min_step: float = 1e-2,
    noise_root: bool = True,
):
    """(mse, weights): pattern search over the log-weights of the noised levels. Without ``weights`` it
    starts from H_b without root (equal split, root not noised) and may skip any level; with ``weights``
    it refines them and skipped levels stay skipped. ``noise_root=False`` keeps the root un-noised."""
    if weights is None:
        weights = np.ones(tree.height + 1)
        weights[0] = SKIP / 10 if noise_root else 0.0  # start with the root not noised
        on = np.arange(0 if noise_root else 1, weights.size)
    else:
        weights = np.asarray(weights, dtype=float)
        on = np.flatnonzero(weights > 0)

    def full(theta):
        out = np.zeros(weights.size)
        out[on] = _normalise(theta)
        return np.where(out >= SKIP, out, 0.0)

    mse, theta = _pattern_search(lambda t: level_mse(tree, full(t), epsilon), np.log(weights[on]), step, min_step)
    w = full(theta)
    return mse, w / w.sum()


def best_level_tree(n_bins: int, epsilon: float = 1.0, branchings=BRANCHINGS, noise_root: bool = True):
    """Memoised ``search_level_tree`` (a run plans more than once; the result depends on public inputs only).
    Do not modify the returned tree or weights."""
    return _best_level_tree(int(n_bins), float(epsilon), tuple(int(b) for b in branchings), bool(noise_root))


@lru_cache(maxsize=8)
def _best_level_tree(n_bins, epsilon, branchings, noise_root):
    return search_level_tree(n_bins, epsilon, branchings, noise_root)


def search_level_tree(n_bins: int, epsilon: float = 1.0, branchings=BRANCHINGS, noise_root: bool = True):
    """(tree, weights, mse, branching): the best branching and level weights for n bins at epsilon.

    Every branching is searched coarsely (steps 1 down to 0.25), the winner again finely (0.1 down to
    0.01); trees of more than ``LARGE_TREE`` nodes keep the coarse result. ``noise_root=False``: the root
    is never noised (the optimiser may leave it un-noised anyway)."""
    n = int(n_bins)
    found = []
    for b in sorted({max(2, min(int(b), n)) for b in branchings}):
        tree = regular_tree(n, b)
        mse, w = optimise_levels(tree, epsilon, min_step=0.25, noise_root=noise_root)
        found.append((mse, b, tree, w))
    mse, b, tree, w = min(found, key=lambda f: (f[0], f[1]))
    if tree.n_nodes <= LARGE_TREE:
        mse, w = optimise_levels(tree, epsilon, weights=w, step=0.1, min_step=1e-2)
    return tree, w, mse, b
