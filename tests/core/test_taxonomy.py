"""Taxonomy model: validation, mapping values to leaves, leaf ranges and ancestors."""

import numpy as np
import pytest

from dpstudio.core.taxonomy import (
    CATEGORICAL,
    NUMERIC,
    Node,
    Taxonomy,
    TaxonomyError,
    check_tree,
    interval_label,
    parse_interval,
)


def workclass() -> Taxonomy:
    # seed 002's example tree
    return Taxonomy(
        Node(
            "Any",
            [
                Node(
                    "Worked",
                    [
                        Node(
                            "With-Pay",
                            [
                                Node("Private"),
                                Node("Self-emp", [Node("Self-emp-not-inc"), Node("Self-emp-inc")]),
                                Node("Gov", [Node("Federal-gov"), Node("Local-gov"), Node("State-gov")]),
                            ],
                        ),
                        Node("Without-pay"),
                    ],
                ),
                Node("Never-worked"),
            ],
        ),
        "workclass",
    )


def numeric(edges_by_level) -> Taxonomy:
    """Numeric tree from nested (lo, hi, children) tuples."""

    def build(t):
        lo, hi, kids = t
        return Node(interval_label(lo, hi), [build(k) for k in kids], lo, hi)

    return Taxonomy(build(edges_by_level), "x")


SEED_NUMERIC = (1, 20, [(1, 12, [(1, 5, []), (5, 12, [])]), (12, 20, [(12, 16, []), (16, 20, [])])])


# -- labels and intervals --------------------------------------------------------------------------
def test_interval_label_round_trips_through_parse_interval():
    for lo, hi in [(17, 90), (0.1, 0.30000000000000004), (-5, -1), (1234567.5, 2e6), (1e-7, 3.25)]:
        label = interval_label(lo, hi)
        assert parse_interval(label) == (float(lo), float(hi))
    assert interval_label(17, 90) == "[17,90)"
    assert parse_interval("1-5") == (1.0, 5.0)
    assert parse_interval("-5--1") == (-5.0, -1.0)
    assert parse_interval("1-5", dash=False) is None
    assert parse_interval("Self-emp") is None
    assert parse_interval("[5,5)") is None


# -- validation ------------------------------------------------------------------------------------
def test_check_tree_reports_line_of_duplicate_leaf():
    a1, a2 = Node("x"), Node("x")
    root = Node("*", [Node("A", [a1]), Node("B", [a2])])
    with pytest.raises(TaxonomyError) as e:
        check_tree(root, "t.txt", {id(a1): 3, id(a2): 7})
    assert str(e.value) == "t.txt, line 7: duplicate leaf 'x' (first at line 3)"
    assert e.value.line == 7 and e.value.source == "t.txt"


def test_check_tree_rejects_empty_label():
    with pytest.raises(TaxonomyError, match="empty label"):
        check_tree(Node("*", [Node(" ")]))


def test_gap_and_overlap_between_numeric_children():
    gap = Node("[0,10)", [Node("[0,4)", lo=0, hi=4), Node("[5,10)", lo=5, hi=10)], 0, 10)
    with pytest.raises(TaxonomyError, match=r"gap .* under \[0,10\): \[4,5\) is not covered"):
        check_tree(gap)
    overlap = Node("[0,10)", [Node("[0,6)", lo=0, hi=6), Node("[5,10)", lo=5, hi=10)], 0, 10)
    with pytest.raises(TaxonomyError, match=r"overlap .* \[0,6\) and \[5,10\) share \[5,6\)"):
        check_tree(overlap)
    short = Node("[0,10)", [Node("[0,6)", lo=0, hi=6), Node("[6,9)", lo=6, hi=9)], 0, 10)
    with pytest.raises(TaxonomyError, match=r"gap .* \[9,10\) is not covered \(after the last child"):
        check_tree(short)
    unordered = Node("[0,10)", [Node("[5,10)", lo=5, hi=10), Node("[0,5)", lo=0, hi=5)], 0, 10)
    with pytest.raises(TaxonomyError, match=r"not in ascending order: \[0,5\) comes after \[5,10\)"):
        check_tree(unordered)
    wide = Node("[0,10)", [Node("[0,6)", lo=0, hi=6), Node("[6,11)", lo=6, hi=11)], 0, 10)
    with pytest.raises(TaxonomyError, match=r"ends after its parent"):
        check_tree(wide)


