"""STREAMING.md S6: every oracle of the seed (recomputed) and the derived ones, as exact tests of
``core.stream_partition``; the dynamic programme against brute force over every partition."""

import itertools

import numpy as np
import pytest
from numpy.lib.stride_tricks import sliding_window_view

from dpstudio.core.range_error import laplace_variance
from dpstudio.core.stream_partition import approx_partition, default_groups, partition_windows, window_laplace_error

H = [1, 1, 4, 2, 6, 2, 2]


def sse(values):
    v = np.asarray(values, dtype=float)
    return float(((v - v.mean()) ** 2).sum())


def test_o1_group_means_and_sse_of_the_seed_grouping():
    groups = [H[0:2], H[2:5], H[5:7]]
    assert [np.mean(g) for g in groups] == [1, 4, 2]
    assert [sse(g) for g in groups] == [0, 8, 0]
    # the same grouping through the publishing step: every value replaced by its group mean
    ends = np.zeros((1, 7), bool)
    ends[0, [1, 4, 6]] = True
    from dpstudio.core.stream_partition import _means

    assert _means(np.array([H], float), ends).tolist() == [[1, 1, 4, 4, 4, 2, 2]]


def test_o7_formula_8_as_printed_is_wrong_and_the_division_fixes_it():
    g = np.array([4, 2, 6], float)
    assert g @ g - g.sum() ** 2 == -88  # as printed
    assert g @ g - g.sum() ** 2 / 3 == 8 == sse(g)


@pytest.mark.parametrize("w,T,k,eps,swm,tpm", [(4, 7, 2, 1, 1024, 196)])
def test_o2_o3_o4_o5_laplace_errors_of_swm_and_tpm(w, T, k, eps, swm, tpm):
    b_swm, b_tpm = w * (T - w + 1) / eps, T / eps
    cont = lambda b: laplace_variance(b, discrete=False)  # noqa: E731  (the seed's 2 b^2)
    assert window_laplace_error(cont(b_swm), k) == swm
    assert window_laplace_error(cont(b_tpm), k) == tpm
    assert window_laplace_error(cont(b_swm), w) == 2048 and window_laplace_error(cont(b_tpm), w) == 392  # O4
    assert T**2 - (w * (T - w + 1)) ** 2 == -207 and (w - 1) * (w - T) == -9  # O5: same sign
    for w2 in range(2, T):  # Theorem 4 for every 1 < w < T
        assert (T**2 < (w2 * (T - w2 + 1)) ** 2) == ((w2 - 1) * (w2 - T) < 0)


def test_o6_theorem_5_with_interval_t_over_n():
    T, k, eps, s = 7, 2, 1, 1 / 0.4
    assert k * 2 * T**2 / (s**2 * eps**2) == pytest.approx(31.36, abs=1e-12)


@pytest.mark.parametrize("k,total,bounds", [(1, 19.7143, [7]), (2, 12.8, [2, 7]), (3, 6.0, [4, 5, 7])])
def test_optimal_sse_partitions_of_h(k, total, bounds):
    p = partition_windows([H], 0.0, "seed", k=k, lap=0.0)
    assert p.estimate[0] == pytest.approx(total, abs=5e-5)
    assert p.bounds() == bounds


def test_the_seeds_figure_3_grouping_is_not_the_optimal_3_partition():
    assert partition_windows([H], 0.0, "seed", k=3).estimate[0] == 6.0 < 8.0


def test_windows_of_h_with_two_groups():
    y = sliding_window_view(np.array(H, float), 4)
    p = partition_windows(y, 0.0, "seed", k=2, lap=0.0)
    assert p.estimate.tolist() == pytest.approx([2.0, 14 / 3, 8.0, 8.0])
    assert [p.bounds(i) for i in range(4)] == [[2, 4], [3, 4], [3, 4], [2, 4]]
    with_tpm = partition_windows(y, 0.0, "seed", k=2, lap=2 * 7**2)
    assert with_tpm.estimate.tolist() == pytest.approx([198, 200 + 2 / 3, 204, 204])
    assert [with_tpm.bounds(i) for i in range(4)] == [[2, 4], [3, 4], [3, 4], [2, 4]]


@pytest.mark.parametrize("k,total,bounds", [(1, 117.7143, [7]), (2, 208.8, [2, 7]), (3, 300.0, [4, 5, 7])])
def test_exact_dp_with_the_tpm_term(k, total, bounds):
    p = partition_windows([H], 0.0, "seed", k=k, lap=2 * 7**2)
    assert p.estimate[0] == pytest.approx(total, abs=5e-5) and p.bounds() == bounds


