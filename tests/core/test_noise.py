"""Noise sources: distributions against the analytic ones, types, refusals."""

import math

import numpy as np
import pytest
from scipy import stats

from dpstudio.core.noise import NotSecureNoiseError, SecureNoise, SimulationNoise, require_secure


def discrete_laplace_pmf(k, scale):
    q = math.exp(-1.0 / scale)
    return (1 - q) / (1 + q) * q ** np.abs(k)


def discrete_laplace_variance(scale):
    q = math.exp(-1.0 / scale)
    return 2 * q / (1 - q) ** 2


def assert_pmf_matches(samples, scale, z=6.0):
    """Every value's frequency within z binomial standard deviations, plus the tails beyond +-K together."""
    n = samples.size
    K = int(max(3, 4 * scale))
    for k in range(-K, K + 1):
        p = discrete_laplace_pmf(k, scale)
        sd = math.sqrt(n * p * (1 - p))
        assert abs(np.sum(samples == k) - n * p) <= z * sd + 1, (k, np.sum(samples == k), n * p)
    tail = 2 * math.exp(-(K + 1) / scale) / (1 + math.exp(-1 / scale))
    assert abs(np.sum(np.abs(samples) > K) - n * tail) <= z * math.sqrt(n * tail) + 1


@pytest.mark.parametrize("scale", [0.4, 1.0, 3.0, 25.0])
def test_simulation_discrete_laplace_distribution_and_variance(scale):
    noise = SimulationNoise(seed=int(scale * 10))
    x = noise.discrete_laplace(200_000, scale)
    assert x.dtype == np.int64
    assert_pmf_matches(x, scale)
    var = discrete_laplace_variance(scale)
    # sample variance within 6 standard errors (Var of X^2 <= E X^4, computed from the pmf)
    ks = np.arange(-int(60 * scale) - 10, int(60 * scale) + 11)
    m4 = np.sum(discrete_laplace_pmf(ks, scale) * ks.astype(float) ** 4)
    assert abs(np.mean(x.astype(float) ** 2) - var) <= 6 * math.sqrt((m4 - var**2) / x.size)
    assert abs(x.mean()) <= 6 * math.sqrt(var / x.size)


def test_simulation_noise_is_reproducible_with_a_seed():
    a = SimulationNoise(7).laplace_counts(np.arange(100), 2.0)
    b = SimulationNoise(7).laplace_counts(np.arange(100), 2.0)
    c = SimulationNoise(8).laplace_counts(np.arange(100), 2.0)
    np.testing.assert_array_equal(a, b)
    assert not np.array_equal(a, c)
    assert SimulationNoise(7).label == "simulation (seed 7)" and not SimulationNoise(7).is_secure


def test_secure_counts_keep_dtype_and_shape():
    noise = SecureNoise()
    counts = np.arange(12, dtype=np.int32).reshape(3, 4)
    out = noise.laplace_counts(counts, 1.0)
    assert out.dtype == np.int64 and out.shape == (3, 4)
    assert noise.laplace_counts([5], 2.0).dtype == np.int64
    empty = noise.laplace_counts(np.zeros((0, 3), dtype=np.int64), 1.0)
    assert empty.shape == (0, 3) and empty.dtype == np.int64
    # integral floats are accepted as counts
    assert noise.laplace_counts(np.array([1.0, 2.0]), 1.0).dtype == np.int64
    assert noise.is_secure and noise.label == "secure (OpenDP)"


def test_secure_discrete_laplace_distribution():
    scale = 2.0
    x = SecureNoise().laplace_counts(np.full(40_000, 100, dtype=np.int64), scale) - 100
    assert_pmf_matches(x, scale)
    var = discrete_laplace_variance(scale)
    assert abs(np.var(x) - var) < 0.05 * var  # ~8 standard errors at this sample size


def test_secure_counts_in_parallel_slices_keep_order_and_distribution(monkeypatch):
    import dpstudio.core.noise as noise_module

    monkeypatch.setattr(noise_module, "PARALLEL_MIN_COUNTS", 2_000)
    monkeypatch.setattr(noise_module.os, "cpu_count", lambda: 4)
    assert noise_module._parallel_chunks(40_000) == 4
    scale = 2.0
    counts = np.arange(40_000, dtype=np.int64).reshape(200, 200) * 1_000
    out = SecureNoise().laplace_counts(counts, scale)
    assert out.shape == counts.shape and out.dtype == np.int64
    noise = out - counts
    # every slice landed where it came from: noise of scale 2 never moves a count by 500
    assert np.abs(noise).max() < 500
    assert_pmf_matches(noise.ravel(), scale)
    var = discrete_laplace_variance(scale)
    assert abs(np.var(noise) - var) < 0.05 * var


