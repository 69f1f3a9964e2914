"""Analytic and measured error of range counts answered from a noisy interval tree (numpy only).

All figures here are data-independent: they depend on the tree's shape and the per-node noise variances,
never on the counts, so they may appear in a release report (ALGORITHMS.md section 0).

Workload: every range [l, r] of the n bins, n(n+1)/2 of them, equally likely. "MSE" is the expected
squared error of one uniformly random range.

- Raw tree (no consistency), answered by the canonical cover: MSE = sum_x p_x s2_x (seed 003, 3.2/3.6;
  with Laplace noise s2_x = 2/eps_x^2), p_x the coverage probabilities of ``dpstudio.core.coverage``.
- Consistent estimate (exact BLUE, ``dpstudio.core.consistency.least_squares``): the leaf estimate is
  linear and unbiased with covariance Sigma. With prefix sums P_0 = 0, P_i = x_1 + ... + x_i, a range is
  P_r - P_l and the sum over all ranges of its variance is

      (n + 1) * sum_i Var(P_i) - Var(sum_i P_i),

  so only n prefix variances and one extra variance are needed. ``consistent_all_range_mse`` gets them in
  O(nodes * height) from the tree's Gaussian structure (below), without forming Sigma; the O(n^2)
  ``consistent_error_by_length`` forms prefix covariances from ``least_squares`` itself.

Tree structure of the BLUE (why the O(nodes) recursion is exact): the upward pass gives for every node v
an estimate z_v from its own subtree with variance V_v (V_leaf = s2, V_v = 1/(1/s2_v + 1/S_v),
S_v = sum of the children's V). Given the total h_v, the children's totals are Gaussian with covariance
K = diag(V_c) - V_c V_c^T / S_v, and given h_c a child's subtree is independent of everything outside it.
A linear function F of the leaves under v therefore has E[F | h_v] = beta_v h_v + const and
Var(F | h_v) = gamma_v with beta, gamma computed child to parent; at the root Var(F) = gamma + beta^2 V.
"""

from __future__ import annotations

import math

import numpy as np

from .consistency import TreeLevels, least_squares
from .coverage import coverage_probabilities, effective_coverage, n_ranges


def laplace_variance(scale, discrete: bool = True):
    """Variance of Laplace noise of ``scale``: 2 s^2 (continuous) or, for the discrete Laplace
    distribution P(k) ~ exp(-|k|/s) that releases use, 2 e^(-1/s) / (1 - e^(-1/s))^2 (slightly less)."""
    s = np.asarray(scale, dtype=float)
    if not discrete:
        out = 2.0 * s * s
    else:
        with np.errstate(divide="ignore", invalid="ignore"):
            q = np.exp(-1.0 / s)
            out = 2.0 * q / (-np.expm1(-1.0 / s)) ** 2
        out = np.where(np.isinf(s), np.inf, out)
    return float(out) if np.ndim(out) == 0 else out


def discrete_laplace_half_width(scale: float, level: float = 0.95) -> int:
    """The smallest whole x with P(|Z| <= x) >= ``level`` for the discrete Laplace noise Z of ``scale``
    (P(Z = k) proportional to exp(-|k|/scale), the noise counts get): "off by at most x, 95 % of the time".

    With p = exp(-1/scale), P(|Z| > x) = 2 p^(x+1) / (1 + p). Data-independent (public)."""
    if not 0 < level < 1:
        raise ValueError(f"level must be between 0 and 1, got {level!r}")
    if not scale > 0:
        raise ValueError(f"scale must be positive, got {scale!r}")
    log_p = -1.0 / float(scale)
    p = math.exp(log_p)

    def tail(x: int) -> float:  # P(|Z| > x)
        return 2.0 * math.exp((x + 1) * log_p) / (1.0 + p)

    x = max(0, math.ceil(math.log((1.0 - level) * (1.0 + p) / 2.0) / log_p) - 1)
    while x > 0 and tail(x - 1) <= 1.0 - level:  # floating-point guard: the smallest such x
        x -= 1
    while tail(x) > 1.0 - level:
        x += 1
    return x


def upward_variances(parents, variances, levels: TreeLevels | None = None):
    """(V, S): V_v the variance of node v's subtree-only estimate, S_v the sum of its children's V
    (S = 0 for leaves). Un-noised nodes have variance inf and contribute nothing of their own."""
    lv = levels if levels is not None else TreeLevels(parents)
    par = lv.parents
    s2 = np.asarray(variances, dtype=float)
    V = s2.copy()
    S = np.zeros_like(V)
    for level in reversed(lv.levels):
        internal = level[~lv.is_leaf[level]]
        if internal.size:
            with np.errstate(divide="ignore"):
                V[internal] = 1.0 / (1.0 / s2[internal] + 1.0 / S[internal])
        nonroot = level[par[level] >= 0]
        if nonroot.size:
            S += np.bincount(par[nonroot], weights=V[nonroot], minlength=par.size)
    return V, S


