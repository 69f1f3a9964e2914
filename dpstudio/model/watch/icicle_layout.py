"""Icicle layout of a run's tree: one row per depth, each node as wide as the released counts below it.

The second view of the Watch panel: the shape of the released table at a glance. A node's *size* is, for
a leaf, its best released number (the released count of the exported table, else the consistent
count after inference, else the noisy count; summed over the classes; negative values count as 0) and, for an inner node, the sum of its children's
sizes, so the widths show the table that is released, not the noisy inner counts. Children tile their
parent's extent in creation order, in proportion to their sizes; every child keeps at least
``MIN_SHARE`` of its family's extent so that an empty partition stays visible and clickable (the widths
are therefore proportional up to that floor). A family whose sizes are all unknown or zero is split
equally.

Privacy: only noisy, consistent and released numbers enter (never ``true_count``), so the same layout is
fit for release mode; with simulation noise in teaching mode it shows the same kind of picture.
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass

import numpy as np

#: smallest share of its family's extent a child is given (0.5 %)
MIN_SHARE = 0.005


def _total(value) -> float | None:
    """Sum over the classes of a count, negatives as 0 (None: not known or not finite)."""
    if value is None:
        return None
    try:
        t = float(sum(v for v in value if v > 0))  # a nan is not > 0: it drops out
        empty = len(value) == 0
    except TypeError:  # one number
        t, empty = (float(value) if value > 0 else 0.0), False
    return None if empty or not math.isfinite(t) else t


def released_value(node) -> float | None:
    """The number an icicle cell stands for: released, else consistent, else noisy count (summed over
    classes, negatives as 0); None while the node has none."""
    for v in (node.released, node.consistent, node.noisy):
        if v is not None:
            t = _total(v)
            if t is not None:
                return t
    return None


def released_totals(values) -> np.ndarray:
    """``_total`` of every entry of ``values`` at once (nan where it is None), vectorised for the usual
    shapes: one number or one equal-length tuple per entry."""
    arr = _as_matrix(values)
    if arr is None or arr.ndim not in (1, 2) or (arr.ndim == 2 and arr.shape[1] == 0):
        out = [_total(v) for v in values]
        return np.array([math.nan if t is None else t for t in out], dtype=float)
    with np.errstate(invalid="ignore"):
        pos = np.where(arr > 0, arr, 0.0)  # a nan is not > 0: it drops out
    t = pos if arr.ndim == 1 else pos.sum(axis=1)
    return np.where(np.isfinite(t), t, math.nan)


def _as_matrix(values) -> np.ndarray | None:
    """``values`` as a float array (one row per entry), or None for None entries or ragged tuples. Equal-
    length tuples (a count per class, tens of thousands of them after a consistency pass) are read as
    one flat stream, several times faster than ``np.asarray`` on the list of tuples."""
    n = len(values)
    first = values[0] if n else None
    if isinstance(first, tuple) and first:
        m = len(first)
        try:
            flat = np.fromiter(itertools.chain.from_iterable(values), dtype=float, count=n * m)
        except (TypeError, ValueError):
            flat = None
        # a shorter tuple makes the stream end early (ValueError); a longer one would shift every row after
        # it, so the lengths are checked as well
        if flat is not None and min(map(len, values)) == m == max(map(len, values)):
            return flat.reshape(n, m)
    try:
        return np.asarray(values, dtype=float)
    except (TypeError, ValueError):  # None entries or ragged tuples: one at a time
        return None


def node_depths(parents: np.ndarray) -> np.ndarray:
    """Depth of every node of a parents array of positions (vectorised; -1 = root)."""
    if parents.size == 0:
        return np.zeros(0, dtype=np.int64)
    from dpstudio.core.consistency import TreeLevels

    return np.asarray(TreeLevels(parents).depth, dtype=np.int64)


def node_values(state, ids: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(``released_value`` of every node, 0 where unknown; whether it is known), read from the sizes the
    replay keeps per node (``TreeState.sizes``): no per-node work on the GUI thread. A state assembled by
    hand without sizes is read node by node."""
    if len(state.sizes) >= ids.size:
        sizes = np.asarray(state.sizes[: ids.size], dtype=float)
    else:
        sizes = np.array(
            [math.nan if v is None else v for v in (released_value(state.nodes[int(i)]) for i in ids.tolist())],
            dtype=float,
        )
    known = ~np.isnan(sizes)
    return np.where(known, sizes, 0.0), known


