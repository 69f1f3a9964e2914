"""Partition of a window of released stream values into contiguous groups (STREAMING.md S3).

Privacy: the input is always *released* values (noisy samples, predictions, noisy window answers), never
true counts, so every grouping here is post-processing and spends no budget (S5 problem P5).

A window y_1..y_w is cut into contiguous groups; each value is replaced by its group's mean. The cost of
a group G = y_i..y_j (1-based, inclusive), with n = j - i + 1 and v_l the public noise variance of y_l:

- ``noisefirst`` (default; Xu et al. ICDE 2012): c = SSE_y(G) - (1 - 2/n) sum v_l, an unbiased estimate,
  from noisy values, of the group's error SSE_x(G) + (1/n) sum v_l. The number of groups is free.
- ``seed``: c = SSE_y(G) + lap with exactly k groups (lap = 2 b^2, the seed's Laplace term; with k fixed it
  only adds k * lap, so this is V-optimal grouping of the noisy values).
- ``approx``: the seed cost with Guha-Koudas-Shim's (1 + delta) run compression per level (one window at a
  time; exact <= approx <= (1 + delta)^(k-1) exact).
- ``none``: every value is its own group.

SSE uses the corrected formula (8): SSE(i, j) = (A2[j] - A2[i-1]) - (A1[j] - A1[i-1])^2 / (j - i + 1).
Ties between split points are broken toward the smallest split index (within 1e-12, relative).

``partition_windows`` works on many windows at once (a (windows, w) array): the programme is the same for
every window, so numpy runs it over a batch of windows with one operation per column.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

import numpy as np

MODES = ("noisefirst", "seed", "approx", "none")
TIE = 1e-12
BATCH_CELLS = 2_000_000  # windows x (w+1)^2 floats per batch (about 16 MB)


def default_groups(w: int) -> int:
    """The seed's Table 1 default k = max(1, w / 10) (integer part)."""
    return max(1, int(w) // 10)


def group_cost_matrix(y: np.ndarray, v: np.ndarray, mode: str, lap: float = 0.0) -> np.ndarray:
    """C[b, i, j] = cost of the group y_{i+1}..y_j of window b (0 <= i < j <= w); +inf where i >= j."""
    y = np.asarray(y, dtype=float)
    nb, w = y.shape
    a1, a2, av = _prefix(y, np.broadcast_to(np.asarray(v, dtype=float), y.shape))
    inv_n, factor, blocked = _shape_terms(w)
    cost = a1[:, None, :] - a1[:, :, None]
    cost *= cost
    cost *= inv_n
    np.subtract(a2[:, None, :] - a2[:, :, None], cost, out=cost)  # SSE
    if mode == "noisefirst":
        sv = av[:, None, :] - av[:, :, None]
        sv *= factor
        cost -= sv
    else:
        cost += lap
    cost += blocked
    return cost


@lru_cache(maxsize=16)
def _shape_terms(w: int):
    """For 0 <= i, j <= w: 1/(j - i), 1 - 2/(j - i) and 0 where i < j, else 0, 0 and +inf."""
    idx = np.arange(w + 1)
    n = (idx[None, :] - idx[:, None]).astype(float)
    valid = n > 0
    n_safe = np.where(valid, n, 1.0)
    inv_n = np.where(valid, 1.0 / n_safe, 0.0)
    factor = np.where(valid, 1.0 - 2.0 / n_safe, 0.0)
    blocked = np.where(valid, 0.0, np.inf)
    return inv_n, factor, blocked


def _argmin_first(vals: np.ndarray) -> np.ndarray:
    """Index of the minimum along the last axis, the smallest index among values within TIE (relative)."""
    m = vals.min(axis=-1, keepdims=True)
    tol = TIE * np.maximum(1.0, np.abs(m))
    return np.argmax(vals <= m + tol, axis=-1)


@dataclass
class Partitioned:
    """Per window: ``values`` (the published group means), ``ends`` (a boolean (windows, w) mask: True at
    the last position of every group), ``estimate`` (the programme's optimal cost)."""

    values: np.ndarray
    ends: np.ndarray
    estimate: np.ndarray

    def bounds(self, b: int = 0) -> list[int]:
        """The 1-based end positions of window b's groups, e.g. [4, 5, 7]."""
        return [int(i) + 1 for i in np.flatnonzero(self.ends[b])]

    @property
    def group_counts(self) -> np.ndarray:
        return self.ends.sum(axis=1)


def group_index(ends: np.ndarray) -> np.ndarray:
    """Per value of every window, its group's slot in a flat (windows x w) array of per-group sums (groups
    end where ``ends`` is True): ``np.bincount(group_index(ends), weights=...)`` sums by group."""
    nb, w = ends.shape
    gid = np.cumsum(np.concatenate([np.zeros((nb, 1), bool), ends[:, :-1]], axis=1), axis=1)
    return (gid + np.arange(nb)[:, None] * w).ravel()


def _means(y: np.ndarray, ends: np.ndarray) -> np.ndarray:
    """Each value replaced by the mean of its group (groups end where ``ends`` is True)."""
    nb, w = y.shape
    flat = group_index(ends)
    sums = np.bincount(flat, weights=y.ravel(), minlength=nb * w)
    sizes = np.bincount(flat, minlength=nb * w)
    return (sums / np.maximum(sizes, 1))[flat].reshape(nb, w)


def _backtrack(parent_of, nb: int, w: int) -> np.ndarray:
    """Group ends from ``parent_of(j_vector, level)`` -> split index, starting at w."""
    ends = np.zeros((nb, w), bool)
    j = np.full(nb, w)
    rows = np.arange(nb)
    step = 0
    while np.any(j > 0):
        live = j > 0
        ends[rows[live], j[live] - 1] = True
        i = parent_of(j, step)
        j = np.where(live, i, 0)
        step += 1
    return ends


def _free_k(y: np.ndarray, v: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """E(0) = 0, E(j) = min_i E(i) + c(i+1, j) with the NoiseFirst cost: a free number of groups. The
    costs of column j are computed from the prefix sums as needed (no (w+1)^2 matrix per window)."""
    nb, w = y.shape
    a1, a2, av = _prefix(y, v)
    inv_n, factor, _ = _shape_terms(w)
    e = np.zeros((nb, w + 1))
    par = np.zeros((nb, w + 1), dtype=np.int64)
    rows = np.arange(nb)
    for j in range(1, w + 1):
        s1 = a1[:, j : j + 1] - a1[:, :j]
        s1 *= s1
        s1 *= inv_n[:j, j]
        vals = a2[:, j : j + 1] - a2[:, :j]
        vals -= s1
        sv = av[:, j : j + 1] - av[:, :j]
        sv *= factor[:j, j]
        vals -= sv
        vals += e[:, :j]
        i = _argmin_first(vals)
        par[:, j] = i
        e[:, j] = vals[rows, i]
    return e[:, w], _backtrack(lambda j, _s: par[rows, j], nb, w)


def _prefix(y: np.ndarray, v: np.ndarray):
    """Prefix sums A1 (values), A2 (squares), AV (variances) with a leading 0 column."""
    nb, w = y.shape
    out = np.zeros((3, nb, w + 1))
    np.cumsum(y, axis=1, out=out[0, :, 1:])
    np.cumsum(y * y, axis=1, out=out[1, :, 1:])
    np.cumsum(v, axis=1, out=out[2, :, 1:])
    return out[0], out[1], out[2]


def _exact_k(cost: np.ndarray, k: int) -> tuple[np.ndarray, np.ndarray]:
    """HErr(j, 1) = c(1, j); HErr(j, l) = min_{l-1 <= i <= j-1} HErr(i, l-1) + c(i+1, j); exactly k groups."""
    nb, w1, _ = cost.shape
    w = w1 - 1
    k = min(int(k), w)
    h = cost[:, 0, :].copy()  # level 1
    pars = []
    for _level in range(2, k + 1):
        vals = h[:, :, None] + cost  # vals[b, i, j]
        i = _argmin_first(np.swapaxes(vals, 1, 2))  # (nb, j)
        pars.append(i)
        h = np.take_along_axis(vals, i[:, None, :], axis=1)[:, 0, :]
    rows = np.arange(nb)

    def parent(j, step):
        level = k - step  # the group ending at j is the level-th one
        return pars[level - 2][rows, j] if level >= 2 else np.zeros_like(j)

    return h[:, w], _backtrack(parent, nb, w)


def partition_windows(
    y, v=None, mode: str = "noisefirst", k: int | None = None, lap: float = 0.0, delta: float | None = None
) -> Partitioned:
    """Partition every row of ``y`` (windows x w, released values); ``v`` the public per-value variances
    (same shape, or a scalar). ``k`` (seed, approx): the exact number of groups, default w/10; ``lap``: the
    seed cost's per-group Laplace term; ``delta``: approx's tolerance, default 1/(2k)."""
    y = np.atleast_2d(np.asarray(y, dtype=float))
    nb, w = y.shape
    if mode not in MODES:
        raise ValueError(f"unknown grouping {mode!r} (one of {', '.join(MODES)})")
    v = np.broadcast_to(np.asarray(0.0 if v is None else v, dtype=float), y.shape)
    if mode == "none":
        return Partitioned(y.copy(), np.ones((nb, w), bool), np.full(nb, np.nan))
    if mode in ("seed", "approx"):
        k = default_groups(w) if k is None else int(k)
        if not 1 <= k <= w:
            raise ValueError(f"the number of groups must be between 1 and the window size {w}, got {k}")
    if mode == "approx":
        assert k is not None
        d = 1.0 / (2 * k) if delta is None else float(delta)
        outs = [approx_partition(y[b], k, lap, d) for b in range(nb)]
        ends = np.zeros((nb, w), bool)
        for b, (_, bounds) in enumerate(outs):
            ends[b, np.asarray(bounds) - 1] = True
        return Partitioned(_means(y, ends), ends, np.array([c for c, _ in outs]))
    cells = (w + 1) ** 2 if mode == "seed" else 50 * (w + 1)
    batch = max(1, BATCH_CELLS // cells)
    est, ends = np.empty(nb), np.empty((nb, w), bool)
    for s in range(0, nb, batch):
        if mode == "noisefirst":
            e, m = _free_k(y[s : s + batch], v[s : s + batch])
        else:
            assert k is not None
            e, m = _exact_k(group_cost_matrix(y[s : s + batch], v[s : s + batch], mode, lap), k)
        est[s : s + batch], ends[s : s + batch] = e, m
    return Partitioned(_means(y, ends), ends, est)


def approx_partition(y, k: int, lap: float, delta: float) -> tuple[float, list[int]]:
    """One window, exactly k groups, seed cost SSE + lap, (1 + delta) run compression of every level
    (Guha, Koudas, Shim). Returns (cost of the partition found, 1-based group ends)."""
    y = np.asarray(y, dtype=float)
    w = y.size
    cost = group_cost_matrix(y[None, :], np.zeros((1, w)), "seed", lap)[0]
    k = min(int(k), w)
    h = cost[0, :].copy()  # HErr(j, 1), j = 0..w (inf at 0)
    pars = []
    for level in range(2, k + 1):
        # runs [a, b] over the valid j of the previous level (j >= level - 1), HErr(b) <= (1 + delta) HErr(a)
        js = np.arange(level - 1, w + 1)
        prev = h[js]
        reps = []
        a = 0
        while a < js.size:
            b = int(np.searchsorted(prev, (1.0 + delta) * prev[a], side="right")) - 1
            b = max(b, a)
            reps.append((int(js[a]), int(js[b])))
            a = b + 1
        new = np.full(w + 1, np.inf)
        par = np.zeros(w + 1, dtype=np.int64)
        for j in range(level, w + 1):
            best, arg = np.inf, -1
            for ra, rb in reps:
                if ra > j - 1:
                    break
                i = min(rb, j - 1)
                val = h[i] + cost[i, j]
                if val < best - TIE * max(1.0, abs(best)) or arg < 0:
                    best, arg = val, i
            new[j], par[j] = best, arg
        pars.append(par)
        h = new
    bounds = [w]
    j = w
    for level in range(k, 1, -1):
        j = int(pars[level - 2][j])
        bounds.append(j)
    return float(h[w]), sorted(bounds)


def window_laplace_error(variance: float, groups: float) -> float:
    """Laplace part of one window's error: each group publishes the mean of its values, so a group of n
    values with variance v each adds n * v / n = v: ``groups`` x ``variance`` (S2, formulas 9, 10, 15)."""
    return float(groups) * float(variance)
