"""Noise sources: secure (OpenDP, for releases) and simulation (seeded numpy, never for releases).

Two distinct types so that a release writer can check, by type, that what it writes was noised with
secure noise. ``SimulationNoise`` exists for Monte-Carlo error bands and the seeded teaching mode; its
output is labelled "not a release" wherever it goes.

Every method takes the noise *scale* (not epsilon): the caller derives the scale from the sensitivity and
the epsilon it has already spent in the ledger (see ``dpstudio.core.budget``).

- ``laplace_counts(counts, scale)``: integer counts plus discrete Laplace noise of the given scale.
  Secure: OpenDP's exact sampler (long vectors in parallel threads, each slice one exact OpenDP call).
  eps = sensitivity / scale.
- ``noisy_max(scores, scale)``: report-noisy-max with exponential noise; eps = Du/scale for scores
  monotone in the data, 2 Du/scale otherwise.
- ``exponential(scores, scale)``: the exponential mechanism, P(i) proportional to exp(scores[i] / scale);
  eps = 2 Du / scale. Secure: OpenDP's Gumbel noisy max (exact).
- ``randbelow(n)``: a uniform integer in 0..n-1, exactly (the lattice split point inside a chosen group
  of split points). Secure: ``secrets.randbelow`` (the operating system's cryptographic source).

numpy noise is for simulation only: its generators are not cryptographic (a seed, which seeded runs
publish, reveals the noise), and floating-point Laplace noise leaks the true value through the set of
doubles it can produce (Mironov, CCS 2012). OpenDP samples exactly from OpenSSL randomness.
"""

from __future__ import annotations

import math
import os
import secrets
from abc import ABC, abstractmethod
from concurrent.futures import ThreadPoolExecutor
from functools import lru_cache

import numpy as np


class NotSecureNoiseError(TypeError):
    """Raised when simulation noise reaches something that may only take secure noise."""


class NoiseSource(ABC):
    """Common interface; see the module docstring for what each method promises."""

    #: True only for noise fit for a release.
    is_secure: bool = False
    #: Short label for reports: "secure (OpenDP)" or "simulation (seed N)".
    label: str = ""

    @abstractmethod
    def laplace_counts(self, counts, scale: float) -> np.ndarray: ...

    @abstractmethod
    def noisy_max(self, scores, scale: float) -> int: ...

    @abstractmethod
    def exponential(self, scores, scale: float) -> int: ...

    @abstractmethod
    def randbelow(self, n: int) -> int: ...


def require_secure(noise: NoiseSource) -> SecureNoise:
    """Return ``noise`` if it is secure; otherwise raise ``NotSecureNoiseError``."""
    if not isinstance(noise, SecureNoise):
        raise NotSecureNoiseError(
            f"{type(noise).__name__} is simulation noise: it cannot produce a release "
            "(use SecureNoise, or write the output marked 'not a release')"
        )
    return noise


def _check_scale(scale: float) -> float:
    scale = float(scale)
    if not (math.isfinite(scale) and scale > 0):
        raise ValueError(f"noise scale must be a positive finite number, got {scale!r}")
    return scale


def _as_int64(counts) -> np.ndarray:
    arr = np.asarray(counts)
    if arr.size and not np.issubdtype(arr.dtype, np.integer):
        if not np.all(np.isfinite(arr)) or not np.all(arr == np.round(arr)):
            raise ValueError("counts must be integers")
    return arr.astype(np.int64, copy=False)


def _as_scores(scores) -> np.ndarray:
    arr = np.asarray(scores, dtype=float).ravel()
    if arr.size == 0:
        raise ValueError("no candidates to select from")
    if not np.all(np.isfinite(arr)):
        raise ValueError("scores must be finite")
    return arr


def _check_n(n) -> int:
    if isinstance(n, bool) or int(n) != n or n < 1:
        raise ValueError(f"randbelow needs a whole number n >= 1, got {n!r}")
    return int(n)


class SecureNoise(NoiseSource):
    """OpenDP's exact samplers (OpenSSL randomness). Cannot be seeded."""

    is_secure = True
    label = "secure (OpenDP)"

    def laplace_counts(self, counts, scale: float) -> np.ndarray:
        arr = _as_int64(counts)
        scale = _check_scale(scale)
        if arr.size == 0:
            return arr.copy()
        flat = arr.ravel()
        chunks = _parallel_chunks(len(flat))
        if chunks == 1:
            out = _secure_laplace_chunk(flat, scale)
        else:
            # OpenDP's sampler releases the GIL: threads sample disjoint slices, each exactly as one call.
            parts = np.array_split(flat, chunks)
            with ThreadPoolExecutor(max_workers=chunks) as pool:
                out = np.concatenate(list(pool.map(lambda part: _secure_laplace_chunk(part, scale), parts)))
        return out.reshape(arr.shape)

    def noisy_max(self, scores, scale: float) -> int:
        arr = _as_scores(scores)
        scale = _check_scale(scale)
        if arr.size == 1:
            return 0
        return int(_float_noisy_max(len(arr), scale, "max")(arr.tolist()))

    def exponential(self, scores, scale: float) -> int:
        arr = _as_scores(scores)
        scale = _check_scale(scale)
        if arr.size == 1:
            return 0
        arr = arr - arr.max()
        return int(_float_noisy_max(len(arr), scale, "gumbel")(arr.tolist()))

    def randbelow(self, n: int) -> int:
        return secrets.randbelow(_check_n(n))


