"""Non-negative, integral, consistent counts from consistent estimates (post-processing: no budget).

``project_tree(parents, estimates, weights=None, integral=True)`` takes consistent real estimates of every
node of a tree (e.g. ``consistency.least_squares``; may be negative) and returns counts that are at the
same time

- non-negative;
- consistent: every parent equals the sum of its children;
- integral (with ``integral=True``);
- total-preserving: the root keeps its estimate (clamped at 0, then rounded to the nearest integer), so
  the released total is the root's unbiased estimate, not inflated by clamping.

Top-down, one tree level at a time: each node's value (already fixed) is distributed over its children
by the weighted projection onto {x >= 0, sum x = value}: x_c = max(e_c - tau w_c, 0) with the one tau
that makes the family sum to the value (w_c = the children's estimate variances, so a child with a
precise estimate moves less; equal weights give the Euclidean projection onto the simplex). Then, when
integral, largest-remainder rounding: each child gets floor(x_c), and the family's remaining units go one
each to the children with the largest fractional parts (ties: the earlier child), so the family still
sums to its parent. Columns (classes) are independent.
"""

from __future__ import annotations

import numpy as np

from .consistency import TreeLevels


def project_tree(
    parents, estimates, weights=None, integral: bool = True, levels: TreeLevels | None = None
) -> np.ndarray:
    """Non-negative, consistent (and integral) counts for every node; same shape as ``estimates``
    (nodes,) or (nodes, classes). ``weights``: one positive number per node (default 1)."""
    lv = levels if levels is not None else TreeLevels(parents)
    est = np.asarray(estimates, dtype=float)
    if est.shape[:1] != (lv.size,) or est.ndim > 2:
        raise ValueError(f"estimates must have shape (nodes,) or (nodes, classes) with {lv.size} nodes")
    w = np.ones(lv.size) if weights is None else np.broadcast_to(np.asarray(weights, dtype=float), (lv.size,))
    if not np.all((w > 0) & np.isfinite(w)):
        raise ValueError("weights must be positive and finite")
    cols = est.reshape(lv.size, -1)
    out = np.empty_like(cols)
    for k in range(cols.shape[1]):
        out[:, k] = _project_column(lv, cols[:, k], w, integral)
    return out[:, 0] if est.ndim == 1 else out


def split_rows(totals, estimates, integral: bool = True) -> np.ndarray:
    """Split each row's total over its columns: row r becomes the projection of ``estimates[r]`` onto
    {x >= 0, sum x = totals[r]} (equal weights; the Euclidean projection onto the scaled simplex), then
    with ``integral`` largest-remainder rounding (``totals`` must be whole numbers then), so every row sums
    to its total. ``totals`` (rows,) >= 0, ``estimates`` (rows, columns). Post-processing: no budget.

    The leaf-only releases use it for the classes of each leaf after the leaves' totals were projected over
    the tree (``project_tree`` on the totals): a class then keeps the records its leaves give it, where
    projecting each class's column alone emptied a class whose noisy leaves summed below 0."""
    est = np.asarray(estimates, dtype=float)
    tot = np.asarray(totals, dtype=float)
    if est.ndim != 2 or tot.shape != est.shape[:1]:
        raise ValueError("estimates must be (rows, columns) and totals (rows,)")
    if not np.all(tot >= 0):
        raise ValueError("totals must be non-negative")
    rows, cols = est.shape
    if rows == 0 or cols == 0:
        return est.copy()
    fam = np.repeat(np.arange(rows), cols)
    flat_tot = np.repeat(tot, cols)
    x = _simplex_projection(fam, est.reshape(-1), np.ones(rows * cols), flat_tot)
    if integral:
        x = _largest_remainder(fam, x, flat_tot)
    return x.reshape(rows, cols)


def _project_column(lv: TreeLevels, e: np.ndarray, w: np.ndarray, integral: bool) -> np.ndarray:
    x = np.zeros(lv.size)
    root = max(float(e[lv.root]), 0.0)
    x[lv.root] = np.round(root) if integral else root
    for nodes in lv.levels[1:]:
        fam = lv.parents[nodes]
        vals = _simplex_projection(fam, e[nodes], w[nodes], x[fam])
        if integral:
            vals = _largest_remainder(fam, vals, x[fam])
        x[nodes] = vals
    return x


def _group_starts(sorted_groups: np.ndarray) -> np.ndarray:
    """For each position of a group-sorted array, the position where its group starts."""
    first = np.ones(sorted_groups.size, dtype=bool)
    first[1:] = sorted_groups[1:] != sorted_groups[:-1]
    return np.maximum.accumulate(np.where(first, np.arange(sorted_groups.size), 0))


def _simplex_projection(fam: np.ndarray, e: np.ndarray, w: np.ndarray, total: np.ndarray) -> np.ndarray:
    """Per family: x = max(e - tau w, 0) with sum x = total (>= 0); all zero when total is 0."""
    t = e / w
    order = np.lexsort((-t, fam))  # by family, then breakpoint descending
    g, es, ws, ts, tot = fam[order], e[order], w[order], t[order], total[order]
    start = _group_starts(g)
    ce, cw = np.cumsum(es), np.cumsum(ws)
    base_e = np.where(start > 0, ce[start - 1], 0.0)
    base_w = np.where(start > 0, cw[start - 1], 0.0)
    tau_k = (ce - base_e - tot) / (cw - base_w)  # tau if the first k of the family are active
    ok = ts > tau_k  # true on a prefix of each family
    n_fam = int(fam.max()) + 1
    tau = np.full(n_fam, np.inf)
    last = np.full(n_fam, -1)
    np.maximum.at(last, g[ok], np.flatnonzero(ok))
    has = last >= 0
    tau[has] = tau_k[last[has]]
    x = np.maximum(e - tau[fam] * w, 0.0)
    x[~np.isfinite(x)] = 0.0
    return x


def _largest_remainder(fam: np.ndarray, x: np.ndarray, total: np.ndarray) -> np.ndarray:
    """Round x (>= 0, summing to the integer ``total`` per family) to integers with the same sums."""
    fl = np.floor(x + 1e-9)
    frac = x - fl
    n_fam = int(fam.max()) + 1
    missing = np.bincount(fam, weights=fl, minlength=n_fam)
    target = np.zeros(n_fam)
    target[fam] = total
    missing = np.rint(target - missing).astype(np.int64)
    order = np.lexsort((np.arange(x.size), -frac, fam))  # by family, largest fraction first, stable
    g = fam[order]
    rank = np.arange(x.size) - _group_starts(g)
    add = np.zeros(x.size)
    add[order] = rank < missing[g]
    return fl + add
