"""Shapes of interval trees over n ordered histogram bins (public: they never depend on the counts).

A tree is stored in breadth-first order (root = 0, every level contiguous, parent before child, children
of a node contiguous and left to right) as arrays ``parents``, ``lo`` (first bin, 0-based) and ``hi``
(end bin, exclusive).

How a b-ary tree splits m bins when m is not a power of b (our choice, documented in docs/histogram.md):
a node of m > 1 bins gets k = min(b, m) contiguous children of near-equal sizes, the first m mod k of them
one bin larger (sizes ceil(m/k) first, then floor(m/k)). Repeated near-equal splits give every node at
depth d floor or ceil of n / b^d bins, so all leaves sit at depth ceil(log_b n) or one above, the height is
ceil(log_b n), and the leftmost path is a longest one (SC relies on that, seed 003 conclusion 3.2).

- ``flat_tree(n)``: a root (never noised) over n leaves: Dwork's flat histogram.
- ``regular_tree(n, b)``: the b-ary tree above (H_b, LUEDPTree).
- ``qardaji_branching(n)``: b minimising (b - 1) h^3 - 2 (b + 1) h^2 / 3, h = ceil(log_b n) (Qardaji, Yang,
  Li, VLDB 2013): 16 for n = 256 and 4096.
- ``sc_tree(n, ...)``: seed 003's SC structure (section 3.3.2), see ``sc_tree``.
- ``IntervalTree.from_intervals``: any user-given tree (checked: children partition their parent).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cache, cached_property

import numpy as np

from dpstudio.core.consistency import TreeLevels
from dpstudio.core.coverage import coverage_probabilities, ranges_containing

SC_MAX_ARITY = 20


@dataclass
class IntervalTree:
    """An interval tree over ``n_bins`` bins in breadth-first order (see the module docstring)."""

    n_bins: int
    parents: np.ndarray
    lo: np.ndarray
    hi: np.ndarray
    name: str = ""
    _levels: TreeLevels | None = field(default=None, repr=False)
    _coverage: np.ndarray | None = field(default=None, repr=False)

    @property
    def n_nodes(self) -> int:
        return int(self.parents.size)

    @property
    def levels(self) -> TreeLevels:
        if self._levels is None:
            self._levels = TreeLevels(self.parents)
        return self._levels

    @property
    def depth(self) -> np.ndarray:
        return self.levels.depth

    @cached_property
    def level_slices(self) -> list[slice]:
        """Breadth-first order keeps every level contiguous: level d is ``slice`` number d."""
        d = self.depth
        if np.any(np.diff(d) < 0) or np.any(self.parents[1:] >= np.arange(1, self.n_nodes)):
            raise ValueError("the tree is not in breadth-first order")
        bounds = np.searchsorted(d, np.arange(int(d.max()) + 2))
        return [slice(int(a), int(b)) for a, b in zip(bounds[:-1], bounds[1:])]

    @property
    def height(self) -> int:
        """Edges on the longest root-to-leaf path."""
        return self.levels.height

    @cached_property
    def is_leaf(self) -> np.ndarray:
        return (self.hi - self.lo) == 1

    @cached_property
    def n_children(self) -> np.ndarray:
        return np.bincount(self.parents[1:], minlength=self.n_nodes)

    @cached_property
    def leaf_of_bin(self) -> np.ndarray:
        """Node id of each bin's leaf."""
        leaves = np.flatnonzero(self.is_leaf)
        out = np.empty(self.n_bins, dtype=np.int64)
        out[self.lo[leaves]] = leaves
        return out

    def coverage(self) -> np.ndarray:
        """Coverage probabilities of uniformly random ranges (cached; do not modify)."""
        if self._coverage is None:
            self._coverage = coverage_probabilities(self.parents, self.lo, self.hi, self.n_bins)
        return self._coverage

    def node_counts(self, bin_counts) -> np.ndarray:
        """True count of every node (sum of its bins), exact int64. Private: never release these."""
        return self.node_sums(np.asarray(bin_counts, dtype=np.int64))

    def node_sums(self, bin_values) -> np.ndarray:
        """Every node's sum of its bins' values (in their dtype), by prefix sums."""
        v = np.asarray(bin_values)
        pref = np.concatenate([np.zeros(1, dtype=v.dtype), np.cumsum(v)])
        return pref[self.hi] - pref[self.lo]

    def arity_summary(self) -> dict:
        k = self.n_children[~self.is_leaf]
        vals, cnt = np.unique(k, return_counts=True)
        return {str(int(v)): int(c) for v, c in zip(vals, cnt)}

    def describe(self) -> dict:
        return {
            "name": self.name,
            "n_bins": self.n_bins,
            "n_nodes": self.n_nodes,
            "height": self.height,
            "levels": self.height + 1,
            "arities": self.arity_summary(),
        }

    @classmethod
    def from_intervals(cls, n_bins: int, parents, lo, hi, name: str = "custom") -> IntervalTree:
        """A tree given node by node; reordered breadth-first. Raises ValueError unless the root holds all
        bins, every internal node has at least 2 children that partition it left to right, and leaves
        hold one bin each."""
        par = np.asarray(parents, dtype=np.int64)
        lo = np.asarray(lo, dtype=np.int64)
        hi = np.asarray(hi, dtype=np.int64)
        lv = TreeLevels(par)
        if lo[lv.root] != 0 or hi[lv.root] != n_bins:
            raise ValueError(f"the root must hold bins 0..{n_bins - 1}")
        if np.any(hi <= lo):
            raise ValueError("every node needs at least one bin")
        kids = lv.n_children
        if np.any(kids == 1):
            raise ValueError("an internal node needs at least 2 children")
        if np.any(lv.is_leaf & (hi - lo != 1)):
            raise ValueError("every leaf must hold exactly one bin")
        order = np.lexsort((lo, lv.depth))
        for v in np.flatnonzero(~lv.is_leaf):
            ch = np.flatnonzero(par == v)
            ch = ch[np.argsort(lo[ch])]
            if lo[ch[0]] != lo[v] or hi[ch[-1]] != hi[v] or np.any(lo[ch[1:]] != hi[ch[:-1]]):
                raise ValueError(f"the children of node {v} do not partition [{lo[v]},{hi[v]})")
        # breadth-first with children contiguous: sort by depth, then by parent's new position, then lo
        newpos = np.empty(par.size, dtype=np.int64)
        newpos[order] = np.arange(par.size)
        ppos = np.where(par >= 0, newpos[np.maximum(par, 0)], -1)
        order = np.lexsort((lo, ppos, lv.depth))
        newpos[order] = np.arange(par.size)
        new_par = np.where(par[order] >= 0, newpos[np.maximum(par[order], 0)], -1)
        return cls(int(n_bins), new_par, lo[order], hi[order], name)


