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

import numpy as np

from dpstudio.core.budget import as_fraction

#: algorithm id -> display name
ALGORITHMS = {
    "diffgen": "DiffGen",
    "diffgen_consistency": "DiffGen with consistency",
    "maxgddp": "MAXGDDP",
    "flat": "Flat histogram (Dwork)",
    "hb": "H_b interval tree",
    "sc": "SC interval tree",
    "luedptree": "LUEDPTree",
}
TABLE_ALGORITHMS = ("diffgen", "diffgen_consistency", "maxgddp")
HISTOGRAM_ALGORITHMS = ("flat", "hb", "sc", "luedptree")


@dataclass(frozen=True)
class ParamSpec:
    key: str
    label: str
    kind: str  # "int", "choice", "bool"
    default: object
    choices: tuple = ()
    lo: int = 0
    hi: int = 0
    help: str = ""


PARAMS: dict[str, list[ParamSpec]] = {
    "diffgen": [
        ParamSpec("steps", "specializations h", "int", 10, lo=1, hi=60,
                  help="number of exponential-mechanism selections"),
        ParamSpec("score", "score", "choice", "max", ("max", "infogain"),
                  help="Max (sensitivity 1) or normalised InfoGain (sensitivity log2 |classes|)"),
        ParamSpec("numeric_attributes", "numeric attributes |A_num|", "int", 1, lo=0, hi=20,
                  help="filled from the project's quasi-identifiers"),
    ],
    "maxgddp": [
        ParamSpec("steps", "levels h", "int", 6, lo=1, hi=30),
        ParamSpec("fanout", "fan-out f (r = f^(1/3))", "int", 3, lo=2, hi=20),
    ],
    "flat": [
        ParamSpec("bins", "bins n", "int", 256, lo=1, hi=1 << 20),
    ],
    "hb": [
        ParamSpec("bins", "bins n", "int", 256, lo=1, hi=1 << 20),
        ParamSpec("branching", "branching b (0 = Qardaji's choice)", "int", 0, lo=0, hi=64),
        ParamSpec("root_noised", "noise the root", "bool", True),
    ],
    "sc": [
        ParamSpec("bins", "bins n", "int", 256, lo=1, hi=1 << 20),
        ParamSpec("root_noised", "noise the root", "bool", True),
    ],
    "luedptree": [
        ParamSpec("bins", "bins n", "int", 256, lo=1, hi=1 << 20),
        ParamSpec("branching", "branching b (0 = SC's structure)", "int", 0, lo=0, hi=64),
    ],
}
PARAMS["diffgen_consistency"] = PARAMS["diffgen"] + [
    ParamSpec("consistency", "consistency", "choice", "least_squares", ("least_squares", "hay_generalized"),
              help="exact least squares (BLUE) or seed 000's rule"),
]


def default_params(algorithm: str) -> dict:
    return {p.key: p.default for p in PARAMS[algorithm]}


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

    def with_shares(self, shares) -> "BudgetPlan":
        return BudgetPlan(self.algorithm, self.epsilon, list(self.names), list(shares), list(self.kinds),
                          self.locked, list(self.notes))

    def share(self, kind: str) -> Fraction:
        return sum((s for s, k in zip(self.shares, self.kinds) if k == kind), Fraction(0))

    def level_shares(self) -> list[Fraction]:
        return [s for s, k in zip(self.shares, self.kinds) if k == "level"]

    def to_params(self) -> dict:
        """The split as JSON-able parameters: {"budget_split": {name: "p/q"}, ...} plus named totals."""
        out = {"budget_split": {n: str(s) for n, s in zip(self.names, self.shares)}}
        if self.algorithm in TABLE_ALGORITHMS:
            out["count_epsilon"] = str(self.share("count") + self.share("level"))
        if self.algorithm == "maxgddp":
            out["tree_fraction"] = str(self.share("selection") / self.epsilon)
        levels = self.level_shares()
        if levels:
            out["level_epsilons"] = [str(s) for s in levels]
        return out


def _geometric(n: int, r: float) -> list[float]:
    w = [r ** l for l in range(n)]
    s = sum(w)
    return [x / s for x in w]


def _exact_split(eps: Fraction, weights) -> list[Fraction]:
    """Shares proportional to ``weights`` (as short fractions of eps), the last one taking the remainder."""
    w = np.asarray(weights, dtype=float)
    w = w / w.sum()
    out = [Fraction(float(x)).limit_denominator(10 ** 6) * eps for x in w[:-1]]
    out.append(eps - sum(out, Fraction(0)))
    return out


