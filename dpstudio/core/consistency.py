"""Constrained inference on noisy count trees (post-processing: costs no budget).

- ``least_squares``: the exact best linear unbiased estimate (BLUE) for any tree and any per-node variances
  (ALGORITHMS.md 4b), in two passes vectorised by tree level. Equals dense generalized least squares.
- ``least_squares_variances``: the variance of every node's BLUE (data-independent, for reports).
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
        self.levels = [self.order[self.level_ptr[d] : self.level_ptr[d + 1]] for d in range(height + 1)]
        self._csr = None
        self._sizes = None

    @property
    def height(self) -> int:
        """Edges on the longest root-to-leaf path (a lone root has height 0)."""
        return len(self.levels) - 1

    @property
    def size(self) -> int:
        return self.parents.size

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
        return idx[ptr[i] : ptr[i + 1]]

    def subtree_sum(self, values) -> np.ndarray:
        """For every node, the sum of ``values`` (1-D, per node) over its subtree, itself included."""
        v = np.array(values, dtype=float).ravel()[self.order]
        one = np.ones(self.size)
        z, _ = _up(self, v, one, one)
        out = np.empty_like(z)
        out[self.order] = z
        return out

    @property
    def leaf_count(self) -> np.ndarray:
        """Leaves under every node (1 for a leaf)."""
        if self._sizes is None:
            self._sizes = (
                np.rint(self.subtree_sum(self.is_leaf)).astype(np.int64),
                np.rint(self.subtree_sum(np.ones(self.size))).astype(np.int64),
            )
        return self._sizes[0]

    @property
    def subtree_size(self) -> np.ndarray:
        """Nodes in every node's subtree, itself included."""
        _ = self.leaf_count  # computes both size arrays on first use
        return self._sizes[1]


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


#: Levels with at most this many nodes are done node by node (runs of them with Python lists): below it a
#: loop beats the fixed cost of a dozen numpy calls per level. It matters for deep, narrow trees (paths).
SCALAR_LEVEL_MAX = 8


def _segments(lv: TreeLevels):
    """Runs of consecutive levels, each (first level, last level + 1, narrow?), top to bottom."""
    narrow = np.diff(lv.level_ptr) <= SCALAR_LEVEL_MAX
    cuts = np.flatnonzero(narrow[1:] != narrow[:-1]) + 1
    starts = np.concatenate([[0], cuts])
    ends = np.concatenate([cuts, [narrow.size]])
    return [(int(a), int(b), bool(narrow[a])) for a, b in zip(starts, ends)]


def _up(lv: TreeLevels, y: np.ndarray, a: np.ndarray, b: np.ndarray):
    """Bottom-up linear pass in ``order`` positions: z = a y + b (sum of the children's z).

    Returns (z, sumz). All arrays are 1-D and indexed by position.
    """
    z = np.empty_like(y)
    sumz = np.zeros_like(y)
    pp = lv.parent_pos
    ptr = lv.level_ptr
    for d0, d1, narrow in reversed(_segments(lv)):
        if narrow:
            s, e = int(ptr[d0]), int(ptr[d1])
            al, bl, yl, sl = a[s:e].tolist(), b[s:e].tolist(), y[s:e].tolist(), sumz[s:e].tolist()
            ppl = pp[s:e].tolist()
            zl = [0.0] * (e - s)
            for i in range(e - s - 1, -1, -1):
                zi = al[i] * yl[i] + bl[i] * sl[i]
                zl[i] = zi
                p = ppl[i]
                if p >= s:
                    sl[p - s] += zi
                elif p >= 0:
                    sumz[p] += zi
            z[s:e] = zl
            sumz[s:e] = sl
            continue
        for d in range(d1 - 1, d0 - 1, -1):
            lo, hi = int(ptr[d]), int(ptr[d + 1])
            z[lo:hi] = a[lo:hi] * y[lo:hi] + b[lo:hi] * sumz[lo:hi]
            if d:
                plo = int(ptr[d - 1])
                sumz[plo:lo] += np.bincount(pp[lo:hi] - plo, weights=z[lo:hi], minlength=lo - plo)
    return z, sumz


