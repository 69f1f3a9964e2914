"""Streaming histograms (issue 12, STREAMING.md S9): the evaluation on ILINet's national stream and speed.

Stream: ``../shared/data/streams/ILINet.csv``, ILITOTAL summed over the 10 HHS regions per week, from
2002-W40 (T = 1163). Measures (S2): workload error = mean over windows of the squared error of the window,
MAE = mean |released - true| over all windows and positions. Simulation noise (seeded numpy, the same
distributions as the secure release), ``--runs`` runs per cell, mean reported; analytic Laplace error where
one exists (TPM and SWM ungrouped: w v with v the exact discrete Laplace variance).

Speed: wall time of the NoiseFirst grouping of every window (``partition_windows``), T = 1163 and T = 10,000,
w = 200, median of ``--repeats``; the machine is shared (load printed).

    .venv/bin/python benchmarks/bench_stream.py [--runs 3] [--repeats 3] [--skip-eval]
"""

from __future__ import annotations

import argparse
import os
import statistics
import time
from pathlib import Path

import numpy as np
from numpy.lib.stride_tricks import sliding_window_view

from dpstudio.algorithms.stream_runs import StreamParams, release_stream
from dpstudio.algorithms.stream_shp import asm_dp
from dpstudio.core.budget import Ledger
from dpstudio.core.noise import SimulationNoise
from dpstudio.core.stream_partition import partition_windows
from dpstudio.io.stream_input import read_ilinet

ILINET = Path(__file__).resolve().parents[2] / "shared" / "data" / "streams" / "ILINet.csv"


def _drain(gen):
    while True:
        try:
            next(gen)
        except StopIteration as stop:
            return stop.value


def released_windows(x, method: str, eps, w: int, seed: int):
    """(windows, analytic window error or None) for one simulated run of ``method``."""
    noise = SimulationNoise(seed)
    if method == "zeros":
        return np.zeros((x.size - w + 1, w)), None
    if method == "asm_hold_fixed":  # ASM-DP B with adaptation off (interval 2.5) and the hold predictor
        out, var = _drain(asm_dp(x, x.size, eps, noise, Ledger(eps), 0.4, "gap", "hold", adaptive=False))
        part = partition_windows(sliding_window_view(out, w), sliding_window_view(var, w), "noisefirst")
        return part.values, None
    mech, grouping = {
        "tpm_raw": ("tpm", "none"),
        "tpm_grouped": ("tpm", "noisefirst"),
        "swm": ("swm", "none"),
        "asm": ("asm", "noisefirst"),
        "asm_fixed": ("asm", "noisefirst"),
        "ba": ("ba", "noisefirst"),
        "bd": ("bd", "noisefirst"),
        "fast": ("fast", "noisefirst"),
    }[method]
    params = StreamParams(mech, eps, w, grouping=grouping, asm_budget="fixed" if method == "asm_fixed" else "gap")
    res = release_stream(x, params, noise, Ledger(eps))
    analytic = res.error.get("expected_window_laplace_error") if grouping == "none" else None
    return res.windows, analytic


def evaluate(x, method, eps, w, runs):
    truth = sliding_window_view(x.astype(float), w)
    work, mae, analytic = [], [], None
    for seed in range(runs):
        win, analytic = released_windows(x, method, eps, w, seed)
        err = win - truth
        work.append(float((err**2).sum(axis=1).mean()))
        mae.append(float(np.abs(err).mean()))
    return float(np.mean(work)), float(np.mean(mae)), analytic


def speed(repeats: int):
    rng = np.random.default_rng(0)
    for T in (1163, 10_000):
        z = rng.normal(20_000, 2_000, size=T)
        times = []
        for _ in range(repeats):
            t0 = time.perf_counter()
            partition_windows(sliding_window_view(z, 200), 2 * 1163.0**2, "noisefirst")
            times.append(time.perf_counter() - t0)
        print(
            f"speed: T = {T}, w = 200, NoiseFirst grouping of all {T - 199} windows: median "
            f"{statistics.median(times):.2f} s (runs {', '.join(f'{t:.2f}' for t in times)})"
        )


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--skip-eval", action="store_true")
    a = ap.parse_args()
    print(f"load average {os.getloadavg()[0]:.2f} on {os.cpu_count()} cores (shared machine)")
    speed(a.repeats)
    if a.skip_eval:
        return
    x = read_ilinet(ILINET, "national", "ILITOTAL", "2002-W40")
    print(f"ILINet national from 2002-W40: T = {x.size}, mean {x.mean():.0f}; {a.runs} simulated runs per cell")
    methods = ["tpm_raw", "tpm_grouped", "swm", "asm", "asm_hold_fixed", "ba", "zeros"]
    print("| eps | " + " | ".join(methods) + " |")
    print("|---" * (len(methods) + 1) + "|")
    for eps in (0.1, 0.5, 1.0, 1.5):
        cells = []
        for m in methods:
            work, mae, analytic = evaluate(x, m, eps, 200, a.runs)
            extra = f" (analytic {analytic:.3g})" if analytic else ""
            cells.append(f"{work:.3g} / {mae:.0f}{extra}")
        print(f"| {eps} | " + " | ".join(cells) + " |", flush=True)
    print("\nw grid at eps = 1 (workload error / MAE)")
    methods_w = ["tpm_raw", "tpm_grouped", "swm", "asm"]
    print("| w | " + " | ".join(methods_w) + " |")
    print("|---" * (len(methods_w) + 1) + "|")
    for w in (100, 300, 500):
        cells = []
        for m in methods_w:
            work, mae, analytic = evaluate(x, m, 1.0, w, a.runs)
            extra = f" (analytic {analytic:.3g})" if analytic else ""
            cells.append(f"{work:.3g} / {mae:.0f}{extra}")
        print(f"| {w} | " + " | ".join(cells) + " |", flush=True)
    print("\nother baselines at eps = 1, w = 200 (workload error / MAE)")
    for m in ("asm_fixed", "fast", "bd"):
        work, mae, _ = evaluate(x, m, 1.0, 200, a.runs)
        print(f"{m}: {work:.3g} / {mae:.0f}", flush=True)


if __name__ == "__main__":
    main()
