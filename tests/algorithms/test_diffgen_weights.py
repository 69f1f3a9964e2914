"""Weighted input (the data engines' group-by aggregates): a run on the distinct coded records with their
multiplicities releases exactly what the run on the records releases, with the same seed."""

import numpy as np
import pytest

from dpstudio.algorithms.diffgen import preset, run_diffgen, run_to_result
from dpstudio.algorithms.diffgen_input import CategoricalAttribute, DiffGenInput, NumericAttribute
from dpstudio.core.budget import Ledger
from dpstudio.core.events import NodeCreated
from dpstudio.core.noise import SimulationNoise
from dpstudio.core.taxonomy import Node, Taxonomy


def _records(n=3000, seed=1):
    rng = np.random.default_rng(seed)
    tax = Taxonomy(
        Node("Any", [Node("A", [Node("a1"), Node("a2"), Node("a3")]), Node("B", [Node("b1"), Node("b2")])]), "cat"
    )
    leaves = np.array([tax.index(v) for v in ("a1", "a2", "a3", "b1", "b2")])
    cat = leaves[rng.integers(0, 5, n)]
    age = rng.integers(17, 60, n).astype(float) // 4 * 4 + 1
    hours = rng.integers(1, 4, n).astype(float) * 7
    y = ((age > 35) ^ (rng.random(n) < 0.2)).astype(np.int64) + (cat == leaves[0])
    attrs = (
        CategoricalAttribute("cat", tax, cat),
        NumericAttribute("age", age, 17.0, 60.0, integer=True),
        NumericAttribute("hours", hours, 1.0, 30.0, integer=True),
    )
    return DiffGenInput(attrs, "y", ("p", "q", "r"), y)


def _aggregate(data):
    cols = [a.leaf_ids if isinstance(a, CategoricalAttribute) else a.values for a in data.attributes]
    table = np.column_stack([*cols, data.y]).astype(float)
    rows, counts = np.unique(table, axis=0, return_counts=True)
    attrs = tuple(
        CategoricalAttribute(a.name, a.taxonomy, rows[:, i].astype(np.int64))
        if isinstance(a, CategoricalAttribute)
        else NumericAttribute(a.name, rows[:, i], a.lo, a.hi, a.grid, a.integer, a.lattice)
        for i, a in enumerate(data.attributes)
    )
    return DiffGenInput(
        attrs, data.class_name, data.classes, rows[:, -1].astype(np.int64), weights=counts.astype(np.int64)
    )


@pytest.mark.parametrize(
    "algorithm,score,scope",
    [
        ("diffgen", "max", "partition"),
        ("diffgen-consistent", "infogain", "pooled"),
        ("maxgddp", "max", "partition"),
        ("maxgddp", "infogain", "partition"),
    ],
)
def test_weighted_aggregate_releases_the_same_as_the_records(algorithm, score, scope):
    data = _records()
    agg = _aggregate(data)
    assert agg.n_records < data.n_records / 3 and int(agg.weights.sum()) == data.n_records
    params = preset(algorithm, 1.0, 6, score=score, score_scope=scope)
    a = run_to_result(data, params, SimulationNoise(7), Ledger(1.0))
    b = run_to_result(agg, params, SimulationNoise(7), Ledger(1.0))
    assert a.winners == b.winners
    assert np.array_equal(a.leaf_values, b.leaf_values)
    assert np.array_equal(a.counts, b.counts) and np.array_equal(a.estimates, b.estimates)
    assert [e.epsilon for e in a.ledger.entries] == [e.epsilon for e in b.ledger.entries]


def test_teaching_true_counts_are_record_counts_not_rows():
    data = _records(500)
    agg = _aggregate(data)
    params = preset("diffgen", 1.0, 2)

    def node_counts(d):
        evs = run_diffgen(d, params, SimulationNoise(3), Ledger(1.0), teaching=True)
        return [e.true_count for e in evs if isinstance(e, NodeCreated)]

    counts = node_counts(agg)
    assert counts[0] == 500 and counts == node_counts(data)


def test_weights_must_be_whole_numbers_of_at_least_one():
    data = _records(50)
    for bad in (np.zeros(50, dtype=np.int64), np.ones(50), np.ones(49, dtype=np.int64)):
        with pytest.raises(ValueError, match="weights"):
            DiffGenInput(data.attributes, "y", data.classes, data.y, weights=bad).validate()
