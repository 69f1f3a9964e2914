"""Noise scales from an epsilon, rounded toward more noise (the one place a scale is derived).

``noise_scale(sensitivity, epsilon, factor=1)`` is the smallest double >= factor * sensitivity / epsilon,
computed exactly: epsilon is read as the ledger reads it (``budget.as_fraction``: a float such as 0.1 is
its shortest decimal, 1/10), the sensitivity and factor as their exact values. So the epsilon a scale
implies, factor * sensitivity / scale, is never above the epsilon in the ledger; a plain float division
``sensitivity / float(eps)`` rounds to nearest and is a hair too small for some settings.

Privacy: a mechanism run with scale b >= factor * Du / eps is eps-DP whenever it is eps-DP at the exact
scale (more noise never costs more budget).
"""

from __future__ import annotations

import math
from fractions import Fraction

from .budget import as_fraction


def exact_fraction(value) -> Fraction:
    """A sensitivity or factor as an exact fraction (a float by its exact binary value)."""
    if isinstance(value, Fraction):
        return value
    if isinstance(value, float) or hasattr(value, "dtype"):
        value = float(value)
        if not math.isfinite(value):
            raise ValueError(f"not a finite number: {value!r}")
        return Fraction(value)
    return Fraction(value)


def round_up(exact: Fraction) -> float:
    """The smallest double >= ``exact``."""
    x = float(exact)
    if Fraction(x) < exact:
        x = math.nextafter(x, math.inf)
    return x


def noise_scale(sensitivity, epsilon, factor=1) -> float:
    """The smallest double >= factor * sensitivity / epsilon (epsilon read as the ledger reads it).

    Use for every scale derived from an epsilon: discrete Laplace (factor 1), the exponential mechanism
    (factor 2), report-noisy-max (1 for monotone scores, 2 otherwise)."""
    eps = as_fraction(epsilon)
    if not eps > 0:
        raise ValueError(f"epsilon must be positive, got {epsilon!r}")
    return round_up(exact_fraction(factor) * exact_fraction(sensitivity) / eps)
