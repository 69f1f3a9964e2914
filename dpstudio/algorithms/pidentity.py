"""p-Identity histograms: HDMM's strategy (McKenna et al., PVLDB 2018) run on integer queries.

Strategy (public, data-independent: it depends on n, the number of public bins, and epsilon only):
the n bin counts plus p weighted sums ``M @ x`` with non-negative integer weights M (p x n) and a public
resolution R, every column sum c_j = sum_k M[k, j] below R.

Privacy (neighbours: add or remove one record, which lies in one bin j): bin j's count changes by 1 and
row k of ``M @ x`` by M[k, j]. Row k gets discrete Laplace noise of scale R / eps (so eps * M[k, j] / R for
bin j), bin j's own count gets discrete Laplace noise of scale 1 / e_j with e_j <= eps * (R - c_j) / R
(rounded down to the grid of ``interval_budgets.round_down_to_grid``). Every bin's total is at most eps:
the strategy is eps-DP, one ledger spend of eps. All scales come from ``core.scales.noise_scale``.

Planning (scipy, threadpoolctl): HDMM's continuous p-Identity A = [I; Theta] D^-1 (Theta >= 0, D the column sums, so the L1
sensitivity is 1) is optimised by L-BFGS-B (one BLAS thread) on the exact expected error of a
uniformly random range after least squares, from a block start (row k sums the k-th block of n / p bins);
then M = floor(R * Theta / D). The expected error the plan reports is exact for the integer strategy that
runs, with the exact discrete Laplace variances 2 q / (1 - q)^2, q = exp(-1 / scale)
(``core.range_error.laplace_variance``).

Inference: exact (generalised) least squares of the bins from the n + p noisy answers, weighted by the
inverse noise variances, through the Woodbury identity (O(n p^2)). The all-range workload's Gram matrix
K[i, j] = (min(i, j) + 1)(n - max(i, j)) is applied in O(n) by cumulative sums, so one error evaluation
costs O(n p^2) and never forms an n x n matrix.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import lru_cache

import numpy as np

from dpstudio.core.coverage import n_ranges
from dpstudio.core.range_error import laplace_variance
from dpstudio.core.scales import exact_fraction, noise_scale

from .interval_budgets import SAFETY, round_down_to_grid
from .interval_shapes import IntervalTree, flat_tree

#: Extra rows: n / 16 (HDMM's choice) capped here; the cap keeps planning at n = 1024 near 1 s.
MAX_ROWS = 16
#: Integer resolution of the weights (M = floor(R * Theta / D)); R / eps is the extra rows' noise scale.
RESOLUTION = 1024
#: L-BFGS-B iterations (the error is within 0.1 % of its limit after about 50 at n = 1024, p = 16).
MAX_ITER = 100


def n_rows(n_bins: int) -> int:
    """p, the number of extra rows for n bins: n / 16, at least 1, at most ``MAX_ROWS``."""
    return int(max(1, min(MAX_ROWS, int(n_bins) // 16)))


def gram_diag(n: int) -> np.ndarray:
    """Diagonal of K: how many of the n(n+1)/2 ranges contain bin i."""
    i = np.arange(n, dtype=float)
    return (i + 1.0) * (n - i)


def gram_mul(V: np.ndarray) -> np.ndarray:
    """K @ V for the all-range Gram matrix K[i, j] = (min(i, j) + 1)(n - max(i, j)), n = len(V), in O(n)."""
    V = np.asarray(V, dtype=float)
    n = V.shape[0]
    i = np.arange(n, dtype=float).reshape((n,) + (1,) * (V.ndim - 1))
    left = np.cumsum((i + 1.0) * V, axis=0)  # sum_{j <= i} (j + 1) v_j
    tail = np.cumsum(((n - i) * V)[::-1], axis=0)[::-1]  # sum_{j >= i} (n - j) v_j
    right = np.concatenate([tail[1:], np.zeros_like(tail[:1])], axis=0)
    return (n - i) * left + (i + 1.0) * right


def trace_error(B: np.ndarray, d: np.ndarray) -> float:
    """tr(K D (I + B^T B)^-1 D) with D = diag(d): the summed squared error over all ranges of least squares
    from [D^-1; B D^-1] x + unit-variance noise (Woodbury: only p x p systems)."""
    n = d.size
    C = B * d
    G = np.eye(B.shape[0]) + B @ B.T
    P = gram_mul(C.T).T @ C.T
    return float(np.sum(d * d * gram_diag(n)) - np.trace(np.linalg.solve(G, P)))


def _objective(theta_flat: np.ndarray, p: int, n: int):
    """HDMM's p-Identity objective tr(K (A^T A)^-1) with A = [I; Theta] D^-1, d = 1 + column sums of Theta,
    and its gradient in Theta."""
    B = theta_flat.reshape(p, n)
    d = 1.0 + B.sum(0)
    C = B * d
    G = np.eye(p) + B @ B.T
    CK = gram_mul(C.T).T  # C K
    GiB = np.linalg.solve(G, B)
    f = np.sum(d * d * gram_diag(n)) - np.trace(np.linalg.solve(G, CK @ C.T))
    diag_xdk = d * gram_diag(n) - np.sum(GiB * CK, 0)  # diag(X D K), X = (I + B^T B)^-1
    E = CK * d
    BZ = np.linalg.solve(G, E - (E @ B.T) @ GiB)  # B X D K D X
    return f, (2.0 * diag_xdk[None, :] - 2.0 * BZ).ravel()


def block_start(n: int, p: int) -> np.ndarray:
    """Row k sums the k-th of p near-equal blocks of bins (weight 1), every other weight 0.05."""
    theta = np.full((p, n), 0.05)
    cuts = (np.arange(p + 1) * n) // p
    for k in range(p):
        theta[k, cuts[k] : cuts[k + 1]] = 1.0
    return theta


def _minimise(objective, start: np.ndarray, args: tuple, max_iter: int) -> np.ndarray:
    """L-BFGS-B on ``objective(x, *args) -> (f, gradient)`` from ``start``, every value >= 0, one BLAS
    thread (p x n products: threads cost more than they save, 3x slower at n = 1024)."""
    from scipy.optimize import minimize
    from threadpoolctl import threadpool_limits

    x0 = np.asarray(start, dtype=float).ravel()
    with threadpool_limits(1):
        res = minimize(
            objective,
            x0,
            args=args,
            jac=True,
            method="L-BFGS-B",
            bounds=[(0.0, None)] * x0.size,
            options={"maxiter": int(max_iter)},
        )
    return res.x


def optimise_theta(n_bins: int, p: int | None = None, max_iter: int = MAX_ITER) -> np.ndarray:
    """Theta >= 0 (p x n) minimising the continuous p-Identity's all-range error (L-BFGS-B, scipy)."""
    n = int(n_bins)
    p = n_rows(n) if p is None else int(p)
    return _minimise(_objective, block_start(n, p), (p, n), max_iter).reshape(p, n)


