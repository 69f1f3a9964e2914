"""Release-mode comparison of DiffGen trees: computed from the noise alone (ALGORITHMS.md 0).

The error of a linear unbiased post-processing does not depend on the true counts; these tests check that
``diffgen_noise_only`` never reads any count, that its analytic variances equal an independent generalized
least-squares computation, and that its Monte-Carlo agrees with them.
"""

from dataclasses import replace

import numpy as np
import pandas as pd
import pytest

from dpstudio.algorithms.diffgen_variance import discrete_laplace_variance
from dpstudio.core.range_queries import cell_weights, random_boxes
from dpstudio.evaluation.diffgen_trees import node_cells
from dpstudio.model.compare import comparison as cmp
from tests.gui.export_fixtures import run, table_project


def release_run(algorithm="diffgen_consistency", n=400, steps=3, seed=0):
    p = table_project(n=n, seed=seed, algorithm=algorithm, steps=steps)
    p.set_mode("release")
    return run(p)


@pytest.fixture(scope="module")
def released():
    p = release_run()
    return p, p.result


class _Raises:
    """Stands in for anything holding counts: any use fails the test."""

    def __getattr__(self, name):
        raise AssertionError(f"a count was read ({name})")

    def __array__(self, *a, **k):
        raise AssertionError("a count was read (as an array)")

    def __getitem__(self, item):
        raise AssertionError("a count was read (indexed)")


def test_noise_only_never_reads_counts(released):
    p, r = released
    dom = cmp.public_domain(r, p.taxonomies)
    guarded = replace(
        r, counts=_Raises(), estimates=_Raises(), tree=replace(r.tree, noisy=_Raises(), estimates=_Raises())
    )
    a = cmp.diffgen_noise_only(guarded, dom, runs=4, seed=7, queries=120)
    b = cmp.diffgen_noise_only(r, dom, runs=4, seed=7, queries=120)
    for m in b.methods:
        np.testing.assert_array_equal(a.mse[m], b.mse[m])
        np.testing.assert_array_equal(a.analytic[m], b.analytic[m])


def test_same_shape_different_counts_same_curves(released):
    """Two releases with the same tree shape and noise scales but other counts: identical curves."""
    p, r = released
    dom = cmp.public_domain(r, p.taxonomies)
    rng = np.random.default_rng(1)
    other = replace(
        r,
        counts=r.counts * 3 + 11,
        estimates=rng.normal(size=r.estimates.shape) * 1e6,
        tree=replace(
            r.tree,
            noisy=rng.integers(0, 10**6, size=r.tree.noisy.shape),
            estimates=rng.normal(size=r.tree.estimates.shape),
        ),
    )
    a = cmp.noise_only_curves(cmp.diffgen_noise_only(other, dom, runs=5, seed=2, queries=150))
    b = cmp.noise_only_curves(cmp.diffgen_noise_only(r, dom, runs=5, seed=2, queries=150))
    np.testing.assert_array_equal(a[0].x, b[0].x)
    for m in b[1].values:
        np.testing.assert_array_equal(a[1].values[m], b[1].values[m])
        np.testing.assert_array_equal(a[0].values[m], b[0].values[m])


def _gls_leaf_covariance(parents, leaves, node_var):
    """Independent: covariance of the least-squares leaf estimates, (H' S^-1 H)^-1, H = node-has-leaf."""
    n = parents.size
    H = np.zeros((n, leaves.size))
    for j, leaf in enumerate(leaves):
        i = int(leaf)
        while i >= 0:
            H[i, j] = 1.0
            i = int(parents[i])
    return np.linalg.inv(H.T @ (H / node_var[:, None]))


def test_analytic_equals_independent_computation(released):
    p, r = released
    dom = cmp.public_domain(r, p.taxonomies)
    res = cmp.diffgen_noise_only(r, dom, runs=0, queries=200, workload_seed=4)
    parents = np.asarray(r.tree.parents)
    leaves = np.sort(r.leaf_nodes)
    K = len(r.classes)
    wl = random_boxes(dom, 200, np.random.default_rng(4), attributes=(1, min(2, len(dom))), n_classes=K)
    np.testing.assert_array_equal(res.sizes, dom.fraction(wl))
    W = cell_weights(dom, node_cells(r, dom, leaves), wl)
    m_q = np.where(wl.classes < 0, K, 1)
    eps_c = float(r.count_epsilon)
    np.testing.assert_allclose(
        res.analytic[cmp.LEAF_ONLY], (W**2).sum(axis=0) * discrete_laplace_variance(1 / eps_c) * m_q
    )
    cov = _gls_leaf_covariance(parents, leaves, np.asarray(r.tree.noise_variances))
    np.testing.assert_allclose(res.analytic[cmp.LEAST_SQUARES], np.einsum("lq,lk,kq->q", W, cov, W) * m_q, rtol=1e-8)
    # least squares is the best linear unbiased estimate: never worse than the raw tree or seed 000's rule
    assert np.all(res.analytic[cmp.LEAST_SQUARES] <= res.analytic[cmp.RAW_TREE] * (1 + 1e-9))
    assert np.all(res.analytic[cmp.LEAST_SQUARES] <= res.analytic[cmp.SEED_RULE] * (1 + 1e-9))


