"""The DiffGen-family engine on small hand-made tables (seeded simulation noise)."""

import math
from fractions import Fraction

import numpy as np
import pytest

from dpstudio.algorithms import diffgen_scores as sc
from dpstudio.algorithms.diffgen import (
    log_grid,
    preset,
    round_grid,
    round_step,
    run_diffgen,
    run_to_result,
    uses_log_grid,
)
from dpstudio.algorithms.diffgen_input import CategoricalAttribute, DiffGenInput, NumericAttribute
from dpstudio.core.budget import Ledger
from dpstudio.core.events import (
    BudgetSpent,
    CandidatesScored,
    LeavesReleased,
    NodeCreated,
    NodeNoised,
    RunFinished,
    WinnerChosen,
)
from dpstudio.core.noise import SecureNoise, SimulationNoise
from dpstudio.core.taxonomy import Node, Taxonomy

# Seed 000, table 2(a): 8 job applicants, Country (taxonomy), Age (numeric), Class Y/N.
COUNTRY = ["China", "Korea", "Canada", "USA", "USA", "China", "Korea", "China"]
AGE = [18, 21, 27, 35, 29, 39, 22, 28]
CLASS = ["N", "Y", "N", "N", "Y", "Y", "N", "N"]


def country_taxonomy():
    root = Node("Any", [Node("Asian", [Node("China"), Node("Korea")]), Node("American", [Node("Canada"), Node("USA")])])
    return Taxonomy(root, "Country")


def seed_table(with_age=True, with_country=True):
    tax = country_taxonomy()
    attrs = []
    if with_country:
        attrs.append(CategoricalAttribute("Country", tax, np.array([tax.index(c) for c in COUNTRY])))
    if with_age:
        attrs.append(NumericAttribute("Age", np.array(AGE, float), 15.0, 40.0, integer=True))
    y = np.array([0 if c == "N" else 1 for c in CLASS])
    return DiffGenInput(tuple(attrs), "Class", ("N", "Y"), y)


def events_of(data, params, seed=0, teaching=True, ledger=None):
    ledger = ledger or Ledger(params.epsilon)
    return list(run_diffgen(data, params, SimulationNoise(seed), ledger, teaching=teaching)), ledger


def entropy(*counts):
    n = sum(counts)
    return -sum(c / n * math.log2(c / n) for c in counts if c)


# -- budget accounting ----------------------------------------------------------------------------------


@pytest.mark.parametrize("algorithm", ["diffgen", "diffgen-consistent", "maxgddp"])
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_ledger_total_is_exactly_epsilon(algorithm, seed):
    params = preset(algorithm, Fraction(7, 10), 3)
    evs, ledger = events_of(seed_table(), params, seed)
    assert ledger.spent == Fraction(7, 10)
    assert isinstance(evs[-1], RunFinished)
    counts = [e for e in ledger.entries if e.step.startswith("counts")]
    assert sum(e.epsilon for e in counts) == evs[-1].result.count_epsilon
    assert ledger.entries[-len(counts) :] == counts
    if algorithm == "diffgen-consistent":  # optimized per-level budgets: one entry per level of the tree
        assert len(counts) == int(evs[-1].result.tree.depth.max()) + 1
    else:
        assert len(counts) == 1


def test_diffgen_step_budget_formula_and_counts_get_the_rest():
    eps, h = Fraction(1), 3
    params = preset("diffgen", eps, h)
    evs, ledger = events_of(seed_table(), params, seed=3)
    step = eps / (2 * (1 + 2 * h))  # one numeric attribute
    tree_entries = [e for e in ledger.entries if not e.step.startswith("counts")]
    assert all(e.epsilon == step for e in tree_entries)
    selections = [e for e in tree_entries if "choose a specialization" in e.step]
    assert len(selections) == h
    # root split point + (per numeric winner) one parallel group charged once
    groups = {e.group for e in tree_entries if e.group}
    n_charged = len(selections) + 1 + len(groups)
    counts = [e for e in ledger.entries if e.step.startswith("counts")]
    assert len(counts) == 1
    assert counts[0].epsilon == eps - n_charged * step
    assert counts[0].epsilon >= eps / 2
    assert counts[0].scale == pytest.approx(1 / float(counts[0].epsilon))


