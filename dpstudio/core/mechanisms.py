"""Differentially private mechanisms over the noise sources of ``dpstudio.core.noise``.

Privacy facts (neighbours: add or remove one record):

- ``noisy_counts``: a vector of counts whose L1 sensitivity is ``sensitivity`` gets discrete Laplace noise
  of scale ``sensitivity / epsilon``: epsilon-DP. Variance ~ 2 (sensitivity/epsilon)^2.
- ``exponential_mechanism``: selects i with probability proportional to exp(eps u_i / (2 Du)): eps-DP.
- ``report_noisy_max``: argmax of u_i + Exp(scale); scale = Du/eps for monotone scores (adding a record
  never lowers a score), 2 Du/eps otherwise: eps-DP.
- ``choose_split_on_lattice``: the discrete exponential mechanism over a public set of split points (the
  lattice indices of ``dpstudio.core.lattice``) whose scores are constant on runs of consecutive indices:
  group j (``count_j`` indices) is chosen with probability proportional to count_j * exp(eps u_j / (2 Du)),
  then an index uniformly inside it with an exact integer sampler, so every index k has probability
  proportional to exp(eps u(k) / (2 Du)): eps-DP (DiffGen's numeric split point).

Every scale is ``scales.noise_scale``: the exact factor * Du / eps rounded up to a double, so the epsilon
a scale implies never exceeds the ledgered one. These functions do not touch the ledger; the caller spends
``epsilon`` in its ``Ledger`` first (pass it as the same Fraction to get exactly the ledgered value).
"""

from __future__ import annotations

import math

import numpy as np

from .noise import NoiseSource, SecureNoise, _as_scores
from .scales import noise_scale

_SECURE = SecureNoise()


def _check_eps(epsilon):
    """A positive finite epsilon, returned as given (a Fraction stays exact for ``noise_scale``)."""
    try:
        eps = float(epsilon)
    except (TypeError, ValueError):
        raise ValueError(f"epsilon must be a positive finite number, got {epsilon!r}") from None
    if not (math.isfinite(eps) and eps > 0):
        raise ValueError(f"epsilon must be a positive finite number, got {epsilon!r}")
    return epsilon


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
    return noise.laplace_counts(counts, noise_scale(sens, eps))


def exponential_probabilities(scores, epsilon, sensitivity=1.0) -> np.ndarray:
    """Selection probabilities of the exponential mechanism (for display and tests; no noise)."""
    u = _as_scores(scores)
    logits = float(_check_eps(epsilon)) * u / (2.0 * _check_sensitivity(sensitivity))
    logits -= logits.max()
    w = np.exp(logits)
    return w / w.sum()


def exponential_mechanism(scores, epsilon, sensitivity=1.0, noise: NoiseSource | None = None) -> int:
    """Index chosen with probability proportional to exp(eps * u / (2 Du)). eps-DP."""
    noise = _SECURE if noise is None else noise
    return noise.exponential(scores, noise_scale(_check_sensitivity(sensitivity), _check_eps(epsilon), 2))


def report_noisy_max(scores, epsilon, sensitivity=1.0, monotone=True, noise: NoiseSource | None = None) -> int:
    """Index of max(u + Exp(scale)); scale Du/eps if ``monotone`` else 2 Du/eps. eps-DP."""
    noise = _SECURE if noise is None else noise
    return noise.noisy_max(scores, noisy_max_scale(sensitivity, epsilon, monotone))


def noisy_max_scale(sensitivity, epsilon, monotone=True) -> float:
    """Report-noisy-max's exponential noise scale: Du/eps (monotone scores) or 2 Du/eps, rounded up."""
    return noise_scale(_check_sensitivity(sensitivity), _check_eps(epsilon), 1 if monotone else 2)


def noisy_max_probabilities(scores, epsilon, sensitivity=1.0, monotone=True, draws=4000, seed=0) -> np.ndarray:
    """Selection probabilities of report-noisy-max with exponential noise, estimated by simulation.

    For display only (no closed form exists for more than two candidates). Uses simulation noise and
    never touches the data beyond the scores passed in.
    """
    u = _as_scores(scores)
    scale = noisy_max_scale(sensitivity, epsilon, monotone)
    rng = np.random.default_rng(seed)
    wins = np.argmax(u[None, :] + rng.exponential(scale, size=(draws, u.size)), axis=1)
    return np.bincount(wins, minlength=u.size) / draws


def _group_counts(starts) -> np.ndarray:
    k = np.asarray(starts)
    if k.ndim != 1 or k.size < 2:
        raise ValueError("need the group boundaries k_0 <= k_1 <= ... (at least one group)")
    if not np.issubdtype(k.dtype, np.integer):
        if not np.all(np.isfinite(k)) or not np.all(k == np.round(k)):
            raise ValueError("group boundaries must be whole numbers (lattice indices)")
    counts = np.diff(k.astype(np.int64))
    if np.any(counts < 0):
        raise ValueError("group boundaries must be non-decreasing")
    return counts


def lattice_log_weights(scores, counts, epsilon, sensitivity=1.0) -> np.ndarray:
    """Log-weights log(count_j) + eps u_j / (2 Du) of the groups; empty groups get -inf."""
    u = _as_scores(scores)
    c = np.asarray(counts, dtype=float).ravel()
    if u.shape != c.shape:
        raise ValueError("need one score per group (len(starts) == len(scores) + 1)")
    with np.errstate(divide="ignore"):
        return np.log(c) + float(_check_eps(epsilon)) * u / (2.0 * _check_sensitivity(sensitivity))


def lattice_probabilities(starts, scores, epsilon, sensitivity=1.0) -> np.ndarray:
    """Probability of each group of ``choose_split_on_lattice`` (display and tests; no noise). A single
    index of group j has probability p_j / count_j."""
    logw = lattice_log_weights(scores, _group_counts(starts), epsilon, sensitivity)
    if not np.any(np.isfinite(logw)):
        raise ValueError("no split point to choose (every group is empty)")
    w = np.exp(logw - logw[np.isfinite(logw)].max())
    return w / w.sum()


def choose_split_on_lattice(
    starts, scores, epsilon, sensitivity=1.0, noise: NoiseSource | None = None
) -> tuple[int, int]:
    """Discrete exponential mechanism over the lattice indices ``starts[0] <= k < starts[-1]``.

    Group j holds the indices starts[j] <= k < starts[j+1], all with utility ``scores[j]``. Returns
    (j, k): j with probability proportional to count_j * exp(eps u_j / (2 Du)) (Gumbel max over
    u + scale log count, scale = 2 Du / eps rounded up), then k = starts[j] + an exact uniform integer
    below count_j. eps-DP over the public index set; empty groups are never chosen.
    """
    noise = _SECURE if noise is None else noise
    u = _as_scores(scores)
    counts = _group_counts(starts)
    if counts.size != u.size:
        raise ValueError("need one score per group (len(starts) == len(scores) + 1)")
    positive = np.flatnonzero(counts > 0)
    if positive.size == 0:
        raise ValueError("no split point to choose (every group is empty)")
    scale = noise_scale(_check_sensitivity(sensitivity), _check_eps(epsilon), 2)
    shifted = u[positive] + scale * np.log(counts[positive].astype(float))
    j = int(positive[noise.exponential(shifted - shifted.max(), scale)])
    return j, int(np.asarray(starts)[j]) + noise.randbelow(int(counts[j]))
