"""Whole counts against least squares: the error of what a histogram release publishes by default (whole,
non-negative counts consistent across the tree's levels) beside the real-valued least-squares estimates
of the same noisy tree (``--published least-squares``).

SIMULATION, NOT A RELEASE: seeded numpy noise (``SimulationNoise``), errors measured against the true
counts. Each run draws the noise once and publishes it both ways (a paired comparison).

- all-range RMSE: the root of the mean squared error over every range [l, r] of bins (all n(n+1)/2,
  computed exactly from prefix sums), averaged over runs;
- per-bin RMSE: the root of the mean squared error of one bin;
- total: the mean absolute error of the published total.

Histograms: dense (Adult's ages in 74 one-year bins; 1,024 bins of Poisson(40)) and sparse (Adult's
capital gain in 1,000-dollar bins, 100 bins, most empty; 4,096 bins of which 1 % hold records).

    .venv/bin/python benchmarks/bench_whole_counts.py [--runs 200] [--epsilon 1 0.1]
"""

from __future__ import annotations

import argparse
import math
import os
import platform
from pathlib import Path

import numpy as np

from dpstudio.algorithms.interval_trees import IntervalTreeParams, choose_algorithm, publish, release_histogram
from dpstudio.core.budget import Ledger
from dpstudio.core.noise import SimulationNoise

ADULT = Path(__file__).resolve().parents[1].parent / "shared" / "data" / "adult" / "adult.data"


def _adult_column(index: int) -> np.ndarray:
    rows = [line.split(",") for line in ADULT.read_text().splitlines()[1:] if line.strip()]
    return np.array([int(r[index]) for r in rows if r[index].strip() != "?"])


def histograms() -> dict[str, np.ndarray]:
    rng = np.random.default_rng(0)
    sparse = np.zeros(4096, dtype=np.int64)
    where = rng.choice(4096, 41, replace=False)
    sparse[where] = rng.geometric(0.01, where.size)
    out = {"uniform Poisson(40), 1,024 bins (dense)": rng.poisson(40, 1024)}
    if ADULT.exists():
        age = _adult_column(0)
        gain = _adult_column(10)
        out = {
            "Adult age, 74 bins (dense)": np.bincount(age - 17, minlength=74)[:74],
            **out,
            "Adult capital gain, 100 bins of $1,000 (sparse)": np.bincount(np.minimum(gain // 1000, 99), minlength=100),
        }
    out["1 % of 4,096 bins occupied (sparse)"] = sparse
    return out


def all_range_mse(err: np.ndarray) -> float:
    """Mean over all ranges [l, r] of (sum of err over the range)^2: prefix sums P_0..P_n, the pairs i < j."""
    p = np.concatenate([[0.0], np.cumsum(err)])
    m = p.size
    pairs = m * (m - 1) / 2
    return float((m * np.sum(p * p) - np.sum(p) ** 2) / pairs)


def measure(counts: np.ndarray, algorithm: str, epsilon: str, runs: int) -> dict[str, tuple[float, float, float]]:
    ls = IntervalTreeParams(algorithm, epsilon, published="least_squares")
    whole = IntervalTreeParams(algorithm, epsilon)
    acc = {"least squares": np.zeros(3), "whole counts": np.zeros(3)}
    for seed in range(runs):
        res = release_histogram(counts, ls, SimulationNoise(seed), Ledger(epsilon))
        _, published, _ = publish(res.estimates, res.plan.tree, whole)
        for name, rel in (("least squares", res.released), ("whole counts", published)):
            e = rel - counts
            acc[name] += (all_range_mse(e), float(np.mean(e * e)), abs(float(e.sum())))
    return {k: (math.sqrt(v[0] / runs), math.sqrt(v[1] / runs), v[2] / runs) for k, v in acc.items()}


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=200)
    ap.add_argument("--epsilon", nargs="+", default=["1", "0.1"])
    ap.add_argument("--algorithms", nargs="+", default=["default", "hb"], help="'default': the one chosen for n, eps")
    a = ap.parse_args()
    print(f"{platform.processor() or platform.machine()}, {os.cpu_count()} cores, load {os.getloadavg()[0]:.2f}")
    print(f"{a.runs} runs of seeded simulation noise per row; the default algorithm for n and epsilon, and H_b")
    print()
    print(
        "| histogram | epsilon | algorithm | all-range RMSE LS | all-range RMSE whole | per-bin RMSE LS | "
        "per-bin RMSE whole | total abs. error LS | total abs. error whole |"
    )
    print("|---|---|---|---|---|---|---|---|---|")
    for name, counts in histograms().items():
        for eps in a.epsilon:
            for choice in a.algorithms:
                algo = choose_algorithm(counts.size, eps)[0] if choice == "default" else choice
                r = measure(counts, algo, eps, a.runs)
                ls, wh = r["least squares"], r["whole counts"]
                print(
                    f"| {name} | {eps} | {algo} | {ls[0]:.2f} | {wh[0]:.2f} | {ls[1]:.2f} | {wh[1]:.2f} | "
                    f"{ls[2]:.2f} | {wh[2]:.2f} |"
                )


if __name__ == "__main__":
    main()
