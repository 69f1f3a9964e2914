"""Minimal cover of a set of leaves by tree nodes (seed 000 section 2: answering from the raw noisy tree).

A query asks for the total count of a set of leaves. Without consistency, the best answer from a tree of
independently noised node counts uses the fewest nodes whose leaf sets exactly partition the selected
leaves: a node is in the cover iff all leaves under it are selected and not all leaves under its parent
are. Fewer nodes means fewer independent noise terms, so a smaller variance.

Post-processing of released noisy counts: costs no budget.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from .consistency import TreeLevels


def _selected_leaves(lv: TreeLevels, leaf_mask) -> np.ndarray:
    mask = np.asarray(leaf_mask)
    n = lv.size
    if mask.dtype != bool:
        ids = mask.astype(np.int64).ravel()
        if np.any((ids < 0) | (ids >= n)):
            raise ValueError("a selected node id is out of range")
        mask = np.zeros(n, dtype=bool)
        mask[ids] = True
    elif mask.shape != (n,):
        raise ValueError(f"leaf_mask must have one entry per node ({n}), got shape {mask.shape}")
    if np.any(mask & ~lv.is_leaf):
        raise ValueError("leaf_mask selects an internal node: select leaves only")
    return mask


def minimal_cover(parents, leaf_mask, usable=None, levels: TreeLevels | None = None) -> np.ndarray:
    """Sorted ids of the fewest nodes whose leaf sets exactly partition the selected leaves.

    ``leaf_mask``: a boolean array with one entry per node (True at the selected leaves, False at internal
    nodes) or an array of selected leaf ids. ``usable`` (optional boolean per node, e.g. ``variances <
    inf``): only these nodes may be used; the cover is then the topmost usable nodes whose leaves are all
    selected, and a ValueError is raised if some selected leaf is under no usable such node.
    An empty selection has an empty cover.
    """
    lv = levels if levels is not None else TreeLevels(parents)
    mask = _selected_leaves(lv, leaf_mask)
    full = lv.subtree_sum(mask.astype(float)) == lv.leaf_count
    par = lv.parents
    if usable is None:
        # "full" is inherited downwards, so the topmost full nodes are those whose parent is not full.
        parent_full = np.zeros(lv.size, dtype=bool)
        nonroot = par >= 0
        parent_full[nonroot] = full[par[nonroot]]
        return np.flatnonzero(full & ~parent_full)
    good = full & np.asarray(usable, dtype=bool).ravel()
    if good.shape != (lv.size,):
        raise ValueError("usable must have one entry per node")
    # Top-down, level by level: is some proper ancestor already in the cover?
    g = good[lv.order]
    taken = np.zeros(lv.size, dtype=bool)
    pp = lv.parent_pos
    ptr = lv.level_ptr
    for d in range(1, len(ptr) - 1):
        a, b = int(ptr[d]), int(ptr[d + 1])
        p = pp[a:b]
        taken[a:b] = taken[p] | g[p]
    in_cover = np.zeros(lv.size, dtype=bool)
    in_cover[lv.order] = g & ~taken
    cover = np.flatnonzero(in_cover)
    if lv.leaf_count[cover].sum() != mask.sum():
        raise ValueError("some selected leaves lie under no usable node: the query cannot be answered")
    return cover


class CoverAnswer(NamedTuple):
    """A set-of-leaves query answered from raw noisy node counts."""

    estimate: float | np.ndarray  # a number, or one per class for nodes x classes counts
    variance: float  # sum of the cover nodes' noise variances (independent noise)
    nodes: np.ndarray  # the cover


def cover_answer(parents, noisy, variances, leaf_mask, levels: TreeLevels | None = None) -> CoverAnswer:
    """Answer "total count of the selected leaves" as the sum of the noisy counts of the minimal cover.

    Only noised nodes (finite variance) are used. ``noisy`` is (nodes,) or (nodes, classes); ``variances``
    one per node or one for all. The variance is data-independent (it follows from the noise scales), so
    it may be shown in a release report. Post-processing: no budget.
    """
    lv = levels if levels is not None else TreeLevels(parents)
    s2 = np.broadcast_to(np.asarray(variances, dtype=float), (lv.size,))
    y = np.asarray(noisy)
    if y.shape[:1] != (lv.size,):
        raise ValueError(f"noisy must have one row per node ({lv.size}), got shape {y.shape}")
    cover = minimal_cover(parents, leaf_mask, usable=np.isfinite(s2), levels=lv)
    estimate = y[cover].sum(axis=0)
    return CoverAnswer(estimate if y.ndim > 1 else estimate.item(), float(s2[cover].sum()), cover)
