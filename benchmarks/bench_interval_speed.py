"""Speed of an interval-tree histogram release at n = 1,000,000 bins (H_b and LUEDPTree).

Wall-clock times (and the process's CPU time, less sensitive to a busy machine), median of --repeats runs: the whole run with the noise sampling replaced by simulation noise and
timed apart (plan: tree + coverage + budgets; run: events, ledger, least squares, post-processing;
analytic: raw and consistent all-range error), and, once, secure OpenDP sampling of every node.

    .venv/bin/python benchmarks/bench_interval_speed.py [--n 1000000] [--repeats 3] [--secure]
"""

from __future__ import annotations

import argparse
import statistics
import time

import numpy as np

from dpstudio.algorithms import interval_trees as it
from dpstudio.core.budget import Ledger
from dpstudio.core.noise import SecureNoise, SimulationNoise


class TimedNoise:
    """Wraps a noise source and accumulates the time spent inside its sampler."""

    def __init__(self, inner):
        self.inner = inner
        self.is_secure = inner.is_secure
        self.label = inner.label
        self.seconds = 0.0

    cpu = 0.0

    def laplace_counts(self, counts, scale):
        t, c = time.perf_counter(), time.process_time()
        out = self.inner.laplace_counts(counts, scale)
        self.seconds += time.perf_counter() - t
        self.cpu += time.process_time() - c
        return out


def once(n, algo, noise):
    counts = np.random.default_rng(0).poisson(20, n)
    params = it.IntervalTreeParams(algo, 1.0)
    timed = TimedNoise(noise)
    t0, c0 = time.perf_counter(), time.process_time()
    result = it.release_histogram(counts, params, timed, Ledger(1))
    t1 = time.perf_counter()
    raw = result.plan.expected_raw_mse
    cons = result.plan.expected_consistent_mse
    t2, c2 = time.perf_counter(), time.process_time()
    return {
        "run_without_sampling": t1 - t0 - timed.seconds,
        "sampling": timed.seconds,
        "cpu_without_sampling": c2 - c0 - timed.cpu,
        "analytic_error": t2 - t1,
        "total_without_sampling": t2 - t0 - timed.seconds,
        "nodes": result.plan.tree.n_nodes,
        "b": result.plan.branching,
        "distinct_scales": int(np.unique(result.plan.scales[result.plan.noised]).size),
        "rmse": cons**0.5,
        "raw_rmse": raw**0.5,
    }


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--n", type=int, default=1_000_000)
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--secure", action="store_true", help="also time secure OpenDP sampling once per algorithm")
    args = ap.parse_args()
    for algo in ("hb", "luedp"):
        runs = [once(args.n, algo, SimulationNoise(k)) for k in range(args.repeats)]
        med = {k: statistics.median(r[k] for r in runs) for k in runs[0] if isinstance(runs[0][k], float)}
        r0 = runs[0]
        print(
            f"{algo:6s} n={args.n} nodes={r0['nodes']} b={r0['b']} distinct scales={r0['distinct_scales']}: "
            f"end to end without sampling {med['total_without_sampling']:.2f} s "
            f"(run {med['run_without_sampling']:.2f} s + analytic error {med['analytic_error']:.2f} s; "
            f"CPU time {med['cpu_without_sampling']:.2f} s); "
            f"simulation sampling {med['sampling']:.2f} s; RMSE {r0['rmse']:.2f} (raw tree {r0['raw_rmse']:.2f})"
        )
        if args.secure:
            r = once(args.n, algo, SecureNoise())
            print(
                f"{algo:6s} secure OpenDP sampling of {r['nodes']} nodes: {r['sampling']:.1f} s "
                f"(rest {r['total_without_sampling']:.2f} s)"
            )


if __name__ == "__main__":
    main()
