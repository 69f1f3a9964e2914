"""A stream release run (STREAMING.md): parameters, checks, the mechanism, then the Partition of every
window (post-processing of released values), as a generator of events like the other algorithms.

Public inputs: the window w, the horizon T (default: the stream's length, i.e. the number of timestamps),
the mechanism, the grouping and its k, epsilon. Windows end at t = w..n (n = the timestamps given, n <= T):
n - w + 1 windows, each published whole (value of every position after grouping).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from fractions import Fraction

import numpy as np

from dpstudio.core.budget import Ledger, check_usable_epsilon, fraction_text
from dpstudio.core.events import Progress, RunFinished
from dpstudio.core.noise import NoiseSource
from dpstudio.core.stream_events import WindowReleased
from dpstudio.core.stream_partition import MODES, default_groups, group_index, partition_windows

from . import stream_baselines as base
from . import stream_shp as shp

#: At most this many published values, (T - w + 1) windows x w: the windows, their variances and the CSV
#: hold them several times over (at 20 million, about 0.4 GiB of numbers and a CSV of about 0.5 GB).
MAX_PUBLISHED_VALUES = 20_000_000
#: What a stream release publishes: counts as whole numbers, never negative (default), or the real values.
PUBLISHED = ("whole", "real")
WHOLE_NOTE = "every published value rounded to the nearest whole number and negatives set to 0 (counts; no budget)"

MECHANISMS = {
    "swm": "SHP1: sliding-window mechanism, every window a fresh query (eps/(T-w+1) each)",
    "tpm": "SHP2: time-point mechanism, every count noised once with eps/T",
    "asm": "SHP3: ASM-DP, adaptive sampling with eps g/T per sample (the corrected, private ASM)",
    "binary": "binary mechanism (continual counting), event-level",
    "fast": "FAST: Kalman filter and PID-controlled sampling, M = 0.15 T samples",
    "bd": "BD (budget distribution, Kellaris et al.) with W = T",
    "ba": "BA (budget absorption, Kellaris et al.) with W = T",
    "uniform": "Uniform with W = T (eps/T per step; TPM's noise)",
}
USER_LEVEL = (
    "user-level epsilon-DP over the horizon T = {T} (w-event privacy with W = T): neighbouring streams "
    "differ by one person, who contributes at most {K} to each timestamp's count"
)
EVENT_LEVEL = (
    "event-level epsilon-DP: neighbouring streams differ by one record at one timestamp (a person "
    "with records at several timestamps is protected per record only)"
)
EVENT_LEVEL_CAPPED = (
    "event-level epsilon-DP for one person's records at one timestamp (at most {K}): neighbouring streams "
    "differ by at most {K} at one timestamp (a person present at several timestamps is protected per "
    "timestamp only)"
)


class StreamInputError(ValueError):
    """A bad stream or parameter: a one-line message."""


@dataclass(frozen=True)
class StreamParams:
    mechanism: str
    epsilon: object
    window: int
    horizon: int | None = None  # default: the stream's length
    grouping: str = "noisefirst"
    groups: int | None = None  # seed / approx: exactly k groups (default w/10)
    ratio: float = 0.4  # ASM's sampling ratio n/T
    asm_budget: str = "gap"  # ASM-DP variant B ("gap") or A ("fixed")
    fit: str = "wls"  # ASM-DP predictor: wls, origin, hold
    cap: int = 1  # K: one person adds at most K to each timestamp's count (every mechanism's sensitivity x K)
    published: str = "whole"  # "whole": each published value rounded and at least 0; "real": as computed

    def checked_epsilon(self) -> Fraction:
        try:
            return check_usable_epsilon(self.epsilon)
        except ValueError as exc:
            raise StreamInputError(str(exc) if "epsilon" in str(exc) else f"epsilon: {exc}") from None

    def validate(self, length: int) -> int:
        """Check against a stream of ``length`` timestamps; returns the horizon T."""
        eps = self.checked_epsilon()
        if self.mechanism not in MECHANISMS:
            raise StreamInputError(f"unknown mechanism {self.mechanism!r} (one of {', '.join(MECHANISMS)})")
        if self.grouping not in MODES:
            raise StreamInputError(f"unknown grouping {self.grouping!r} (one of {', '.join(MODES)})")
        if int(self.cap) < 1 or int(self.cap) != self.cap:
            raise StreamInputError(f"the per-timestamp cap K must be a whole number of at least 1, got {self.cap}")
        if self.published not in PUBLISHED:
            raise StreamInputError(f"published must be one of {', '.join(PUBLISHED)}, got {self.published!r}")
        horizon = length if self.horizon is None else int(self.horizon)
        if horizon < length:
            raise StreamInputError(f"the horizon {horizon} is shorter than the stream ({length} timestamps)")
        if self.mechanism != "binary":  # user-level over T: a timestamp's share, per unit of the cap K
            try:
                check_usable_epsilon(eps / (horizon * int(self.cap)), "epsilon / (horizon T x per-timestamp cap K)")
            except ValueError as exc:
                raise StreamInputError(
                    f"{exc} (horizon {horizon if horizon < 10**15 else f'about 1e{len(str(horizon)) - 1}'}, cap {self.cap})"
                ) from None
        w = int(self.window)
        if w < 1:
            raise StreamInputError(f"the window must be at least 1, got {w}")
        if w > length:
            raise StreamInputError(f"the window {w} is larger than the stream ({length} timestamps)")
        values = (horizon - w + 1) * w
        if values > MAX_PUBLISHED_VALUES:
            raise StreamInputError(
                f"{horizon - w + 1:,} windows of {w} timestamps make {values:,} published values: at most "
                f"{MAX_PUBLISHED_VALUES:,} (the windows, their variances and the CSV hold each several times); choose a "
                "shorter window, a longer bucket or a shorter range"
            )
        if self.groups is not None:
            if self.grouping not in ("seed", "approx"):
                raise StreamInputError("--groups goes with --grouping seed or approx")
            if not 1 <= int(self.groups) <= w:
                raise StreamInputError(f"--groups must be between 1 and the window {w}, got {self.groups}")
        if not 0 < float(self.ratio) <= 1:  # nan fails too
            raise StreamInputError(f"the sampling ratio must be in (0, 1], got {self.ratio}")
        return horizon

    @property
    def sensitivity(self) -> int:
        """The L1 sensitivity every spend is calibrated for: K (SWM: each window is one query of w counts, w K)."""
        return int(self.cap) * (int(self.window) if self.mechanism == "swm" else 1)

    def guarantee(self, horizon: int | str) -> str:
        if self.mechanism == "binary":
            return EVENT_LEVEL if int(self.cap) == 1 else EVENT_LEVEL_CAPPED.format(K=int(self.cap))
        return USER_LEVEL.format(T=horizon, K=int(self.cap))


def check_stream(counts) -> np.ndarray:
    """One whole non-negative count per timestamp, at least one (specific one-line messages)."""
    arr = np.asarray(counts)
    if arr.ndim != 1 or arr.size == 0:
        raise StreamInputError("the stream is empty (no counts)")
    if not (np.issubdtype(arr.dtype, np.integer) or np.issubdtype(arr.dtype, np.floating)):
        raise StreamInputError("counts must be numbers")
    if np.issubdtype(arr.dtype, np.floating):
        bad = np.flatnonzero(~np.isfinite(arr) | (arr != np.round(arr)))
        if bad.size:
            raise StreamInputError(f"the count at timestamp {bad[0] + 1} is not a whole number ({arr[bad[0]]})")
    bad = np.flatnonzero(arr < 0)
    if bad.size:
        raise StreamInputError(f"the count at timestamp {bad[0] + 1} is negative ({arr[bad[0]]})")
    return arr.astype(np.int64)


@dataclass
class StreamResult:
    params: StreamParams
    horizon: int
    windows: np.ndarray  # (n - w + 1, w) published values
    group_counts: np.ndarray  # groups per window
    variances: np.ndarray  # public per-value variance the grouping used (windows x w)
    is_release: bool
    noise_label: str
    guarantee: str
    error: dict = field(default_factory=dict)  # expected_window_laplace_error and its note

    @property
    def window_ends(self) -> np.ndarray:
        """The 1-based timestamp each window ends at."""
        return np.arange(self.params.window, self.params.window + self.windows.shape[0])


def _mechanism(x, p: StreamParams, horizon: int, noise: NoiseSource, ledger: Ledger):
    """The mechanism's values and variances; every noise scale is for sensitivity K = ``p.cap`` (SWM: w K)."""
    eps, k = p.checked_epsilon(), int(p.cap)
    if p.mechanism == "swm":
        return (yield from shp.swm(x, p.window, horizon, eps, noise, ledger, sensitivity=k))
    if p.mechanism == "tpm":
        values, var = yield from shp.tpm(x, horizon, eps, noise, ledger, sensitivity=k)
    elif p.mechanism == "uniform":
        values, var = yield from base.uniform(x, horizon, eps, noise, ledger, sensitivity=k)
    elif p.mechanism == "asm":
        values, var = yield from shp.asm_dp(x, horizon, eps, noise, ledger, p.ratio, p.asm_budget, p.fit, sensitivity=k)
    elif p.mechanism == "binary":
        values, var = yield from base.binary(x, horizon, eps, noise, ledger, sensitivity=k)
    elif p.mechanism == "fast":
        values, var = yield from base.fast(x, horizon, eps, noise, ledger, sensitivity=k)
    else:
        values, var = yield from base.kellaris(x, horizon, eps, noise, ledger, p.mechanism, sensitivity=k)
    swv = np.lib.stride_tricks.sliding_window_view
    return swv(values, p.window), swv(var, p.window)


