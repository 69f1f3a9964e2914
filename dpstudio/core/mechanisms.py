"""Differentially private mechanisms over the noise sources of ``dpstudio.core.noise``.

Privacy facts (neighbours: add or remove one record):

- ``noisy_counts``: a vector of counts whose L1 sensitivity is ``sensitivity`` gets discrete Laplace noise
  of scale ``sensitivity / epsilon``: epsilon-DP. Variance ~ 2 (sensitivity/epsilon)^2.
- ``exponential_mechanism``: selects i with probability proportional to exp(eps u_i / (2 Du)): eps-DP.
- ``report_noisy_max``: argmax of u_i + Exp(scale); scale = Du/eps for monotone scores (adding a record
  never lowers a score), 2 Du/eps otherwise: eps-DP.
- ``choose_split_in_intervals``: the continuous exponential mechanism over a line split into intervals:
  interval j is chosen with probability proportional to length_j * exp(eps u_j / (2 Du)) and the point is
  drawn uniformly inside it: eps-DP (DiffGen's numeric split point).

These functions do not touch the ledger; the caller spends ``epsilon`` in its ``Ledger`` first.
"""

from __future__ import annotations

import math

import numpy as np

from .noise import NoiseSource, SecureNoise, _as_scores, _check_scale

_SECURE = SecureNoise()


def _check_eps(epsilon) -> float:
    eps = float(epsilon)
    if not (math.isfinite(eps) and eps > 0):
        raise ValueError(f"epsilon must be a positive finite number, got {epsilon!r}")
    return eps


def _check_sensitivity(sensitivity) -> float:
    sens = float(sensitivity)
    if not (math.isfinite(sens) and sens > 0):
        raise ValueError(f"sensitivity must be a positive finite number, got {sensitivity!r}")
    return sens


def noisy_counts(counts, epsilon, sensitivity=1, noise: NoiseSource | None = None) -> np.ndarray:
    """Integer counts plus discrete Laplace noise of scale sensitivity/epsilon (secure by default).

    Returns a numpy int64 array of the same shape. epsilon-DP for a count vector of L1 sensitivity
    ``sensitivity``.
    """
    eps = _check_eps(epsilon)
    sens = _check_sensitivity(sensitivity)
    noise = _SECURE if noise is None else noise
    return noise.laplace_counts(counts, sens / eps)


def exponential_probabilities(scores, epsilon, sensitivity=1.0) -> np.ndarray:
    """Selection probabilities of the exponential mechanism (for display and tests; no noise)."""
    u = _as_scores(scores)
    logits = _check_eps(epsilon) * u / (2.0 * _check_sensitivity(sensitivity))
    logits -= logits.max()
    w = np.exp(logits)
    return w / w.sum()


def exponential_mechanism(scores, epsilon, sensitivity=1.0, noise: NoiseSource | None = None) -> int:
    """Index chosen with probability proportional to exp(eps * u / (2 Du)). eps-DP."""
    noise = _SECURE if noise is None else noise
    return noise.exponential(scores, 2.0 * _check_sensitivity(sensitivity) / _check_eps(epsilon))


def report_noisy_max(scores, epsilon, sensitivity=1.0, monotone=True,
                     noise: NoiseSource | None = None) -> int:
    """Index of max(u + Exp(scale)); scale Du/eps if ``monotone`` else 2 Du/eps. eps-DP."""
    noise = _SECURE if noise is None else noise
    scale = _check_sensitivity(sensitivity) / _check_eps(epsilon) * (1.0 if monotone else 2.0)
    return noise.noisy_max(scores, scale)


def noisy_max_probabilities(scores, epsilon, sensitivity=1.0, monotone=True, draws=4000,
                            seed=0) -> np.ndarray:
    """Selection probabilities of report-noisy-max with exponential noise, estimated by simulation.

    For display only (no closed form exists for more than two candidates). Uses simulation noise and
    never touches the data beyond the scores passed in.
    """
    u = _as_scores(scores)
    scale = _check_sensitivity(sensitivity) / _check_eps(epsilon) * (1.0 if monotone else 2.0)
    rng = np.random.default_rng(seed)
    wins = np.argmax(u[None, :] + rng.exponential(scale, size=(draws, u.size)), axis=1)
    return np.bincount(wins, minlength=u.size) / draws


def interval_log_weights(scores, lengths, epsilon, sensitivity=1.0) -> np.ndarray:
    """Log-weights log(length) + eps u / (2 Du) of the continuous exponential mechanism.

    Zero-length intervals get weight 0 (-inf).
    """
    u = _as_scores(scores)
    length = np.asarray(lengths, dtype=float).ravel()
    if u.shape != length.shape:
        raise ValueError("scores and lengths must have the same shape")
    if not np.all(np.isfinite(length) & (length >= 0)):
        raise ValueError("interval lengths must be finite and non-negative")
    with np.errstate(divide="ignore"):
        return np.log(length) + _check_eps(epsilon) * u / (2.0 * _check_sensitivity(sensitivity))


def interval_probabilities(edges, scores, epsilon, sensitivity=1.0) -> np.ndarray:
    """Selection probabilities of ``choose_split_in_intervals`` (for display and tests; no noise)."""
    logw = interval_log_weights(scores, np.diff(np.asarray(edges, dtype=float)), epsilon, sensitivity)
    if not np.any(np.isfinite(logw)):
        raise ValueError("all intervals are empty")
    w = np.exp(logw - logw[np.isfinite(logw)].max())
    return w / w.sum()


def choose_split_in_intervals(edges, scores, epsilon, sensitivity=1.0,
                              noise: NoiseSource | None = None) -> tuple[int, float]:
    """Continuous exponential mechanism over the intervals [edges[j], edges[j+1]).

    ``scores[j]`` is the utility of any split point inside interval j. Returns (j, point) with j chosen
    with probability proportional to length_j * exp(eps u_j / (2 Du)) and the point uniform inside it.
    eps-DP: the privacy argument is the continuous exponential mechanism's (the intervals' end points
    are data values, but the density over the whole public range is what is sampled).
    """
    noise = _SECURE if noise is None else noise
    e = np.asarray(edges, dtype=float)
    u = _as_scores(scores)
    if e.ndim != 1 or e.size != u.size + 1:
        raise ValueError("need one score per interval (len(edges) == len(scores) + 1)")
    if not np.all(np.isfinite(e)):
        raise ValueError("interval edges must be finite (numeric attributes need public bounds)")
    lengths = np.diff(e)
    if np.any(lengths < 0):
        raise ValueError("edges must be non-decreasing")
    positive = np.flatnonzero(lengths > 0)
    if positive.size == 0:
        raise ValueError("all intervals are empty")
    scale = 2.0 * _check_sensitivity(sensitivity) / _check_eps(epsilon)
    # Gumbel-max over scores u + scale*log(length) picks j with P proportional to length * exp(u/scale).
    shifted = u[positive] + scale * np.log(lengths[positive])
    k = noise.exponential(shifted - shifted.max(), _check_scale(scale))
    j = int(positive[k])
    return j, noise.uniform(e[j], e[j + 1])
