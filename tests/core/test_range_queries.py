"""Range-count queries: against brute force on small trees and hand-worked examples."""

import itertools

import numpy as np
import pytest

from dpstudio.core.range_queries import (
    ALL_CLASSES,
    CategoricalAxis,
    Domain,
    NumericAxis,
    answer,
    cell_weights,
    minimal_cover_matrix,
    random_boxes,
    tree_weights,
)
from dpstudio.core.taxonomy import Node, Taxonomy


def _cat_taxonomy():
    root = Node("Any", [Node("A", [Node("a1"), Node("a2"), Node("a3")]), Node("B", [Node("b1"), Node("b2")])])
    return Taxonomy(root, "colour")


def _domain():
    return Domain([CategoricalAxis(_cat_taxonomy()), NumericAxis(0.0, 10.0, name="age")])


# A grid release: categorical cut {A, b1, b2} x numeric cut [0,3), [3,7.5), [7.5,10); two classes.
CAT_CUT = ["A", "b1", "b2"]
NUM_CUT = [(0.0, 3.0), (3.0, 7.5), (7.5, 10.0)]


def _grid_cells(domain):
    cats, nums = zip(*itertools.product(CAT_CUT, NUM_CUT))
    return domain.cells({"colour": list(cats), "age": list(nums)})


def _brute_force_answer(domain, cells, counts, workload):
    """Spread every cell's counts uniformly over atoms (raw leaf x elementary interval) and sum atoms."""
    cat_ax, num_ax = domain.axes
    bounds = {num_ax.lo, num_ax.hi}
    bounds |= set(cells[1].ravel()) | set(workload.extents[1].ravel())
    edges = np.array(sorted(bounds))
    atoms_i = list(zip(edges[:-1], edges[1:]))
    n_leaves = cat_ax.n_leaves
    mass = np.zeros((n_leaves, len(atoms_i), counts.shape[1]))
    for c in range(len(cells[0])):
        node, (lo, hi) = cells[0][c], cells[1][c]
        leaves = np.flatnonzero(cat_ax.membership[node])
        for k, (a, b) in enumerate(atoms_i):
            if a >= lo and b <= hi:
                share = (b - a) / (hi - lo) / leaves.size
                mass[leaves, k] += share * counts[c]
    out = []
    for q in range(len(workload)):
        node, (lo, hi) = workload.extents[0][q], workload.extents[1][q]
        leaves = np.flatnonzero(cat_ax.membership[node])
        ks = [k for k, (a, b) in enumerate(atoms_i) if a >= lo and b <= hi]
        m = mass[np.ix_(leaves, ks)].sum(axis=(0, 1))
        out.append(m.sum() if workload.classes[q] < 0 else m[workload.classes[q]])
    return np.array(out)


def test_release_answers_match_brute_force_on_random_boxes():
    rng = np.random.default_rng(1)
    domain = _domain()
    cells = _grid_cells(domain)
    counts = rng.integers(-3, 40, size=(len(cells[0]), 2)).astype(float)
    wl = random_boxes(domain, 300, rng, attributes=(1, 2), n_classes=2)
    got = answer(cell_weights(domain, cells, wl), counts, wl.classes)
    np.testing.assert_allclose(got, _brute_force_answer(domain, cells, counts, wl), rtol=1e-10, atol=1e-9)


def test_hand_worked_pro_rating():
    domain = _domain()
    cells = domain.cells({"colour": ["A", "B"], "age": [(0, 10), (0, 10)]})
    counts = np.array([[9.0, 3.0], [4.0, 0.0]])
    wl = domain.workload(
        [{"colour": "a1"}, {"age": (2, 5)}, {"colour": "b2", "age": (0, 5)}, {}, {"colour": "A"}],
        classes=[0, ALL_CLASSES, 0, ALL_CLASSES, 1],
    )
    got = answer(cell_weights(domain, cells, wl), counts, wl.classes)
    # a1 is 1 of A's 3 leaves: 9/3; [2,5) is 3/10 of every cell: 0.3*16; b2 is half of B, [0,5) half of age.
    np.testing.assert_allclose(got, [3.0, 4.8, 1.0, 16.0, 3.0])
    np.testing.assert_allclose(domain.fraction(wl), [1 / 5, 0.3, 0.5 / 5, 1.0, 3 / 5])


