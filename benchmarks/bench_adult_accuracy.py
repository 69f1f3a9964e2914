"""Classification accuracy on Adult (ALGORITHMS.md 9): the DiffGen family against the published figures.

    .venv/bin/python benchmarks/bench_adult_accuracy.py                   # headline figures, 10 runs each
    .venv/bin/python benchmarks/bench_adult_accuracy.py --grid            # + eps x h grid, all three presets
    .venv/bin/python benchmarks/bench_adult_accuracy.py --grid --runs 3   # a quicker look

Headline: eps = 1, mean of 10 runs: MAXGDDP at h = 10 and 13 (paper: 83.72 % at h = 13; target >= 83.5 %),
DiffGen with the Max score at h = 10 (target >= 82 %), DiffGen with consistency at h = 10.
Every run is appended to a JSON-lines results file (default: $TMPDIR/dpstudio-bench/adult_accuracy.jsonl),
so an interrupted benchmark resumes, and two processes may share the file (each claims a run first).
Simulation noise (seeded numpy): evaluation of the algorithms, not a release.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

from dpstudio.evaluation.sweeps import EPSILONS, SIMULATION_NOTE, STEPS, adult_setup, summarize, sweep

ROOT = Path(__file__).resolve().parent.parent
HEADLINE = [  # (algorithm, eps, h, published, target)
    ("maxgddp", 1.0, 13, 0.8372, 0.835),
    ("maxgddp", 1.0, 10, None, 0.835),
    ("diffgen", 1.0, 10, None, 0.82),
    ("diffgen-consistent", 1.0, 10, None, None),
]


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data-dir", default=str(ROOT.parent / "shared" / "data" / "adult"))
    ap.add_argument("--taxonomies", default=None, help="taxonomy folder (default: bundled Adult taxonomies)")
    ap.add_argument("--runs", type=int, default=10)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--grid", action="store_true", help="also the eps x h grid for all three presets")
    ap.add_argument("--algorithms", default="maxgddp,diffgen,diffgen-consistent")
    ap.add_argument("--results", default=str(Path(tempfile.gettempdir()) / "dpstudio-bench" / "adult_accuracy.jsonl"))
    args = ap.parse_args(argv)
    Path(args.results).parent.mkdir(parents=True, exist_ok=True)

    t0 = time.perf_counter()
    setup = adult_setup(args.data_dir, args.taxonomies)
    base = setup.baselines()
    print(f"# {SIMULATION_NOTE}")
    print(
        f"# Adult {len(setup.train)} train / {len(setup.test)} test; attributes: "
        + ", ".join(f"{a.name}({a.kind[0]})" for a in setup.data.attributes)
    )
    print(
        f"# majority {100 * base['majority']:.2f} % (published 75.43 %), raw entropy tree {100 * base['raw']:.2f} % "
        f"(published 85.3 %)"
    )
    print(f"# results file: {args.results}", flush=True)

    def progress(line):
        print(f"  {time.perf_counter() - t0:7.0f}s {line}", flush=True)

    print("\n== headline (eps = 1) ==", flush=True)
    rows = []
    for alg, eps, h, published, target in HEADLINE:
        recs = sweep(setup, [alg], [eps], [h], args.runs, seed=args.seed, results=args.results, progress=progress)
        accs = [r["accuracy"] for r in recs]
        rows.append((alg, eps, h, accs, published, target))
    print(
        f"{'algorithm':<20} {'eps':>4} {'h':>3} {'runs':>4} {'mean %':>7} {'median %':>8} {'std':>5} "
        f"{'published':>9} {'target':>7}  verdict"
    )
    for alg, eps, h, accs, published, target in rows:
        mean = statistics.fmean(accs)
        verdict = "" if target is None else ("met" if mean >= target else "NOT met")
        print(
            f"{alg:<20} {eps:>4g} {h:>3} {len(accs):>4} {100 * mean:>7.2f} {100 * statistics.median(accs):>8.2f} "
            f"{100 * (statistics.stdev(accs) if len(accs) > 1 else 0):>5.2f} "
            f"{'' if published is None else f'{100 * published:.2f}':>9} "
            f"{'' if target is None else f'>={100 * target:.1f}':>7}  {verdict}",
            flush=True,
        )

    if args.grid:
        algs = [a.strip() for a in args.algorithms.split(",") if a.strip()]
        print(f"\n== grid: eps in {list(EPSILONS)} x h in {list(STEPS)}, {args.runs} runs ==", flush=True)
        recs = sweep(setup, algs, EPSILONS, STEPS, args.runs, seed=args.seed, results=args.results, progress=progress)
        summary = {(r["algorithm"], r["epsilon"], r["steps"]): r for r in summarize(recs)}
        for alg in algs:
            print(f"\n{alg}: mean accuracy % (std) over runs")
            print(f"{'eps':>6} " + " ".join(f"{'h=' + str(h):>14}" for h in STEPS))
            for e in EPSILONS:
                cells = []
                for h in STEPS:
                    s = summary.get((alg, e, h))
                    cells.append(f"{100 * s['mean']:6.2f} ({100 * s['std']:4.2f})" if s else f"{'-':>14}")
                print(f"{e:>6g} " + " ".join(f"{c:>14}" for c in cells), flush=True)
    print(f"\n# total {time.perf_counter() - t0:.0f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