#: from this many bins on, the extra rows are smooth bumps at two scales (``smooth_layout``), not free weights,
#: up to ``SMOOTH_TO_BINS`` (n/16 + n/256 rows: the plan's cost grows as n^2; beyond, the 16 free rows again)
SMOOTH_FROM_BINS = 1024
SMOOTH_TO_BINS = 8192
#: the bins a smooth row is centred on, per scale: a row of size s may weigh the s bins before its block and
#: the s after it too (3 s weights, one profile per scale shared by every row of that scale)
SMOOTH_SIZES = (256, 16)
#: L-BFGS-B iterations from the stored profile (it stops earlier once converged, e.g. at 4,096 bins)
SMOOTH_POLISH_ITER = 20


@dataclass(frozen=True)
class SmoothLayout:
    """Where the smooth rows' weights lie: entry i of the pattern is row ``rows[i]``, bin ``cols[i]``, and takes
    the profile value ``prof[i]`` (of ``size`` values in all: the profiles of every scale, concatenated)."""

    n: int
    p: int
    rows: np.ndarray
    cols: np.ndarray
    prof: np.ndarray
    size: int

    def theta(self, g: np.ndarray) -> np.ndarray:
        out = np.zeros((self.p, self.n))
        out[self.rows, self.cols] = np.asarray(g)[self.prof]
        return out


def smooth_layout(n_bins: int, sizes=SMOOTH_SIZES) -> SmoothLayout:
    """Rows of ``sizes[0]`` bins, then of ``sizes[1]`` bins, ... (blocks from bin 0; the last one may be
    shorter), each with weights on its own block and its two neighbours (cut at the ends)."""
    n = int(n_bins)
    rows, cols, prof = [], [], []
    base = r = 0
    for s in sizes:
        for start in range(0, n, s):
            lo = start - s
            j = np.arange(max(lo, 0), min(start + 2 * s, n))
            rows.append(np.full(j.size, r))
            cols.append(j)
            prof.append(base + (j - lo))
            r += 1
        base += 3 * s
    return SmoothLayout(n, r, np.concatenate(rows), np.concatenate(cols), np.concatenate(prof), base)


def hierarchy_profile(sizes=SMOOTH_SIZES) -> np.ndarray:
    """The profile of a plain hierarchy: every row sums its own block with weight 1 (a tree's levels)."""
    g = np.zeros(sum(3 * s for s in sizes))
    base = 0
    for s in sizes:
        g[base + s : base + 2 * s] = 1.0
        base += 3 * s
    return g


