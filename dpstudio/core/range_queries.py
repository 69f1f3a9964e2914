"""Range-count queries over a generalized release or a noisy partition tree (numpy only).

A query is a box: per attribute a taxonomy node (categorical, or numeric via the node's interval) or an
interval ``[lo, hi)`` (numeric), optionally restricted to one class. A workload is a batch of such boxes.

Two ways to answer (ALGORITHMS.md 4, seed 000 section 3):

- From a release (``cell_weights`` + ``answer``): the sum of the released leaf cells x class counts. A
  cell that only partly overlaps the query is pro-rated by the uniformity assumption: numeric by the
  fraction of the cell's interval length inside the query, categorical by the fraction of the cell's raw
  taxonomy leaves that lie under the query's node; over several attributes the fractions multiply.
- From a raw noisy tree (``tree_weights`` + ``answer``): the leaves a query covers completely are answered
  by the fewest tree nodes whose leaf sets exactly cover them (seed 000's minimal cover: the maximal nodes
  whose leaves all lie inside the query); leaves only partly inside are pro-rated as above.

Both produce a weight matrix W (cells or nodes x queries); an answer is ``W.T @ counts``. W depends only
on public geometry, never on counts, so a Monte-Carlo study builds it once and multiplies it by many noise
draws. Answering is post-processing of released values: it costs no privacy budget.

Query size (``Domain.fraction``) is the fraction of the domain's volume a box covers: the product over
attributes of (categorical) the share of the taxonomy's leaves under the node and (numeric) the share of
the public bounds' length. Record-based sizes (true answer / number of records) are only for evaluation
with simulation noise, never for a release (see ``dpstudio.evaluation.range_error``).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from .taxonomy import Taxonomy

ALL_CLASSES = -1

_BLOCK = 512  # queries per block when building weight matrices (bounds memory: cells x _BLOCK floats)
_FULL = 1.0 - 1e-9  # a fraction at least this large counts as "completely inside"


class CategoricalAxis:
    """A categorical attribute: cells and queries are taxonomy node ids; sizes count raw leaves."""

    is_numeric = False

    def __init__(self, taxonomy: Taxonomy, name: str | None = None):
        self.taxonomy = taxonomy
        self.name = name or taxonomy.attribute
        leaves = taxonomy.leaves
        pos = {leaf: k for k, leaf in enumerate(leaves)}
        member = np.zeros((len(taxonomy), len(leaves)), dtype=bool)
        for i in range(len(taxonomy)):
            member[i, [pos[j] for j in taxonomy.leaves_under(i)]] = True
        self.membership = member
        self.leaf_count = member.sum(axis=1)
        self.n_leaves = len(leaves)

    def whole(self):
        return 0

    def resolve(self, value) -> int:
        """A node id from a node id or a label."""
        if isinstance(value, (int, np.integer)):
            if not 0 <= int(value) < len(self.taxonomy):
                raise ValueError(f"node {value} is not in the taxonomy of {self.name}")
            return int(value)
        return self.taxonomy.index(str(value))

    def as_array(self, values: Sequence) -> np.ndarray:
        return np.asarray([self.resolve(v) for v in values], dtype=np.int64)

    def overlap(self, cells: np.ndarray, queries: np.ndarray) -> np.ndarray:
        """cells x queries: the fraction of each cell's raw leaves that lie under each query node."""
        a = self.membership[cells].astype(float)
        b = self.membership[queries].astype(float)
        return (a @ b.T) / self.leaf_count[cells][:, None]

    def size(self, queries: np.ndarray) -> np.ndarray:
        return self.leaf_count[queries] / self.n_leaves