def test_cycle_in_nodes_and_in_parent_links():
    a = Node("a")
    b = Node("b", [a])
    a.children.append(b)
    with pytest.raises(TaxonomyError, match="cycle: 'a' -> 'b' -> 'a'"):
        Taxonomy(Node("*", [a]))
    with pytest.raises(TaxonomyError, match="cycle in the parent links: 'b' -> 'c' -> 'b'"):
        Taxonomy.from_parents(["*", "b", "c"], [-1, 2, 1])
    shared = Node("s")
    with pytest.raises(TaxonomyError, match="'s' appears under two parents"):
        Taxonomy(Node("*", [Node("A", [shared]), Node("B", [shared])]))


def test_validate_accepts_valid_trees():
    assert workclass().validate().kind == CATEGORICAL
    assert numeric(SEED_NUMERIC).validate().kind == NUMERIC


# -- categorical mapping ---------------------------------------------------------------------------
def test_categorical_mapping_and_uncovered_counts():
    t = workclass()
    values = ["Private", " State-gov ", "Never-worked", "Unknown", "Private", "?", "Unknown", None, np.nan]
    m = t.map_values(values)
    expected = [
        t.index("Private"),
        t.index("State-gov"),
        t.index("Never-worked"),
        -1,
        t.index("Private"),
        -1,
        -1,
        -1,
        -1,
    ]
    assert m.leaf_ids.tolist() == expected
    assert m.leaf_ids.dtype == np.int64
    assert dict(m.uncovered) == {"Unknown": 2, "?": 1, None: 2}
    assert m.uncovered[0] in (("Unknown", 2), (None, 2))
    assert m.n_uncovered == 5 == int((m.leaf_ids < 0).sum())
    assert not m.all_covered


def test_mapping_numpy_string_and_number_arrays():
    t = Taxonomy(Node("*", [Node("1"), Node("2"), Node("10"), Node("2.5")]), "n")
    ints = t.map_values(np.array([1, 2, 10, 3, 3]))
    assert ints.leaf_ids.tolist() == [1, 2, 3, -1, -1]
    assert ints.uncovered == (("3", 2),)
    floats = t.map_values(np.array([1.0, 2.5, 10.0, np.nan]))
    assert floats.leaf_ids.tolist() == [1, 4, 3, -1]
    strs = t.map_values(np.array(["1", " 2", "10 "]))
    assert strs.leaf_ids.tolist() == [1, 2, 3]
    assert t.map_values([]).leaf_ids.shape == (0,)


def test_strict_mapping_names_attribute_values_and_rows():
    t = workclass()
    assert t.map_values_strict(["Private"]).tolist() == [t.index("Private")]
    with pytest.raises(TaxonomyError) as e:
        t.map_values_strict(["Private", "Unknown", "Unknown", "?"])
    msg = str(e.value)
    assert "attribute 'workclass'" in msg
    assert "2 values not covered" in msg and "in 3 rows" in msg
    assert "'Unknown' (2 rows)" in msg and "'?' (1 row)" in msg
    assert "Other" in msg


def test_internal_labels_are_not_leaves():
    m = workclass().map_values(["Gov", "With-Pay"])
    assert m.leaf_ids.tolist() == [-1, -1]


def test_random_categorical_mapping_matches_a_dict_lookup():
    rng = np.random.default_rng(1)
    leaves = [f"v{i}" for i in range(30)]
    t = Taxonomy(Node("*", [Node(f"g{g}", [Node(v) for v in leaves[g::3]]) for g in range(3)]))
    pool = np.array(leaves + ["zz", "yy"])
    values = pool[rng.integers(0, len(pool), 5000)]
    m = t.map_values(values)
    index = {t.labels[i]: i for i in t.leaves}
    assert m.leaf_ids.tolist() == [index.get(v, -1) for v in values]
    for v, c in m.uncovered:
        assert c == int((values == v).sum())


# -- numeric mapping -------------------------------------------------------------------------------
def test_numeric_mapping_half_open_and_uncovered():
    t = numeric(SEED_NUMERIC)
    x = np.array([1, 4.999, 5, 11.5, 12, 19.999, 20, 0.5, np.nan, -3])
    m = t.map_values(x)
    names = [t.labels[i] if i >= 0 else None for i in m.leaf_ids]
    assert names == ["[1,5)", "[1,5)", "[5,12)", "[5,12)", "[12,16)", "[16,20)", None, None, None, None]
    assert dict(m.uncovered) == {20.0: 1, 0.5: 1, None: 1, -3.0: 1}