@pytest.mark.parametrize("b,k,est,bounds", [(1, 3, 4.0, [4, 5, 7]), (0.5, 5, 1.5, [2, 3, 4, 5, 7])])
def test_noisefirst_on_h(b, k, est, bounds):
    p = partition_windows([H], 2 * b * b, "noisefirst")
    assert p.group_counts[0] == k and p.estimate[0] == pytest.approx(est) and p.bounds() == bounds


def _all_partitions(w):
    for cuts in itertools.product([False, True], repeat=w - 1):
        yield [i + 1 for i, c in enumerate(cuts) if c] + [w]


def _brute(y, v, cost):
    best = None
    for bounds in _all_partitions(len(y)):
        start, total = 0, 0.0
        for end in bounds:
            total += cost(y[start:end], v[start:end])
            start = end
        if best is None or total < best[0] - 1e-9:
            best = (total, bounds)
    return best


def test_noisefirst_equals_brute_force_over_every_partition():
    rng = np.random.default_rng(4)
    nf = lambda g, v: sse(g) - (1 - 2 / len(g)) * v.sum()  # noqa: E731
    for _ in range(40):
        w = int(rng.integers(2, 9))
        y = rng.integers(0, 30, size=w).astype(float)
        v = rng.uniform(0.5, 30, size=w)
        total, bounds = _brute(y, v, nf)
        p = partition_windows([y], [v], "noisefirst")
        assert p.estimate[0] == pytest.approx(total) and p.bounds() == bounds
        # the published values are the group means of the released values
        start = 0
        for end in bounds:
            assert np.allclose(p.values[0, start:end], y[start:end].mean())
            start = end


def test_exactly_k_equals_brute_force():
    rng = np.random.default_rng(5)
    for _ in range(40):
        w = int(rng.integers(2, 9))
        k = int(rng.integers(1, w + 1))
        y = rng.integers(0, 30, size=w).astype(float)
        best = min(sum(sse(y[s:e]) for s, e in zip([0] + b[:-1], b)) for b in _all_partitions(w) if len(b) == k)
        p = partition_windows([y], 0.0, "seed", k=k, lap=3.0)
        assert p.estimate[0] == pytest.approx(best + 3.0 * k) and p.group_counts[0] == k


def test_approx_is_never_below_exact_and_within_its_bound():
    rng = np.random.default_rng(6)
    worst = 1.0
    for _ in range(200):
        k = int(rng.integers(2, 6))
        y = rng.integers(0, 100, size=int(rng.integers(10, 40))).astype(float)
        delta = 1 / (2 * k)
        exact = partition_windows([y], 0.0, "seed", k=k, lap=2.0).estimate[0]
        approx, bounds = approx_partition(y, k, 2.0, delta)
        assert len(bounds) == k and bounds[-1] == y.size
        assert exact - 1e-9 <= approx <= (1 + delta) ** (k - 1) * exact + 1e-9
        worst = max(worst, approx / exact)
    assert worst <= np.exp(0.5)


def test_windows_are_batched_without_changing_the_result(monkeypatch):
    import dpstudio.core.stream_partition as sp

    y = np.random.default_rng(7).normal(50, 20, size=(30, 12))
    whole = sp.partition_windows(y, 4.0, "noisefirst")
    seed_whole = sp.partition_windows(y, 4.0, "seed", k=3)
    monkeypatch.setattr(sp, "BATCH_CELLS", 1)
    assert np.array_equal(sp.partition_windows(y, 4.0, "noisefirst").ends, whole.ends)
    assert np.array_equal(sp.partition_windows(y, 4.0, "seed", k=3).ends, seed_whole.ends)


def test_ties_go_to_the_smallest_split_index():
    p = partition_windows([[5, 5, 5, 5]], 0.0, "seed", k=2)
    assert p.bounds() == [1, 4]


def test_none_and_defaults():
    assert default_groups(200) == 20 and default_groups(5) == 1
    p = partition_windows([[3, 1, 2]], 1.0, "none")
    assert p.values.tolist() == [[3, 1, 2]] and p.group_counts.tolist() == [3]
    with pytest.raises(ValueError, match="unknown grouping"):
        partition_windows([[1, 2]], 1.0, "bogus")
