"""Full-domain generalization levels of a taxonomy (SYNTACTIC.md K1), for the syntactic anonymization family.

A ``LevelHierarchy`` turns a taxonomy of height H into the chain of domains D_0 < D_1 < ... < D_H: level 0
holds the leaves, level l replaces each leaf by its ancestor at depth H - l (a leaf shallower than that keeps
itself, as ARX pads shallow leaves by repeating their label), level H is the root. Values are coded
0..size(l)-1 per level; ``up[l]`` maps level l-1 codes to level l codes and ``gen[l]`` level 0 codes to level l.
For the balanced ARX hierarchy CSVs these levels are exactly ARX's columns. Everything here is public (the
taxonomy is a declared input); nothing reads the data.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .taxonomy import Taxonomy


@dataclass(frozen=True)
class LevelHierarchy:
    """Coded generalization levels of one attribute. ``labels[l][c]``: the label of code c at level l;
    ``gen[l]``: level-0 code -> level-l code (int64); ``up[l]`` (l >= 1): level l-1 code -> level l code;
    ``leaves_under[l][c]``: how many leaves code c of level l covers (for the loss metric)."""

    attribute: str
    labels: tuple[tuple[str, ...], ...]
    gen: tuple[np.ndarray, ...]
    up: tuple[np.ndarray, ...]
    leaves_under: tuple[np.ndarray, ...]

    @property
    def height(self) -> int:
        return len(self.labels) - 1

    def size(self, level: int) -> int:
        return len(self.labels[level])

    @classmethod
    def from_taxonomy(cls, tax: Taxonomy) -> LevelHierarchy:
        leaves = tax.leaf_order
        height = tax.height
        labels, gen, nodes_of = [], [], []
        for level in range(height + 1):
            anc = tax.ancestor_at_depth(leaves, height - level)
            nodes, codes = np.unique(anc, return_inverse=True)  # preorder ids: codes follow the tree order
            labels.append(tuple(tax.labels[int(i)] for i in nodes))
            gen.append(codes.astype(np.int64))
            nodes_of.append(nodes)
        up = [np.zeros(0, dtype=np.int64)]
        for level in range(1, height + 1):
            m = np.zeros(len(labels[level - 1]), dtype=np.int64)
            m[gen[level - 1]] = gen[level]
            up.append(m)
        under = tuple(np.bincount(g, minlength=len(lab)) for g, lab in zip(gen, labels))
        return cls(tax.attribute, tuple(labels), tuple(gen), tuple(up), under)

    def leaf_codes(self, tax: Taxonomy, values) -> np.ndarray:
        """Level-0 codes of ``values`` (every value must be covered: TaxonomyError otherwise)."""
        leaf_ids = tax.map_values_strict(values)
        return tax.leaf_rank[leaf_ids].astype(np.int64)


def lattice_size(heights) -> int:
    """Number of full-domain nodes: the product of (h_i + 1)."""
    out = 1
    for h in heights:
        out *= int(h) + 1
    return out


def strategy_count(heights) -> int:
    """Number of generalization strategies (maximal chains bottom to top): (sum h)! / prod(h_i!) (K1, with
    the seed's denominator read as the product of all factorials)."""
    from math import factorial

    out = factorial(sum(int(h) for h in heights))
    for h in heights:
        out //= factorial(int(h))
    return out
