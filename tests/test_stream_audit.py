"""Empirical privacy audit of the stream mechanisms (STREAMING.md S5.1 P1, S9 acceptance tests).

Neighbours: D (T = 20, every count 100 except 128 at t* = 15, 0-based) and D' = D plus one record at t*.
Sample scale 10 (ratio 0.5, eps = 1), release threshold tau = sqrt(2) T / eps = 28.28. Event E: the value
released at t* is a prediction (not a whole number: noisy samples are integers) and lies below
x_t* + 1 - tau. The literal ASM releases its prediction only when |x_t* - prediction| <= tau, which on D'
rules out every prediction below x_t* + 1 - tau: P_D'(E) = 0 while P_D(E) is about 0.085, an unbounded
loss (P1). ASM-DP decides from the noisy sample instead, and its loss must stay at or below eps.
One-sided Clopper-Pearson bounds at level 1e-6 each (tests/audit_bounds.py).
"""

import math

import numpy as np

from dpstudio.algorithms.stream_shp import asm_dp, asm_literal
from dpstudio.core.budget import Ledger
from dpstudio.core.noise import SecureNoise, SimulationNoise
from tests.audit_bounds import loss_lower_bound

T, EPS, RATIO, T_STAR = 20, 1, 0.5, 15
ALPHA = 1e-6
TAU = math.sqrt(2) * T / EPS
D = np.full(T, 100)
D[T_STAR] = 128
D2 = D.copy()
D2[T_STAR] += 1


def released(gen):
    while True:
        try:
            next(gen)
        except StopIteration as stop:
            return stop.value[0]


def event(out) -> bool:
    v = out[T_STAR]
    return v != round(v) and v < D[T_STAR] + 1 - TAU


def hits(run, data, n) -> int:
    return sum(event(run(data, i)) for i in range(n))


def test_the_audit_catches_the_literal_asm():
    n = 1500
    run = lambda x, i: released(asm_literal(x, T, EPS, SimulationNoise(i), RATIO))  # noqa: E731
    k1, k2 = hits(run, D, n), hits(run, D2, n)
    assert k2 == 0  # impossible on D' (P1)
    assert loss_lower_bound(k1, n, k2, n, ALPHA) > EPS


def test_asm_dp_passes_the_same_audit():
    n = 600
    noise = SecureNoise()
    run = lambda x, i: released(asm_dp(x, T, EPS, noise, Ledger(EPS), RATIO))  # noqa: E731
    k1, k2 = hits(run, D, n), hits(run, D2, n)
    assert loss_lower_bound(k1, n, k2, n, ALPHA) <= EPS
    assert loss_lower_bound(k2, n, k1, n, ALPHA) <= EPS


class CoupledNoise(SimulationNoise):
    """The same draws as ``SimulationNoise(seed)``, minus 1 wherever the noised count equals ``target``: run
    on D' (whose only count ``target`` is D's plus one) it gives exactly D's noisy counts."""

    def __init__(self, seed, target):
        super().__init__(seed)
        self.target = target

    def laplace_counts(self, counts, scale):
        counts = np.asarray(counts)
        return super().laplace_counts(counts, scale) - (counts == self.target)


def transcript(mechanism, x, noise):
    from dpstudio.algorithms.stream_runs import StreamParams, release_stream

    ledger = Ledger(EPS)
    res = release_stream(x, StreamParams(mechanism, EPS, 5, ratio=RATIO), noise, ledger)
    return res.windows.tolist(), [(e.step, e.epsilon, e.scale) for e in ledger.entries]


def test_mechanisms_read_the_data_only_through_their_noisy_counts():
    """Coupling: with D's noisy counts reproduced on D' (noise shifted by -1 at t*), the whole transcript (every
    released value, every sampling decision in the ledger) is identical. A mechanism that reads a true
    count anywhere else (the literal ASM's release rule, weights, adaptation) breaks it."""
    for mechanism in ("asm", "tpm", "swm", "fast", "uniform"):
        for seed in range(60):
            assert transcript(mechanism, D, SimulationNoise(seed)) == transcript(
                mechanism, D2, CoupledNoise(seed, D2[T_STAR])
            ), (mechanism, seed)
    differs = 0
    for seed in range(60):
        a = released(asm_literal(D, T, EPS, SimulationNoise(seed), RATIO))
        b = released(asm_literal(D2, T, EPS, CoupledNoise(seed, D2[T_STAR]), RATIO))
        differs += not np.array_equal(a, b)
    assert differs > 0
