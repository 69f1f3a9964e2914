"""Syntactic privacy models (SYNTACTIC.md K2-K4): k-anonymity, l-diversity, t-closeness. None of them is
differentially private: each is a deterministic property of the released table.

Every check works on equivalence classes given as ``sizes`` (rows per class) and, for the sensitive
attribute S, ``hist`` (classes x m counts of S's m domain values). A class that fails a model is an outlier:
with minimal required suppression its rows are removed, and a table satisfies the models when at most
MaxSup = floor(limit * n) rows are removed (K1, as ARX reads its suppression limit).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

DISTINCT, ENTROPY, RECURSIVE = "distinct", "entropy", "recursive"
EQUAL, ORDERED, HIERARCHICAL = "equal", "ordered", "hierarchical"


def max_suppressed(limit: float, n: int) -> int:
    """MaxSup = floor(limit * n): the rows a node may suppress (ARX's suppression limit, K1)."""
    return int(math.floor(float(limit) * int(n) + 1e-9))


# -- l-diversity (K3) --------------------------------------------------------------------------------------


def distinct_l(hist: np.ndarray) -> np.ndarray:
    """Distinct sensitive values per class."""
    return (np.asarray(hist) > 0).sum(axis=1)


def entropy_l(hist: np.ndarray) -> np.ndarray:
    """exp(H(E)) per class, H the Shannon entropy (natural log) of the class's sensitive distribution; a
    class is entropy l-diverse iff this is >= l."""
    h = np.asarray(hist, dtype=float)
    p = h / h.sum(axis=1, keepdims=True)
    with np.errstate(divide="ignore", invalid="ignore"):
        terms = np.where(p > 0, -p * np.log(np.where(p > 0, p, 1.0)), 0.0)
    return np.exp(terms.sum(axis=1))


def recursive_cl(hist: np.ndarray, c: float, l: int) -> np.ndarray:
    """Recursive (c,l)-diversity per class: r_1 < c (r_l + ... + r_m) with counts sorted descending; a
    class with fewer than l distinct values fails."""
    r = -np.sort(-np.asarray(hist), axis=1)
    if l < 1 or l > r.shape[1]:
        return np.zeros(r.shape[0], dtype=bool)
    tail = r[:, l - 1 :].sum(axis=1)
    return (r[:, 0] < c * tail) & (r[:, l - 1] > 0)


# -- t-closeness distances (K4) -----------------------------------------------------------------------------


def _distributions(hist: np.ndarray) -> np.ndarray:
    h = np.asarray(hist, dtype=float)
    return h / h.sum(axis=1, keepdims=True)


def equal_distance(hist: np.ndarray, q: np.ndarray) -> np.ndarray:
    """Total variation 1/2 sum |p - q| per class (every ground distance 1)."""
    return 0.5 * np.abs(_distributions(hist) - np.asarray(q, dtype=float)).sum(axis=1)


def ordered_distance(hist: np.ndarray, q: np.ndarray) -> np.ndarray:
    """Ordered EMD per class: (1/(m-1)) sum_i |sum_{j<=i} (p_j - q_j)|, m = the domain size."""
    m = np.asarray(q).shape[0]
    if m < 2:
        return np.zeros(np.asarray(hist).shape[0])
    r = np.cumsum(_distributions(hist) - np.asarray(q, dtype=float), axis=1)
    return np.abs(r).sum(axis=1) / (m - 1)


def hierarchical_distance(
    hist: np.ndarray, q: np.ndarray, parent: np.ndarray, level: np.ndarray, height: int
) -> np.ndarray:
    """Hierarchical EMD per class: sum over internal nodes N of (level(N)/H) min(pos_extra, neg_extra).

    ``parent``: each tree node's parent (-1 for the root), where nodes 0..m-1 are the leaves in the order of
    ``q``'s columns; ``level``: each node's height above the leaves (0 for leaves); ``height``: H, the
    taxonomy's height (ground distance between leaves = level(lowest common ancestor) / H). ARX's
    ``HierarchicalDistanceTCloseness`` computes the same.
    """
    p = _distributions(hist)
    extra_leaf = p - np.asarray(q, dtype=float)
    k, m = extra_leaf.shape
    n_nodes = len(parent)
    extra = np.zeros((k, n_nodes))
    pos = np.zeros((k, n_nodes))
    neg = np.zeros((k, n_nodes))
    extra[:, :m] = extra_leaf
    # children before parents: process nodes by increasing level
    for node in np.argsort(level, kind="stable"):
        par = parent[node]
        if par < 0:
            continue
        e = extra[:, node]
        extra[:, par] += e
        pos[:, par] += np.where(e > 0, e, 0.0)
        neg[:, par] += np.where(e < 0, -e, 0.0)
    internal = np.flatnonzero(level > 0)
    cost = (level[internal] / float(height)) * np.minimum(pos[:, internal], neg[:, internal])
    return cost.sum(axis=1)


# -- the models ---------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class LDiversity:
    """l-diversity of one sensitive attribute: ``kind`` distinct, entropy or recursive (with ``c``)."""

    kind: str
    l: float
    attribute: str
    c: float = 1.0

    def satisfied(self, hist: np.ndarray) -> np.ndarray:
        if self.kind == DISTINCT:
            return distinct_l(hist) >= self.l
        if self.kind == ENTROPY:
            return entropy_l(hist) >= self.l * (1 - 1e-12)
        if self.kind == RECURSIVE:
            return recursive_cl(hist, self.c, int(self.l))
        raise ValueError(f"unknown l-diversity kind {self.kind!r}: use distinct, entropy or recursive")


@dataclass(frozen=True)
class TCloseness:
    """t-closeness of one sensitive attribute against Q, its distribution over the whole input (before
    suppression, K4). ``kind`` equal, ordered or hierarchical (the latter needs ``tree``:
    (parent, level, height) as :func:`hierarchical_distance` takes them)."""

    kind: str
    t: float
    attribute: str
    tree: tuple | None = None

    def distances(self, hist: np.ndarray, q: np.ndarray) -> np.ndarray:
        if self.kind == EQUAL:
            return equal_distance(hist, q)
        if self.kind == ORDERED:
            return ordered_distance(hist, q)
        if self.kind == HIERARCHICAL:
            if self.tree is None:
                raise ValueError("hierarchical t-closeness needs the sensitive attribute's taxonomy")
            return hierarchical_distance(hist, q, *self.tree)
        raise ValueError(f"unknown t-closeness kind {self.kind!r}: use equal, ordered or hierarchical")

    def satisfied(self, hist: np.ndarray, q: np.ndarray) -> np.ndarray:
        return self.distances(hist, q) <= self.t + 1e-12


def tree_for_hierarchical(labels_per_level, gen) -> tuple[np.ndarray, np.ndarray, int]:
    """(parent, level, height) for :func:`hierarchical_distance` from a coded level hierarchy: nodes are the
    level-0 codes (0..m-1), then each higher level's codes in turn; the top level is the root."""
    height = len(labels_per_level) - 1
    offsets = np.cumsum([0] + [len(x) for x in labels_per_level])
    parent = np.full(offsets[-1], -1, dtype=np.int64)
    level = np.zeros(offsets[-1], dtype=np.int64)
    for lv in range(height + 1):
        level[offsets[lv] : offsets[lv + 1]] = lv
    for lv in range(height):
        # code c of level lv -> its level lv+1 code (through any leaf under it)
        m = np.full(len(labels_per_level[lv]), -1, dtype=np.int64)
        m[gen[lv]] = gen[lv + 1]
        parent[offsets[lv] : offsets[lv + 1]] = offsets[lv + 1] + m
    return parent, level, height


def class_failures(
    sizes: np.ndarray, k: int, hists: dict | None = None, models=(), q: dict | None = None
) -> np.ndarray:
    """Boolean per class: True where the class is an outlier (size < k, or it fails an l-diversity or
    t-closeness model). ``hists``/``q``: sensitive attribute -> class histograms / its input distribution."""
    bad = np.asarray(sizes) < k
    for model in models:
        assert hists is not None, "an l-diversity or t-closeness model needs the class histograms"
        h = hists[model.attribute]
        if isinstance(model, TCloseness):
            assert q is not None, "t-closeness needs the input distribution"
            bad |= ~model.satisfied(h, q[model.attribute])
        else:
            bad |= ~model.satisfied(h)
    return bad
