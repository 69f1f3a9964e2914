"""A numeric taxonomy's cut points as the public split grid of a numeric attribute. Numpy only.

Everything here is public: the grid comes from a taxonomy the data owner declared (a file, a generator
over the public bounds), never from the values.

- ``taxonomy_cut_points(tax)``: the cut points of a taxonomy over numbers. A numeric taxonomy
  (``[lo,hi)`` labels, e.g. a generated equal-width tree) gives every end point of its intervals. A
  categorical tree whose leaves are all numbers (ARX's age hierarchy: leaves 1..100, groups ``0-4``,
  ``0-9``, ``0-19``) gives the smallest leaf of every group (internal node): the boundaries between
  consecutive groups, e.g. 5, 10, 15, ..., so the single values (the leaves) are not cut points. Such a
  group must hold consecutive numbers; otherwise the tree is not an interval tree and has no cut points
  (``SplitGridError``).
- ``GridLattice(base, grid, source)``: the grid used where a ``core.lattice.Lattice`` is expected, so
  DiffGen's split-point choice (the discrete exponential mechanism of
  ``core.mechanisms.choose_split_on_lattice``) runs over the grid points inside the current interval:
  points c_0 = lo < c_1 < ... < c_{M-1} < hi, c_1..c_{M-1} the grid points strictly inside the bounds.
  A record's cell is the largest k with c_k <= x, so "x < c_k" iff "cell < k" (a per-record rule: the
  score sensitivity is unchanged). The kind, resolution and value checks are those of ``base`` (the
  attribute's declared lattice).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from .lattice import Lattice


class SplitGridError(ValueError):
    """A taxonomy that cannot give split points (one line, says why)."""


def _number(label: str) -> float | None:
    try:
        x = float(str(label).strip())
    except ValueError:
        return None
    return x if np.isfinite(x) else None


def taxonomy_cut_points(tax) -> np.ndarray:
    """The sorted cut points of ``tax`` (see the module docstring); ``SplitGridError`` if it has none."""
    name = tax.attribute or "(unnamed)"
    if tax.is_numeric:
        return np.unique(np.concatenate([np.asarray(tax.lo, float), np.asarray(tax.hi, float)]))
    leaves = [i for i, c in enumerate(tax.children) if not c]
    values = {i: _number(tax.labels[i]) for i in leaves}
    bad = [tax.labels[i] for i, v in values.items() if v is None]
    if bad:
        raise SplitGridError(
            f"the taxonomy of {name} has leaves that are not numbers ({', '.join(map(repr, bad[:3]))}"
            f"{', ...' if len(bad) > 3 else ''}): it cannot give split points for a numeric attribute"
        )
    numbers = {i: float(v) for i, v in values.items() if v is not None}  # every leaf, checked just above
    order = sorted(leaves, key=lambda i: numbers[i])
    rank = {leaf: r for r, leaf in enumerate(order)}
    cuts = []
    for node, kids in enumerate(tax.children):
        if not kids or node == 0:
            continue
        start, stop = tax.leaf_range(node)
        ranks = sorted(rank[leaf] for leaf in tax.leaf_order[start:stop])
        if ranks[-1] - ranks[0] != len(ranks) - 1:
            raise SplitGridError(
                f"the group {tax.labels[node]!r} of the taxonomy of {name} holds numbers that are "
                "not consecutive: it is not a tree of intervals and cannot give split points"
            )
        cuts.append(values[order[ranks[0]]])
    return np.unique(np.asarray(cuts, dtype=float))


@dataclass(frozen=True)
class GridLattice:
    """A public split grid in place of the attribute's lattice (see the module docstring)."""

    base: Lattice
    grid: tuple
    source: str
    _points: np.ndarray = field(init=False, repr=False, compare=False)

    def __post_init__(self):
        g = np.unique(np.asarray(self.grid, dtype=float))
        g = g[(g > self.base.lo) & (g < self.base.hi)]
        object.__setattr__(self, "grid", tuple(float(x) for x in g))
        object.__setattr__(self, "_points", np.concatenate([[float(self.base.lo)], g]))

    lo = property(lambda self: self.base.lo)
    hi = property(lambda self: self.base.hi)
    kind = property(lambda self: self.base.kind)
    resolution = property(lambda self: self.base.resolution)
    declared = property(lambda self: self.base.declared)
    rule = property(lambda self: self.base.rule)

    @property
    def cells(self) -> int:
        return int(self._points.size)

    @property
    def n_points(self) -> int:
        return self.cells - 1

    def point(self, k: int) -> float:
        return float(self._points[int(k)])

    def points(self, ks) -> np.ndarray:
        return self._points[np.asarray(ks, dtype=np.int64)]

    def index(self, values) -> np.ndarray:
        """The cell of every value: the largest k with c_k <= x (int64). Values in [lo, hi]."""
        k = np.searchsorted(self._points, np.asarray(values, dtype=float), side="right") - 1
        return np.clip(k, 0, self.cells - 1).astype(np.int64)

    def check_values(self, name: str, values) -> None:
        self.base.check_values(name, values)

    def describe(self) -> dict:
        d = self.base.describe()
        d["split_points"] = (
            f"on the public grid: {self.source}; chosen by the discrete exponential mechanism "
            "among the grid points inside the interval being split"
        )
        d["grid_source"] = self.source
        d["grid"] = list(self.grid)
        d["lattice_points"] = self.n_points
        return d


__all__ = ["GridLattice", "SplitGridError", "taxonomy_cut_points"]
