"""The largest DiffGen tree, from public inputs (``algorithms.diffgen_size``), and the studio's refusal of a
run whose tree could not fit in memory (walk 50: a 150,000-row table with flat taxonomies of the data's values
grew to 1.4 million nodes and was killed for memory after two minutes; now refused before anything is read or
spent)."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pandas as pd
import pytest

from dpstudio.algorithms.diffgen_size import cut_sizes, most_leaves, taxonomy_gains
from dpstudio.core.taxonomy import Node, Taxonomy
from dpstudio.model.project.project import Project
from dpstudio.model.release import runs as runs_module
from dpstudio.model.release.runs import RunInputError
from dpstudio.model.release.session import RunSession


def brute_force(attribute_gains, steps):
    """Every way of giving each step to an attribute, each attribute's k largest gains: the largest product."""
    best = 0
    for choice in itertools.product(range(len(attribute_gains)), repeat=steps):
        product = 1
        for a, gains in enumerate(attribute_gains):
            k = choice.count(a)
            top = [1] * k if gains is None else sorted(gains, reverse=True)[:k]
            product *= 1 + sum(top)
        best = max(best, product)
    return best


@pytest.mark.parametrize(
    "gains, steps",
    [
        ([[3, 1, 1], None, [1]], 4),
        ([[40], [15], [13], None], 3),
        ([[2, 2, 2, 2], [1, 1], None, None], 5),
        ([[], [5]], 2),
    ],
)
def test_the_bound_is_the_best_share_of_the_steps(gains, steps):
    assert most_leaves(gains, steps) == brute_force(gains, steps)


def test_cut_sizes_add_the_largest_gains_then_stop():
    assert cut_sizes([1, 3, 2], 5) == [1, 4, 6, 7, 7, 7]
    assert cut_sizes(None, 3) == [1, 2, 3, 4]


def _tree(values, levels=False):
    root = Node("*")
    if levels:  # two levels: groups of 4 values
        for i in range(0, len(values), 4):
            g = root.add(Node(f"g{i}"))
            for v in values[i : i + 4]:
                g.add(Node(v))
    else:
        for v in values:
            root.add(Node(v))
    return Taxonomy(root)


SIZES = {"country": 40, "job": 16, "shift": 10, "site": 10, "grade": 10}


def _project(levels: bool, rows=3000, steps=6, seed=0):
    rng = np.random.default_rng(seed)
    values = {a: [f"{a[0]}{i:02d}" for i in range(n)] for a, n in SIZES.items()}
    frame = pd.DataFrame({a: rng.choice(v, rows) for a, v in values.items()})
    frame["age"] = rng.integers(18, 90, rows)
    frame["y"] = rng.choice(["n", "y"], rows)
    p = Project()
    p.set_data(frame, None)
    for a, v in values.items():
        p.set_taxonomy(a, _tree(v, levels))
    p.set_bounds("age", 0, 100)
    p.set_classes(["n", "y"])
    p.set_algorithm("diffgen_consistency", {"steps": steps})
    return p


def _gains(p):
    return [taxonomy_gains(p.taxonomies[a].children) for a in SIZES] + [None]


def test_real_runs_never_exceed_the_bound():
    """The bound holds for what runs make (noise-free and noisy, several seeds): leaves counted in the result."""
    for levels, steps, eps in ((True, 6, 100), (True, 7, 1), (False, 3, 100), (False, 2, 1)):
        p = _project(levels, steps=steps)
        p.set_epsilon(eps)
        bound = most_leaves(_gains(p), steps)
        for seed in (1, 2):
            p.set_seed(seed)
            session = RunSession.of_project(p)
            session.begin(None)
            record = session.finish(list(session.events()))
            assert 1 < len(record.result.leaf_nodes) <= bound


