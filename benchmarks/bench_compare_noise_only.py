"""Release-mode Compare panel figures for DiffGen trees: time of ``comparison.diffgen_noise_only``.

    .venv/bin/python benchmarks/bench_compare_noise_only.py            # 12 and 40 steps, 400 queries
    .venv/bin/python benchmarks/bench_compare_noise_only.py --steps 12 --runs 30

A synthetic table (age, hours numeric; work categorical; 2 classes) released by DiffGen with consistency
in teaching mode (simulation noise; only the tree shape and the node scales matter here), then the
noise-only comparison (analytic only, and analytic + Monte-Carlo). Median of ``--repeat`` timings.
"""

from __future__ import annotations

import argparse
import statistics
import time

import numpy as np
import pandas as pd

import dpstudio.core.taxonomy_generators as tg
from dpstudio.model.compare import comparison as cmp
from dpstudio.model.project.project import Project
from dpstudio.model.release.runs import make_job


def release(steps: int, n: int = 20000, seed: int = 0):
    rng = np.random.default_rng(seed)
    df = pd.DataFrame(
        {
            "age": rng.integers(17, 90, n).astype(float),
            "hours": rng.integers(1, 99, n).astype(float),
            "work": rng.choice(list("ABCDEFGH"), n),
            "income": rng.choice(["<=50K", ">50K"], n),
        }
    )
    p = Project()
    p.set_data(df, None, {"age": "numeric", "hours": "numeric", "work": "categorical", "income": "categorical"})
    p.set_bounds("age", 17, 90)
    p.set_bounds("hours", 1, 99)
    p.set_taxonomy("age", tg.numeric_equal_width(17, 90, 2, 4, "age"))
    p.set_taxonomy("hours", tg.numeric_equal_width(1, 99, 2, 4, "hours"))
    p.set_taxonomy("work", tg.flat_categorical(list("ABCDEFGH"), "work"))
    p.set_algorithm("diffgen_consistency", {"steps": steps})
    job, setup = make_job(p)
    events = list(job())
    p.record_run(events, setup.ledger, setup.teaching)
    return p


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--steps", type=int, nargs="*", default=[12, 40])
    ap.add_argument("--runs", type=int, default=10)
    ap.add_argument("--queries", type=int, default=400)
    ap.add_argument("--repeat", type=int, default=3)
    a = ap.parse_args()
    for steps in a.steps:
        p = release(steps)
        r = p.result
        dom = cmp.public_domain(r, p.taxonomies)
        for runs in (0, a.runs):
            ts = []
            for _ in range(a.repeat):
                t = time.perf_counter()
                cmp.diffgen_noise_only(r, dom, runs=runs, queries=a.queries)
                ts.append(time.perf_counter() - t)
            print(
                f"steps {steps}: {r.tree.parents.size} nodes, {len(r.leaf_nodes)} leaves, {a.queries} queries, "
                f"{runs} Monte-Carlo runs: median {statistics.median(ts):.3f} s"
            )


if __name__ == "__main__":
    main()