def test_early_stop_moves_unspent_budget_to_counts():
    data = seed_table(with_age=False)
    params = preset("diffgen", 1, 5)
    evs, ledger = events_of(data, params)
    result = evs[-1].result
    # Country's taxonomy allows two specializations (Any, then Asian and American one by one): 3 steps
    assert result.steps_done == 3 and result.stopped_early
    step = Fraction(1, 2 * (0 + 2 * 5))
    assert result.count_epsilon == 1 - 3 * step
    assert ledger.spent == 1
    assert len(result.leaf_labels) == 4


def test_maxgddp_geometric_levels():
    params = preset("maxgddp", 1, 4)
    evs, ledger = events_of(seed_table(), params)
    sel = [e.epsilon for e in ledger.entries if "choose" in e.step]
    assert len(sel) == 4
    assert sum(sel) == Fraction(1, 2)
    r = 3 ** (1 / 3)
    for a, b in zip(sel, sel[1:]):
        assert float(b / a) == pytest.approx(r, rel=1e-9)
    assert evs[-1].result.count_epsilon == Fraction(1, 2)
    assert all(e.mechanism.startswith("report-noisy-max") for e in ledger.entries if "choose" in e.step)


# -- scores -----------------------------------------------------------------------------------------------


def _first_scores(evs, step=1):
    return next(
        e
        for e in evs
        if isinstance(e, CandidatesScored)
        and e.step == step
        and e.mechanism in ("exponential mechanism", "report-noisy-max (exponential noise)")
    )


def test_max_and_infogain_scores_match_hand_computation():
    data = seed_table(with_age=False)
    # Asian: N 3, Y 2; American: N 2, Y 1.
    ev = _first_scores(events_of(data, preset("diffgen", 1, 1))[0])
    assert ev.labels == ("Country=Any",)
    assert ev.scores == (5.0,)
    ev = _first_scores(events_of(data, preset("diffgen", 1, 1, score="infogain"))[0])
    expected = entropy(5, 3) - (5 / 8 * entropy(3, 2) + 3 / 8 * entropy(2, 1))
    assert ev.scores[0] == pytest.approx(expected, abs=1e-12)


def test_partition_scope_scores_sum_over_partitions():
    # two partitions; candidate with children c0, c1; classes 0/1
    part = np.array([0, 0, 0, 1, 1, 1, 1])
    child = np.array([0, 0, 1, 0, 1, 1, 1])
    y = np.array([0, 1, 1, 0, 0, 1, 1])
    cand_of_child = np.array([0, 0])
    got = sc.candidate_scores("max", child, part, y, cand_of_child, 1, 2, 2)
    # p0: c0 {0:1,1:1} -> 1, c1 {1:1} -> 1; p1: c0 {0:1} -> 1, c1 {0:1,1:2} -> 2
    assert got.tolist() == [5.0]
    pooled = sc.candidate_scores("max", child, np.zeros_like(part), y, cand_of_child, 1, 1, 2)
    # pooled: c0 {0:2,1:1} -> 2, c1 {0:1,1:3} -> 3
    assert pooled.tolist() == [5.0]
    ig = sc.candidate_scores("infogain", child, part, y, cand_of_child, 1, 2, 2)
    gain_p0 = entropy(1, 2) - (2 / 3 * entropy(1, 1) + 1 / 3 * 0)
    gain_p1 = entropy(2, 2) - (1 / 4 * 0 + 3 / 4 * entropy(1, 2))
    assert ig[0] == pytest.approx(3 / 7 * gain_p0 + 4 / 7 * gain_p1, abs=1e-12)


def test_sensitivities():
    assert sc.sensitivity("max", 2) == 1
    assert sc.sensitivity("infogain", 4) == 2


# -- numeric split points ----------------------------------------------------------------------------------


