"""Taxonomy trees: the public generalization hierarchy of one attribute.

A taxonomy is public input (never derived silently from the private data). Categorical: the leaves are the
attribute's values and internal nodes generalize them (root usually "*" or "Any"). Numeric: every node is a
half-open interval [lo, hi); the root holds the public bounds and children partition their parent.

Nodes are stored in preorder (root = 0) in flat arrays so that mapping and tree walks vectorise.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Iterable, Sequence

import numpy as np

CATEGORICAL = "categorical"
NUMERIC = "numeric"


class TaxonomyError(ValueError):
    """A taxonomy (or a file holding one) is invalid; the message names file, line and problem."""

    def __init__(self, problem: str, source: str | None = None, line: int | None = None):
        self.problem = problem
        self.source = source
        self.line = line
        where = ""
        if source is not None:
            where = f"{source}"
            if line is not None:
                where += f", line {line}"
            where += ": "
        elif line is not None:
            where = f"line {line}: "
        super().__init__(where + problem)


@dataclass
class Node:
    """A mutable node used to build trees (parsers, generators, the GUI's editor)."""

    label: str
    children: list["Node"] = field(default_factory=list)
    lo: float | None = None
    hi: float | None = None

    def add(self, child: "Node") -> "Node":
        self.children.append(child)
        return child


def interval_label(lo: float, hi: float) -> str:
    """The canonical label of the interval [lo, hi): integers print without a decimal point."""

    def fmt(x: float) -> str:
        return str(int(x)) if float(x).is_integer() else f"{x:g}"

    return f"[{fmt(lo)},{fmt(hi)})"


class Taxonomy:
    """An immutable taxonomy tree over one attribute, flattened in preorder.

    Attributes: ``labels[i]``, ``parents[i]`` (-1 for the root), ``depth[i]``, ``children[i]`` (list of
    node ids in order), ``lo``/``hi`` (float arrays, numeric only), ``kind`` and ``attribute``.
    """

    def __init__(self, root: Node, attribute: str = "", kind: str | None = None):
        labels: list[str] = []
        parents: list[int] = []
        depth: list[int] = []
        lo: list[float] = []
        hi: list[float] = []
        children: list[list[int]] = []
        stack: list[tuple[Node, int, int]] = [(root, -1, 0)]
        while stack:
            node, parent, d = stack.pop()
            idx = len(labels)
            labels.append(str(node.label))
            parents.append(parent)
            depth.append(d)
            lo.append(np.nan if node.lo is None else float(node.lo))
            hi.append(np.nan if node.hi is None else float(node.hi))
            children.append([])
            if parent >= 0:
                children[parent].append(idx)
            for child in reversed(node.children):
                stack.append((child, idx, d + 1))
        self.attribute = attribute
        self.labels = labels
        self.parents = np.asarray(parents, dtype=np.int64)
        self.depth = np.asarray(depth, dtype=np.int64)
        self.children = children
        self.lo = np.asarray(lo, dtype=float)
        self.hi = np.asarray(hi, dtype=float)
        if kind is None:
            kind = NUMERIC if not np.isnan(self.lo).any() and not np.isnan(self.hi).any() else CATEGORICAL
        self.kind = kind
        self._index: dict[str, int] | None = None

    # -- structure -------------------------------------------------------------------------------
    def __len__(self) -> int:
        return len(self.labels)

    @property
    def is_numeric(self) -> bool:
        return self.kind == NUMERIC

    @property
    def root(self) -> int:
        return 0

    @property
    def height(self) -> int:
        return int(self.depth.max())

    def is_leaf(self, i: int) -> bool:
        return not self.children[i]

    @property
    def leaves(self) -> list[int]:
        """Leaf node ids, left to right."""
        return [i for i in range(len(self)) if not self.children[i]]

    def leaves_under(self, i: int) -> list[int]:
        out, stack = [], [i]
        while stack:
            j = stack.pop()
            if self.children[j]:
                stack.extend(reversed(self.children[j]))
            else:
                out.append(j)
        return out

    def path(self, i: int) -> list[int]:
        """Node ids from the root down to ``i``."""
        out = []
        while i >= 0:
            out.append(i)
            i = int(self.parents[i])
        return out[::-1]

    def index(self, label: str) -> int:
        """The node id of ``label``; leaf labels win over internal ones if a label repeats."""
        if self._index is None:
            idx: dict[str, int] = {}
            for i, lab in enumerate(self.labels):
                if lab not in idx or not self.children[i]:
                    idx[lab] = i
            self._index = idx
        try:
            return self._index[label]
        except KeyError:
            raise KeyError(f"{label!r} is not a node of the taxonomy of {self.attribute or 'this attribute'}") from None

    def to_node(self, i: int = 0) -> Node:
        """Back to a mutable ``Node`` tree (for editing or writing)."""
        nodes = [
            Node(self.labels[j], [], None if np.isnan(self.lo[j]) else float(self.lo[j]),
                 None if np.isnan(self.hi[j]) else float(self.hi[j]))
            for j in range(len(self))
        ]
        for j in range(len(self)):
            for c in self.children[j]:
                nodes[j].children.append(nodes[c])
        return nodes[i]

    def __eq__(self, other) -> bool:
        if not isinstance(other, Taxonomy):
            return NotImplemented
        return (
            self.labels == other.labels
            and np.array_equal(self.parents, other.parents)
            and np.array_equal(self.lo, other.lo, equal_nan=True)
            and np.array_equal(self.hi, other.hi, equal_nan=True)
        )

    def __repr__(self) -> str:
        return f"Taxonomy({self.attribute!r}, {self.kind}, {len(self)} nodes, {len(self.leaves)} leaves)"

    @classmethod
    def from_parents(cls, labels: Sequence[str], parents: Iterable[int], attribute: str = "",
                     lo: Sequence[float] | None = None, hi: Sequence[float] | None = None) -> "Taxonomy":
        """Build from parallel lists (any order; exactly one root with parent -1)."""
        parents = list(parents)
        nodes = [Node(str(lab)) for lab in labels]
        if lo is not None and hi is not None:
            for n, a, b in zip(nodes, lo, hi):
                n.lo, n.hi = float(a), float(b)
        roots = [i for i, p in enumerate(parents) if p < 0]
        if len(roots) != 1:
            raise TaxonomyError(f"a taxonomy needs exactly one root, found {len(roots)}")
        for i, p in enumerate(parents):
            if p >= 0:
                nodes[p].children.append(nodes[i])
        return cls(nodes[roots[0]], attribute)
