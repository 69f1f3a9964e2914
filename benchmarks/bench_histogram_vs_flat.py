"""Issue 24 item 8: do the studio's histogram defaults lose to a flat histogram? Exact, no data involved.

    .venv/bin/python benchmarks/bench_histogram_vs_flat.py               # 256 bins (the studio's default)
    .venv/bin/python benchmarks/bench_histogram_vs_flat.py --bins 1024 --eps 1 2 4 6

For each epsilon, the expected all-range squared error of the released (least-squares) histogram divided by
a flat histogram's at the same epsilon (discrete Laplace variances, exact; below 1 the tree wins): H_b with
the studio's defaults now (automatic branching, root not noised), H_b with the root noised (the old default
and the command line's), the best H_b over every branching 2..64 (root not noised), H_opt and p-Identity.
"""

from __future__ import annotations

import argparse

from dpstudio.algorithms.interval_trees import IntervalTreeParams, plan_interval_tree
from dpstudio.core.budget import as_fraction


def ratios(n: int, eps: float) -> dict:
    e = as_fraction(eps)

    def mse(algorithm, branching=None, root=True):
        return plan_interval_tree(n, IntervalTreeParams(algorithm, e, branching, root)).expected_consistent_mse

    flat = mse("flat")
    out = {
        "H_b default (root off)": mse("hb", root=False),
        "H_b root noised": mse("hb", root=True),
        "best H_b (b 2..64, root off)": min(mse("hb", b, False) for b in range(2, 65)),
        "H_opt": mse("hopt"),
    }
    if n <= 4096:
        out["p-Identity"] = mse("pidentity")
    return {k: v / flat for k, v in out.items()}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--bins", type=int, default=256)
    ap.add_argument("--eps", type=float, nargs="+", default=[0.1, 1, 2, 3, 3.8, 5, 10])
    args = ap.parse_args()
    rows = {eps: ratios(args.bins, eps) for eps in args.eps}
    names = list(next(iter(rows.values())))
    print(f"released all-range MSE / flat histogram's, {args.bins} bins")
    print("| epsilon | " + " | ".join(names) + " |")
    print("|---" * (len(names) + 1) + "|")
    for eps, r in rows.items():
        print(f"| {eps:g} | " + " | ".join(f"{r[k]:.2f}" for k in names) + " |")


if __name__ == "__main__":
    main()
