"""The studio on a large file read through DuckDB (issue 14): opening it (every column's counts, the preview,
the SHA-256 and the budget store's fingerprint) and a MAXGDDP run (h = 10) from a project, as the studio
does them (``model.data.load_dataset`` with the engine, then ``model.runs.make_job``), in a fresh process:
wall time of each step and the process's peak resident memory (DuckDB included).

    .venv/bin/python benchmarks/bench_studio_engine.py [rows] [repeats] [--keep DIR] [--numpy]

The file is the Adult-shaped Parquet of bench_engine_scale.py (rows of adult.data resampled), written once.
``--numpy`` opens the same file into memory instead (the anchor: what the studio did before).
"""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_engine_scale import bench_data, remove_unless_kept  # noqa: E402

CHILD = r"""
import json, os, resource, sys, time
os.environ["DPSTUDIO_STUDIO_ENGINE"] = sys.argv[2]
os.environ["DPSTUDIO_BUDGET_STORE"] = sys.argv[3]
from dpstudio.model.project.data import declare_bundled_sample, load_dataset
from dpstudio.model.project.project import Project
from dpstudio.model.release.runs import make_job
t = time.perf_counter()
dataset = load_dataset(sys.argv[1])
opened = time.perf_counter() - t
p = Project()
p.set_data(dataset, sys.argv[1])
declare_bundled_sample(p)
for a, (lo, hi) in {"age": (17, 91), "education-num": (1, 17), "hours-per-week": (1, 100)}.items():
    p.set_bounds(a, lo, hi)
for a in ("fnlwgt", "capital-gain", "capital-loss", "native-country", "relationship", "race"):
    p.set_role(a, "ignore")
p.set_algorithm("maxgddp", {"steps": 10})
p.set_epsilon(1.0)
t = time.perf_counter()
job, setup = make_job(p)
events = list(job())
ran = time.perf_counter() - t
print(json.dumps({"open": opened, "run": ran, "events": len(events),
                  "peak_gb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024 / 1024}))
"""


def one(data: Path, engine: str, store: str) -> dict:
    done = subprocess.run([sys.executable, "-c", CHILD, str(data), engine, store], capture_output=True, text=True)
    if done.returncode:
        raise SystemExit(f"the run failed: {done.stderr[-3000:]}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def main(argv: list[str]) -> int:
    args = [
        a
        for a in argv[1:]
        if not a.startswith("--") and not (argv.index(a) > 0 and argv[argv.index(a) - 1] == "--keep")
    ]
    rows = int(args[0]) if args else 5_000_000
    repeats = int(args[1]) if len(args) > 1 else 3
    keep = argv[argv.index("--keep") + 1] if "--keep" in argv else None
    engine = "numpy" if "--numpy" in argv else "duckdb"
    print(f"load average before: {os.getloadavg()}")
    folder, data = bench_data(rows, keep)
    runs = []
    for _ in range(repeats):
        store = folder / "store.sqlite"
        if store.exists():
            store.unlink()
        runs.append(one(data, engine, str(store)))
    med = {k: statistics.median(r[k] for r in runs) for k in ("open", "run", "peak_gb")}
    print(
        f"{rows:,} rows, studio on {engine}: open {med['open']:.1f} s, run {med['run']:.1f} s, peak "
        f"{max(r['peak_gb'] for r in runs):.2f} GB (medians of {repeats}; opens "
        f"{', '.join(format(r['open'], '.1f') for r in runs)})"
    )
    print(f"load average after: {os.getloadavg()}")
    remove_unless_kept(folder, keep)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