def _down(lv: TreeLevels, z: np.ndarray, sumz: np.ndarray, w: np.ndarray) -> np.ndarray:
    """Top-down pass: the root keeps z; a child gets z + w (h(parent) - sumz(parent))."""
    h = z.copy()
    gap = h - sumz  # right for the root; the others are overwritten level by level
    pp = lv.parent_pos
    ptr = lv.level_ptr
    for d0, d1, narrow in _segments(lv):
        if narrow:
            s, e = int(ptr[d0]), int(ptr[d1])
            zl, wl, sl, ppl = z[s:e].tolist(), w[s:e].tolist(), sumz[s:e].tolist(), pp[s:e].tolist()
            hl = zl[:]
            gl = [0.0] * (e - s)
            for i in range(e - s):
                p = ppl[i]
                if p >= s:
                    hi_ = zl[i] + wl[i] * gl[p - s]
                elif p >= 0:
                    hi_ = zl[i] + wl[i] * float(gap[p])
                else:
                    hi_ = zl[i]
                hl[i] = hi_
                gl[i] = hi_ - sl[i]
            h[s:e] = hl
            gap[s:e] = gl
            continue
        for d in range(max(d0, 1), d1):
            lo, hi = int(ptr[d]), int(ptr[d + 1])
            h[lo:hi] = z[lo:hi] + w[lo:hi] * gap[pp[lo:hi]]
            gap[lo:hi] = h[lo:hi] - sumz[lo:hi]
    return h


def _linear_passes(lv: TreeLevels, y: np.ndarray, a, b, w) -> np.ndarray:
    """Both passes for every column of y (positions x classes); the passes are linear in y."""
    out = np.empty_like(y)
    for j in range(y.shape[1]):
        col = np.ascontiguousarray(y[:, j])
        z, sumz = _up(lv, col, a, b)
        out[:, j] = _down(lv, z, sumz, w)
    return out


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


def _variance_pass(lv: TreeLevels, s2: np.ndarray):
    """Bottom-up on variances only (positions order): V of every node's subtree estimate and the sums
    S of its children's V. Leaves: V = s2, S = 0; a node with V = inf has no estimate from its subtree."""
    n = lv.size
    inv = 1.0 / s2
    V = s2.copy()
    S = np.zeros(n)
    pp = lv.parent_pos
    ptr = lv.level_ptr
    internal = ~lv.is_leaf[lv.order]
    inf = float("inf")
    with np.errstate(divide="ignore"):
        for d0, d1, narrow in reversed(_segments(lv)):
            if narrow:
                s, e = int(ptr[d0]), int(ptr[d1])
                Vl, Sl, il, ppl = V[s:e].tolist(), S[s:e].tolist(), inv[s:e].tolist(), pp[s:e].tolist()
                intl = internal[s:e].tolist()
                for i in range(e - s - 1, -1, -1):
                    if intl[i]:
                        prec = il[i] + (1.0 / Sl[i] if Sl[i] != inf else 0.0)
                        Vl[i] = 1.0 / prec if prec > 0 else inf
                    p = ppl[i]
                    if p >= s:
                        Sl[p - s] += Vl[i]
                    elif p >= 0:
                        S[p] += Vl[i]
                V[s:e] = Vl
                S[s:e] = Sl
                continue
            for d in range(d1 - 1, d0 - 1, -1):
                lo, hi = int(ptr[d]), int(ptr[d + 1])
                sel = slice(lo, hi) if internal[lo:hi].all() else lo + np.flatnonzero(internal[lo:hi])
                V[sel] = 1.0 / (inv[sel] + 1.0 / S[sel])
                if d:
                    plo = int(ptr[d - 1])
                    S[plo:lo] += np.bincount(pp[lo:hi] - plo, weights=V[lo:hi], minlength=lo - plo)
    return V, S


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
    c = _blue_coefficients(lv, variances)
    if c.unnoised.any():
        y[c.unnoised] = 0.0
    return _finish(lv, _linear_passes(lv, y, c.a, c.b, c.w), squeeze)