class NumericAxis:
    """A numeric attribute over public bounds ``[lo, hi)``: cells and queries are intervals (n x 2)."""

    is_numeric = True

    def __init__(self, lo: float, hi: float, taxonomy: Taxonomy | None = None, name: str = ""):
        lo, hi = float(lo), float(hi)
        if not (np.isfinite(lo) and np.isfinite(hi) and hi > lo):
            raise ValueError(f"numeric bounds must satisfy lo < hi, got [{lo}, {hi})")
        self.lo, self.hi = lo, hi
        self.taxonomy = taxonomy
        self.name = name or (taxonomy.attribute if taxonomy is not None else "")

    @classmethod
    def from_taxonomy(cls, taxonomy: Taxonomy, name: str | None = None) -> NumericAxis:
        return cls(taxonomy.lo[0], taxonomy.hi[0], taxonomy, name or taxonomy.attribute)

    def whole(self):
        return (self.lo, self.hi)

    def resolve(self, value) -> tuple[float, float]:
        """An interval from (lo, hi), a node id or a node label of the taxonomy."""
        if isinstance(value, (tuple, list, np.ndarray)) and len(value) == 2:
            lo, hi = float(value[0]), float(value[1])
            if not hi > lo:
                raise ValueError(f"empty interval [{lo}, {hi}) for {self.name}")
            return lo, hi
        if self.taxonomy is None:
            raise ValueError(f"{self.name} has no taxonomy: give an interval (lo, hi)")
        i = int(value) if isinstance(value, (int, np.integer)) else self.taxonomy.index(str(value))
        return float(self.taxonomy.lo[i]), float(self.taxonomy.hi[i])

    def as_array(self, values: Sequence) -> np.ndarray:
        return np.asarray([self.resolve(v) for v in values], dtype=float).reshape(-1, 2)

    def overlap(self, cells: np.ndarray, queries: np.ndarray) -> np.ndarray:
        """cells x queries: the fraction of each cell's length inside each query interval."""
        lo = np.maximum(cells[:, 0][:, None], queries[:, 0][None, :])
        hi = np.minimum(cells[:, 1][:, None], queries[:, 1][None, :])
        length = cells[:, 1] - cells[:, 0]
        return np.clip(hi - lo, 0.0, None) / length[:, None]

    def size(self, queries: np.ndarray) -> np.ndarray:
        lo = np.clip(queries[:, 0], self.lo, self.hi)
        hi = np.clip(queries[:, 1], self.lo, self.hi)
        return np.clip(hi - lo, 0.0, None) / (self.hi - self.lo)


Axis = CategoricalAxis | NumericAxis


@dataclass(frozen=True)
class Workload:
    """A batch of Q boxes: per attribute an array (node ids, or Q x 2 intervals) and a class per query.

    ``classes[q]`` is a class index or ``ALL_CLASSES`` (-1: the count over every class).
    """

    extents: tuple
    classes: np.ndarray

    def __len__(self) -> int:
        return int(self.classes.size)

    def subset(self, idx) -> Workload:
        return Workload(tuple(e[idx] for e in self.extents), self.classes[idx])


class Domain:
    """The public geometry of a table: one axis per quasi-identifier attribute, in a fixed order."""

    def __init__(self, axes: Sequence[Axis]):
        self.axes = list(axes)
        self.names = [a.name for a in self.axes]
        if len(set(self.names)) != len(self.names):
            raise ValueError(f"attribute names must be distinct, got {self.names}")

    def __len__(self) -> int:
        return len(self.axes)

    def axis(self, name: str) -> Axis:
        try:
            return self.axes[self.names.index(name)]
        except ValueError:
            raise KeyError(f"unknown attribute {name!r} (attributes: {', '.join(self.names)})") from None

    def cells(self, per_attribute: Mapping[str, Sequence] | Sequence[Sequence]) -> tuple:
        """Cell (or leaf) extents: per attribute a list of node ids/labels or intervals, as arrays."""
        if isinstance(per_attribute, Mapping):
            per_attribute = [per_attribute[n] for n in self.names]
        if len(per_attribute) != len(self.axes):
            raise ValueError(f"need extents for {len(self.axes)} attributes, got {len(per_attribute)}")
        out = tuple(ax.as_array(v) for ax, v in zip(self.axes, per_attribute))
        sizes = {len(e) for e in out}
        if len(sizes) > 1:
            raise ValueError(f"attributes have different numbers of cells: {sorted(sizes)}")
        return out

    def workload(self, boxes: Sequence[Mapping], classes: Sequence[int] | None = None) -> Workload:
        """Queries from dicts {attribute: node label/id or (lo, hi)}; a missing attribute = whole domain."""
        cols = []
        for name, ax in zip(self.names, self.axes):
            cols.append(ax.as_array([b.get(name, ax.whole()) for b in boxes]))
        for b in boxes:
            unknown = set(b) - set(self.names)
            if unknown:
                raise KeyError(f"unknown attribute(s) {sorted(unknown)} (attributes: {', '.join(self.names)})")
        cls = (
            np.full(len(boxes), ALL_CLASSES, dtype=np.int64) if classes is None else np.asarray(classes, dtype=np.int64)
        )
        if cls.shape != (len(boxes),):
            raise ValueError("need one class per query")
        return Workload(tuple(cols), cls)

    def fraction(self, workload: Workload) -> np.ndarray:
        """Query size as the fraction of the domain's volume (product over attributes), per query."""
        out = np.ones(len(workload))
        for ax, e in zip(self.axes, workload.extents):
            out *= ax.size(e)
        return out


