"""Empirical privacy audit of issue 8's four leaks, end to end through the CLI writers (in-process
``dpstudio release`` / ``dpstudio histogram``, secure noise, epsilon 1).

For each scenario (tests/release_audit.py): the issue's distinguishing event, n runs on D and on D' = D + one
record, and the Clopper-Pearson lower bound on ln(P_D'(E) / P_D(E)) at alpha = 1e-3 per one-sided bound.
Run it on this checkout, and on the code before the fix with ``--code``:

    .venv/bin/python benchmarks/audit_issue8.py                       # after (this checkout)
    git archive fc3f713 | tar -x -C /tmp/old
    .venv/bin/python benchmarks/audit_issue8.py --code /tmp/old       # before (the same scenarios)

``--runs N`` sets n for the split-point scenarios (the other leaks are deterministic: ``--runs-fixed``).
Prints one line per scenario and the median wall time of one CLI run.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--code", type=Path, default=None, help="a checkout whose dpstudio to audit (default: this one)")
    ap.add_argument("--runs", type=int, default=2000, help="runs per input, split-point scenarios")
    ap.add_argument("--runs-fixed", type=int, default=1000, help="runs per input, the deterministic leaks")
    ap.add_argument("--only", default=None, help="run only scenarios whose name contains this text")
    args = ap.parse_args()
    sys.path.insert(0, str(ROOT))
    from tests import release_audit as ra  # imports dpstudio only when a run starts

    if args.code is not None:
        sys.path.insert(0, str(args.code.resolve()))
    os.environ["DPSTUDIO_BUDGET_STORE"] = "none"
    import dpstudio

    before = args.code is not None
    print(f"dpstudio from {Path(dpstudio.__file__).parent}; alpha {ra.ALPHA} per one-sided bound")
    if before:  # the pre-fix code decides the kind from the values: x and age are not declared
        plan = [
            (ra.split_bits(None), args.runs),
            (ra.new_class("diffgen-consistent"), args.runs_fixed),
            (ra.fractional_age("diffgen", None), args.runs_fixed),
            (ra.fractional_age("maxgddp", None), args.runs_fixed),
            (ra.dropped_rows_release(), args.runs_fixed),
            (ra.dropped_rows_histogram(), args.runs_fixed),
        ]
    else:
        plan = [
            (ra.split_bits("continuous"), args.runs),
            (ra.split_bits("continuous:0.01", "diffgen-consistent"), args.runs),
            (ra.new_class("diffgen-consistent"), 20),
            (ra.new_class("maxgddp", "A,B,C"), args.runs_fixed),
            (ra.fractional_age("diffgen", None), 20),
            (ra.fractional_age("maxgddp", None), 20),
            (ra.fractional_age("diffgen", "continuous"), args.runs_fixed),
            (ra.dropped_rows_release("diffgen"), args.runs_fixed),
            (ra.dropped_rows_histogram("luedp"), args.runs_fixed),
        ]
    times = []
    with tempfile.TemporaryDirectory(prefix="audit-issue8-") as tmp:
        for i, (sc, n) in enumerate(plan):
            if args.only and args.only not in sc.name:
                continue
            t0 = time.perf_counter()
            res = ra.audit(sc, Path(tmp) / str(i), n)
            times.append((time.perf_counter() - t0) / (2 * n))
            print(
                f"{res.line()}\n    event: {sc.event_text}\n    dpstudio "
                f"{' '.join(ra.argv_for(sc, Path('data.csv'), Path('out.csv')))}",
                flush=True,
            )
    if times:
        print(f"median wall time of one CLI run: {statistics.median(times) * 1000:.0f} ms")
    return 0


if __name__ == "__main__":
    sys.exit(main())
