"""Time load_table on a 1,000,000-row Adult-like CSV (rows of ../shared/data/adult/adult.data resampled).

    .venv/bin/python benchmarks/bench_dataset_load.py [rows] [repeats]

Prints the file size, the median wall-clock (and all runs) and CPU times of load_table, the same with a
progress callback, and drop_missing. The CSV is written to a temporary folder and deleted afterwards.
"""

from __future__ import annotations

import statistics
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

from dpstudio.io.datasets import load_table

ADULT = Path(__file__).resolve().parent.parent.parent / "shared" / "data" / "adult" / "adult.data"


def write_resampled(out: Path, rows: int, seed: int = 0) -> None:
    lines = ADULT.read_text(encoding="utf-8").splitlines()
    header, body = lines[0], [line for line in lines[1:] if line]
    picks = np.random.default_rng(seed).integers(0, len(body), rows)
    with open(out, "w", encoding="utf-8", newline="\n") as fh:
        fh.write(header + "\n")
        fh.writelines(body[i] + "\n" for i in picks)


def timed(fn, repeats: int) -> tuple[list[float], list[float]]:
    """Wall-clock and CPU seconds of each run (CPU time is the steadier figure on a shared machine)."""
    wall, cpu = [], []
    for _ in range(repeats):
        start, start_cpu = time.perf_counter(), time.process_time()
        fn()
        wall.append(time.perf_counter() - start)
        cpu.append(time.process_time() - start_cpu)
    return wall, cpu


def main(argv: list[str]) -> int:
    rows = int(argv[1]) if len(argv) > 1 else 1_000_000
    repeats = int(argv[2]) if len(argv) > 2 else 3
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "adult_like.csv"
        write_resampled(path, rows)
        size_mb = path.stat().st_size / 1e6
        ds = load_table(path)
        assert ds.frame.shape == (rows, 15), ds.frame.shape
        report = ds.missing_report()
        print(
            f"file: {rows:,} rows x 15 columns, {size_mb:.1f} MB, "
            f"{report.rows_with_missing:,} rows with a missing value"
        )
        cases = {
            "load_table": lambda: load_table(path),
            "load_table + progress callback": lambda: load_table(path, progress=lambda done, total: True),
            "drop_missing (on the loaded table)": lambda: ds.drop_missing(),
        }
        for name, fn in cases.items():
            wall, cpu = timed(fn, repeats)
            runs = ", ".join(f"{t:.2f}" for t in wall)
            print(
                f"{name}: median {statistics.median(wall):.2f} s wall ({runs}), "
                f"{statistics.median(cpu):.2f} s CPU, {repeats} runs"
            )
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
