"""SHP's three noise mechanisms (STREAMING.md S4, S5): SWM, TPM, ASM-DP, and the literal ASM (teaching).

Privacy unit (S1): neighbouring streams differ by one person, who contributes at most 1 to each count
x_t; the horizon T is public and fixed in advance. SWM, TPM and ASM-DP are user-level epsilon-DP over T.

- ``swm``: every window is one fresh query with L1 sensitivity w; T - w + 1 windows share epsilon, so each
  costs eps/(T-w+1) and gets discrete Laplace noise of scale w (T - w + 1) / eps on each of its w counts.
- ``tpm``: every count is noised once, when it arrives, with eps/T (scale T/eps); windows reuse it.
- ``asm_dp`` (S5.3, variant B "gap"): a sample at time t spends eps g / T, g = the gap since the previous
  sample (scale T / (g eps)); the gaps add up to at most T, so the spends add up to at most eps on every
  path (pure-DP filter, Rogers et al. 2016). Variant A "fixed": M = floor(ratio T) samples of eps/M each.
  Every decision (predict, sample or not, release the prediction or the sample, adapt the interval) uses
  published values and public scales only.
- ``asm_literal`` (S4.3): the published ASM, which reads true values in its release rule, its weights and
  its adaptation (problems P1-P4): NOT differentially private. It refuses secure noise so it can never be
  written as a release; it exists for the teaching view and the privacy audit that catches it.

Each is a generator of events (``StreamValueReleased``, ``BudgetSpent``) that returns the per-timestamp
released values and their public variances (SWM: the (windows, w) noisy window answers). The spend of a
noisy value is in the ledger before the value is drawn.
"""

from __future__ import annotations

import math

import numpy as np

from dpstudio.core.budget import Ledger, as_fraction
from dpstudio.core.events import BudgetSpent
from dpstudio.core.noise import NoiseSource
from dpstudio.core.range_error import laplace_variance
from dpstudio.core.scales import noise_scale
from dpstudio.core.stream_events import StreamValueReleased

#: ASM's public constants (S4.3: R_min, R_max, sigma and s_max are not given in the seed; our choice).
ETA, R_MIN, R_MAX, SIGMA, S_MAX, M_FIT = 2.0, 0.5, 2.0, 1e-6, 8.0, 8


def spent_event(ledger: Ledger, spend) -> BudgetSpent:
    return BudgetSpent(spend, float(ledger.spent), float(ledger.remaining))


def _truth(noise: NoiseSource, x, t):
    return None if noise.is_secure else int(x[t])


def swm(x, w: int, horizon: int, epsilon, noise: NoiseSource, ledger: Ledger, sensitivity: int = 1):
    """SWM: returns (Y, V), the noisy windows (windows x w) and their per-value variance."""
    x = np.asarray(x, dtype=np.int64)
    per = as_fraction(epsilon) / (horizon - w + 1)
    scale = noise_scale(w * sensitivity, per)
    for t in range(w, x.size + 1):
        yield spent_event(ledger, ledger.spend(f"window {t}", "discrete Laplace (SWM)", per, w * sensitivity, scale))
    windows = np.lib.stride_tricks.sliding_window_view(x, w)
    y = noise.laplace_counts(np.ascontiguousarray(windows), scale).astype(float)
    var = laplace_variance(scale)
    return y, np.full(y.shape, var)


def tpm(x, horizon: int, epsilon, noise: NoiseSource, ledger: Ledger, label: str = "TPM", sensitivity: int = 1):
    """TPM: every count once with eps/T (scale T/eps); returns (values, variances) per timestamp."""
    x = np.asarray(x, dtype=np.int64)
    per = as_fraction(epsilon) / horizon
    scale = noise_scale(sensitivity, per)
    for t in range(1, x.size + 1):
        yield spent_event(ledger, ledger.spend(f"t {t}", f"discrete Laplace ({label})", per, sensitivity, scale))
    z = noise.laplace_counts(x, scale).astype(float)
    var = laplace_variance(scale)
    for t in range(x.size):
        yield StreamValueReleased(t + 1, float(z[t]), "noisy", var, _truth(noise, x, t))
    return z, np.full(x.size, var)


def predict(times, values, weights, t: int, fit: str = "wls") -> float:
    """The prediction at t from earlier samples (S4.3): ``wls`` a weighted least-squares line with intercept
    over the last M_FIT samples; ``origin`` the line through the origin; ``hold`` the last sample. Fewer
    than 2 samples: the last sample, or 0 if none."""
    if not times:
        return 0.0
    if fit == "hold" or len(times) < 2:
        return float(values[-1])
    tj = np.asarray(times[-M_FIT:], dtype=float)
    zj = np.asarray(values[-M_FIT:], dtype=float)
    a = np.asarray(weights[-M_FIT:], dtype=float) / (t - tj)
    if fit == "origin":
        return float(np.sum(a * tj * zj) / np.sum(a * tj * tj) * t)
    sw = a.sum()
    mt, mz = np.sum(a * tj) / sw, np.sum(a * zj) / sw
    stt = np.sum(a * (tj - mt) ** 2)
    slope = 0.0 if stt <= 0 else np.sum(a * (tj - mt) * (zj - mz)) / stt
    return float(mz + slope * (t - mt))


def adapt(s: float, r: float) -> float:
    """Formula (14) on the sampling interval s, clamped to [1, S_MAX] (the seed's direction words
    contradict the formula under the interval reading; the formula is implemented)."""
    if r > R_MAX:
        s = s * (1.0 + r)
    elif r < R_MIN:
        s = s * r
    else:
        s = s * ETA
    return min(max(s, 1.0), S_MAX)


