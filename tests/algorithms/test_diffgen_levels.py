"""Per-level count budgets chosen for a DiffGen tree's shape (algorithms.diffgen_levels) and their use in
diffgen-consistent (default): beats uniform, every root-to-leaf path sums to the count budget exactly."""

from fractions import Fraction

import numpy as np
import pytest

from dpstudio.algorithms.diffgen import preset, run_to_result
from dpstudio.algorithms.diffgen_levels import level_objective, node_shares, optimal_level_shares
from dpstudio.core.budget import Ledger
from dpstudio.core.noise import SimulationNoise

from .test_diffgen import dense_gls_variances, seed_table


def random_tree(rng, n, reach):
    return np.array([-1] + [int(rng.integers(max(0, i - reach), i)) for i in range(1, n)])


def objective_dense(parents, shares):
    """The module's f, from dense GLS (leaf-only variance 1 per unit share)."""
    s = node_shares(parents, shares)
    U = dense_gls_variances(parents, 1 / s**2)
    n = parents.size
    has_child = np.bincount(parents[parents >= 0], minlength=n) > 0
    under = np.array([len(leaves_under(parents, i)) for i in range(n)])
    r = U / under
    depth = np.array([len(path(parents, i)) - 1 for i in range(n)])
    f = r[~has_child].mean()
    levels = [r[has_child & (depth == d)].mean() for d in range(depth.max() + 1) if (has_child & (depth == d)).any()]
    return f + (np.mean(levels) + r[0] if levels else 0.0)


def path(parents, i):
    out = []
    while i >= 0:
        out.append(i)
        i = parents[i]
    return out


def leaves_under(parents, i):
    """Leaves under node i."""
    n = parents.size
    has_child = np.bincount(parents[parents >= 0], minlength=n) > 0
    return [j for j in range(n) if not has_child[j] and i in path(parents, j)]


@pytest.mark.parametrize("seed", range(12))
def test_optimized_shares_beat_uniform_on_random_trees_and_every_path_sums_to_one(seed):
    rng = np.random.default_rng(seed)
    parents = random_tree(rng, int(rng.integers(8, 70)), int(rng.integers(2, 12)))
    shares = np.array(optimal_level_shares(parents))
    L = shares.size
    uniform = np.full(L, 1.0 / L)
    f_opt, f_uni = objective_dense(parents, shares), objective_dense(parents, uniform)
    assert level_objective(parents, shares) == pytest.approx(f_opt, rel=1e-9)
    assert level_objective(parents, uniform) == pytest.approx(f_uni, rel=1e-9)
    assert f_opt < 0.9 * f_uni
    s = node_shares(parents, shares)
    n = parents.size
    leaves = np.flatnonzero(np.bincount(parents[parents >= 0], minlength=n) == 0)
    for leaf in leaves:
        assert sum(s[i] for i in path(parents, leaf)) == pytest.approx(1.0, abs=1e-12)


def test_engine_paths_never_exceed_the_count_budget_exactly():
    """diffgen-consistent's default: every root-to-leaf path of the released tree sums to the count budget
    (exact fractions from the ledger; the scales are noise_scale of them)."""
    for seed in range(5):
        eps = Fraction(9, 10)
        ledger = Ledger(eps)
        result = run_to_result(seed_table(), preset("diffgen-consistent", eps, 3), SimulationNoise(seed), ledger)
        assert ledger.spent == eps
        entries = [e for e in ledger.entries if e.step.startswith("counts: level")]
        tree = result.tree
        L = int(tree.depth.max()) + 1
        assert len(entries) == L and sum(e.epsilon for e in entries) == result.count_epsilon
        level_eps = [e.epsilon for e in entries]
        is_leaf = np.bincount(tree.parents[1:], minlength=tree.parents.size) == 0
        for leaf in np.flatnonzero(is_leaf):
            d = int(tree.depth[leaf])
            # internal ancestors at depths 0..d-1, the leaf takes levels d..L-1
            assert sum(level_eps[:d], Fraction(0)) + sum(level_eps[d:], Fraction(0)) == result.count_epsilon
        from dpstudio.algorithms.diffgen_variance import discrete_laplace_variance
        from dpstudio.core.scales import noise_scale

        for i in range(tree.parents.size):
            d = int(tree.depth[i])
            e = sum(level_eps[d:], Fraction(0)) if is_leaf[i] else level_eps[d]
            assert tree.noise_variances[i] == discrete_laplace_variance(noise_scale(1, e))


@pytest.mark.parametrize("seed", range(6))
def test_the_total_is_never_noisier_than_under_the_uniform_split(seed):
    rng = np.random.default_rng(100 + seed)
    parents = random_tree(rng, int(rng.integers(30, 90)), int(rng.integers(3, 20)))
    shares = np.array(optimal_level_shares(parents))
    L = shares.size
    assert shares[0] >= 1 / L - 1e-12
    var_opt = dense_gls_variances(parents, 1 / node_shares(parents, shares) ** 2)[0]
    assert var_opt <= L**2 * (1 + 1e-9)  # the uniform split's noisy root alone (scale L / eps_c)
