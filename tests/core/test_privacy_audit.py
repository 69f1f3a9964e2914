"""Empirical privacy audit of the secure mechanisms (and proof that the audit can catch a broken one).

For neighbouring inputs D, D' and an output event E, epsilon-DP requires P_D(E) <= e^eps P_D'(E). We sample
the mechanism many times on both inputs, take one-sided Clopper-Pearson bounds (lower on P_D(E), upper on
P_D'(E)) and get a LOWER confidence bound on ln(P_D(E) / P_D'(E)). A correct mechanism can exceed eps only
if a Clopper-Pearson bound fails: probability at most 2 ALPHA per event (Bonferroni over all events below
stays under 1e-8). The same audit with the same sample sizes must flag a variant with half the noise scale
(true loss 2 eps): the expected margins are computed in ``expected_lower_bound`` and asserted first, so a
change of sizes that weakens the audit fails loudly instead of silently. With the sizes below the broken
variants' typical lower bounds sit about 29 (counts) and 6.5 (noisy max) standard deviations above eps,
so a miss has probability below 1e-10 (normal approximation).

The events are chosen where the loss of the mechanism is exactly eps (its worst case), so the audit is
as sharp as it can be:
- discrete Laplace of scale 1/eps on a count c vs c+1: P(output >= c+1) ratio is e^eps (any threshold);
- report-noisy-max with exponential noise of scale 1/eps, scores (0, 0) vs (1, 0): P(index 1) is 1/2 vs
  e^-eps / 2;
- DiffGen's numeric split point (continuous exponential mechanism, with simulation noise: the secure
  Gumbel sampler's distribution is checked in test_mechanisms.py): see SPLIT_D below.
"""

import math

import numpy as np
from scipy import stats

from dpstudio.core.mechanisms import choose_split_on_lattice, lattice_probabilities, noisy_counts, report_noisy_max
from dpstudio.core.noise import SecureNoise, SimulationNoise
from tests.audit_bounds import clopper_pearson, loss_lower_bound

ALPHA = 1e-10  # per one-sided Clopper-Pearson bound
Z = stats.norm.isf(ALPHA)  # about 6.4
EPS = 1.0
N_COUNTS = 10_000  # samples per input, noisy counts (one OpenDP call per vector, ~7 us a count)
N_SELECT = 3_000  # samples per input, report-noisy-max (~150-300 us a call, OpenDP wrapper cost)


def audit(hits_d: int, hits_d2: int, n: int) -> float:
    """Lower bound on the privacy loss of one event, both directions."""
    return max(loss_lower_bound(hits_d, n, hits_d2, n, ALPHA), loss_lower_bound(hits_d2, n, hits_d, n, ALPHA))


def expected_lower_bound(p1: float, p2: float, n: int) -> tuple[float, float]:
    """(typical lower bound, its standard deviation) for true event probabilities p1 > p2."""
    sd1 = math.sqrt((1 - p1) / (n * p1))  # delta method: sd of ln(p1 hat)
    sd2 = math.sqrt((1 - p2) / (n * p2))
    return math.log(p1 / p2) - Z * (sd1 + sd2), math.hypot(sd1, sd2)


def discrete_laplace_tail(t: int, scale: float) -> float:
    """P(X >= t) for t >= 1."""
    q = math.exp(-1 / scale)
    return q**t / (1 + q)


def broken_noisy_counts(counts, epsilon):
    """Claims epsilon but uses half the noise scale: really 2 epsilon."""
    return SecureNoise().laplace_counts(counts, 0.5 / epsilon)


def broken_noisy_max(scores, epsilon):
    return SecureNoise().noisy_max(scores, 0.5 / epsilon)


def test_audit_design_margins():
    # noisy counts, broken variant: event output >= 1 on count 0 vs 1
    p_low = discrete_laplace_tail(1, 0.5 / EPS)
    p_high = 1 - discrete_laplace_tail(1, 0.5 / EPS)  # P(1 + X >= 1) = P(X >= 0) = 1 - P(X <= -1)
    bound, sd = expected_lower_bound(p_high, p_low, N_COUNTS)
    assert (bound - EPS) / sd > 20  # the broken variant is flagged unless estimates err by > 20 sd
    # report-noisy-max, broken variant: P(index 1) = 1/2 vs e^-2eps / 2
    bound, sd = expected_lower_bound(0.5, 0.5 * math.exp(-2 * EPS), N_SELECT)
    assert (bound - EPS) / sd > 6
    # the true loss of the correct variants is exactly EPS at these events
    assert math.isclose(math.log((1 - discrete_laplace_tail(1, 1 / EPS)) / discrete_laplace_tail(1, 1 / EPS)), EPS)


