"""Taxonomies built from public parameters: equal-width numeric trees and flat categorical trees.

Both take only public inputs (bounds, fan-out, depth, a list of domain values) and never look at data, so
using them costs no privacy budget. Passing values read from the private table to ``flat_categorical``
makes the domain data-derived: the caller must mark it "derived from the data: not private".
"""

from __future__ import annotations

import math
from collections.abc import Iterable

from .taxonomy import NUMERIC, Node, Taxonomy, TaxonomyError, check_tree, interval_label


def numeric_equal_width(
    lo: float, hi: float, fanout: int, depth: int, attribute: str = "", integer: bool = False
) -> Taxonomy:
    """The complete ``fanout``-ary tree of depth ``depth`` over [lo, hi), every level split in equal widths.

    The root is [lo, hi); its leaves are the fanout**depth intervals [lo + k w, lo + (k+1) w) with
    w = (hi - lo) / fanout**depth. All levels use the same leaf edges, so children partition their parent
    exactly even when the widths are not representable in binary. ``depth=0`` gives the root alone.
    ``integer=True`` rounds the inner edges to whole numbers (integer attributes such as age: [17,26) rather
    than [17,26.25)); widths then differ by at most one.
    """
    lo, hi = float(lo), float(hi)
    if not (math.isfinite(lo) and math.isfinite(hi)) or not lo < hi:
        raise TaxonomyError(f"numeric bounds must be finite with lo < hi, got [{lo}, {hi})")
    if int(fanout) != fanout or fanout < 2:
        raise TaxonomyError(f"fan-out must be an integer of at least 2, got {fanout!r}")
    if int(depth) != depth or depth < 0:
        raise TaxonomyError(f"depth must be a non-negative integer, got {depth!r}")
    fanout, depth = int(fanout), int(depth)
    n_leaves = fanout**depth
    if n_leaves > 2_000_000:
        raise TaxonomyError(f"{fanout}**{depth} = {n_leaves} leaves is too many (limit 2,000,000)")
    edges = [lo + (hi - lo) * k / n_leaves for k in range(n_leaves)] + [hi]
    if integer:
        if not (lo.is_integer() and hi.is_integer()):
            raise TaxonomyError(f"integer edges need whole-number bounds, got [{lo}, {hi})")
        edges = [float(math.floor(e + 0.5)) for e in edges]
    if any(b <= a for a, b in zip(edges, edges[1:])):
        raise TaxonomyError(f"[{lo}, {hi}) is too narrow for {n_leaves} distinct leaves")

    def build(level: int, j: int) -> Node:
        span = fanout ** (depth - level)
        a, b = edges[j * span], edges[(j + 1) * span]
        node = Node(interval_label(a, b), lo=a, hi=b)
        if level < depth:
            node.children = [build(level + 1, j * fanout + c) for c in range(fanout)]
        return node

    root = build(0, 0)
    return Taxonomy(root, attribute, kind=NUMERIC)


def flat_categorical(values: Iterable, attribute: str = "", root: str = "*") -> Taxonomy:
    """Root ``root`` with one leaf per distinct value (as text, stripped), in first-seen order."""
    labels: list[str] = []
    seen: set[str] = set()
    for v in values:
        label = str(v).strip()
        if label not in seen:
            seen.add(label)
            labels.append(label)
    if not labels:
        raise TaxonomyError("a flat taxonomy needs at least one value")
    if root in seen:
        raise TaxonomyError(f"the root label {root!r} is also one of the values")
    tree = Node(root, [Node(label) for label in labels])
    check_tree(tree)
    return Taxonomy(tree, attribute)


def grouped_categorical(values: Iterable, attribute: str = "", root: str = "*") -> Taxonomy:
    """Two levels for many values: the distinct values (as text, stripped) sorted, then cut into about
    sqrt(n) groups of consecutive values, each group labelled "first .. last" (a group of one value is that
    value, directly under the root). Three values or fewer stay flat. The grouping follows the values' names
    only: it means nothing, but a DiffGen run can then refine one group at a time instead of multiplying its
    partitions by every value at once (``algorithms.diffgen_size``)."""
    import math

    labels = sorted({str(v).strip() for v in values})
    if len(labels) <= 3:
        return flat_categorical(labels, attribute, root)
    if root in labels:
        raise TaxonomyError(f"the root label {root!r} is also one of the values")
    size = math.ceil(math.sqrt(len(labels)))
    children = []
    for i in range(0, len(labels), size):
        members = labels[i : i + size]
        if len(members) == 1:
            children.append(Node(members[0]))
            continue
        group = f"{members[0]} .. {members[-1]}"
        if group in labels or group == root:
            raise TaxonomyError(f"the group label {group!r} is also one of the values")
        children.append(Node(group, [Node(m) for m in members]))
    tree = Node(root, children)
    check_tree(tree)
    return Taxonomy(tree, attribute)
