"""Constrained inference on noisy count trees (post-processing: costs no budget).

- ``least_squares``: the exact best linear unbiased estimate (BLUE) for any tree and any per-node variances
  (ALGORITHMS.md 4b), in two passes vectorised by tree level. Equals dense generalized least squares.
- ``hay_generalized``: seed 000's rule (Hay's k-ary formula generalized to ragged trees, ALGORITHMS.md 4a).
  Exact on complete k-ary trees with equal variances, an approximation elsewhere.

Trees are given as ``parents`` arrays: ``parents[i]`` is node i's parent, -1 for the root; any node order.
``noisy`` may be 1-D (one count per node) or 2-D (nodes x classes); the estimate has the same shape and is
consistent: every parent equals the sum of its children (to rounding error).

Both passes work on the nodes sorted by depth (``TreeLevels.order``), so that every level is a contiguous
slice and sums over children are one ``np.bincount`` per level. The cost is O(n) plus a fixed overhead
per level (a few microseconds), so a path of 100,000 nodes costs about as much as a bushy tree of a
few million nodes.
"""

from __future__ import annotations

import numpy as np


class TreeLevels:
    """A parents-array tree grouped by depth, for level-by-level vectorised passes.

    Attributes (node ids are the indices of ``parents``):

    - ``parents`` (int64, root's entry -1), ``root``, ``depth``, ``n_children``, ``is_leaf``;
    - ``order``: node ids sorted by depth (stable), ``level_ptr``: level d is ``order[level_ptr[d]:
      level_ptr[d+1]]``, ``levels``: the list of those slices, ``pos``: the inverse permutation of
      ``order``, ``parent_pos``: for each position in ``order``, the position of its parent (-1 for the
      root);
    - ``child_ptr``/``child_idx`` (children in CSR form, computed on first use), ``leaf_count`` (leaves
      under each node, itself included) and ``subtree_size`` (nodes under each node, itself included).
    """

    def __init__(self, parents):
        parents = np.array(parents, dtype=np.int64).ravel()
        n = parents.size
        roots = np.flatnonzero(parents < 0)
        if n == 0 or roots.size != 1:
            raise ValueError(f"a tree needs exactly one root (parent -1), found {roots.size}")
        if np.any(parents >= n):
            raise ValueError("a parent index is out of range")
        root = int(roots[0])
        parents[root] = -1
        self.parents = parents
        self.root = root
        self.depth = _depths(parents, root)
        self.n_children = np.bincount(np.delete(parents, root), minlength=n)
        self.is_leaf = self.n_children == 0

        height = int(self.depth.max())
        key = self.depth.astype(np.uint16 if height < 2**16 else np.int64)
        self.order = np.argsort(key, kind="stable")
        self.level_ptr = np.concatenate([[0], np.cumsum(np.bincount(self.depth, minlength=height + 1))])
        self.pos = np.empty(n, dtype=np.int64)
        self.pos[self.order] = np.arange(n)
        self.parent_pos = np.full(n, -1, dtype=np.int64)
        self.parent_pos[1:] = self.pos[parents[self.order[1:]]]
        self.levels = [self.order[self.level_ptr[d]:self.level_ptr[d + 1]] for d in range(height + 1)]
        self._csr = None
        self._sizes = None

    @property
    def height(self) -> int:
        """Edges on the longest root-to-leaf path (a lone root has height 0)."""
        return len(self.levels) - 1

    @property
    def size(self) -> int:
        return self.parents.size

    def _level_slices(self):
        ptr = self.level_ptr
        return [(int(ptr[d]), int(ptr[d + 1])) for d in range(len(ptr) - 1)]

    @property
    def child_ptr(self) -> np.ndarray:
        return self._children()[0]

    @property
    def child_idx(self) -> np.ndarray:
        return self._children()[1]

    def _children(self):
        if self._csr is None:
            nonroot = np.delete(np.argsort(self.parents, kind="stable"), 0)  # the root sorts first (-1)
            self._csr = (np.concatenate([[0], np.cumsum(self.n_children)]), nonroot)
        return self._csr

    def children(self, i: int) -> np.ndarray:
        ptr, idx = self._children()
        return idx[ptr[i]:ptr[i + 1]]

    def subtree_sum(self, values) -> np.ndarray:
        """For every node, the sum of ``values`` (1-D, per node) over its subtree, itself included."""
        acc = np.array(values, dtype=float).ravel()[self.order]
        pp = self.parent_pos
        sl = self._level_slices()
        for d in range(len(sl) - 1, 0, -1):
            a, b = sl[d]
            pa, pb = sl[d - 1]
            acc[pa:pb] += np.bincount(pp[a:b] - pa, weights=acc[a:b], minlength=pb - pa)
        out = np.empty_like(acc)
        out[self.order] = acc
        return out

    @property
    def leaf_count(self) -> np.ndarray:
        return self._subtree_sizes()[0]

    @property
    def subtree_size(self) -> np.ndarray:
        return self._subtree_sizes()[1]

    def _subtree_sizes(self):
        if self._sizes is None:
            n = self.size
            both = self.subtree_sum_2d(np.stack([self.is_leaf.astype(float), np.ones(n)], axis=1))
            self._sizes = (both[:, 0].astype(np.int64), both[:, 1].astype(np.int64))
        return self._sizes

    def subtree_sum_2d(self, values) -> np.ndarray:
        """``subtree_sum`` for an (n, k) array, column by column in one pass."""
        acc = np.array(values, dtype=float).reshape(self.size, -1)[self.order]
        pp = self.parent_pos
        sl = self._level_slices()
        for d in range(len(sl) - 1, 0, -1):
            a, b = sl[d]
            pa, pb = sl[d - 1]
            acc[pa:pb] += _sum_by_parent(pp[a:b] - pa, acc[a:b], pb - pa)
        out = np.empty_like(acc)
        out[self.order] = acc
        return out


