"""ASM-DP's fixed-budget variant at n/T = 0.2 on ILINet national (issue 23): the workload error (mean over
windows of the window's squared error) and the MAE of ``bench_stream.evaluate``, 20 simulated runs, eps 1,
w = 200, NoiseFirst grouping. The argument is the checkout to measure (its dpstudio and benchmarks), so a
commit before and after a change can be compared (``git worktree add /tmp/old REV``).

    .venv/bin/python benchmarks/bench_asm_fixed.py .
"""

from __future__ import annotations

import functools
import importlib
import sys
from pathlib import Path


def main() -> None:
    checkout = Path(sys.argv[1] if len(sys.argv) > 1 else ".").resolve()
    sys.path[:0] = [str(checkout), str(checkout / "benchmarks")]
    b = importlib.import_module("bench_stream")
    stream_input = importlib.import_module("dpstudio.io.stream_input")
    b.ILINET = checkout.parent / "shared" / "data" / "streams" / "ILINet.csv"
    b.StreamParams = functools.partial(b.StreamParams, ratio=0.2)
    x = stream_input.read_ilinet(b.ILINET, "national", "ILITOTAL", "2002-W40")
    work, mae, _ = b.evaluate(x, "asm_fixed", 1.0, 200, 20)
    print(f"asm_fixed n/T=0.2 eps=1 w=200, 20 runs: workload {work:.3g} / MAE {mae:.0f}")


if __name__ == "__main__":
    main()
