"""DuckDB out of core: a release (maxgddp, h = 10) of an N-row Adult-shaped Parquet file (rows of
../shared/data/adult/adult.data resampled), wall time and peak memory of the whole CLI process.

    .venv/bin/python benchmarks/bench_engine_scale.py [rows] [repeats] [--tracked] [--keep DIR] [--distinct]

Target (issue 14): 20,000,000 rows, peak <= 4 GB, wall <= 180 s on 2 cores. The file is written once to a
temporary folder (or DIR with --keep, reused when present). ``--tracked`` also runs with a budget store, so
the fingerprint of the whole table is computed by DuckDB too (a tracked run uses secure noise; the
untracked runs use --seed and skip the fingerprint). Each run is a fresh
``dpstudio release`` process; peak = its maximum resident set (ru_maxrss of the child, DuckDB included).
Prints the machine's load average before and after (the machine may be shared).

Resampled Adult rows repeat: a file of any size holds at most 32,561 distinct records, so the fingerprint's
GROUP BY of every column stays small. ``--distinct`` adds a record number to every row (file
``adult_N_distinct.parquet``): every row is distinct, the fingerprint's worst case (DuckDB spills its
aggregate to disk beyond its memory limit).
"""

from __future__ import annotations

import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
ADULT = ROOT.parent / "shared" / "data" / "adult" / "adult.data"
TAX = ROOT / "dpstudio" / "resources" / "taxonomies" / "adult"
CHUNK = 1_000_000


def write_parquet(out: Path, rows: int, seed: int = 0, distinct: bool = False) -> None:
    import pyarrow as pa
    import pyarrow.parquet as pq

    from dpstudio.io.datasets import load_table

    table = pa.Table.from_pandas(load_table(ADULT).frame, preserve_index=False)
    rng = np.random.default_rng(seed)
    tmp = out.with_suffix(".part")
    schema = table.schema.append(pa.field("record", pa.int64())) if distinct else table.schema
    with pq.ParquetWriter(tmp, schema) as writer:
        for start in range(0, rows, CHUNK):
            picks = rng.integers(0, table.num_rows, min(CHUNK, rows - start))
            chunk = table.take(pa.array(picks))
            if distinct:  # a record number: every row distinct (the fingerprint's worst case)
                chunk = chunk.append_column("record", pa.array(np.arange(start, start + len(picks))))
            writer.write_table(chunk.cast(schema) if distinct else chunk, row_group_size=CHUNK)
    tmp.rename(out)


def bench_data(rows: int, keep: str | None, distinct: bool = False) -> tuple[Path, Path]:
    """(folder, file): the ``rows``-row Parquet file in ``keep`` (reused when present) or in a new temporary
    folder, written if missing."""
    folder = Path(keep) if keep else Path(tempfile.mkdtemp(prefix="dpstudio-bench-"))
    folder.mkdir(parents=True, exist_ok=True)
    data = folder / f"adult_{rows}{'_distinct' if distinct else ''}.parquet"
    if not data.exists():
        t = time.perf_counter()
        write_parquet(data, rows, distinct=distinct)
        print(f"wrote {data} ({data.stat().st_size / 1e6:.0f} MB) in {time.perf_counter() - t:.0f} s")
    return folder, data


def remove_unless_kept(folder: Path, keep: str | None) -> None:
    if not keep:
        for f in folder.iterdir():
            f.unlink()
        folder.rmdir()


def release_argv(data: Path, out: Path, store: str) -> list[str]:
    taxonomies = [
        f"--taxonomy={a}={TAX / (a + '.csv')}"
        for a in ("workclass", "education", "marital-status", "occupation", "sex")
    ]
    return [
        sys.executable,
        "-m",
        "dpstudio",
        "release",
        "--data",
        str(data),
        "--class",
        "Y",
        "--classes",
        "<=50K,>50K",
        *taxonomies,
        "--bounds",
        "age=17:91",
        "--bounds",
        "education-num=1:17",
        "--bounds",
        "hours-per-week=1:100",
        "--type",
        "age=integer",
        "--type",
        "education-num=integer",
        "--type",
        "hours-per-week=integer",
        "--algorithm",
        "maxgddp",
        "--epsilon",
        "1",
        "--steps",
        "10",
        *(["--seed", "1"] if store == "none" else []),
        "--out",
        str(out),
        "--overwrite",
        "--budget-store",
        store,
        "--engine",
        "duckdb",
    ]


def one_run(argv: list[str]) -> tuple[float, float]:
    """(wall seconds, peak resident GB) of one child process."""
    code = (
        "import resource, subprocess, sys, time; t = time.perf_counter(); "
        "r = subprocess.run(sys.argv[1:], capture_output=True, text=True); "
        "w = time.perf_counter() - t; "
        "print(w, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss, r.returncode); "
        "sys.stderr.write(r.stderr[-2000:] if r.returncode else '')"
    )
    done = subprocess.run([sys.executable, "-c", code, *argv], capture_output=True, text=True)
    wall, kb, rc = done.stdout.split()
    if rc != "0":
        raise SystemExit(f"the release failed: {done.stderr}")
    return float(wall), int(kb) / 1024 / 1024


def main(argv: list[str]) -> int:
    args = [a for a in argv[1:] if not a.startswith("--")]
    rows = int(args[0]) if args else 20_000_000
    repeats = int(args[1]) if len(args) > 1 else 1
    keep = argv[argv.index("--keep") + 1] if "--keep" in argv else None
    print(f"load average before: {os.getloadavg()}")
    folder, data = bench_data(rows, keep, "--distinct" in argv)
    cases = [("untracked (--budget-store none)", "none")]
    if "--tracked" in argv:
        cases.append(("tracked (fingerprint of the whole table by DuckDB)", str(folder / "store.sqlite")))
    for name, store in cases:
        runs = []
        for _ in range(repeats):
            if store != "none" and Path(store).exists():
                Path(store).unlink()
            runs.append(one_run(release_argv(data, folder / "out.csv", store)))
        walls = [w for w, _ in runs]
        print(
            f"{rows:,} rows, {name}: median wall {statistics.median(walls):.1f} s "
            f"({', '.join(f'{w:.1f}' for w in walls)}), peak {max(m for _, m in runs):.2f} GB, {repeats} run(s)"
        )
    print(f"load average after: {os.getloadavg()}")
    remove_unless_kept(folder, keep)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