def qardaji_branching(n: int) -> int:
    """b in 2..64 minimising (b-1) h^3 - 2 (b+1) h^2 / 3, h = ceil(log_b n) (ALGORITHMS.md section 6)."""
    best, best_v = 2, math.inf
    for b in range(2, 65):
        h = max(1, math.ceil(math.log(n) / math.log(b) - 1e-12)) if n > 1 else 1
        v = (b - 1) * h ** 3 - 2 * (b + 1) * h ** 2 / 3
        if v < best_v:
            best, best_v = b, v
    return best


def default_plan(algorithm: str, params: dict, epsilon) -> BudgetPlan:
    """The split the algorithm uses by default (ALGORITHMS.md), as an exact plan."""
    eps = as_fraction(epsilon)
    p = {**default_params(algorithm), **(params or {})}
    if algorithm in ("diffgen", "diffgen_consistency"):
        h, a = int(p["steps"]), int(p["numeric_attributes"])
        step = eps / (2 * (a + 2 * h))
        sel, split = h * step, (a + h) * step
        names, shares, kinds = ["selection"], [sel], ["selection"]
        names.append("split points")
        shares.append(split)
        kinds.append("split")
        counts = eps - sel - split
        if algorithm == "diffgen":
            names.append("counts")
            shares.append(counts)
            kinds.append("count")
        else:
            L = h + 1
            lv = _exact_split(counts, [1.0] * L)
            names += [f"level {l}" for l in range(L)]
            shares += lv
            kinds += ["level"] * L
        note = ("at most: a step that needs fewer split points, an early stop or a shallower tree leaves "
                "budget that the engine gives to the counts (the ledger shows what was spent)")
        return BudgetPlan(algorithm, eps, names, shares, kinds, notes=[note])
    if algorithm == "maxgddp":
        h, f = int(p["steps"]), int(p["fanout"])
        eps1 = eps / 2
        lv = _exact_split(eps1, _geometric(h, f ** (1 / 3)))
        return BudgetPlan(algorithm, eps, [f"level {l}" for l in range(h)] + ["counts"],
                          lv + [eps - eps1], ["selection"] * h + ["count"])
    if algorithm == "flat":
        return BudgetPlan(algorithm, eps, ["bins"], [eps], ["level"])
    if algorithm in ("hb", "sc", "luedptree"):
        tp = engine_plan(algorithm, p, eps)
        depth = tp.tree.depth
        levels = sorted({int(d) for d in depth[tp.noised]})
        if algorithm == "luedptree":
            weights = [float(tp.epsilons[(depth == l) & tp.noised].mean()) for l in levels]
            return BudgetPlan(algorithm, eps, [f"level {l}" for l in levels], _exact_split(eps, weights),
                              ["level"] * len(levels), locked=True,
                              notes=["per-node budgets are optimised (seed 003 section 3.4); the bar shows the "
                                     "mean budget of each level; the run uses the exact per-node values"])
        return BudgetPlan(algorithm, eps, [f"level {l}" for l in levels], _exact_split(eps, [1.0] * len(levels)),
                          ["level"] * len(levels))
    raise ValueError(f"unknown algorithm {algorithm!r}")


# -- interval trees -----------------------------------------------------------------------------------

ENGINE_NAMES = {"flat": "flat", "hb": "hb", "sc": "sc", "luedptree": "luedp"}


def engine_plan(algorithm: str, params: dict, epsilon):
    """The interval-tree engine's own public plan (shape, per-node budgets, variances) for these inputs."""
    from dpstudio.algorithms.interval_trees import IntervalTreeParams, plan_interval_tree

    p = {**default_params(algorithm), **(params or {})}
    b = int(p.get("branching") or 0) or None
    it = IntervalTreeParams(algorithm=ENGINE_NAMES[algorithm], epsilon=as_fraction(epsilon), branching=b,
                            noise_root=bool(p.get("root_noised", True)))
    return plan_interval_tree(int(p["bins"]), it)


def is_default_split(plan: "BudgetPlan", params: dict) -> bool:
    """Whether ``plan`` is the split the engine will run (the engines take no custom split)."""
    return plan.shares == default_plan(plan.algorithm, params, plan.epsilon).shares


