"""Speed of the DiffGen-family engine on Adult (30,162 training rows) and on Adult resampled to 1,000,000 rows.

    .venv/bin/python benchmarks/bench_diffgen_speed.py [--runs 3] [--steps 16] [--big | --big-only] [--secure]
        [--algorithms diffgen,diffgen-consistent,maxgddp] [--attributes all|categorical|paper8]

Loading and coding are excluded from the timed figure (reported separately). Each timed run is the engine
(headless: per_node_events=False) from the coded table to the result, counts noised, consistency done.
Prints the median of --runs runs, the peak resident memory (ru_maxrss), the number of leaf partitions and
tree nodes, and a per-phase breakdown of one run (cProfile, cumulative seconds) to show where time goes.
``--secure`` uses OpenDP noise (a real release; about 10 us per noisy count), otherwise seeded numpy noise.
Uses ../shared/data/adult and dpstudio/resources/taxonomies/adult (taxonomies + bounds.json).
"""

from __future__ import annotations

import argparse
import cProfile
import json
import pstats
import resource
import statistics
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from dpstudio.algorithms.diffgen import preset, run_to_result  # noqa: E402
from dpstudio.core.budget import Ledger  # noqa: E402
from dpstudio.core.noise import SecureNoise, SimulationNoise  # noqa: E402
from dpstudio.io.adult import load_adult  # noqa: E402
from dpstudio.io.encoding import encode_table  # noqa: E402
from dpstudio.io.taxonomy_formats import read_taxonomy  # noqa: E402

TAX_DIR = ROOT / "dpstudio" / "resources" / "taxonomies" / "adult"
DATA_DIR = ROOT.parent / "shared" / "data" / "adult"


def domains(which: str):
    cats = sorted(p.stem for p in TAX_DIR.glob("*.csv"))
    bounds = {k: tuple(v) for k, v in json.loads((TAX_DIR / "bounds.json").read_text()).items()}
    if which == "categorical":
        bounds = {}
    elif which == "paper8":  # a smaller schema: 5 categorical + 3 numeric
        cats = [c for c in cats if c in ("workclass", "education", "marital-status", "occupation", "sex")]
        bounds = {k: bounds[k] for k in ("age", "education-num", "hours-per-week")}
    taxonomies = {c: read_taxonomy(TAX_DIR / f"{c}.csv", attribute=c) for c in cats}
    return taxonomies, bounds


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--steps", type=int, default=16)
    ap.add_argument("--epsilon", default="1")
    ap.add_argument("--big", action="store_true", help="also Adult resampled to 1,000,000 rows")
    ap.add_argument("--big-only", action="store_true", help="only the 1,000,000-row table (memory figure)")
    ap.add_argument("--secure", action="store_true")
    ap.add_argument("--algorithms", default="diffgen-consistent")
    ap.add_argument("--attributes", default="all", choices=("all", "categorical", "paper8"))
    a = ap.parse_args()

    t0 = time.perf_counter()
    train, _ = load_adult(DATA_DIR)
    taxonomies, bounds = domains(a.attributes)
    t_load = time.perf_counter() - t0
    sizes = [] if a.big_only else [("adult", train)]
    if a.big or a.big_only:
        rng = np.random.default_rng(0)
        sizes.append(("adult x 1M", train.iloc[rng.integers(0, len(train), 1_000_000)].reset_index(drop=True)))
    print(
        f"load {t_load:.2f} s; attributes: {len(taxonomies)} categorical, {len(bounds)} numeric; "
        f"h = {a.steps}, eps = {a.epsilon}, noise = {'secure (OpenDP)' if a.secure else 'simulation'}"
    )
    for name, frame in sizes:
        t0 = time.perf_counter()
        data = encode_table(frame, "Y", taxonomies, bounds)
        t_enc = time.perf_counter() - t0
        for alg in a.algorithms.split(","):
            params = preset(alg, a.epsilon, a.steps)
            times, cpu = [], []
            for r in range(a.runs):
                noise = SecureNoise() if a.secure else SimulationNoise(r)
                t0, c0 = time.perf_counter(), time.process_time()
                result = run_to_result(data, params, noise, Ledger(a.epsilon))
                times.append(time.perf_counter() - t0)
                cpu.append(time.process_time() - c0)
            prof = cProfile.Profile()
            prof.enable()
            run_to_result(data, params, SecureNoise() if a.secure else SimulationNoise(99), Ledger(a.epsilon))
            prof.disable()
            stats = pstats.Stats(prof)
            phases = {}
            for (_, _, func), row in stats.stats.items():
                if func in (
                    "candidates",
                    "specialize",
                    "_release_counts",
                    "laplace_counts",
                    "least_squares",
                    "least_squares_variances",
                    "label_matrix",
                    "choose_split",
                    "_released_cut",
                ):
                    phases[func] = phases.get(func, 0.0) + row[3]
            rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
            print(
                f"{name:11s} {len(frame):>9,d} rows  {alg:19s} median {statistics.median(times):6.2f} s "
                f"(runs {', '.join(f'{t:.2f}' for t in times)}; CPU median {statistics.median(cpu):.2f} s); "
                f"encode {t_enc:.2f} s; "
                f"{result.leaf_values.shape[0]:,d} leaves, {result.tree.parents.size:,d} tree nodes; "
                f"peak RSS {rss:,.0f} MB"
            )
            print(
                "    profile (cumulative s): "
                + ", ".join(f"{k} {v:.2f}" for k, v in sorted(phases.items(), key=lambda kv: -kv[1]))
            )


if __name__ == "__main__":
    main()