def cell_weights(domain: Domain, cells: tuple, workload: Workload) -> np.ndarray:
    """cells x queries: the share of each cell inside each query under the uniformity assumption."""
    n_cells = len(cells[0]) if cells else 0
    W = np.empty((n_cells, len(workload)))
    for start in range(0, len(workload), _BLOCK):
        sl = slice(start, start + _BLOCK)
        block = np.ones((n_cells, len(workload.classes[sl])))
        for ax, c, q in zip(domain.axes, cells, workload.extents):
            block *= ax.overlap(c, q[sl])
        W[:, sl] = block
    return W


def covered_nodes(parents, leaf_inside: np.ndarray, leaves: np.ndarray) -> np.ndarray:
    """nodes x queries booleans: nodes all of whose leaves are completely inside the query.

    ``leaf_inside`` is leaves x queries (booleans, in the order of ``leaves``, the tree's leaf node ids).
    """
    parents = np.asarray(parents, dtype=np.int64)
    n = parents.size
    inside = np.ones((n, leaf_inside.shape[1]), dtype=bool)
    inside[leaves] = leaf_inside
    depth = node_depths(parents)
    for d in range(int(depth.max()), 0, -1):
        level = np.flatnonzero(depth == d)
        # a parent stays "inside" only if every child is inside
        np.logical_and.at(inside, parents[level], inside[level])
    return inside


def node_depths(parents) -> np.ndarray:
    """Depth of every node of a parents-array tree (root 0), level by level; errors on cycles."""
    parents = np.asarray(parents, dtype=np.int64)
    n = parents.size
    depth = np.full(n, -1, dtype=np.int64)
    roots = np.flatnonzero(parents < 0)
    if roots.size != 1:
        raise ValueError(f"a tree needs exactly one root, found {roots.size}")
    depth[roots] = 0
    for _ in range(n):
        todo = depth < 0
        if not todo.any():
            return depth
        known = todo & (depth[np.where(parents >= 0, parents, 0)] >= 0)
        if not known.any():
            break
        depth[known] = depth[parents[known]] + 1
    raise ValueError("the parents array has a cycle or a node not connected to the root")


def minimal_cover_matrix(parents, leaf_inside: np.ndarray, leaves: np.ndarray) -> np.ndarray:
    """nodes x queries booleans: seed 000's minimal cover of each query's completely covered leaves.

    The cover is the set of maximal nodes whose leaves all lie inside: no cover of exactly those leaves
    by tree nodes has fewer nodes (a smaller one would need a node with a leaf outside the query).
    """
    parents = np.asarray(parents, dtype=np.int64)
    inside = covered_nodes(parents, leaf_inside, leaves)
    parent_inside = np.zeros_like(inside)
    nonroot = parents >= 0
    parent_inside[nonroot] = inside[parents[nonroot]]
    return inside & ~parent_inside


def tree_weights(
    domain: Domain, parents, leaves: Sequence[int] | np.ndarray, leaf_cells: tuple, workload: Workload
) -> np.ndarray:
    """nodes x queries weights for answering from a raw (inconsistent) noisy tree.

    Leaves completely inside a query are answered by their minimal cover (weight 1 on each cover node);
    leaves partly inside are pro-rated by the uniformity assumption (weight = their fraction); ``leaves``
    are the tree's leaf node ids and ``leaf_cells`` their extents (as from ``Domain.cells``).
    """
    parents = np.asarray(parents, dtype=np.int64)
    leaf_ids = np.asarray(leaves, dtype=np.int64)
    F = cell_weights(domain, leaf_cells, workload)
    full = F >= _FULL
    W = minimal_cover_matrix(parents, full, leaf_ids).astype(float)
    partial = np.where(full, 0.0, F)
    W[leaf_ids] += partial
    return W


def answer(weights: np.ndarray, counts: np.ndarray, classes: np.ndarray) -> np.ndarray:
    """Query answers from a weight matrix and counts.

    ``weights``: cells x Q. ``counts``: cells (one class), cells x K, or R x cells x K (R draws, e.g.
    Monte-Carlo runs). Returns Q answers (or R x Q). A query with class -1 sums over all classes.
    """
    c = np.asarray(counts, dtype=float)
    classes = np.asarray(classes, dtype=np.int64)
    if c.ndim == 1:
        c = c[:, None]
    if c.ndim == 2:
        A = weights.T @ c  # Q x K
        return _pick(A, classes)
    if c.ndim == 3:
        A = np.einsum("cq,rck->rqk", weights, c)
        return np.stack([_pick(a, classes) for a in A])
    raise ValueError("counts must be 1-D, 2-D (cells x classes) or 3-D (runs x cells x classes)")