def test_monte_carlo_agrees_with_analytic(released):
    p, r = released
    dom = cmp.public_domain(r, p.taxonomies)
    res = cmp.diffgen_noise_only(r, dom, runs=300, seed=11, queries=150)
    for m in res.methods:
        mc = res.mse[m].mean(axis=0).mean()
        se = res.mse[m].mean(axis=1).std(ddof=1) / np.sqrt(res.runs)
        an = res.analytic[m].mean()
        assert abs(mc - an) < 4 * se, (m, mc, an, se)
    an, mc = cmp.noise_only_curves(res)
    assert an.values.keys() == mc.values.keys()
    for m in mc.values:
        lo, hi = mc.bands[m]
        assert np.all(lo <= mc.values[m]) and np.all(mc.values[m] <= hi)
        ratio = mc.values[m] / an.values[m]
        assert np.all((ratio > 0.6) & (ratio < 1.6)), (m, ratio)


def test_leaf_only_run_uses_uniform_tree_scale_and_sizes_are_domain_shares():
    p = release_run(algorithm="diffgen", steps=2)
    r = p.result
    assert r.tree.noise_variances is None
    leaf_var, node_var, where = cmp.run_noise(r)
    L = int(r.tree.depth.max()) + 1
    eps_c = float(r.count_epsilon)
    assert leaf_var == discrete_laplace_variance(1 / eps_c)
    np.testing.assert_allclose(node_var, discrete_laplace_variance(L / eps_c))
    assert f"L = {L}" in where
    res = cmp.diffgen_noise_only(r, cmp.public_domain(r, p.taxonomies), runs=2, queries=80)
    assert np.all((res.sizes > 0) & (res.sizes <= 1))
    # the noise is drawn with the scale that has the run's variance
    leaf_scale = float(cmp.scale_of_variance(leaf_var))
    np.testing.assert_allclose(leaf_scale, 1 / eps_c, rtol=1e-9)


@pytest.mark.parametrize("scale", [0.05, 0.7, 1.0, 3.0, 250.0])
def test_scale_of_variance_inverts_discrete_laplace_variance(scale):
    np.testing.assert_allclose(cmp.scale_of_variance(discrete_laplace_variance(scale)), scale, rtol=1e-9)
    assert np.isinf(cmp.scale_of_variance(np.inf))


def test_public_domain_refuses_a_changed_taxonomy(released):
    import dpstudio.core.taxonomy_generators as tg

    p, r = released
    taxes = dict(p.taxonomies)
    taxes["work"] = tg.flat_categorical(["A", "B", "C", "D"], "work")
    with pytest.raises(ValueError, match="taxonomy of work changed"):
        cmp.public_domain(r, taxes)


def test_release_classification_needs_no_training_rows(released):
    from dpstudio.evaluation.classification import release_accuracy
    from dpstudio.io.release import release_frame

    p, r = released
    rng = np.random.default_rng(3)
    test = pd.DataFrame(
        {
            "age": rng.integers(17, 90, 120).astype(float),
            "sex": rng.choice(["Male", "Female"], 120),
            "work": rng.choice(["A", "B", "C"], 120),
            "income": rng.choice(["<=50K", ">50K"], 120, p=[0.7, 0.3]),
        }
    )
    s = cmp.classification_scores(r, test, "income", ["age"])
    assert s.raw is None and s.majority_from == "test file"
    assert s.majority == (test["income"] == test["income"].value_counts().idxmax()).mean()
    assert s.release == release_accuracy(release_frame(r), r.cut, test, "income").accuracy


def test_query_blocks_do_not_change_the_result(released):
    p, r = released
    dom = cmp.public_domain(r, p.taxonomies)
    whole = cmp.diffgen_noise_only(r, dom, runs=3, seed=5, queries=90)
    n = r.tree.parents.size
    blocks = cmp.diffgen_noise_only(r, dom, runs=3, seed=5, queries=90, max_weight_cells=n * 7)  # 13 blocks
    for m in whole.methods:
        np.testing.assert_allclose(blocks.mse[m], whole.mse[m], rtol=1e-12)
        np.testing.assert_allclose(blocks.analytic[m], whole.analytic[m], rtol=1e-10)


def test_seed_rule_analytic_needs_a_small_tree(released):
    p, r = released
    dom = cmp.public_domain(r, p.taxonomies)
    res = cmp.diffgen_noise_only(r, dom, runs=0, queries=50, analytic_max_nodes=r.tree.parents.size - 1)
    assert cmp.SEED_RULE not in res.analytic and cmp.LEAST_SQUARES in res.analytic
    an, mc = cmp.noise_only_curves(res)
    assert mc is None and cmp.SEED_RULE not in an.values