def _smooth_objective(g: np.ndarray, lay: SmoothLayout):
    """``_objective`` for Theta = ``lay.theta(g)`` and its gradient in the profile values, without forming an
    n x n or a dense p x n product of Theta: O(p nnz + p^3 + n p), nnz the pattern's size."""
    from scipy import sparse
    from scipy.linalg import cho_factor, cho_solve

    n, p = lay.n, lay.p
    vals = np.asarray(g)[lay.prof]
    B = sparse.csr_matrix((vals, (lay.rows, lay.cols)), shape=(p, n))
    d = 1.0 + np.bincount(lay.cols, weights=vals, minlength=n)
    kd = gram_diag(n)
    C = B.multiply(d[None, :]).tocsr()
    CKt = gram_mul(C.T.toarray())  # K C^T, n x p
    Gi = cho_solve(cho_factor(np.eye(p) + (B @ B.T).toarray()), np.eye(p))
    f = float(np.sum(d * d * kd) - np.sum(Gi * (C @ CKt).T))
    GiBt = B.T @ Gi  # (G^-1 B)^T
    diag_xdk = d * kd - np.sum(GiBt * CKt, 1)
    Et = CKt * d[:, None]
    W = (B @ Et).T @ Gi
    Yt = Et - B.T @ W.T
    bz = np.einsum("im,im->i", Yt[lay.cols], Gi[lay.rows])
    grad = 2.0 * diag_xdk[lay.cols] - 2.0 * bz
    return f, np.bincount(lay.prof, weights=grad, minlength=lay.size)


def optimise_smooth(
    n_bins: int, start: np.ndarray | None = None, max_iter: int = SMOOTH_POLISH_ITER, sizes=SMOOTH_SIZES
) -> np.ndarray:
    """Theta (p x n) of the smooth rows for n bins: L-BFGS-B on the profile values (one BLAS thread) from
    ``start`` (default: the stored profile, ``pidentity_profile.PROFILE``)."""
    lay = smooth_layout(n_bins, sizes)
    if start is None:
        from .pidentity_profile import PROFILE, SIZES

        if tuple(SIZES) != tuple(sizes):
            raise ValueError(f"the stored profile is for sizes {SIZES}")
        start = np.asarray(PROFILE, dtype=float)
    return lay.theta(optimise_profile(lay, start, max_iter))


def optimise_profile(lay: SmoothLayout, start: np.ndarray, max_iter: int) -> np.ndarray:
    """The profile values minimising the continuous all-range error (L-BFGS-B, one BLAS thread, >= 0)."""
    return _minimise(_smooth_objective, start, (lay,), max_iter)


@dataclass
class PIdentityPlan:
    """The public part of a p-Identity run: integer weights, budgets, scales, variances, analytic error."""

    algorithm: str
    epsilon: float
    tree: IntervalTree  # the flat tree of the n bins (root = the total, not noised): labels and leaves
    weights: np.ndarray  # M, p x n, int64
    resolution: int
    bin_epsilons: np.ndarray  # e_j, the budget of bin j's own count
    bin_scales: np.ndarray
    bin_variances: np.ndarray
    row_scale: float  # discrete Laplace scale of every extra row (>= R / eps)
    row_variance: float
    notes: list[str] = field(default_factory=list)
    branching: int | None = None
    _mse: float | None = None

    @property
    def n_rows(self) -> int:
        return int(self.weights.shape[0])

    def bin_path_sums(self) -> np.ndarray:
        """The budget each bin's records get charged over all rows (at most epsilon)."""
        return self.bin_epsilons + self.weights.sum(0) / self.row_scale

    @property
    def expected_consistent_mse(self) -> float:
        """Exact expected squared error of a uniformly random range from the least-squares bins."""
        if self._mse is None:
            u = self.bin_variances
            B = self.weights / np.sqrt(self.row_variance) * np.sqrt(u)[None, :]
            self._mse = trace_error(B, np.sqrt(u)) / n_ranges(self.tree.n_bins)
        return self._mse

    def strategy_summary(self) -> dict:
        ps = self.bin_path_sums()
        return {
            "name": "p-Identity (HDMM) on integer queries",
            "n_bins": int(self.tree.n_bins),
            "extra_rows": self.n_rows,
            "resolution": self.resolution,
            "row_scale": self.row_scale,
            "row_variance": self.row_variance,
            "bin_budget": {"min": float(self.bin_epsilons.min()), "max": float(self.bin_epsilons.max())},
            "max_path_sum": float(ps.max()),
            "min_path_sum": float(ps.min()),
            "weights_nonzero": int(np.count_nonzero(self.weights)),
        }

    def least_squares(self, noisy_bins: np.ndarray, noisy_rows: np.ndarray) -> np.ndarray:
        """Exact weighted least squares of the bins (columns: independent runs) from the noisy answers."""
        u = self.bin_variances.reshape((-1,) + (1,) * (np.ndim(noisy_bins) - 1))
        C = self.weights / np.sqrt(self.row_variance)
        r = np.asarray(noisy_bins, dtype=float) / u + C.T @ (
            np.asarray(noisy_rows, dtype=float) / np.sqrt(self.row_variance)
        )
        w = u * r
        G = np.eye(self.n_rows) + (C * self.bin_variances) @ C.T
        return w - u * (C.T @ np.linalg.solve(G, C @ w))


