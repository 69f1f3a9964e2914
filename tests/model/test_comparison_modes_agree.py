"""Compare tells one story in both modes (issue: teaching mode's Monte-Carlo put least squares about 4x above
leaf-only while release mode's analytic figures called it 1.98x better).

The teaching Monte-Carlo used to simulate another release (every node at the uniform scale L/eps_c, least
squares unweighted) than the run's (diffgen-consistent's per-level budgets, least squares weighted by them).
Now both modes simulate the release that ran: for the same queries, teaching mode's Monte-Carlo on the true
counts, release mode's Monte-Carlo from the noise alone, and the exact variances agree within the
Monte-Carlo's standard error, for each release kind (leaf-only, raw tree, least squares)."""

from __future__ import annotations

import numpy as np
import pytest

from dpstudio.core.range_queries import random_boxes
from dpstudio.model.compare import comparison as cmp
from dpstudio.model.release.runs import encode_table
from tests.gui.export_fixtures import run, table_project

KINDS = (cmp.LEAF_ONLY, cmp.RAW_TREE, cmp.LEAST_SQUARES)
BATCHES, RUNS = 24, 12  # independent Monte-Carlo batches: their spread is the standard error


@pytest.fixture(scope="module", params=["teaching", "release"])
def case(request):
    p = table_project(n=500, seed=3, steps=4)
    p.set_mode(request.param)
    run(p)
    r = p.result
    dom = cmp.public_domain(r, p.taxonomies)
    wl = random_boxes(dom, 120, np.random.default_rng(5), attributes=(1, min(2, len(dom))), n_classes=len(r.classes))
    analytic = cmp.diffgen_noise_only(r, dom, runs=0, workload=wl).analytic
    return p, r, dom, wl, analytic


def _within_standard_error(batch_means: dict, analytic: dict) -> None:
    for m in KINDS:
        means = np.asarray(batch_means[m])
        se = means.std(ddof=1) / np.sqrt(means.size)
        an = float(np.mean(analytic[m]))
        assert abs(means.mean() - an) < 4 * se, (m, means.mean(), an, se)


def test_each_modes_monte_carlo_agrees_with_the_exact_variances(case):
    p, r, dom, wl, analytic = case
    if p.teaching:  # the studio's teaching path: the true counts of the project's data, the run's noise
        data = encode_table(p)
        batches = [
            cmp.diffgen_error_by_size(
                data, r, float(r.count_epsilon), runs=RUNS, seed=100 + b, domain=dom, workload=wl, methods=KINDS
            )
            for b in range(BATCHES)
        ]
        means = {m: [float(res.mse[m].mean()) for res in batches] for m in KINDS}
    else:  # the release path: the noise alone
        res = cmp.diffgen_noise_only(r, dom, runs=BATCHES * RUNS, seed=7, workload=wl)
        per_run = {m: res.mse[m].mean(axis=1) for m in KINDS}
        means = {m: [float(x.mean()) for x in np.split(per_run[m], BATCHES)] for m in KINDS}
    _within_standard_error(means, analytic)


def test_both_modes_rank_the_release_kinds_alike(case):
    """The verdict follows the exact variances of the release that ran, whichever the mode."""
    _p, _r, _dom, _wl, analytic = case
    ls, leaf = float(np.mean(analytic[cmp.LEAST_SQUARES])), float(np.mean(analytic[cmp.LEAF_ONLY]))
    assert ls <= float(np.mean(analytic[cmp.RAW_TREE])) * (1 + 1e-9)  # BLUE: never worse than the raw tree
    assert ls != leaf
