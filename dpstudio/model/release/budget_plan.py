"""How an algorithm splits epsilon, and the data-independent error that split implies (Qt-free).

The Algorithm panel draws a ``BudgetPlan`` as a bar the user can drag; every figure here depends only on
public inputs (epsilon, the split, h, the number of bins, the tree shape), never on the data, so it can
be shown before anything runs and printed in a release report.

Splits (ALGORITHMS.md sections 3-6):
- DiffGen: eps' = eps / (2 (|A_num| + 2h)) per exponential-mechanism call; h selections, |A_num| + h
  numeric split-point choices; the counts get the rest (eps/2 by default). Dragging moves budget between
  the selections, the split points and the counts (eps' per call follows).
- DiffGen with consistency: the same selection part; the count budget eps_c split over the L = h + 1
  levels of the partition tree (uniform eps_c / L by default; a record lies on one root-to-leaf path, so
  the per-level budgets sum to eps_c).
- MAXGDDP: eps1 over h levels geometrically (eps_l ~ r^l, r = f^(1/3)), eps2 for the leaf counts.
- flat: all of eps on the bins. H_b / SC: eps split over the noised levels (uniform by default).
- LUEDPTree: per-node budgets are computed by the optimisation of seed 003; the bar shows them by level
  and cannot be dragged.

Variances: a count with Laplace noise of scale 1/eps has variance 2/eps^2 (the discrete Laplace used for
releases has 2 e^-eps / (1 - e^-eps)^2, slightly less); figures use 2/eps^2 as the spec does.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

import numpy as np

from dpstudio.algorithms.registry import (
    AUTO_STEPS,
    BINS,
    ENGINE_NAMES,
    EXPONENTIAL,
    LEVELS,
    LOCKED_SPLIT,
    REGISTRY,
    STRATEGY,
    TABLE_ALGORITHMS,
    TABLE_PRESETS,
    default_params,
)
from dpstudio.core.budget import as_fraction

OPTIMIZED_SHARES_NOTE = (
    "The count budget's per-level shares are chosen after the selection steps, for the "
    "released tree's shape (the bar shows an equal split; the ledger shows the shares that "
    "ran)."
)
#: p-Identity's one segment of the split (its one spend; the ledger calls it "p-Identity strategy")
PIDENTITY_SEGMENT = "bins and weighted sums"


def automatic(params: dict) -> bool:
    """Whether ``params["steps"]`` of AUTO_STEPS means "choose h from epsilon" (the studio's and the API's
    only meaning); the command line's explicit ``--steps 0`` sets ``automatic_steps`` False: no specialization."""
    return bool(params.get("automatic_steps", True))


def steps_for(algorithm: str, params: dict, epsilon) -> int:
    """The h a table algorithm runs with: ``params["steps"]``, or the automatic choice from epsilon
    (public only: ``diffgen_auto.automatic_steps``) when it is AUTO_STEPS."""
    h = int(params["steps"])
    if h == AUTO_STEPS and automatic(params) and algorithm in TABLE_PRESETS:
        from dpstudio.algorithms.diffgen_auto import automatic_steps

        return automatic_steps(TABLE_PRESETS[algorithm], epsilon)[0]
    return h