def least_squares_variances(parents, variances, levels: TreeLevels | None = None) -> np.ndarray:
    """Variance of every node's ``least_squares`` estimate (independent noise with ``variances``).

    Data-independent (only the noise variances enter), so fit for a release report. Top-down like a
    Rauch-Tung-Striebel smoother: the root's is V_root; a child's is V_c + (V_c/S)^2 (var(parent) - S),
    S = sum of the siblings' V; the single child without an estimate of its own (when siblings' S is
    infinite) gets var(parent) + the other siblings' V. Same refusals as ``least_squares``.
    """
    lv = levels if levels is not None else TreeLevels(parents)
    c = _blue_coefficients(lv, variances)
    n = lv.size
    pp = lv.parent_pos
    base = c.V.copy()
    w2 = c.w**2
    Sp = c.S.copy()
    if c.free.any():
        finite_V = np.where(c.free, 0.0, c.V)
        sib_sum = np.bincount(pp[1:], weights=finite_V[1:], minlength=n)  # finite V of each family
        base[c.free] = sib_sum[pp[c.free]]  # var(parent) + the other siblings' V
        Sp[np.isinf(Sp)] = 0.0
    out = np.empty(n)
    out[lv.order] = _down(lv, base, Sp, w2)
    return out


class _Blue:
    """Coefficients of the two linear passes of the BLUE (positions order)."""

    def __init__(self, V, S, a, b, w, unnoised, free):
        self.V, self.S, self.a, self.b, self.w, self.unnoised, self.free = V, S, a, b, w, unnoised, free


def _blue_coefficients(lv: TreeLevels, variances) -> _Blue:
    n = lv.size
    s2 = np.broadcast_to(np.asarray(variances, dtype=float), (n,))[lv.order]
    if not np.all(s2 > 0):  # also catches nan
        raise ValueError("variances must be positive (use inf for a node that was not noised)")
    unnoised = np.isinf(s2)
    V, S = _variance_pass(lv, s2)
    if not np.isfinite(V[0]):
        raise ValueError("the noised nodes do not determine the total (nothing noised covers the root)")
    free = np.isinf(V)
    if free.any() and np.any(np.bincount(lv.parent_pos[1:][free[1:]], minlength=n) > 1):
        raise ValueError("the noised nodes do not determine every node (two siblings with no estimate)")
    # z = a y + b sum_children z with a = (1/s2) V, b = V / S; a leaf: a = 1, b = 0; a node neither noised
    # nor determined by its children: a = b = 0 (its value comes from the top-down pass).
    internal = ~lv.is_leaf[lv.order]
    with np.errstate(divide="ignore", invalid="ignore"):
        a = np.where(internal, V / s2, 1.0)
        b = np.where(internal, V / S, 0.0)
    a[unnoised] = 0.0
    b[free] = 0.0
    a[free & ~internal] = 0.0
    # w = V_c / sum_siblings V; where that sum is infinite, the single undetermined child takes the gap.
    w = np.zeros(n)
    Sp = S[lv.parent_pos[1:]]
    with np.errstate(invalid="ignore"):
        w[1:] = np.where(np.isinf(Sp), free[1:], V[1:] / Sp)
    return _Blue(V, S, a, b, w, unnoised, free)


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
    leafnum = lv.leaf_count[lv.order].astype(float)
    totalnum = lv.subtree_size[lv.order].astype(float)
    a = leafnum / totalnum  # a leaf: 1/1
    b = 1.0 - a  # a leaf: 0
    w = np.zeros(lv.size)
    w[1:] = 1.0 / lv.n_children[lv.order][lv.parent_pos[1:]]
    return _finish(lv, _linear_passes(lv, y, a, b, w), squeeze)
