"""Mechanisms: selection frequencies against analytic probabilities, refusals, secure defaults."""

import math

import numpy as np
import pytest
from scipy import integrate, stats

from dpstudio.core import mechanisms as mech
from dpstudio.core.noise import SecureNoise, SimulationNoise

ALPHA = 1e-6  # chance that a correct sampler fails one frequency test


def assert_frequencies(counts, probs):
    """Pearson chi-square goodness of fit at level ALPHA; zero-probability outcomes must never occur."""
    counts = np.asarray(counts, dtype=float)
    probs = np.asarray(probs, dtype=float)
    zero = probs == 0
    assert counts[zero].sum() == 0, "an outcome of probability 0 was drawn"
    n = counts.sum()
    expected = n * probs[~zero]
    stat = np.sum((counts[~zero] - expected) ** 2 / expected)
    dof = int((~zero).sum()) - 1
    assert stat < stats.chi2.ppf(1 - ALPHA, dof), (counts, expected)


def noisy_max_exact(scores, scale):
    """P(argmax u + Exp(scale) = i), by numerical integration (independent of the sampler)."""
    u = np.asarray(scores, dtype=float)

    def win(i):
        def density(x):
            p = math.exp(-(x - u[i]) / scale) / scale
            for j in range(u.size):
                if j != i:
                    p *= -math.expm1(-(x - u[j]) / scale) if x > u[j] else 0.0
            return p

        return integrate.quad(density, u[i], u[i] + 60 * scale, points=sorted(u), limit=200)[0]

    return np.array([win(i) for i in range(u.size)])


SCORES = [3.0, 5.0, 4.0, 0.0, 5.5]


def test_exponential_probabilities_formula():
    p = mech.exponential_probabilities(SCORES, 0.8, sensitivity=2.0)
    w = np.exp(0.8 * np.array(SCORES) / (2 * 2.0))
    np.testing.assert_allclose(p, w / w.sum(), rtol=1e-12)
    # shift invariant and safe with huge scores
    np.testing.assert_allclose(mech.exponential_probabilities(np.array(SCORES) + 1e6, 0.8, 2.0), p, rtol=1e-9)


def test_exponential_mechanism_frequencies_simulation():
    noise = SimulationNoise(1)
    eps, du = 1.2, 1.0
    draws = [mech.exponential_mechanism(SCORES, eps, du, noise) for _ in range(4000)]
    assert_frequencies(np.bincount(draws, minlength=5), mech.exponential_probabilities(SCORES, eps, du))
    # the batched simulation helper draws from the same distribution
    many = noise.exponential_many(SCORES, 2 * du / eps, 20000)
    assert_frequencies(np.bincount(many, minlength=5), mech.exponential_probabilities(SCORES, eps, du))


def test_exponential_mechanism_frequencies_secure():
    draws = [mech.exponential_mechanism([0.0, 2.0, 1.0], 1.0) for _ in range(1500)]
    assert_frequencies(np.bincount(draws, minlength=3), mech.exponential_probabilities([0.0, 2.0, 1.0], 1.0))


@pytest.mark.parametrize("monotone", [True, False])
def test_report_noisy_max_frequencies(monotone):
    eps = 0.7
    scale = (1.0 if monotone else 2.0) / eps
    exact = noisy_max_exact(SCORES, scale)
    assert exact.sum() == pytest.approx(1.0, abs=1e-7)
    noise = SimulationNoise(2)
    draws = [mech.report_noisy_max(SCORES, eps, 1.0, monotone, noise) for _ in range(4000)]
    assert_frequencies(np.bincount(draws, minlength=5), exact)
    secure = [mech.report_noisy_max(SCORES, eps, 1.0, monotone) for _ in range(1200)]
    assert_frequencies(np.bincount(secure, minlength=5), exact)
    # the display helper estimates the same probabilities
    est = mech.noisy_max_probabilities(SCORES, eps, 1.0, monotone, draws=40000, seed=3)
    np.testing.assert_allclose(est, exact, atol=6 * np.sqrt(0.25 / 40000))


def test_report_noisy_max_is_not_the_exponential_mechanism():
    # Two candidates, gap 1, eps 1: P(lower wins) = exp(-1)/2 for exponential noise, 1/(1+e^0.5) for the EM.
    exact = noisy_max_exact([1.0, 0.0], 1.0)
    assert exact[1] == pytest.approx(math.exp(-1) / 2, rel=1e-6)
    assert mech.exponential_probabilities([1.0, 0.0], 1.0)[1] == pytest.approx(1 / (1 + math.exp(0.5)))


STARTS = [1, 6, 6, 21, 51, 100]  # lattice indices 1..99 in 5 groups; group 1 is empty, 0 and 4 are the ends
SPLIT_SCORES = [2.0, 9.0, 4.0, 3.0, 1.0]


def split_probabilities(starts, scores, eps, du):
    count = np.diff(np.asarray(starts, dtype=float))
    w = count * np.exp(eps * np.asarray(scores) / (2 * du))
    return w / w.sum()


def test_lattice_probabilities_formula():
    np.testing.assert_allclose(
        mech.lattice_probabilities(STARTS, SPLIT_SCORES, 1.5, 2.0),
        split_probabilities(STARTS, SPLIT_SCORES, 1.5, 2.0),
        rtol=1e-12,
    )