def expected_window_error(p: StreamParams, horizon: int, variances: np.ndarray, group_counts) -> dict:
    """The analytic Laplace error of one window (S2): each group adds the variance of one value, so k v for
    k groups (w v ungrouped), with the exact discrete Laplace variance of the noise that runs. For the
    mechanisms that publish predictions (asm, fast, bd, ba) there is no data-independent bound."""
    w = p.window
    if p.mechanism in ("asm", "fast", "bd", "ba"):
        return {
            "expected_window_laplace_error": None,
            "error_note": "predictions and repeated values have no data-independent error bound",
        }
    v = variances.mean(axis=1)  # swm, tpm, uniform: constant; binary: by position
    if p.grouping == "none":
        err, how = float(v.mean() * w), "no grouping: w values of variance v each (w v)"
    elif p.grouping in ("seed", "approx"):
        k = p.groups or default_groups(w)
        err, how = float(v.mean() * k), f"exactly k = {k} groups: k v"
    else:
        err = float(np.mean(v * group_counts))
        how = (
            "noisefirst: the mean over windows of k_t v, k_t the number of groups of window t (chosen from "
            "released values: post-processing)"
        )
    grouped = p.grouping != "none"
    note = f"analytic, exact discrete Laplace variance; {how}"
    if grouped:
        note += (
            ". This is the Laplace noise term only: a grouped window also has the grouping's approximation "
            "error (each value replaced by its group's mean), which depends on the data and is not included; "
            "measured on ILINet national (T = 1163, w = 200, eps 1) the whole error was 2.5 to 47 times this "
            "figure. The ungrouped release (expected_window_laplace_error_ungrouped) has no such term"
        )
    return {
        "expected_window_laplace_error": err,
        "laplace_term_only": grouped,  # True: the grouping's approximation error is not included
        "expected_window_laplace_error_ungrouped": float(v.mean() * w),
        "per_value_variance": float(v.mean()),
        "error_note": note,
    }


