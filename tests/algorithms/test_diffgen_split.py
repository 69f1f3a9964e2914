"""Explicit budget splits of the DiffGen engine: defaults unchanged, validation, exact ledger totals."""

from fractions import Fraction

import numpy as np
import pytest

from dpstudio.algorithms.diffgen import plan_budget, preset, run_to_result
from dpstudio.algorithms.diffgen_input import DiffGenInput, NumericAttribute
from dpstudio.core.budget import Ledger
from dpstudio.core.noise import SimulationNoise
from tests.algorithms.test_diffgen import seed_table


def numeric_table(n=300, seed=0):
    rng = np.random.default_rng(seed)
    a = NumericAttribute("a", rng.integers(0, 100, n).astype(float), 0.0, 100.0, integer=True)
    b = NumericAttribute("b", rng.integers(0, 50, n).astype(float), 0.0, 50.0, integer=True)
    return DiffGenInput((a, b), "y", ("0", "1"), rng.integers(0, 2, n))


@pytest.mark.parametrize("h,a", [(0, 0), (1, 0), (4, 1), (10, 3)])
def test_default_plan_is_diffgens_formula(h, a):
    b = plan_budget(preset("diffgen", Fraction(7, 10), h), a)
    step = Fraction(7, 10) / (2 * (a + 2 * h)) if h else Fraction(0)
    assert b.step_epsilons == (step,) * h and b.split_epsilon == step and b.split_choices == (a + h if h else 0)
    assert b.count_epsilon == (Fraction(7, 20) if h else Fraction(7, 10))


def test_count_fraction_keeps_the_formulas_proportions():
    b = plan_budget(preset("diffgen", 2, 3, count_fraction=Fraction(3, 4)), 2)
    assert b.step_epsilons == (Fraction(1, 16),) * 3 and b.split_epsilon == Fraction(1, 16)
    assert b.count_epsilon == Fraction(3, 2)
    # the half-and-half count share is the default
    assert plan_budget(preset("diffgen", 2, 3, count_fraction=Fraction(1, 2)), 2) == plan_budget(
        preset("diffgen", 2, 3), 2
    )
    m = plan_budget(preset("maxgddp", 1, 4, count_fraction=Fraction(1, 3)), 0)
    assert sum(m.step_epsilons) == Fraction(2, 3) and m.count_epsilon == Fraction(1, 3)
    assert m == plan_budget(preset("maxgddp", 1, 4, tree_fraction=Fraction(2, 3)), 0)


def test_explicit_fractions_reach_the_ledger_exactly():
    sel = (Fraction(1, 10), Fraction(1, 20), Fraction(3, 20))
    params = preset("diffgen", 1, 3, selection_fractions=sel, split_fraction=Fraction(1, 5))
    ledger = Ledger(1)
    res = run_to_result(numeric_table(), params, SimulationNoise(3), ledger)
    chosen = [e.epsilon for e in ledger.entries if "choose a specialization" in e.step]
    assert chosen == list(sel)
    split = [e.epsilon for e in ledger.entries if "split point" in e.step]
    assert set(split) == {Fraction(1, 5) / (2 + 3)}  # |A_num| + h choices share the split fraction
    assert ledger.spent == 1 and res.count_epsilon == 1 - sum(sel) - sum(split[:2]) - 3 * split[0]
    assert res.params.to_dict()["selection_fractions"] == ["1/10", "1/20", "3/20"]
    assert res.params.to_dict()["split_fraction"] == "1/5"


def test_level_fractions_per_level_budgets_and_paths():
    lv = (Fraction(1, 2), Fraction(1, 4), Fraction(1, 8), Fraction(1, 8))
    params = preset("diffgen-consistent", 1, 3, level_fractions=lv)
    ledger = Ledger(1)
    res = run_to_result(numeric_table(), params, SimulationNoise(4), ledger)
    counts = [e for e in ledger.entries if e.step.startswith("counts")]
    eps_c = res.count_epsilon
    assert [e.epsilon for e in counts] == [eps_c * f for f in lv] and ledger.spent == 1
    # node noise scale = 1 / its level's budget; every root-to-leaf path sums to at most eps_c
    from dpstudio.algorithms.diffgen_variance import discrete_laplace_variance

    t = res.tree
    for d, f in enumerate(lv):
        at = t.depth == d
        assert np.allclose(t.noise_variances[at], discrete_laplace_variance(1 / float(eps_c * f)))
    assert int(t.depth.max()) == 3


def test_level_fractions_of_a_shallower_tree_go_to_its_deepest_level():
    # seed table, country only: the taxonomy has 2 levels below the root, so the tree has 3 levels
    lv = (Fraction(1, 4),) * 4
    params = preset("diffgen-consistent", 1, 3, level_fractions=lv)
    ledger = Ledger(1)
    res = run_to_result(seed_table(with_age=False), params, SimulationNoise(1), ledger)
    counts = [e.epsilon for e in ledger.entries if e.step.startswith("counts")]
    assert int(res.tree.depth.max()) == 2 and len(counts) == 3  # 3 steps, but only 3 levels
    assert counts == [res.count_epsilon / 4, res.count_epsilon / 4, res.count_epsilon / 2]
    assert ledger.spent == 1


@pytest.mark.parametrize(
    "kw,needle",
    [
        (dict(selection_fractions=(Fraction(1, 10),)), "one share per step"),
        (dict(selection_fractions=(Fraction(1, 2),) * 3), "nothing is left for the counts"),
        (dict(count_fraction=1), "below 1"),
        (dict(count_fraction=0), "count_fraction"),
        (dict(count_fraction=Fraction(1, 2), split_fraction=Fraction(1, 5)), "not both"),
        (dict(level_fractions=(1, 1)), "level_fractions apply"),
        (dict(selection_fractions=(0, Fraction(1, 10), Fraction(1, 10))), "selection_fractions"),
    ],
)
def test_bad_splits_are_refused(kw, needle):
    with pytest.raises(ValueError, match=needle):
        preset("diffgen", 1, 3, **kw)


def test_zero_split_share_with_numeric_attributes_is_refused_before_spending():
    params = preset("diffgen", 1, 2, split_fraction=0)
    ledger = Ledger(1)
    with pytest.raises(ValueError, match="split-point share is 0"):
        run_to_result(numeric_table(), params, SimulationNoise(1), ledger)
    assert ledger.spent == 0


def test_maxgddp_selection_fractions_and_tree_fraction():
    sel = (Fraction(1, 10), Fraction(1, 5))
    params = preset("maxgddp", 1, 2, selection_fractions=sel, tree_fraction=Fraction(3, 10))
    ledger = Ledger(1)
    run_to_result(numeric_table(), params, SimulationNoise(2), ledger)
    assert [e.epsilon for e in ledger.entries if "choose" in e.step] == list(sel)
    assert [e.epsilon for e in ledger.entries if e.step.startswith("counts")] == [Fraction(7, 10)]