def test_numeric_query_by_taxonomy_node():
    num = Taxonomy(Node("[0,10)", [Node("[0,4)", lo=0, hi=4), Node("[4,10)", lo=4, hi=10)], lo=0, hi=10), "age")
    domain = Domain([NumericAxis.from_taxonomy(num)])
    cells = domain.cells([[(0, 5), (5, 10)]])
    wl = domain.workload([{"age": "[4,10)"}, {"age": 1}])
    got = answer(cell_weights(domain, cells, wl), np.array([10.0, 20.0]), wl.classes)
    np.testing.assert_allclose(got, [2.0 + 20.0, 8.0])


def test_aligned_boxes_cover_cells_fully_or_not_at_all():
    rng = np.random.default_rng(2)
    domain = _domain()
    cells = _grid_cells(domain)
    wl = random_boxes(domain, 200, rng, attributes=(1, 2), aligned_to=cells)
    W = cell_weights(domain, cells, wl)
    assert set(np.unique(W)) <= {0.0, 1.0}
    # categorical query nodes never split a cut node: a1, a2, a3 (inside A) are not allowed
    a_leaves = {_cat_taxonomy().index(x) for x in ("a1", "a2", "a3")}
    assert not a_leaves & set(wl.extents[0].tolist())


def test_random_boxes_shape_and_sizes():
    rng = np.random.default_rng(3)
    domain = _domain()
    wl = random_boxes(domain, 500, rng, attributes=(1, 1), n_classes=3, class_probability=0.5)
    constrained = (wl.extents[0] != 0).astype(int) + np.any(wl.extents[1] != (0.0, 10.0), axis=1)
    assert np.all(constrained == 1)  # exactly one attribute per box
    f = domain.fraction(wl)
    assert np.all((f > 0) & (f <= 1))
    assert 0.35 < np.mean(wl.classes >= 0) < 0.65
    assert set(wl.classes[wl.classes >= 0].tolist()) == {0, 1, 2}
    # a uniform random interval's expected length is one third of the domain
    num = np.any(wl.extents[1] != (0.0, 10.0), axis=1)
    assert abs(np.mean(f[num]) - 1 / 3) < 0.05


# -- the raw noisy tree -------------------------------------------------------------------------------


def _partition_tree(domain):
    """root -> colour A | B; A -> age [0,5) | [5,10); B -> colour b1 | b2; b1 -> age [0,2) | [2,10)."""
    nodes = [  # (parent, colour, age)
        (-1, "Any", (0, 10)),
        (0, "A", (0, 10)),
        (0, "B", (0, 10)),
        (1, "A", (0, 5)),
        (1, "A", (5, 10)),
        (2, "b1", (0, 10)),
        (2, "b2", (0, 10)),
        (5, "b1", (0, 2)),
        (5, "b1", (2, 10)),
    ]
    parents = np.array([p for p, _, _ in nodes])
    extents = domain.cells({"colour": [c for _, c, _ in nodes], "age": [a for _, _, a in nodes]})
    leaves = np.array([i for i in range(len(nodes)) if i not in set(parents.tolist())])
    return parents, extents, leaves


def _leaf_sets(parents, leaves):
    sets = {i: set() for i in range(len(parents))}
    for leaf in leaves:
        i = leaf
        while i >= 0:
            sets[i].add(int(leaf))
            i = parents[i]
    return sets


def test_minimal_cover_is_the_smallest_exact_cover_by_brute_force():
    domain = _domain()
    parents, extents, leaves = _partition_tree(domain)
    sets = _leaf_sets(parents, leaves)
    n = len(parents)
    for mask_bits in range(1, 2 ** len(leaves)):
        inside = np.array([(mask_bits >> k) & 1 for k in range(len(leaves))], dtype=bool)
        target = {int(leaves[k]) for k in range(len(leaves)) if inside[k]}
        cover = np.flatnonzero(minimal_cover_matrix(parents, inside[:, None], leaves)[:, 0])
        union = set().union(*(sets[i] for i in cover))
        assert union == target and sum(len(sets[i]) for i in cover) == len(target)  # exact, disjoint
        best = None
        for size in range(1, n + 1):
            for combo in itertools.combinations(range(n), size):
                s = [sets[i] for i in combo]
                if sum(map(len, s)) == len(target) and set().union(*s) == target:
                    best = size
                    break
            if best:
                break
        assert len(cover) == best


