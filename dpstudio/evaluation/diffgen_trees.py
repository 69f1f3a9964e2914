"""Bridges from the DiffGen engine's input and result to the range-query geometry.

- ``domain_of(data)``: the public geometry (taxonomies, numeric bounds) of a ``DiffGenInput``.
- ``leaf_cells(result, domain)``: the released leaf partitions as cell extents (``Domain.cells``), in the
  order of ``result.counts``' rows.
- ``true_tree(data, result, domain)``: the same partition tree with TRUE node x class counts counted from
  the records: evaluation with simulation noise only (never shown in a release).
"""

from __future__ import annotations

import numpy as np

from ..algorithms.diffgen_input import CategoricalAttribute, DiffGenInput
from ..core.range_queries import CategoricalAxis, Domain, NumericAxis
from .range_error import PartitionTree, count_records


def domain_of(data: DiffGenInput) -> Domain:
    axes: list[CategoricalAxis | NumericAxis] = []
    for attr in data.attributes:
        if isinstance(attr, CategoricalAttribute):
            axes.append(CategoricalAxis(attr.taxonomy, attr.name))
        else:
            axes.append(NumericAxis(attr.lo, attr.hi, name=attr.name))
    return Domain(axes)


def node_cells(result, domain: Domain, nodes) -> tuple:
    """Extents of the given partition-tree nodes (taxonomy node ids / intervals) per attribute."""
    nodes = np.asarray(nodes, dtype=np.int64)
    values = result.tree.values[nodes]
    out = []
    for a, (name, ax) in enumerate(zip(result.attributes, domain.axes)):
        if ax.is_numeric:
            iv = np.asarray([(lo, hi) for lo, hi, _ in result.intervals[name]], dtype=float)
            out.append(iv[values[:, a]])
        else:
            out.append(values[:, a].astype(np.int64))
    return tuple(out)


def leaf_cells(result, domain: Domain) -> tuple:
    return node_cells(result, domain, result.leaf_nodes)


def true_tree(data: DiffGenInput, result, domain: Domain) -> PartitionTree:
    """The run's partition tree with true counts (evaluation only; see ``range_error``)."""
    records = [
        a.leaf_ids if isinstance(a, CategoricalAttribute) else np.asarray(a.values, dtype=float)
        for a in data.attributes
    ]
    n = result.tree.parents.size
    tree = count_records(
        domain,
        result.tree.parents,
        node_cells(result, domain, np.arange(n)),
        records,
        np.asarray(data.y),
        len(data.classes),
    )
    if not np.array_equal(tree.leaves, np.sort(result.leaf_nodes)):
        raise ValueError("the result's leaves are not the leaves of its tree")
    return tree


def node_workload(result, domain: Domain, n: int, rng: np.random.Generator, class_probability: float = 0.5):
    """Tree-aligned queries: ``n`` random partitions of the DiffGen tree, each as a box.

    A depth is drawn uniformly, then a node at that depth (so large and small partitions both appear).
    These are the queries seed 000's consistency targets: each is exactly one node of the tree.
    """
    from ..core.range_queries import ALL_CLASSES, Workload

    depth = np.asarray(result.tree.depth)
    levels = [np.flatnonzero(depth == d) for d in range(int(depth.max()) + 1)]
    nodes = np.array([rng.choice(levels[d]) for d in rng.integers(0, len(levels), size=n)], dtype=np.int64)
    classes = np.full(n, ALL_CLASSES, dtype=np.int64)
    pick = rng.random(n) < class_probability
    classes[pick] = rng.integers(0, len(result.classes), size=int(pick.sum()))
    return Workload(node_cells(result, domain, nodes), classes)