@dataclass
class BudgetPlan:
    """Named shares of epsilon that sum to it exactly; ``locked`` plans cannot be dragged."""

    algorithm: str
    epsilon: Fraction
    names: list[str]
    shares: list[Fraction]
    kinds: list[str]  # "selection", "split", "count", "level"
    locked: bool = False
    notes: list[str] = field(default_factory=list)

    def __post_init__(self):
        self.epsilon = as_fraction(self.epsilon)
        self.shares = [as_fraction(s) if not isinstance(s, Fraction) else s for s in self.shares]
        if sum(self.shares) != self.epsilon:
            raise ValueError(f"the split sums to {float(sum(self.shares))}, not epsilon {float(self.epsilon)}")

    def with_shares(self, shares) -> BudgetPlan:
        return BudgetPlan(
            self.algorithm,
            self.epsilon,
            list(self.names),
            list(shares),
            list(self.kinds),
            self.locked,
            list(self.notes),
        )

    def share(self, kind: str) -> Fraction:
        return sum((s for s, k in zip(self.shares, self.kinds) if k == kind), Fraction(0))

    def level_shares(self) -> list[Fraction]:
        return [s for s, k in zip(self.shares, self.kinds) if k == "level"]

    def to_params(self) -> dict:
        """The split as JSON-able parameters: {"budget_split": {name: "p/q"}, ...} plus named totals."""
        out: dict[str, Any] = {"budget_split": {n: str(s) for n, s in zip(self.names, self.shares)}}
        if self.algorithm in TABLE_ALGORITHMS:
            out["count_epsilon"] = str(self.share("count") + self.share("level"))
        if REGISTRY[self.algorithm].noisy_max_levels:
            out["tree_fraction"] = str(self.share("selection") / self.epsilon)
        levels = self.level_shares()
        if levels:
            out["level_epsilons"] = [str(s) for s in levels]
        return out

    def engine_overrides(self, steps: int) -> dict:
        """The DiffGen engine's explicit split (``DiffGenParams`` fields) for this plan (table algorithms)."""
        eps = self.epsilon
        if REGISTRY[self.algorithm].noisy_max_levels:
            sel = [s / eps for s, k in zip(self.shares, self.kinds) if k == "selection"]
            return {"selection_fractions": tuple(sel), "tree_fraction": sum(sel, Fraction(0))}
        out = {
            "selection_fractions": tuple([self.share("selection") / eps / steps] * steps) if steps else None,
            "split_fraction": self.share("split") / eps,
        }
        levels = self.level_shares()
        if REGISTRY[self.algorithm].counts_every_level and len(set(levels)) > 1:
            out["level_fractions"] = tuple(s / eps for s in levels)
        return out


def _per_level_equal(eps: Fraction, n: int) -> list[Fraction]:
    return [eps / n] * n


def qardaji_branching(n: int) -> int:
    """The interval-tree engine's choice of b (``interval_shapes.qardaji_branching``)."""
    from dpstudio.algorithms.interval_shapes import qardaji_branching as engine_rule

    return engine_rule(n)


def engine_params(algorithm: str, params: dict, epsilon, split: BudgetPlan | None = None):
    """The DiffGen engine's parameters (``DiffGenParams``) for a table algorithm: its parameters and the
    engine options it accepts (``Algorithm.accepts``: the command line's options), with ``split``'s shares
    when one is given (the split that will run: explicit fractions replace the count and tree shares)."""
    from dpstudio.algorithms.diffgen import preset

    spec = REGISTRY[algorithm]
    p = {**default_params(algorithm), **(params or {})}
    overrides = {k: v for k, v in p.items() if v is not None and k in ENGINE_KEYS and spec.accepts(k)}
    if "fanout" in overrides:
        overrides["fanout"] = float(overrides["fanout"])
    if split is not None:
        overrides.pop("count_fraction", None)
        overrides.pop("tree_fraction", None)
        overrides.update(split.engine_overrides(steps_for(algorithm, p, epsilon)))
    return preset(TABLE_PRESETS[algorithm], epsilon, steps_for(algorithm, p, epsilon), **overrides)


#: the DiffGen engine's fields a table algorithm's parameters may set (the rest are the preset's)
ENGINE_KEYS = (
    "score",
    "consistency",
    "fanout",
    "node_budget",
    "tree_fraction",
    "numeric_grid",
    "score_scope",
    "grid_bins",
    "count_fraction",
    "clamp_negative",
    "round_counts",
    "tree_projection",
)


