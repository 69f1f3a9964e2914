"""Issue 24: Compare's explanation contradicted its own number. On a DiffGen-with-consistency release whose
count budget the optimiser spread very unevenly over the levels, the raw tree erred "1.22e+06 times" leaf-only
while the reason given was "a variance about 64 times larger" (the equal split's L^2). The reason now names the
variance of the level that got the least budget, from the budgets that ran: the ledger's."""

from __future__ import annotations

import re

import numpy as np

from dpstudio.core.range_error import laplace_variance
from dpstudio.model import comparison as cmp
from dpstudio.model.compare_verdict import verdict
from tests.gui.export_fixtures import run, table_project


def test_the_reason_uses_the_ledgers_level_budgets():
    p = table_project(n=500, seed=3, steps=4)
    p.set_mode("release")
    run(p)
    r = p.result
    levels = [e for e in p.run_ledger.entries if e.step.startswith("counts: level")]
    worst = max(laplace_variance(e.scale, discrete=True) for e in levels)
    expected = worst / laplace_variance(1 / float(r.count_epsilon), discrete=True)
    assert expected > 1000  # the optimiser left some level almost nothing
    dom = cmp.public_domain(r, p.taxonomies)
    curves = cmp.noise_only_curves(cmp.diffgen_noise_only(r, dom, runs=0))[0]
    text = verdict(curves.values, len(levels), "table", cmp.level_noise(r))
    said = re.search(r"noise variance ([0-9.e+]+) times leaf-only's", text)
    assert said, text
    assert float(said.group(1)) == np.float64(float(f"{expected:.3g}"))
    assert f"about {len(levels) ** 2} times" in text  # what equal shares would give, said as such


def test_equal_shares_keep_the_short_reason():
    values = {cmp.LEAF_ONLY: np.array([2.0, 4.0]), cmp.LEAST_SQUARES: np.array([30.0, 50.0])}
    leaf = 2.0
    text = verdict(values, 3, "table", (leaf, [leaf * 9, leaf * 9, leaf * 9]))
    assert "noise variance 9 times leaf-only's (as with equal shares)" in text


def test_pidentity_is_not_explained_as_a_tree():
    values = {cmp.LEAF_ONLY: np.array([2.0, 4.0]), cmp.LEAST_SQUARES: np.array([6.0, 9.0])}
    text = verdict(values, 2, "pidentity", (2.0, [4.2]))
    assert "levels of the tree" not in text and "weighted sums" in text and "2.1 times the variance" in text
