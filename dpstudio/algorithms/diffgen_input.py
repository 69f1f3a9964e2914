"""The engine's input: a table already coded as integers and floats (see ``dpstudio.io.encoding``).

Numpy only. Everything here except the record arrays is public: taxonomies, numeric bounds, numeric
kinds (and so the split-point lattices) and split grids are domains supplied by the user, never derived
from the data.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from ..core.lattice import CONTINUOUS, INTEGER, Lattice
from ..core.split_grid import GridLattice
from ..core.taxonomy import Taxonomy


@dataclass(frozen=True)
class CategoricalAttribute:
    """A categorical quasi-identifier: ``leaf_ids[r]`` is the taxonomy leaf (node id) of record r."""

    name: str
    taxonomy: Taxonomy
    leaf_ids: np.ndarray

    kind = "categorical"


@dataclass(frozen=True)
class NumericAttribute:
    """A numeric quasi-identifier with public bounds ``lo <= x <= hi`` (the upper bound is inclusive).

    ``grid``: public split points strictly inside (lo, hi), used when split points come from a grid
    (MAXGDDP); ``None`` lets the engine build an equal-width grid (rounded to whole numbers when
    ``integer``). ``lattice``: the public lattice DiffGen's split points lie on (``core.lattice``, from the
    bounds and the declared kind, or a taxonomy's cut points as a ``core.split_grid.GridLattice``); ``None``: integer lattice if ``integer``, else continuous with the
    default resolution (both from public inputs only). ``integer`` is the declared kind, never read from
    the values.
    """

    name: str
    values: np.ndarray
    lo: float
    hi: float
    grid: np.ndarray | None = None
    integer: bool = False
    lattice: Lattice | GridLattice | None = None

    kind = "numeric"

    @property
    def split_lattice(self) -> Lattice | GridLattice:
        if self.lattice is not None:
            return self.lattice
        return Lattice.for_bounds(self.lo, self.hi, INTEGER if self.integer else CONTINUOUS)


@dataclass(frozen=True)
class DiffGenInput:
    """Coded records: one array per attribute (aligned), the class codes ``y`` in 0..len(classes)-1.

    ``weights``: None (one row per record), or how many records each row stands for (whole numbers >= 1),
    as the data engines (``dpstudio.io.engines``) hand over their group-by aggregates: rows are then the
    distinct coded records. Every count the algorithms take is the same either way.
    """

    attributes: tuple
    class_name: str
    classes: tuple
    y: np.ndarray
    info: dict = field(default_factory=dict)
    weights: np.ndarray | None = None

    @property
    def n_records(self) -> int:
        """Rows of the coded arrays (distinct records when ``weights`` is given; 0 iff no record)."""
        return int(self.y.size)

    def validate(self) -> DiffGenInput:
        n = self.y.size
        if len(self.classes) < 2:
            raise ValueError(f"the class attribute {self.class_name!r} needs at least two values")
        if n and (self.y.min() < 0 or self.y.max() >= len(self.classes)):
            raise ValueError("class codes out of range")
        if self.weights is not None:
            w = self.weights
            if w.shape != (n,) or w.dtype.kind not in "iu" or (n and w.min() < 1):
                raise ValueError("record weights must be one whole number >= 1 per row")
        names = [a.name for a in self.attributes]
        if len(set(names)) != len(names):
            raise ValueError(f"attribute names repeat: {names}")
        for a in self.attributes:
            if isinstance(a, CategoricalAttribute):
                if a.leaf_ids.shape != (n,):
                    raise ValueError(f"attribute {a.name!r}: {a.leaf_ids.shape[0]} codes for {n} records")
                is_leaf = np.array([not c for c in a.taxonomy.children], dtype=bool)
                if n and (a.leaf_ids.min() < 0 or a.leaf_ids.max() >= len(is_leaf) or not is_leaf[a.leaf_ids].all()):
                    raise ValueError(f"attribute {a.name!r}: codes that are not taxonomy leaves")
            elif isinstance(a, NumericAttribute):
                if a.values.shape != (n,):
                    raise ValueError(f"attribute {a.name!r}: {a.values.shape[0]} values for {n} records")
                if not (np.isfinite(a.lo) and np.isfinite(a.hi) and a.lo < a.hi):
                    raise ValueError(f"attribute {a.name!r}: bounds must be finite with lo < hi")
                if a.lattice is not None and (a.lattice.lo, a.lattice.hi) != (a.lo, a.hi):
                    raise ValueError(f"attribute {a.name!r}: its lattice has other bounds than the attribute")
                if a.lattice is not None and a.integer != (a.lattice.kind == INTEGER):
                    raise ValueError(f"attribute {a.name!r}: integer={a.integer} but its lattice is {a.lattice.kind}")
                if n and (np.isnan(a.values).any() or a.values.min() < a.lo or a.values.max() > a.hi):
                    raise ValueError(f"attribute {a.name!r}: values outside the public bounds [{a.lo:g}, {a.hi:g}]")
            else:
                raise TypeError(f"unknown attribute type {type(a).__name__}")
        return self
