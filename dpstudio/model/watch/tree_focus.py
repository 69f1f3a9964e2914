"""Focus and context for the Watch tree: which nodes are drawn, which subtrees fold into one glyph.

A tree of tens of thousands of nodes drawn in full is a grey slab. The view draws the first levels (as
many as fit in ``MAX_SHOWN`` nodes), the path to the selected node, the partitions the last step made
(with their ancestors) and the children of every node the user expanded; every drawn node whose children
are not all drawn is a *glyph* standing for its hidden subtree, labelled with the number of partitions
(leaves) under it and their released total ("2,048 partitions, total 9,120").

A wide family (an interval tree's root over 74 bins, a flat histogram over thousands) would still draw
every child side by side: when more than ``MAX_SIBLINGS`` children of one node are drawn, consecutive
siblings are grouped into at most ``MAX_SIBLINGS`` runs, each drawn as its first member with a ring and
the words "[17,33) / 16 ranges / total 1,234" (the members' released total) in place of its own label. Opening a group (a click)
draws its members, grouped again if they are still too many; the selected node and the last step's
partitions are never hidden in a group.

The totals use only released, consistent or noisy numbers (``icicle_layout.released_value``), never a true
count, so a glyph says the same in release mode as any other label there.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from dpstudio.model.watch.icicle_layout import node_values

#: the first levels are drawn while they hold at most this many nodes
MAX_SHOWN = 400
#: at most this many children of one node are drawn side by side; more are grouped into runs
MAX_SIBLINGS = 8


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
    # sibling groups: at a group's first member (its "head"), the members in the group and the position of
    # the last one; 0 and -1 elsewhere. ``group_total`` / ``group_known``: the members' released total
    group_size: np.ndarray
    group_last: np.ndarray
    group_total: np.ndarray
    group_known: np.ndarray

    @property
    def ringed(self) -> np.ndarray:
        """Drawn nodes that stand for more than themselves: glyphs and group heads."""
        return self.glyph | (self.group_size > 1)

    def is_group(self, i: int) -> bool:
        return bool(self.group_size[i] > 1)

    def label(self, i: int, first_label: str = "", last_label: str = "", ranges: bool = False) -> str:
        """The words of a glyph or a group head (the group's first and last members' labels)."""
        if self.is_group(i):
            total = float(self.group_total[i]) if self.group_known[i] else None
            return group_text(int(self.group_size[i]), first_label, last_label, total, ranges)
        return glyph_text(int(self.leaves[i]), float(self.total[i]) if self.known[i] else None)


def glyph_text(partitions: int, total: float | None) -> str:
    """The glyph's words: the hidden partitions and, once they have released numbers, their total."""
    text = f"+ {partitions:,} partition{'s' if partitions != 1 else ''}"
    return text + (f", total {total:,.0f}" if total is not None else "")


def group_text(members: int, first_label: str, last_label: str, total: float | None, ranges: bool = False) -> str:
    """A sibling group's words, one short line each (they sit side by side): which siblings ("[17,24)" for
    consecutive intervals, else "A .. B"), how many, and their released total."""
    a, b = first_label.strip(), last_label.strip()
    if ranges and a[:1] in "[(" and "," in a and "," in b and b[-1:] in ")]":
        span = f"{a.split(',')[0]},{b.split(',', 1)[1].strip()}"
    else:
        span = f"{a} .. {b}"
    text = f"{span}\n{members:,} {'ranges' if ranges else 'partitions'}"
    return text + (f"\ntotal {total:,.0f}" if total is not None else "")


def depth_limit(depth: np.ndarray, max_shown: int = MAX_SHOWN) -> int:
    """The deepest level d with at most ``max_shown`` nodes at depths 0..d (at least 1)."""
    if depth.size == 0:
        return 0
    cum = np.cumsum(np.bincount(depth))
    ok = np.flatnonzero(cum <= max_shown)
    return max(int(ok[-1]) if ok.size else 0, 1)


def focus(
    state,
    selected: int | None = None,
    expanded=(),
    max_shown: int = MAX_SHOWN,
    opened=(),
    max_siblings: int = MAX_SIBLINGS,
) -> Focus:
    """The nodes to draw for a ``TreeState`` (see the module doc). ``selected``, ``expanded``: node ids;
    ``opened``: the sibling groups opened, as (head node id, members) pairs."""
    ids, par = state.parents_array()
    n = ids.size
    depth = state.depths()
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
    group_size = np.zeros(n, dtype=np.int64)
    group_last = np.full(n, -1, dtype=np.int64)
    grouped = _group_siblings(ids, par, depth, shown, keep, set(opened), max_siblings, group_size, group_last)
    has_child = np.zeros(n, dtype=bool)
    hidden_child = np.zeros(n, dtype=bool)
    nonroot = np.flatnonzero(par >= 0)
    has_child[par[nonroot]] = True
    hidden_child[par[nonroot[~shown[nonroot] & ~grouped[nonroot]]]] = True  # a group's members have a ring
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
    group_total = np.zeros(n)
    group_known = np.zeros(n, dtype=np.int64)
    for head in np.flatnonzero(group_size > 1).tolist():
        members = _members(par, head, int(group_last[head]))
        group_total[head] = total[members].sum()
        group_known[head] = known[members].sum()
    return Focus(shown, glyph, limit, leaves, total, known, group_size, group_last, group_total, group_known)


def _members(par: np.ndarray, head: int, last: int) -> np.ndarray:
    """Positions of the siblings from ``head`` to ``last`` (creation order)."""
    kids = np.flatnonzero(par == par[head])
    return kids[(kids >= head) & (kids <= last)]


def _group_siblings(ids, par, depth, shown, keep, opened, max_siblings, group_size, group_last) -> np.ndarray:
    """Fold runs of consecutive drawn siblings into groups (in place; see the module doc), then hide what
    lies under a hidden node. Returns the members hidden in a group."""
    grouped = np.zeros(par.size, dtype=bool)
    nonroot = np.flatnonzero((par >= 0) & shown)
    if nonroot.size == 0:
        return grouped
    counts = np.bincount(par[nonroot], minlength=par.size)
    wide = np.flatnonzero(counts > max_siblings)
    if wide.size == 0:
        return grouped

    def fold(kids: np.ndarray) -> None:
        if kids.size <= max_siblings:
            return
        size = -(-kids.size // max_siblings)
        for g in range(0, kids.size, size):
            members = kids[g : g + size]
            if members.size == 1:
                continue
            head = int(members[0])
            if (int(ids[head]), int(members.size)) in opened:
                fold(members)
                continue
            group_size[head] = members.size
            group_last[head] = members[-1]
            rest = members[1:]
            rest = rest[~keep[rest]]
            shown[rest] = False
            grouped[rest] = True

    for p in wide.tolist():
        fold(nonroot[par[nonroot] == p])
    for d in range(1, int(depth.max()) + 1):  # under a hidden node nothing is drawn
        rows = np.flatnonzero((depth == d) & shown)
        shown[rows] &= shown[par[rows]]
    return grouped