def split_sizes(m: np.ndarray, k: np.ndarray):
    """Children of nodes with m bins split k ways (near-equal, larger first): (parent index, offset, size)
    for every child, vectorised over the nodes."""
    q, r = np.divmod(m, k)
    owner = np.repeat(np.arange(m.size), k)
    start = np.concatenate([[0], np.cumsum(k)[:-1]])
    j = np.arange(int(k.sum())) - np.repeat(start, k)
    qq, rr = q[owner], r[owner]
    size = qq + (j < rr)
    offset = j * qq + np.minimum(j, rr)
    return owner, offset, size


def build_tree(n_bins: int, arity, name: str = "") -> IntervalTree:
    """Grow a tree level by level; ``arity(lo, hi, is_leftmost)`` gives each splitting node's arity."""
    n = int(n_bins)
    if n < 1:
        raise ValueError("a histogram needs at least one bin")
    par_parts = [np.array([-1], dtype=np.int64)]
    lo_parts = [np.array([0], dtype=np.int64)]
    hi_parts = [np.array([n], dtype=np.int64)]
    f_id = np.array([0], dtype=np.int64)
    f_lo, f_hi = lo_parts[0], hi_parts[0]
    next_id = 1
    while True:
        m = f_hi - f_lo
        split = m > 1
        if not split.any():
            break
        s_id, s_lo, s_hi = f_id[split], f_lo[split], f_hi[split]
        k = np.minimum(np.asarray(arity(s_lo, s_hi), dtype=np.int64), s_hi - s_lo)
        if np.any(k < 2):
            raise ValueError("arity must be at least 2")
        owner, offset, size = split_sizes(s_hi - s_lo, k)
        c_lo = s_lo[owner] + offset
        c_hi = c_lo + size
        c_id = next_id + np.arange(owner.size)
        next_id += owner.size
        par_parts.append(s_id[owner])
        lo_parts.append(c_lo)
        hi_parts.append(c_hi)
        f_id, f_lo, f_hi = c_id, c_lo, c_hi
    return IntervalTree(n, np.concatenate(par_parts), np.concatenate(lo_parts), np.concatenate(hi_parts), name)


def regular_tree(n_bins: int, branching: int) -> IntervalTree:
    """The near-equal b-ary tree (H_b's shape)."""
    b = int(branching)
    if b < 2:
        raise ValueError(f"branching must be at least 2, got {branching}")
    return build_tree(n_bins, lambda lo, hi: np.full(lo.size, b), name=f"{b}-ary")


def flat_tree(n_bins: int) -> IntervalTree:
    """A root over n leaves; the root is never noised (Dwork's flat histogram)."""
    n = int(n_bins)
    return build_tree(n, lambda lo, hi: np.full(lo.size, n), name="flat")


def ceil_log(n: int, b: int) -> int:
    """Smallest h with b^h >= n (exact integers)."""
    h, p = 0, 1
    while p < n:
        p *= b
        h += 1
    return h