def raw_all_range_mse(parents, lo, hi, n_bins: int, variances, levels: TreeLevels | None = None) -> float:
    """Expected squared error of a uniformly random range answered from the raw tree's canonical cover:
    sum_x p_x s2_x over the noised nodes (a range that would use an un-noised node uses its children)."""
    s2 = np.asarray(variances, dtype=float)
    noised = np.isfinite(s2)
    p = coverage_probabilities(parents, lo, hi, n_bins)
    eff = effective_coverage(parents, p, noised, levels)
    return float(np.sum(eff[noised] * s2[noised]))


def _left_sibling_sums(parents, lo, values) -> np.ndarray:
    """For every node, the sum of ``values`` over its siblings to its left (smaller lo)."""
    if (
        parents.size > 1
        and np.all(parents[2:] >= parents[1:-1])
        and np.all((parents[2:] != parents[1:-1]) | (lo[2:] > lo[1:-1]))
    ):
        order = np.arange(parents.size)  # breadth-first with children in order: no sort needed
    else:
        order = np.lexsort((lo, parents))
    v = values[order]
    csum = np.cumsum(v) - v
    p_sorted = parents[order]
    first = np.ones(order.size, dtype=bool)
    first[1:] = p_sorted[1:] != p_sorted[:-1]
    group_start = np.maximum.accumulate(np.where(first, np.arange(order.size), 0))
    left = csum - csum[group_start]
    out = np.empty_like(values)
    out[order] = left
    return out


def prefix_variances(parents, lo, hi, n_bins: int, variances, levels: TreeLevels | None = None, _VS=None):
    """Var(P_i) of the consistent estimate for every prefix P_i = bins 0..i (i = 0..n-1), O(nodes).

    Top-down over the nodes, tracking for each node c with parent v: X_c = Var(P_hi(c)) (the prefix that
    ends at c's last bin), Y_c = Cov(P_hi(c), h_c) and Z_c = Var(h_c), the posterior variance of c's total.
    With a_c = the V of c and of its left siblings summed, alpha = a_c / S_v and P_lo(v) = P_hi(v) - h_v:
      Z_c = (V_c/S_v)^2 Z_v + V_c - V_c^2/S_v
      X_c = Var(P_lo(v)) + alpha^2 Z_v + a_c - a_c^2/S_v + 2 alpha Cov(P_lo(v), h_v)
      Y_c = (V_c/S_v) Cov(P_lo(v), h_v) + alpha (V_c/S_v) Z_v + V_c - V_c a_c / S_v
    with Var(P_lo(v)) = X_v - 2 Y_v + Z_v, Cov(P_lo(v), h_v) = Y_v - Z_v; at the root X = Y = Z = V_root.
    """
    lv = levels if levels is not None else TreeLevels(parents)
    par = lv.parents
    lo = np.asarray(lo, dtype=np.int64)
    hi = np.asarray(hi, dtype=np.int64)
    V, S = _VS if _VS is not None else upward_variances(par, variances, lv)
    a_c = _left_sibling_sums(par, lo, V) + V
    leaves = np.flatnonzero(lv.is_leaf)
    if np.any(hi[leaves] - lo[leaves] != 1):
        raise ValueError("every leaf must hold exactly one bin")
    if leaves.size != n_bins:
        raise ValueError(f"the tree has {leaves.size} leaves for {n_bins} bins")
    X = np.empty(par.size)
    Y = np.empty(par.size)
    Z = np.empty(par.size)
    r = lv.root
    X[r] = Y[r] = Z[r] = V[r]
    for level in lv.levels[1:]:
        if level[-1] - level[0] + 1 == level.size and np.all(level[1:] > level[:-1]):
            level = slice(int(level[0]), int(level[-1]) + 1)  # contiguous: views instead of gathers
        v = par[level]
        Sv = S[v]
        Zv = Z[v]
        cov_lo = Y[v] - Zv
        var_lo = X[v] - 2.0 * Y[v] + Zv
        Vc = V[level]
        ac = a_c[level]
        k = Vc / Sv
        alpha = ac / Sv
        Z[level] = k * k * Zv + Vc - Vc * k
        X[level] = var_lo + alpha * alpha * Zv + ac - ac * alpha + 2.0 * alpha * cov_lo
        Y[level] = k * cov_lo + alpha * k * Zv + Vc - Vc * alpha
    out = np.empty(n_bins)
    out[lo[leaves]] = X[leaves]
    return out