def test_seed_000_example_7_cover():
    # Figure 3(a): ABCD -> AB, CD -> A, B, C, D. ABCD is covered by the root, BCD by {B, CD}.
    parents = np.array([-1, 0, 0, 1, 1, 2, 2])  # ABCD, AB, CD, A, B, C, D
    leaves = np.array([3, 4, 5, 6])
    inside = np.array([[1, 0], [1, 1], [1, 1], [1, 1]], dtype=bool)  # query ABCD, query BCD
    cover = minimal_cover_matrix(parents, inside, leaves)
    assert np.flatnonzero(cover[:, 0]).tolist() == [0]
    assert np.flatnonzero(cover[:, 1]).tolist() == [2, 4]
    # and the noisy answers of the example: ABCD -> 7, BCD -> C_B + C_CD = 3 + 0
    noisy = np.array([7, 6, 0, 2, 3, 0, 3], dtype=float)
    np.testing.assert_allclose(answer(cover.astype(float), noisy, np.array([-1, -1])), [7.0, 3.0])


def test_tree_answers_equal_release_answers_when_counts_are_consistent():
    rng = np.random.default_rng(4)
    domain = _domain()
    parents, extents, leaves = _partition_tree(domain)
    leaf_counts = rng.integers(0, 30, size=(len(leaves), 2)).astype(float)
    counts = np.zeros((len(parents), 2))
    for k, leaf in enumerate(leaves):
        i = leaf
        while i >= 0:
            counts[i] += leaf_counts[k]
            i = parents[i]
    leaf_cells = tuple(e[leaves] for e in extents)
    wl = random_boxes(domain, 200, rng, attributes=(1, 2), n_classes=2)
    from_tree = answer(tree_weights(domain, parents, leaves, leaf_cells, wl), counts, wl.classes)
    from_leaves = answer(cell_weights(domain, leaf_cells, wl), leaf_counts, wl.classes)
    np.testing.assert_allclose(from_tree, from_leaves, atol=1e-9)


def test_tree_answer_uses_cover_nodes_and_pro_rates_partial_leaves():
    domain = _domain()
    parents, extents, leaves = _partition_tree(domain)
    leaf_cells = tuple(e[leaves] for e in extents)
    noisy = np.arange(len(parents), dtype=float) * 10 + 1  # inconsistent on purpose
    wl = domain.workload([{"colour": "B"}, {"colour": "b1", "age": (0, 6)}, {"age": (0, 5)}])
    got = answer(tree_weights(domain, parents, leaves, leaf_cells, wl), noisy, wl.classes)
    # B: node 2. b1 & [0,6): leaf 7 ([0,2)) fully + leaf 8 ([2,10)) half. [0,5): leaf 3 (A,[0,5)) fully,
    # leaf 6 (b2,[0,10)) half, leaf 7 fully, leaf 8 3/8.
    n = noisy
    np.testing.assert_allclose(got, [n[2], n[7] + 0.5 * n[8], n[3] + 0.5 * n[6] + n[7] + 3 / 8 * n[8]])


def test_answer_batches_runs():
    rng = np.random.default_rng(5)
    domain = _domain()
    cells = _grid_cells(domain)
    wl = random_boxes(domain, 50, rng, n_classes=2)
    W = cell_weights(domain, cells, wl)
    runs = rng.normal(size=(4, len(cells[0]), 2))
    batched = answer(W, runs, wl.classes)
    for r in range(4):
        np.testing.assert_allclose(batched[r], answer(W, runs[r], wl.classes))


def test_bad_input_messages():
    domain = _domain()
    with pytest.raises(KeyError, match="unknown attribute"):
        domain.workload([{"colour": "A", "height": (0, 1)}])
    with pytest.raises(KeyError, match="not a node"):
        domain.workload([{"colour": "purple"}])
    with pytest.raises(ValueError, match="empty interval"):
        domain.workload([{"age": (5, 5)}])
    with pytest.raises(ValueError, match="class"):
        answer(np.ones((2, 1)), np.ones((2, 2)), np.array([3]))


def test_cover_matrix_agrees_with_core_cover_on_random_trees():
    from dpstudio.core.cover import minimal_cover

    rng = np.random.default_rng(6)
    for _ in range(20):
        n = int(rng.integers(2, 40))
        parents = np.array([-1] + [int(rng.integers(0, i)) for i in range(1, n)])
        leaves = np.array([i for i in range(n) if i not in set(parents.tolist())])
        inside = rng.random((leaves.size, 5)) < 0.6
        mine = minimal_cover_matrix(parents, inside, leaves)
        for q in range(5):
            assert np.flatnonzero(mine[:, q]).tolist() == minimal_cover(parents, leaves[inside[:, q]]).tolist()