def _opendp():
    """The OpenDP modules we use, imported directly: ``opendp.prelude`` also imports scikit-learn
    (through ``opendp.extras``), which takes seconds and is not a core dependency."""
    from types import SimpleNamespace

    import opendp.domains as domains
    import opendp.measurements as measurements
    import opendp.measures as measures
    import opendp.metrics as metrics
    from opendp.mod import enable_features

    enable_features("contrib")
    return SimpleNamespace(
        vector_domain=domains.vector_domain,
        atom_domain=domains.atom_domain,
        l1_distance=metrics.l1_distance,
        linf_distance=metrics.linf_distance,
        max_divergence=measures.max_divergence,
        zero_concentrated_divergence=measures.zero_concentrated_divergence,
        m=measurements,
    )


#: Vectors at least this long are sampled in parallel threads (one slice per core, at most 8).
PARALLEL_MIN_COUNTS = 65_536


def _parallel_chunks(size: int) -> int:
    if size < PARALLEL_MIN_COUNTS:
        return 1
    return max(1, min(os.cpu_count() or 1, 8, size // (PARALLEL_MIN_COUNTS // 2)))


def _secure_laplace_chunk(flat: np.ndarray, scale: float) -> np.ndarray:
    return np.asarray(_int_laplace(len(flat), scale)(flat), dtype=np.int64)


@lru_cache(maxsize=256)
def _int_laplace(size: int, scale: float):
    dp = _opendp()
    space = (dp.vector_domain(dp.atom_domain(T="i64"), size=size), dp.l1_distance(T="i64"))
    return space >> dp.m.then_laplace(scale=scale)


@lru_cache(maxsize=256)
def _float_noisy_max(size: int, scale: float, kind: str):
    dp = _opendp()
    space = (
        dp.vector_domain(dp.atom_domain(T=float, nan=False), size=size),
        dp.linf_distance(T=float),
    )
    divergence = dp.max_divergence() if kind == "max" else dp.zero_concentrated_divergence()
    return space >> dp.m.then_noisy_max(divergence, scale=scale)


class SimulationNoise(NoiseSource):
    """Seeded numpy noise with the same distributions as ``SecureNoise``. Never for a release."""

    is_secure = False

    def __init__(self, seed: int | None = None):
        self.seed = seed
        self.rng = np.random.default_rng(seed)
        self.label = f"simulation (seed {seed})"

    def discrete_laplace(self, size, scale: float) -> np.ndarray:
        """Samples of the discrete Laplace distribution P(k) proportional to exp(-|k|/scale)."""
        scale = _check_scale(scale)
        p = -math.expm1(-1.0 / scale)
        # The difference of two i.i.d. geometric variables (failures before success) is discrete Laplace.
        g1 = self.rng.geometric(p, size=size) - 1
        g2 = self.rng.geometric(p, size=size) - 1
        return (g1 - g2).astype(np.int64)

    def laplace_counts(self, counts, scale: float) -> np.ndarray:
        arr = _as_int64(counts)
        return arr + self.discrete_laplace(arr.shape, scale)

    def noisy_max(self, scores, scale: float) -> int:
        arr = _as_scores(scores)
        return int(np.argmax(arr + self.rng.exponential(_check_scale(scale), size=arr.size)))

    def noisy_max_many(self, scores, scale: float, draws: int) -> np.ndarray:
        """``draws`` independent report-noisy-max selections at once (Monte-Carlo, audits)."""
        arr = _as_scores(scores)
        noise = self.rng.exponential(_check_scale(scale), size=(int(draws), arr.size))
        return np.argmax(arr[None, :] + noise, axis=1)

    def exponential_many(self, scores, scale: float, draws: int) -> np.ndarray:
        """``draws`` independent exponential-mechanism selections at once (Monte-Carlo, audits)."""
        arr = _as_scores(scores)
        noise = self.rng.gumbel(0.0, _check_scale(scale), size=(int(draws), arr.size))
        return np.argmax(arr[None, :] + noise, axis=1)

    def exponential(self, scores, scale: float) -> int:
        arr = _as_scores(scores)
        return int(np.argmax(arr + self.rng.gumbel(0.0, _check_scale(scale), size=arr.size)))

    def randbelow(self, n: int) -> int:
        return int(self.rng.integers(_check_n(n)))

    def laplace(self, size, scale: float) -> np.ndarray:
        """Continuous Laplace noise, for Monte-Carlo error estimates only."""
        return self.rng.laplace(0.0, _check_scale(scale), size=size)


def simulated_discrete_laplace(rng, scales, runs: int):
    """Discrete Laplace samples (nodes x runs) with per-node ``scales`` from a numpy generator: Monte-Carlo
    estimates of error only (seeded simulation, never a release)."""
    import numpy as np

    scales = np.asarray(scales, dtype=float)
    q = -np.expm1(-1.0 / scales)[:, None]
    shape = (scales.size, runs)
    return (rng.geometric(np.broadcast_to(q, shape)) - rng.geometric(np.broadcast_to(q, shape))).astype(float)
