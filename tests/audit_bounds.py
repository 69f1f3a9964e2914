"""Clopper-Pearson bounds for empirical privacy audits (shared by tests/core/test_privacy_audit.py and the
end-to-end audit of the release writers, tests/release_audit.py). scipy only: no dpstudio import, so the
end-to-end audit can run against an older checkout."""

import math

from scipy import stats


def clopper_pearson(k: int, n: int, alpha: float) -> tuple[float, float]:
    """One-sided (each at level alpha) exact binomial bounds on p from k successes in n trials."""
    lower = 0.0 if k == 0 else stats.beta.ppf(alpha, k, n - k + 1)
    upper = 1.0 if k == n else stats.beta.ppf(1 - alpha, k + 1, n - k)
    return lower, upper


def loss_lower_bound(k1: int, n1: int, k2: int, n2: int, alpha: float) -> float:
    """Lower confidence bound on ln(p1 / p2) (valid with probability >= 1 - 2 alpha)."""
    lo1, _ = clopper_pearson(k1, n1, alpha)
    _, up2 = clopper_pearson(k2, n2, alpha)
    return -math.inf if lo1 == 0 else math.log(lo1) - math.log(up2)
