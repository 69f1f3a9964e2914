"""Monte-Carlo bands of the Compare panel on the default Adult settings (issue 35): DiffGen with
consistency, h = 10, on the bundled Adult sample; 30 runs on the run's fixed tree, both views:

- release mode: ``comparison.diffgen_noise_only`` (the noise alone on the released tree shape);
- teaching mode: ``comparison.diffgen_error_by_size`` (the true partition tree plus the run's noise).

Wall time of each, median of ``--repeat`` (the first call also imports and warms caches: reported apart).

    .venv/bin/python benchmarks/bench_mc_bands.py [--runs 30] [--steps 10] [--repeat 5]
"""

from __future__ import annotations

import argparse
import os
import statistics
import time

from dpstudio.model.compare import comparison as cmp
from dpstudio.model.project import data as d
from dpstudio.model.project.project import Project
from dpstudio.model.release.runs import encode_table, make_job
from dpstudio.model.release.snapshot import snapshot_of


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=30)
    ap.add_argument("--steps", type=int, default=10)
    ap.add_argument("--repeat", type=int, default=5)
    a = ap.parse_args()
    p = Project()
    d.adopt_bundled_sample(p, d.load_bundled_sample(), d.bundled_sample_path())
    p.set_algorithm("diffgen_consistency", {"steps": a.steps})
    p.set_mode("teaching")
    job, setup = make_job(p, answer=None)
    p.record_run(list(job()), setup.ledger, setup.teaching, snapshot=snapshot_of(p))
    r = p.result
    dom = cmp.public_domain(r, p.taxonomies)
    data = encode_table(p, None)
    print(
        f"{len(r.tree.parents)} nodes, {len(r.leaf_nodes)} leaves; {os.cpu_count()} cores, load {os.getloadavg()[0]:.2f}"
    )
    times: dict[str, list[float]] = {"release (noise only)": [], "teaching (error by size)": []}
    for rep in range(a.repeat + 1):
        t = time.perf_counter()
        cmp.diffgen_noise_only(r, dom, runs=a.runs, seed=rep)
        t1 = time.perf_counter() - t
        t = time.perf_counter()
        cmp.diffgen_error_by_size(
            data, r, float(r.count_epsilon), runs=a.runs, seed=rep, domain=dom, size="domain", edges=cmp.DOMAIN_EDGES
        )
        t2 = time.perf_counter() - t
        if rep == 0:
            print(f"first call (imports, caches): {t1:.2f} s and {t2:.2f} s")
            continue
        times["release (noise only)"].append(t1)
        times["teaching (error by size)"].append(t2)
    for name, ts in times.items():
        print(
            f"{name}, {a.runs} runs: median {statistics.median(ts):.2f} s (runs: {', '.join(f'{x:.2f}' for x in ts)})"
        )


if __name__ == "__main__":
    main()
