"""The histogram default (``dpstudio histogram`` without ``--algorithm``): what it picks, its exact
all-range RMSE after least squares (discrete Laplace, as released), H_opt's and p-Identity's planning
times and RMSEs, and a Monte-Carlo check of the chosen plan's analytic figure.

Planning time is CPU time (``time.process_time``, all threads) of ``plan_interval_tree`` with the memos
cleared (H_opt's search over branchings and level weights; p-Identity's L-BFGS-B), median of ``--repeats``;
the machine is shared, so the load is printed too.

    .venv/bin/python benchmarks/bench_histogram_default.py [--n 256 1024 4096] [--mc 2000] [--repeats 3]
"""

from __future__ import annotations

import argparse
import math
import os
import statistics
import time

from dpstudio.algorithms import interval_levels, pidentity
from dpstudio.algorithms.interval_trees import (
    IntervalTreeParams,
    choose_algorithm,
    monte_carlo_all_range_mse,
    plan_interval_tree,
)

ANCHORS = {1024: "HDMM 11.10, H_b (no root) 12.66, LUEDPTree 13.4"}


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--n", type=int, nargs="+", default=[256, 1024, 4096])
    ap.add_argument("--epsilon", default="1")
    ap.add_argument("--mc", type=int, default=0, help="Monte-Carlo runs of the default (0: none)")
    ap.add_argument("--repeats", type=int, default=3)
    a = ap.parse_args()
    print(f"load average {os.getloadavg()[0]:.2f} on {os.cpu_count()} cores")
    print(
        "| n | default | its RMSE | H_b no root | LUEDPTree no root | H_opt RMSE | p-Identity RMSE | "
        "H_opt / p-Identity plan CPU s (median) | MC / analytic |"
    )
    print("|---|---|---|---|---|---|---|---|---|")
    pidentity.plan_pidentity(16, a.epsilon)  # scipy's import is not planning time
    for n in a.n:
        times = {}
        for algo, memo in (("hopt", interval_levels._best_level_tree), ("pidentity", pidentity._continuous_theta)):
            times[algo] = []
            for _ in range(a.repeats):
                memo.cache_clear()
                t0 = time.process_time()
                rmse = math.sqrt(plan_interval_tree(n, IntervalTreeParams(algo, a.epsilon)).expected_consistent_mse)
                times[algo].append(time.process_time() - t0)
            times[algo] = (rmse, statistics.median(times[algo]))
        chosen, why = choose_algorithm(n, a.epsilon)
        plan = plan_interval_tree(n, IntervalTreeParams(chosen, a.epsilon))
        rm = why["expected_all_range_rmse"]
        hb = math.sqrt(plan_interval_tree(n, IntervalTreeParams("hb", a.epsilon, None, False)).expected_consistent_mse)
        lu = math.sqrt(
            plan_interval_tree(n, IntervalTreeParams("luedp", a.epsilon, None, False)).expected_consistent_mse
        )
        mc = ""
        if a.mc:
            mc_of = pidentity.monte_carlo_all_range_mse if chosen == "pidentity" else monte_carlo_all_range_mse
            mean, se = mc_of(plan, runs=a.mc, seed=1)
            mc = f"{mean / plan.expected_consistent_mse:.3f} (se {se / plan.expected_consistent_mse:.3f})"
        shape = (
            f"b={plan.branching}" if plan.branching else f"p={plan.n_rows}" if chosen == "pidentity" else plan.tree.name
        )
        print(
            f"| {n} | {chosen} ({shape}) | {rm[chosen]:.2f} | {hb:.2f} | {lu:.2f} | {times['hopt'][0]:.2f} | "
            f"{times['pidentity'][0]:.2f} | {times['hopt'][1]:.2f} / {times['pidentity'][1]:.2f} | {mc} |"
        )
        if n in ANCHORS:
            print(f"  anchors at n = {n}: {ANCHORS[n]}")
        print(f"  {plan.notes[0] if plan.notes else ''}")


if __name__ == "__main__":
    main()
