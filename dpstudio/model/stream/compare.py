"""The Stream panel's Compare (Qt-free): error by mechanism against epsilon or against the window size w,
for two measures (STREAMING.md S2), analytic where a closed form exists and measured by simulation.

Measures, both of ungrouped windows (grouping "none"):
- ``workload``: the workload error, the mean over the T - w + 1 windows of the squared error of one window.
- ``mae``: the mean absolute error per count, over every window and every position in it.

Analytic (public inputs only: T, w, epsilon; fit for release mode), with the discrete Laplace noise that
runs, of scale b:
- workload: w v for swm, tpm and uniform (v the exact variance), and binary's mean over positions
  (``stream_view.analytic_window_errors``);
- mae: E|X| = 2 e^(-1/b) / (1 - e^(-2/b)) for swm (b = w (T - w + 1) / eps), tpm and uniform (b = T / eps).
  Binary's window value sums several noises: no closed form for its MAE.

Measured (``measured_errors``): simulation noise against the true counts, so teaching mode only and never a
release; a few seeds; both measures from the same runs.
"""

from __future__ import annotations

import numpy as np

from dpstudio.algorithms.stream_runs import StreamParams, run_stream
from dpstudio.core.budget import Ledger, as_fraction
from dpstudio.core.events import RunFinished
from dpstudio.core.noise import SimulationNoise
from dpstudio.core.scales import noise_scale
from dpstudio.model.stream.view import analytic_window_errors

MEASURES = {"workload": "workload error (mean squared error of one window)", "mae": "mean absolute error per count"}
AXES = {"epsilon": "epsilon", "window": "window size w"}
EPSILONS = (0.1, 0.2, 0.5, 1.0, 2.0, 5.0, 10.0)
WINDOWS = (10, 20, 50, 100, 200, 300, 400)
ANALYTIC = {"workload": ("swm", "tpm", "binary"), "mae": ("swm", "tpm")}
# uniform with W = T runs TPM's noise (eps/T per step): its analytic curve is TPM's.
MEASURED = ("swm", "tpm", "binary", "asm", "fast", "bd", "ba")


def window_grid(horizon: int) -> list[int]:
    """The public grid of window sizes for a stream of ``horizon`` timestamps: WINDOWS up to min(T, 400),
    and the cap itself when T is shorter than 400."""
    cap = min(int(horizon), WINDOWS[-1])
    ws = [w for w in WINDOWS if w <= cap]
    return ws if ws and ws[-1] == cap else ws + [cap]


def discrete_laplace_mae(scale):
    """E|X| for the discrete Laplace P(k) ~ exp(-|k|/s): 2 q / (1 - q^2) with q = e^(-1/s)."""
    s = np.asarray(scale, dtype=float)
    q = np.exp(-1.0 / s)
    out = 2.0 * q / (-np.expm1(-2.0 / s))
    return float(out) if np.ndim(out) == 0 else out


def grid(axis: str, horizon: int, window: int, epsilon) -> list[tuple]:
    """The (w, epsilon) pairs of a Compare curve: epsilon over EPSILONS at the window ``window``, or w over
    ``window_grid(T)`` at ``epsilon``."""
    if axis == "epsilon":
        return [(int(window), e) for e in EPSILONS]
    if axis == "window":
        return [(w, epsilon) for w in window_grid(horizon)]
    raise ValueError(f"unknown axis {axis!r} (one of {', '.join(AXES)})")


def analytic_errors(measure: str, horizon: int, points, cap: int = 1, mechanisms=None) -> dict:
    """{mechanism: [error at each (w, epsilon) of ``points``]} for the mechanisms with a closed form (those
    of ``mechanisms`` when given: the panel passes the ones with the chosen mechanism's guarantee);
    ``cap``: K, one person's most per timestamp."""
    out = {}
    for m in ANALYTIC[measure]:
        if mechanisms is not None and m not in mechanisms:
            continue
        row = []
        for w, eps in points:
            if measure == "workload":
                row.append(analytic_window_errors((m,), horizon, w, (eps,), cap)[m][0])
            elif m == "swm":
                row.append(discrete_laplace_mae(noise_scale(w * cap, as_fraction(eps) / (horizon - w + 1))))
            else:
                row.append(discrete_laplace_mae(noise_scale(cap, as_fraction(eps) / horizon)))
        out[m] = row
    return out


def measured_point(counts, mechanism: str, window: int, epsilon, seeds, cap: int = 1) -> dict:
    """Simulation (reads true counts): {"workload": ..., "mae": ...} averaged over ``seeds``, ungrouped, of the
    mechanism's values as computed (``published="real"``: the analytic figures beside them describe those;
    a release's whole counts, clamped at 0, are at most as far from small counts)."""
    x = np.asarray(counts)
    truth = np.lib.stride_tricks.sliding_window_view(x.astype(float), window)
    sq, ab = [], []
    for seed in seeds:
        p = StreamParams(mechanism, epsilon, window, grouping="none", cap=cap, published="real")
        res = next(
            e.result
            for e in run_stream(x, p, SimulationNoise(seed), Ledger(p.checked_epsilon()))
            if isinstance(e, RunFinished)
        )
        diff = res.windows - truth
        sq.append(float((diff**2).sum(axis=1).mean()))
        ab.append(float(np.abs(diff).mean()))
    return {"workload": float(np.mean(sq)), "mae": float(np.mean(ab))}


def measured_errors(counts, points, mechanisms=MEASURED, seeds=(0, 1, 2), progress=None, cap: int = 1) -> dict:
    """{measure: {mechanism: [value at each point]}} by simulation (teaching only). ``progress(i, n, text)``
    is called before each point (the studio's worker cancels by raising there)."""
    out: dict[str, dict] = {m: {} for m in MEASURES}
    n = len(mechanisms) * len(points)
    for i, mech in enumerate(mechanisms):
        rows: dict[str, list] = {m: [] for m in MEASURES}
        for j, (w, eps) in enumerate(points):
            if progress is not None:
                progress(i * len(points) + j, n, f"simulating {mech} (w = {w}, epsilon = {eps:g})")
            got = measured_point(counts, mech, w, eps, seeds, cap)
            for m in MEASURES:
                rows[m].append(got[m])
        for m in MEASURES:
            out[m][mech] = rows[m]
    return out
