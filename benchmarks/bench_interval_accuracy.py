"""Accuracy of interval-tree histograms: analytic all-range RMSE per method, n, epsilon; error by length.

Analytic, exact and data-independent (the error of these linear unbiased estimates does not depend on the
counts). "cons" = consistent (least squares) leaves, "raw" = the noisy tree answered by canonical covers.
Figures use the exact variance of the discrete Laplace noise that releases use; the spec's anchors
(ALGORITHMS.md 6) assume continuous Laplace (2 s^2) and are printed beside them. --mc N adds a
Monte-Carlo check (N runs, simulation noise) of every consistent figure.

    .venv/bin/python benchmarks/bench_interval_accuracy.py [--mc 30] [--by-length]
"""

from __future__ import annotations

import argparse
import math

import numpy as np

from dpstudio.algorithms.interval_trees import IntervalTreeParams, monte_carlo_all_range_mse, plan_interval_tree
from dpstudio.core.range_error import (
    consistent_all_range_mse,
    consistent_error_by_length,
    laplace_variance,
    raw_error_by_length,
)

METHODS = [
    ("flat", dict(algorithm="flat")),
    ("H_b (Qardaji b) + root", dict(algorithm="hb")),
    ("H_b (Qardaji b), no root", dict(algorithm="hb", noise_root=False)),
    ("H_2 + root", dict(algorithm="hb", branching=2)),
    ("SC + root", dict(algorithm="sc")),
    ("SC, no root", dict(algorithm="sc", noise_root=False)),
    ("LUEDPTree (Qardaji b) + root", dict(algorithm="luedp")),
    ("LUEDPTree (Qardaji b), no root", dict(algorithm="luedp", noise_root=False)),
    ("LUEDPTree (b = 2) + root", dict(algorithm="luedp", branching=2)),
]


def continuous_rmse(plan):
    s2 = np.where(plan.noised, laplace_variance(plan.scales, discrete=False), np.inf)
    t = plan.tree
    return math.sqrt(consistent_all_range_mse(t.parents, t.lo, t.hi, t.n_bins, s2, t.levels))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--mc", type=int, default=0, help="Monte-Carlo runs per figure (0: none)")
    ap.add_argument("--by-length", action="store_true", help="error by range length at n = 1024, eps = 1")
    args = ap.parse_args()

    print("Anchors (n = 4096, eps = 1, continuous Laplace, consistent): spec | ours")
    for label, kw, ref in [
        ("flat", dict(algorithm="flat"), 52.27),
        ("binary + root", dict(algorithm="hb", branching=2), 27.90),
        ("b = 16 + root", dict(algorithm="hb", branching=16), 19.77),
        ("b = 16, no root", dict(algorithm="hb", branching=16, noise_root=False), 16.19),
    ]:
        plan = plan_interval_tree(4096, IntervalTreeParams(epsilon=1.0, **kw))
        print(
            f"  {label:18s} {ref:7.2f} | {continuous_rmse(plan):7.2f}  (discrete Laplace: "
            f"{math.sqrt(plan.expected_consistent_mse):.2f})"
        )

    for eps in (1.0, 0.1):
        for n in (256, 1024, 4096):
            print(
                f"\nn = {n}, eps = {eps}: all-range RMSE (discrete Laplace), cons | raw"
                + (f" | Monte-Carlo cons ({args.mc} runs)" if args.mc else "")
            )
            rows = {}
            for label, kw in METHODS:
                plan = plan_interval_tree(n, IntervalTreeParams(epsilon=eps, **kw))
                cons = math.sqrt(plan.expected_consistent_mse)
                raw = math.sqrt(plan.expected_raw_mse)
                rows[label] = (cons, raw)
                shape = f"b={plan.branching}" if plan.branching else plan.tree.name
                line = f"  {label:32s} {shape:12s} {cons:9.3f} | {raw:9.3f}"
                if args.mc:
                    mean, se = monte_carlo_all_range_mse(plan, runs=args.mc, seed=1)
                    line += f" | {math.sqrt(mean):9.3f} (+-{50 * se / mean:.1f} %)"
                print(line)
            hb = rows["H_b (Qardaji b) + root"]
            hb0 = rows["H_b (Qardaji b), no root"]
            for label in ("SC + root", "LUEDPTree (Qardaji b) + root"):
                c, r = rows[label]
                print(
                    f"  {label} vs H_b + root: cons {100 * (c / hb[0] - 1):+.1f} %, raw {100 * (r / hb[1] - 1):+.1f} %"
                )
            for label in ("SC, no root", "LUEDPTree (Qardaji b), no root"):
                c, r = rows[label]
                print(
                    f"  {label} vs H_b no root: cons {100 * (c / hb0[0] - 1):+.1f} %, raw {100 * (r / hb0[1] - 1):+.1f} %"
                )

    if args.by_length:
        n = 1024
        lengths = [2**k for k in range(11)]
        print(f"\nError by range length, n = {n}, eps = 1: RMSE of a random range of each length")
        print("  length " + " ".join(f"{d:>7d}" for d in lengths))
        for label, kw in [
            ("flat", dict(algorithm="flat")),
            ("H_b + root", dict(algorithm="hb")),
            ("LUEDPTree + root", dict(algorithm="luedp")),
        ]:
            plan = plan_interval_tree(n, IntervalTreeParams(epsilon=1.0, **kw))
            t = plan.tree
            raw = raw_error_by_length(t.parents, t.lo, t.hi, n, plan.variances, lengths)
            cons = consistent_error_by_length(t.parents, t.lo, t.hi, n, plan.variances, lengths)
            print(f"  {label + ' raw':22s}" + " ".join(f"{math.sqrt(x):7.2f}" for x in raw))
            print(f"  {label + ' cons':22s}" + " ".join(f"{math.sqrt(x):7.2f}" for x in cons))


if __name__ == "__main__":
    main()
