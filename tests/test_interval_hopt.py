"""H_opt (per-level budgets optimised for the error after least squares) and the automatic choice of
``dpstudio histogram`` without ``--algorithm``."""

import json
import math
from fractions import Fraction

import numpy as np
import pytest

from dpstudio.algorithms.interval_budgets import path_sums
from dpstudio.algorithms.interval_trees import (
    AUTO_CANDIDATES,
    IntervalTreeParams,
    choose_algorithm,
    monte_carlo_all_range_mse,
    plan_interval_tree,
    release_histogram,
)
from dpstudio.cli import main
from dpstudio.core.budget import Ledger
from dpstudio.core.coverage import n_ranges
from dpstudio.core.noise import SimulationNoise


def hopt(n, eps=1.0, noise_root=True):
    return plan_interval_tree(n, IntervalTreeParams("hopt", eps, None, noise_root))


@pytest.mark.parametrize("n", [2, 7, 74, 300, 1000])
def test_every_path_sums_to_epsilon_and_every_leaf_is_noised(n):
    plan = hopt(n, 0.5)
    sums = path_sums(plan.tree, plan.epsilons)
    assert np.all(sums <= 0.5) and np.all(sums > 0.5 * (1 - 1e-8))  # leaves take the rest of their path
    assert np.all(plan.noised[plan.tree.is_leaf])
    assert np.array_equal(plan.noised, plan.epsilons > 0)
    assert plan.sensitivity == max(int(np.sum(plan.noised[path])) for path in _paths(plan.tree))


def _paths(tree):
    for leaf in np.flatnonzero(tree.is_leaf):
        path, x = [], int(leaf)
        while x >= 0:
            path.append(x)
            x = int(tree.parents[x])
        yield path


def test_analytic_error_equals_dense_generalised_least_squares():
    """Independent computation: Sigma = (A^T D^-1 A)^-1 over the noised nodes' rows, and the all-range
    workload W^T W [i, j] = #ranges holding bins i and j; MSE = tr(W^T W Sigma) / #ranges."""
    n = 45
    plan = hopt(n)
    t = plan.tree
    rows = np.flatnonzero(plan.noised)
    A = np.zeros((rows.size, n))
    for k, x in enumerate(rows):
        A[k, t.lo[x] : t.hi[x]] = 1.0
    sigma = np.linalg.inv(A.T @ (A / plan.variances[rows][:, None]))
    i = np.arange(1, n + 1)
    wtw = np.minimum.outer(i, i) * (n + 1 - np.maximum.outer(i, i))
    assert plan.expected_consistent_mse == pytest.approx(np.trace(wtw @ sigma) / n_ranges(n), rel=1e-9)


@pytest.mark.slow
@pytest.mark.parametrize("n", [256, 300])
def test_analytic_error_matches_monte_carlo_within_3_percent(n):
    """4000 runs put the standard error near 1 % of the mean, so a 3 % band is a real check (300 bins:
    leaves at two depths, the shallower ones with the rest of their path)."""
    plan = hopt(n)
    mean, se = monte_carlo_all_range_mse(plan, runs=4000, seed=11)
    assert se < 0.011 * mean
    assert abs(mean / plan.expected_consistent_mse - 1) < 0.03


@pytest.mark.parametrize("n", [256, 1000])
def test_beats_hb_without_root_and_luedp_after_least_squares(n):
    best = hopt(n).expected_consistent_mse
    for algo, root in (("hb", False), ("hb", True), ("luedp", False), ("luedp", True)):
        other = plan_interval_tree(n, IntervalTreeParams(algo, 1.0, None, root)).expected_consistent_mse
        assert best < other, (algo, root)


def test_no_root_is_kept():
    plan = hopt(300, noise_root=False)
    assert not plan.noised[0]
    assert "root not noised" in plan.notes


def test_release_spends_epsilon_once_and_releases_the_least_squares_leaves():
    counts = np.random.default_rng(3).poisson(30, 200)
    ledger = Ledger(Fraction(1, 2))
    res = release_histogram(
        counts, IntervalTreeParams("hopt", "0.5", published="least_squares"), SimulationNoise(4), ledger
    )
    assert ledger.spent == Fraction(1, 2) and len(ledger.to_dict()["entries"]) == 1
    assert res.released.sum() == pytest.approx(res.estimates[0])  # consistent: the leaves add up to the root
    assert res.plan.variances[res.plan.noised].max() > res.plan.variances[res.plan.noised].min()


@pytest.mark.parametrize("n", [5, 74, 1000])
def test_choice_is_the_candidate_with_the_lowest_expected_error(n):
    chosen, reason = choose_algorithm(n, Fraction(1))
    errors = {
        a: math.sqrt(plan_interval_tree(n, IntervalTreeParams(a, 1.0)).expected_consistent_mse) for a in AUTO_CANDIDATES
    }
    assert reason["expected_all_range_rmse"] == pytest.approx(errors, rel=1e-6)
    assert chosen == min(errors, key=errors.get) and reason["chosen"] == chosen


def test_choice_honours_no_root():
    _, reason = choose_algorithm(74, 1, noise_root=False)
    assert "pidentity" in reason["left_out"]
    for algo in set(AUTO_CANDIDATES) - {"pidentity"}:
        assert not plan_interval_tree(74, IntervalTreeParams(algo, 1, None, False)).noised[0]
    assert reason["expected_all_range_rmse"]["hb"] == pytest.approx(
        math.sqrt(plan_interval_tree(74, IntervalTreeParams("hb", 1, None, False)).expected_consistent_mse)
    )


def test_cli_without_algorithm_says_which_and_why(tmp_path, capsys):
    (tmp_path / "c.txt").write_text("\n".join(map(str, np.random.default_rng(1).poisson(20, 300))) + "\n")
    out = tmp_path / "h.csv"
    code = main(
        [
            "histogram",
            "--counts",
            str(tmp_path / "c.txt"),
            "--epsilon",
            "1",
            "--out",
            str(out),
            "--seed",
            "2",
            "--budget-store",
            "none",
        ]
    )
    assert code == 0
    side = json.loads(out.with_suffix(".json").read_text())
    choice = side["algorithm_choice"]
    assert side["algorithm"] == choice["chosen"] == "pidentity"
    assert choice["expected_all_range_rmse"]["pidentity"] == pytest.approx(side["expected_all_range_rmse"])
    assert "lowest expected" in choice["rule"]
    given = main(
        [
            "histogram",
            "--counts",
            str(tmp_path / "c.txt"),
            "--epsilon",
            "1",
            "--out",
            str(tmp_path / "g.csv"),
            "--seed",
            "2",
            "--budget-store",
            "none",
            "--algorithm",
            "hb",
        ]
    )
    assert given == 0
    assert json.loads((tmp_path / "g.json").read_text())["algorithm_choice"] == "given by the user"
