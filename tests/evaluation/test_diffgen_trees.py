"""DiffGen result -> range-query geometry, checked against the engine's own teaching-mode true counts."""

import numpy as np
import pytest

from dpstudio.algorithms.diffgen import preset, run_diffgen
from dpstudio.algorithms.diffgen_input import CategoricalAttribute, DiffGenInput, NumericAttribute
from dpstudio.core.budget import Ledger
from dpstudio.core.events import NodeNoised, RunFinished
from dpstudio.core.noise import SimulationNoise
from dpstudio.core.range_queries import answer, cell_weights, random_boxes
from dpstudio.core.taxonomy import Node, Taxonomy
from dpstudio.evaluation.diffgen_trees import domain_of, leaf_cells, true_tree


def small_input(n=600, seed=0):
    rng = np.random.default_rng(seed)
    tax = Taxonomy(
        Node("*", [Node("A", [Node("a1"), Node("a2"), Node("a3")]), Node("B", [Node("b1"), Node("b2")])]), "colour"
    )
    leaves = np.asarray(tax.leaves)
    colour = rng.choice(leaves, n)
    age = rng.integers(18, 70, n).astype(float)
    y = ((age > 40) & np.isin(colour, leaves[:3])).astype(np.int64) ^ (rng.random(n) < 0.1)
    attrs = (CategoricalAttribute("colour", tax, colour), NumericAttribute("age", age, 0.0, 100.0, integer=True))
    return DiffGenInput(attrs, "y", ("no", "yes"), y.astype(np.int64)).validate()


def _run(data, name, seed):
    ledger = Ledger(1.0)
    events = list(run_diffgen(data, preset(name, 1.0, 4), SimulationNoise(seed), ledger, teaching=True))
    return events, events[-1].result


@pytest.mark.parametrize("name", ["diffgen", "diffgen-consistent", "maxgddp"])
def test_true_tree_matches_engine_teaching_counts(name):
    data = small_input()
    events, result = _run(data, name, 3)
    assert isinstance(events[-1], RunFinished)
    domain = domain_of(data)
    tree = true_tree(data, result, domain)
    shown = {e.node: e.true_count for e in events if isinstance(e, NodeNoised)}
    assert shown  # teaching mode shows the truth of every noised node
    for node, true in shown.items():
        assert tuple(tree.counts[node]) == tuple(true)
    assert tree.counts[0].sum() == data.n_records


def test_leaf_cells_answer_matches_release_counts():
    data = small_input(seed=1)
    _, result = _run(data, "diffgen", 5)
    domain = domain_of(data)
    cells = leaf_cells(result, domain)
    # each leaf cell, queried as a box, returns exactly its own released count (cells are disjoint)
    boxes = []
    for p in range(len(result.leaf_nodes)):
        box = {}
        for ax, c in zip(domain.axes, cells):
            box[ax.name] = tuple(c[p]) if ax.is_numeric else int(c[p])
        boxes.append(box)
    wl = domain.workload(boxes)
    got = answer(cell_weights(domain, cells, wl), result.counts, wl.classes)
    np.testing.assert_allclose(got, result.counts.sum(axis=1))
    # and any random box over the whole release sums to a share of the released total
    wl = random_boxes(domain, 50, np.random.default_rng(0))
    ans = answer(cell_weights(domain, cells, wl), result.counts, wl.classes)
    assert np.all(ans <= result.counts.sum() + 1e-9)
