"""Interval-tree histograms: flat, H_b, SC and LUEDPTree (ALGORITHMS.md section 6, seed 003), numpy only.

A run is ``run_interval_tree(counts, params, noise, ledger, teaching=False) -> Iterator[Event]`` ending in
``RunFinished(IntervalTreeResult)``:

1. plan (public, data-independent): the tree shape, the per-node budgets and noise scales, the analytic
   expected error (``plan_interval_tree``; the GUI may call it before any run);
2. ``NodeCreated`` per node, ``BudgetAssigned`` per noised node;
3. one ledger spend of epsilon for the whole tree (``BudgetSpent``) BEFORE any noisy value is produced;
4. discrete Laplace noise on every noised node (``NodeNoised``);
5. exact least squares (BLUE) with the per-node variances (``ConsistencyDone``), heteroscedastic for
   LUEDPTree;
6. the published counts (``LeavesReleased``, every node of the tree): by default (``published="whole"``)
   non-negative whole numbers, consistent across levels and summing to the published total (the root's
   estimate, rounded; as the 2020 US Census's TopDown publishes): ``whole_bins`` projects the least-squares
   bins top-down over a binary tree of the bins (``core.tree_projection.project_tree``) and rounds by
   largest remainder; every node publishes the sum of its bins. ``published="least_squares"`` publishes the
   real-valued estimates of the leaves, then optional rounding/clamping (which breaks consistency).

Privacy (neighbours: add or remove one record): the nodes on one root-to-leaf path are the only counts a
record changes, each by 1; node x gets discrete Laplace of scale 1/eps_x; every path sums to at most eps
(uniform trees: eps / L on each of L noised levels, i.e. Lap(L/eps); LUEDPTree: seed 003 algorithm 3.4,
rounded down). Siblings compose in parallel, a path sequentially: the tree is eps-DP. Consistency,
rounding, clamping and the whole-count projection are post-processing (no budget). The bins are public input.

True counts appear in events only when ``teaching`` is true, which requires simulation noise. Trees with
more than ``params.node_events_limit`` nodes report progress per phase instead of one event per node.
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from dataclasses import dataclass, field
from fractions import Fraction

import numpy as np

from dpstudio.core.budget import MAX_EPSILON, MIN_EPSILON, Ledger, check_epsilon, check_usable_epsilon
from dpstudio.core.consistency import least_squares
from dpstudio.core.coverage import effective_coverage, n_ranges
from dpstudio.core.events import (
    BudgetAssigned,
    BudgetSpent,
    ConsistencyDone,
    Event,
    LeavesReleased,
    NodeCreated,
    NodeNoised,
    Progress,
    RunFinished,
)
from dpstudio.core.noise import NoiseSource, SimulationNoise, simulated_discrete_laplace
from dpstudio.core.range_error import (
    all_range_squared_error_sum,
    canonical_cover,
    consistent_all_range_mse,
    laplace_variance,
    raw_all_range_mse,
)
from dpstudio.core.scales import exact_fraction, noise_scale
from dpstudio.core.tree_projection import project_tree

from .interval_budgets import SAFETY, luedp_budgets, noised_levels, path_sums, round_down_to_grid, uniform_budgets
from .interval_levels import BRANCHINGS, best_level_tree, level_budgets
from .interval_shapes import IntervalTree, flat_tree, qardaji_branching, regular_tree, sc_tree
from .pidentity import PIdentityPlan, plan_pidentity
from .registry import REGISTRY, STRATEGY, lookup

#: the interval-tree engine's algorithm names -> one line on each (declared in ``registry``)
ALGORITHMS = {a.engine: a.summary for a in REGISTRY.values() if a.is_histogram}

#: What ``choose_algorithm`` compares (SC is left out: its greedy partition is slow at large n and it never
#: beat H_b without root after least squares in benchmarks/RESULTS.md).
AUTO_CANDIDATES = ("flat", "hb", "luedp", "hopt", "pidentity")
#: ``choose_algorithm`` leaves H_opt out above this many bins (its search would take minutes).
AUTO_HOPT_MAX_BINS = 1 << 16
#: ... and p-Identity above this many (its smooth rows' plan grows as n^2 / 16 beyond: seconds at 8,192 bins;
#: the stored profile is the optimum at 4,096, benchmarks/RESULTS.md).
AUTO_PIDENTITY_MAX_BINS = 4096

MIN_BINS = 2
#: The widest node a tree may have (a flat histogram of up to this many bins is one node's children).
MAX_BRANCHING = 1 << 24
#: What a release publishes: whole non-negative consistent counts (default) or the least-squares estimates.
PUBLISHED = ("whole", "least_squares")


class HistogramInputError(ValueError):
    """The counts or parameters cannot be used; the message says which and why."""


@dataclass(frozen=True)
class IntervalTreeParams:
    """What the user chooses. ``branching``: H_b / LUEDPTree arity (None: Qardaji's rule); for SC a fixed
    first-step arity k (None: chosen by expected error). ``noise_root``: noise the root (the total) or not.
    ``published``: "whole" (default: non-negative whole counts consistent across the tree's levels) or
    "least_squares" (the real-valued estimates); ``round_counts`` / ``clamp_negative``: post-processing of
    the least-squares estimates (with ``published="least_squares"`` only). ``edges``: optional public
    bin edges (n + 1 increasing numbers) used for labels only. ``shape``: the tree LUEDPTree runs on,
    "regular" (the b-ary tree) or "sc" (SC's structure; seed 003 says LUEDPTree fits any tree).
    ``level_fractions`` (H_b, SC, flat; None = equal per noised level): relative shares of epsilon for the
    noised levels, shallowest first; a level's nodes hold disjoint records and a path crosses each level
    once, so every root-to-leaf path sums to at most epsilon; the ledger gets one entry per level.
    LUEDPTree keeps its optimised per-node budgets."""

    algorithm: str = "hb"
    epsilon: float | Fraction | str = 1.0
    branching: int | None = None
    noise_root: bool = True
    round_counts: bool = False
    clamp_negative: bool = False
    edges: tuple | None = None
    node_events_limit: int = 1 << 16
    budget_grid_steps: int = 256
    shape: str = "regular"
    level_fractions: tuple | None = None
    published: str = "whole"

    def checked_epsilon(self) -> Fraction:
        try:
            eps = check_epsilon(self.epsilon)
        except (ValueError, TypeError) as exc:
            msg = str(exc)
            raise HistogramInputError(msg if "epsilon" in msg else f"epsilon: {msg}") from None
        try:
            return check_usable_epsilon(eps)
        except ValueError as exc:
            raise HistogramInputError(f"{exc} (the usable range is [{float(MIN_EPSILON):g}, {MAX_EPSILON}])") from None

    def validate(self) -> None:
        if self.algorithm not in ALGORITHMS:
            raise HistogramInputError(f"unknown algorithm {self.algorithm!r}; choose one of {', '.join(ALGORITHMS)}")
        self.checked_epsilon()
        if self.branching is not None and (int(self.branching) != self.branching or self.branching < 2):
            raise HistogramInputError(f"branching must be an integer >= 2, got {self.branching!r}")
        if self.branching is not None and self.branching > MAX_BRANCHING:
            shown = self.branching if self.branching < 10**15 else f"about 1e{len(str(int(self.branching))) - 1}"
            raise HistogramInputError(
                f"branching must be at most {MAX_BRANCHING:,} (children of one node), got {shown}"
            )
        if self.published not in PUBLISHED:
            raise HistogramInputError(f"published must be one of {', '.join(PUBLISHED)}, got {self.published!r}")
        if self.published == "whole" and (self.round_counts or self.clamp_negative):
            raise HistogramInputError(
                "rounding and clamping apply to the least-squares estimates (published='least_squares'); "
                "the default whole counts are already whole, non-negative and consistent"
            )
        if self.shape not in ("regular", "sc"):
            raise HistogramInputError(f"shape must be 'regular' or 'sc', got {self.shape!r}")
        spec = lookup(self.algorithm)
        if self.shape == "sc" and not spec.accepts("shape"):
            raise HistogramInputError("shape 'sc' is for LUEDPTree (use algorithm 'sc' for SC itself)")
        if spec.noised == STRATEGY and self.branching is not None:
            raise HistogramInputError("p-Identity has no tree: it takes no branching")
        if spec.noised == STRATEGY and not self.noise_root:
            raise HistogramInputError("p-Identity's weighted sums may add up to the total: it takes no --no-root")
        if self.level_fractions is not None:
            if spec.locked_split:
                raise HistogramInputError(f"{self.algorithm}'s budgets are optimised: it takes no level split")
            try:
                fr = [Fraction(str(f)) if not isinstance(f, Fraction) else f for f in self.level_fractions]
            except (ValueError, TypeError, ZeroDivisionError):
                raise HistogramInputError(f"level_fractions must be numbers, got {self.level_fractions!r}") from None
            if not fr or any(f <= 0 for f in fr):
                raise HistogramInputError("every noised level needs a positive share of epsilon")

    def level_epsilons(self, n_levels: int) -> list[Fraction] | None:
        """Exact budgets of the noised levels (shallowest first) for an explicit split, else None."""
        if self.level_fractions is None:
            return None
        if len(self.level_fractions) != n_levels:
            raise HistogramInputError(
                f"the tree has {n_levels} noised levels but {len(self.level_fractions)} level shares were given"
            )
        eps = self.checked_epsilon()
        w = [Fraction(str(f)) if not isinstance(f, Fraction) else f for f in self.level_fractions]
        tot = sum(w, Fraction(0))
        out = [eps * x / tot for x in w[:-1]]
        return out + [eps - sum(out, Fraction(0))]


@dataclass
class TreePlan:
    """The public part of a run: shape, budgets, scales and variances per node, analytic errors."""

    algorithm: str
    epsilon: float
    tree: IntervalTree
    noised: np.ndarray
    epsilons: np.ndarray  # per node, 0 where not noised
    scales: np.ndarray  # discrete Laplace scale per node, inf where not noised
    variances: np.ndarray  # exact variance of the discrete Laplace noise, inf where not noised
    branching: int | None
    sensitivity: int  # noised nodes on the longest path
    notes: list[str] = field(default_factory=list)
    _consistent_mse: float | None = None
    _raw_mse: float | None = None
    _budget_summary: dict | None = None
    scale_index: np.ndarray | None = None  # per node: index of its distinct noise scale (for batching)
    level_epsilons: list | None = None  # exact per-level budgets of an explicit level split (else None)

    @property
    def expected_raw_mse(self) -> float:
        """Expected squared error of a uniformly random range from the raw noisy tree (canonical cover)."""
        if self._raw_mse is None:
            t = self.tree
            self._raw_mse = raw_all_range_mse(t.parents, t.lo, t.hi, t.n_bins, self.variances, t.levels)
        return self._raw_mse

    @property
    def expected_consistent_mse(self) -> float:
        """Exact expected squared error of a uniformly random range from the consistent leaves."""
        if self._consistent_mse is None:
            t = self.tree
            self._consistent_mse = consistent_all_range_mse(t.parents, t.lo, t.hi, t.n_bins, self.variances, t.levels)
        return self._consistent_mse

    def budget_summary(self) -> dict:
        if self._budget_summary is None:
            self._budget_summary = self._summarise_budgets()
        return self._budget_summary

    def _summarise_budgets(self) -> dict:
        e = self.epsilons
        depth = self.tree.depth
        per_level: list[dict] = []
        for d in range(self.tree.height + 1):
            m = (depth == d) & self.noised
            if m.any():
                per_level.append(
                    {
                        "depth": d,
                        "nodes": int(m.sum()),
                        "min": float(e[m].min()),
                        "max": float(e[m].max()),
                        "mean": float(e[m].mean()),
                    }
                )
            else:
                per_level.append({"depth": d, "nodes": 0, "note": "not noised"})
        ps = path_sums(self.tree, e)
        out = {
            "noised_nodes": int(self.noised.sum()),
            "min": float(e[self.noised].min()),
            "max": float(e[self.noised].max()),
            "max_path_sum": float(ps.max()),
            "min_path_sum": float(ps.min()),
            "per_level": per_level,
        }
        if self.level_epsilons is not None:  # an explicit split: the exact budget of each noised level
            levels = noised_depths(self.tree, self.noised)
            out["level_split"] = [{"depth": d, "epsilon": str(x)} for d, x in zip(levels, self.level_epsilons)]
        return out


def _require_positive_variances(ok, name: str, epsilon) -> None:
    """Refuse an epsilon so large that the noise variance of a noised count is 0 in double precision
    (e.g. 1e12): least squares weighs counts by 1/variance. A public check (epsilon and shape only)."""
    if not ok:
        raise HistogramInputError(
            f"epsilon {epsilon} is too large for {name}: its noise variance is 0 in "
            "double precision (least squares needs it positive)"
        )


def plan_interval_tree(n_bins: int, params: IntervalTreeParams) -> TreePlan | PIdentityPlan:
    """Shape, budgets and noise of a run over ``n_bins`` public bins (no data involved); for "pidentity"
    the strategy's plan (``algorithms.pidentity``)."""
    params.validate()
    n = int(n_bins)
    if n < MIN_BINS:
        raise HistogramInputError(f"a histogram needs at least {MIN_BINS} bins, got {n}")
    if lookup(params.algorithm).noised == STRATEGY:
        plan = plan_pidentity(n, params.checked_epsilon(), params.budget_grid_steps)
        _require_positive_variances(
            plan.row_variance > 0 and np.all(plan.bin_variances > 0), "p-Identity", params.epsilon
        )
        return plan
    eps = float(params.checked_epsilon())
    algo = params.algorithm
    notes = []
    b = None
    if algo == "flat":
        tree = flat_tree(n)
        noise_root = False
    elif algo == "luedp" and params.shape == "sc":
        tree = sc_tree(n, None if params.branching is None else int(params.branching), params.noise_root)
        noise_root = params.noise_root
        notes.append(f"LUEDPTree on the SC structure ({tree.name})")
    elif algo == "hopt":
        branchings = BRANCHINGS if params.branching is None else (int(params.branching),)
        tree, weights, _, b = best_level_tree(n, eps, branchings, params.noise_root)
        skipped = [d for d, w in enumerate(weights) if w == 0]
        notes.append(
            f"branching {b} and level budgets {', '.join(f'{w:.4f}' for w in weights)} (shares of "
            "epsilon, root first) minimise the expected all-range error after least squares"
            + (f"; depths {', '.join(map(str, skipped))} not noised" if skipped else "")
            + "; leaves above the deepest level take the rest of their path"
        )
        noise_root = bool(weights[0] > 0)
    elif algo in ("hb", "luedp"):
        b = int(params.branching) if params.branching is not None else qardaji_branching(n)
        tree = regular_tree(n, b)
        noise_root = params.noise_root
        if params.branching is None:
            notes.append(f"branching {b}, chosen for the least range error")
    else:
        tree = sc_tree(n, None if params.branching is None else int(params.branching), params.noise_root)
        noise_root = params.noise_root
    noised = np.ones(tree.n_nodes, dtype=bool)
    noised[0] = noise_root
    level_eps = None
    if algo == "hopt":
        epsilons = level_budgets(tree, weights, eps * SAFETY)
        noised = epsilons > 0
    elif algo == "luedp":
        raw = luedp_budgets(tree, eps, noised)
        epsilons = round_down_to_grid(raw * SAFETY, params.budget_grid_steps)
        notes.append(f"per-node budgets rounded down to the grid 2^(j/{params.budget_grid_steps})")
    elif params.level_fractions is not None:
        levels = noised_depths(tree, noised)
        level_eps = params.level_epsilons(len(levels))
        assert level_eps is not None
        per_depth = np.zeros(tree.height + 1)
        per_depth[levels] = [float(e) * SAFETY for e in level_eps]
        epsilons = np.where(noised, per_depth[tree.depth], 0.0)
        notes.append("budget split by level as given")
    else:
        epsilons = uniform_budgets(tree, eps * SAFETY, noised)
    if not noise_root:
        notes.append("root not noised")
    if algo in ("luedp", "hopt") or level_eps is not None:
        eps_values, inv = np.unique(epsilons, return_inverse=True)
    else:  # uniform budgets: one value on the noised nodes, 0 on the others
        eps_values = np.array([0.0, float(epsilons[noised][0])])
        inv = noised.astype(np.int64)
    # each distinct budget's scale 1/eps_x, rounded up from the exact value of the double eps_x
    scale_values = np.array([noise_scale(1, exact_fraction(e)) if e > 0 else np.inf for e in eps_values])
    scales = scale_values[inv]
    variances = np.asarray(laplace_variance(scale_values, discrete=True), dtype=float).reshape(-1)[inv]
    _require_positive_variances(np.all(variances[noised] > 0), algo, params.epsilon)
    scale_index = inv.astype(np.int16 if eps_values.size < 2**15 else np.int64)
    return TreePlan(
        algo,
        eps,
        tree,
        noised,
        epsilons,
        scales,
        variances,
        b,
        noised_levels(tree, noised),
        notes,
        scale_index=scale_index,
        level_epsilons=level_eps,
    )


def choose_algorithm(n_bins: int, epsilon, noise_root: bool = True) -> tuple[str, dict]:
    """The candidate of ``AUTO_CANDIDATES`` with the lowest expected all-range error after least squares for
    n public bins at epsilon (data-independent: a function of public inputs only), and the reason as a
    sidecar-ready dict. ``noise_root=False`` (the user's --no-root) holds for every candidate; with True,
    H_opt still decides itself whether noising the root pays."""
    n = int(n_bins)
    found, left_out = {}, {}
    for algo in AUTO_CANDIDATES:
        if algo == "hopt" and n > AUTO_HOPT_MAX_BINS:
            left_out[algo] = f"more than {AUTO_HOPT_MAX_BINS} bins: its search would take minutes"
            continue
        if algo == "pidentity" and not noise_root:
            left_out[algo] = "its weighted sums may add up to the total (the root)"
            continue
        if algo == "pidentity" and n > AUTO_PIDENTITY_MAX_BINS:
            left_out[algo] = f"more than {AUTO_PIDENTITY_MAX_BINS} bins: its plan would take seconds or more"
            continue
        params = IntervalTreeParams(algo, epsilon, None, noise_root)
        try:
            mse = plan_interval_tree(n, params).expected_consistent_mse
        except HistogramInputError as exc:
            left_out[algo] = str(exc)
            continue
        found[algo] = math.sqrt(mse)

    if not found:
        raise HistogramInputError(
            f"epsilon {epsilon} is too large for every histogram strategy: the noise "
            "variance is 0 in double precision (least squares needs it positive)"
        )
    best = min(found, key=lambda a: (found[a], AUTO_CANDIDATES.index(a)))
    reason = {
        "chosen": best,
        "rule": (
            "lowest expected RMSE of a uniformly random range after least squares, "
            "exact for the noise of a release, from the public n bins and epsilon"
        ),
        "expected_all_range_rmse": {a: round(v, 6) for a, v in found.items()},
    }
    if left_out:
        reason["left_out"] = left_out
    return best, reason


def noised_depths(tree: IntervalTree, noised) -> list[int]:
    """The depths that hold at least one noised node, shallowest first (the levels of a level split)."""
    return sorted({int(d) for d in np.asarray(tree.depth)[np.asarray(noised, dtype=bool)]})


@dataclass
class IntervalTreeResult:
    """What a run produced. No true counts in here."""

    params: IntervalTreeParams
    plan: TreePlan | PIdentityPlan
    noisy: np.ndarray  # per node, int64 (0 where not noised)
    estimates: np.ndarray  # consistent estimate of every node (float)
    released: np.ndarray  # per bin, after post-processing
    is_release: bool
    noise_label: str
    post_processing: dict

    @property
    def consistent_leaves(self) -> np.ndarray:
        return self.estimates[self.plan.tree.leaf_of_bin]


def check_counts(counts) -> np.ndarray:
    """Bin counts as int64: at least 2 bins, whole non-negative numbers (specific messages)."""
    arr = np.asarray(counts)
    if arr.ndim != 1:
        arr = arr.ravel()
    if arr.size == 0:
        raise HistogramInputError("the histogram is empty (no bins)")
    if arr.size < MIN_BINS:
        raise HistogramInputError(f"a histogram needs at least {MIN_BINS} bins, got {arr.size}")
    if not (np.issubdtype(arr.dtype, np.integer) or np.issubdtype(arr.dtype, np.floating) or arr.dtype == bool):
        raise HistogramInputError("counts must be numbers")
    if np.issubdtype(arr.dtype, np.floating):
        bad = np.flatnonzero(~np.isfinite(arr))
        if bad.size:
            raise HistogramInputError(f"count of bin {bad[0] + 1} is not a finite number")
        bad = np.flatnonzero(arr != np.round(arr))
        if bad.size:
            raise HistogramInputError(f"count of bin {bad[0] + 1} is not a whole number ({arr[bad[0]]})")
    bad = np.flatnonzero(arr < 0)
    if bad.size:
        raise HistogramInputError(f"count of bin {bad[0] + 1} is negative ({arr[bad[0]]})")
    return arr.astype(np.int64)


def _label(tree: IntervalTree, i: int, edges) -> str:
    lo, hi = int(tree.lo[i]), int(tree.hi[i])
    if edges is not None:
        from dpstudio.core.taxonomy import interval_label

        return interval_label(edges[lo], edges[hi])
    return f"bins {lo + 1}-{hi}" if hi - lo > 1 else f"bin {lo + 1}"


def sample_tree_noise(true_node_counts, plan: TreePlan, noise: NoiseSource) -> np.ndarray:
    """Noisy counts of the noised nodes (int64; 0 elsewhere), one sampler call per distinct scale."""
    out = np.zeros(plan.tree.n_nodes, dtype=np.int64)
    idx = np.flatnonzero(plan.noised)
    key = plan.scale_index[idx] if plan.scale_index is not None else plan.scales[idx]
    if key.size and key.min() != key.max():
        order = np.argsort(key, kind="stable")  # radix sort on small integers
        idx, key = idx[order], key[order]
    scales = plan.scales[idx]
    cuts = np.flatnonzero(key[1:] != key[:-1]) + 1
    for a, b in zip(np.concatenate([[0], cuts]), np.concatenate([cuts, [idx.size]])):
        sel = idx[a:b]
        out[sel] = noise.laplace_counts(true_node_counts[sel], float(scales[a]))
    return out


def sample_noise_by_scale(counts, scales, noise: NoiseSource) -> np.ndarray:
    """Discrete Laplace noise on each count with its own scale, one sampler call per distinct scale."""
    out = np.zeros(len(counts), dtype=np.int64)
    for s in np.unique(scales):
        sel = np.flatnonzero(scales == s)
        out[sel] = noise.laplace_counts(np.asarray(counts)[sel], float(s))
    return out


def post_process(leaves: np.ndarray, round_counts: bool, clamp_negative: bool):
    """Consistency first (already done), then clamping negatives to 0 and/or rounding to whole numbers."""
    out = np.asarray(leaves, dtype=float).copy()
    applied = []
    if clamp_negative:
        out = np.maximum(out, 0.0)
        applied.append("clamped negative counts to 0")
    if round_counts:
        out = np.round(out)
        applied.append("rounded to whole numbers")
    info = {
        "order": ["least squares consistency (exact BLUE)"] + applied,
        "consistency": "least_squares",
        "clamped": bool(clamp_negative),
        "rounded": bool(round_counts),
    }
    if applied:
        info["note"] = "the analytic error describes the consistent estimate before " + " and ".join(applied)
    return out, info


WHOLE_STEP = (
    "non-negative whole counts: the least-squares bins summed over a binary tree of the bins, then from "
    "the root down each pair of children projected onto {x >= 0, sum x = parent} and rounded by largest "
    "remainder (the total is the root's estimate, rounded)"
)


def whole_bins(bin_estimates: np.ndarray) -> np.ndarray:
    """Whole, non-negative bin counts summing to the rounded total of ``bin_estimates`` (>= 0).

    The estimates are summed over the near-equal binary tree of the bins and projected top-down
    (``project_tree``): a negative estimate takes its deficit from its nearest neighbours first, so every
    range keeps close to its estimate. Projecting over the algorithm's own tree did worse where families
    are wide: over p-Identity's flat tree, or H_b's 74-way root on Adult's ages, the all-range error of a
    sparse histogram doubled; over the binary tree it stayed at or below the least-squares error
    (``benchmarks/bench_whole_counts.py``)."""
    est = np.asarray(bin_estimates, dtype=float)
    tree = regular_tree(est.size, 2)
    nodes = project_tree(tree.parents, tree.node_sums(est), integral=True, levels=tree.levels)
    return nodes[tree.leaf_of_bin]


def publish(estimates: np.ndarray, tree, params: IntervalTreeParams) -> tuple[np.ndarray, np.ndarray, dict]:
    """(published value of every node, published count of every bin, post-processing record) from the
    consistent estimates of every node. Post-processing of noisy values: no budget, nothing private read.

    ``published="whole"``: every bin is a whole number >= 0 (``whole_bins``), every node of the algorithm's
    tree publishes the sum of its bins (so a parent is the sum of its children) and the bins sum to the
    root's rounded estimate. Otherwise the least-squares estimates, with the optional rounding/clamping of
    the leaves (``post_process``); the interior nodes then publish their estimates (the sums of the leaves
    before rounding/clamping)."""
    leaves = tree.leaf_of_bin
    if params.published == "whole":
        bins = whole_bins(np.asarray(estimates, dtype=float)[leaves])
        nodes = tree.node_sums(bins)
        info = {
            "order": ["least squares consistency (exact BLUE)", WHOLE_STEP],
            "consistency": "least_squares",
            "published": "whole",
            "clamped": True,  # never negative: by the projection, not by clamping each bin
            "rounded": True,  # whole: by largest remainder within each family
            "note": (
                "the analytic error describes the least-squares estimate; the whole counts differ from it "
                "by the projection (benchmarks/RESULTS.md measures both)"
            ),
        }
        return nodes, bins, info
    released, info = post_process(estimates[leaves], params.round_counts, params.clamp_negative)
    info["published"] = "least_squares"
    return np.asarray(estimates, dtype=float), released, info


def _published_events(tree, nodes: np.ndarray, released: np.ndarray, params: IntervalTreeParams):
    """``LeavesReleased`` with what the release publishes: every node for whole counts (the interior nodes
    are sums of published bins), the leaves only for least-squares estimates (an interior node's estimate
    is not the sum of the rounded/clamped leaves)."""
    if params.published == "whole":
        yield LeavesReleased(tuple(range(tree.n_nodes)), tuple(nodes.tolist()))
    else:
        yield LeavesReleased(tuple(tree.leaf_of_bin.tolist()), tuple(released.tolist()))


def run_interval_tree(
    counts, params: IntervalTreeParams, noise: NoiseSource, ledger: Ledger, teaching: bool = False
) -> Iterator[Event]:
    """Build, noise and make consistent an interval tree over ``counts``; see the module docstring."""
    if teaching and noise.is_secure:
        raise HistogramInputError("teaching mode shows true counts: it needs simulation noise")
    c = check_counts(counts)
    plan = plan_interval_tree(c.size, params)
    if isinstance(plan, PIdentityPlan):
        yield from _run_pidentity(c, params, plan, noise, ledger, teaching)
        return
    tree = plan.tree
    eps = params.checked_epsilon()
    node_true = tree.node_counts(c)
    per_node = tree.n_nodes <= params.node_events_limit
    depth = tree.depth
    edges = params.edges
    if per_node:
        p = effective_coverage(tree.parents, tree.coverage(), plan.noised, tree.levels)
        for i in range(tree.n_nodes):
            yield NodeCreated(
                i,
                int(tree.parents[i]),
                _label(tree, i, edges),
                int(depth[i]),
                int(node_true[i]) if teaching else None,
                {"lo": int(tree.lo[i]), "hi": int(tree.hi[i]), "coverage": float(p[i]), "noised": bool(plan.noised[i])},
            )
        for node in np.flatnonzero(plan.noised):
            yield BudgetAssigned(int(node), float(plan.epsilons[node]))
    else:
        yield Progress(1, 5, f"tree of {tree.n_nodes} nodes over {tree.n_bins} bins, budgets assigned")

    if plan.level_epsilons is None:
        spend = ledger.spend(
            f"interval tree ({params.algorithm})",
            "discrete Laplace on every noised node",
            eps,
            sensitivity=plan.sensitivity,
            scale=float(plan.scales[plan.noised].min()) if not lookup(params.algorithm).locked_split else None,
            note=(
                f"{tree.n_nodes} nodes, {plan.sensitivity} noised on the longest path; every root-to-leaf "
                f"path sums to at most eps (max {plan.budget_summary()['max_path_sum']:.12g})"
            ),
        )
        yield BudgetSpent(spend, float(ledger.spent), float(ledger.remaining))
    else:
        for d, e in zip(noised_depths(tree, plan.noised), plan.level_epsilons):
            at = (depth == d) & plan.noised
            spend = ledger.spend(
                f"interval tree ({params.algorithm}): level {d}",
                "discrete Laplace on the level's nodes",
                e,
                sensitivity=1,
                scale=float(plan.scales[at].min()),
                note=f"{int(at.sum())} nodes with disjoint bins; a record lies in one of them",
            )
            yield BudgetSpent(spend, float(ledger.spent), float(ledger.remaining))

    noisy = sample_tree_noise(node_true, plan, noise)
    if per_node:
        for node in np.flatnonzero(plan.noised):
            yield NodeNoised(
                int(node), int(noisy[node]), float(plan.variances[node]), int(node_true[node]) if teaching else None
            )
    else:
        yield Progress(2, 5, "noise added")
    del node_true

    est = least_squares(tree.parents, noisy.astype(float), plan.variances, tree.levels)
    if not per_node:
        yield Progress(3, 5, "least squares done")
    yield ConsistencyDone("least_squares", tuple(est.tolist()), 2)
    nodes, released, info = publish(est, tree, params)
    if not per_node:
        yield Progress(4, 5, "post-processing done")
    yield from _published_events(tree, nodes, released, params)
    yield RunFinished(IntervalTreeResult(params, plan, noisy, est, released, bool(noise.is_secure), noise.label, info))


def _run_pidentity(
    c: np.ndarray,
    params: IntervalTreeParams,
    plan: PIdentityPlan,
    noise: NoiseSource,
    ledger: Ledger,
    teaching: bool = False,
) -> Iterator[Event]:
    """The p-Identity strategy: one spend of eps, noise on the bins and the weighted sums, exact least
    squares, then the same post-processing as the trees (``post_process``).

    Up to ``node_events_limit`` bins, the flat tree (the total, not noised, over the bins) is shown node by
    node as a tree run is: each bin's own budget e_j and its noisy count (paid for by the one spend). The
    weighted sums are not nodes of that tree: a progress message says how many there are."""
    eps = params.checked_epsilon()
    s = plan.strategy_summary()
    tree = plan.tree
    per_node = tree.n_nodes <= params.node_events_limit
    leaf = tree.leaf_of_bin
    if per_node:
        node_true = tree.node_counts(c) if teaching else None
        for i in range(tree.n_nodes):
            yield NodeCreated(
                i,
                int(tree.parents[i]),
                _label(tree, i, params.edges),
                int(tree.depth[i]),
                None if node_true is None else int(node_true[i]),
                {"lo": int(tree.lo[i]), "hi": int(tree.hi[i]), "noised": i != 0},
            )
        for j, e in enumerate(plan.bin_epsilons):
            yield BudgetAssigned(int(leaf[j]), float(e))
    spend = ledger.spend(
        "p-Identity strategy",
        "discrete Laplace on every bin and every weighted sum",
        eps,
        sensitivity=1,
        note=(
            f"{c.size} bins and {plan.n_rows} weighted sums; a record's bin is charged at most eps over "
            f"all rows (max {s['max_path_sum']:.12g})"
        ),
    )
    yield BudgetSpent(spend, float(ledger.spent), float(ledger.remaining))
    noisy_bins = sample_noise_by_scale(c, plan.bin_scales, noise)
    noisy_rows = noise.laplace_counts(plan.weights @ c, plan.row_scale)
    if per_node:
        for j in range(c.size):
            yield NodeNoised(
                int(leaf[j]), int(noisy_bins[j]), float(plan.bin_variances[j]), int(c[j]) if teaching else None
            )
    yield Progress(
        2,
        5,
        f"noise added to the {c.size} bins and to {plan.n_rows} weighted sums of bins "
        f"(scale {plan.row_scale:.4g} each; they are not nodes of the tree shown)",
    )
    est = plan.least_squares(noisy_bins, noisy_rows)
    nodes = np.concatenate([[est.sum()], est])  # the flat tree's order: the total, then the bins
    yield ConsistencyDone("least_squares", tuple(nodes.tolist()), 1)
    published, released, info = publish(nodes, tree, params)
    info["order"][0] = "exact weighted least squares of the bins from the bins and the weighted sums"
    yield from _published_events(tree, published, released, params)
    yield RunFinished(
        IntervalTreeResult(
            params,
            plan,
            np.concatenate([noisy_bins, noisy_rows]),
            nodes,
            released,
            bool(noise.is_secure),
            noise.label,
            info,
        )
    )


def release_histogram(
    counts, params: IntervalTreeParams, noise: NoiseSource, ledger: Ledger, teaching: bool = False
) -> IntervalTreeResult:
    """Drain ``run_interval_tree`` and return its result."""
    result = None
    for ev in run_interval_tree(counts, params, noise, ledger, teaching):
        if isinstance(ev, RunFinished):
            result = ev.result
    assert result is not None, "the run ended without its result"
    return result


def monte_carlo_all_range_mse(
    plan: TreePlan, runs: int = 30, seed: int = 0, consistent: bool = True, batch: int = 16, discrete: bool = True
):
    """Measured mean squared error over all ranges (simulation noise, not a release): (mean, std error).

    The error of a linear unbiased estimate does not depend on the counts, so the truth is taken as 0.
    Consistent: least squares, then the prefix-sum identity (exact over all n(n+1)/2 ranges per run).
    Raw: a random sample of 200 ranges per run answered by canonical covers.
    ``discrete=False``: continuous Laplace noise and variances 2 s^2 (the convention of the papers and of
    ALGORITHMS.md's reference figures) instead of the discrete Laplace noise of a release."""
    rng = SimulationNoise(seed).rng
    tree = plan.tree
    idx = np.flatnonzero(plan.noised)
    per_run = []
    n = tree.n_bins
    s2 = plan.variances if discrete else np.where(plan.noised, 2.0 * plan.scales**2, np.inf)
    for start in range(0, runs, batch):
        m = min(batch, runs - start)
        y = np.zeros((tree.n_nodes, m))
        if discrete:
            y[idx] = simulated_discrete_laplace(rng, plan.scales[idx], m)
        else:
            y[idx] = rng.laplace(0.0, 1.0, size=(idx.size, m)) * plan.scales[idx][:, None]
        if consistent:
            est = least_squares(tree.parents, y, s2, tree.levels)[tree.leaf_of_bin]
            for k in range(m):
                per_run.append(all_range_squared_error_sum(est[:, k]) / n_ranges(n))
        else:
            for k in range(m):
                errs = []
                for _ in range(200):
                    l, r = sorted(rng.integers(0, n + 1, size=2))
                    if l == r:
                        continue
                    cov = canonical_cover(tree.parents, tree.lo, tree.hi, plan.noised, l, r, tree.levels)
                    errs.append(y[cov, k].sum() ** 2)
                per_run.append(float(np.mean(errs)))
    a = np.array(per_run)
    se = float(a.std(ddof=1) / math.sqrt(a.size)) if a.size > 1 else float("nan")
    return float(a.mean()), se


def monte_carlo_error_by_length(plan: TreePlan, lengths, runs: int = 30, seed: int = 0, raw_queries: int = 50) -> dict:
    """Measured mean squared error of ranges of each length (simulation noise, not a release).

    ``consistent``: every range of the length, from the least-squares leaves (prefix sums).
    ``raw``: ``raw_queries`` random ranges of the length per run, from the noisy tree's canonical covers.
    Returns {"lengths", "consistent", "raw"} (arrays of mean squared errors)."""
    rng = SimulationNoise(seed).rng
    tree = plan.tree
    n = tree.n_bins
    lengths = np.asarray(lengths, dtype=np.int64)
    idx = np.flatnonzero(plan.noised)
    cons = np.zeros(lengths.size)
    raw = np.zeros(lengths.size)
    for _ in range(runs):
        y = np.zeros(tree.n_nodes)
        y[idx] = simulated_discrete_laplace(rng, plan.scales[idx], 1)[:, 0]
        est = least_squares(tree.parents, y, plan.variances, tree.levels)[tree.leaf_of_bin]
        P = np.concatenate([[0.0], np.cumsum(est)])
        for j, d in enumerate(lengths):
            cons[j] += np.mean((P[d:] - P[:-d]) ** 2)
            starts = rng.integers(0, n - d + 1, size=raw_queries)
            raw[j] += np.mean(
                [
                    y[
                        canonical_cover(tree.parents, tree.lo, tree.hi, plan.noised, int(l), int(l + d), tree.levels)
                    ].sum()
                    ** 2
                    for l in starts
                ]
            )
    return {"lengths": lengths, "consistent": cons / runs, "raw": raw / runs}
