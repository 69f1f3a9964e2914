"""The Compare panel's figures in words: which release errs more, by how much, why, and which to export.

Qt-free. Works on data-independent curves only (the analytic expected errors: they follow from the noise
scales and the released tree's public shape), so the recommendation reveals nothing more about the data
than the release itself. Ratios are of the geometric mean of the expected squared error over the query sizes
plotted.
"""

from __future__ import annotations

import numpy as np

from dpstudio.evaluation.range_error import LEAF_ONLY, LEAST_SQUARES, RAW_TREE, SEED_RULE

#: the comparison of a strategy release (the bins plus weighted sums of bins: p-Identity), not a tree's
STRATEGY_KIND = "strategy"
#: a method is said to err more when its mean error exceeds the best one's by this factor
NOTABLE = 1.5


def mean_errors(values: dict) -> dict:
    """Geometric mean of each method's expected squared error over the query sizes (zeros skipped)."""
    out = {}
    for m, y in values.items():
        y = np.asarray(y, dtype=float)
        y = y[np.isfinite(y) & (y > 0)]
        if y.size:
            out[m] = float(np.exp(np.mean(np.log(y))))
    return out


def _why(worse: str, better: str, levels: int, kind: str, noise: tuple | None = None) -> str:
    tree_methods = (RAW_TREE, LEAST_SQUARES) if kind in ("histogram", STRATEGY_KIND) else ()
    if kind == STRATEGY_KIND and worse == LEAST_SQUARES and better == LEAF_ONLY:
        ratio = f" (up to {noise[1][0] / noise[0]:.3g} times the variance)" if noise else ""
        return (
            "p-Identity gives each bin's own count only part of epsilon, the rest going to weighted sums of "
            f"bins that help long ranges: its bins are noisier than leaf-only's{ratio}, so short ranges err more"
        )
    if worse == LEAF_ONLY:
        return (
            "leaf-only adds one noisy count per cell a query covers, so its error grows with the query's "
            "size, while a tree answers a large range from a few nodes"
        )
    if better == LEAF_ONLY and worse == SEED_RULE and noise:
        leaf, per_level = noise
        return (
            "two-pass averaging weighs every level of the tree alike, whatever its noise: the level given the "
            f"least of the count budget has a noise variance {max(per_level) / leaf:.3g} times leaf-only's, "
            "and it enters every estimate"
        )
    if better == LEAF_ONLY and (worse in tree_methods or kind == "table") and noise:
        leaf, per_level = noise
        lo, hi = min(per_level) / leaf, max(per_level) / leaf
        span = f"{lo:.3g} times" if f"{lo:.3g}" == f"{hi:.3g}" else f"from {lo:.3g} to {hi:.3g} times"
        how = "" if abs(hi - levels * levels) <= 0.25 * levels * levels else f"; equal shares would give {levels**2}"
        rescue = (
            "least squares combines the levels, weighted by their noise, and wins back only part of it"
            if worse == LEAST_SQUARES
            else "the raw tree adds up the noisy nodes that cover a query, each at its level's noise"
        )
        return (
            f"the count budget is shared by the {levels} levels of the tree (a person is in one node per "
            f"level), so each level's counts have a noise variance {span} leaf-only's{how}; {rescue}"
        )
    if better == LEAF_ONLY and (worse in tree_methods or kind == "table"):
        return (
            f"the count budget is shared by the {levels} levels of the tree (a person is in one node per "
            f"level), so each count gets noise about {levels} times larger than leaf-only counts, a variance "
            f"about {levels * levels} times larger; combining the levels wins back only part of it"
        )
    if worse == RAW_TREE and better == LEAST_SQUARES:
        return (
            "the raw tree uses each noisy node once; least squares combines every estimate of the same "
            "range (a node, its parent and its children), which lowers the variance"
        )
    return "their noise scales and the number of noisy counts each query adds up differ"


#: what a histogram's verdict compares: the Algorithm panel's all-range figures
ALL_RANGES = "for a uniformly random range, as the Algorithm panel's all-range figures"
#: what a table's verdict compares: the sizes plotted, each alike
SIZES_PLOTTED = "over these query sizes"


def _spread(worse, best) -> str:
    """ " (from a to b times, by size)" when the ratio varies over the sizes plotted."""
    w, b = np.asarray(worse, dtype=float), np.asarray(best, dtype=float)
    if w.size < 2 or w.shape != b.shape:
        return ""
    with np.errstate(divide="ignore", invalid="ignore"):
        r = w / b
    r = r[np.isfinite(r) & (r > 0)]
    if r.size < 2 or f"{r.min():.3g}" == f"{r.max():.3g}":
        return ""
    return f" (from {r.min():.3g} to {r.max():.3g} times, by size)"


def verdict(values: dict, levels: int, kind: str, noise: tuple | None = None, measure: str = SIZES_PLOTTED) -> str:
    """A few sentences on the analytic curves ``values`` ({method: expected error by query size});
    ``levels``: the released tree's number of levels (public: its shape is released); ``kind``:
    "histogram", STRATEGY_KIND (bins plus weighted sums: p-Identity) or "table"; ``noise``: ``comparison.level_noise`` of the run (leaf-only's
    variance and each level's largest), so that the reason given uses the budgets that ran; ``measure``:
    what the values are (``SIZES_PLOTTED``: ratios are of geometric means over the sizes, with their range by
    size; ``ALL_RANGES``: one all-range figure per method)."""
    means = mean_errors(values)
    if len(means) < 2:
        return ""
    best = min(means, key=lambda m: means[m])
    parts = []
    for m in sorted(means, key=lambda m: means[m], reverse=True):
        ratio = means[m] / means[best]
        if m != best and ratio >= NOTABLE:
            spread = _spread(values[m], values[best])
            on_average = " on average" if spread else ""
            parts.append(
                f"{m}: expected error {ratio:.3g} times that of {best}{on_average}{spread}, because "
                f"{_why(m, best, levels, kind, noise)}."
            )
    if not parts:
        parts.append(f"the releases' expected errors are within a factor {NOTABLE:g} of each other.")
    parts.append(f"Recommended for export: {best} (the lowest expected error {measure}; data-independent figures).")
    return " ".join(parts)


__all__ = ["ALL_RANGES", "NOTABLE", "SIZES_PLOTTED", "mean_errors", "verdict"]