def test_split_candidates_are_the_public_lattice_points_grouped():
    # Age is integer on [15, 40]: the split points are 16..39 (c_k = 15 + k), grouped by the partition
    # they induce; each point's probability is exp(eps' u(point) / 2), computed here from the records
    data = seed_table(with_country=False)
    evs, _ = events_of(data, preset("diffgen", 1, 1))
    ev = next(e for e in evs if isinstance(e, CandidatesScored) and "intervals" in e.mechanism)
    assert ev.labels == (
        "3 points 16 .. 18",
        "3 points 19 .. 21",
        "22",
        "5 points 23 .. 27",
        "28",
        "29",
        "6 points 30 .. 35",
        "4 points 36 .. 39",
        "(no lattice point)",
    )
    assert sum(ev.probabilities) == pytest.approx(1.0)
    eps = 1 / (2 * (1 + 2))
    age, cls = np.array(AGE), np.array(CLASS)

    def max_score(c):
        left, right = cls[age < c], cls[age >= c]
        return sum(max(np.sum(part == "N"), np.sum(part == "Y")) for part in (left, right))

    points = np.arange(16, 40)
    w = np.array([math.exp(eps * max_score(c) / 2) for c in points])
    group_of = np.repeat(np.arange(8), [3, 3, 1, 5, 1, 1, 6, 4])
    expected = np.bincount(group_of, weights=w / w.sum(), minlength=9)
    np.testing.assert_allclose(ev.probabilities, expected, rtol=1e-12)
    assert ev.scores[0] == max_score(16) and ev.scores[1] == max_score(19) == 5


def test_maxgddp_grid_candidates_from_equal_width_bounds():
    data = seed_table(with_country=False)
    params = preset("maxgddp", 1, 1, grid_bins=5)
    ev = _first_scores(events_of(data, params)[0])
    assert ev.labels == tuple(f"Age=[15,40) at {g}" for g in (20, 25, 30, 35))
    ages, ys = np.array(AGE), np.array([c == "Y" for c in CLASS])
    for g, s in zip((20, 25, 30, 35), ev.scores):
        left, right = ys[ages < g], ys[ages >= g]
        hand = max(left.sum(), (~left).sum()) + max(right.sum(), (~right).sum())
        assert s == hand


@pytest.mark.parametrize(
    "lo, hi, log",
    [
        (0, 100000, True),
        (0, 1500000, True),
        (10, 10000, True),
        (17, 91, False),
        (1, 100, False),
        (0, 999, False),
        (-5, 100000, False),
    ],
)
def test_log_grid_rule_depends_on_the_bounds_only(lo, hi, log):
    assert uses_log_grid(lo, hi) is log
    if log:
        g = log_grid(lo, hi)
        assert g.min() > lo and g.max() < hi
        # three points per decade, in the 1-2-5 series
        assert set(np.round(g / 10.0 ** np.floor(np.log10(g)), 9)) <= {1.0, 2.0, 5.0}


def test_log_grid_of_money_bounds_is_the_bundled_log_taxonomys_cut_points():
    assert log_grid(0, 100000).tolist() == [1, 2, 5, 10, 20, 50, 100, 200, 500, 1000, 2000, 5000, 10000, 20000, 50000]


@pytest.mark.parametrize(
    "lo, hi, bins, integer, step, grid",
    [
        (0, 6, 16, False, 0.5, [0.5, 1, 1.5, 2, 2.5, 3, 3.5, 4, 4.5, 5, 5.5]),  # carats: 6 / 16 = 0.375 -> 0.5
        (17, 91, 16, True, 5, [20, 25, 30, 35, 40, 45, 50, 55, 60, 65, 70, 75, 80, 85, 90]),  # 4.625 -> 5
        (1, 100, 16, True, 10, [10, 20, 30, 40, 50, 60, 70, 80, 90]),  # 6.19 -> 10
        (44.9, 45.06, 16, False, 0.01, [round(44.91 + k / 100, 2) for k in range(15)]),  # latitudes
        (-180, 180, 16, False, 50, [-150, -100, -50, 0, 50, 100, 150]),  # 22.5 -> 50
        (0, 10, 4, False, 5, [5]),  # 2.5 -> 5: a step exactly at the bins' width stays
        (0, 3, 16, True, 1, [1, 2]),  # an integer attribute never takes a step below 1
        (0, 100, 5, False, 20, [20, 40, 60, 80]),  # exactly 20: not rounded up to 50
    ],
)
def test_round_grid_worked_examples(lo, hi, bins, integer, step, grid):
    assert round_step(lo, hi, bins, integer) == step
    g = round_grid(lo, hi, bins, integer)
    assert g.tolist() == grid
    assert len(g) <= bins and g.min() > lo and g.max() < hi
    # every point a whole multiple of the step, which is 1, 2 or 5 times a power of ten
    assert np.allclose(g / step, np.round(g / step))
    mantissa = step / 10.0 ** np.floor(np.log10(step))
    assert round(mantissa, 9) in {1.0, 2.0, 5.0}


