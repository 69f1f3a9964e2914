"""Focus and context for the Watch tree: which nodes are drawn, which subtrees fold into one glyph.

A tree of tens of thousands of nodes drawn in full is a grey slab. The view draws the first levels (as
many as fit in ``MAX_SHOWN`` nodes), the path to the selected node, the partitions the last step made
(with their ancestors) and the children of every node the user expanded; every drawn node whose children
are not all drawn is a *glyph* standing for its hidden subtree, labelled with the number of partitions
(leaves) under it and their released total ("2,048 partitions, total 9,120").

The totals use only released, consistent or noisy numbers (``icicle_layout.released_value``), never a true
count, so a glyph says the same in release mode as any other label there.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from dpstudio.model.icicle_layout import node_depths, node_values

#: the first levels are drawn while they hold at most this many nodes
MAX_SHOWN = 400


@dataclass
class Focus:
    """Aligned with the state's creation order: ``shown`` nodes are drawn, ``glyph`` marks the drawn nodes
    with hidden children; ``leaves[i]`` and ``total[i]`` describe node i's whole subtree."""

    shown: np.ndarray
    glyph: np.ndarray
    depth_limit: int
    leaves: np.ndarray
    total: np.ndarray
    known: np.ndarray  # leaves under the node with a released number (0: no total to state yet)

    def label(self, i: int) -> str:
        return glyph_text(int(self.leaves[i]), float(self.total[i]) if self.known[i] else None)


def glyph_text(partitions: int, total: float | None) -> str:
    """The glyph's words: the hidden partitions and, once they have released numbers, their total."""
    text = f"+ {partitions:,} partition{'s' if partitions != 1 else ''}"
    return text + (f", total {total:,.0f}" if total is not None else "")


def depth_limit(depth: np.ndarray, max_shown: int = MAX_SHOWN) -> int:
    """The deepest level d with at most ``max_shown`` nodes at depths 0..d (at least 1)."""
    if depth.size == 0:
        return 0
    cum = np.cumsum(np.bincount(depth))
    ok = np.flatnonzero(cum <= max_shown)
    return max(int(ok[-1]) if ok.size else 0, 1)


def focus(state, selected: int | None = None, expanded=(), max_shown: int = MAX_SHOWN) -> Focus:
    """The nodes to draw for a ``TreeState`` (see the module doc). ``selected``, ``expanded``: node ids."""
    ids, par = state.parents_array()
    n = ids.size
    depth = node_depths(par)
    limit = depth_limit(depth, max_shown)
    shown = depth <= limit
    keep = np.zeros(n, dtype=bool)  # nodes shown with all their ancestors
    index = state.index
    targets = [index[i] for i in ([selected] if selected is not None else []) if i in index]
    last = state.order[-1] if state.order else None
    if last is not None and state.winner is not None:  # the partitions of the last split
        lp = state.nodes[last].parent
        targets += [k for k in np.flatnonzero(par == index.get(lp, -2)).tolist()]
    for k in targets:
        while k >= 0 and not keep[k]:
            keep[k] = True
            k = int(par[k])
    shown |= keep
    exp = np.zeros(n, dtype=bool)
    for i in expanded:
        if i in index:
            exp[index[i]] = True
    if exp.any():
        for d in range(limit + 1, int(depth.max()) + 1):
            rows = np.flatnonzero(depth == d)
            p = par[rows]
            ok = p >= 0
            rows, p = rows[ok], p[ok]
            shown[rows] |= shown[p] & exp[p]
    has_child = np.zeros(n, dtype=bool)
    hidden_child = np.zeros(n, dtype=bool)
    nonroot = np.flatnonzero(par >= 0)
    has_child[par[nonroot]] = True
    hidden_child[par[nonroot[~shown[nonroot]]]] = True
    glyph = shown & hidden_child
    # every subtree's leaves and released total, bottom-up
    leaves = (~has_child).astype(np.int64)
    values, known_value = node_values(state, ids)
    total = np.where(has_child, 0.0, values)
    known = (known_value & ~has_child).astype(np.int64)
    for d in range(int(depth.max()) if n else 0, 0, -1):
        rows = np.flatnonzero(depth == d)
        p = par[rows]
        ok = p >= 0
        for arr in (leaves, total, known):
            np.add.at(arr, p[ok], arr[rows[ok]])
    return Focus(shown, glyph, limit, leaves, total, known)
