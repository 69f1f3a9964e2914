"""Streaming baselines beside SHP (STREAMING.md S7), each with its own guarantee.

- ``binary`` (Chan, Shi, Song 2011; Dwork et al. 2010): **event-level** epsilon-DP (neighbours differ in one
  record at one timestamp). L = floor(log2 T) + 1 levels; every p-sum over (t - 2^i, t] gets discrete
  Laplace noise of scale L/eps. One record is in one p-sum per level; the p-sums of a level cover disjoint
  timestamps, so each level is a parallel block of eps/L and the L levels add up to eps. The released count
  at t is noisy prefix(t) - noisy prefix(t-1) (post-processing); its variance is (1 + i) v with i the lowest
  set bit of t.
- ``fast`` (Fan and Xiong 2012/2014, as in chryenix/streamdp-benchmark FAST_w.java): M = floor(0.15 T)
  samples of eps/M each (scale M/eps), a Kalman filter (P = 100, Q = 1e5, R = 1e6) and PID sampling
  control (Cp 0.9, Ci 0.1, Cd 0, integral over the last T_i = 5 errors *not* divided by T_i, as the
  benchmark's code; theta 5, xi 0.1; the first 5 steps are sampled). User-level over T: each person is in
  at most M samples of eps/M.
- ``bd`` / ``ba`` (Kellaris et al. 2014) with W = T (user-level over T, the guarantee SHP has):
  eps_1 = eps/2 for dissimilarity tests (eps/(2T) per step, scale 2T/eps on |x_t - last release|),
  eps_2 = eps/2 for publications. BD publishes with half of what is left of eps_2; BA with
  (eps_2/T)(1 + skipped) (capped by what is left). A skipped step repeats the last release.
- ``uniform``: Lap(W/eps) at every step with W = T: the same noise as TPM.

Every decision reads only noisy values. Every spend is in the ledger before its noisy value is drawn.
"""

from __future__ import annotations

import math

import numpy as np

from dpstudio.core.budget import Ledger, as_fraction
from dpstudio.core.noise import NoiseSource
from dpstudio.core.range_error import laplace_variance
from dpstudio.core.scales import noise_scale
from dpstudio.core.stream_events import StreamValueReleased

from .stream_shp import _truth, spent_event, tpm


def uniform(x, horizon: int, epsilon, noise: NoiseSource, ledger: Ledger, sensitivity: int = 1):
    """Uniform with W = T: eps/T at every step, i.e. TPM's noise."""
    return (yield from tpm(x, horizon, epsilon, noise, ledger, label="Uniform, W = T", sensitivity=sensitivity))


def binary_levels(horizon: int) -> int:
    return int(math.floor(math.log2(horizon))) + 1


def binary(x, horizon: int, epsilon, noise: NoiseSource, ledger: Ledger, sensitivity: int = 1):
    """The binary mechanism (event-level): returns per-timestamp counts and their variances."""
    x = np.asarray(x, dtype=np.int64)
    n = x.size
    levels = binary_levels(horizon)
    per = as_fraction(epsilon) / levels
    scale = noise_scale(sensitivity, per)
    prefix = np.concatenate([[0], np.cumsum(x)])
    psum = {}
    for i in range(levels):  # p-sums of level i: (t - 2^i, t] for the t <= n whose lowest set bit is i
        ts = [t for t in range(2**i, n + 1, 2 ** (i + 1))]
        if not ts:
            continue
        with ledger.parallel(f"binary level {i}"):
            for t in ts:
                yield spent_event(
                    ledger,
                    ledger.spend(f"p-sum ({t - 2**i}, {t}]", "discrete Laplace (binary)", per, sensitivity, scale),
                )
        true = np.array([prefix[t] - prefix[t - 2**i] for t in ts], dtype=np.int64)
        for t, v in zip(ts, noise.laplace_counts(true, scale)):
            psum[t] = int(v)
    v_node = laplace_variance(scale)
    noisy_prefix = np.zeros(n + 1)
    out, var = np.empty(n), np.empty(n)
    for t in range(1, n + 1):
        total, rest, bit = 0, t, 0
        while rest:
            if rest & 1:
                end = (t >> bit) << bit
                total += psum[end]
            rest >>= 1
            bit += 1
        noisy_prefix[t] = total
        low = (t & -t).bit_length() - 1
        out[t - 1], var[t - 1] = total - noisy_prefix[t - 1], (1 + low) * v_node
        yield StreamValueReleased(t, float(out[t - 1]), "noisy", float(var[t - 1]), _truth(noise, x, t - 1))
    return out, var