def table_plan(engine, n_numeric: int) -> BudgetPlan:
    """The split a DiffGen-engine run with parameters ``engine`` (``DiffGenParams``) and ``n_numeric``
    numeric attributes plans, from the engine's own ``diffgen.plan_budget``: public (epsilon, h, the
    explicit fractions, the attribute kinds). ``default_plan`` draws it for the panel; the report builds it
    from the parameters a run actually used."""
    from dpstudio.algorithms.diffgen import plan_budget

    algorithm = {v: k for k, v in TABLE_PRESETS.items()}[engine.algorithm]
    eps = as_fraction(engine.epsilon)
    b = plan_budget(engine, n_numeric)
    if REGISTRY[algorithm].noisy_max_levels:
        h = len(b.step_epsilons)
        return BudgetPlan(
            algorithm,
            eps,
            [f"level {l}" for l in range(h)] + ["counts"],
            list(b.step_epsilons) + [b.count_epsilon],
            ["selection"] * h + ["count"],
        )
    names, shares, kinds = ["selection", "split points"], [b.selection_total, b.split_total], ["selection", "split"]
    if not REGISTRY[algorithm].counts_every_level:
        names.append("counts")
        shares.append(b.count_epsilon)
        kinds.append("count")
    else:
        L = int(engine.steps) + 1  # the partition tree's levels; uniform eps_c / L unless weighted
        weights = list(b.level_weights) if b.level_weights is not None else [Fraction(1)] * L
        names += [f"level {l}" for l in range(len(weights))]
        shares += [b.count_epsilon * w / sum(weights) for w in weights]
        kinds += ["level"] * len(weights)
    note = (
        "These shares are the most each part can spend: a step that needs fewer split points, an early "
        "stop or a shallower tree leaves budget that the engine gives to the counts (the ledger shows "
        "what was spent)."
    )
    notes = [note]
    if REGISTRY[algorithm].counts_every_level and b.level_weights is None and engine.node_budget == "optimized":
        notes.append(OPTIMIZED_SHARES_NOTE)
    return BudgetPlan(algorithm, eps, names, shares, kinds, notes=notes)


def default_plan(algorithm: str, params: dict, epsilon) -> BudgetPlan:
    """The split the algorithm uses by default, computed by the engines' own planning functions
    (``diffgen.plan_budget``, ``interval_trees.plan_interval_tree``), as an exact plan."""
    eps = as_fraction(epsilon)
    p = {**default_params(algorithm), **(params or {})}
    if algorithm in TABLE_ALGORITHMS:
        return table_plan(engine_params(algorithm, p, eps), int(p.get("numeric_attributes", 0)))
    if REGISTRY[algorithm].noised == BINS:  # flat: all of epsilon on the bins
        return BudgetPlan(algorithm, eps, ["bins"], [eps], ["level"])
    if REGISTRY[algorithm].noised == STRATEGY:  # p-Identity's one spend
        return BudgetPlan(
            algorithm,
            eps,
            [PIDENTITY_SEGMENT],
            [eps],
            ["level"],
            locked=True,
            notes=[
                "one spend of all of epsilon: every bin's own count and a few weighted sums of bins get noise, "
                "and a record's bin is charged at most epsilon over all of them (the weights come from the "
                "engine's plan: public, from the number of bins and epsilon only)"
            ],
        )
    if REGISTRY[algorithm].is_histogram and REGISTRY[algorithm].noised == LEVELS:  # the interval trees
        from dpstudio.algorithms.interval_trees import noised_depths

        tp = engine_plan(algorithm, p, eps)
        depth = tp.tree.depth
        levels = noised_depths(tp.tree, tp.noised)
        if algorithm in LOCKED_SPLIT:  # the engine's own per-level (H_opt) or per-node (LUEDPTree) budgets
            per_node = REGISTRY[algorithm].per_node_budgets
            reduce = np.mean if per_node else np.max
            w = [
                Fraction(float(reduce(tp.epsilons[(depth == l) & tp.noised]))).limit_denominator(10**9) for l in levels
            ]
            note = (
                "the branching and the level budgets are chosen for the least expected error of a random "
                "range after least squares (" + "; ".join(tp.notes) + ")"
                if not per_node
                else "per-node budgets are chosen for the least expected range error (LUEDPTree, seed 003 section "
                "3.4); the bar shows the mean budget of each level; the run uses the exact per-node values"
            )
            return BudgetPlan(
                algorithm,
                eps,
                [f"level {l}" for l in levels],
                [eps * x / sum(w) for x in w],
                ["level"] * len(levels),
                locked=True,
                notes=[note],
            )
        return BudgetPlan(
            algorithm, eps, [f"level {l}" for l in levels], _per_level_equal(eps, len(levels)), ["level"] * len(levels)
        )
    raise ValueError(f"unknown algorithm {algorithm!r}")