@dataclass
class IcicleLayout:
    """Aligned arrays over the state's nodes (creation order): ``ids``, ``depth``, extents ``x0``/``x1``
    in [0, 1], ``size`` (the released size used for the width) and ``known`` (a released number exists
    at or below the node)."""

    ids: np.ndarray
    parents: np.ndarray  # positions, -1 for the root
    depth: np.ndarray
    x0: np.ndarray
    x1: np.ndarray
    size: np.ndarray
    known: np.ndarray

    @property
    def height(self) -> int:
        return int(self.depth.max()) + 1 if self.depth.size else 0

    def position_of(self, node_id: int) -> int | None:
        hits = np.flatnonzero(self.ids == node_id)
        return int(hits[0]) if hits.size else None

    def node_at(self, x: float, depth: int) -> int | None:
        """The node id whose cell holds ``x`` on row ``depth`` (None: no cell there)."""
        on_row = np.flatnonzero((self.depth == depth) & (self.x0 <= x) & (x < self.x1))
        return int(self.ids[on_row[0]]) if on_row.size else None

    def path_to_root(self, node_id: int) -> list[int]:
        pos = self.position_of(node_id)
        out = []
        while pos is not None and pos >= 0:
            out.append(int(self.ids[pos]))
            pos = int(self.parents[pos]) if self.parents[pos] >= 0 else None
        return out


def icicle_layout(state) -> IcicleLayout:
    """The layout of a ``dpstudio.model.watch.replay.TreeState`` (see the module doc)."""
    ids, parents = state.parents_array()
    n = ids.size
    depth = state.depths()
    own, known_own = node_values(state, ids)
    has_child = np.zeros(n, dtype=bool)
    if n:
        has_child[parents[parents >= 0]] = True
    size = np.where(known_own & ~has_child, own, 0.0)
    known = known_own & ~has_child
    # bottom-up: an inner node's size is the sum of its children's (deepest rows first)
    for d in range(int(depth.max()) if n else 0, 0, -1):
        rows = np.flatnonzero(depth == d)
        p = parents[rows]
        ok = p >= 0
        np.add.at(size, p[ok], size[rows[ok]])
        np.logical_or.at(known, p[ok], known[rows[ok]])
    # an inner node with no released number below it yet (the tree is still growing) keeps its own
    lone = has_child & ~known & known_own
    size[lone] = own[lone]
    known |= lone
    x0 = np.zeros(n)
    x1 = np.zeros(n)
    if n:
        roots = np.flatnonzero(parents < 0)  # one in a finished run; equal shares otherwise
        x0[roots] = np.arange(roots.size) / roots.size
        x1[roots] = (np.arange(roots.size) + 1) / roots.size
    for d in range(1, int(depth.max()) + 1 if n else 0):
        rows = np.flatnonzero(depth == d)
        rows = rows[parents[rows] >= 0]
        if not rows.size:
            continue
        fam = parents[rows]
        order = np.lexsort((rows, fam))  # by family, creation order inside
        rows, fam = rows[order], fam[order]
        starts = np.flatnonzero(np.r_[True, fam[1:] != fam[:-1]])
        counts = np.diff(np.r_[starts, rows.size])
        fam_total = np.add.reduceat(size[rows], starts)
        k = np.repeat(counts, counts).astype(float)
        tot = np.repeat(fam_total, counts)
        share = np.where(tot > 0, size[rows] / np.where(tot > 0, tot, 1.0), 1.0 / k)
        # the floor, then renormalised so each family still fills its parent exactly
        share = np.maximum(share, np.minimum(MIN_SHARE, 1.0 / k))
        share /= np.repeat(np.add.reduceat(share, starts), counts)
        width = (x1[fam] - x0[fam]) * share
        csum = np.cumsum(width)
        before = csum - width
        first = np.repeat(starts, counts)
        offset = before - np.where(first > 0, csum[first - 1], 0.0)
        x0[rows] = x0[fam] + offset
        x1[rows] = x0[rows] + width
    return IcicleLayout(ids, parents, depth, x0, x1, size, known)