def fast(x, horizon: int, epsilon, noise: NoiseSource, ledger: Ledger, ratio: float = 0.15, sensitivity: int = 1):
    """FAST: Kalman filter + PID-controlled sampling, M = max(1, floor(ratio T)) samples of eps/M."""
    x = np.asarray(x, dtype=np.int64)
    m = max(1, math.floor(ratio * horizon))
    per = as_fraction(epsilon) / m
    b = noise_scale(sensitivity, per)
    v_sample = laplace_variance(b)
    p_var, q, r = 100.0, 1e5, 1e6
    cp, ci, cd, t_i, theta, xi = 0.9, 0.1, 0.0, 5, 5.0, 0.1
    post, interval, nxt, samples = 0.0, 1, 0, 0
    errors, sample_times = [], []
    out, var = np.empty(x.size), np.full(x.size, v_sample)
    for t in range(x.size):
        prior = post
        p_var += q
        if samples < m and (t < t_i or t == nxt):
            yield spent_event(ledger, ledger.spend(f"t {t + 1}", "discrete Laplace (FAST sample)", per, sensitivity, b))
            z = float(noise.laplace_counts(x[t : t + 1], b)[0])
            samples += 1
            gain = p_var / (p_var + r)
            post = prior + gain * (z - prior)
            p_var *= 1.0 - gain
            errors.append(abs(post - prior) / max(post, 1.0))
            sample_times.append(t)
            if len(errors) >= 2:
                deriv = (errors[-1] - errors[-2]) / (sample_times[-1] - sample_times[-2])
            else:
                deriv = 0.0
            delta = cp * errors[-1] + ci * sum(errors[-t_i:]) + cd * deriv
            arg = (delta - xi) / xi
            step = -math.inf if arg > 700 else theta * (1.0 - math.exp(arg))
            interval = 1 if step == -math.inf else max(1, interval + math.floor(step))
            nxt = t + interval
            out[t] = post
            yield StreamValueReleased(t + 1, post, "sample", v_sample, _truth(noise, x, t))
        else:
            post = prior
            out[t] = prior
            yield StreamValueReleased(t + 1, prior, "prediction", v_sample, _truth(noise, x, t))
    return out, var


def kellaris(x, horizon: int, epsilon, noise: NoiseSource, ledger: Ledger, rule: str = "ba", sensitivity: int = 1):
    """BD (``rule="bd"``) or BA (``"ba"``) with W = T. Returns (values, variances)."""
    x = np.asarray(x, dtype=np.int64)
    eps = as_fraction(epsilon)
    e1_step = eps / 2 / horizon
    e2 = eps / 2
    lam1 = noise_scale(sensitivity, e1_step)
    pub_spent = 0 * eps
    last, v_last, skipped, nullified = 0.0, math.nan, 0, 0
    out, var = np.empty(x.size), np.empty(x.size)
    name = rule.upper()
    for t in range(x.size):
        if rule == "ba" and nullified > 0:
            nullified -= 1
            out[t], var[t] = last, v_last
            yield StreamValueReleased(t + 1, last, "repeat", v_last, _truth(noise, x, t))
            continue
        yield spent_event(
            ledger,
            ledger.spend(f"t {t + 1} test", f"discrete Laplace ({name} dissimilarity)", e1_step, sensitivity, lam1),
        )
        diff = abs(int(x[t]) - int(round(last)))
        dis = float(noise.laplace_counts(np.array([diff]), lam1)[0])
        left = e2 - pub_spent
        e_pub = left / 2 if rule == "bd" else min(e2 / horizon * (1 + skipped), left)
        publish = e_pub > 0 and (t == 0 or dis > 1 / float(e_pub))
        if publish:
            b = noise_scale(sensitivity, e_pub)
            yield spent_event(
                ledger, ledger.spend(f"t {t + 1} publish", f"discrete Laplace ({name})", e_pub, sensitivity, b)
            )
            pub_spent += e_pub
            last = float(noise.laplace_counts(x[t : t + 1], b)[0])
            v_last = laplace_variance(b)
            if rule == "ba":
                nullified, skipped = skipped, 0
            out[t], var[t] = last, v_last
            yield StreamValueReleased(t + 1, last, "noisy", v_last, _truth(noise, x, t))
        else:
            if rule == "ba":
                skipped = min(skipped + 1, horizon - 1)
            out[t], var[t] = last, v_last
            yield StreamValueReleased(t + 1, last, "repeat", v_last, _truth(noise, x, t))
    return out, var
