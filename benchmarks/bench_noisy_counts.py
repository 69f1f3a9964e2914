"""Secure noisy counts (OpenDP's exact discrete Laplace): cost per count, batching and processes.

    .venv/bin/python benchmarks/bench_noisy_counts.py [--n 1000000] [--runs 3] [--variant-n 100000]

Times ``dpstudio.core.mechanisms.noisy_counts`` (SecureNoise) on --n counts (median of --runs), then, on
--variant-n counts: one OpenDP call on the whole vector against chunks of several sizes, and the whole
vector split across 2 worker processes (each builds its own OpenDP measurement; the pool start-up is
timed separately). Every variant is the same exact sampler: nothing here trades exactness for speed.
SimulationNoise (numpy, not for releases) is timed for scale. Wall and process-CPU times are printed;
the machine may be shared, so look at both.
"""

from __future__ import annotations

import argparse
import statistics
import time
from concurrent.futures import ProcessPoolExecutor

import numpy as np

from dpstudio.core.mechanisms import noisy_counts
from dpstudio.core.noise import SecureNoise, SimulationNoise

EPS = 1.0


def timed(fn, runs):
    wall, cpu = [], []
    for _ in range(runs):
        t, c = time.perf_counter(), time.process_time()
        fn()
        wall.append(time.perf_counter() - t)
        cpu.append(time.process_time() - c)
    return statistics.median(wall), statistics.median(cpu)


def chunked(counts, size):
    noise = SecureNoise()
    return np.concatenate([noise.laplace_counts(counts[i : i + size], 1.0 / EPS) for i in range(0, counts.size, size)])


def _worker(part):
    return noisy_counts(part, EPS)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=1_000_000)
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--variant-n", type=int, default=100_000)
    args = ap.parse_args(argv)
    rng = np.random.default_rng(0)

    counts = rng.integers(0, 1000, args.n)
    noisy_counts(counts[:10], EPS)  # import OpenDP and build a measurement once
    wall, cpu = timed(lambda: noisy_counts(counts, EPS), args.runs)
    print(
        f"noisy_counts, {args.n:,} counts, eps {EPS}, median of {args.runs}: "
        f"{wall:.2f} s wall, {cpu:.2f} s CPU = {wall / args.n * 1e6:.1f} us a count (wall)"
    )
    sim = SimulationNoise(0)
    swall, _ = timed(lambda: sim.laplace_counts(counts, 1.0 / EPS), args.runs)
    print(f"SimulationNoise (numpy, NOT for releases), same counts: {swall:.3f} s")

    m = args.variant_n
    part = counts[:m]
    print(f"variants on {m:,} counts (median of {args.runs}):")
    base_wall, base_cpu = timed(lambda: noisy_counts(part, EPS), args.runs)
    print(f"  one call on the whole vector    {base_wall:6.2f} s wall  {base_cpu:6.2f} s CPU")
    for size in (1_000, 10_000, 100_000):
        w, c = timed(lambda: chunked(part, size), args.runs)
        print(f"  chunks of {size:>7,}              {w:6.2f} s wall  {c:6.2f} s CPU")
    t = time.perf_counter()
    with ProcessPoolExecutor(2) as pool:
        list(pool.map(_worker, [part[:10], part[10:20]]))  # start the workers and import OpenDP there
        startup = time.perf_counter() - t
        halves = [part[: m // 2], part[m // 2 :]]
        w, c = timed(lambda: np.concatenate(list(pool.map(_worker, halves))), args.runs)
    print(f"  2 processes (halves)            {w:6.2f} s wall  (pool start-up {startup:.2f} s, parent CPU {c:.2f} s)")


if __name__ == "__main__":
    main()
