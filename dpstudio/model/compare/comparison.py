"""What the Compare panel plots, computed without Qt (so tests compare it with the evaluation modules).

Two views, by the mode the run was made in (ALGORITHMS.md 0: in release mode the screen shows only
data-independent figures or noisy values already paid for; true counts only in teaching mode):

RELEASE MODE ("data-independent: noise only"). Every post-processing compared here is linear and unbiased
and applied WITHOUT rounding or clamping, so the error of an answer is a function of the noise alone: it is
simulated on an all-zero truth with the run's noise scales and the run's released tree shape (public after
the release), and queries are sized by their share of the DOMAIN (bins; or the product of the attributes'
domain fractions), never by records. Analytic variances are drawn as dashed lines, Monte-Carlo (simulation
noise) as bands around them.

- Histograms (interval trees): error of a random range of each length d for
  "leaf-only" (every bin with Laplace of scale 1/eps), "raw tree (minimal cover)" (the run's noisy tree
  answered by canonical covers), "consistent (least squares)" (exact BLUE) and "consistent (seed 000
  rule)" (Monte-Carlo only), from ``dpstudio.core.range_error`` and Monte-Carlo. The same in both modes.
  p-Identity has no tree: leaf-only and its least squares (``pidentity.error_by_length``) only.
- DiffGen trees: ``diffgen_noise_only(result, domain)``: random boxes over the public domain
  (``core.range_queries``), answered by leaf-only (scale 1/eps_c on every leaf x class), the raw tree (the
  run's node scales; a leaf-only run gets the uniform L/eps_c of DiffGen-with-consistency), least squares
  and seed 000's rule; analytic variances (exact: the estimators are linear; seed 000's rule only on trees
  up to ``ANALYTIC_MAX_NODES`` nodes) and Monte-Carlo. Never touches the records, the
  true counts or the released counts (a test runs it on a result whose counts raise on access).
- Classification: accuracy of a tree trained on the release, tested on a user-supplied test file, against
  the majority class OF THE TEST FILE. The "raw data" baseline (a tree trained on the private training
  rows) is computed in teaching mode only.

TEACHING MODE: as above for histograms; DiffGen trees additionally get
``dpstudio.evaluation.range_error.error_by_query_size`` with the TRUE counts of the project's data and the
run's own noise, queries sized by their share of the domain as in release mode (``TEACHING_TABLE_LABEL``:
simulation, not a release, never exported); classification adds the raw-data baseline and takes the majority class from the training rows.

Every Monte-Carlo function takes ``progress(done, total, message)`` (the worker's callback, which raises to
cancel) and a seed.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from dpstudio.algorithms.pidentity import is_pidentity
from dpstudio.core.consistency import hay_generalized, least_squares
from dpstudio.core.noise import SimulationNoise, simulated_discrete_laplace
from dpstudio.core.range_queries import CategoricalAxis, Domain, NumericAxis
from dpstudio.evaluation.range_error import LEAF_ONLY, LEAST_SQUARES, RAW_TREE, SEED_RULE

HISTOGRAM_METHODS = (LEAF_ONLY, RAW_TREE, LEAST_SQUARES, SEED_RULE)
SIMULATION_LABEL = "Monte-Carlo with simulation noise: an evaluation, not a release"
NOISE_ONLY_LABEL = "data-independent: noise only"
RELEASE_VIEW = (
    "release mode: data-independent: noise only (simulated on an all-zero truth with the run's noise "
    "scales and released tree shape; no true count is read)"
)
TEACHING_TABLE_LABEL = (
    "teaching mode: simulation noise compared with the TRUE counts of your data, queries sized "
    "by their share of the domain: not a release, never exported"
)
#: above this many tree nodes the seed-rule coefficient matrix (nodes x nodes) is not built: that method gets
#: Monte-Carlo only (least squares has an exact analytic value at any size).
ANALYTIC_MAX_NODES = 1500
DOMAIN_EDGES = (0.0, 0.01, 0.05, 0.1, 0.2, 0.4, 0.7, 1.0)


def query_lengths(n_bins: int, count: int = 16) -> np.ndarray:
    """About ``count`` log-spaced range lengths from 1 to n."""
    if n_bins <= count:
        return np.arange(1, n_bins + 1)
    return np.unique(np.round(np.geomspace(1, n_bins, count)).astype(np.int64))


@dataclass
class Curves:
    """Plot data: x (query sizes) and, per method, the values and an optional (lo, hi) band."""

    x: np.ndarray
    values: dict = field(default_factory=dict)
    bands: dict = field(default_factory=dict)
    label: str = ""
    runs: int = 0


def _flat_variance(epsilon: float) -> float:
    from dpstudio.core.range_error import laplace_variance

    return float(laplace_variance(1.0 / float(epsilon), discrete=True))


def histogram_analytic(plan, lengths=None) -> Curves:
    """Analytic expected squared error by range length (``plan``: the run's ``TreePlan``)."""
    from dpstudio.core.range_error import raw_error_by_length

    t = plan.tree
    n = t.n_bins
    d = query_lengths(n) if lengths is None else np.asarray(lengths, dtype=np.int64)
    out = Curves(d.astype(float), label="analytic (data-independent)")
    out.values[LEAF_ONLY] = d * _flat_variance(plan.epsilon)
    tree = t.n_nodes > n and not is_pidentity(plan)  # a real tree (not flat, not p-Identity's bins)
    if tree:
        out.values[RAW_TREE] = raw_error_by_length(t.parents, t.lo, t.hi, n, plan.variances, d)
    if tree or is_pidentity(plan):
        out.values[LEAST_SQUARES] = least_squares_by_length(plan, d)
    return out


def least_squares_by_length(plan, lengths) -> np.ndarray:
    """Exact expected squared error of a range of each length after least squares, for a tree's plan or
    p-Identity's (bins plus weighted sums)."""
    if is_pidentity(plan):
        from dpstudio.algorithms.pidentity import error_by_length

        return error_by_length(plan, lengths)
    from dpstudio.core.range_error import consistent_error_by_length

    t = plan.tree
    return consistent_error_by_length(t.parents, t.lo, t.hi, t.n_bins, plan.variances, lengths)


def all_range_errors(plan) -> dict:
    """Each release kind's exact expected squared error of a uniformly random range of the histogram (the
    Algorithm panel's all-range figures): leaf-only (every bin at scale 1/eps), least squares, and the raw
    tree's canonical covers for a tree ({method: array of one value})."""
    n = plan.tree.n_bins
    from dpstudio.core.range_error import flat_all_range_mse

    out = {LEAF_ONLY: flat_all_range_mse(n, _flat_variance(plan.epsilon)), LEAST_SQUARES: plan.expected_consistent_mse}
    if not is_pidentity(plan) and plan.tree.n_nodes > n:
        out[RAW_TREE] = plan.expected_raw_mse
    return {m: np.array([float(v)]) for m, v in out.items()}


def _range_errors_from_leaves(err_bins: np.ndarray, d: int) -> np.ndarray:
    """Squared error of every range of length d (errors of the bins given), one row per run."""
    c = np.concatenate([np.zeros((1, err_bins.shape[1])), np.cumsum(err_bins, axis=0)])
    s = c[d:] - c[:-d]
    return (s**2).mean(axis=0)


def histogram_monte_carlo(
    plan, lengths=None, runs: int = 30, seed: int = 0, progress=None, raw_queries: int = 20
) -> Curves:
    """Monte-Carlo squared error by length: mean over runs, band = mean x/÷ exp(2 SE / mean) (two standard
    errors on the log scale the plot uses, by the delta method; never crosses zero).

    Leaf-only, least squares and seed 000's rule are exact over all ranges of each length per run (prefix
    sums); the raw tree uses ``raw_queries`` random ranges of each length per run (canonical covers).
    """
    from dpstudio.core.range_error import canonical_cover

    t = plan.tree
    n = t.n_bins
    d_all = query_lengths(n) if lengths is None else np.asarray(lengths, dtype=np.int64)
    rng = SimulationNoise(seed).rng
    pid = is_pidentity(plan)
    noised = np.zeros(t.n_nodes, dtype=bool) if pid else np.asarray(plan.noised, dtype=bool)
    idx = np.flatnonzero(noised)
    is_tree = t.n_nodes > n and not pid
    all_noised = not pid and bool(np.all(noised))  # seed 000's rule has no notion of an un-noised node
    methods = (
        [LEAF_ONLY]
        + ([LEAST_SQUARES] if pid else [])
        + ([RAW_TREE, LEAST_SQUARES] if is_tree else [])
        + ([SEED_RULE] if is_tree and all_noised else [])
    )
    per = {m: np.zeros((runs, d_all.size)) for m in methods}
    flat_scale = 1.0 / float(plan.epsilon)
    leaf_of_bin = t.leaf_of_bin
    for r in range(runs):
        if progress is not None:
            progress(r, runs, f"Monte-Carlo run {r + 1} of {runs}")
        flat = simulated_discrete_laplace(rng, np.full(n, flat_scale), 1)
        for j, d in enumerate(d_all):
            per[LEAF_ONLY][r, j] = _range_errors_from_leaves(flat, int(d))[0]
        if pid:
            est = plan.least_squares(
                simulated_discrete_laplace(rng, plan.bin_scales, 1),
                simulated_discrete_laplace(rng, np.full(plan.n_rows, plan.row_scale), 1),
            )
            for j, d in enumerate(d_all):
                per[LEAST_SQUARES][r, j] = _range_errors_from_leaves(est, int(d))[0]
        if not is_tree:
            continue
        y = np.zeros((t.n_nodes, 1))
        y[idx] = simulated_discrete_laplace(rng, plan.scales[idx], 1)
        ls = least_squares(t.parents, y, plan.variances, t.levels)[leaf_of_bin]
        hay = hay_generalized(t.parents, y, t.levels)[leaf_of_bin] if all_noised else None
        for j, d in enumerate(d_all):
            d = int(d)
            per[LEAST_SQUARES][r, j] = _range_errors_from_leaves(ls, d)[0]
            if hay is not None:
                per[SEED_RULE][r, j] = _range_errors_from_leaves(hay, d)[0]
            starts = rng.integers(0, n - d + 1, size=raw_queries)
            errs = [
                y[canonical_cover(t.parents, t.lo, t.hi, plan.noised, int(l), int(l) + d, t.levels), 0].sum() ** 2
                for l in starts
            ]
            per[RAW_TREE][r, j] = float(np.mean(errs))
    if progress is not None:
        progress(runs, runs, "Monte-Carlo done")
    out = Curves(d_all.astype(float), label=SIMULATION_LABEL, runs=runs)
    for m in methods:
        a = per[m]
        mean = a.mean(axis=0)
        se = a.std(axis=0, ddof=1) / math.sqrt(runs) if runs > 1 else np.zeros_like(mean)
        out.values[m] = mean
        with np.errstate(divide="ignore", invalid="ignore"):
            f = np.exp(np.where(mean > 0, 2 * se / mean, 0.0))
        out.bands[m] = (mean / f, mean * f)
    return out


def diffgen_error_by_size(
    data,
    result,
    epsilon_counts: float,
    runs: int = 30,
    seed: int = 0,
    queries: int = 400,
    progress=None,
    domain=None,
    workload=None,
    methods=None,
    size: str = "records",
    edges=None,
):
    """``error_by_query_size`` on the run's DiffGen tree (true counts: SIMULATION, NOT A RELEASE), with the
    run's own noise: leaf-only at scale 1/eps_c, the tree methods at the run's node scales (``run_noise``) and
    least squares weighted by them, so the curves are those of the release that ran, as in release mode's
    noise-only view and its analytic variances. ``domain`` and ``workload`` default to the data's domain and
    ``queries`` random boxes; ``methods`` to ``range_error.METHODS``."""
    from dpstudio.core.range_queries import random_boxes
    from dpstudio.evaluation.diffgen_trees import domain_of, true_tree
    from dpstudio.evaluation.range_error import error_by_query_size

    if progress is not None:
        progress(0, 2, "counting the partition tree")
    from dpstudio.evaluation.range_error import DEFAULT_EDGES, METHODS

    domain = domain_of(data) if domain is None else domain
    tree = true_tree(data, result, domain)
    if workload is None:
        rng = np.random.default_rng(seed)
        workload = random_boxes(domain, queries, rng, attributes=(1, min(2, len(domain))), n_classes=len(data.classes))
    _leaf_var, node_var, _source = run_noise(result)
    res = error_by_query_size(
        domain,
        tree,
        float(epsilon_counts),
        workload,
        runs=runs,
        seed=seed,
        node_scales=scale_of_variance(node_var),
        methods=METHODS if methods is None else methods,
        size=size,
        edges=DEFAULT_EDGES if edges is None else tuple(edges),
        progress=None if progress is None else (lambda d, t, text: progress(1 + d, 2 + t, text)),
    )
    if progress is not None:
        progress(2, 2, "done")
    return res


def diffgen_curves(res) -> Curves:
    """Plot data from an ``ErrorBySize``: x = bucket midpoints (share of records), band = interquartile
    range of the per-query MSE inside the bucket."""
    rows = res.table()
    x = np.array([(r["size_lo"] + r["size_hi"]) / 2 for r in rows])
    out = Curves(x, label=res.label, runs=res.runs)
    for m in res.methods:
        out.values[m] = np.array([r[m] for r in rows])
        lo, hi = [], []
        for r in rows:
            a, b = r["size_lo"], r["size_hi"]
            sel = (res.sizes > a) & (res.sizes <= b) if a > 0 else (res.sizes >= a) & (res.sizes <= b)
            q = res.mse[m][sel]
            lo.append(np.percentile(q, 25))
            hi.append(np.percentile(q, 75))
        out.bands[m] = (np.array(lo), np.array(hi))
    return out


# -- DiffGen trees, release mode: noise only ------------------------------------------------------------
def public_domain(result, taxonomies) -> Domain:
    """The run's domain from PUBLIC inputs only: each categorical attribute's taxonomy (``taxonomies[name]``,
    the project's, checked against the labels the release names) and each numeric attribute's public bounds
    (the root interval of the release). No record is read."""

    axes: list[NumericAxis | CategoricalAxis] = []
    for a, (name, kind) in enumerate(zip(result.attributes, result.kinds)):
        if kind == "numeric":
            lo, hi, _ = result.intervals[name][0]
            axes.append(NumericAxis(lo, hi, name=name))
        else:
            tax = taxonomies.get(name)
            if tax is None or list(tax.labels) != list(result.value_labels[a]):
                raise ValueError(f"the taxonomy of {name} changed since the run: run again to compare")
            axes.append(CategoricalAxis(tax, name))
    return Domain(axes)


def scale_of_variance(variance) -> np.ndarray:
    """The discrete Laplace scale with this variance (inverse of 2p/(1-p)^2, p = exp(-1/scale)); inf stays
    inf (a node that was not noised)."""
    v = np.asarray(variance, dtype=float)
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        r = 1.0 + np.sqrt(1.0 + 2.0 * v)
        # p = 2v / r^2 is exact for small v; 1 - p = 2 / r keeps the precision for large v
        s = np.where(v < 1.0, -1.0 / np.log(2.0 * v / r**2), -1.0 / np.log1p(-2.0 / r))
    return np.where(np.isfinite(v), s, np.inf)


def run_noise(result) -> tuple[float, np.ndarray, str]:
    """(leaf-only variance, per-node variances of the tree methods, where the node variances come from).

    Leaf-only: discrete Laplace of scale 1/eps_c on every leaf x class (DiffGen's release). Tree methods: the
    run's own node variances when it noised the tree, else the uniform L/eps_c of DiffGen with consistency
    (L = nodes on the longest root-to-leaf path). Data-independent: scales follow from eps_c and the shape."""
    from dpstudio.algorithms.diffgen_variance import discrete_laplace_variance

    eps_c = float(result.count_epsilon)
    if not eps_c > 0:
        raise ValueError("the run spent no budget on counts: nothing to compare")
    leaf_var = discrete_laplace_variance(1.0 / eps_c)
    nv = result.tree.noise_variances
    if nv is not None:
        return leaf_var, np.asarray(nv, dtype=float), "the run's node scales"
    L = int(np.asarray(result.tree.depth).max()) + 1
    n = np.asarray(result.tree.parents).size
    return leaf_var, np.full(n, discrete_laplace_variance(L / eps_c)), f"uniform scale L/eps_c, L = {L}"


def level_noise(result) -> tuple[float, list[float]]:
    """(leaf-only variance, the largest node noise variance on each noised level of the run's tree, root
    first): what the Compare verdict's words rest on. Public: the run's budgets and its released shape.
    p-Identity's "level" is its bins (their own counts' variances); its weighted sums are not a level."""
    if hasattr(result, "plan"):  # a histogram
        plan = result.plan
        leaf = _flat_variance(plan.epsilon)
        if is_pidentity(plan):
            return leaf, [float(np.max(plan.bin_variances))]
        depth = np.asarray(plan.tree.depth)
        noised = np.asarray(plan.noised, dtype=bool)
        var = np.asarray(plan.variances, dtype=float)
        return leaf, [float(var[noised & (depth == d)].max()) for d in np.unique(depth[noised])]
    leaf, node_var, _ = run_noise(result)
    depth = np.asarray(result.tree.depth)
    return leaf, [float(node_var[depth == d].max()) for d in np.unique(depth)]


@dataclass
class NoiseOnlyBySize:
    """Per-query error of each method from the noise alone: ``mse[m]`` runs x queries (squared errors of
    the Monte-Carlo runs), ``analytic[m]`` the exact variance per query (methods without one are absent);
    ``sizes`` the queries' share of the domain."""

    methods: tuple
    sizes: np.ndarray
    mse: dict
    analytic: dict
    edges: tuple
    runs: int
    node_noise: str
    label: str = RELEASE_VIEW

    def buckets(self) -> list[np.ndarray]:
        out = []
        for a, b in zip(self.edges[:-1], self.edges[1:]):
            sel = (self.sizes > a) & (self.sizes <= b) if a > 0 else (self.sizes >= a) & (self.sizes <= b)
            if sel.any():
                out.append(sel)
        return out


def _dl_noise(rng, scales: np.ndarray, k: int) -> np.ndarray:
    """nodes x k discrete Laplace draws (zero where the scale is inf: not noised)."""
    s = np.asarray(scales, dtype=float)
    finite = np.isfinite(s)
    out = np.zeros((s.size, k))
    if finite.any():
        out[finite] = simulated_discrete_laplace(rng, np.repeat(s[finite], k), 1).reshape(-1, k)
    return out


def diffgen_noise_only(
    result,
    domain,
    runs: int = 30,
    seed: int = 0,
    queries: int = 400,
    workload_seed: int = 0,
    progress=None,
    edges=DOMAIN_EDGES,
    analytic_max_nodes: int = ANALYTIC_MAX_NODES,
    max_weight_cells: float = 2e7,
    workload=None,
) -> NoiseOnlyBySize:
    """Error by query size of leaf-only, raw tree, least squares and seed 000's rule on the run's released
    tree shape, from the noise alone (see the module doc). ``runs=0``: analytic only.

    Reads only public things: the tree shape (``result.tree.parents``/``values``, ``result.intervals``,
    ``result.leaf_nodes``), the classes, eps_c and the node variances, and ``domain``. The queries are
    ``random_boxes`` over the domain (``workload_seed``), or ``workload``; the noise is simulation noise
    (``seed``).
    ``max_weight_cells`` bounds the size (nodes x queries) of the weight matrices held at once."""
    from dpstudio.core.range_queries import answer, cell_weights, random_boxes, tree_weights
    from dpstudio.evaluation.diffgen_trees import node_cells

    parents = np.asarray(result.tree.parents, dtype=np.int64)
    n = parents.size
    has_child = np.zeros(n, dtype=bool)
    has_child[parents[parents >= 0]] = True
    leaves = np.flatnonzero(~has_child)
    if not np.array_equal(leaves, np.sort(np.asarray(result.leaf_nodes))):
        raise ValueError("the result's leaves are not the leaves of its tree")
    K = len(result.classes)
    cells = node_cells(result, domain, leaves)
    wl = workload
    if wl is None:
        wl = random_boxes(
            domain, queries, np.random.default_rng(workload_seed), attributes=(1, min(2, len(domain))), n_classes=K
        )
    sizes = domain.fraction(wl)
    m_all = np.where(wl.classes < 0, K, 1).astype(float)  # cells per query and leaf (independent classes)
    leaf_var, node_var, node_noise = run_noise(result)
    all_noised = bool(np.all(np.isfinite(node_var)))
    methods = (LEAF_ONLY, RAW_TREE, LEAST_SQUARES) + ((SEED_RULE,) if all_noised else ())
    var0 = np.where(np.isfinite(node_var), node_var, 0.0)
    eye_methods = {}
    if not np.all(np.isfinite(node_var[leaves])) and n <= analytic_max_nodes:
        eye_methods[LEAST_SQUARES] = lambda: least_squares(parents, np.eye(n), node_var)
    if all_noised and n <= analytic_max_nodes:
        eye_methods[SEED_RULE] = lambda: hay_generalized(parents, np.eye(n))
    coef = {m: f()[leaves] for m, f in eye_methods.items()}  # A[leaf, j]: weight of node j's noisy count
    analytic = {m: np.zeros(len(wl)) for m in (LEAF_ONLY, RAW_TREE) + tuple(coef)}
    if np.all(np.isfinite(node_var[leaves])):
        analytic[LEAST_SQUARES] = np.zeros(len(wl))
    mse = {m: np.zeros((runs, len(wl))) for m in methods}
    leaf_scale = float(scale_of_variance(leaf_var))
    node_scale = scale_of_variance(node_var)
    # Weight matrices are nodes x queries: on big trees take the queries in blocks. Every block replays the
    # same noise draws (same seed, same calls), so the result does not depend on the block size.
    block = max(1, int(max_weight_cells // max(n, 1)))
    starts = range(0, len(wl), block)
    total = len(starts) * runs
    for b_i, start in enumerate(starts):
        idx = np.arange(start, min(len(wl), start + block))
        q = wl.subset(idx)
        m_q = m_all[idx]
        W_leaf = cell_weights(domain, cells, q)
        W_tree = tree_weights(domain, parents, leaves, cells, q)
        analytic[LEAF_ONLY][idx] = (W_leaf**2).sum(axis=0) * leaf_var * m_q
        analytic[RAW_TREE][idx] = ((W_tree**2) * var0[:, None]).sum(axis=0) * m_q
        if LEAST_SQUARES in analytic and LEAST_SQUARES not in coef:
            # The leaf estimates' covariance is C = (H' S^-1 H)^-1 and the BLUE of input y is C H' S^-1 y
            # on the leaves; with y = S w on the leaves and 0 elsewhere H' S^-1 y = w, so one least-squares
            # pass per query gives C w exactly (O(nodes x queries), no nodes x nodes matrix).
            Y = np.zeros((n, idx.size))
            Y[leaves] = node_var[leaves][:, None] * W_leaf
            analytic[LEAST_SQUARES][idx] = (W_leaf * least_squares(parents, Y, node_var)[leaves]).sum(axis=0) * m_q
        for m, A in coef.items():
            G = A.T @ W_leaf  # nodes x queries
            analytic[m][idx] = ((G**2) * var0[:, None]).sum(axis=0) * m_q
        rng = SimulationNoise(seed).rng
        for r in range(runs):
            if progress is not None:
                progress(b_i * runs + r, total, f"Monte-Carlo run {r + 1} of {runs} (noise only)")
            e_leaf = _dl_noise(rng, np.full(leaves.size, leaf_scale), K)
            mse[LEAF_ONLY][r, idx] = answer(W_leaf, e_leaf, q.classes) ** 2
            y = _dl_noise(rng, node_scale, K)
            mse[RAW_TREE][r, idx] = answer(W_tree, y, q.classes) ** 2
            mse[LEAST_SQUARES][r, idx] = answer(W_leaf, least_squares(parents, y, node_var)[leaves], q.classes) ** 2
            if SEED_RULE in mse:
                mse[SEED_RULE][r, idx] = answer(W_leaf, hay_generalized(parents, y)[leaves], q.classes) ** 2
    if progress is not None and runs:
        progress(total, total, "Monte-Carlo done")
    return NoiseOnlyBySize(methods, sizes, mse, analytic, tuple(edges), runs, node_noise)


def noise_only_curves(res: NoiseOnlyBySize) -> tuple[Curves, Curves | None]:
    """(analytic, Monte-Carlo) plot data by share of the domain: x = the mean size of the queries in each
    bucket; analytic = the mean exact variance of those queries; Monte-Carlo = mean over runs with a band of
    mean x/÷ exp(2 SE / mean) (two standard errors across runs, log scale; never crosses zero). The
    Monte-Carlo is None without runs."""
    sel = res.buckets()
    x = np.array([res.sizes[s].mean() for s in sel])
    an = Curves(x, label=f"analytic ({NOISE_ONLY_LABEL})")
    for m, v in res.analytic.items():
        an.values[m] = np.array([v[s].mean() for s in sel])
    if res.runs < 1:
        return an, None
    mc = Curves(x, label=f"Monte-Carlo ({NOISE_ONLY_LABEL}; simulation noise)", runs=res.runs)
    for m in res.methods:
        per_run = np.stack([res.mse[m][:, s].mean(axis=1) for s in sel], axis=1)  # runs x buckets
        mean = per_run.mean(axis=0)
        se = per_run.std(axis=0, ddof=1) / math.sqrt(res.runs) if res.runs > 1 else np.zeros_like(mean)
        with np.errstate(divide="ignore", invalid="ignore"):
            f = np.exp(np.where(mean > 0, 2 * se / mean, 0.0))
        mc.values[m] = mean
        mc.bands[m] = (mean / f, mean * f)
    return an, mc


def node_pairs_from_events(events) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Like ``node_pairs`` but straight from the event list (one pass, no replay): NodeNoised values and
    the last ConsistencyDone's estimates (in sorted node-id order, as the replay maps them)."""
    from dpstudio.core.events import ConsistencyDone, NodeCreated, NodeNoised

    noisy: dict = {}
    created: list = []
    estimates = None
    for ev in events:
        if isinstance(ev, NodeNoised):
            noisy[ev.node] = ev.noisy
        elif isinstance(ev, NodeCreated):
            created.append(ev.node)
        elif isinstance(ev, ConsistencyDone):
            estimates = ev.estimates
    if estimates is None or not noisy:
        return np.zeros(0, dtype=np.int64), np.zeros(0), np.zeros(0)
    ids = sorted(set(created))
    est = dict(zip(ids, estimates))
    keep = [i for i in ids if i in noisy and est.get(i) is not None]
    return (
        np.asarray(keep, dtype=np.int64),
        row_sums([noisy[i] for i in keep]),
        row_sums([est[i] for i in keep]),
    )


def row_sums(values: list) -> np.ndarray:
    """Each value's sum as a float (a value is a count or a node's per-class counts): one numpy call when the
    values have one shape (a call per value took 0.7 s for the 38,000 nodes of a million-row run)."""
    if not values:
        return np.zeros(0)
    try:
        table = np.asarray(values, dtype=float)
    except ValueError:  # values of different lengths
        return np.asarray([float(np.sum(v)) for v in values])
    return table.reshape(len(values), -1).sum(axis=1)


def node_pairs(state) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(node ids, noisy, consistent) for the nodes that have both (per-class values summed)."""
    ids, noisy, cons = [], [], []
    for nid in state.order:
        nd = state.nodes[nid]
        if nd.noisy is None or nd.consistent is None:
            continue
        ids.append(nid)
        noisy.append(float(np.sum(nd.noisy)))
        cons.append(float(np.sum(nd.consistent)))
    return np.asarray(ids), np.asarray(noisy), np.asarray(cons)


@dataclass
class ClassificationScores:
    """Accuracies on the test file. ``raw`` is None in release mode (the raw baseline trains on the private
    rows: teaching mode only); ``majority_from`` says whose most frequent class the majority baseline uses."""

    release: float
    majority: float
    raw: float | None
    n_test: int
    majority_from: str = "test file"

    @property
    def gain_share(self) -> float | None:
        """The share of the raw tree's gain over the majority class that the release keeps:
        (release - majority) / (raw - majority). None without the raw baseline (release mode) or when the
        raw tree gains nothing over the majority class (there is no gain to share)."""
        if self.raw is None or not self.raw > self.majority:
            return None
        return (self.release - self.majority) / (self.raw - self.majority)

    def gain_words(self) -> str:
        """The share in words, for the Compare panel (teaching mode)."""
        if self.raw is None:
            return ""
        share = self.gain_share
        if share is None:
            return "the raw-data tree does no better than the majority class here: there is no gain to keep"
        return (
            f"the release keeps {share:.0%} of the raw-data tree's gain over the majority class "
            f"({100 * (self.release - self.majority):+.2f} of {100 * (self.raw - self.majority):+.2f} percentage "
            "points of accuracy)"
        )


def classification_scores(result, test, class_column: str, numeric=(), train=None) -> ClassificationScores:
    """Accuracy of a tree trained on the release (test generalized by the released cut).

    Without ``train`` (release mode): against the majority class of the TEST file only; nothing private is
    read. With ``train`` (teaching mode only: the private training rows): against the majority class of the
    training rows and a tree trained on them (``dpstudio.evaluation.classification``)."""
    from dpstudio.evaluation.classification import majority_accuracy, raw_accuracy, release_accuracy
    from dpstudio.io.release import release_frame

    rel = release_accuracy(release_frame(result), result.cut, test, class_column)
    if train is None:
        maj = majority_accuracy(test[class_column], test[class_column])
        return ClassificationScores(rel.accuracy, maj, None, rel.n_test, "test file")
    attrs = list(result.attributes)
    raw = raw_accuracy(train, test, attrs, [a for a in attrs if a in set(numeric)], class_column)
    maj = majority_accuracy(train[class_column], test[class_column])
    return ClassificationScores(rel.accuracy, maj, raw.accuracy, rel.n_test, "training rows")


def prepare_test_table(test, columns, class_column: str, classes) -> tuple:
    """(the test table's ``columns`` without incomplete rows, its class labels read as the release's
    ``classes``; a one-line note or None). Labels that equal a class after dropping one trailing "." (the
    UCI ``adult.test``'s ``<=50K.``) are read as that class and the note says so; a label that is no class
    raises ``ClassLabelError`` (``dpstudio.io.class_labels``, shared with ``dpstudio evaluate``)."""
    from dpstudio.io.class_labels import normalise_class_labels

    missing = [c for c in columns if c not in test.columns]
    if missing:
        raise ValueError(f"the test file has no column(s) {', '.join(missing)}")
    test = test[list(columns)].dropna().copy()
    test[class_column], note = normalise_class_labels(test[class_column], classes)
    return test, note
