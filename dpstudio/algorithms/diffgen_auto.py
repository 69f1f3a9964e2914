"""The number of specializations h when the user gives none (numpy only; public inputs only).

``automatic_steps(algorithm, epsilon)`` -> (h, reason). The choice depends on epsilon alone (and the
algorithm), never on the data, so neighbouring tables get the same h and nothing is spent on it. The
tree/count split stays the algorithm's formula (half of epsilon for the counts). The rules come from the
Adult protocol's accuracy grid (benchmarks/RESULTS.md, issue 11):

- maxgddp: h = round(6 - 3 log10(eps)), clamped to 6..12 (eps 1 -> 6, 0.25 -> 8, 0.1 -> 9): with little
  budget the geometric level budgets favour a deeper tree of coarse splits;
- diffgen, diffgen-consistent: h = round(10 + 6 log10(4 eps)), clamped to 4..10 (eps >= 0.25 -> 10,
  0.1 -> 8): each DiffGen step costs eps / (2 (|A_num| + 2h)), so small budgets need fewer steps.

The engine stops early (and gives the rest to the counts) when nothing is left to specialize.
"""

from __future__ import annotations

import math

from ..core.budget import as_fraction


def automatic_steps(algorithm: str, epsilon) -> tuple[int, str]:
    eps = float(as_fraction(epsilon))
    if algorithm == "maxgddp":
        h = min(12, max(6, round(6 - 3 * math.log10(eps))))
        rule = "h = round(6 - 3 log10(epsilon)) clamped to 6..12"
    else:
        h = min(10, max(4, round(10 + 6 * math.log10(4 * eps))))
        rule = "h = round(10 + 6 log10(4 epsilon)) clamped to 4..10"
    return int(h), (f"--steps not given: {rule} (a function of epsilon only, so no budget is spent on it; "
                    "fitted to the Adult accuracy grid, benchmarks/RESULTS.md)")
