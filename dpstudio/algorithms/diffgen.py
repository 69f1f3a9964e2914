"""One top-down specialization engine for the DiffGen family (ALGORITHMS.md 3, 4, 5). Numpy only.

``run_diffgen(data, params, noise, ledger, teaching=False)`` is a generator of events (see
``dpstudio.core.events``) whose last event is ``RunFinished(DiffGenResult)``. Presets:

- ``diffgen`` (Mohammed et al. 2011): step budget eps' = eps / (2 (|A_num| + 2h)); each of the h steps
  picks a specialization with the exponential mechanism (eps'); numeric attributes grow a tree of intervals
  from their public bounds, split points chosen by the discrete exponential mechanism over the points of
  the attribute's public lattice inside the interval (``dpstudio.core.lattice``: lo + k * resolution, from
  the bounds and the declared kind; or, when the attribute has a taxonomy, its cut points:
  ``core.split_grid.GridLattice``; eps' per choice; sibling intervals hold disjoint records, so one eps'
  covers a step's new intervals); leaf partition x class counts get
  discrete Laplace noise of scale 1/eps_left, eps_left = all that is left (at least eps/2); by default
  the leaves are then made non-negative by the top-down projection over the released tree, whose nodes
  are the sums of the noisy leaves (post-processing: the total stays the unbiased sum of the noisy leaves
  instead of being inflated by clamping).
- ``diffgen-consistent`` (seed 000 section 3): the same tree, but every node of the partition tree is
  noised (per class): by default with per-level budgets chosen for the released tree's shape
  (``diffgen_levels``; an internal node at depth d gets eps_d, a leaf eps_d + ... + eps_(L-1), so every
  path spends exactly eps_c), or uniformly Lap(L/eps_c), L = number of nodes on the longest root-to-leaf
  path (a record lies on one path, so the L1 sensitivity of all node counts is L); then constrained
  inference (exact least squares by default, seed 000's rule on request), then by default the top-down
  projection of ``core.tree_projection`` (non-negative, integral, consistent, total kept), and the
  consistent leaves are released.
- ``maxgddp`` (seed 002): one candidate vector (every categorical specialization and, per numeric
  interval, every public grid split point inside it; the grid of an attribute without a taxonomy is the
  1-2-5 series 1, 2, 5, 10, ... when its public bounds start at 0 or above and span three decades, such as
  money amounts, else 16 equal-width bins of the bounds: ``_grid_for``; public inputs only),
  report-noisy-max with scale Du/eps_l (Max is monotone); eps = eps1 (tree) + eps2 (counts), eps1 split
  over the h levels as eps_l ~ r^l, r = fanout^(1/3) (fanout 3 as in the paper); default eps1 = eps2 =
  eps/2 (the seed leaves the split open; DiffGen's half-and-half). Leaf counts Lap(1/eps2), then the
  same leaf projection as diffgen.

Every option can be combined with the others (``DiffGenParams``). Privacy facts, for any options: the
selection steps compose sequentially (each acts on all records); the split points of one step's new
intervals compose in parallel (disjoint records); the counts are one vector query of L1 sensitivity 1
(leaves) or L (every node, uniform; per-node budgets sum to at most eps_c along every path). Steps that are
not taken (early stop when nothing can be specialized, a categorical winner needs no split point) leave
their budget to the counts: the run spends exactly ``params.epsilon``. Partitions are the cross product of
the attributes' cuts; empty ones are kept and noised (dropping them would leak).

Events of a selection: every selection (a specialization step or one numeric split point) yields its own
``CandidatesScored`` then (after the ``BudgetSpent`` that pays for it) its ``WinnerChosen``, both with the
run's unique ``selection`` number. Scores and selection probabilities depend on the private data: they are
filled only in teaching mode (simulation noise), as are true counts; in release mode they are NaN / None.
A split point's candidates are the lattice points inside the interval, grouped into runs that cut the
records the same way (the runs' ends are data values): in release mode neither the groups nor their number
is shown (empty tuples; the winner's index is -1); only the public interval being split and the released
split point (a lattice point) appear. Every noise scale is ``core.scales.noise_scale`` of the ledgered
epsilon (rounded up), so no scale implies more than the ledger says.
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from dataclasses import asdict, dataclass, field
from fractions import Fraction
from functools import cached_property
from typing import Any

import numpy as np

from ..core import consistency as cons
from ..core.budget import MIN_EPSILON, Ledger, as_fraction, check_usable_epsilon
from ..core.events import (
    BudgetAssigned,
    BudgetSpent,
    CandidatesScored,
    ConsistencyDone,
    Event,
    LeavesReleased,
    NodeCreated,
    NodeNoised,
    Progress,
    RunFinished,
    WinnerChosen,
)
from ..core.mechanisms import (
    choose_split_on_lattice,
    exponential_mechanism,
    exponential_probabilities,
    lattice_probabilities,
    noisy_max_probabilities,
    noisy_max_scale,
    report_noisy_max,
)
from ..core.noise import NoiseSource
from ..core.scales import noise_scale
from ..core.taxonomy import interval_label
from ..core.tree_projection import project_tree, split_rows
from . import diffgen_scores as sc
from .diffgen_input import CategoricalAttribute, DiffGenInput, NumericAttribute
from .diffgen_levels import optimal_level_shares
from .diffgen_variance import discrete_laplace_variance, least_squares_variances, linear_estimator_variances

EXPONENTIAL = "exponential"
NOISY_MAX = "noisy_max"
LEAST_SQUARES = "least_squares"
HAY = "hay_generalized"
NO_CONSISTENCY = "none"
#: the most specialization steps a run takes: each keeps a budget line and a tree level; far beyond any useful h
MAX_STEPS = 1000
#: The finest numeric split grid (candidate split points per numeric attribute).
MAX_GRID_BINS = 1 << 20
#: MAXGDDP's public split grid for a numeric attribute without a taxonomy (``_grid_for``): "equal" =
#: ``grid_bins`` equal-width bins of the bounds; "log" = the 1-2-5 series (1, 2, 5, 10, 20, 50, ...) inside
#: the bounds when they start at 0 or above and span at least three decades (hi >= 1000 max(lo, 1)), the
#: equal-width grid otherwise; "round" (MAXGDDP's default) = the 1-2-5 series where "log" takes it, else the
#: multiples of a round step (1, 2 or 5 times a power of ten, the smallest that cuts the bounds into at most
#: ``grid_bins`` bins: 0.5 for carats in [0, 6), 5 for ages in [17, 91)). All depend on the public bounds only.
EQUAL_GRID = "equal"
LOG_GRID = "log"
ROUND_GRID = "round"
NUMERIC_GRIDS = (EQUAL_GRID, LOG_GRID, ROUND_GRID)
LOG_GRID_DECADES = 3

PRESETS = {
    "diffgen": dict(
        score=sc.MAX,
        selection=EXPONENTIAL,
        budget="diffgen",
        numeric_splits="exponential",
        counts="leaves",
        consistency=NO_CONSISTENCY,
        tree_projection=True,
    ),
    "diffgen-consistent": dict(
        score=sc.MAX,
        selection=EXPONENTIAL,
        budget="diffgen",
        numeric_splits="exponential",
        counts="tree",
        consistency=LEAST_SQUARES,
        node_budget="optimized",
        tree_projection=True,
    ),
    "maxgddp": dict(
        score=sc.MAX,
        selection=NOISY_MAX,
        budget="geometric",
        numeric_splits="grid",
        numeric_grid=ROUND_GRID,
        counts="leaves",
        consistency=NO_CONSISTENCY,
        tree_projection=True,
    ),
}


def _usable_share(name: str, share, eps) -> None:
    """A share of epsilon that is spent must leave a usable epsilon (``core.budget.MIN_EPSILON``): below it
    the noise scale is beyond any figure (ValueError naming the share)."""
    if share > 0 and share * eps < MIN_EPSILON:
        raise ValueError(
            f"{name} {float(share):.3g} of epsilon {float(eps):g} leaves {float(share * eps):.3g} for its step: "
            f"below the smallest usable epsilon, {float(MIN_EPSILON):g}"
        )


@dataclass(frozen=True)
class DiffGenParams:
    """Options of the engine. Use ``preset(name, epsilon, steps, **overrides)``.

    score: "max" | "infogain"; score_scope: "partition" (sum over the partitions holding a candidate) |
    "pooled"; selection: "exponential" | "noisy_max"; budget: "diffgen" (eps' per step) | "geometric"
    (MAXGDDP levels); numeric_splits: "exponential" (DiffGen, data-dependent intervals) | "grid" (public
    split points: the attribute's taxonomy cut points, else ``numeric_grid``: "equal" (``grid_bins``
    equal-width bins of the bounds), "log" (the 1-2-5 series when the bounds span three decades, equal-width
    bins otherwise) or "round" (the 1-2-5 series as "log", else the multiples of a round step, ``round_grid``));
    tree_fraction: eps1 / eps for the geometric budget; fanout: f in r = f^(1/3); counts: "leaves" |
    "tree"; node_budget (tree): "uniform" (L/eps_c everywhere) | "path" (node scale = length of the
    longest path through it / eps_c) | "optimized" (per-level shares chosen for the released tree's shape,
    ``diffgen_levels``; a leaf takes the levels below it); consistency (tree): "least_squares" |
    "hay_generalized" | "none"; round_counts / clamp_negative: post-processing applied after consistency.
    tree_projection (with clamp_negative; tree counts with consistency, or leaf counts): instead of
    clamping, the top-down projection of ``core.tree_projection`` (non-negative, consistent, total kept;
    with round_counts integral by largest-remainder rounding within each family); for leaf counts the
    released tree's nodes are the sums of the noisy leaves (post-processing, no budget).

    Explicit budget split (all fractions of epsilon, exact; None = the preset's formula; see
    ``plan_budget``): ``selection_fractions`` one per selection step (h values); ``split_fraction`` the
    total for the numeric split-point choices, divided equally over the |A_num| + h choices;
    ``count_fraction`` alone: the counts' share, the rest divided as the preset's formula proportions
    dictate (DiffGen: h : |A_num| + h; MAXGDDP: eps1 = eps (1 - count_fraction) over the levels);
    ``level_fractions`` (counts="tree", node_budget="uniform"): relative shares of the count budget for
    the levels 0..h of the partition tree (one ledger entry per level; a record lies on one node per
    level, so every root-to-leaf path sums to at most the count budget). The counts always get what is
    left, so the run spends exactly epsilon.
    """

    epsilon: object
    steps: int
    algorithm: str = "diffgen"
    score: str = sc.MAX
    score_scope: str = "partition"
    selection: str = EXPONENTIAL
    budget: str = "diffgen"
    numeric_splits: str = "exponential"
    grid_bins: int = 16
    numeric_grid: str = EQUAL_GRID
    tree_fraction: object = Fraction(1, 2)
    fanout: float = 3.0
    counts: str = "leaves"
    node_budget: str = "uniform"
    consistency: str = NO_CONSISTENCY
    tree_projection: bool = False
    round_counts: bool = True
    clamp_negative: bool = True
    selection_fractions: tuple | None = None
    split_fraction: object = None
    count_fraction: object = None
    level_fractions: tuple | None = None

    def validate(self) -> DiffGenParams:
        check_usable_epsilon(self.epsilon)
        if not isinstance(self.steps, (int, np.integer)) or self.steps < 0:
            raise ValueError(f"steps must be a whole number >= 0, got {self.steps!r}")
        if self.steps > MAX_STEPS:
            raise ValueError(
                f"steps {self.steps} is more than {MAX_STEPS}: every step keeps a budget line and a tree level "
                f"(at {self.steps} steps the plan alone would take about {self.steps * 100 / 2**30:.3g} GiB), and "
                "each step's share of epsilon shrinks with their number"
            )
        choices = dict(
            score=sc.SCORES,
            score_scope=("partition", "pooled"),
            selection=(EXPONENTIAL, NOISY_MAX),
            budget=("diffgen", "geometric"),
            numeric_splits=("exponential", "grid"),
            numeric_grid=NUMERIC_GRIDS,
            counts=("leaves", "tree"),
            node_budget=("uniform", "path", "optimized"),
            consistency=(LEAST_SQUARES, HAY, NO_CONSISTENCY),
        )
        for name, allowed in choices.items():
            if getattr(self, name) not in allowed:
                raise ValueError(f"{name} must be one of {', '.join(allowed)}; got {getattr(self, name)!r}")
        if self.budget == "geometric" and self.numeric_splits != "grid":
            raise ValueError("the geometric (MAXGDDP) budget needs numeric_splits='grid'")
        tf = as_fraction(self.tree_fraction)
        if not (0 < tf < 1):
            raise ValueError("tree_fraction must lie strictly between 0 and 1")
        if self.budget == "geometric" and self.count_fraction is None and self.selection_fractions is None:
            _usable_share("tree_fraction", tf, as_fraction(self.epsilon))
            _usable_share("1 - tree_fraction", 1 - tf, as_fraction(self.epsilon))
        if not (self.fanout >= 1 and math.isfinite(self.fanout)):
            raise ValueError("fanout must be >= 1")
        if not 2 <= self.grid_bins <= MAX_GRID_BINS:
            shown = self.grid_bins if self.grid_bins < 10**15 else f"about 1e{len(str(int(self.grid_bins))) - 1}"
            raise ValueError(f"grid_bins must be from 2 to {MAX_GRID_BINS:,}, got {shown}")
        self._validate_split()
        return self

    def _validate_split(self) -> None:
        def frac(name, value, lo_open=True):
            try:
                f = as_fraction(value)
            except (ValueError, TypeError, ZeroDivisionError):
                raise ValueError(f"{name} must be a number, got {value!r}") from None
            if not (0 <= f <= 1) or (lo_open and f == 0):
                raise ValueError(f"{name} must lie in {'(0' if lo_open else '[0'}, 1], got {value!r}")
            _usable_share(name, f, eps)
            return f

        eps = as_fraction(self.epsilon)

        used = Fraction(0)
        if self.count_fraction is not None:
            if self.selection_fractions is not None or self.split_fraction is not None:
                raise ValueError("give either count_fraction or selection_fractions/split_fraction, not both")
            cf = frac("count_fraction", self.count_fraction)
            if cf >= 1:
                raise ValueError("count_fraction must be below 1 (the selection steps need budget)")
            _usable_share("1 - count_fraction", 1 - cf, eps)
        if self.selection_fractions is not None:
            sel = [frac("selection_fractions", f) for f in self.selection_fractions]
            if len(sel) != int(self.steps):
                raise ValueError(f"selection_fractions needs one share per step ({int(self.steps)}), got {len(sel)}")
            used += sum(sel, Fraction(0))
        if self.split_fraction is not None:
            if self.numeric_splits != "exponential" and as_fraction(self.split_fraction) != 0:
                raise ValueError("split_fraction is for DiffGen's numeric split points (numeric_splits='exponential')")
            used += frac("split_fraction", self.split_fraction, lo_open=False)
        if used >= 1:
            raise ValueError(
                f"the selection and split-point shares take {float(used):g} of epsilon: nothing is left for the counts"
            )
        if self.level_fractions is not None:
            if self.counts != "tree" or self.node_budget == "path":
                raise ValueError(
                    "level_fractions apply to counts='tree' with node_budget 'uniform' or "
                    "'optimized' (they replace the optimized shares)"
                )
            lv = [frac("level_fractions", f) for f in self.level_fractions]
            if len(lv) != int(self.steps) + 1:
                raise ValueError(
                    f"level_fractions needs one share per tree level (steps + 1 = {int(self.steps) + 1}), got {len(lv)}"
                )

    def to_dict(self) -> dict:
        d = asdict(self)
        d["epsilon"] = str(as_fraction(self.epsilon))
        d["tree_fraction"] = str(as_fraction(self.tree_fraction))
        d["steps"] = int(self.steps)
        for k in ("split_fraction", "count_fraction"):
            if d[k] is not None:
                d[k] = str(as_fraction(d[k]))
        for k in ("selection_fractions", "level_fractions"):
            if d[k] is not None:
                d[k] = [str(as_fraction(f)) for f in d[k]]
        return d


def preset(name: str, epsilon, steps: int, **overrides) -> DiffGenParams:
    """Parameters of a named algorithm (``PRESETS``) with optional overrides."""
    if name not in PRESETS:
        raise ValueError(f"unknown algorithm {name!r} (choose {', '.join(PRESETS)})")
    opts: dict[str, Any] = dict(PRESETS[name])
    opts.update(overrides)
    return DiffGenParams(epsilon=epsilon, steps=steps, algorithm=name, **opts).validate()


@dataclass
class DiffGenTree:
    """The partition tree (node 0 = all records; children = the partitions a specialization produced).

    ``values[i, a]``: node i's generalized value of attribute a (a taxonomy node id, or an interval id
    of ``DiffGenResult.intervals[a]``). ``noisy`` / ``estimates`` (nodes x classes) only when every node
    was noised (counts="tree"); ``noise_variances`` per node then.
    """

    parents: np.ndarray
    depth: np.ndarray
    values: np.ndarray
    noisy: np.ndarray | None = None
    estimates: np.ndarray | None = None
    noise_variances: np.ndarray | None = None


@dataclass
class DiffGenResult:
    """What a run releases (no true counts anywhere).

    Leaf partitions are rows: ``leaf_values[p, a]`` the node id of attribute a's released value, named by
    ``value_labels[a][id]``; ``leaf_labels[p]`` the tuple of labels (built on first use; for large releases
    prefer ``label_columns()``); ``counts[p, k]`` the
    released count of class ``classes[k]`` after post-processing, ``estimates`` the same before rounding
    and clamping, ``variances[p]`` the analytic (data-independent) variance of each of that row's cells
    before rounding/clamping (None when not computed: seed 000's rule on trees over 2,000 nodes).
    ``cut[attribute]``: {"leaf_to_label": {raw value: label}} (categorical) or {"intervals": [[lo, hi,
    label], ...], "closed_top": True} (numeric; the last interval includes the public upper bound), enough
    to generalize any other table (e.g. a test set) to the released cut.
    """

    params: DiffGenParams
    attributes: tuple
    kinds: tuple
    class_name: str
    classes: tuple
    leaf_values: np.ndarray
    value_labels: tuple
    leaf_nodes: np.ndarray
    counts: np.ndarray
    estimates: np.ndarray
    variances: np.ndarray | None
    cut: dict
    tree: DiffGenTree
    ledger: Ledger
    noise: NoiseSource
    post_processing: list
    steps_done: int
    stopped_early: bool
    winners: list = field(default_factory=list)
    intervals: dict = field(default_factory=dict)
    sensitivity_counts: float = 1.0
    count_epsilon: Fraction = Fraction(0)
    numeric_domains: dict = field(default_factory=dict)  # attribute -> its public lattice or split grid

    @property
    def n_cells(self) -> int:
        return int(self.counts.size)

    @property
    def n_partitions(self) -> int:
        """The number of leaf partitions (``len(leaf_labels)``, without building the labels)."""
        return int(self.leaf_values.shape[0])

    def label_columns(self) -> list:
        """One object array per attribute: the released label of every leaf partition."""
        return [
            np.asarray(self.value_labels[a], dtype=object)[self.leaf_values[:, a]] for a in range(len(self.attributes))
        ]

    @cached_property
    def leaf_labels(self) -> list:
        cols = self.label_columns()
        if not cols:
            return [()] * int(self.leaf_values.shape[0])
        return [tuple(row) for row in np.column_stack(cols).tolist()]


# ---------------------------------------------------------------------------------------------------
class _Intervals:
    """The growing tree of intervals of one numeric attribute (public: bounds and released split points)."""

    def __init__(self, lo: float, hi: float, cells: int):
        self.lo = [float(lo)]
        self.hi = [float(hi)]
        self.parent = [-1]
        self.split = [math.nan]
        self.cut = [0]
        self.top = float(hi)
        # lattice cells [klo, khi) of each interval, and the index of its chosen split point (DiffGen)
        self.klo, self.khi, self.ksplit = [0], [int(cells)], [-1]

        self.labels = [interval_label(lo, hi)]

    def add(self, lo: float, hi: float, parent: int, klo: int = -1, khi: int = -1) -> int:
        self.lo.append(float(lo))
        self.hi.append(float(hi))
        self.parent.append(parent)
        self.split.append(math.nan)
        self.klo.append(klo)
        self.khi.append(khi)
        self.ksplit.append(-1)
        self.labels.append(interval_label(lo, hi))
        return len(self.lo) - 1

    def label(self, i: int) -> str:
        return self.labels[i]


def _group_label(lattice, k0: int, k1: int) -> str:
    """Teaching display of a group of lattice split points c_k0..c_(k1-1)."""
    if k1 <= k0:
        return "(no lattice point)"
    if k1 == k0 + 1:
        return f"{lattice.point(k0):g}"
    return f"{k1 - k0} points {lattice.point(k0):g} .. {lattice.point(k1 - 1):g}"


def uses_log_grid(lo: float, hi: float) -> bool:
    """Whether the "log" grid rule takes the 1-2-5 series for public bounds [lo, hi)."""
    return lo >= 0 and hi >= 10**LOG_GRID_DECADES * max(lo, 1.0)


def log_grid(lo: float, hi: float) -> np.ndarray:
    """The 1-2-5 series 1, 2, 5, 10, ... strictly inside (lo, hi)."""
    top = max(0, int(math.ceil(math.log10(max(hi, 1.0)))))
    g = np.array([m * 10.0**k for k in range(top + 1) for m in (1, 2, 5)])
    return g[(g > lo) & (g < hi)]


def round_step(lo: float, hi: float, bins: int, integer: bool = False) -> float:
    """The step of the "round" grid: the smallest 1, 2 or 5 times a power of ten that is at least
    (hi - lo) / bins (at least 1 for an integer attribute). From the public bounds only."""
    raw = (hi - lo) / bins
    k = math.floor(math.log10(raw))
    step = next(m * 10.0**e for e in (k, k + 1) for m in (1, 2, 5) if m * 10.0**e >= raw * (1 - 1e-12))
    return max(step, 1.0) if integer else step


def round_grid(lo: float, hi: float, bins: int, integer: bool = False) -> np.ndarray:
    """The multiples of ``round_step`` strictly inside (lo, hi): at most ``bins`` bins, every point a round
    number (the thresholds people write: 1.0 carat, 40 hours, 50 years)."""
    step = round_step(lo, hi, bins, integer)
    g = np.arange(math.floor(lo / step) + 1, math.ceil(hi / step)) * step
    g = np.round(g, max(0, -math.floor(math.log10(step))))
    return g[(g > lo) & (g < hi)]


def _grid_rule(attr: NumericAttribute, kind: str) -> str:
    """Which grid ``_grid_for`` builds for ``attr``: "taxonomy" (its cut points), LOG_GRID, ROUND_GRID or
    EQUAL_GRID."""
    if attr.grid is not None:
        return "taxonomy"
    if kind in (LOG_GRID, ROUND_GRID) and uses_log_grid(attr.lo, attr.hi):
        return LOG_GRID
    return ROUND_GRID if kind == ROUND_GRID else EQUAL_GRID


def _grid_for(attr: NumericAttribute, bins: int, kind: str = EQUAL_GRID) -> np.ndarray:
    rule = _grid_rule(attr, kind)
    if rule == "taxonomy":
        g = np.unique(np.asarray(attr.grid, dtype=float))
    elif rule == LOG_GRID:
        g = log_grid(attr.lo, attr.hi)
    elif rule == ROUND_GRID:
        g = round_grid(attr.lo, attr.hi, bins, attr.integer)
    else:
        g = attr.lo + (attr.hi - attr.lo) * np.arange(1, bins) / bins
        if attr.integer:
            g = np.unique(np.round(g))
    return g[(g > attr.lo) & (g < attr.hi)]


@dataclass(frozen=True)
class DiffGenBudget:
    """The public split of a run (exact): ``step_epsilons`` one per selection step; ``split_epsilon`` per
    numeric split-point choice (``split_choices`` = |A_num| + h of them at most); ``count_epsilon`` what
    the counts get if every planned step and choice is taken (untaken ones add to it);
    ``level_weights``: relative shares of the count budget per tree level (None: uniform / leaves)."""

    epsilon: Fraction
    step_epsilons: tuple
    split_epsilon: Fraction
    split_choices: int
    count_epsilon: Fraction
    level_weights: tuple | None = None

    @property
    def selection_total(self) -> Fraction:
        return sum(self.step_epsilons, Fraction(0))

    @property
    def split_total(self) -> Fraction:
        return self.split_epsilon * self.split_choices


def plan_budget(params: DiffGenParams, n_numeric: int) -> DiffGenBudget:
    """The engine's budget split for ``params`` and ``n_numeric`` numeric attributes with DiffGen
    (exponential) split points. Public: depends on epsilon, h and the attribute kinds only."""
    eps = as_fraction(params.epsilon)
    h = int(params.steps)
    a = int(n_numeric) if params.numeric_splits == "exponential" else 0
    choices = (a + h) if h > 0 else 0
    split_each = Fraction(0)
    if params.budget == "diffgen":
        if params.count_fraction is not None:
            rest = eps * (1 - as_fraction(params.count_fraction))
            step = rest / (a + 2 * h) if h > 0 else Fraction(0)
        else:
            step = eps / (2 * (a + 2 * h)) if h > 0 else Fraction(0)
        steps = [step] * h
        split_each = step
    else:
        if params.count_fraction is not None:
            eps1 = eps * (1 - as_fraction(params.count_fraction))
        else:
            eps1 = eps * as_fraction(params.tree_fraction)
        r = float(params.fanout) ** (1.0 / 3.0)
        w = [Fraction(r**l).limit_denominator(10**12) for l in range(1, h + 1)]
        total = sum(w, Fraction(0))
        steps = [eps1 * wl / total for wl in w]
    if params.selection_fractions is not None:
        steps = [eps * as_fraction(f) for f in params.selection_fractions]
    if params.split_fraction is not None:
        split_each = eps * as_fraction(params.split_fraction) / choices if choices else Fraction(0)
    if params.numeric_splits != "exponential":
        split_each, choices = Fraction(0), 0
    count = eps - sum(steps, Fraction(0)) - split_each * choices
    levels = None if params.level_fractions is None else tuple(as_fraction(f) for f in params.level_fractions)
    return DiffGenBudget(eps, tuple(steps), split_each, choices, count, levels)


def _budget_plan(params: DiffGenParams, n_numeric_exp: int) -> tuple[Fraction, list[Fraction]]:
    """(eps' for DiffGen splits, per-step selection budgets)."""
    b = plan_budget(params, n_numeric_exp)
    return b.split_epsilon, list(b.step_epsilons)


class _Engine:
    def __init__(self, data: DiffGenInput, params: DiffGenParams, noise: NoiseSource, ledger: Ledger, teaching: bool):
        self.data, self.params, self.noise, self.ledger, self.teaching = data, params, noise, ledger, teaching
        self.A = len(data.attributes)
        self.K = len(data.classes)
        self.N = data.n_records
        self.y = np.asarray(data.y, dtype=np.int64)
        self.w = None if data.weights is None else np.asarray(data.weights, dtype=np.int64)
        self.du = sc.sensitivity(params.score, self.K)
        self.cur: list[np.ndarray] = []
        self.intervals: dict[int, _Intervals] = {}
        self.detail = True  # per-node events (run_diffgen sets it)
        self.script: Any = None  # a fixed sequence of specializations to replay (run_diffgen sets it)
        self.lattices: dict = {}
        self.grids: dict[int, np.ndarray] = {}
        self.bins: dict[int, np.ndarray] = {}
        self.value_counts: dict[int, tuple[np.ndarray, np.ndarray]] = {}
        self.cat_cut: dict[int, list[int]] = {}
        self.has_children: dict[int, np.ndarray] = {}
        self.child_node: dict[int, np.ndarray] = {}
        for a, attr in enumerate(data.attributes):
            if isinstance(attr, CategoricalAttribute):
                tax = attr.taxonomy
                self.cur.append(np.zeros(self.N, dtype=np.int64))
                self.cat_cut[a] = [0]
                self.has_children[a] = np.array([bool(c) for c in tax.children])
                # each record's taxonomy node one level below its current value (itself at a leaf)
                self.child_node[a] = tax.ancestor_table[attr.leaf_ids, min(1, tax.height)]
            else:
                self.cur.append(np.zeros(self.N, dtype=np.int64))
                lattice = attr.split_lattice
                self.lattices[a] = lattice
                self.intervals[a] = _Intervals(attr.lo, attr.hi, lattice.cells)
                x = np.asarray(attr.values, dtype=float)
                if params.numeric_splits == "grid":
                    g = _grid_for(attr, params.grid_bins, params.numeric_grid)
                    self.grids[a] = g
                    self.bins[a] = np.searchsorted(g, x, side="right")
                else:
                    # each record's lattice cell, once: a per-record rule (x < c_k iff cell < k)
                    uniq, inv = np.unique(lattice.index(x), return_inverse=True)
                    vc = sc.count_keys(inv.reshape(-1) * self.K + self.y, uniq.size * self.K, self.w).reshape(
                        -1, self.K
                    )
                    self.value_counts[a] = (uniq, vc)
        self.part = np.zeros(self.N, dtype=np.int64)
        self.leaf_vals = np.zeros((1, self.A), dtype=np.int32)  # node ids per attribute (int32: memory)
        self.leaf_tree = np.zeros(1, dtype=np.int64)
        self.leaf_depth = np.zeros(1, dtype=np.int64)
        self.tree_parent = [np.array([-1], dtype=np.int64)]
        self.tree_depth = [np.array([0], dtype=np.int64)]
        self.tree_vals = [self.leaf_vals.copy()]
        self.n_tree = 1
        self.winners: list[str] = []
        self.last_attribute = -1
        self.n_selections = 0

    # -- labels ---------------------------------------------------------------------------------------
    def label_matrix(self, vals: np.ndarray) -> list:
        """Rows of released labels (one per attribute) for rows of node ids."""
        cols = []
        for a, attr in enumerate(self.data.attributes):
            names = attr.taxonomy.labels if isinstance(attr, CategoricalAttribute) else self.intervals[a].labels
            cols.append(np.asarray(names, dtype=object)[vals[:, a]])
        if not cols:
            return [()] * vals.shape[0]
        return np.column_stack(cols).tolist()

    def next_selection(self) -> int:
        """A unique number for each selection of the run (specializations and split points)."""
        self.n_selections += 1
        return self.n_selections - 1

    # -- spending -------------------------------------------------------------------------------------
    def spend(
        self, step: str, mechanism: str, eps: Fraction, sens: float, scale: float | None, note: str = ""
    ) -> BudgetSpent:
        entry = self.ledger.spend(step, mechanism, eps, sens, scale, note)
        return BudgetSpent(entry, float(self.ledger.spent), float(self.ledger.remaining))

    # -- numeric split points (DiffGen) -----------------------------------------------------------------
    def splittable_interval(self, a: int, i: int) -> bool:
        """At least one lattice point lies strictly inside the interval (public)."""
        iv = self.intervals[a]
        return iv.khi[i] - iv.klo[i] >= 2

    def choose_split(self, a: int, i: int, eps: Fraction, step: int, what: str) -> Iterator[Event]:
        """Discrete exponential mechanism over the lattice points inside interval i: spends ``eps`` (as
        ``what``), then draws the index k; the split point is the lattice point c_k."""
        iv = self.intervals[a]
        lattice = self.lattices[a]
        ka, kb = iv.klo[i], iv.khi[i]
        uniq, vc = self.value_counts[a]
        r0 = int(np.searchsorted(uniq, ka, side="left"))
        r1 = int(np.searchsorted(uniq, kb, side="left"))
        # group j: split indices k in [starts[j], starts[j+1]) send the first j occupied cells left
        starts = np.concatenate([[ka + 1], uniq[r0:r1] + 1, [kb]]).astype(np.int64)
        scores = sc.split_scores(self.params.score, vc[r0:r1])
        sel = self.next_selection()
        mech = "exponential mechanism over split-point intervals of the public lattice (count-weighted)"
        if self.teaching:
            p = lattice_probabilities(starts, scores, eps, self.du)
            groups = [(starts[j], starts[j + 1]) for j in range(starts.size - 1)]
            ranges = tuple(
                (lattice.point(k0), lattice.point(k1 - 1), int(k1 - k0)) if k1 > k0 else (None, None, 0)
                for k0, k1 in groups
            )
            yield CandidatesScored(
                step,
                tuple(_group_label(lattice, k0, k1) for k0, k1 in groups),
                tuple(float(s) for s in scores),
                tuple(float(x) for x in p),
                mech,
                sel,
                (iv.lo[i], iv.hi[i]),
                ranges,
            )
        else:
            # the groups' ends are data values (private), and so is their number: only the public
            # interval being split is named (in the mechanism text)
            yield CandidatesScored(step, (), (), (), f"{mech}: split point of {iv.label(i)}", sel)
        yield self.spend(what, mech, eps, self.du, noise_scale(self.du, eps, 2))
        script = getattr(self, "script", None)
        if script is not None and sel in script.split_points:
            k = int(lattice.index([float(script.split_points[sel])])[0])
            if not (ka < k < kb and lattice.point(k) == float(script.split_points[sel])):
                raise ValueError(f"the recorded split point of selection {sel} does not fit this interval")
            j = int(np.searchsorted(starts, k, side="right")) - 1
        else:
            j, k = choose_split_on_lattice(starts, scores, eps, self.du, self.noise)
        s = lattice.point(k)
        iv.split[i] = s
        iv.ksplit[i] = k
        attr = self.data.attributes[a]
        yield WinnerChosen(step, int(j) if self.teaching else -1, f"{attr.name}={iv.label(i)} split at {s:g}", sel)

    # -- candidates -------------------------------------------------------------------------------------
    def candidates(self):
        """(labels, scores, specs); spec = (attribute, node, split point or None)."""
        if self.params.score_scope == "partition":
            occupied = np.bincount(self.part, minlength=self.leaf_tree.size) > 0
            remap = np.cumsum(occupied) - 1
            pc = remap[self.part]
            n_part = int(occupied.sum()) or 1
        else:
            pc = np.zeros(self.N, dtype=np.int64)
            n_part = 1
        labels, scores, specs = [], [], []
        pcy = pc * self.K + self.y
        for a, attr in enumerate(self.data.attributes):
            cur = self.cur[a]
            if isinstance(attr, CategoricalAttribute):
                tax = attr.taxonomy
                cands = [v for v in self.cat_cut[a] if self.has_children[a][v]]
                if not cands:
                    continue
                # local child codes: the children of the candidates are 0..C-1, every other node C
                kids = [c for v in cands for c in tax.children[v]]
                local = np.full(len(tax), len(kids), dtype=np.int64)
                local[kids] = np.arange(len(kids))
                cand_of_child = np.repeat(np.arange(len(cands)), [len(tax.children[v]) for v in cands])
                s = sc.candidate_scores_all(
                    self.params.score, local[self.child_node[a]], pcy, cand_of_child, len(cands), n_part, self.K, self.w
                )
                for v in cands:
                    labels.append(f"{attr.name}={tax.labels[v]}")
                    specs.append((a, v, None))
                scores.append(s)
            elif self.params.numeric_splits == "exponential":
                iv = self.intervals[a]
                cands = [v for v in iv.cut if not math.isnan(iv.split[v])]
                if not cands:
                    continue
                split = np.asarray(iv.split)
                index = np.full(len(split), -1, dtype=np.int64)
                index[cands] = np.arange(len(cands))
                idx = index[cur]
                child = np.where(idx >= 0, 2 * idx + (attr.values >= split[cur]), 2 * len(cands))
                cand_of_child = np.repeat(np.arange(len(cands)), 2)
                s = sc.candidate_scores_all(
                    self.params.score, child, pcy, cand_of_child, len(cands), n_part, self.K, self.w
                )
                for v in cands:
                    labels.append(f"{attr.name}={iv.label(v)} at {split[v]:g}")
                    specs.append((a, v, float(split[v])))
                scores.append(s)
            else:
                s, lab, spec = self.grid_candidates(a, pc, n_part)
                if spec:
                    labels += lab
                    specs += spec
                    scores.append(s)
        if not specs:
            return [], np.zeros(0), []
        return labels, np.concatenate(scores), specs

    def grid_candidates(self, a: int, pc: np.ndarray, n_part: int):
        iv = self.intervals[a]
        g = self.grids[a]
        nb = g.size + 1
        blo: Any
        bhi: Any
        cut: Any
        blo, bhi, cut, vs = [], [], [], []
        for v in iv.cut:
            b0 = int(np.searchsorted(g, iv.lo[v], side="right"))
            b1 = int(np.searchsorted(g, iv.hi[v], side="left")) + 1
            for i in range(b0, b1 - 1):
                blo.append(b0)
                bhi.append(b1)
                cut.append(i)
                vs.append(v)
        if not vs:
            return None, [], []
        blo, bhi, cut = np.array(blo), np.array(bhi), np.array(cut)
        chunk = max(1, sc.DENSE_LIMIT // (nb * self.K))
        total = np.zeros(cut.size)
        records = np.zeros(cut.size)
        bins = self.bins[a]
        for start in range(0, n_part, chunk):
            stop = min(n_part, start + chunk)
            m: Any
            if start == 0 and stop == n_part:
                m = slice(None)
            else:
                m = (pc >= start) & (pc < stop)
            key = ((pc[m] - start) * nb + bins[m]) * self.K + self.y[m]
            w = None if self.w is None else self.w[m]
            dense = sc.count_keys(key, (stop - start) * nb * self.K, w).reshape(stop - start, nb, self.K)
            cum = np.zeros((stop - start, nb + 1, self.K))
            np.cumsum(dense, axis=1, out=cum[:, 1:, :])
            num, n_v = sc.grid_split_terms(self.params.score, cum, blo, bhi, cut)
            total += num
            records += n_v
        total = sc.finish_grid_scores(self.params.score, total, records)
        labels = [f"{self.data.attributes[a].name}={iv.label(v)} at {g[i]:g}" for v, i in zip(vs, cut)]
        specs = [(a, v, float(g[i])) for v, i in zip(vs, cut)]
        return total, labels, specs

    # -- specialization ----------------------------------------------------------------------------------
    def specialize(self, a: int, v: int, split: float | None) -> tuple[list[int], np.ndarray]:
        """Replace v by its children in every partition holding it; returns (children, new tree ids)."""
        attr = self.data.attributes[a]
        cur = self.cur[a]
        in_v = cur == v
        if isinstance(attr, CategoricalAttribute):
            tax = attr.taxonomy
            children = list(tax.children[v])
            pos_of = np.full(len(tax), 0, dtype=np.int64)
            pos_of[children] = np.arange(len(children))
            child_nodes = tax.ancestor_table[attr.leaf_ids[in_v], tax.depth[v] + 1]
            childpos = pos_of[child_nodes]
            cut = self.cat_cut[a]
            k = cut.index(v)
            self.cat_cut[a] = cut[:k] + children + cut[k + 1 :]
            below = min(int(tax.depth[v]) + 2, tax.height)
            self.child_node[a][in_v] = tax.ancestor_table[attr.leaf_ids[in_v], below]
        else:
            assert split is not None, "a numeric specialization needs its split point"
            iv = self.intervals[a]
            lo, hi = iv.lo[v], iv.hi[v]
            k = iv.ksplit[v]  # -1 for a grid split point (MAXGDDP): no lattice cells needed
            children = [iv.add(lo, split, v, iv.klo[v], k), iv.add(split, hi, v, k, iv.khi[v])]
            childpos = (attr.values[in_v] >= split).astype(np.int64)
            k = iv.cut.index(v)
            iv.cut = iv.cut[:k] + children + iv.cut[k + 1 :]
            iv.split[v] = math.nan
            child_nodes = np.asarray(children)[childpos]
        nk = len(children)
        holds = self.leaf_vals[:, a] == v
        lengths = np.where(holds, nk, 1)
        starts = np.cumsum(lengths) - lengths
        new_vals = np.repeat(self.leaf_vals, lengths, axis=0)
        new_tree = np.repeat(self.leaf_tree, lengths)
        new_depth = np.repeat(self.leaf_depth, lengths)
        fresh = np.repeat(holds, lengths)
        n_new = int(fresh.sum())
        new_vals[fresh, a] = np.tile(np.asarray(children, dtype=np.int32), n_new // nk)
        parents = new_tree[fresh]
        ids = np.arange(self.n_tree, self.n_tree + n_new, dtype=np.int64)
        new_tree[fresh] = ids
        new_depth[fresh] += 1
        self.n_tree += n_new
        self.tree_parent.append(parents)
        self.tree_depth.append(new_depth[fresh])
        self.leaf_depth = new_depth
        self.tree_vals.append(new_vals[fresh])
        offset = np.zeros(self.N, dtype=np.int64)
        offset[in_v] = childpos
        self.part = starts[self.part] + offset
        cur = cur.copy()
        cur[in_v] = child_nodes
        self.cur[a] = cur
        self.leaf_vals, self.leaf_tree = new_vals, new_tree
        return children, np.flatnonzero(fresh)

    def node_events(self, positions: np.ndarray, branch: str = "all records") -> Iterator[Event]:
        """NodeCreated for the leaf partitions at ``positions``: label = the branch "attribute=value",
        info["values"] = every attribute's generalized value; true_count in teaching mode only."""
        if not self.detail:
            return
        counts = sc.count_keys(self.part, self.leaf_tree.size, self.w)[positions] if self.teaching else None
        nodes = self.leaf_tree[positions]
        depth = self.leaf_depth[positions].tolist()
        parent = np.concatenate(self.tree_parent)[nodes].tolist()
        rows = self.label_matrix(self.leaf_vals[positions])
        a = self.last_attribute
        for j, node in enumerate(nodes.tolist()):
            values = tuple(rows[j])
            label = branch if a < 0 else f"{self.data.attributes[a].name}={values[a]}"
            yield NodeCreated(
                node, parent[j], label, depth[j], int(counts[j]) if counts is not None else None, {"values": values}
            )


@dataclass(frozen=True)
class ReplayScript:
    """Teaching only: the outcomes of a recorded run's selections, by selection number, to run the same
    history again on a neighbouring table (the neighbour view of a selection: the scores and probabilities of
    one step on D and on D minus one record, after the same earlier choices). ``winners``: selection ->
    index of the chosen candidate (a specialization; the candidates depend on the cut only, so an index
    names the same candidate on both tables); ``split_points``: selection -> the chosen split point (a point
    of the attribute's public lattice). A scripted selection draws no noise. Never used for a release."""

    winners: dict
    split_points: dict


def run_diffgen(
    data: DiffGenInput,
    params: DiffGenParams,
    noise: NoiseSource,
    ledger: Ledger,
    teaching: bool = False,
    *,
    per_node_events: bool = True,
    script: ReplayScript | None = None,
) -> Iterator[Event]:
    """Run the engine; yields events, the last one ``RunFinished(DiffGenResult)``.

    Spends exactly ``params.epsilon`` from ``ledger`` (each spend before the value it pays for is
    yielded). ``teaching=True`` fills true counts and scores in the events and needs simulation noise.
    ``per_node_events=False`` (headless runs: CLI, benchmarks, evaluation) skips the per-node events
    (NodeCreated, NodeNoised, BudgetAssigned) and leaves ConsistencyDone.estimates and LeavesReleased
    empty; the result is the same. ``script`` (teaching only): replay a recorded history (``ReplayScript``).
    """
    data.validate()
    params.validate()
    if teaching and noise.is_secure:
        raise ValueError("teaching mode shows true counts: it runs on simulation noise only")
    if script is not None and (noise.is_secure or not teaching):
        raise ValueError("a scripted history is for teaching runs on simulation noise only")
    eps = as_fraction(params.epsilon)
    if eps > ledger.remaining:
        raise ValueError(f"epsilon {float(eps):g} exceeds what is left in the ledger ({float(ledger.remaining):g})")
    if data.n_records == 0:
        raise ValueError("the table is empty")
    start_spent = ledger.spent
    eng = _Engine(data, params, noise, ledger, teaching)
    eng.detail = per_node_events
    eng.script = script
    numeric_exp = [
        a
        for a, at in enumerate(data.attributes)
        if isinstance(at, NumericAttribute) and params.numeric_splits == "exponential"
    ]
    split_eps, step_eps = _budget_plan(params, len(numeric_exp))
    h = int(params.steps)
    if numeric_exp and h > 0 and split_eps <= 0:
        raise ValueError(
            "the split-point share is 0 but numeric attributes need split points: give them a share of epsilon"
        )
    yield Progress(0, h, "start")
    yield from eng.node_events(np.array([0]))

    if h > 0:
        for a in numeric_exp:
            if not eng.splittable_interval(a, 0):
                continue
            yield from eng.choose_split(a, 0, split_eps, 0, f"split point of {data.attributes[a].name} (root interval)")

    steps_done = 0
    stopped_early = False
    for t in range(1, h + 1):
        labels, scores, specs = eng.candidates()
        if not specs:
            stopped_early = True
            yield Progress(t - 1, h, "nothing left to specialize: the unspent budget goes to the counts")
            break
        e = step_eps[t - 1]
        ef = float(e)
        monotone = sc.is_monotone(params.score)
        if params.selection == EXPONENTIAL:
            mech = "exponential mechanism"
            scale = noise_scale(eng.du, e, 2)
        else:
            mech = "report-noisy-max (exponential noise)"
            scale = noisy_max_scale(eng.du, e, monotone)
        sel = eng.next_selection()
        if teaching:
            if params.selection == EXPONENTIAL:
                probs = exponential_probabilities(scores, ef, eng.du)
            else:
                probs = noisy_max_probabilities(scores, ef, eng.du, monotone, draws=2000, seed=t)
            yield CandidatesScored(
                t, tuple(labels), tuple(float(s) for s in scores), tuple(float(p) for p in probs), mech, sel
            )
        else:
            nan = (math.nan,) * len(labels)
            yield CandidatesScored(t, tuple(labels), nan, nan, mech, sel)
        yield eng.spend(
            f"step {t}: choose a specialization",
            mech,
            e,
            eng.du,
            scale,
            f"{len(labels)} candidates, score {params.score}",
        )
        if script is not None and sel in script.winners:
            w = int(script.winners[sel])
            if not 0 <= w < len(specs):
                raise ValueError(f"the recorded choice of selection {sel} does not fit this table")
        elif params.selection == EXPONENTIAL:
            w = exponential_mechanism(scores, e, eng.du, noise)
        else:
            w = report_noisy_max(scores, e, eng.du, monotone, noise)
        a, v, split = specs[w]
        eng.winners.append(labels[w])
        yield WinnerChosen(t, int(w), labels[w], sel)
        children, fresh = eng.specialize(a, v, split)
        eng.last_attribute = a
        yield from eng.node_events(fresh)
        if a in numeric_exp:
            todo = [c for c in children if eng.splittable_interval(a, c)]
            if todo:
                with ledger.parallel(f"step {t}: split points of {data.attributes[a].name}"):
                    for c in todo:
                        yield from eng.choose_split(
                            a,
                            c,
                            split_eps,
                            t,
                            f"step {t}: split point of {data.attributes[a].name}={eng.intervals[a].label(c)}",
                        )
        steps_done = t
        yield Progress(t, h, labels[w])

    yield from _release_counts(eng, eps - (ledger.spent - start_spent), steps_done, stopped_early)


def _release_counts(eng: _Engine, eps_c: Fraction, steps_done: int, stopped_early: bool) -> Iterator[Event]:
    params, noise, K = eng.params, eng.noise, eng.K
    P = eng.leaf_tree.size
    leaf_true = sc.count_keys(eng.part * K + eng.y, P * K, eng.w).reshape(P, K)
    parents = np.concatenate(eng.tree_parent)
    depth = np.concatenate(eng.tree_depth)
    values = np.concatenate(eng.tree_vals)
    tree = DiffGenTree(parents, depth, values)
    post = []
    epc = float(eps_c)
    if params.counts == "leaves":
        scale = noise_scale(1, eps_c)
        yield eng.spend(
            "counts: every leaf partition x class",
            "discrete Laplace",
            eps_c,
            1.0,
            scale,
            f"{P} partitions x {K} classes; empty partitions included",
        )
        noisy = noise.laplace_counts(leaf_true, scale)
        var = discrete_laplace_variance(scale)
        truth = leaf_true.tolist() if eng.teaching else None
        for p, (node, row) in enumerate(zip(eng.leaf_tree.tolist(), noisy.tolist()) if eng.detail else ()):
            yield NodeNoised(node, tuple(row), var, tuple(truth[p]) if truth is not None else None)
        estimates = noisy.astype(float)
        variances: np.ndarray | None = np.full(P, var)
        sensitivity = 1.0
    else:
        n = parents.size
        levels = _levels_of(depth)
        true = _subtree_sums(parents, levels, eng.leaf_tree, leaf_true)
        L = int(depth.max()) + 1
        sensitivity = float(L)
        level_eps = None
        if params.level_fractions is None and params.node_budget == "optimized":
            level_eps, node_scale = yield from _spend_optimized_levels(eng, parents, depth, eps_c, L)
        elif params.level_fractions is not None:
            # planned levels 0..h; a shallower tree gives the shares of the missing levels to its deepest
            w = [as_fraction(f) for f in params.level_fractions]
            w = w[: L - 1] + [sum(w[L - 1 :], Fraction(0))]
            tot = sum(w, Fraction(0))
            level_eps = [eps_c * x / tot for x in w[:-1]]
            level_eps.append(eps_c - sum(level_eps, Fraction(0)))
            node_scale = np.array([noise_scale(1, level_eps[d]) for d in range(L)])[depth]
            for d, e in enumerate(level_eps):
                yield eng.spend(
                    f"counts: level {d} of the DiffGen tree x class",
                    "discrete Laplace",
                    e,
                    1.0,
                    noise_scale(1, e),
                    f"{int(np.sum(depth == d))} nodes x {K} classes; a record lies in one node of the level",
                )
        elif params.node_budget == "uniform":
            node_len = np.full(n, L)
            yield eng.spend(
                "counts: every node of the DiffGen tree x class",
                "discrete Laplace",
                eps_c,
                L,
                noise_scale(L, eps_c),
                f"{n} nodes x {K} classes; L = {L} nodes on the longest path",
            )
        else:
            below = depth.copy()
            for nodes in reversed(levels[1:]):
                np.maximum.at(below, parents[nodes], below[nodes])
            node_len = below + 1
            yield eng.spend(
                "counts: every node of the DiffGen tree x class",
                "discrete Laplace",
                eps_c,
                L,
                None,
                f"{n} nodes x {K} classes; node scale = (nodes on the longest path "
                "through it) / eps_c, so every root-to-leaf path sums to <= eps_c",
            )
            for i, length in enumerate(node_len.tolist() if eng.detail else ()):
                yield BudgetAssigned(i, epc / length)
        if level_eps is None:
            lengths = np.unique(node_len)
            node_scale = np.array([noise_scale(int(m), eps_c) for m in lengths])[np.searchsorted(lengths, node_len)]
        noisy = np.zeros((n, K), dtype=np.int64)
        node_var = np.zeros(n)
        for scale in np.unique(node_scale):
            nodes = np.flatnonzero(node_scale == scale)
            noisy[nodes] = noise.laplace_counts(true[nodes], float(scale))
            node_var[nodes] = discrete_laplace_variance(float(scale))
        truth = true.tolist() if eng.teaching else None
        for i, (row, v) in enumerate(zip(noisy.tolist(), node_var.tolist()) if eng.detail else ()):
            yield NodeNoised(i, tuple(row), v, tuple(truth[i]) if truth is not None else None)
        tree.noisy = noisy
        tree.noise_variances = node_var
        var_all: np.ndarray | None
        if params.consistency == LEAST_SQUARES:
            est = cons.least_squares(parents, noisy, node_var)
            var_all = least_squares_variances(parents, node_var, levels)
        elif params.consistency == HAY:
            est = cons.hay_generalized(parents, noisy)
            var_all = linear_estimator_variances(cons.hay_generalized, parents, node_var)
        else:
            est = noisy.astype(float)
            var_all = node_var
        if params.consistency != NO_CONSISTENCY:
            post.append({"step": "consistency", "method": params.consistency})
            yield ConsistencyDone(params.consistency, tuple(map(tuple, est.tolist())) if eng.detail else (), 2)
        tree.estimates = est
        estimates = est[eng.leaf_tree]
        variances = None if var_all is None else var_all[eng.leaf_tree]
    counts = estimates.copy()
    projected = (
        params.tree_projection
        and params.clamp_negative
        and (params.counts == "leaves" or params.consistency != NO_CONSISTENCY)
    )
    if projected and params.counts == "leaves":
        # the released tree's nodes as sums of the noisy leaves (post-processing), variance per leaf below
        levels = _levels_of(depth)
        sums = _subtree_sums(parents, levels, eng.leaf_tree, estimates).sum(axis=1)  # all classes together
        assert variances is not None
        weights: np.ndarray | None = _subtree_sums(parents, levels, eng.leaf_tree, variances[:, None])[:, 0]
        totals = project_tree(parents, sums, weights, integral=params.round_counts)[eng.leaf_tree]
        counts = split_rows(totals, estimates, integral=params.round_counts)
        post.append({"step": "projection", "method": LEAF_PROJECTION_NOTE})
        if params.round_counts:
            post.append({"step": "rounding", "method": ROUNDING_NOTE})
    elif projected:
        weights = var_all if var_all is not None and np.all(np.isfinite(var_all) & (var_all > 0)) else None
        counts = project_tree(parents, tree.estimates, weights, integral=params.round_counts)[eng.leaf_tree]
        post.append({"step": "projection", "method": PROJECTION_NOTE})
        if params.round_counts:
            post.append({"step": "rounding", "method": ROUNDING_NOTE})
    elif params.round_counts and not np.all(counts == np.round(counts)):
        counts = np.round(counts)
        post.append({"step": "rounding", "method": "nearest integer"})
    if projected:
        pass
    elif params.clamp_negative and (counts < 0).any():
        counts = np.maximum(counts, 0)
        post.append({"step": "clamping", "method": "negative counts set to 0"})
    elif params.clamp_negative:
        post.append({"step": "clamping", "method": "negative counts set to 0 (none were negative)"})
    if np.all(counts == np.round(counts)):
        counts = counts.astype(np.int64)
    if eng.detail:
        yield LeavesReleased(tuple(eng.leaf_tree.tolist()), tuple(map(tuple, counts.tolist())))
    else:
        yield LeavesReleased((), ())
    result = DiffGenResult(
        params=params,
        attributes=tuple(a.name for a in eng.data.attributes),
        kinds=tuple(a.kind for a in eng.data.attributes),
        class_name=eng.data.class_name,
        classes=tuple(eng.data.classes),
        leaf_values=eng.leaf_vals.copy(),
        value_labels=tuple(
            list(a.taxonomy.labels) if isinstance(a, CategoricalAttribute) else list(eng.intervals[i].labels)
            for i, a in enumerate(eng.data.attributes)
        ),
        leaf_nodes=eng.leaf_tree.copy(),
        counts=counts,
        estimates=estimates,
        variances=variances,
        cut=_released_cut(eng),
        tree=tree,
        ledger=eng.ledger,
        noise=noise,
        post_processing=post,
        steps_done=steps_done,
        stopped_early=stopped_early,
        winners=list(eng.winners),
        intervals={
            eng.data.attributes[a].name: [(iv.lo[i], iv.hi[i], iv.label(i)) for i in range(len(iv.lo))]
            for a, iv in eng.intervals.items()
        },
        sensitivity_counts=sensitivity,
        count_epsilon=eps_c,
        numeric_domains={eng.data.attributes[a].name: _split_domain(eng, a) for a in eng.lattices},
    )
    yield RunFinished(result)


def _split_domain(eng: _Engine, a: int) -> dict:
    """Where attribute a's split points came from, for the sidecar: its lattice (DiffGen's exponential
    split points), or, when split points come from a grid (MAXGDDP), that public grid and its source."""
    d = eng.lattices[a].describe()
    if a not in eng.grids:
        return d
    attr = eng.data.attributes[a]
    rule = _grid_rule(attr, eng.params.numeric_grid)
    if rule == "taxonomy":
        source = getattr(eng.lattices[a], "source", "the cut points of the attribute's taxonomy")
        d.pop("grid_source", None)
    elif rule == LOG_GRID:
        source = (
            "the 1-2-5 series (1, 2, 5, 10, 20, 50, ...) inside the public bounds, which span at least "
            f"{LOG_GRID_DECADES} decades"
        )
    elif rule == ROUND_GRID:
        step = round_step(attr.lo, attr.hi, eng.params.grid_bins, attr.integer)
        source = (
            f"the multiples of {step:g} inside the public bounds (the smallest step of 1, 2 or 5 times a power "
            f"of ten that cuts them into at most {eng.params.grid_bins} bins)"
        )
    else:
        source = f"{eng.params.grid_bins} equal-width bins of the public bounds"
        if attr.integer:
            source += ", rounded to whole numbers (an integer attribute)"
    del d["lattice_points"]
    how = "report-noisy-max" if eng.params.selection == NOISY_MAX else "the exponential mechanism"
    d["split_points"] = f"on the public grid: {source}; each point is a candidate of the specialization steps ({how})"
    d["grid"] = [float(x) for x in eng.grids[a]]
    return d


def _levels_of(depth: np.ndarray) -> list:
    """Node indices by depth, root first."""
    by_depth = np.argsort(depth, kind="stable")
    bounds = np.searchsorted(depth[by_depth], np.arange(int(depth.max()) + 2))
    return [by_depth[bounds[d] : bounds[d + 1]] for d in range(int(depth.max()) + 1)]


def _subtree_sums(parents, levels: list, leaf_nodes, leaf_values) -> np.ndarray:
    """Every node's sum of ``leaf_values`` (leaves x columns) over the leaves below it; integer values
    stay integers."""
    vals = np.asarray(leaf_values)
    out = np.zeros((parents.size, vals.shape[1]), dtype=vals.dtype)
    out[leaf_nodes] = vals
    for nodes in reversed(levels[1:]):
        par = parents[nodes]
        for k in range(vals.shape[1]):
            out[:, k] += np.bincount(par, weights=out[nodes, k], minlength=parents.size).astype(vals.dtype)
    return out


LEAF_PROJECTION_NOTE = (
    "top-down over the released tree, whose nodes are the sums of the noisy leaves below "
    "them over all classes: the root keeps the sum of all noisy leaves (negative -> 0, "
    "rounded), each node's value is split over its children by the projection of their sums "
    "onto non-negative values with that sum (weighted by their variances), then each leaf's "
    "value over its classes the same way; the total is not inflated and a class is not "
    "emptied because the sum of its noisy leaves fell below 0"
)
PROJECTION_NOTE = (
    "top-down over the tree: the root keeps its estimate (negative -> 0, rounded to the nearest "
    "integer); each node's value is split over its children by the projection of their "
    "estimates onto non-negative values with that sum (weighted by their variances)"
)
ROUNDING_NOTE = (
    "largest remainder within each family, top-down: every child gets the floor of its share, the "
    "family's missing units go to the largest fractional parts, so parents equal the sums of "
    "their children and the total is the root's"
)


def _spend_optimized_levels(eng: _Engine, parents, depth, eps_c: Fraction, L: int):
    """Ledger entries and node scales of per-level count budgets chosen for the released tree's shape
    (``diffgen_levels.optimal_level_shares``: public, the shape follows the released specializations).
    An internal node at depth d gets eps_d; a leaf at depth d gets eps_d + ... + eps_(L-1); every
    root-to-leaf path sums to exactly eps_c. Returns (level epsilons, node scales)."""
    shares = [max(Fraction(x).limit_denominator(10**9), Fraction(1, 10**9)) for x in optimal_level_shares(parents)]
    total = sum(shares, Fraction(0))
    level_eps = [eps_c * x / total for x in shares[:-1]]
    level_eps.append(eps_c - sum(level_eps, Fraction(0)))
    tails = [sum(level_eps[d:], Fraction(0)) for d in range(L)]
    is_leaf = np.bincount(parents[parents >= 0], minlength=parents.size) == 0
    K = eng.K
    for d, e in enumerate(level_eps):
        at = depth == d
        yield eng.spend(
            f"counts: level {d} of the DiffGen tree x class",
            "discrete Laplace",
            e,
            1.0,
            noise_scale(1, e),
            f"{int(np.sum(at & ~is_leaf))} internal nodes x {K} classes at scale "
            f"1/eps_{d}; the {int(np.sum(at & is_leaf))} leaves at this depth take the levels "
            f"{d}..{L - 1} (scale {noise_scale(1, tails[d]):.6g}); shares chosen for the "
            "released tree's shape",
        )
    scale_internal = np.array([noise_scale(1, e) for e in level_eps])
    scale_leaf = np.array([noise_scale(1, t) for t in tails])
    return level_eps, np.where(is_leaf, scale_leaf[depth], scale_internal[depth])


def _released_cut(eng: _Engine) -> dict:
    out: dict[str, dict] = {}
    for a, attr in enumerate(eng.data.attributes):
        if isinstance(attr, CategoricalAttribute):
            tax = attr.taxonomy
            in_cut = np.zeros(len(tax), dtype=bool)
            in_cut[eng.cat_cut[a]] = True
            table = tax.ancestor_table
            mapping = {}
            for leaf in tax.leaves:
                anc = table[leaf]
                node = int(anc[in_cut[anc]][0])
                mapping[tax.labels[leaf]] = tax.labels[node]
            out[attr.name] = {"leaf_to_label": mapping}
        else:
            iv = eng.intervals[a]
            cut = sorted(iv.cut, key=lambda i: iv.lo[i])
            out[attr.name] = {"intervals": [[iv.lo[i], iv.hi[i], iv.label(i)] for i in cut], "closed_top": True}
    return out


def run_to_result(
    data: DiffGenInput,
    params: DiffGenParams,
    noise: NoiseSource,
    ledger: Ledger,
    teaching: bool = False,
    per_node_events: bool = False,
) -> DiffGenResult:
    """Drain ``run_diffgen`` and return its result (for the CLI, benchmarks and evaluation)."""
    result = None
    for ev in run_diffgen(data, params, noise, ledger, teaching, per_node_events=per_node_events):
        if isinstance(ev, RunFinished):
            result = ev.result
    assert result is not None, "the run ended without its result"
    return result