@pytest.mark.parametrize(
    "grid, expected",
    [
        ("log", [1, 2, 5, 10, 20, 50, 100, 200, 500]),
        ("round", [1, 2, 5, 10, 20, 50, 100, 200, 500]),  # bounds over three decades: the 1-2-5 series
        ("equal", [200, 400, 600, 800]),
    ],
)
def test_maxgddp_candidates_on_the_log_or_equal_grid(grid, expected):
    amounts = [0, 0, 3, 40, 0, 700, 0, 15]
    y = np.array([0 if c == "N" else 1 for c in CLASS])
    data = DiffGenInput(
        (NumericAttribute("Gain", np.array(amounts, float), 0.0, 1000.0, integer=True),), "Class", ("N", "Y"), y
    )
    params = preset("maxgddp", 1, 1, grid_bins=5, **({} if grid == "round" else {"numeric_grid": grid}))
    evs = events_of(data, params)[0]
    ev = _first_scores(evs)
    assert ev.labels == tuple(f"Gain=[0,1000) at {g}" for g in expected)
    result = evs[-1].result
    assert result.numeric_domains["Gain"]["grid"] == [float(g) for g in expected]
    source = result.numeric_domains["Gain"]["split_points"]
    assert ("1-2-5 series" in source) == (grid != "equal") and ("5 equal-width bins" in source) == (grid == "equal")


@pytest.mark.parametrize(
    "grid, expected, words",
    [
        ("round", [0.5, 1, 1.5, 2, 2.5, 3, 3.5, 4, 4.5, 5, 5.5], "the multiples of 0.5 inside the public bounds"),
        ("log", [6 * k / 16 for k in range(1, 16)], "16 equal-width bins"),
        ("equal", [6 * k / 16 for k in range(1, 16)], "16 equal-width bins"),
    ],
)
def test_maxgddp_on_bounds_under_three_decades_takes_round_steps(grid, expected, words):
    """Carats in [0, 6): the round grid offers 1.0 (the weight a price jumps at), the equal-width grid
    0.75 and 1.125 only; "log" keeps its meaning (equal-width bins below three decades)."""
    carats = np.array([0.3, 0.5, 0.9, 1.0, 1.2, 2.1, 0.7, 1.5])
    y = (carats >= 1.0).astype(int)
    data = DiffGenInput((NumericAttribute("carat", carats, 0.0, 6.0),), "Class", ("N", "Y"), y)
    params = preset("maxgddp", 1, 1, **({} if grid == "round" else {"numeric_grid": grid}))
    evs = events_of(data, params)[0]
    domain = evs[-1].result.numeric_domains["carat"]
    assert domain["grid"] == pytest.approx(expected)
    assert words in domain["split_points"]


def test_maxgddp_default_grid_is_round_and_diffgen_ignores_it():
    assert preset("maxgddp", 1, 3).numeric_grid == "round"
    assert preset("diffgen", 1, 3).numeric_grid == "equal"
    with pytest.raises(ValueError, match="numeric_grid"):
        preset("maxgddp", 1, 3, numeric_grid="quantile")


# -- counts and consistency ----------------------------------------------------------------------------------


def test_released_cells_are_all_leaf_partitions_times_classes_including_empty():
    data = seed_table(with_age=False)
    params = preset("diffgen", 1, 3)
    result = events_of(data, params)[0][-1].result
    assert sorted(result.leaf_labels) == [("Canada",), ("China",), ("Korea",), ("USA",)]
    assert result.counts.shape == (4, 2)
    # two attributes: the product of both cuts, with empty partitions
    tax = country_taxonomy()
    second = Taxonomy(Node("*", [Node("a"), Node("b"), Node("c")]), "Letter")
    letters = np.array([second.index(x) for x in "aaaaaaab"])
    data2 = DiffGenInput(
        (
            CategoricalAttribute("Country", tax, np.array([tax.index(c) for c in COUNTRY])),
            CategoricalAttribute("Letter", second, letters),
        ),
        "Class",
        ("N", "Y"),
        np.array([0 if c == "N" else 1 for c in CLASS]),
    )
    r2 = events_of(data2, preset("diffgen", 1, 4))[0][-1].result
    assert len(r2.leaf_labels) == 4 * 3 == len(set(r2.leaf_labels))
    assert r2.counts.shape == (12, 2)  # 'c' never occurs: its partitions are empty but released


