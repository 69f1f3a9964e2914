"""Merging an imported categorical taxonomy into one drawn or edited by hand.

The merge keeps every node of the tree made by hand, where it is, and adds what the imported tree has and
it lacks: each imported subtree whose root label is not in the hand-made tree is copied (without the leaves
the hand-made tree already holds) under the node that matches its imported parent. A node matches by label;
the imported root matches the hand-made root whatever their labels; an imported interior node whose label
is a leaf of the hand-made tree adds nothing below it (the leaf stays a leaf). Both trees are public inputs,
so the merged tree is one too; nothing here reads the data.

Numeric trees are not merged: their children must partition their parent, which two independent
partitions of the same range do not do together.
"""

from __future__ import annotations

from dataclasses import dataclass

from dpstudio.core.taxonomy import Node, Taxonomy, TaxonomyError, check_tree


@dataclass(frozen=True)
class Merged:
    """The merged tree, the labels (leaves and interior nodes) it gained from the imported one, and the
    leaves both trees hold under different parents (label, parent here, parent in the file): kept here."""

    root: Node
    added_leaves: tuple[str, ...]
    added_groups: tuple[str, ...]
    kept_elsewhere: tuple[tuple[str, str, str], ...] = ()


def _labels(root: Node) -> tuple[dict[str, Node], set[str]]:
    """First interior node of each label (preorder) and the set of leaf labels."""
    interior: dict[str, Node] = {}
    leaves: set[str] = set()
    stack = [root]
    while stack:
        n = stack.pop()
        if n.children:
            interior.setdefault(n.label, n)
        else:
            leaves.add(n.label)
        stack.extend(reversed(n.children))
    return interior, leaves


def _pruned_copy(node: Node, present: set[str]) -> Node | None:
    """A copy of ``node``'s subtree without the leaves in ``present``; None when nothing is left."""
    if not node.children:
        return None if node.label in present else Node(node.label)
    kids = [c for c in (_pruned_copy(k, present) for k in node.children) if c is not None]
    return Node(node.label, kids) if kids else None


def merge_trees(mine: Taxonomy, theirs: Taxonomy) -> Merged:
    """``mine`` (made here) with what ``theirs`` (imported) adds; see the module docstring.
    TaxonomyError for a numeric tree."""
    if mine.is_numeric or theirs.is_numeric:
        raise TaxonomyError("numeric taxonomies cannot be merged (their intervals must partition each parent)")
    root = mine.to_node()
    interior, leaves = _labels(root)
    present = leaves | set(interior)
    added_leaves: list[str] = []
    added_groups: list[str] = []

    def record(n: Node) -> None:
        (added_groups if n.children else added_leaves).append(n.label)
        for c in n.children:
            record(c)

    their_root = theirs.to_node()
    stack = [(their_root, root)]
    while stack:
        t, m = stack.pop()
        for c in t.children:
            if c.label in interior:
                if c.children:
                    stack.append((c, interior[c.label]))
                continue
            if c.label in leaves:
                continue
            copy = _pruned_copy(c, present)
            if copy is not None:
                m.children.append(copy)
                record(copy)
                sub_interior, sub_leaves = _labels(copy)
                present |= sub_leaves | set(sub_interior)
                leaves |= sub_leaves
                for label, node in sub_interior.items():
                    interior.setdefault(label, node)
    check_tree(root)
    return Merged(root, tuple(added_leaves), tuple(added_groups), _moved(mine, theirs))


def _moved(mine: Taxonomy, theirs: Taxonomy) -> tuple[tuple[str, str, str], ...]:
    """Leaves of both trees whose parents' labels differ (the merge keeps the one made here)."""

    def parents(t: Taxonomy) -> dict[str, str]:
        return {t.labels[i]: t.labels[int(t.parents[i])] for i in t.leaves if int(t.parents[i]) >= 0}

    here, there = parents(mine), parents(theirs)
    return tuple((leaf, here[leaf], there[leaf]) for leaf in here if leaf in there and here[leaf] != there[leaf])


__all__ = ["Merged", "merge_trees"]
