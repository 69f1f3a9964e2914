"""Time Taxonomy.map_values on 1,000,000 values (median of 5 runs), categorical and numeric.

Run: .venv/bin/python benchmarks/bench_taxonomy_mapping.py [n]
Target (issue "Foundation", item 3): under 0.5 s per million values.
"""

from __future__ import annotations

import statistics
import sys
import time

import numpy as np

from dpstudio.core.taxonomy_generators import numeric_equal_width
from dpstudio.io.taxonomy_formats import read_taxonomy
from dpstudio.resources import resource

RUNS = 5


def median_seconds(fn) -> float:
    times = []
    for _ in range(RUNS):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return statistics.median(times)


def main(n: int = 1_000_000) -> None:
    rng = np.random.default_rng(0)
    country = read_taxonomy(resource("taxonomies", "adult", "native-country.csv"))
    leaves = np.array([country.labels[i] for i in country.leaves])
    values_u = np.append(leaves[rng.integers(0, len(leaves), n - 3)], ["Atlantis", "?", "Atlantis"])
    values_obj = values_u.astype(object)
    values_list = values_u.tolist()

    age_tree = numeric_equal_width(17, 91, fanout=2, depth=6, attribute="age")  # 64 leaves
    fine_tree = numeric_equal_width(0, 1, fanout=4, depth=7)  # 16,384 leaves
    ages = rng.uniform(10, 95, n)
    unit = rng.random(n)
    age_ints = rng.integers(17, 91, n)

    cases = [
        ("categorical, 41 leaves, numpy str array", lambda: country.map_values(values_u)),
        ("categorical, 41 leaves, numpy object array", lambda: country.map_values(values_obj)),
        ("categorical, 41 leaves, Python list", lambda: country.map_values(values_list)),
        ("numeric, 64 leaves, float array (~12% uncovered)", lambda: age_tree.map_values(ages)),
        ("numeric, 16384 leaves, float array", lambda: fine_tree.map_values(unit)),
        ("numeric, 64 leaves, int array", lambda: age_tree.map_values(age_ints)),
    ]
    print(f"Taxonomy.map_values on {n:,} values, median of {RUNS} runs")
    for name, fn in cases:
        result = fn()
        assert len(result.leaf_ids) == n
        print(f"  {name:52s} {median_seconds(fn):7.3f} s   ({result.n_uncovered:,} uncovered)")


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 1_000_000)