def test_numeric_mapping_of_text_values():
    t = numeric(SEED_NUMERIC)
    m = t.map_values(["3", " 13 ", "?", "20", "abc", "?"])
    assert [t.labels[i] if i >= 0 else None for i in m.leaf_ids] == ["[1,5)", "[12,16)", None, None, None, None]
    assert dict(m.uncovered) == {"?": 2, "20": 1, "abc": 1}


def test_numeric_mapping_agrees_with_a_loop_over_intervals():
    rng = np.random.default_rng(7)
    t = numeric(SEED_NUMERIC)
    x = rng.uniform(-2, 22, 2000)
    m = t.map_values(x)
    for v, got in zip(x, m.leaf_ids):
        want = [i for i in t.leaves if t.lo[i] <= v < t.hi[i]]
        assert got == (want[0] if want else -1)


# -- leaf ranges and ancestors ---------------------------------------------------------------------
def test_leaf_ranges_match_leaves_under():
    t = workclass()
    for i in range(len(t)):
        assert t.leaf_set(i).tolist() == t.leaves_under(i)
        start, stop = t.leaf_range(i)
        assert stop - start == len(t.leaves_under(i))
    assert t.leaf_rank[t.leaf_order].tolist() == list(range(len(t.leaves)))
    assert (t.leaf_rank[[i for i in range(len(t)) if t.children[i]]] == -1).all()


def _subtree(t, i):
    out, stack = set(), [i]
    while stack:
        j = stack.pop()
        out.add(j)
        stack.extend(t.children[j])
    return out


def test_is_under_is_subtree_membership():
    t = workclass()
    ids = np.arange(len(t))
    for i in range(len(t)):
        assert set(ids[t.is_under(ids, i)].tolist()) == _subtree(t, i)


def test_ancestor_at_depth_generalizes_leaves():
    t = workclass()
    leaves = np.array([t.index("Federal-gov"), t.index("Never-worked"), t.index("Self-emp-inc")])
    assert [t.labels[i] for i in t.ancestor_at_depth(leaves, 1)] == ["Worked", "Never-worked", "Worked"]
    assert [t.labels[i] for i in t.ancestor_at_depth(leaves, 3)] == ["Gov", "Never-worked", "Self-emp"]
    assert t.ancestor_at_depth(leaves, 0).tolist() == [0, 0, 0]
    for i in range(len(t)):
        for d in range(t.height + 1):
            path = t.path(i)
            assert t.ancestor_table[i, d] == path[min(d, len(path) - 1)]


def test_str_array_fast_path_rejects_truncated_labels_and_agrees_with_lists():
    t = workclass()
    narrow = np.array(["Self-emp", "Private", "Gov"], dtype="U8")  # 'Self-emp-not-inc' truncates to 'Self-emp'
    assert t.map_values(narrow).leaf_ids.tolist() == [-1, t.index("Private"), -1]
    rng = np.random.default_rng(3)
    pool = [t.labels[i] for i in t.leaves] + ["Self-emp", " Private", "Private ", "x", "", "Gov"]
    values = np.array(pool, dtype=object)[rng.integers(0, len(pool), 3000)]
    results = [t.map_values(v) for v in (values.astype(str), values, values.tolist(), tuple(values))]
    for r in results[1:]:
        assert r.leaf_ids.tolist() == results[0].leaf_ids.tolist()
        assert r.uncovered == results[0].uncovered
    assert dict(results[0].uncovered).keys() == {"Self-emp", "x", "", "Gov"}
    assert (results[0].leaf_ids[values == " Private"] == t.index("Private")).all()


def test_mapping_accepts_array_likes_and_iterables():
    t = workclass()
    private = t.index("Private")
    assert t.map_values(range(0)).leaf_ids.tolist() == []
    assert t.map_values(iter(["Private", "x"])).leaf_ids.tolist() == [private, -1]
    assert t.map_values(np.array([["Private"], ["Gov"]])).leaf_ids.tolist() == [private, -1]
    n = numeric(SEED_NUMERIC)
    assert n.map_values(range(0, 25, 6)).leaf_ids.tolist() == [
        -1,
        n.index("[5,12)"),
        n.index("[12,16)"),
        n.index("[16,20)"),
        -1,
    ]
