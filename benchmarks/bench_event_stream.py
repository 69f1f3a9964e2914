"""Events to a private stream at scale: 10,000,000 events of 1,000,000 people over two years of days,
bucketed by day and bounded to one event per person per day through DuckDB (``io.event_stream``).

    .venv/bin/python benchmarks/bench_event_stream.py [--events 10000000] [--people 1000000] [--runs 3]

Writes the events once to a Parquet file in a temporary folder (not timed), then times ``bucket_events``
(median of --runs) and reports the process's peak resident memory. Target (issue 23): under a minute, with
bounded memory. Results in benchmarks/RESULTS.md.
"""

from __future__ import annotations

import argparse
import resource
import statistics
import tempfile
import time
from pathlib import Path

import numpy as np
import pandas as pd


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--events", type=int, default=10_000_000)
    ap.add_argument("--people", type=int, default=1_000_000)
    ap.add_argument("--days", type=int, default=730)
    ap.add_argument("--runs", type=int, default=3)
    args = ap.parse_args()
    from dpstudio.io.event_stream import bucket_events

    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "events.parquet"
        rng = np.random.default_rng(0)
        start = np.datetime64("2023-01-01T00:00:00")
        seconds = rng.integers(0, args.days * 86400, args.events)
        pd.DataFrame(
            {"person": rng.integers(0, args.people, args.events), "when": start + seconds.astype("timedelta64[s]")}
        ).to_parquet(path, index=False)
        rss_before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
        walls = []
        for _ in range(args.runs):
            t0 = time.perf_counter()
            counts, report = bucket_events(path, "person", "when", "day", "2023-01-01", "2025-01-01")
            walls.append(time.perf_counter() - t0)
        peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"{args.events:,} events, {args.people:,} people, {len(counts)} day buckets")
    print(
        f"bucket_events: median {statistics.median(walls):.2f} s over {args.runs} runs ({', '.join(f'{w:.2f}' for w in walls)})"
    )
    print(f"peak RSS: {peak:.0f} MB (before timing, after writing the file: {rss_before:.0f} MB)")
    print(
        f"counted {report.events_counted:,} of {report.events_read:,} (simulated data: figures for the benchmark only)"
    )


if __name__ == "__main__":
    main()