def count_audit(mechanism) -> float:
    low = mechanism(np.zeros(N_COUNTS, dtype=np.int64), EPS)
    high = mechanism(np.ones(N_COUNTS, dtype=np.int64), EPS)
    assert low.dtype == np.int64 and high.dtype == np.int64
    bounds = [audit(int(np.sum(low >= t)), int(np.sum(high >= t)), N_COUNTS) for t in (1, 0)]
    return max(bounds)


def test_noisy_counts_pass_the_audit_and_half_noise_fails_it():
    assert count_audit(noisy_counts) <= EPS
    assert count_audit(broken_noisy_counts) > EPS


def select_audit(mechanism) -> float:
    d = [mechanism([0.0, 0.0], EPS) for _ in range(N_SELECT)]
    d2 = [mechanism([1.0, 0.0], EPS) for _ in range(N_SELECT)]
    return audit(int(np.sum(d)), int(np.sum(d2)), N_SELECT)  # event: index 1 chosen


def test_report_noisy_max_passes_the_audit_and_half_noise_fails_it():
    assert select_audit(lambda s, e: report_noisy_max(s, e, 1.0, monotone=True)) <= EPS
    assert select_audit(broken_noisy_max) > EPS


# DiffGen's numeric split (discrete exponential mechanism over the public lattice 0:10, resolution 0.5:
# split indices k = 1..19, point k/2). D: one record at 5 (cell 10), score 0 everywhere: groups k = 1..10 and
# 11..19. D' adds a record at 5.5 (cell 11), which splits off the group {11}; every split point's score
# moves by at most Du = 1: +1 at k = 11, -1 elsewhere. Event: k = 11 (split point 5.5). The loss there is
# 0.91 at eps = 1 (close to eps); forgetting the factor 2 in eps u / (2 Du) makes it 1.71.
SPLIT_D = ([1, 11, 20], [0.0, 0.0])
SPLIT_D2 = ([1, 11, 12, 20], [-1.0, 1.0, -1.0])
N_SPLIT = 12_000  # simulation noise (~20 us a call); the secure sampler's distribution is tested elsewhere


def split_event_probability(starts, scores, eps):
    p = lattice_probabilities(starts, scores, eps, 1.0)
    s = np.asarray(starts)
    holds = (s[:-1] <= 11) & (11 < s[1:])
    return float(np.sum(p[holds] / np.diff(s)[holds]))


def test_split_audit_design_margins():
    p_d = split_event_probability(*SPLIT_D, EPS)
    p_d2 = split_event_probability(*SPLIT_D2, EPS)
    assert math.isclose(p_d, 1 / 19) and math.log(p_d2 / p_d) <= EPS
    broken = split_event_probability(*SPLIT_D2, 2 * EPS)  # no factor 2 = twice the epsilon
    bound, sd = expected_lower_bound(broken, p_d, N_SPLIT)
    assert (bound - EPS) / sd > 6


def split_audit(eps_used, seed) -> float:
    noise = SimulationNoise(seed)

    def hits(starts, scores):
        ks = [choose_split_on_lattice(starts, scores, eps_used, 1.0, noise)[1] for _ in range(N_SPLIT)]
        return int(np.sum(np.array(ks) == 11))

    return audit(hits(*SPLIT_D), hits(*SPLIT_D2), N_SPLIT)


def test_split_point_selection_passes_the_audit_and_a_missing_factor_2_fails_it():
    assert split_audit(EPS, seed=1) <= EPS
    assert split_audit(2 * EPS, seed=2) > EPS  # u / Du instead of u / (2 Du)


def test_clopper_pearson_helper():
    # exact bounds at the edges and agreement with the binomial tails they invert
    assert clopper_pearson(0, 10, 0.05)[0] == 0.0 and clopper_pearson(10, 10, 0.05)[1] == 1.0
    lo, up = clopper_pearson(30, 100, 0.025)
    assert math.isclose(stats.binom.sf(29, 100, lo), 0.025, rel_tol=1e-6)
    assert math.isclose(stats.binom.cdf(30, 100, up), 0.025, rel_tol=1e-6)
    assert loss_lower_bound(0, 10, 5, 10, ALPHA) == -math.inf