def saved_plan(algorithm: str, params: dict, epsilon) -> BudgetPlan:
    """The plan saved in ``params["budget_split"]`` when it fits the algorithm (same segments, summing to
    epsilon), else the default plan. This is the split the run uses."""
    plan = default_plan(algorithm, params, epsilon)
    saved = (params or {}).get("budget_split")
    if saved and list(saved) == plan.names and not plan.locked:
        try:
            shares = [Fraction(str(saved[n])) for n in plan.names]
        except (ValueError, ZeroDivisionError, TypeError):
            return plan
        if sum(shares) == plan.epsilon:
            return plan.with_shares(shares)
    return plan


# -- interval trees -----------------------------------------------------------------------------------


def tree_params(algorithm: str, params: dict, epsilon, split: BudgetPlan | None = None, edges=None):
    """The interval-tree engine's parameters (``IntervalTreeParams``), with ``split``'s level shares when
    one is given and it is not the equal default (the split that will run)."""
    from dpstudio.algorithms.interval_trees import IntervalTreeParams

    p = {**default_params(algorithm), **(params or {})}
    b = int(p.get("branching") or 0) or None
    levels = None
    if split is not None and not REGISTRY[algorithm].locked_split and len(set(split.shares)) > 1:
        levels = tuple(s / split.epsilon for s in split.shares)
    return IntervalTreeParams(
        algorithm=ENGINE_NAMES[algorithm],
        epsilon=as_fraction(epsilon),
        branching=b,
        noise_root=bool(p.get("root_noised", True)),
        level_fractions=levels,
        edges=edges,
    )


def engine_plan(algorithm: str, params: dict, epsilon, split: BudgetPlan | None = None):
    """The interval-tree engine's own public plan (shape, per-node budgets, variances) for these inputs."""
    from dpstudio.algorithms.interval_trees import plan_interval_tree

    p = {**default_params(algorithm), **(params or {})}
    return plan_interval_tree(int(p["bins"]), tree_params(algorithm, p, epsilon, split))


def is_default_split(plan: BudgetPlan, params: dict) -> bool:
    """Whether ``plan`` is the algorithm's default split."""
    return plan.shares == default_plan(plan.algorithm, params, plan.epsilon).shares


def bary_tree(n: int, b: int):
    """parents, lo, hi, depth of the engine's b-ary interval tree over n bins (``regular_tree``:
    near-equal children, larger first).

    ``coverage`` and ``luedp_budgets`` below are small independent restatements of seed 003's formulas,
    checked against its worked example in the tests; the panel's figures come from the interval-tree
    engine's own plan (``engine_plan``)."""
    from dpstudio.algorithms.interval_shapes import regular_tree

    t = regular_tree(n, b)
    return (np.asarray(t.parents), np.asarray(t.lo), np.asarray(t.hi), np.asarray(t.depth))


def coverage(parents, lo, hi, n, noised=None) -> np.ndarray:
    """Coverage probabilities p_x (seed 003 formula 3.5); un-noised nodes pass theirs to their children."""
    cnt = (lo + 1).astype(float) * (n - hi + 1)
    par = parents
    out = cnt.copy()
    nonroot = par >= 0
    out[nonroot] = cnt[nonroot] - cnt[par[nonroot]]
    out[~nonroot] = 1.0
    if noised is not None:
        # a range that would use an un-noised node uses its children instead (parents precede children)
        for v in range(len(par)):
            if not noised[v]:
                kids = np.flatnonzero(par == v)
                out[kids] += out[v]
                out[v] = 0.0
    return out / (n * (n + 1) / 2)


def luedp_budgets(parents, p, epsilon: float) -> np.ndarray:
    """Seed 003 section 3.4: per-node budgets minimising sum p_x / eps_x^2, every path summing to eps."""
    par = np.asarray(parents)
    n = par.size
    a = np.ones(n)
    bb = np.ones(n)
    kids: list[list[int]] = [[] for _ in range(n)]
    for v in range(1, n):
        kids[par[v]].append(v)
    for v in range(n - 1, -1, -1):
        if kids[v]:
            s = sum(p[c] * bb[c] ** 3 / a[c] ** 3 for c in kids[v])
            a[v] = (p[v] / s) ** (1 / 3) if s > 0 else 0.0
            bb[v] = a[v] + 1
    out = np.zeros(n)
    psum = np.zeros(n)
    psum[0] = epsilon
    for v in range(n):
        out[v] = a[v] / bb[v] * psum[v]
        for c in kids[v]:
            psum[c] = psum[v] - out[v]
    return out