@pytest.mark.parametrize("method", ["least_squares", "hay_generalized"])
def test_consistency_makes_parents_equal_sum_of_children(method):
    params = preset("diffgen-consistent", 1, 3, consistency=method, node_budget="uniform", tree_projection=False)
    result = events_of(seed_table(), params, seed=5)[0][-1].result
    tree = result.tree
    sums = np.zeros_like(tree.estimates)
    np.add.at(sums, tree.parents[1:], tree.estimates[1:])
    internal = np.bincount(tree.parents[1:], minlength=tree.parents.size) > 0
    assert np.allclose(sums[internal], tree.estimates[internal])
    assert np.allclose(result.estimates, tree.estimates[result.leaf_nodes])
    L = int(tree.depth.max()) + 1
    counts = [e for e in result.ledger.entries if e.step.startswith("counts")][0]
    assert counts.sensitivity == L and counts.scale == pytest.approx(L / float(counts.epsilon))
    assert result.post_processing[0] == {"step": "consistency", "method": method}
    assert [p["step"] for p in result.post_processing][1:] in (["rounding", "clamping"], ["rounding"], ["clamping"], [])


def dense_gls_variances(parents, s2):
    """Variances of every node's BLUE by dense GLS: unknown leaf counts x, observations y = A x + noise,
    cov = (A' S^-1 A)^-1 (an independent check of the two-pass formulas)."""
    n = parents.size
    is_leaf = np.bincount(parents[1:], minlength=n) == 0
    leaves = np.flatnonzero(is_leaf)
    A = np.zeros((n, leaves.size))
    for j, leaf in enumerate(leaves):
        i = leaf
        while i >= 0:
            A[i, j] = 1
            i = parents[i]
    cov = np.linalg.inv(A.T @ np.diag(1 / s2) @ A)
    return np.einsum("ij,jk,ik->i", A, cov, A)


def test_least_squares_variances_match_dense_gls():
    from dpstudio.algorithms.diffgen_variance import least_squares_variances

    parents = np.array([-1, 0, 0, 1, 1, 1, 2, 2, 4, 4])
    s2 = np.random.default_rng(0).uniform(0.5, 3, size=parents.size)
    assert np.allclose(least_squares_variances(parents, s2), dense_gls_variances(parents, s2))


def test_path_node_budget_keeps_every_path_within_the_count_budget():
    params = preset("diffgen-consistent", 1, 3, node_budget="path")
    evs, ledger = events_of(seed_table(), params, seed=2)
    result = evs[-1].result
    from dpstudio.core.events import BudgetAssigned

    eps_node = {e.node: e.epsilon for e in evs if isinstance(e, BudgetAssigned)}
    tree = result.tree
    for leaf in result.leaf_nodes:
        total, i = 0.0, int(leaf)
        while i >= 0:
            total += eps_node[i]
            i = int(tree.parents[i])
        assert total <= float(result.count_epsilon) + 1e-12
    assert ledger.spent == 1


# -- events ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize("algorithm", ["diffgen", "diffgen-consistent", "maxgddp"])
def test_every_noisy_value_is_paid_for_before_it_is_yielded(algorithm):
    evs, _ = events_of(seed_table(), preset(algorithm, 1, 3), seed=4)
    kinds = [type(e) for e in evs]
    first_noised = kinds.index(NodeNoised)
    counts_spend = [i for i, e in enumerate(evs) if isinstance(e, BudgetSpent) and e.spend.step.startswith("counts")]
    assert counts_spend and counts_spend[-1] < first_noised
    assert len(counts_spend) == 1 or algorithm == "diffgen-consistent"  # one entry per level
    for i, e in enumerate(evs):
        if isinstance(e, WinnerChosen):
            assert isinstance(evs[i - 1], BudgetSpent)
    assert kinds.index(LeavesReleased) < len(kinds) - 1 and kinds[-1] is RunFinished


@pytest.mark.parametrize("selection", ["exponential", "noisy_max"])
def test_selection_probabilities_sum_to_one(selection):
    evs, _ = events_of(seed_table(), preset("diffgen", 1, 3, selection=selection))
    scored = [e for e in evs if isinstance(e, CandidatesScored)]
    assert scored
    for e in scored:
        assert len(e.probabilities) == len(e.labels) == len(e.scores)
        assert sum(e.probabilities) == pytest.approx(1.0)