def is_pidentity(plan) -> bool:
    """A p-Identity plan: bins and weighted sums, no tree of noisy nodes (no levels, no raw cover), least
    squares its only consistent estimate."""
    return isinstance(plan, PIdentityPlan)


@lru_cache(maxsize=8)
def _continuous_theta(n: int) -> np.ndarray:
    if SMOOTH_FROM_BINS <= n <= SMOOTH_TO_BINS:
        return optimise_smooth(n)
    return optimise_theta(n)


def plan_pidentity(n_bins: int, epsilon, grid_steps: int = 256) -> PIdentityPlan:
    """The integer strategy for n public bins at epsilon (memoised optimisation; no data involved)."""
    n = int(n_bins)
    eps = epsilon
    theta = _continuous_theta(n)
    d = 1.0 + theta.sum(0)
    R = RESOLUTION
    M = np.floor(R * theta / d).astype(np.int64)
    c = M.sum(0)
    row_scale = noise_scale(R, eps)
    e = round_down_to_grid(float(eps) * (R - c) / R * SAFETY, grid_steps)
    scale_values = {v: noise_scale(1, exact_fraction(v)) for v in np.unique(e)}
    bin_scales = np.array([scale_values[v] for v in e])
    var_values = {v: laplace_variance(s, discrete=True) for v, s in scale_values.items()}
    rows = (
        f"{M.shape[0]} extra rows: smooth weighted sums at two scales ({' and '.join(map(str, SMOOTH_SIZES))} "
        "bins, each reaching into its neighbours; one shared profile per scale, from a stored optimum "
        "polished for these n bins)"
        if SMOOTH_FROM_BINS <= n <= SMOOTH_TO_BINS
        else f"{M.shape[0]} extra rows"
    )
    notes = [
        f"{rows} with integer weights (resolution {R}) optimised by L-BFGS-B for the "
        "expected all-range error after least squares; bins' own budgets rounded down to the grid "
        f"2^(j/{grid_steps})"
    ]
    return PIdentityPlan(
        "pidentity",
        float(eps),
        flat_tree(n),
        M,
        R,
        e,
        bin_scales,
        np.array([var_values[v] for v in e]),
        row_scale,
        float(laplace_variance(row_scale, discrete=True)),
        notes,
    )


def error_by_length(plan: PIdentityPlan, lengths) -> np.ndarray:
    """Exact expected squared error of a range of each length d (mean over its n - d + 1 positions) after
    least squares: q^T U q - w^T G^-1 w with U the bins' variances, C = M / sqrt(row variance),
    w = C U q and G = I + C U C^T (Woodbury). Prefix sums give every position at once: O(n p) per length."""
    u = plan.bin_variances
    C = plan.weights / np.sqrt(plan.row_variance)
    G = np.eye(plan.n_rows) + (C * u) @ C.T
    pu = np.concatenate([[0.0], np.cumsum(u)])
    pw = np.concatenate([np.zeros((plan.n_rows, 1)), np.cumsum(C * u, axis=1)], axis=1)
    out = []
    for d in np.asarray(lengths, dtype=np.int64):
        d = int(d)
        w = pw[:, d:] - pw[:, :-d]
        out.append(float(np.mean(pu[d:] - pu[:-d] - np.sum(w * np.linalg.solve(G, w), axis=0))))
    return np.array(out)


def monte_carlo_all_range_mse(plan: PIdentityPlan, runs: int = 1000, seed: int = 0, batch: int = 500):
    """Measured mean squared error over all ranges (simulation noise, not a release): (mean, std error).
    The least-squares estimate is linear and unbiased, so the truth is taken as 0."""
    from dpstudio.core.noise import SimulationNoise, simulated_discrete_laplace
    from dpstudio.core.range_error import all_range_squared_error_sum

    rng = SimulationNoise(seed).rng
    per_run = []
    for start in range(0, runs, batch):
        m = min(batch, runs - start)
        est = plan.least_squares(
            simulated_discrete_laplace(rng, plan.bin_scales, m),
            simulated_discrete_laplace(rng, np.full(plan.n_rows, plan.row_scale), m),
        )
        per_run += [all_range_squared_error_sum(est[:, k]) / n_ranges(plan.tree.n_bins) for k in range(m)]
    a = np.array(per_run)
    return float(a.mean()), float(a.std(ddof=1) / np.sqrt(a.size))
