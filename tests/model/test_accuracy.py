"""Accuracy in words before running (model.accuracy, core.range_error.discrete_laplace_half_width)."""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import pandas as pd
import pytest

from dpstudio.core.noise import SimulationNoise
from dpstudio.core.range_error import discrete_laplace_half_width
from dpstudio.core.scales import noise_scale
from dpstudio.model.compare.accuracy import count_accuracy, simulated_preview
from dpstudio.model.project.project import RELEASE, Project
from dpstudio.model.release import budget_plan as bp


def coverage(scale: float, x: int) -> float:
    """P(|Z| <= x) by summing the discrete Laplace pmf term by term (independent of the closed form)."""
    p = math.exp(-1.0 / scale)
    norm = (1 - p) / (1 + p)
    return norm * (1 + 2 * sum(p**k for k in range(1, x + 1)))


@pytest.mark.parametrize("scale", [0.05, 0.3, 1.0, 2.5, 7.0, 40.0, 333.0])
def test_half_width_is_the_smallest_whole_number_covering_95_percent(scale):
    x = discrete_laplace_half_width(scale)
    assert coverage(scale, x) >= 0.95
    assert x == 0 or coverage(scale, x - 1) < 0.95


def test_half_width_matches_the_noise_that_runs_empirically():
    scale = noise_scale(1, Fraction(1, 4))
    x = discrete_laplace_half_width(scale)
    draws = SimulationNoise(7).discrete_laplace(200_000, scale)
    inside = float(np.mean(np.abs(draws) <= x))
    assert abs(inside - coverage(scale, x)) < 0.003  # 200k draws: standard error ~0.0005
    assert inside >= 0.945 and float(np.mean(np.abs(draws) <= x - 1)) < 0.95
    assert abs(x - scale * math.log(20)) <= 1  # near the continuous Laplace's b ln 20


def test_lines_follow_the_split_levels_and_the_leaves():
    plan = bp.default_plan("diffgen_consistency", {"steps": 3, "numeric_attributes": 1}, 1)
    lines = [ln for ln in count_accuracy(plan, example=500) if not ln.best_case]
    levels = plan.level_shares()
    assert [ln.epsilon for ln in lines] == levels + [levels[-1]]
    for ln in lines:
        assert ln.plus_minus == discrete_laplace_half_width(noise_scale(1, ln.epsilon))
        assert f"\u00b1{ln.plus_minus}" in ln.text and "a count of about 500" in ln.text and "(95 %)" in ln.text
    assert "released leaf counts" in lines[-1].text
    # moving budget to the leaves narrows the leaves' error and widens the root's
    shares = list(plan.shares)
    first, last = plan.kinds.index("level"), len(shares) - 1
    moved = shares[first] / 2
    shares[first] -= moved
    shares[last] += moved
    dragged = count_accuracy(plan.with_shares(shares), example=500)
    assert not any(ln.best_case for ln in dragged)  # a dragged split is the one that runs
    assert dragged[-1].plus_minus < lines[-1].plus_minus and dragged[0].plus_minus > lines[0].plus_minus


def test_epsilon_moves_the_figure_and_the_example_only_the_words():
    a = count_accuracy(bp.default_plan("flat", {"bins": 16}, 1), example=1000)
    b = count_accuracy(bp.default_plan("flat", {"bins": 16}, Fraction(1, 10)), example=1000)
    assert len(a) == len(b) == 1 and b[0].plus_minus > 8 * a[0].plus_minus
    c = count_accuracy(bp.default_plan("flat", {"bins": 16}, 1), example=50)
    assert c[0].plus_minus == a[0].plus_minus and "about 50 " in c[0].text
    with pytest.raises(ValueError):
        count_accuracy(bp.default_plan("flat", {"bins": 16}, 1), example=0)


def test_simulated_preview_is_teaching_only_and_shows_true_counts(tmp_path):
    df = pd.DataFrame({"age": [20.0, 30, 40, 50, 60] * 20, "cls": ["a", "b", "b", "b", "a"] * 20})
    p = Project()
    p.set_data(df, None)
    plan = bp.default_plan("diffgen", {"steps": 2, "numeric_attributes": 1}, 1)
    rows = simulated_preview(p, plan, cells=2)
    assert [(c, t) for c, t, _ in rows] == [("cls = b", 60), ("cls = a", 40)]
    assert all(isinstance(n, int) for _, _, n in rows)
    p.set_mode(RELEASE)
    with pytest.raises(ValueError, match="teaching mode only"):
        simulated_preview(p, plan)


def test_optimized_level_shares_add_the_best_case_for_the_leaves():
    """With per-level shares chosen after the tree is built (the default), the bar's equal split overstates
    the leaves' noise: a last line gives the best case, the whole count budget on the leaves."""
    plan = bp.default_plan("diffgen_consistency", {"steps": 10}, 1)
    lines = count_accuracy(plan)
    count_budget = sum(plan.level_shares())
    best = lines[-1]
    assert best.epsilon == count_budget
    assert best.plus_minus == discrete_laplace_half_width(noise_scale(1, count_budget), 0.95)
    assert best.best_case and best.plus_minus < lines[-2].plus_minus and "at best" in best.text
    assert not any(ln.best_case for ln in count_accuracy(bp.default_plan("diffgen", {"steps": 10}, 1)))
