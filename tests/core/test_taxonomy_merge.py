"""Merging an imported categorical tree into one made here: the hand-made nodes stay where they are, the
file's missing values and groups are added under the node matching their imported parent, nothing twice."""

from __future__ import annotations

import numpy as np

from dpstudio.core.taxonomy import Node, Taxonomy
from dpstudio.core.taxonomy_merge import merge_trees


def tree(spec) -> Node:
    label, kids = spec
    return Node(label, [tree(k) for k in kids])


def parents(tax: Taxonomy) -> dict[str, str]:
    return {tax.labels[i]: tax.labels[tax.parents[i]] for i in range(1, len(tax))}


def test_the_worked_example():
    mine = Taxonomy(tree(("*", [("Asia", [("CN", []), ("JP", [])]), ("other", [])])), "c")
    theirs = Taxonomy(
        tree(("Any", [("Asia", [("CN", []), ("IN", [])]), ("Europe", [("FR", []), ("DE", [])]), ("other", [])])), "c"
    )
    merged = merge_trees(mine, theirs)
    got = parents(Taxonomy(merged.root, "c"))
    assert got == {
        "Asia": "*",
        "CN": "Asia",
        "JP": "Asia",
        "IN": "Asia",
        "other": "*",
        "Europe": "*",
        "FR": "Europe",
        "DE": "Europe",
    }
    assert set(merged.added_leaves) == {"IN", "FR", "DE"} and merged.added_groups == ("Europe",)


def test_a_leaf_of_mine_stays_a_leaf_and_nothing_is_added_twice():
    # "CN" is a leaf here and a group there; its children are new values, added under the matching parent
    mine = Taxonomy(tree(("*", [("CN", []), ("JP", [])])), "c")
    theirs = Taxonomy(tree(("*", [("CN", [("Beijing", []), ("JP", [])])])), "c")
    merged = merge_trees(mine, theirs)
    tax = Taxonomy(merged.root, "c")
    assert sorted(tax.labels[i] for i in tax.leaves) == ["CN", "JP"]
    assert merged.added_leaves == ()


def test_random_trees_keep_every_node_of_mine_and_cover_every_value_of_both():
    rng = np.random.default_rng(1)
    values = [f"v{i}" for i in range(30)]
    for _ in range(50):
        trees = []
        for _side in range(2):
            chosen = list(rng.choice(values, size=int(rng.integers(3, 20)), replace=False))
            groups = [Node(f"g{j}") for j in range(int(rng.integers(1, 4)))]
            for v in chosen:
                groups[int(rng.integers(len(groups)))].add(Node(str(v)))
            trees.append(Taxonomy(Node("*", [g for g in groups if g.children]), "c"))
        mine, theirs = trees
        merged = Taxonomy(merge_trees(mine, theirs).root, "c")
        leaves = {merged.labels[i] for i in merged.leaves}
        assert leaves == {mine.labels[i] for i in mine.leaves} | {theirs.labels[i] for i in theirs.leaves}
        kept = parents(mine)
        assert all(parents(merged)[k] == v for k, v in kept.items())
        assert len(merged.leaves) == len(leaves)  # no duplicate leaf
