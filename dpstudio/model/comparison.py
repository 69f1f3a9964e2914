"""What the Compare panel plots, computed without Qt (so tests compare it with the evaluation modules).

Histograms (interval trees): error of a random range of each length d, for
- "leaf-only": every bin with Laplace of scale 1/eps (the flat release with the whole budget on the bins),
- "raw tree (minimal cover)": the run's noisy tree answered by canonical covers,
- "consistent (least squares)": the run's tree made consistent by exact BLUE,
- "consistent (seed 000 rule)": the same tree made consistent by seed 000's rule (Monte-Carlo only),
from analytic values (``dpstudio.core.range_error``, data-independent) and Monte-Carlo bands (simulation
noise with the run's scales; linear unbiased estimates have errors that do not depend on the counts, so
the simulation needs no data and no true counts).

DiffGen trees: ``dpstudio.evaluation.range_error.error_by_query_size`` on the run's partition tree with the
true counts of the project's data: SIMULATION, NOT A RELEASE (shown on the data owner's screen, never
exported). Classification: ``dpstudio.evaluation.classification`` (release accuracy against the majority
and raw baselines).

Every Monte-Carlo function takes ``progress(done, total, message)`` (the worker's callback, which raises to
cancel) and a seed.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from dpstudio.core.consistency import hay_generalized, least_squares
from dpstudio.core.noise import SimulationNoise

LEAF_ONLY = "leaf-only"
RAW_TREE = "raw tree (minimal cover)"
LEAST_SQUARES = "consistent (least squares)"
SEED_RULE = "consistent (seed 000 rule)"
HISTOGRAM_METHODS = (LEAF_ONLY, RAW_TREE, LEAST_SQUARES, SEED_RULE)
SIMULATION_LABEL = "Monte-Carlo with simulation noise: an evaluation, not a release"


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
    from dpstudio.core.range_error import consistent_error_by_length, raw_error_by_length

    t = plan.tree
    n = t.n_bins
    d = query_lengths(n) if lengths is None else np.asarray(lengths, dtype=np.int64)
    out = Curves(d.astype(float), label="analytic (data-independent)")
    out.values[LEAF_ONLY] = d * _flat_variance(plan.epsilon)
    if t.n_nodes > n:  # a real tree (not flat)
        out.values[RAW_TREE] = raw_error_by_length(t.parents, t.lo, t.hi, n, plan.variances, d)
        out.values[LEAST_SQUARES] = consistent_error_by_length(t.parents, t.lo, t.hi, n, plan.variances, d)
    return out


def _discrete_laplace(rng, scales, runs):
    q = 1.0 - np.exp(-1.0 / scales)
    shape = (scales.size, runs)
    qq = np.broadcast_to(q[:, None], shape)
    return (rng.geometric(qq) - rng.geometric(qq)).astype(float)


def _range_errors_from_leaves(err_bins: np.ndarray, d: int) -> np.ndarray:
    """Squared error of every range of length d (errors of the bins given), one row per run."""
    c = np.concatenate([np.zeros((1, err_bins.shape[1])), np.cumsum(err_bins, axis=0)])
    s = c[d:] - c[:-d]
    return (s ** 2).mean(axis=0)


def histogram_monte_carlo(plan, lengths=None, runs: int = 30, seed: int = 0, progress=None,
                          raw_queries: int = 20) -> Curves:
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
    idx = np.flatnonzero(plan.noised)
    is_tree = t.n_nodes > n
    all_noised = bool(np.all(plan.noised))  # seed 000's rule has no notion of an un-noised node
    methods = [LEAF_ONLY] + ([RAW_TREE, LEAST_SQUARES] if is_tree else []) + (
        [SEED_RULE] if is_tree and all_noised else [])
    per = {m: np.zeros((runs, d_all.size)) for m in methods}
    flat_scale = 1.0 / float(plan.epsilon)
    leaf_of_bin = t.leaf_of_bin
    for r in range(runs):
        if progress is not None:
            progress(r, runs, f"Monte-Carlo run {r + 1} of {runs}")
        flat = _discrete_laplace(rng, np.full(n, flat_scale), 1)
        for j, d in enumerate(d_all):
            per[LEAF_ONLY][r, j] = _range_errors_from_leaves(flat, int(d))[0]
        if not is_tree:
            continue
        y = np.zeros((t.n_nodes, 1))
        y[idx] = _discrete_laplace(rng, plan.scales[idx], 1)
        ls = least_squares(t.parents, y, plan.variances, t.levels)[leaf_of_bin]
        hay = hay_generalized(t.parents, y, t.levels)[leaf_of_bin] if all_noised else None
        for j, d in enumerate(d_all):
            d = int(d)
            per[LEAST_SQUARES][r, j] = _range_errors_from_leaves(ls, d)[0]
            if hay is not None:
                per[SEED_RULE][r, j] = _range_errors_from_leaves(hay, d)[0]
            starts = rng.integers(0, n - d + 1, size=raw_queries)
            errs = [y[canonical_cover(t.parents, t.lo, t.hi, plan.noised, int(l), int(l) + d, t.levels), 0].sum()
                    ** 2 for l in starts]
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


def diffgen_error_by_size(data, result, epsilon_counts: float, runs: int = 30, seed: int = 0,
                          queries: int = 400, progress=None):
    """``error_by_query_size`` on the run's DiffGen tree (true counts: SIMULATION, NOT A RELEASE)."""
    from dpstudio.core.range_queries import random_boxes
    from dpstudio.evaluation.diffgen_trees import domain_of, true_tree
    from dpstudio.evaluation.range_error import error_by_query_size

    if progress is not None:
        progress(0, 2, "counting the partition tree")
    domain = domain_of(data)
    tree = true_tree(data, result, domain)
    rng = np.random.default_rng(seed)
    workload = random_boxes(domain, queries, rng, attributes=(1, min(2, len(domain))),
                            n_classes=len(data.classes))
    if progress is not None:
        progress(1, 2, f"Monte-Carlo, {runs} runs")
    res = error_by_query_size(domain, tree, float(epsilon_counts), workload, runs=runs, seed=seed)
    if progress is not None:
        progress(2, 2, "done")
    return res


def diffgen_curves(res) -> Curves:
    """Plot data from an ``ErrorBySize``: x = bucket midpoints (share of records), band = interquartile
    range of the per-query MSE inside the bucket."""
    rows = res.table()
    x = np.array([(r["size_lo"] + r["size_hi"]) / 2 for r in rows])
    out = Curves(x, label=res.label, runs=res.runs)
    e = res.edges
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
    del e
    return out


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
    return (np.asarray(keep, dtype=np.int64),
            np.asarray([float(np.sum(noisy[i])) for i in keep]),
            np.asarray([float(np.sum(est[i])) for i in keep]))


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
    release: float
    majority: float
    raw: float
    n_test: int


def classification_scores(result, train, test, class_column: str, numeric=()) -> ClassificationScores:
    """Accuracy of a tree trained on the release (test generalized by the released cut), against the
    majority class and a tree trained on the raw training rows (``dpstudio.evaluation.classification``)."""
    from dpstudio.evaluation.classification import majority_accuracy, raw_accuracy, release_accuracy
    from dpstudio.io.release import release_frame

    rel = release_accuracy(release_frame(result), result.cut, test, class_column)
    attrs = list(result.attributes)
    raw = raw_accuracy(train, test, attrs, [a for a in attrs if a in set(numeric)], class_column)
    maj = majority_accuracy(train[class_column], test[class_column])
    return ClassificationScores(rel.accuracy, maj, raw.accuracy, rel.n_test)
