"""Count budgets per level of a released DiffGen partition tree, chosen for its shape (numpy only).

After the selection steps the partition tree's shape is public (it follows from the released
specializations). ``optimal_level_shares(parents)`` splits the count budget eps_c over the tree's levels
0..L-1 (shares w_0..w_(L-1), summing to 1) to minimise, after least squares,

    f(w) = mean over leaves of r(leaf) + INTERNAL_WEIGHT x mean over depths d of (mean of r over the
           internal nodes at depth d) + ROOT_WEIGHT x r(root),
    r(node) = var(node) / (leaves under it) / (leaf-only variance),

the error of the released cells plus that of the range queries the tree's nodes answer (per cell, each
depth counting once, so the large ranges near the root count as much as the small ones), plus the
released total's (the root's) once more. A leaf-only release has r = 1 everywhere.

Budget of a node (``node_shares``): an internal node at depth d gets w_d; a leaf at depth d gets
w_d + ... + w_(L-1) (it is the only node of its records' path below depth d). Every root-to-leaf path
therefore sums to exactly the count budget (a record lies in one node per depth it reaches), which is the
privacy condition for noising every node with scale 1 / (share x eps_c).

Variances are those of Laplace noise, 2 / (share eps_c)^2; f is homogeneous in them, so the shares do not
depend on eps_c. The minimisation: the best of the uniform split and a grid of splits (a share of the
deepest level, the rest geometric over depth), then each level's share scaled up and down in turn while
that improves f. It only accepts improvements over uniform, so f never exceeds uniform's. The root's share
is kept at least 1/L (uniform's), so the released total's variance is at most that of the uniform
split's noisy root count:
f measures errors relative to a leaf-only release, and on a large tree it would otherwise leave the
total (in absolute terms) far noisier than uniform's.
"""

from __future__ import annotations

import numpy as np

from .diffgen_variance import _levels, least_squares_variances

#: weight of the range-query term against the leaves' term
INTERNAL_WEIGHT = 1.0
#: weight of the root's term (the released total) on top of its place among the depths
ROOT_WEIGHT = 1.0
#: the search: shares of the deepest level, and ratios q of a geometric split of the rest (w_d ~ q^d)
LEAF_SHARES = (0.6, 0.75, 0.85, 0.9, 0.95, 0.98)
RATIOS = (0.5, 0.7, 1.0)


class _Shape:
    def __init__(self, parents):
        self.parents = np.asarray(parents, dtype=np.int64)
        self.levels = _levels(self.parents)
        n = self.parents.size
        self.depth = np.empty(n, dtype=np.int64)
        for d, nodes in enumerate(self.levels):
            self.depth[nodes] = d
        self.L = len(self.levels)
        has_child = np.zeros(n, dtype=bool)
        has_child[self.parents[self.parents >= 0]] = True
        self.leaf = ~has_child
        self.share_index = self.depth + self.L * self.leaf  # into (w, tails)
        under = self.leaf.astype(float)
        for nodes in reversed(self.levels[1:]):
            under += np.bincount(self.parents[nodes], weights=under[nodes], minlength=n)
        self.leaves_under = under
        self.internal_levels = [nodes[has_child[nodes]] for nodes in self.levels if has_child[nodes].any()]

    def node_shares(self, w: np.ndarray) -> np.ndarray:
        tail = np.cumsum(w[::-1])[::-1]  # w_d + ... + w_(L-1)
        return np.concatenate([w, tail])[self.share_index]

    def relative_variances(self, w: np.ndarray) -> np.ndarray:
        """r(node) for shares ``w``: variance after least squares / leaves under it / leaf-only's."""
        return least_squares_variances(self.parents, 1.0 / self.node_shares(w) ** 2, self.levels) / self.leaves_under

    def objective(self, w: np.ndarray) -> float:
        r = self.relative_variances(w)
        f = float(r[self.leaf].mean())
        if self.internal_levels:
            f += INTERNAL_WEIGHT * float(np.mean([r[nodes].mean() for nodes in self.internal_levels]))
            f += ROOT_WEIGHT * float(r[self.parents < 0][0])
        return f


def node_shares(parents, shares) -> np.ndarray:
    """Each node's share of the count budget under per-level ``shares`` (see the module docstring)."""
    return _Shape(parents).node_shares(np.asarray(shares, dtype=float))


def level_objective(parents, shares) -> float:
    """f(shares) of the module docstring (a leaf-only release: 1 + INTERNAL_WEIGHT)."""
    return _Shape(parents).objective(np.asarray(shares, dtype=float))


def _root_floor(w: np.ndarray) -> np.ndarray:
    """w with the root's share at least 1/L (uniform's), the other levels scaled to the rest."""
    floor = 1.0 / w.size
    if w[0] >= floor:
        return w
    rest = w[1:] / w[1:].sum() * (1 - floor)
    return np.concatenate([[floor], rest])


def optimal_level_shares(parents) -> tuple[float, ...]:
    """Per-level shares of the count budget minimising f for the tree ``parents`` (public shape)."""
    s = _Shape(parents)
    L = s.L
    if L == 1:
        return (1.0,)
    best_w = np.full(L, 1.0 / L)
    best = s.objective(best_w)
    for rho in LEAF_SHARES:
        for q in RATIOS:
            top = q ** np.arange(L - 1)
            w = _root_floor(np.append(top / top.sum() * (1 - rho), rho))
            f = s.objective(w)
            if f < best:
                best, best_w = f, w
    for factor in (1.3,):  # polish level by level
        for d in range(L):
            for m in (factor, 1 / factor):
                w = best_w.copy()
                w[d] *= m
                w = _root_floor(w / w.sum())
                f = s.objective(w)
                if f < best:
                    best, best_w = f, w
    return tuple(best_w.tolist())