def test_choose_split_frequencies_and_indices_simulation():
    noise = SimulationNoise(4)
    eps, du = 1.5, 2.0
    picks = [mech.choose_split_on_lattice(STARTS, SPLIT_SCORES, eps, du, noise) for _ in range(5000)]
    idx = np.array([j for j, _ in picks])
    probs = split_probabilities(STARTS, SPLIT_SCORES, eps, du)
    assert probs[0] > 0.01 and probs[4] > 0.1  # the end groups are real candidates
    assert_frequencies(np.bincount(idx, minlength=5), probs)
    for j, k in picks:
        assert isinstance(k, int) and STARTS[j] <= k < STARTS[j + 1]
    # the index is uniform inside the chosen group: chi-square over the 49 indices of the last group
    inside = np.array([k for j, k in picks if j == 4]) - 51
    assert_frequencies(np.bincount(inside, minlength=49), np.full(49, 1 / 49))


def test_choose_split_frequencies_secure():
    eps, du = 1.5, 2.0
    picks = [mech.choose_split_on_lattice(STARTS, SPLIT_SCORES, eps, du) for _ in range(1500)]
    idx = np.array([j for j, _ in picks])
    assert_frequencies(np.bincount(idx, minlength=5), split_probabilities(STARTS, SPLIT_SCORES, eps, du))
    assert all(STARTS[j] <= k < STARTS[j + 1] for j, k in picks)


def test_empty_groups_are_never_chosen_even_with_the_best_score():
    noise = SimulationNoise(5)
    starts = [0, 1, 1, 1, 2]
    for _ in range(500):
        j, _ = mech.choose_split_on_lattice(starts, [0.0, 1e6, 1e6, 0.0], 1.0, noise=noise)
        assert j in (0, 3)
    with pytest.raises(ValueError, match="every group is empty"):
        mech.choose_split_on_lattice([1, 1, 1], [0.0, 0.0], 1.0, noise=noise)


def test_noisy_counts_default_is_secure_int64(monkeypatch):
    calls = []
    original = SecureNoise.laplace_counts

    def spy(self, counts, scale):
        calls.append(scale)
        return original(self, counts, scale)

    monkeypatch.setattr(SecureNoise, "laplace_counts", spy)
    out = mech.noisy_counts(np.array([[10, 20], [30, 40]]), 0.5, sensitivity=3)
    assert out.dtype == np.int64 and out.shape == (2, 2)
    assert calls == [pytest.approx(6.0)]  # scale = sensitivity / epsilon, through SecureNoise
    sim = mech.noisy_counts([1, 2, 3], 1.0, noise=SimulationNoise(0))
    assert sim.dtype == np.int64 and len(calls) == 1


def test_noisy_counts_variance():
    eps, sens = 0.5, 2
    x = mech.noisy_counts(np.zeros(100_000, dtype=np.int64), eps, sens, noise=SimulationNoise(6))
    q = math.exp(-eps / sens)
    assert np.var(x) == pytest.approx(2 * q / (1 - q) ** 2, rel=0.03)  # close to 2 (sens/eps)^2 = 32


BAD_EPS = [0, -1.0, math.nan, math.inf, -math.inf]


@pytest.mark.parametrize("eps", BAD_EPS)
def test_bad_epsilons_are_refused(eps):
    with pytest.raises(ValueError, match="epsilon"):
        mech.noisy_counts([1, 2], eps)
    with pytest.raises(ValueError, match="epsilon"):
        mech.exponential_mechanism([1.0, 2.0], eps)
    with pytest.raises(ValueError, match="epsilon"):
        mech.report_noisy_max([1.0, 2.0], eps)
    with pytest.raises(ValueError, match="epsilon"):
        mech.exponential_probabilities([1.0, 2.0], eps)
    with pytest.raises(ValueError, match="epsilon"):
        mech.choose_split_on_lattice([0, 1, 2], [1.0, 2.0], eps)


@pytest.mark.parametrize("sens", [0, -1, math.nan, math.inf])
def test_bad_sensitivities_are_refused(sens):
    with pytest.raises(ValueError, match="sensitivity"):
        mech.noisy_counts([1, 2], 1.0, sens)
    with pytest.raises(ValueError, match="sensitivity"):
        mech.exponential_mechanism([1.0, 2.0], 1.0, sens)
    with pytest.raises(ValueError, match="sensitivity"):
        mech.report_noisy_max([1.0, 2.0], 1.0, sens)


@pytest.mark.parametrize(
    "scores,match", [([], "no candidates"), ([1.0, math.nan], "finite"), ([math.inf, 1.0], "finite")]
)
def test_bad_scores_are_refused(scores, match):
    for f in (mech.exponential_mechanism, mech.report_noisy_max, mech.exponential_probabilities):
        with pytest.raises(ValueError, match=match):
            f(scores, 1.0)


def test_bad_groups_are_refused():
    with pytest.raises(ValueError, match="one score per group"):
        mech.choose_split_on_lattice([0, 1, 2], [1.0], 1.0)
    with pytest.raises(ValueError, match="non-decreasing"):
        mech.choose_split_on_lattice([0, 2, 1], [1.0, 1.0], 1.0)
    with pytest.raises(ValueError, match="whole numbers"):
        mech.choose_split_on_lattice([0.0, 1.5, 2.0], [1.0, 1.0], 1.0)
    with pytest.raises(ValueError, match="whole numbers"):
        mech.choose_split_on_lattice([0.0, 1.0, math.inf], [1.0, 1.0], 1.0)
    with pytest.raises(ValueError, match="finite"):
        mech.choose_split_on_lattice([0, 1, 2], [1.0, math.nan], 1.0)


def test_single_candidate_is_returned():
    assert mech.exponential_mechanism([3.0], 1.0) == 0
    assert mech.report_noisy_max([3.0], 1.0) == 0
    j, k = mech.choose_split_on_lattice([0, 4], [1.0], 1.0)
    assert j == 0 and 0 <= k < 4
