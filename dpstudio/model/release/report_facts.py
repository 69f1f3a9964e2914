"""What the HTML report shows beyond the run itself, computed here and handed to ``dpstudio.io.report``
(io does not import model): the planned split of epsilon, the expected-error figures of that split, the
expected error by query size, and the budget store's charge.

Everything is data-independent: the split comes from the run's public parameters (``result.params``), the
errors from the noise scales and the released tree shape (mechanism outputs, public once released),
never from a true count. Used by ``dpstudio release --report`` and the studio's Export panel.
"""

from __future__ import annotations

import math

import numpy as np

from dpstudio.io.report import ReportFacts

#: histograms with more bins than this get no error-by-length curve (the exact computation is O(bins^2)).
MAX_CURVE_BINS = 1024


def _sizes(n: int, points: int = 9) -> list[int]:
    """Up to ``points`` query sizes from 1 to n, roughly evenly spaced on a log scale."""
    if n < 1:
        return []
    return sorted({int(round(v)) for v in np.geomspace(1, n, min(points, n))})


def run_plan(result):
    """(plan, figure parameters) of a DiffGen-family run, rebuilt from the engine parameters it ran with;
    (None, None) for an interval-tree run (its plan is ``result.plan``)."""
    from dpstudio.model.release.budget_plan import table_plan

    if hasattr(result, "plan") or not hasattr(getattr(result, "params", None), "steps"):
        return None, None
    n_numeric = sum(1 for k in getattr(result, "kinds", ()) if k == "numeric")
    return table_plan(result.params, n_numeric), {"steps": int(result.params.steps), "numeric_attributes": n_numeric}


def _table_error_by_size(result) -> tuple[list, str, str]:
    """(size, root-mean-square error) of counts made of several released cells of one class."""
    from dpstudio.algorithms.diffgen import LEAST_SQUARES
    from dpstudio.algorithms.diffgen_variance import least_squares_variances

    tree = result.tree
    if tree.noise_variances is None:  # leaves-only counts: independent cells, variances add up
        if result.variances is None or not np.size(result.variances):
            return [], "", ""
        v = float(np.mean(result.variances))
        n = int(result.leaf_values.shape[0])
        return (
            [(k, math.sqrt(k * v)) for k in _sizes(n)],
            "released cells (one class)",
            "the noise of independent cells adds up: error = sqrt(k x variance per cell)",
        )
    if getattr(result.params, "consistency", None) != LEAST_SQUARES:
        return [], "", ""
    parents = np.asarray(tree.parents)
    var_all = least_squares_variances(parents, tree.noise_variances)
    leaves = np.zeros(parents.size, dtype=np.int64)
    leaves[np.asarray(result.leaf_nodes)] = 1
    for node in range(parents.size - 1, 0, -1):  # children come after their parents
        leaves[parents[node]] += leaves[node]
    points = [(int(k), math.sqrt(float(np.mean(var_all[leaves == k])))) for k in np.unique(leaves) if k > 0]
    return (
        points,
        "released cells (one class) under one node of the released tree",
        "exact variance of the least-squares estimate of each node of the released tree",
    )


def _histogram_error_by_size(result) -> tuple[list, str, str]:
    from dpstudio.model.compare.comparison import least_squares_by_length

    n = int(result.plan.tree.n_bins)
    if n > MAX_CURVE_BINS:
        return [], "", ""
    lengths = _sizes(n)
    mse = least_squares_by_length(result.plan, lengths)
    return (
        [(k, math.sqrt(float(m))) for k, m in zip(lengths, mse)],
        "bins in the range",
        "exact, least-squares release, ranges of each length averaged over their positions",
    )


def report_facts(result, budget: dict | None = None) -> ReportFacts:
    """The report's inputs for ``result`` (see the module docstring); ``budget`` is the sidecar's
    ``dataset_budget`` entry (the budget store's charge, or why nothing was charged)."""
    from dpstudio.model.release.budget_plan import expected_error

    if hasattr(result, "plan") and hasattr(result.plan, "tree"):
        points, unit, how = _histogram_error_by_size(result)
        return ReportFacts(error_by_size=points, size_unit=unit, error_how=how, budget=budget)
    plan, fig_params = run_plan(result)
    split, figures = [], []
    if plan is not None:
        split = [(n, float(s)) for n, s in zip(plan.names, plan.shares)]
        figures = [(f.label, f.value, f.explanation) for f in expected_error(plan, fig_params)]
    points, unit, how = _table_error_by_size(result)
    return ReportFacts(split=split, figures=figures, error_by_size=points, size_unit=unit, error_how=how, budget=budget)
