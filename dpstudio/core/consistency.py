"""Constrained inference on noisy count trees (post-processing: costs no budget).

- ``least_squares``: the exact best linear unbiased estimate (BLUE) for any tree and any per-node variances
  (ALGORITHMS.md 4b), in two passes vectorised by tree level. Equals dense generalized least squares.
- ``hay_generalized``: seed 000's rule (Hay's k-ary formula generalized to ragged trees, ALGORITHMS.md 4a).
  Exact on complete k-ary trees with equal variances, an approximation elsewhere.

Trees are given as ``parents`` arrays: ``parents[i]`` is node i's parent, -1 for the root; any node order.
``noisy`` may be 1-D (one count per node) or 2-D (nodes x classes); the estimate has the same shape and is
consistent: every parent equals the sum of its children.
"""

from __future__ import annotations

import numpy as np


class TreeLevels:
    """Nodes of a parents-array tree grouped by depth, for level-by-level vectorised passes."""

    def __init__(self, parents):
        parents = np.asarray(parents, dtype=np.int64).ravel()
        n = parents.size
        roots = np.flatnonzero(parents < 0)
        if n == 0 or roots.size != 1:
            raise ValueError(f"a tree needs exactly one root (parent -1), found {roots.size}")
        if np.any(parents >= n):
            raise ValueError("a parent index is out of range")
        self.parents = parents
        self.root = int(roots[0])
        depth = np.full(n, -1, dtype=np.int64)
        depth[self.root] = 0
        frontier = np.array([self.root])
        # Children lists in CSR form, built once.
        order = np.argsort(parents, kind="stable")
        nonroot = order[parents[order] >= 0]
        counts = np.bincount(parents[nonroot], minlength=n)
        self.child_ptr = np.concatenate([[0], np.cumsum(counts)])
        self.child_idx = nonroot
        self.n_children = counts
        levels = []
        d = 0
        while frontier.size:
            levels.append(frontier)
            starts, ends = self.child_ptr[frontier], self.child_ptr[frontier + 1]
            total = int((ends - starts).sum())
            if total == 0:
                break
            # Gather all children of the frontier in one go.
            reps = ends - starts
            offs = np.repeat(starts - np.concatenate([[0], np.cumsum(reps)[:-1]]), reps)
            nxt = self.child_idx[np.arange(total) + offs]
            d += 1
            depth[nxt] = d
            frontier = nxt
        if np.any(depth < 0):
            raise ValueError("the parents array has a cycle or a node not connected to the root")
        self.depth = depth
        self.levels = levels
        self.is_leaf = counts == 0

    @property
    def height(self) -> int:
        return len(self.levels) - 1


def _as_2d(noisy, n):
    y = np.asarray(noisy, dtype=float)
    squeeze = y.ndim == 1
    y = y.reshape(n, -1)
    return y, squeeze


def least_squares(parents, noisy, variances, levels: TreeLevels | None = None) -> np.ndarray:
    """Exact BLUE of every node's true count given independent noisy counts with ``variances``.

    Bottom-up: leaf z = y, V = s2; internal S = sum_children V, z = (y/s2 + sum z_c / S) / (1/s2 + 1/S),
    V = 1/(1/s2 + 1/S). Top-down: the root keeps z; child c of v gets
    z_c + V_c / sum_siblings V * (hbar_v - sum_siblings z). A node with infinite variance (not noised)
    contributes nothing of its own. Post-processing: no budget.
    """
    lv = levels if levels is not None else TreeLevels(parents)
    par = lv.parents
    n = par.size
    y, squeeze = _as_2d(noisy, n)
    s2 = np.broadcast_to(np.asarray(variances, dtype=float), (n,)).astype(float)
    if np.any(~(s2 > 0)):
        raise ValueError("variances must be positive (use inf for a node that was not noised)")
    inv = 1.0 / s2  # 0 for inf
    z = y.copy()
    V = s2.copy()
    sumz = np.zeros_like(y)
    sumV = np.zeros(n)
    for level in reversed(lv.levels):
        internal = level[~lv.is_leaf[level]]
        if internal.size:
            S = sumV[internal]
            prec = inv[internal] + 1.0 / S
            yi = np.where(np.isfinite(s2[internal]), 1.0, 0.0)[:, None] * y[internal]
            z[internal] = (yi * inv[internal][:, None] + sumz[internal] / S[:, None]) / prec[:, None]
            V[internal] = 1.0 / prec
        nonroot = level[par[level] >= 0]
        if nonroot.size:
            p = par[nonroot]
            np.add.at(sumV, p, V[nonroot])
            np.add.at(sumz, p, z[nonroot])
    h = z.copy()
    for level in lv.levels[1:]:
        p = par[level]
        gap = h[p] - sumz[p]
        h[level] = z[level] + (V[level] / sumV[p])[:, None] * gap
    return h[:, 0] if squeeze else h


def hay_generalized(parents, noisy, levels: TreeLevels | None = None) -> np.ndarray:
    """Seed 000's consistency rule (Hay's formula generalized to ragged trees), two passes.

    Bottom-up: r(i) = (leafnum(i) r(i) + (totalnum(i) - leafnum(i)) sum_children r(j)) / totalnum(i),
    where leafnum(i) is the number of leaves under i and totalnum(i) the number of nodes under i (itself
    included). Top-down: r(j) += (r(parent) - sum_siblings r) / number_of_siblings.
    Post-processing: no budget.
    """
    lv = levels if levels is not None else TreeLevels(parents)
    par = lv.parents
    n = par.size
    y, squeeze = _as_2d(noisy, n)
    leafnum = lv.is_leaf.astype(float)
    totalnum = np.ones(n)
    for level in reversed(lv.levels[1:]):
        np.add.at(leafnum, par[level], leafnum[level])
        np.add.at(totalnum, par[level], totalnum[level])
    z = y.copy()
    sumz = np.zeros_like(y)
    for level in reversed(lv.levels):
        internal = level[~lv.is_leaf[level]]
        if internal.size:
            ln, tn = leafnum[internal][:, None], totalnum[internal][:, None]
            z[internal] = (ln * y[internal] + (tn - ln) * sumz[internal]) / tn
        nonroot = level[par[level] >= 0]
        if nonroot.size:
            np.add.at(sumz, par[nonroot], z[nonroot])
    h = z.copy()
    for level in lv.levels[1:]:
        p = par[level]
        h[level] = z[level] + ((h[p] - sumz[p]) / lv.n_children[p][:, None])
    return h[:, 0] if squeeze else h