def linear_variance(parents, lo, weights_by_bin, variances, levels: TreeLevels | None = None, _VS=None) -> float:
    """Var(sum_j w_j xhat_j) of the consistent leaf estimate for one weight vector over the bins, O(nodes)."""
    lv = levels if levels is not None else TreeLevels(parents)
    par = lv.parents
    lo = np.asarray(lo, dtype=np.int64)
    V, S = _VS if _VS is not None else upward_variances(par, variances, lv)
    w = np.asarray(weights_by_bin, dtype=float)
    beta = np.zeros(par.size)
    gamma = np.zeros(par.size)
    leaf = lv.is_leaf
    beta[leaf] = w[lo[leaf]]
    sb = np.zeros(par.size)  # sum over children of beta_c V_c
    sg = np.zeros(par.size)  # sum over children of gamma_c + beta_c^2 V_c
    for level in reversed(lv.levels):
        internal = level[~leaf[level]]
        if internal.size:
            Sv = S[internal]
            beta[internal] = sb[internal] / Sv
            gamma[internal] = sg[internal] - sb[internal] ** 2 / Sv
        nonroot = level[par[level] >= 0]
        if nonroot.size:
            pp = par[nonroot]
            sb += np.bincount(pp, weights=beta[nonroot] * V[nonroot], minlength=par.size)
            sg += np.bincount(pp, weights=gamma[nonroot] + beta[nonroot] ** 2 * V[nonroot], minlength=par.size)
    r = lv.root
    return float(gamma[r] + beta[r] ** 2 * V[r])


def consistent_all_range_mse(parents, lo, hi, n_bins: int, variances, levels: TreeLevels | None = None) -> float:
    """Exact expected squared error of a uniformly random range answered from the consistent (BLUE)
    leaves: ((n + 1) sum_i Var(P_i) - Var(sum_i P_i)) / (n(n+1)/2). O(nodes * height)."""
    lv = levels if levels is not None else TreeLevels(parents)
    n = int(n_bins)
    VS = upward_variances(lv.parents, variances, lv)
    pv = prefix_variances(lv.parents, lo, hi, n, variances, lv, VS)
    w = (n - np.arange(n)).astype(float)  # bin j (0-based) lies in prefixes j..n-1
    total = (n + 1) * float(pv.sum()) - linear_variance(lv.parents, lo, w, variances, lv, VS)
    # a difference of two sums: with variances near the double range's floor (epsilon in the hundreds) it
    # can round below 0, which no variance is
    return max(total / n_ranges(n), 0.0)


def flat_all_range_mse(n_bins: int, variance: float) -> float:
    """Flat histogram (independent noise per bin): the mean range length (n+2)/3 times the variance."""
    return (n_bins + 2) / 3.0 * float(variance)


def count_ranges_by_length(lo, hi, n_bins: int, length: int) -> np.ndarray:
    """How many ranges of ``length`` bins contain each node's interval."""
    L = np.asarray(lo, dtype=np.int64) + 1
    R = np.asarray(hi, dtype=np.int64)
    d = int(length)
    first = np.maximum(1, R - d + 1)
    last = np.minimum(L, n_bins - d + 1)
    return np.maximum(0, last - first + 1)


def raw_error_by_length(parents, lo, hi, n_bins: int, variances, lengths) -> np.ndarray:
    """Expected squared error of a random range of each given length, answered from the raw tree."""
    par = np.asarray(parents, dtype=np.int64)
    s2 = np.asarray(variances, dtype=float)
    noised = np.isfinite(s2)
    lv = TreeLevels(par)
    out = []
    for d in lengths:
        cnt = count_ranges_by_length(lo, hi, n_bins, d).astype(float)
        cov = cnt.copy()
        nonroot = par >= 0
        cov[nonroot] -= cnt[par[nonroot]]
        eff = effective_coverage(par, cov, noised, lv)
        out.append(float(np.sum(eff[noised] * s2[noised])) / (n_bins - d + 1))
    return np.array(out)


