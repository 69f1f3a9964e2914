"""Data-independent error figures for a DiffGen release (analytic variances; no data involved).

- ``discrete_laplace_variance(scale)``: variance of the integer noise of ``noise.laplace_counts``:
  P(k) ~ exp(-|k|/scale), variance 2 p / (1 - p)^2 with p = exp(-1/scale) (close to 2 scale^2).
- ``least_squares_variances(parents, variances)``: the variance of every node's least-squares (BLUE)
  estimate, given independent per-node noise variances (inf = not noised). Bottom-up as in
  ``consistency.least_squares`` (V = subtree-only variance), then top-down like a Rauch-Tung-Striebel
  smoother: U_child = V_c + (V_c / S)^2 (U_parent - S), S = sum of the siblings' V.
- ``linear_estimator_variances(estimator, parents, variances)``: for any linear post-processing
  (e.g. ``consistency.hay_generalized``), applies it to unit vectors; O(n^2), small trees only.
"""

from __future__ import annotations

import math

import numpy as np

#: floor for variances that underflow (epsilon so large that the noise is almost surely 0); keeps the
#: least-squares weights finite.
TINY_VARIANCE = 1e-300


def discrete_laplace_variance(scale: float) -> float:
    p = math.exp(-1.0 / float(scale))
    return max(2.0 * p / (1.0 - p) ** 2, TINY_VARIANCE)


def _levels(parents: np.ndarray) -> list[np.ndarray]:
    """Node ids by depth (root first)."""
    n = parents.size
    depth = np.full(n, -1, dtype=np.int64)
    depth[parents < 0] = 0
    while (depth < 0).any():  # pointer doubling would be faster; trees here are shallow (<= h + 1 levels)
        unknown = depth < 0
        ok = unknown & (depth[np.maximum(parents, 0)] >= 0)
        if not ok.any():
            raise ValueError("the parents array has a cycle or a node not connected to the root")
        depth[ok] = depth[parents[ok]] + 1
    order = np.argsort(depth, kind="stable")
    bounds = np.searchsorted(depth[order], np.arange(int(depth.max()) + 2))
    return [order[bounds[d] : bounds[d + 1]] for d in range(int(depth.max()) + 1)]


def least_squares_variances(parents, variances, levels: list | None = None) -> np.ndarray:
    """Variance of the BLUE of every node (same model as ``consistency.least_squares``).

    ``levels``: node ids by depth, root first (computed when not given)."""
    par = np.asarray(parents, dtype=np.int64)
    n = par.size
    s2 = np.broadcast_to(np.asarray(variances, dtype=float), (n,)).astype(float)
    inv = np.where(np.isfinite(s2), 1.0 / s2, 0.0)
    levels = _levels(par) if levels is None else levels
    V = s2.copy()
    sumV = np.zeros(n)
    has_child = np.zeros(n, dtype=bool)
    has_child[par[par >= 0]] = True
    for level in reversed(levels):
        internal = level[has_child[level]]
        if internal.size:
            V[internal] = 1.0 / (inv[internal] + 1.0 / sumV[internal])
        nonroot = level[par[level] >= 0]
        np.add.at(sumV, par[nonroot], V[nonroot])
    U = V.copy()
    for level in levels[1:]:
        p = par[level]
        S = sumV[p]
        U[level] = V[level] + (V[level] / S) ** 2 * (U[p] - S)
    return U


def linear_estimator_variances(estimator, parents, variances, max_nodes: int = 2000) -> np.ndarray | None:
    """Exact variances of ``estimator(parents, noisy)`` (linear in ``noisy``), or None for big trees."""
    par = np.asarray(parents, dtype=np.int64)
    n = par.size
    if n > max_nodes:
        return None
    s2 = np.broadcast_to(np.asarray(variances, dtype=float), (n,)).astype(float)
    weights = estimator(par, np.eye(n))  # column j: the estimate when node j's count is 1, others 0
    return (weights**2) @ s2