def test_release_mode_events_carry_no_true_counts_or_scores():
    evs, _ = events_of(seed_table(), preset("diffgen-consistent", 1, 3), teaching=False)
    assert all(e.true_count is None for e in evs if isinstance(e, (NodeCreated, NodeNoised)))
    scored = [e for e in evs if isinstance(e, CandidatesScored)]
    assert scored and all(all(math.isnan(s) for s in e.scores + e.probabilities) for e in scored)
    # split candidates are intervals between data values: neither they nor their number is shown
    split = [e for e in scored if "intervals" in e.mechanism]
    assert split and all(e.labels == e.scores == e.probabilities == () for e in split)


def test_teaching_events_carry_true_counts():
    evs, _ = events_of(seed_table(), preset("diffgen", 1, 2))
    root = next(e for e in evs if isinstance(e, NodeCreated))
    assert root.true_count == 8 and root.depth == 0 and root.parent == -1
    leaves = [e for e in evs if isinstance(e, NodeNoised)]
    assert sum(sum(e.true_count) for e in leaves) == 8


def test_teaching_refuses_secure_noise():
    with pytest.raises(ValueError, match="teaching"):
        list(run_diffgen(seed_table(), preset("diffgen", 1, 1), SecureNoise(), Ledger(1), teaching=True))


def test_same_seed_same_release_and_headless_result_matches():
    params = preset("diffgen-consistent", 1, 3)
    r1 = events_of(seed_table(), params, seed=9, teaching=False)[0][-1].result
    r2 = run_to_result(seed_table(), params, SimulationNoise(9), Ledger(1))
    assert r1.leaf_labels == r2.leaf_labels
    assert np.array_equal(r1.counts, r2.counts)


def test_released_cut_maps_every_leaf_value():
    result = events_of(seed_table(), preset("diffgen", 1, 3), seed=1)[0][-1].result
    mapping = result.cut["Country"]["leaf_to_label"]
    assert set(mapping) == {"China", "Korea", "Canada", "USA"}
    labels = {lab for row in result.leaf_labels for lab in row[:1]}
    assert set(mapping.values()) == labels
    iv = result.cut["Age"]["intervals"]
    assert iv[0][0] == 15 and iv[-1][1] == 40
    assert all(a[1] == b[0] for a, b in zip(iv, iv[1:]))


def test_bad_parameters_are_refused():
    with pytest.raises(ValueError):
        preset("diffgen", 0, 3)
    with pytest.raises(ValueError):
        preset("diffgen", 1, -1)
    with pytest.raises(ValueError):
        preset("nope", 1, 1)
    with pytest.raises(ValueError):
        preset("diffgen", 1, 1, budget="geometric")  # needs grid split points


def test_seed_rule_variances_equal_least_squares_on_complete_binary_tree():
    from dpstudio.algorithms.diffgen_variance import least_squares_variances, linear_estimator_variances
    from dpstudio.core.consistency import hay_generalized

    parents = np.array([-1, 0, 0, 1, 1, 2, 2])
    hay = linear_estimator_variances(hay_generalized, parents, 2.0)
    assert np.allclose(hay, least_squares_variances(parents, 2.0))
    assert np.all(hay[3:] < 2.0)  # consistency lowers the leaves' variance


def test_adult_release_covers_every_value_and_cut_product(shared_data):
    from dpstudio.io.adult import load_adult
    from dpstudio.io.encoding import encode_table
    from dpstudio.io.taxonomy_formats import read_taxonomy
    from dpstudio.resources import resource

    train, test = load_adult(shared_data / "adult")
    names = ["workclass", "education", "marital-status", "sex"]
    tax = {n: read_taxonomy(resource("taxonomies", "adult", f"{n}.csv"), attribute=n) for n in names}
    data = encode_table(train, "Y", tax, {"age": (17, 91), "hours-per-week": (1, 100)})
    assert data.n_records == 30162 and data.classes == ("<=50K", ">50K")
    result = run_to_result(data, preset("diffgen-consistent", 1, 6), SimulationNoise(0), Ledger(1))
    sizes = [len(set(result.cut[n]["leaf_to_label"].values())) for n in names] + [
        len(result.cut[n]["intervals"]) for n in ("age", "hours-per-week")
    ]
    assert result.counts.shape == (int(np.prod(sizes)), 2)
    assert abs(int(result.counts.sum()) - 30162) < 3000  # noise is small next to the total
    for n in names:
        assert set(test[n]) <= set(result.cut[n]["leaf_to_label"])


