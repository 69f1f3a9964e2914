"""Reproduce ``dpstudio/algorithms/pidentity_profile.py``: the smooth rows' profile (issue 11), optimised
once for 4,096 bins from a plain hierarchy (rows of 256 and of 16 bins, weight 1) to convergence, by the
same objective and optimiser the plans polish it with. The profile is public and data-independent (it
depends on nothing but the row layout). About 20 s of CPU.

    .venv/bin/python benchmarks/make_smooth_profile.py [--write]
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

import numpy as np

from dpstudio.algorithms import pidentity as pi
from dpstudio.core.coverage import n_ranges

N = 4096
OUT = Path(__file__).resolve().parent.parent / "dpstudio" / "algorithms" / "pidentity_profile.py"


def main(argv: list[str]) -> int:
    lay = pi.smooth_layout(N)
    start = pi.hierarchy_profile()
    t = time.process_time()
    g = pi.optimise_profile(lay, start, 1000)
    cpu = time.process_time() - t
    f0, f = pi._smooth_objective(start, lay)[0], pi._smooth_objective(g, lay)[0]
    rmse = lambda v: float(np.sqrt(2 * v / n_ranges(N)))  # noqa: E731  continuous Laplace, eps = 1
    print(
        f"n = {N}, {lay.p} rows, {lay.size} profile values: all-range RMSE at eps = 1 (continuous noise) "
        f"{rmse(f0):.3f} (plain hierarchy) -> {rmse(f):.3f}, {cpu:.1f} s CPU"
    )
    if "--write" in argv:
        values = ",\n    ".join(", ".join(f"{v:.6g}" for v in g[i : i + 8]) for i in range(0, g.size, 8))
        OUT.write_text(
            '"""The stored profile of p-Identity\'s smooth rows (``pidentity.smooth_layout``): public constants,\n'
            "written by benchmarks/make_smooth_profile.py (the optimum at 4,096 bins, from a plain hierarchy).\n"
            f"Continuous all-range RMSE at eps = 1 and 4,096 bins: {rmse(f):.3f} (the hierarchy it starts "
            f'from: {rmse(f0):.3f})."""\n\n'
            f"SIZES = {tuple(pi.SMOOTH_SIZES)}\n\nPROFILE = (\n    {values},\n)\n"
        )
        print(f"wrote {OUT}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