def consistent_error_by_length(parents, lo, hi, n_bins: int, variances, lengths=None, chunk: int = 256) -> np.ndarray:
    """Expected squared error of a random range of each length (1..n, or ``lengths``), consistent leaves.

    Builds the prefix covariance C[i, j] = Cov(P_i, P_j) column block by column block from
    ``least_squares`` itself: with G the BLUE map and D the noise covariance, Sigma A^T = G D, so feeding
    D u (u = the leaves of a prefix) through least_squares gives Sigma p_i. O(n^2) time, O(n * chunk)
    memory; meant for n up to a few thousand.
    """
    par = np.asarray(parents, dtype=np.int64)
    lo = np.asarray(lo, dtype=np.int64)
    s2 = np.asarray(variances, dtype=float)
    lv = TreeLevels(par)
    n = int(n_bins)
    leaves = np.flatnonzero(lv.is_leaf)
    leaf_of_bin = np.empty(n, dtype=np.int64)
    leaf_of_bin[lo[leaves]] = leaves
    if not np.all(np.isfinite(s2[leaves])):
        raise ValueError("every leaf must be noised")
    diag_sum = np.zeros(n + 1)  # diag_sum[d] = sum_i C[i, i + d] over the prefixes P_0..P_n
    for c0 in range(0, n, chunk):
        cols = np.arange(c0, min(n, c0 + chunk))
        y = np.zeros((par.size, cols.size))
        # column k: D u for the prefix of bins 0..cols[k]
        mask = np.arange(n)[:, None] <= cols[None, :]
        y[leaf_of_bin] = mask * s2[leaf_of_bin][:, None]
        sig_p = least_squares(par, y, s2, lv)[leaf_of_bin]  # bins x cols: Sigma p_i
        cprefix = np.cumsum(sig_p, axis=0)  # row j: Cov(P_{j+1}, P_{i+1})
        for k, i in enumerate(cols):
            col = cprefix[: i + 1, k]  # C[j+1, i+1] for j+1 <= i+1
            d = (i + 1) - np.arange(1, i + 2)
            diag_sum[d] += col
    if lengths is None:
        lengths = np.arange(1, n + 1)
    length_arr = np.asarray(lengths, dtype=np.int64)
    # Var(P_{l+d} - P_l) summed over l = 0..n-d: trace parts minus 2 * off-diagonal sums (P_0 = 0).
    pv = np.zeros(n + 1)
    pv[1:] = prefix_variances(par, lo, hi, n, s2, lv)
    csum = np.concatenate([[0.0], np.cumsum(pv)])
    out = []
    for length in length_arr:
        span = int(length)
        cnt = n - span + 1
        trace_hi = csum[n + 1] - csum[span]  # Var(P_i), i = span..n
        trace_lo = csum[cnt]  # Var(P_l), l = 0..n-span
        out.append((trace_hi + trace_lo - 2.0 * diag_sum[span]) / cnt)
    return np.array(out)


def canonical_cover(parents, lo, hi, noised, l: int, r: int, levels: TreeLevels | None = None) -> np.ndarray:
    """Node ids of the canonical cover of bins l..r-1 (0-based, r exclusive) in the raw tree: the noised
    nodes inside the range with no noised ancestor inside it."""
    lv = levels if levels is not None else TreeLevels(parents)
    par = lv.parents
    lo = np.asarray(lo)
    hi = np.asarray(hi)
    usable = (lo >= l) & (hi <= r) & np.asarray(noised, dtype=bool)
    blocked = np.zeros(par.size, dtype=bool)
    for level in lv.levels[1:]:
        pp = par[level]
        blocked[level] = blocked[pp] | usable[pp]
    return np.flatnonzero(usable & ~blocked)


def raw_range_answers(parents, lo, hi, noisy, noised, queries, levels: TreeLevels | None = None) -> np.ndarray:
    """Answers of ranges (l, r) (0-based bins, r exclusive) from the raw noisy tree's canonical covers."""
    lv = levels if levels is not None else TreeLevels(parents)
    noisy = np.asarray(noisy, dtype=float)
    return np.array([noisy[canonical_cover(lv.parents, lo, hi, noised, l, r, lv)].sum() for l, r in queries])


def leaf_range_answers(leaf_counts, queries) -> np.ndarray:
    """Answers of ranges (l, r) from per-bin counts (the consistent release), by prefix sums."""
    pref = np.concatenate([[0.0], np.cumsum(np.asarray(leaf_counts, dtype=float))])
    q = np.asarray(queries, dtype=np.int64).reshape(-1, 2)
    return pref[q[:, 1]] - pref[q[:, 0]]


def all_range_squared_error_sum(leaf_errors) -> float:
    """Sum over all n(n+1)/2 ranges of the squared error, given per-bin errors (prefix-sum identity)."""
    e = np.asarray(leaf_errors, dtype=float)
    n = e.shape[0]
    P = np.cumsum(e, axis=0)
    return float((n + 1) * np.sum(P * P, axis=0).sum() - np.sum(np.sum(P, axis=0) ** 2))


def rmse(mse: float) -> float:
    return math.sqrt(mse)
