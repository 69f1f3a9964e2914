"""Full-domain searches against SYNTACTIC.md K9.5 / K9.6 (ARX Adult; skipped without ../shared/data) and
Incognito / Samarati against brute force on random tables."""

import itertools
from pathlib import Path

import numpy as np
import pytest

from dpstudio.algorithms import fulldomain as fd
from dpstudio.algorithms.fulldomain_data import Microdata
from dpstudio.core.generalization import LevelHierarchy
from dpstudio.core.syntactic_models import LDiversity, TCloseness
from dpstudio.core.taxonomy import Taxonomy

ARX = Path(__file__).resolve().parents[2].parent / "shared" / "data" / "arx"
needs_arx = pytest.mark.skipif(not (ARX / "adult.csv").is_file(), reason="shared ARX Adult data absent")


def _adult():
    import pandas as pd

    return pd.read_csv(ARX / "adult.csv", sep=";", dtype=str)


def arx_problem(qi, k, suppression, metric="dm", models=(), sensitive=()):
    from dpstudio.io.anonymize import encode, with_tree
    from dpstudio.io.taxonomy_formats import read_taxonomy

    frame = _adult()
    taxes = {c: read_taxonomy(ARX / f"adult_hierarchy_{c}.csv", attribute=c) for c in list(qi) + list(sensitive)}
    hier = tuple(m.attribute for m in models if getattr(m, "kind", "") == "hierarchical")
    data, _ = encode(frame, list(qi), taxes, list(sensitive), hier)
    return fd.Problem(data, k, suppression, tuple(with_tree(m, taxes) for m in models), metric)


FOUR = ("age", "sex", "race", "marital-status")
EIGHT = ("age", "education", "marital-status", "native-country", "occupation", "race", "sex", "workclass")


@needs_arx
@pytest.mark.parametrize(
    "k, sup, sat, minimal, min_height, best, dm, classes",
    [
        (
            2,
            0,
            23,
            [(1, 0, 1, 2), (1, 1, 1, 1), (2, 0, 1, 1), (3, 0, 0, 2), (4, 0, 0, 1), (4, 0, 1, 0)],
            4,
            (1, 1, 1, 1),
            55_170_356,
            30,
        ),
        (5, 0, 19, 4, 4, (1, 1, 1, 1), 55_170_356, None),
        (10, 0, 18, [(1, 0, 1, 2), (1, 1, 1, 1), (4, 0, 0, 1), (4, 1, 1, 0)], 4, (1, 1, 1, 1), 55_170_356, None),
        (10, 0.01, 47, 7, 2, (0, 0, 1, 2), 13_357_407, 125),
        (100, 0, 5, [(4, 0, 1, 1), (4, 1, 0, 2)], 6, (4, 0, 1, 1), 290_180_796, 4),
    ],
)
def test_four_qi_lattice(k, sup, sat, minimal, min_height, best, dm, classes):
    problem = arx_problem(FOUR, k, sup)
    opt = fd.run_to_result(fd.run_optimal(problem))
    assert opt.nodes == 60 and len(opt.evaluated) == 60
    assert len(opt.satisfying) == sat
    assert (opt.minimal == minimal) if isinstance(minimal, list) else (len(opt.minimal) == minimal)
    assert opt.chosen.levels == best and opt.chosen.metric == dm
    if classes is not None:
        assert opt.chosen.classes == classes
    if sup:
        assert opt.chosen.suppressed == 67 and problem.max_sup == 301
    inc = fd.run_to_result(fd.run_incognito(problem))
    assert inc.satisfying == opt.satisfying and inc.minimal == opt.minimal
    sam = fd.run_to_result(fd.run_samarati(problem))
    assert sam.chosen.height == min_height == min(sum(n) for n in opt.satisfying)
    assert sam.satisfying == sorted(n for n in opt.satisfying if sum(n) == min_height)


@needs_arx
@pytest.mark.parametrize(
    "k, sat, minimal, min_height, best, dm, classes",
    [
        (2, 103, 25, 12, (1, 3, 1, 2, 1, 1, 1, 2), 19_399_310, 90),
        (10, 50, 17, 13, (1, 3, 1, 2, 2, 1, 1, 2), 55_170_356, 30),
    ],
)
def test_eight_qi_lattice_incognito_is_brute_force(k, sat, minimal, min_height, best, dm, classes):
    problem = arx_problem(EIGHT, k, 0)
    opt = fd.run_to_result(fd.run_optimal(problem))
    assert opt.nodes == 6480 and len(opt.satisfying) == sat and len(opt.minimal) == minimal
    assert (opt.chosen.levels, opt.chosen.metric, opt.chosen.classes) == (best, dm, classes)
    inc = fd.run_to_result(fd.run_incognito(problem))
    assert inc.satisfying == opt.satisfying
    assert inc.checks < 6480  # the subset lattices prune most of the full lattice
    sam = fd.run_to_result(fd.run_samarati(problem))
    assert sam.chosen.height == min_height
    if k == 2:
        assert sam.heights_probed == [17, 8, 13, 11, 12]


