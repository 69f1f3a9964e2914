"""Syntactic anonymization speed (SYNTACTIC.md targets): the optimal search over the 9 columns of ARX Adult
(K9.6, k=5, 4 % suppression, entropy), Incognito over the 8-attribute lattice (K9.5, k=2), and Mondrian
strict/relaxed (k=10) on 1,000,000 rows resampled from Adult's numeric QIs. Median of REPEATS runs.

    .venv/bin/python benchmarks/bench_syntactic.py [REPEATS]
"""

import os
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd

from dpstudio.algorithms import fulldomain as fd
from dpstudio.algorithms.mondrian import run_mondrian
from dpstudio.io.anonymize import encode
from dpstudio.io.taxonomy_formats import read_taxonomy

SHARED = Path(__file__).resolve().parents[1].parent / "shared" / "data"


def median_time(fn, repeats):
    times = []
    for _ in range(repeats):
        t = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t)
    return float(np.median(times))


def main(repeats=3):
    arx = SHARED / "arx"
    frame = pd.read_csv(arx / "adult.csv", sep=";", dtype=str)
    cols = list(frame.columns)
    taxes = {c: read_taxonomy(arx / f"adult_hierarchy_{c}.csv", attribute=c) for c in cols}
    print(f"load average {os.getloadavg()[0]:.1f}; median of {repeats}")
    nine = fd.Problem(encode(frame, cols, taxes)[0], 5, 0.04, (), "entropy")
    print(
        f"optimal, 9 columns (12,960 nodes): {median_time(lambda: fd.run_to_result(fd.run_optimal(nine)), repeats):.2f} s"
    )
    eight = ["age", "education", "marital-status", "native-country", "occupation", "race", "sex", "workclass"]
    p8 = fd.Problem(encode(frame, eight, taxes)[0], 2, 0.0, (), "dm")
    print(
        f"incognito, 8 attributes (6,480 nodes): {median_time(lambda: fd.run_to_result(fd.run_incognito(p8)), repeats):.2f} s"
    )
    adult = pd.read_csv(SHARED / "adult" / "adult.data", skipinitialspace=True, na_values="?").dropna()
    x = adult[["age", "education-num", "hours-per-week"]].to_numpy(float)
    big = x[np.random.default_rng(0).integers(0, len(x), size=1_000_000)]
    for mode in ("strict", "relaxed"):
        t = median_time(lambda: fd.run_to_result(run_mondrian(big, 10, mode)), repeats)
        print(f"mondrian-{mode}, 1,000,000 rows, k=10: {t:.2f} s")


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 3)