# -- expected error ----------------------------------------------------------------------------------


@dataclass(frozen=True)
class Figure:
    label: str
    value: float
    explanation: str


def _exp(x: float) -> float:
    """e^x, infinite where a float cannot hold it (a huge epsilon's odds)."""
    try:
        return math.exp(x)
    except OverflowError:
        return math.inf


def _flat_comparison(n: int, epsilon, released_mse: float) -> Figure:
    """A flat histogram's all-range error at the same epsilon, beside the release's."""
    from dpstudio.core.range_error import flat_all_range_mse, laplace_variance

    flat = flat_all_range_mse(n, laplace_variance(1.0 / float(epsilon)))
    return Figure(
        "flat histogram, same epsilon",
        flat,
        f"all-range MSE, discrete Laplace, for comparison: the consistent release's is {released_mse / flat:.2g} "
        "times this",
    )


def expected_error(plan: BudgetPlan, params: dict) -> list[Figure]:
    """Data-independent error figures of ``plan`` (what the panel shows and the report prints), by what the
    algorithm declares in the registry: how it selects and where it puts its count noise."""
    p = {**default_params(plan.algorithm), **(params or {})}
    spec = REGISTRY[plan.algorithm]
    out: list[Figure] = []
    if spec.selection == EXPONENTIAL:
        _selection_figures(plan, p, out)
        (_level_figures if spec.counts_every_level else _leaf_count_figures)(plan, p, out)
    elif spec.noisy_max_levels:
        _noisy_max_figures(plan, p, out)
    elif spec.noised == BINS:
        _flat_figures(plan, p, out)
    elif spec.noised == STRATEGY:
        _strategy_figures(plan, p, out)
    else:
        _tree_figures(plan, p, out)
    return out


def _selection_figures(plan: BudgetPlan, p: dict, out: list[Figure]) -> None:
    """DiffGen's exponential-mechanism selections and split-point choices."""
    alg = plan.algorithm
    h, a = steps_for(alg, p, plan.epsilon), int(p["numeric_attributes"])
    sel = float(plan.share("selection"))
    split = float(plan.share("split"))
    eps_sel = sel / h
    out.append(Figure("epsilon per selection step", eps_sel, f"{h} exponential-mechanism selections share {sel:.4g}"))
    if a + h:
        out.append(
            Figure(
                "epsilon per split-point choice",
                split / (a + h),
                f"{a + h} numeric split-point choices share {split:.4g}"
                if a
                else f"set aside for up to {h} numeric split points ({split:.4g} in all); with no attribute "
                "a number none is chosen, and the run gives this share to the counts",
            )
        )
    du = 1.0
    out.append(
        Figure(
            "odds for a score lead of 10",
            _exp(eps_sel * 10 / (2 * du)),
            "how much likelier a split scoring 10 more is chosen (the Max score changes by at most 1 per person)",
        )
    )


def _leaf_count_figures(plan: BudgetPlan, p: dict, out: list[Figure]) -> None:
    """Noise on the leaf counts only (DiffGen)."""
    ec = float(plan.share("count"))
    out.append(
        Figure(
            "count noise variance per cell",
            2 / ec**2,
            f"noise of scale 1/\u03b5 with \u03b5 = {ec:.4g} for the counts: variance 2/\u03b5\u00b2",
        )
    )


def _level_figures(plan: BudgetPlan, p: dict, out: list[Figure]) -> None:
    """Noise on every level of the partition tree (DiffGen with consistency)."""
    levels = [float(s) for s in plan.level_shares()]
    ec = sum(levels)
    if OPTIMIZED_SHARES_NOTE in plan.notes and len(set(levels)) == 1:  # the bar's equal split: a stand-in
        out.append(
            Figure(
                "node variance on any level: at least",
                2 / ec**2,
                f"the run chooses the levels' shares of the counts' \u03b5 = {ec:.4g} for the released tree's shape: a "
                "level given all of it has this variance, a level given less has more (much more on "
                "the levels it gives almost nothing); the ledger and the Watch show the shares that ran",
            )
        )
    else:
        for l, e in enumerate(levels):
            out.append(Figure(f"node variance at level {l}", 2 / e**2, f"\u03b5 = {e:.4g}: 2/\u03b5\u00b2"))
    out.append(
        Figure(
            "leaf-only release: variance per cell",
            2 / ec**2,
            f"all of the counts' \u03b5 = {ec:.4g} on the leaves (the comparison baseline)",
        )
    )