@needs_arx
@pytest.mark.parametrize(
    "sup, node, value",
    [
        (0.04, (1, 0, 1, 1, 3, 2, 2, 0, 1), 255559.85455731),
        (0.0, (1, 2, 1, 1, 3, 2, 2, 1, 1), 407289.53889253),
    ],
)
def test_arx_k_anonymity_nine_columns(sup, node, value):
    cols = [
        "sex",
        "age",
        "race",
        "marital-status",
        "education",
        "native-country",
        "workclass",
        "occupation",
        "salary-class",
    ]  # ARX: the column order is the QI order
    opt = fd.run_to_result(fd.run_optimal(arx_problem(cols, 5, sup, "entropy")))
    assert opt.chosen.levels == node
    assert opt.chosen.metric == pytest.approx(value, rel=1e-6)


@needs_arx
@pytest.mark.parametrize(
    "kind, metric, node, value",
    [
        ("equal", "dm-star", (1, 4, 1, 0, 3, 2, 2, 1), 311_880_088),
        ("hierarchical", "entropy", (1, 4, 0, 0, 3, 2, 2, 1), 377622.78458729),
    ],
)
def test_arx_t_closeness(kind, metric, node, value):
    qi = ["sex", "age", "race", "marital-status", "education", "native-country", "workclass", "salary-class"]
    model = TCloseness(kind, 0.2, "occupation")
    problem = arx_problem(qi, 5, 0.04, metric, (model,), ("occupation",))
    opt = fd.run_to_result(fd.run_optimal(problem))
    assert opt.chosen.levels == node
    assert opt.chosen.metric == pytest.approx(value, rel=1e-6)
    if kind == "equal":
        assert (
            fd.run_to_result(fd.run_optimal(fd.Problem(problem.data, 5, 0.04, problem.models, "dm")))
            .evaluated[[r.levels for r in opt.evaluated].index(node)]
            .metric
            == 336_773_094
        )


def _random_problem(seed, models=()):
    rng = np.random.default_rng(seed)
    hs, codes = [], []
    for j, fan in enumerate(rng.integers(2, 4, size=3)):
        # a balanced tree of height 2: root -> fan groups -> 2 leaves each
        from dpstudio.core.taxonomy import Node

        root = Node("*", [Node(f"g{j}{a}", [Node(f"v{j}{a}{b}") for b in range(2)]) for a in range(fan)])
        tax = Taxonomy(root, f"a{j}")
        h = LevelHierarchy.from_taxonomy(tax)
        hs.append(h)
        codes.append(rng.integers(0, h.size(0), size=60))
    extras = {"s": (rng.integers(0, 3, size=60), 3)}
    return fd.Problem(Microdata(hs, np.stack(codes, 1), extras), int(rng.integers(2, 6)), 0.05, models, "dm")


def _brute_force(problem):
    """Independent: for each node, group rows with a dict and apply the definition directly."""
    data = problem.data
    out = []
    for node in itertools.product(*[range(h.height + 1) for h in data.hierarchies]):
        groups = {}
        for i in range(data.n):
            key = tuple(int(h.gen[lv][data.codes[i, j]]) for j, (h, lv) in enumerate(zip(data.hierarchies, node)))
            groups.setdefault(key, []).append(int(data.extras["s"][0][i]))
        bad = sum(
            len(v) for v in groups.values() if len(v) < problem.k or any(len(set(v)) < m.l for m in problem.models)
        )
        if bad <= problem.max_sup:
            out.append(node)
    return sorted(out)


@pytest.mark.parametrize("seed", range(8))
def test_incognito_and_optimal_equal_brute_force_on_random_tables(seed):
    models = (LDiversity("distinct", 2, "s"),) if seed % 2 else ()
    problem = _random_problem(seed, models)
    truth = _brute_force(problem)
    assert fd.run_to_result(fd.run_optimal(problem)).satisfying == truth
    assert fd.run_to_result(fd.run_incognito(problem)).satisfying == truth
    sam = fd.run_to_result(fd.run_samarati(problem))
    if truth:
        assert sam.chosen.height == min(map(sum, truth))
        assert sam.satisfying == [n for n in truth if sum(n) == sam.chosen.height]
    else:
        assert sam.chosen is None


def test_minimal_nodes_without_monotonicity():
    assert fd.minimal_nodes([(0, 1), (1, 0), (1, 1), (2, 2)]) == [(0, 1), (1, 0)]
    assert fd.minimal_nodes([(2, 0), (0, 2)]) == [(0, 2), (2, 0)]
    assert fd.minimal_nodes([]) == []


def test_runs_are_event_generators():
    from dpstudio.core.events import RunFinished

    problem = _random_problem(3)
    events = list(fd.run_optimal(problem))
    checked = [e for e in events if isinstance(e, fd.NodeChecked)]
    assert isinstance(events[-1], RunFinished) and len(checked) == events[-1].result.nodes
    assert len({e.node.levels for e in checked}) == len(checked)
