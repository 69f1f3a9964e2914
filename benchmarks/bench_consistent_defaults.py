"""Issue 11 (first half): the new defaults of diffgen-consistent and the automatic h, on the Adult protocol.

    .venv/bin/python benchmarks/bench_consistent_defaults.py            # secure noise, mean of 3 runs
    .venv/bin/python benchmarks/bench_consistent_defaults.py --runs 5 --epsilons 0.1,1

Prints, per setting, the test accuracy (train on the release, test on adult.test generalized by the
released cut) and the exported total as a fraction of the number of training records (the benchmark
knows it; no release is written). Settings: maxgddp and diffgen-consistent with h chosen automatically
(no --steps), and diffgen-consistent over the eps x h grid of issue 11 (h 4, 10, 13, 16) with its defaults
(per-level budgets for the released tree's shape, projection + largest-remainder rounding) and with the old
ones (uniform L/eps_c, rounding then clamping) for comparison. Secure noise (OpenDP): evaluation runs, not
releases.
"""

from __future__ import annotations

import argparse
import os
import statistics
import time
from pathlib import Path

from dpstudio.algorithms.diffgen_auto import automatic_steps
from dpstudio.core.noise import SecureNoise
from dpstudio.evaluation.sweeps import adult_setup, one_run

ROOT = Path(__file__).resolve().parent.parent
OLD = {"node_budget": "uniform", "tree_projection": False}


def measure(setup, algorithm, eps, h, runs, **overrides):
    accs, totals, secs = [], [], []
    for _ in range(runs):
        t0 = time.perf_counter()
        acc, result = one_run(setup, algorithm, eps, h, SecureNoise(), **overrides)
        secs.append(time.perf_counter() - t0)
        accs.append(acc)
        totals.append(float(result.counts.sum()) / setup.data.n_records)
    return statistics.mean(accs), accs, statistics.mean(totals), totals, statistics.median(secs)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data-dir", default=str(ROOT.parent / "shared" / "data" / "adult"))
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--epsilons", default="0.1,0.25,1")
    ap.add_argument("--steps", default="4,10,13,16")
    ap.add_argument("--no-old", action="store_true", help="skip the old defaults of diffgen-consistent")
    ap.add_argument(
        "--leaf-only",
        action="store_true",
        help="only maxgddp and diffgen (automatic h, and diffgen at --steps): the leaf projection "
        "(default) against the old clamping",
    )
    args = ap.parse_args(argv)
    epsilons = [float(e) for e in args.epsilons.split(",")]
    steps = [int(h) for h in args.steps.split(",")]
    setup = adult_setup(args.data_dir)
    print(f"# secure noise (OpenDP), mean of {args.runs}; load average {os.getloadavg()[0]:.1f}")
    print("| setting | eps | h | accuracy % | runs | exported total / records | median s |")
    print("|---|---|---|---|---|---|---|")

    def row(name, eps, h, **ov):
        m, accs, t, totals, sec = measure(setup, name.split(" ")[0], eps, h, args.runs, **ov)
        print(
            f"| {name} | {eps:g} | {h} | {100 * m:.2f} | {' / '.join(f'{100 * a:.2f}' for a in accs)} | "
            f"{t:.3f} ({' / '.join(f'{x:.3f}' for x in totals)}) | {sec:.2f} |",
            flush=True,
        )

    if args.leaf_only:
        for eps in epsilons:
            for alg, h in [("maxgddp", automatic_steps("maxgddp", eps)[0])] + [("diffgen", h) for h in steps]:
                row(alg, eps, h)
                row(f"{alg} (old: clamp)", eps, h, tree_projection=False)
        return 0
    for alg in ("maxgddp", "diffgen-consistent"):
        for eps in epsilons:
            row(f"{alg} (automatic h)", eps, automatic_steps(alg, eps)[0])
    for eps in epsilons:
        for h in steps:
            row("diffgen-consistent", eps, h)
            if not args.no_old:
                row("diffgen-consistent (old: uniform, clamp)", eps, h, **OLD)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
