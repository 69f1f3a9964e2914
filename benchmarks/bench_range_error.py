"""Range-count error on Adult: consistent release vs leaf-only release, by query size (ALGORITHMS.md 4, 9).

    .venv/bin/python benchmarks/bench_range_error.py                 # eps = 1, h = 10, 30 Monte-Carlo runs
    .venv/bin/python benchmarks/bench_range_error.py --steps 4,10,16

For each h: one DiffGen run (Max score, simulation noise) fixes the partition tree; on that SAME tree and
data, with the run's count budget eps_c, 30 Monte-Carlo draws of (a) leaf-only noise Lap(1/eps_c) and
(b) all-node noise Lap(L/eps_c) answered by the minimal cover, by least squares and by seed 000's rule, and
(c) diffgen-consistent's default: per-level budgets for the tree's shape, then least squares.
Two workloads: random boxes over the taxonomies (1-3 attributes constrained) and random tree nodes
(depth uniform, then a node: the queries consistency targets). MSE per size bucket (share of records).
Simulation noise compared with true answers: an evaluation, not a release.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

from dpstudio.core.noise import SimulationNoise
from dpstudio.core.range_queries import random_boxes
from dpstudio.evaluation.diffgen_trees import domain_of, node_workload, true_tree
from dpstudio.evaluation.range_error import ALL_METHODS, error_by_query_size, format_table
from dpstudio.evaluation.sweeps import adult_setup, one_run

ROOT = Path(__file__).resolve().parent.parent


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data-dir", default=str(ROOT.parent / "shared" / "data" / "adult"))
    ap.add_argument("--taxonomies", default=None)
    ap.add_argument("--epsilon", type=float, default=1.0)
    ap.add_argument("--steps", default="10")
    ap.add_argument("--queries", type=int, default=1000)
    ap.add_argument("--mc-runs", type=int, default=30)
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args(argv)
    t0 = time.perf_counter()
    setup = adult_setup(args.data_dir, args.taxonomies)
    domain = domain_of(setup.data)
    for h in [int(x) for x in args.steps.split(",")]:
        _, result = one_run(setup, "diffgen", args.epsilon, h, SimulationNoise(args.seed))
        tree = true_tree(setup.data, result, domain)
        eps_c = float(result.count_epsilon)
        print(
            f"\n== DiffGen tree: eps = {args.epsilon:g}, h = {h}: {tree.parents.size} nodes, {tree.leaves.size} "
            f"leaves, L = {tree.path_length}; count budget eps_c = {eps_c:.4f} ==",
            flush=True,
        )
        for name in ("boxes", "nodes"):
            rng = np.random.default_rng(args.seed + 1)
            wl = (
                random_boxes(domain, args.queries, rng, attributes=(1, 3), n_classes=len(result.classes))
                if name == "boxes"
                else node_workload(result, domain, args.queries, rng)
            )
            res = error_by_query_size(domain, tree, eps_c, wl, runs=args.mc_runs, seed=args.seed, methods=ALL_METHODS)
            print(
                f"\n-- workload: {args.queries} random {'boxes over the taxonomies' if name == 'boxes' else 'tree nodes'}"
            )
            print(format_table(res))
            ov = res.overall()
            print(
                f"# overall MSE ratio leaf-only / least squares = {ov['leaf-only'] / ov['consistent (least squares)']:.2f}"
            )
            print(
                f"# overall MSE ratio leaf-only / optimized levels = "
                f"{ov['leaf-only'] / ov['consistent (optimized levels)']:.2f}"
            )
            if name == "nodes":
                print("# node MSE by depth (per node, both classes summed):")
                for m in res.methods:
                    print(f"#   {m:<28} " + " ".join(f"{v:9.3g}" for v in res.per_depth[m]))
            print(f"# {time.perf_counter() - t0:.0f} s", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