def _depths(parents: np.ndarray, root: int) -> np.ndarray:
    """Depth of every node by pointer jumping: O(n log height), no per-level Python loop."""
    n = parents.size
    anc = parents.copy()
    anc[root] = root
    dist = np.ones(n, dtype=np.int64)
    dist[root] = 0
    active = np.flatnonzero(anc != root)
    for _ in range(int(np.ceil(np.log2(max(n, 2)))) + 2):
        if active.size == 0:
            return dist
        a = anc[active]
        dist[active] += dist[a]
        anc[active] = anc[a]
        active = active[anc[active] != root]
    raise ValueError("the parents array has a cycle or a node not connected to the root")


def _sum_by_parent(local_parent: np.ndarray, values: np.ndarray, m: int) -> np.ndarray:
    """Sum the rows of ``values`` (c x k) into m groups given by ``local_parent`` (one bincount)."""
    c, k = values.shape
    if k == 1:
        return np.bincount(local_parent, weights=values[:, 0], minlength=m)[:, None]
    idx = (local_parent[:, None] * k + np.arange(k)).ravel()
    return np.bincount(idx, weights=values.ravel(), minlength=m * k).reshape(m, k)


def _prepare(parents, noisy, levels):
    lv = levels if levels is not None else TreeLevels(parents)
    n = lv.size
    y = np.asarray(noisy, dtype=float)
    if y.shape[:1] != (n,) or y.ndim > 2:
        raise ValueError(f"noisy must have shape (nodes,) or (nodes, classes) with {n} nodes, got {y.shape}")
    squeeze = y.ndim == 1
    return lv, y.reshape(n, -1)[lv.order], squeeze


def _finish(lv: TreeLevels, h: np.ndarray, squeeze: bool) -> np.ndarray:
    out = np.empty_like(h)
    out[lv.order] = h
    return out[:, 0] if squeeze else out