def qardaji_branching(n_bins: int) -> int:
    """Qardaji-Yang-Li's branching: argmin over b of (b - 1) h^3 - 2 (b + 1) h^2 / 3, h = ceil(log_b n);
    ties go to the smaller b."""
    n = int(n_bins)
    if n <= 2:
        return 2
    best, best_b = None, 2
    # For a fixed h the objective grows with b, so only the smallest b of each height competes.
    for h in range(ceil_log(n, 2), 0, -1):
        b = max(2, int(round(n ** (1.0 / h))) - 1)
        while ceil_log(n, b) > h:
            b += 1
        while b > 2 and ceil_log(n, b - 1) <= h:
            b -= 1
        val = (b - 1) * h**3 - 2 * (b + 1) * h * h / 3.0
        if best is None or val < best - 1e-12 or (abs(val - best) <= 1e-12 and b < best_b):
            best, best_b = val, b
    return best_b


# ----------------------------------------------------------------------------------------------- SC


@cache
def _shape_stats(m: int, w: int):
    """Sums over the near-equal w-ary tree of m bins (positions relative, 1-based) of the weights
    omega_d = [d is not the subtree root] - children(d), times 1, (l + r), l and l * r; the coverage sum of
    the subtree at any offset follows from these four numbers (see ``_subtree_coverage_sum``)."""
    t = build_tree(m, lambda lo, hi: np.full(lo.size, w))
    omega = -t.n_children.astype(float)
    omega[1:] += 1.0
    l = t.lo + 1.0
    r = t.hi.astype(float)
    return float(omega.sum()), float((omega * (l + r)).sum()), float((omega * l).sum()), float((omega * l * r).sum())


def _subtree_coverage_sum(n: int, lo: int, hi: int, w: int) -> float:
    """H(L, R, w) of seed 003 (definition 3.4) minus the subtree root's own probability (which does not
    depend on w), times n(n+1)/2: sum over the other nodes d of the w-ary subtree of
    cnt(d) - cnt(parent d), cnt = L (n - R + 1) = (o + l)(N - o - r) with o = lo, N = n + 1."""
    s_w, s_lr, s_l, s_llr = _shape_stats(hi - lo, w)
    o, N = float(lo), float(n + 1)
    return -o * o * s_w + o * (N * s_w - s_lr) + N * s_l - s_llr


def _uniform_raw_error_factor(tree: IntervalTree, noise_root: bool) -> float:
    """Delta^2 * sum p_x over the noised nodes (the raw expected error is 2/eps^2 times this)."""
    from dpstudio.core.coverage import effective_coverage

    p = tree.coverage()
    noised = np.ones(tree.n_nodes, dtype=bool)
    noised[0] = noise_root
    eff = effective_coverage(tree.parents, p, noised, tree.levels)
    delta = tree.height + (1 if noise_root else 0)
    return delta * delta * float(eff.sum())


def sc_arity(n_bins: int, noise_root: bool = True, candidates=range(2, SC_MAX_ARITY + 1)) -> int:
    """SC's first step: the arity k in 2..20 minimising 2 Delta^2 / eps^2 * sum p_x of the k-ary tree
    (Delta = number of noised levels)."""
    best, best_k = None, None
    for k in candidates:
        if k > max(2, n_bins):
            break
        val = _uniform_raw_error_factor(regular_tree(n_bins, k), noise_root)
        if best is None or val < best * (1 - 1e-12):
            best, best_k = val, k
    assert best_k is not None, "no candidate branching"
    return best_k


def sc_tree(n_bins: int, k: int | None = None, noise_root: bool = True, max_arity: int = SC_MAX_ARITY) -> IntervalTree:
    """Seed 003's SC structure: the k-ary tree (k by ``sc_arity`` unless given), in which every node whose
    left end is not bin 1 is split with the arity w in k..max(k, max_arity) (capped at its size) that
    minimises the coverage sum of its w-ary subtree (greedy, top-down; seed 003 definition 3.4). Nodes on
    the leftmost path keep arity k, so the height (and the sensitivity Delta) is that of the k-ary tree and
    the expected raw error never increases (seed 003 conclusion 3.2)."""
    n = int(n_bins)
    k = sc_arity(n, noise_root) if k is None else int(k)
    top = max(k, max_arity)

    def arity(lo, hi):
        out = np.full(lo.size, k, dtype=np.int64)
        for i in np.flatnonzero(lo > 0):
            a, b = int(lo[i]), int(hi[i])
            m = b - a
            ws = range(k, min(top, m) + 1)
            if m <= k:
                continue
            vals = [_subtree_coverage_sum(n, a, b, w) for w in ws]
            out[i] = ws[int(np.argmin(vals))]
        return out

    return build_tree(n, arity, name=f"SC (k={k})")


def subtree_coverage_sum(
    n_bins: int, lo: int, hi: int, w: int, parent_lo: int | None = None, parent_hi: int | None = None
) -> float:
    """Seed 003's H(L, R, w): the sum of coverage probabilities over the w-ary subtree of [lo, hi)
    (0-based, hi exclusive) including its root, whose parent is [parent_lo, parent_hi) (None: it is the
    root)."""
    n = int(n_bins)
    own = 1 if parent_lo is None else int(ranges_containing(lo, hi, n) - ranges_containing(parent_lo, parent_hi, n))
    return (own + _subtree_coverage_sum(n, lo, hi, w)) / (n * (n + 1) / 2)