def asm_dp(
    x,
    horizon: int,
    epsilon,
    noise: NoiseSource,
    ledger: Ledger,
    ratio: float = 0.4,
    budget: str = "gap",
    fit: str = "wls",
    adaptive: bool = True,
    sensitivity: int = 1,
):
    """ASM-DP (S5.3). ``budget="gap"`` (variant B): eps g/T per sample; ``"fixed"`` (variant A): M =
    max(1, floor(ratio T)) samples of eps/M, no sampling after M. Returns (values, variances).

    Once variant A's samples are spent, the fitted line would be extrapolated to the end of the stream: on
    ILINet (national, T = 1163, eps 1, n/T = 0.2, 40 seeds) half the runs were worse than publishing zeros,
    up to 30 times. From then on the last sample is held (post-processing of released values only, no budget):
    mean squared error 0.30 of the zeros', at most 1.07 (clamping the line to the samples' range gave 0.48,
    at most 1.39)."""
    x = np.asarray(x, dtype=np.int64)
    eps = as_fraction(epsilon)
    s = max(1.0, 1.0 / ratio)
    m_fixed = max(1, math.floor(ratio * horizon))
    times: list[int] = []
    zs: list[float] = []
    weights: list[float] = []
    scales: list = []
    last, nxt = -1, 0
    out, var = np.empty(x.size), np.empty(x.size)
    v_last = math.nan
    for t in range(x.size):
        xhat = predict(times, zs, weights, t, fit)
        if budget == "fixed" and len(times) >= m_fixed:  # no sample will come: hold the last one
            xhat = zs[-1]
        sampling = t == nxt and (budget == "gap" or len(times) < m_fixed)
        if not sampling:
            out[t], var[t] = xhat, v_last
            yield StreamValueReleased(t + 1, xhat, "prediction", v_last, _truth(noise, x, t))
            continue
        g = t - last
        per = eps * g / horizon if budget == "gap" else eps / m_fixed
        b = noise_scale(sensitivity, per)
        yield spent_event(
            ledger,
            ledger.spend(
                f"t {t + 1}",
                "discrete Laplace (ASM-DP sample)",
                per,
                sensitivity,
                b,
                note=f"gap {g}" if budget == "gap" else "fixed share",
            ),
        )
        z = float(noise.laplace_counts(x[t : t + 1], b)[0])
        v_last = laplace_variance(b)
        use_pred = bool(times) and abs(z - xhat) <= math.sqrt(2.0) * b
        out[t], var[t] = (xhat if use_pred else z), v_last
        if times and adaptive:
            r = abs(xhat - zs[-1]) / max(abs(z - zs[-1]), 1e-9)
            s = adapt(s, r)
        times.append(t)
        zs.append(z)
        weights.append(1.0 / (b + SIGMA))
        scales.append(b)
        last, nxt = t, t + max(1, round(s))
        yield StreamValueReleased(
            t + 1, float(out[t]), "prediction" if use_pred else "sample", v_last, _truth(noise, x, t)
        )
    return out, var


def asm_literal(x, horizon: int, epsilon, noise: NoiseSource, ratio: float = 0.4, fit: str = "wls"):
    """The published ASM as transcribed in S4.3: NOT differentially private (P1-P4). Simulation noise only.

    Returns (values, variances, number of noisy releases). No ledger: its noisy releases are unbounded (P4).
    """
    if noise.is_secure:
        raise TypeError(
            "the literal ASM is not differentially private: it runs with simulation noise only "
            "(teaching), never for a release"
        )
    x = np.asarray(x, dtype=np.int64)
    eps = float(epsilon)
    s = max(1.0, 1.0 / ratio)
    tau = math.sqrt(2.0) * horizon / eps
    times, zs, weights = [], [], []
    nxt, releases = 0, 0
    out, var = np.empty(x.size), np.empty(x.size)
    for t in range(x.size):
        b = horizon / (s * eps)
        if t == nxt:
            z = float(noise.laplace_counts(x[t : t + 1], b)[0])
            times.append(t)
            zs.append(z)
            weights.append(1.0 / (abs(x[t] - z) + SIGMA))  # P2: realised noise
            out[t], var[t], releases, nxt = z, 2 * b * b, releases + 1, t + max(1, round(s))
            yield StreamValueReleased(t + 1, z, "sample", 2 * b * b, int(x[t]))
            continue
        xhat = predict(times, zs, weights, t, fit)
        if abs(x[t] - xhat) <= tau:  # P1: the release rule reads the true count
            out[t], var[t] = xhat, 2 * b * b
            yield StreamValueReleased(t + 1, xhat, "prediction", 2 * b * b, int(x[t]))
            continue
        z = float(noise.laplace_counts(x[t : t + 1], b)[0])  # P4: an unbounded number of these
        times.append(t)
        zs.append(z)
        weights.append(1.0 / (abs(x[t] - z) + SIGMA))
        releases += 1
        if t >= 1 and x[t] != x[t - 1]:  # P3: the adaptation reads true counts
            s = adapt(s, abs(xhat - x[t - 1]) / abs(x[t] - x[t - 1]))
        nxt = t + max(1, round(s))
        out[t], var[t] = z, 2 * b * b
        yield StreamValueReleased(t + 1, z, "sample", 2 * b * b, int(x[t]))
    return out, var, releases
