"""The number of specializations h when the user gives none (numpy only; public inputs only).

``automatic_steps(algorithm, epsilon)`` -> (h, reason). The choice depends on epsilon alone (and the
algorithm), never on the data, so neighbouring tables get the same h and nothing is spent on it. The
tree/count split stays the algorithm's formula (half of epsilon for the counts). The rules come from the
Adult protocol's accuracy grid (benchmarks/RESULTS.md, issue 11):

- maxgddp: h = round(8 + 2.5 log10(eps)), clamped to 8..10 (eps <= 1 -> 8, 2 -> 9, >= 5 -> 10), for its
  default split grids (the 1-2-5 series for money-like bounds): measured with 20-60 runs per setting,
  h = 6..9 lie within one standard error of each other at eps = 0.1 and 0.25, h = 8 and 9 are best at
  eps = 0.5 and 1; with more budget the deeper cut (whose exact-count accuracy is highest at h = 10) pays;
- diffgen, diffgen-consistent: h = round(10 + 6 log10(4 eps)), clamped to 4..10 (eps >= 0.25 -> 10,
  0.1 -> 8): each DiffGen step costs eps / (2 (|A_num| + 2h)), so small budgets need fewer steps.

The engine stops early (and gives the rest to the counts) when nothing is left to specialize.
"""

from __future__ import annotations

import math

from ..core.budget import as_fraction


def automatic_steps(algorithm: str, epsilon) -> tuple[int, str]:
    eps = float(as_fraction(epsilon))
    from .registry import lookup

    if lookup(algorithm).noisy_max_levels:
        h = min(10, max(8, round(8 + 2.5 * math.log10(eps))))
        rule = "h = round(8 + 2.5 log10(epsilon)) clamped to 8..10"
    else:
        h = min(10, max(4, round(10 + 6 * math.log10(4 * eps))))
        rule = "h = round(10 + 6 log10(4 epsilon)) clamped to 4..10"
    return int(h), (
        f"refinement steps chosen automatically: {rule} (a function of epsilon only, so no budget is spent on it; "
        "fitted to the Adult accuracy grid, benchmarks/RESULTS.md)"
    )