PREDICTING = ("asm", "fast", "bd", "ba")  # publish predictions or repeated values: no estimate from the release
ESTIMATE_SEED = 20231  # the estimate's simulation noise: fixed, so a release's figure can be recomputed


def group_approximation_error(y: np.ndarray, v: np.ndarray, ends: np.ndarray) -> np.ndarray:
    """Per window, an estimate of the grouping's approximation error sum_i (x_i - mean of x over i's group)^2
    from the noisy values ``y`` (variance ``v``): per group max(0, SS_g(y) - (1 - 1/n_g) sum v), the
    within-group sum of squares less its expected noise part. Post-processing of the mechanism's output."""
    nb, w = y.shape
    flat = group_index(ends)

    def sums(a):
        return np.bincount(flat, weights=np.asarray(a, dtype=float).ravel(), minlength=nb * w).reshape(nb, w)

    n = np.bincount(flat, minlength=nb * w).reshape(nb, w)
    s, s2, sv = sums(y), sums(y * y), sums(np.broadcast_to(v, y.shape))
    size = np.maximum(n, 1)
    ss = s2 - s * s / size
    return np.where(n > 0, np.maximum(ss - (1 - 1 / size) * sv, 0.0), 0.0).sum(axis=1)


def estimated_window_error(y: np.ndarray, v: np.ndarray, part, p: StreamParams, lap: float) -> float | None:
    """An estimate of the expected squared error of one published window, for every grouping of the
    mechanisms that publish noisy values (swm, tpm, uniform, binary); None for those that publish
    predictions (their error depends on the data in a way the release does not show).

    Ungrouped: w v, exact. Grouped: the grouping's error is two parts. (1) Noise: the grouping is re-run
    on the published windows plus fresh simulated noise of the same variance, and its squared distance
    to the published windows is measured; this keeps what the Laplace term alone misses, the groups being
    chosen from the noise itself. (2) The signal's variation inside the groups that ran
    (``group_approximation_error``). Whole counts (the default) are simulated as published: the re-run's
    values rounded and clamped at 0, against the published counts (clamping at 0 pulls a noisy value toward
    a count, so the error falls where counts are small). Both read only the mechanism's noisy output and
    public variances:
    post-processing, no budget; the simulation's seed is fixed. Measured on ILINet against the true error
    (``benchmarks/bench_stream_error.py``, RESULTS.md)."""
    if p.mechanism in PREDICTING:
        return None
    v = np.broadcast_to(v, y.shape)
    whole = p.published == "whole"
    if p.grouping == "none" and not whole:
        return float(v.sum(axis=1).mean())
    z = part.values
    rng = np.random.default_rng(ESTIMATE_SEED)
    again = partition_windows(z + rng.laplace(0.0, np.sqrt(v / 2.0)), v, p.grouping, p.groups, lap).values
    if whole:  # the published counts: rounded, never negative (clamping pulls a noisy value toward a count)
        again, z = whole_counts(again), whole_counts(z)
    noise_part = ((again - z) ** 2).sum(axis=1).mean()
    return float(noise_part + group_approximation_error(y, v, part.ends).mean())