def bary_tree(n: int, b: int):
    """parents, lo, hi, depth of the b-ary interval tree over n bins (children split ceil(len/b) wide).

    ``bary_tree``, ``coverage`` and ``luedp_budgets`` are small independent restatements of seed 003's
    formulas, checked against its worked example in the tests; the panel's figures come from the
    interval-tree engine's own plan (``engine_plan``)."""
    parents, lo, hi, depth = [-1], [0], [n], [0]
    frontier = [0]
    while frontier:
        nxt = []
        for v in frontier:
            a, e = lo[v], hi[v]
            if e - a <= 1:
                continue
            w = -(-(e - a) // b)
            for s in range(a, e, w):
                parents.append(v)
                lo.append(s)
                hi.append(min(e, s + w))
                depth.append(depth[v] + 1)
                nxt.append(len(parents) - 1)
        frontier = nxt
    return (np.asarray(parents), np.asarray(lo), np.asarray(hi), np.asarray(depth))


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
    kids = [[] for _ in range(n)]
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


def expected_error(plan: BudgetPlan, params: dict) -> list[Figure]:
    """Data-independent error figures of ``plan`` (what the panel shows and the report prints)."""
    p = {**default_params(plan.algorithm), **(params or {})}
    alg = plan.algorithm
    out: list[Figure] = []
    if alg in ("diffgen", "diffgen_consistency"):
        h, a = int(p["steps"]), int(p["numeric_attributes"])
        sel = float(plan.share("selection"))
        split = float(plan.share("split"))
        eps_sel = sel / h
        out.append(Figure("epsilon per selection step", eps_sel,
                          f"{h} exponential-mechanism selections share {sel:.4g}"))
        if a + h:
            out.append(Figure("epsilon per split-point choice", split / (a + h),
                              f"{a + h} numeric split-point choices share {split:.4g}"))
        du = 1.0
        out.append(Figure("odds for a score lead of 10", math.exp(eps_sel * 10 / (2 * du)),
                          "how much likelier a candidate scoring 10 more is chosen (Max score, Du = 1)"))
        if alg == "diffgen":
            ec = float(plan.share("count"))
            out.append(Figure("count noise variance per cell", 2 / ec ** 2,
                              f"Laplace(1/eps_c), eps_c = {ec:.4g}: 2/eps_c^2"))
        else:
            levels = [float(s) for s in plan.level_shares()]
            ec = sum(levels)
            for l, e in enumerate(levels):
                out.append(Figure(f"node variance at level {l}", 2 / e ** 2, f"eps = {e:.4g}: 2/eps^2"))
            out.append(Figure("leaf-only release: variance per cell", 2 / ec ** 2,
                              f"all of eps_c = {ec:.4g} on the leaves (the comparison baseline)"))
    elif alg == "maxgddp":
        levels = [float(s) for s, k in zip(plan.shares, plan.kinds) if k == "selection"]
        for l, e in enumerate(levels):
            out.append(Figure(f"noisy-max epsilon at level {l}", e, f"report-noisy-max, noise scale 1/{e:.4g}"))
        ec = float(plan.share("count"))
        out.append(Figure("count noise variance per cell", 2 / ec ** 2, f"eps2 = {ec:.4g}: 2/eps2^2"))
    elif alg == "flat":
        n = int(p["bins"])
        e = float(plan.epsilon)
        out.append(Figure("variance per bin", 2 / e ** 2, "Laplace(1/eps): 2/eps^2"))
        out.append(Figure("all-range mean squared error", 2 / e ** 2 * (n + 2) / 3,
                          f"mean range length over all n(n+1)/2 ranges is (n+2)/3, n = {n}"))
    else:
        from dpstudio.core.range_error import consistent_all_range_mse, laplace_variance, raw_all_range_mse

        n = int(p["bins"])
        tp = engine_plan(alg, p, plan.epsilon)
        t = tp.tree
        if alg == "luedptree" or is_default_split(plan, p):
            var = tp.variances
            how = "the engine's per-node budgets"
        else:
            lv = {int(name.split()[-1]): float(s) for name, s in zip(plan.names, plan.shares)}
            eps_x = np.array([lv.get(int(d), 0.0) for d in t.depth])
            ok = tp.noised & (eps_x > 0)
            with np.errstate(divide="ignore"):
                var = np.where(ok, laplace_variance(1.0 / np.where(ok, eps_x, 1.0)), np.inf)
            how = "this split, level by level"
        raw = raw_all_range_mse(t.parents, t.lo, t.hi, n, var, t.levels)
        cons = consistent_all_range_mse(t.parents, t.lo, t.hi, n, var, t.levels)
        if tp.branching:
            out.append(Figure("branching b", tp.branching, "; ".join(tp.notes) or "chosen"))
        out.append(Figure("tree nodes", t.n_nodes, f"height {t.height}, {int(tp.noised.sum())} noised"))
        out.append(Figure("all-range MSE, consistent release", cons,
                          f"exact, least squares, uniformly random ranges; {how}"))
        out.append(Figure("all-range RMSE, consistent release", math.sqrt(cons), "per query"))
        out.append(Figure("all-range MSE, raw tree", raw, "canonical covers, no consistency (seed 003)"))
        flat = (n + 2) / 3 * laplace_variance(1.0 / float(plan.epsilon))
        out.append(Figure("flat histogram, same epsilon", flat, "all-range MSE, discrete Laplace, for comparison"))
    return out