def _noisy_max_figures(plan: BudgetPlan, p: dict, out: list[Figure]) -> None:
    """Noisy-max selections on geometric level budgets, then leaf counts (MAXGDDP)."""
    levels = [float(s) for s, k in zip(plan.shares, plan.kinds) if k == "selection"]
    for l, e in enumerate(levels):
        out.append(
            Figure(
                f"budget for choosing the split at level {l}",
                e,
                f"the best split is picked after adding noise of scale 1/{e:.4g} to each score",
            )
        )
    ec = float(plan.share("count"))
    out.append(
        Figure("count noise variance per cell", 2 / ec**2, f"\u03b5 = {ec:.4g} for the counts: variance 2/\u03b5\u00b2")
    )


def _flat_figures(plan: BudgetPlan, p: dict, out: list[Figure]) -> None:
    """Noise on every bin (flat)."""
    n = int(p["bins"])
    e = float(plan.epsilon)
    out.append(Figure("variance per bin", 2 / e**2, "noise of scale 1/\u03b5: variance 2/\u03b5\u00b2"))
    out.append(
        Figure(
            "all-range mean squared error",
            2 / e**2 * (n + 2) / 3,
            f"mean range length over all n(n+1)/2 ranges is (n+2)/3, n = {n}",
        )
    )


def _strategy_figures(plan: BudgetPlan, p: dict, out: list[Figure]) -> None:
    """The bins and weighted sums of a strategy (p-Identity)."""
    alg = plan.algorithm
    n = int(p["bins"])
    tp = engine_plan(alg, p, plan.epsilon)
    cons = tp.expected_consistent_mse
    be = tp.bin_epsilons
    out.append(
        Figure(
            "weighted sums beside the bins",
            tp.n_rows,
            f"each a sum of bins with whole-number weights; noise of scale {tp.row_scale:.4g} on each",
        )
    )
    out.append(
        Figure(
            "budget of a bin's own count",
            float(np.median(be)),
            f"from {be.min():.4g} to {be.max():.4g}: what the weighted sums leave of epsilon for that bin",
        )
    )
    out.append(
        Figure(
            "all-range MSE, consistent release",
            cons,
            "exact, least squares of the bins from the bins and the weighted sums, uniformly random ranges",
        )
    )
    out.append(Figure("all-range RMSE, consistent release", math.sqrt(cons), "per query"))
    out.append(_flat_comparison(n, plan.epsilon, cons))


def _tree_figures(plan: BudgetPlan, p: dict, out: list[Figure]) -> None:
    """An interval tree noised level by level (H_b, SC, LUEDPTree, H_opt)."""
    alg = plan.algorithm
    from dpstudio.core.range_error import consistent_all_range_mse, raw_all_range_mse

    n = int(p["bins"])
    tp = engine_plan(alg, p, plan.epsilon)
    t = tp.tree
    if alg not in LOCKED_SPLIT:
        tp = engine_plan(alg, p, plan.epsilon, plan)
        t = tp.tree
    var = tp.variances
    how = "the engine's per-node budgets for this split"
    raw = raw_all_range_mse(t.parents, t.lo, t.hi, n, var, t.levels)
    cons = consistent_all_range_mse(t.parents, t.lo, t.hi, n, var, t.levels)
    if tp.branching:
        out.append(Figure("branching b", tp.branching, "; ".join(tp.notes) or "chosen"))
    out.append(Figure("tree nodes", t.n_nodes, f"height {t.height}, {int(tp.noised.sum())} noised"))
    out.append(
        Figure("all-range MSE, consistent release", cons, f"exact, least squares, uniformly random ranges; {how}")
    )
    out.append(Figure("all-range RMSE, consistent release", math.sqrt(cons), "per query"))
    out.append(
        Figure(
            "all-range MSE, raw tree (not released)",
            raw,
            "each range answered from the fewest noisy nodes, without consistency: what the consistent "
            "release improves on (below a few thousand bins it is worse than a flat histogram)",
        )
    )
    out.append(_flat_comparison(n, plan.epsilon, cons))