def whole_counts(values: np.ndarray) -> np.ndarray:
    """Counts as a release publishes them: the nearest whole number, at least 0 (post-processing: a count is
    never negative; the values of one group stay equal)."""
    return np.maximum(np.rint(values), 0.0)


def run_stream(counts, p: StreamParams, noise: NoiseSource, ledger: Ledger):
    """The events of one run; the last is ``RunFinished(StreamResult)``."""
    x = check_stream(counts)
    horizon = p.validate(x.size)
    yield Progress(0, 3, f"{MECHANISMS[p.mechanism]}: {x.size} timestamps, horizon {horizon}, window {p.window}")
    y, v = yield from _mechanism(x, p, horizon, noise, ledger)
    lap = float(np.nanmean(v)) if np.isfinite(np.nanmean(v)) else 0.0
    y_arr, v_filled = np.asarray(y, dtype=float), np.nan_to_num(np.asarray(v, dtype=float), nan=lap)
    part = partition_windows(y_arr, v_filled, p.grouping, p.groups, lap)
    windows = whole_counts(part.values) if p.published == "whole" else part.values
    for i in range(windows.shape[0]):
        yield WindowReleased(p.window + i, windows[i], tuple(part.bounds(i)))
    yield Progress(2, 3, f"{part.values.shape[0]} windows released; estimating their error (no budget)")
    result = StreamResult(
        p,
        horizon,
        windows,
        part.group_counts,
        np.asarray(v),
        bool(noise.is_secure),
        noise.label,
        p.guarantee(horizon),
    )
    result.error = expected_window_error(p, horizon, np.asarray(v), part.group_counts)
    estimate = estimated_window_error(y_arr, v_filled, part, p, lap)
    result.error["estimated_window_error"] = estimate
    result.error["estimated_window_error_note"] = (
        "estimated from the release (post-processing, no budget): the grouping re-run on the published "
        "windows plus simulated noise of the same variance, plus the variation inside the groups estimated "
        "from the noisy values; within 25 % of the measured error for swm, tpm, uniform and binary with every "
        "grouping on ILINet (benchmarks/bench_stream_error.py)"
        if estimate is not None
        else "none: this mechanism publishes predictions or repeated values, whose error depends on the data in "
        "a way the release does not show"
    )
    yield Progress(3, 3, f"{part.values.shape[0]} windows released")
    yield RunFinished(result)


def release_stream(counts, p: StreamParams, noise: NoiseSource, ledger: Ledger) -> StreamResult:
    """Drain ``run_stream`` and return its result."""
    result = None
    for ev in run_stream(counts, p, noise, ledger):
        if isinstance(ev, RunFinished):
            result = ev.result
    assert result is not None, "the run ended without its result"
    return result


def ledger_summary(ledger: Ledger) -> str:
    return f"spent {fraction_text(ledger.spent, True)} of {fraction_text(ledger.total, True)}"