def test_a_tree_too_large_is_refused_before_the_data_is_read_or_anything_spent(monkeypatch):
    p = _project(levels=False, steps=10)  # flat: 40 countries, 16 jobs, ... each split at once
    p.set_mode("release")

    def never(*_a, **_k):
        raise AssertionError("the data was read")

    monkeypatch.setattr(runs_module, "encode_table", never)
    with pytest.raises(RunInputError) as refused:
        RunSession.of_project(p)
    text = str(refused.value)
    bound = most_leaves(_gains(p), 10)
    assert bound == 40 * 16 * 10 * 10 * 10 * 6  # five steps on the categories, five splits of age
    assert f"could reach {bound:,} partitions" in text and "1,000,000" in text
    assert "country has a level of 40 values under one node; job has a level of 16" in text
    assert text.endswith("Nothing was read or spent")
    assert p.release_ledger is None
    # the same inputs with levels (groups of 4 under the root) stay within reach
    assert most_leaves(_gains(_project(levels=True, rows=10)), 10) < runs_module.MAX_LEAVES
    monkeypatch.setenv("DPSTUDIO_MAX_LEAVES", str(bound))
    runs_module.check_tree_size(p, 10)
    monkeypatch.setenv("DPSTUDIO_MAX_LEAVES", "lots")
    with pytest.raises(RunInputError, match="DPSTUDIO_MAX_LEAVES must be a whole number"):
        runs_module.check_tree_size(p, 10)


def test_the_adult_defaults_are_far_inside_the_limit():
    from dpstudio.evaluation.sweeps import read_taxonomy_folder

    tax, _bounds = read_taxonomy_folder()
    gains = [taxonomy_gains(t.children) for t in tax.values()] + [None, None, None]
    assert most_leaves(gains, 10) == 46_080 and math.log10(runs_module.MAX_LEAVES) >= 6


def test_the_readiness_list_says_it_before_the_question(qtbot):
    """The bound reads public inputs only, so the studio's checklist says it before Run (and before the
    release question): Run stays off, and the item goes to the widest taxonomy."""
    from dpstudio.gui.panels.algorithm import AlgorithmPanel
    from dpstudio.model.release.readiness import readiness

    p = _project(levels=False, rows=200, steps=10)
    p.set_mode("release")
    problem = readiness(p)[0]  # (then: the column types read from the data, to confirm in release mode)
    assert problem.place == "taxonomy" and problem.attribute == "country"
    # named as the Algorithm panel names the control (walk 51: the text said "h", the box "refinement steps")
    assert problem.text.startswith("with 10 refinement steps (h) the tree could reach 3,840,000 partitions")
    assert problem.text.endswith(
        "give them more levels (the Taxonomy panel's Two levels groups the values), or use fewer refinement steps"
    )
    panel = AlgorithmPanel(p)
    qtbot.addWidget(panel)
    assert not panel.run_button.isEnabled()
    assert "could reach 3,840,000 partitions" in panel.checklist.problems[0].text  # shown in "Before you run"
    p.set_param("steps", 4)  # a lower h fits: nothing left to fix
    assert all("partitions" not in x.text for x in readiness(p)) and readiness(p)


def test_two_levels_from_the_data_bring_a_refused_table_within_reach(qtbot):
    """The refusal's advice made one click: "Two levels" groups the data's values in name order (about sqrt(n)
    groups), so the same table with the same h fits, and every value is still covered."""
    from dpstudio.core.taxonomy_generators import grouped_categorical
    from dpstudio.gui.panels.taxonomy import COVERED, TaxonomyPanel
    from dpstudio.model.project import provenance as pv
    from dpstudio.model.release.readiness import readiness

    tax = grouped_categorical([f"c{i:02d}" for i in range(40)] + ["c00"], "country")
    groups = [tax.labels[c] for c in tax.children[0]]
    assert len(groups) == 6 and groups[0] == "c00 .. c06" and groups[-1] == "c35 .. c39"  # ceil(sqrt(40)) = 7 a group
    assert sorted(tax.labels[i] for i in range(len(tax.labels)) if not tax.children[i]) == [
        f"c{i:02d}" for i in range(40)
    ]
    small = grouped_categorical(["b", "a", "c"])  # three values or fewer stay flat
    assert [small.labels[c] for c in small.children[0]] == ["a", "b", "c"]

    p = _project(levels=False, rows=300, steps=10)
    assert readiness(p) and "could reach" in readiness(p)[0].text
    panel = TaxonomyPanel(p)
    qtbot.addWidget(panel)
    for a in SIZES:
        panel.select_attribute(a)
        panel.grouped_button.click()
        assert panel.badge(a)[0] == COVERED
        assert p.provenance_of(pv.key(pv.TAXONOMY, a)).derived  # from the data: to confirm before a release
    assert not any("could reach" in x.text for x in readiness(p))
    assert most_leaves(_gains(p), 10) <= runs_module.MAX_LEAVES
