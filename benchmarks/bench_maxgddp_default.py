"""Issue 11: MAXGDDP without --steps (automatic h, default split grids) on the Adult protocol.

    .venv/bin/python benchmarks/bench_maxgddp_default.py                       # secure noise, 10 runs
    .venv/bin/python benchmarks/bench_maxgddp_default.py --runs 3 --epsilons 0.1,1 --grids log

Per epsilon and setting ("log": today's default, the 1-2-5 grid for bounds spanning three decades and
the automatic h; "equal": 16 equal-width bins everywhere with the same h; "before": the default until
issue 11's last change, equal-width bins and h = round(6 - 3 log10 eps) clamped to 6..12), the h used, the
mean, standard deviation, least and largest test accuracy (train on the release, test on adult.test
generalized by the released cut) and the median time of the MAXGDDP run itself (the engine on the 30,162
training records, noise included; the decision tree and the test set are not timed). Secure noise
(OpenDP): evaluation runs, not releases.
"""

from __future__ import annotations

import argparse
import math
import os
import platform
import statistics
import time
from pathlib import Path

from dpstudio.algorithms.diffgen import preset, run_to_result
from dpstudio.algorithms.diffgen_auto import automatic_steps
from dpstudio.core.budget import Ledger
from dpstudio.core.noise import SecureNoise
from dpstudio.evaluation.classification import release_accuracy
from dpstudio.evaluation.sweeps import adult_setup
from dpstudio.io.release import release_frame

ROOT = Path(__file__).resolve().parent.parent


def one(setup, eps, h, grid):
    params = preset("maxgddp", eps, h, numeric_grid="log" if grid == "log" else "equal")
    t0 = time.perf_counter()
    result = run_to_result(setup.data, params, SecureNoise(), Ledger(eps))
    seconds = time.perf_counter() - t0
    acc = release_accuracy(release_frame(result), result.cut, setup.test, result.class_name).accuracy
    return acc, seconds, len(result.leaf_nodes)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data-dir", default=str(ROOT.parent / "shared" / "data" / "adult"))
    ap.add_argument("--runs", type=int, default=10)
    ap.add_argument("--epsilons", default="0.1,0.25,0.5,1")
    ap.add_argument("--grids", default="log,equal,before", help="comma list of log, equal, before")
    ap.add_argument("--steps", type=int, default=None, help="a fixed h instead of the automatic one")
    args = ap.parse_args(argv)
    setup = adult_setup(args.data_dir)
    print(
        f"# secure noise (OpenDP), {args.runs} runs per row; {platform.machine()}, {os.cpu_count()} cores, "
        f"load average {os.getloadavg()[0]:.1f}"
    )
    print("| grid | eps | h | mean accuracy % | sd | min / max % | MAXGDDP run, median s | leaf partitions (median) |")
    print("|---|---|---|---|---|---|---|---|")
    for grid in args.grids.split(","):
        for eps in (float(e) for e in args.epsilons.split(",")):
            if args.steps is not None:
                h = args.steps
            elif grid == "before":
                h = min(12, max(6, round(6 - 3 * math.log10(eps))))
            else:
                h = automatic_steps("maxgddp", eps)[0]
            rows = [one(setup, eps, h, grid) for _ in range(args.runs)]
            accs = [100 * a for a, _, _ in rows]
            sd = statistics.stdev(accs) if len(accs) > 1 else 0.0
            print(
                f"| {grid} | {eps:g} | {h} | {statistics.mean(accs):.2f} | {sd:.2f} | {min(accs):.2f} / "
                f"{max(accs):.2f} | {statistics.median(s for _, s, _ in rows):.2f} | "
                f"{statistics.median(n for _, _, n in rows):.0f} |",
                flush=True,
            )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
