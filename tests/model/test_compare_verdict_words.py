"""Issue 24: Compare's explanation contradicted its own number. On a DiffGen-with-consistency release whose
count budget the optimiser spread very unevenly over the levels, the raw tree erred "1.22e+06 times" leaf-only
while the reason given was "a variance about 64 times larger" (the equal split's L^2). The reason now gives
the levels' variances against leaf-only's from the budgets that ran (the ledger's): their range for least
squares and the raw tree, the largest for two-pass averaging (which weighs every level alike)."""

from __future__ import annotations

import re

import numpy as np

from dpstudio.core.range_error import laplace_variance
from dpstudio.model.compare import comparison as cmp
from dpstudio.model.compare.verdict import STRATEGY_KIND, verdict
from tests.gui.export_fixtures import run, table_project


def test_the_reason_uses_the_ledgers_level_budgets():
    p = table_project(n=500, seed=3, steps=4)
    p.set_mode("release")
    run(p)
    r = p.result
    levels = [e for e in p.run_ledger.entries if e.step.startswith("counts: level")]
    leaf = laplace_variance(1 / float(r.count_epsilon), discrete=True)
    ratios = [laplace_variance(e.scale, discrete=True) / leaf for e in levels]
    assert max(ratios) > 1000  # the optimiser left some level almost nothing
    dom = cmp.public_domain(r, p.taxonomies)
    curves = cmp.noise_only_curves(cmp.diffgen_noise_only(r, dom, runs=0))[0]
    noise = cmp.level_noise(r)
    values = {m: curves.values[m] for m in (cmp.LEAF_ONLY, cmp.LEAST_SQUARES)}
    values[cmp.LEAST_SQUARES] = values[cmp.LEAF_ONLY] * 3  # least squares worse: its reason is given
    text = verdict(values, len(levels), "table", noise)
    said = re.search(r"noise variance from ([0-9.e+]+) to ([0-9.e+]+) times leaf-only's", text)
    assert said, text
    assert [float(x) for x in said.groups()] == [float(f"{min(ratios):.3g}"), float(f"{max(ratios):.3g}")]
    assert f"equal shares would give {len(levels) ** 2}" in text
    values = {cmp.LEAF_ONLY: curves.values[cmp.LEAF_ONLY], cmp.SEED_RULE: curves.values[cmp.LEAF_ONLY] * 100}
    said = re.search(r"noise variance ([0-9.e+]+) times leaf-only's, and it enters", verdict(values, 5, "table", noise))
    assert said and float(said.group(1)) == float(f"{max(ratios):.3g}")


def test_equal_shares_keep_the_short_reason():
    values = {cmp.LEAF_ONLY: np.array([2.0, 4.0]), cmp.LEAST_SQUARES: np.array([30.0, 50.0])}
    leaf = 2.0
    text = verdict(values, 3, "table", (leaf, [leaf * 9, leaf * 9, leaf * 9]))
    assert "noise variance 9 times leaf-only's; least squares combines" in text


def test_pidentity_is_not_explained_as_a_tree():
    values = {cmp.LEAF_ONLY: np.array([2.0, 4.0]), cmp.LEAST_SQUARES: np.array([6.0, 9.0])}
    text = verdict(values, 2, STRATEGY_KIND, (2.0, [4.2]))
    assert "levels of the tree" not in text and "weighted sums" in text and "2.1 times the variance" in text


def test_a_ratio_over_sizes_says_it_is_an_average_and_gives_its_range():
    """The walk read "3.94e+03 times" as one factor where the curves differed by 1e6 at some sizes."""
    values = {cmp.LEAF_ONLY: np.array([1.0, 1.0, 1.0]), cmp.RAW_TREE: np.array([2.0, 40.0, 1e6])}
    text = verdict(values, 3, "table")
    assert "expected error 431 times that of leaf-only on average (from 2 to 1e+06 times, by size)" in text
    one = verdict({cmp.LEAF_ONLY: np.array([1.0]), cmp.RAW_TREE: np.array([5.0])}, 3, "histogram")
    assert "5 times that of leaf-only, because" in one