@pytest.mark.parametrize("noise", [SecureNoise(), SimulationNoise(0)])
@pytest.mark.parametrize("scale", [0, -1, math.nan, math.inf])
def test_bad_scales_are_refused(noise, scale):
    with pytest.raises(ValueError, match="scale"):
        noise.laplace_counts([1, 2], scale)
    with pytest.raises(ValueError, match="scale"):
        noise.noisy_max([1.0, 2.0], scale)
    with pytest.raises(ValueError, match="scale"):
        noise.exponential([1.0], scale)


@pytest.mark.parametrize("noise", [SecureNoise(), SimulationNoise(0)])
def test_bad_counts_and_scores_are_refused(noise):
    with pytest.raises(ValueError, match="integers"):
        noise.laplace_counts([1.5, 2.0], 1.0)
    with pytest.raises(ValueError, match="integers"):
        noise.laplace_counts([math.nan], 1.0)
    with pytest.raises(ValueError, match="no candidates"):
        noise.noisy_max([], 1.0)
    with pytest.raises(ValueError, match="finite"):
        noise.exponential([1.0, math.nan], 1.0)
    with pytest.raises(ValueError, match="finite"):
        noise.noisy_max([1.0, math.inf], 1.0)


RANDBELOW_N = 7
RANDBELOW_DRAWS = 14_000
RANDBELOW_CRIT = stats.chi2.isf(1e-6, RANDBELOW_N - 1)  # a correct sampler fails once in a million


def randbelow_statistic(draws) -> float:
    """Pearson chi-square of draws against the uniform distribution on 0..N-1; a value outside the range
    (an off-by-one such as 1..N) counts as an impossible outcome."""
    draws = np.asarray(draws)
    if draws.min() < 0 or draws.max() >= RANDBELOW_N:
        return math.inf
    counts = np.bincount(draws, minlength=RANDBELOW_N)
    expected = RANDBELOW_DRAWS / RANDBELOW_N
    return float(np.sum((counts - expected) ** 2 / expected))


def test_randbelow_test_rejects_off_by_one_samplers():
    # the criterion would catch a sampler that never draws N-1 (0..N-2 uniform) or draws 1..N
    rng = np.random.default_rng(0)
    assert randbelow_statistic(rng.integers(0, RANDBELOW_N - 1, RANDBELOW_DRAWS)) > RANDBELOW_CRIT
    assert randbelow_statistic(rng.integers(1, RANDBELOW_N + 1, RANDBELOW_DRAWS)) > RANDBELOW_CRIT


@pytest.mark.parametrize("noise", [SecureNoise(), SimulationNoise(3)])
def test_randbelow_is_uniform_on_0_to_n_minus_1(noise):
    draws = [noise.randbelow(RANDBELOW_N) for _ in range(RANDBELOW_DRAWS)]
    assert all(isinstance(d, int) for d in draws[:10])
    assert randbelow_statistic(draws) < RANDBELOW_CRIT
    assert noise.randbelow(1) == 0
    for bad in (0, -3, 2.5):
        with pytest.raises(ValueError, match="randbelow"):
            noise.randbelow(bad)


def test_release_noise_has_no_float_uniform():
    # split points are drawn as lattice indices: no float draw inside data-dependent intervals
    assert not hasattr(SecureNoise(), "uniform") and not hasattr(SimulationNoise(0), "uniform")


def test_require_secure():
    secure = SecureNoise()
    assert require_secure(secure) is secure
    with pytest.raises(NotSecureNoiseError, match="SimulationNoise is simulation noise"):
        require_secure(SimulationNoise(1))
    assert issubclass(NotSecureNoiseError, TypeError)


@pytest.mark.parametrize("eps", [0.1, 0.5, 1.0, 2.0])
def test_opendp_certifies_the_scales_we_use(eps):
    """OpenDP's own privacy maps agree with the scale conventions of the module docstring."""
    from dpstudio.core.noise import _float_noisy_max, _int_laplace

    # counts of L1 sensitivity 2 with scale 2/eps: eps
    assert _int_laplace(3, 2 / eps).map(2) == pytest.approx(eps, rel=1e-9)
    # exponential-noise max, scale 1/eps: OpenDP certifies 2 eps for scores it is not told are monotone
    # (monotone scores, e.g. MAXGDDP's Max, are eps-DP at this scale: ALGORITHMS.md 2)
    assert _float_noisy_max(2, 1 / eps, "max").map(1.0) == pytest.approx(2 * eps, rel=1e-9)
    # Gumbel max with scale 2/eps is the exponential mechanism: rho = eps^2 / 8 in zCDP terms
    assert _float_noisy_max(2, 2 / eps, "gumbel").map(1.0) == pytest.approx(eps**2 / 8, rel=1e-9)
