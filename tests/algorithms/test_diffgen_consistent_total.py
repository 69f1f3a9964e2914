"""diffgen-consistent's default post-processing: the exported total is unbiased (Monte-Carlo, simulation
noise), every cell is a non-negative integer, and the released cells add up to the projected root."""

import numpy as np
import pytest

from dpstudio.algorithms.diffgen import preset, run_to_result
from dpstudio.core.budget import Ledger
from dpstudio.core.noise import SimulationNoise

from .test_diffgen import seed_table


def test_exported_total_is_unbiased_nonnegative_and_integral():
    data = seed_table()  # 8 records: most cells of the released tree are empty
    totals = []
    for seed in range(300):
        params = preset("diffgen-consistent", 1, 3)
        result = run_to_result(data, params, SimulationNoise(seed), Ledger(1))
        c = result.counts
        assert c.dtype.kind == "i" and (c >= 0).all()
        root = np.round(np.maximum(result.tree.estimates[0], 0))
        assert np.array_equal(c.sum(axis=0), root)  # per class: the leaves add up to the root
        assert [p["step"] for p in result.post_processing] == ["consistency", "projection", "rounding"]
        totals.append(c.sum())
    totals = np.array(totals, dtype=float)
    se = totals.std() / np.sqrt(totals.size)
    # clamping the leaves (the old default) gives a mean total of several times 8
    assert abs(totals.mean() - 8) < 4 * se + 0.5


@pytest.mark.parametrize("algorithm", ["diffgen", "maxgddp"])
def test_leaf_only_presets_keep_the_sum_of_their_noisy_leaves(algorithm):
    """Leaf-only releases project their noisy leaves over the released tree instead of clamping: the
    released total is the sum of the noisy leaves (clamped at 0 per class), unbiased, not inflated."""
    data = seed_table()
    totals = []
    for seed in range(300):
        result = run_to_result(data, preset(algorithm, 1, 3), SimulationNoise(seed), Ledger(1))
        c = result.counts
        assert c.dtype.kind == "i" and (c >= 0).all()
        noisy_sum = np.maximum(result.estimates.sum(axis=0), 0)  # the noisy leaves, per class
        assert np.array_equal(c.sum(axis=0), noisy_sum)
        assert [p["step"] for p in result.post_processing] == ["projection", "rounding"]
        totals.append(c.sum())
    totals = np.array(totals, dtype=float)
    se = totals.std() / np.sqrt(totals.size)
    assert abs(totals.mean() - 8) < 4 * se + 0.5