@pytest.mark.parametrize("score", ["max", "infogain"])
def test_grid_scores_do_not_depend_on_partition_chunking(monkeypatch, score):
    rng = np.random.default_rng(1)
    n = 300
    tax = country_taxonomy()
    leaves = [tax.index(c) for c in ("China", "Korea", "Canada", "USA")]
    data = DiffGenInput(
        (
            CategoricalAttribute("Country", tax, rng.choice(leaves, n)),
            NumericAttribute("Age", rng.integers(15, 40, n).astype(float), 15.0, 40.0, integer=True),
        ),
        "Class",
        ("N", "Y"),
        rng.integers(0, 2, n),
    )
    params = preset("maxgddp", 1, 3, score=score, grid_bins=5)

    def scores():
        evs, _ = events_of(data, params, seed=3)
        return [e.scores for e in evs if isinstance(e, CandidatesScored)]

    whole = scores()
    monkeypatch.setattr(sc, "DENSE_LIMIT", 8)  # one partition per chunk
    chunked = scores()
    assert len(whole) == 3
    for a, b in zip(whole, chunked):
        assert np.allclose(a, b)


@pytest.mark.parametrize("algorithm", ["diffgen", "diffgen-consistent", "maxgddp"])
def test_secure_noise_runs_every_preset(algorithm):
    result = run_to_result(seed_table(), preset(algorithm, 1, 3), SecureNoise(), Ledger(1))
    assert result.noise.is_secure and result.ledger.spent == 1
    assert result.counts.dtype.kind == "i" and (result.counts >= 0).all()


def test_three_classes_and_no_attributes():
    y = np.array([0, 1, 2, 2, 1, 0, 2])
    data = DiffGenInput((), "C", ("a", "b", "c"), y)
    result = run_to_result(data, preset("diffgen", 1, 4, score="infogain"), SimulationNoise(0), Ledger(1))
    assert result.stopped_early and result.steps_done == 0
    assert result.counts.shape == (1, 3) and result.count_epsilon == 1
    tax = country_taxonomy()
    data3 = DiffGenInput(
        (CategoricalAttribute("Country", tax, np.array([tax.index(c) for c in COUNTRY[:7]])),), "C", ("a", "b", "c"), y
    )
    evs, ledger = events_of(data3, preset("diffgen", 1, 1, score="infogain"))
    sel = [e for e in ledger.entries if "choose" in e.step][0]
    assert sel.sensitivity == pytest.approx(math.log2(3))
    assert evs[-1].result.counts.shape == (2, 3)


def test_split_interval_frequencies_match_the_stated_probabilities():
    data = seed_table(with_country=False)
    params = preset("diffgen", 8, 1)  # a large budget makes the probabilities uneven
    evs, _ = events_of(data, params, seed=0)
    probs = np.array(next(e for e in evs if isinstance(e, CandidatesScored) and e.step == 0).probabilities)
    draws = 1500
    wins = np.zeros(probs.size)
    for seed in range(draws):
        ev = next(
            e
            for e in run_diffgen(data, params, SimulationNoise(seed), Ledger(8), teaching=True)
            if isinstance(e, WinnerChosen)
        )
        wins[ev.index] += 1
    assert np.abs(wins / draws - probs).max() < 0.04


@pytest.mark.parametrize("score", ["max", "infogain"])
@pytest.mark.parametrize("limit", [1 << 23, 4])
def test_all_records_scoring_equals_masked_scoring(monkeypatch, score, limit):
    rng = np.random.default_rng(5)
    n, C, P, K = 500, 7, 6, 3
    cand_of_child = np.array([0, 0, 1, 1, 1, 2, 2])
    child = rng.integers(0, C + 1, n)  # C = under no candidate
    part, y = rng.integers(0, P, n), rng.integers(0, K, n)
    keep = child < C
    expected = sc.candidate_scores(score, child[keep], part[keep], y[keep], cand_of_child, 3, P, K)
    monkeypatch.setattr(sc, "DENSE_LIMIT", limit)
    got = sc.candidate_scores_all(score, child, part * K + y, cand_of_child, 3, P, K)
    assert np.allclose(got, expected)