def _pick(A: np.ndarray, classes: np.ndarray) -> np.ndarray:
    if np.any(classes >= A.shape[1]):
        raise ValueError(f"a query asks for class {classes.max()} but there are {A.shape[1]} classes")
    total = A.sum(axis=1)
    one = A[np.arange(A.shape[0]), np.clip(classes, 0, None)]
    return np.where(classes < 0, total, one)


def random_boxes(
    domain: Domain,
    n: int,
    rng: np.random.Generator,
    attributes: tuple[int, int] = (1, 2),
    n_classes: int = 0,
    class_probability: float = 0.5,
    aligned_to: tuple | None = None,
) -> Workload:
    """A random workload of ``n`` boxes over the taxonomies (ALGORITHMS.md 9).

    Each box constrains between ``attributes[0]`` and ``attributes[1]`` attributes (at most all of them),
    chosen uniformly;
    the others span their whole domain. A constrained categorical attribute gets a uniformly random
    non-root taxonomy node; a numeric one a uniformly random interval inside the bounds (two uniform
    end points, sorted). With ``n_classes`` > 0 a box asks for one uniformly random class with probability
    ``class_probability``, otherwise for all classes.

    ``aligned_to``: cell extents (as from ``Domain.cells``) of a grid release whose boxes should align
    with it: categorical nodes are drawn among those whose leaf set is a union of cell nodes' leaf sets,
    numeric end points among the cells' boundaries. Such boxes contain every cell fully or not at all.
    """
    d = len(domain)
    lo_k, hi_k = min(attributes[0], d), min(attributes[1], d)
    if not 1 <= lo_k <= hi_k:
        raise ValueError(f"attributes per box must lie in 1..{d}, got {attributes}")
    cols = []
    allowed: list[np.ndarray | None] = []
    for j, ax in enumerate(domain.axes):
        if aligned_to is None:
            allowed.append(None)
        elif isinstance(ax, NumericAxis):
            allowed.append(np.unique(np.concatenate([aligned_to[j][:, 0], aligned_to[j][:, 1]])))
        else:
            allowed.append(_aligned_nodes(ax, np.unique(aligned_to[j])))
    chosen = np.zeros((n, d), dtype=bool)
    k = rng.integers(lo_k, hi_k + 1, size=n)
    for q in range(n):
        chosen[q, rng.choice(d, size=k[q], replace=False)] = True
    for j, ax in enumerate(domain.axes):
        b = allowed[j]
        if isinstance(ax, NumericAxis):
            col = np.tile(np.array([ax.lo, ax.hi]), (n, 1))
            m = int(chosen[:, j].sum())
            if b is None:
                pts = np.sort(rng.uniform(ax.lo, ax.hi, size=(m, 2)), axis=1)
            else:
                if b.size < 2:
                    pts = np.tile(np.array([ax.lo, ax.hi]), (m, 1))
                else:
                    ij = (
                        np.sort(np.stack([rng.choice(b.size, size=2, replace=False) for _ in range(m)]), axis=1)
                        if m
                        else np.empty((0, 2), dtype=np.int64)
                    )
                    pts = b[ij] if m else np.empty((0, 2))
            bad = pts[:, 1] <= pts[:, 0]
            pts[bad] = (ax.lo, ax.hi)
            col[chosen[:, j]] = pts
        else:
            col = np.zeros(n, dtype=np.int64)
            pool = np.arange(1, len(ax.taxonomy)) if b is None else b[b != 0]
            if pool.size:
                col[chosen[:, j]] = rng.choice(pool, size=int(chosen[:, j].sum()))
        cols.append(col)
    classes = np.full(n, ALL_CLASSES, dtype=np.int64)
    if n_classes > 0:
        pick = rng.random(n) < class_probability
        classes[pick] = rng.integers(0, n_classes, size=int(pick.sum()))
    return Workload(tuple(cols), classes)


def _aligned_nodes(ax: CategoricalAxis, cell_nodes: np.ndarray) -> np.ndarray:
    """Taxonomy nodes whose leaf set is a union of the given cell nodes' (disjoint) leaf sets."""
    cover = ax.membership[cell_nodes]  # cells x leaves
    out = []
    for i in range(len(ax.taxonomy)):
        m = ax.membership[i]
        inside = (cover & m).any(axis=1)
        if inside.any() and np.array_equal(cover[inside].any(axis=0), m):
            out.append(i)
    return np.asarray(out, dtype=np.int64)