def least_squares(parents, noisy, variances, levels: TreeLevels | None = None) -> np.ndarray:
    """Exact BLUE of every node's true count given independent noisy counts with ``variances``.

    Bottom-up: leaf z = y, V = s2; internal S = sum_children V, z = (y/s2 + sum z_c / S) / (1/s2 + 1/S),
    V = 1/(1/s2 + 1/S). Top-down: the root keeps z; child c of v gets
    z_c + V_c / sum_siblings V * (hbar_v - sum_siblings z).

    ``variances`` is one positive number per node (or one for all), shared by all classes. ``inf`` marks a
    node that was not noised: its ``noisy`` entry is ignored (may be nan). If what was noised does not
    determine every node (the root's estimate has infinite variance, or two siblings both do), a
    ValueError says so. Post-processing: no budget.
    """
    lv, y, squeeze = _prepare(parents, noisy, levels)
    n = lv.size
    s2 = np.broadcast_to(np.asarray(variances, dtype=float), (n,))[lv.order]
    if not np.all(s2 > 0):  # also catches nan
        raise ValueError("variances must be positive (use inf for a node that was not noised)")
    unnoised = np.isinf(s2)
    any_inf = bool(unnoised.any())
    inv = 1.0 / s2  # 0 for a node that was not noised
    if any_inf:
        y[unnoised] = 0.0
    pp = lv.parent_pos
    sl = lv._level_slices()
    has_children = ~lv.is_leaf[lv.order]

    z = y.copy()
    V = s2.copy()
    sumz = np.zeros_like(y)
    sumV = np.zeros(n)
    n_free = np.zeros(n) if any_inf else None  # children whose estimate has infinite variance
    yinv = y * inv[:, None]
    for d in range(len(sl) - 1, 0, -1):
        a, b = sl[d]
        pa, pb = sl[d - 1]
        cp = pp[a:b] - pa
        m = pb - pa
        sumV[pa:pb] = np.bincount(cp, weights=V[a:b], minlength=m)
        sumz[pa:pb] = _sum_by_parent(cp, z[a:b], m)
        if any_inf:
            n_free[pa:pb] = np.bincount(cp, weights=np.isinf(V[a:b]), minlength=m)
        sel = slice(pa, pb) if has_children[pa:pb].all() else pa + np.flatnonzero(has_children[pa:pb])
        invS = 1.0 / sumV[sel]
        prec = inv[sel] + invS
        with np.errstate(divide="ignore", invalid="ignore"):
            V[sel] = 1.0 / prec
            zz = (yinv[sel] + sumz[sel] * invS[:, None]) / prec[:, None]
        if any_inf:
            zz[prec == 0] = 0.0  # neither observed nor determined by its children: fixed top-down
        z[sel] = zz

    if not np.isfinite(V[0]):
        raise ValueError("the noised nodes do not determine the total (nothing noised covers the root)")
    if any_inf and np.any(n_free > 1):
        raise ValueError("the noised nodes do not determine every node (two siblings with no estimate)")
    h = z
    for d in range(1, len(sl)):
        a, b = sl[d]
        p = pp[a:b]
        gap = h[p] - sumz[p]
        if any_inf:
            Sp = sumV[p]
            with np.errstate(invalid="ignore"):
                w = np.where(np.isinf(Sp), np.isinf(V[a:b]), V[a:b] / Sp)
        else:
            w = V[a:b] / sumV[p]
        h[a:b] = z[a:b] + w[:, None] * gap
    return _finish(lv, h, squeeze)


def hay_generalized(parents, noisy, levels: TreeLevels | None = None) -> np.ndarray:
    """Seed 000's consistency rule (Hay's formula generalized to ragged trees), two passes.

    Bottom-up: r(i) = (leafnum(i) r(i) + (totalnum(i) - leafnum(i)) sum_children r(j)) / totalnum(i),
    where leafnum(i) is the number of leaves under i (1 for a leaf) and totalnum(i) the number of nodes in
    the subtree of i (itself included). Top-down: r(j) += (r(parent) - sum_siblings r) / number_of_siblings
    (siblings including j, their r from the bottom-up pass). Assumes every node was noised with the same
    variance; it is then exact on complete k-ary trees and an approximation on other trees.
    Post-processing: no budget.
    """
    lv, y, squeeze = _prepare(parents, noisy, levels)
    leafnum = lv.leaf_count[lv.order].astype(float)[:, None]
    totalnum = lv.subtree_size[lv.order].astype(float)[:, None]
    nch = lv.n_children[lv.order].astype(float)
    pp = lv.parent_pos
    sl = lv._level_slices()
    has_children = nch > 0
    z = y.copy()
    sumz = np.zeros_like(y)
    for d in range(len(sl) - 1, 0, -1):
        a, b = sl[d]
        pa, pb = sl[d - 1]
        sumz[pa:pb] = _sum_by_parent(pp[a:b] - pa, z[a:b], pb - pa)
        sel = slice(pa, pb) if has_children[pa:pb].all() else pa + np.flatnonzero(has_children[pa:pb])
        ln, tn = leafnum[sel], totalnum[sel]
        z[sel] = (ln * y[sel] + (tn - ln) * sumz[sel]) / tn
    h = z
    for d in range(1, len(sl)):
        a, b = sl[d]
        p = pp[a:b]
        h[a:b] = z[a:b] + (h[p] - sumz[p]) / nch[p][:, None]
    return _finish(lv, h, squeeze)
