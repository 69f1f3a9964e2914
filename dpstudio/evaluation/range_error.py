"""Range-count error by query size: leaf-only release vs consistent release, by Monte-Carlo.

SIMULATION, NOT A RELEASE. Everything here draws seeded numpy noise (``SimulationNoise``) and compares
noisy answers with the true answers of the same data. That is an evaluation of the methods on data the
evaluator holds; none of these figures may appear in a release report (ALGORITHMS.md 0).

Same data, same DiffGen tree, budget ``epsilon`` for the counts (eps_c in ALGORITHMS.md 4):

- ``leaf-only``: DiffGen's release: every leaf x class cell gets discrete Laplace of scale 1/eps (the
  leaves are disjoint: sensitivity 1). A query is the sum of its leaves (partial leaves pro-rated).
- ``raw tree``: every node x class gets scale L/eps, L = number of nodes on the longest root-to-leaf path
  (a record lies on one path); a query is answered from its minimal cover (seed 000).
- ``least squares``: the same noisy tree made consistent by exact BLUE; the consistent leaves answer.
- ``two-pass averaging``: the same noisy tree made consistent by seed 000's generalized Hay rule.
- ``optimized levels`` (on request): diffgen-consistent's default: per-level budgets chosen for the tree's shape
  (``algorithms.diffgen_levels``; a leaf takes the levels below it), then exact least squares.

Error of a query = mean over runs of (answer - true answer)^2; grouped by query size. Size is either the
share of the records the query holds (``size="records"``: needs the true answer, fine in a simulation) or
the share of the domain's volume (``size="domain"``, ``Domain.fraction``).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

from ..core.consistency import hay_generalized, least_squares
from ..core.noise import SimulationNoise
from ..core.range_queries import (
    CategoricalAxis,
    Domain,
    NumericAxis,
    Workload,
    answer,
    cell_weights,
    node_depths,
    tree_weights,
)
from ..core.scales import noise_scale

LEAF_ONLY = "leaf-only"
RAW_TREE = "raw tree (minimal cover)"
LEAST_SQUARES = "consistent (least squares)"
SEED_RULE = "consistent (two-pass averaging)"  # Hay et al.'s rule, generalized (seed 000)
OPTIMIZED_LEVELS = "consistent (optimized levels)"
METHODS = (LEAF_ONLY, RAW_TREE, LEAST_SQUARES, SEED_RULE)
ALL_METHODS = METHODS + (OPTIMIZED_LEVELS,)  # OPTIMIZED_LEVELS on request (``methods=``)

SIMULATION_LABEL = "simulation noise, compared with the true answers: an evaluation, not a release"

DEFAULT_EDGES = (0.0, 0.01, 0.05, 0.1, 0.2, 0.4, 0.7, 1.0)


@dataclass
class PartitionTree:
    """A DiffGen tree with TRUE counts (evaluation only): parents, leaf ids, leaf extents, nodes x classes."""

    parents: np.ndarray
    leaves: np.ndarray
    leaf_cells: tuple
    counts: np.ndarray

    @property
    def path_length(self) -> int:
        """L: the number of nodes on the longest root-to-leaf path (sensitivity of all node counts)."""
        return int(node_depths(self.parents).max()) + 1


def count_records(
    domain: Domain, parents, cells: tuple, records: Sequence[np.ndarray], y: np.ndarray, n_classes: int
) -> PartitionTree:
    """True node x class counts of a partition tree whose children partition their parent.

    ``cells``: extents of EVERY node (as from ``Domain.cells``; node order). ``records``: per attribute,
    the raw taxonomy leaf node ids (categorical) or values (numeric); a numeric value equal to the upper
    bound counts in the cell that ends there. Records descend from the root, one level at a time, into the
    child whose cell holds them.
    """
    parents = np.asarray(parents, dtype=np.int64)
    n_nodes = parents.size
    depth = node_depths(parents)
    n = len(y)
    pos = []
    for ax, vals in zip(domain.axes, records):
        v = np.asarray(vals)
        if ax.is_numeric:
            pos.append(v.astype(float))
        else:
            assert isinstance(ax, CategoricalAxis)
            tax_leaves = np.asarray(ax.taxonomy.leaves)
            p = np.clip(np.searchsorted(tax_leaves, v.astype(np.int64)), 0, tax_leaves.size - 1)
            if np.any(tax_leaves[p] != v):
                raise ValueError(f"{ax.name}: records must hold taxonomy leaf ids")
            pos.append(p)
    order = np.argsort(parents, kind="stable")
    order = order[parents[order] >= 0]
    n_children = np.bincount(parents[order], minlength=n_nodes)
    ptr = np.concatenate([[0], np.cumsum(n_children)])
    node_of = np.zeros(n, dtype=np.int64)
    node_of[:] = int(np.flatnonzero(parents < 0)[0])
    for _ in range(int(depth.max())):
        active = np.flatnonzero(n_children[node_of] > 0)
        if active.size == 0:
            break
        cur = node_of[active]
        found = np.full(active.size, -1, dtype=np.int64)
        for k in range(int(n_children[cur].max())):
            has = (n_children[cur] > k) & (found < 0)
            if not has.any():
                continue
            r = active[has]
            child = order[ptr[cur[has]] + k]
            inside = np.ones(r.size, dtype=bool)
            for ax, c, v in zip(domain.axes, cells, pos):
                if isinstance(ax, NumericAxis):
                    lo, hi, x = c[child, 0], c[child, 1], v[r]
                    inside &= (x >= lo) & ((x < hi) | ((x == ax.hi) & (hi == ax.hi)))
                else:
                    inside &= ax.membership[c[child], v[r]]
            idx = np.flatnonzero(has)[inside]
            found[idx] = child[inside]
        if np.any(found < 0):
            bad = int(active[np.flatnonzero(found < 0)[0]])
            raise ValueError(
                f"record {bad} lies in no child of node {int(node_of[bad])}: the children's "
                "cells do not partition their parent"
            )
        node_of[active] = found
    counts = np.zeros((n_nodes, n_classes), dtype=np.int64)
    np.add.at(counts, (node_of, np.asarray(y, dtype=np.int64)), 1)
    _sum_up_levels(parents, counts, depth)
    leaves = np.flatnonzero(n_children == 0)
    return PartitionTree(parents, leaves, tuple(c[leaves] for c in cells), counts)


def _sum_up_levels(parents: np.ndarray, values: np.ndarray, depth: np.ndarray) -> None:
    """Add every node's values into its ancestors (leaves hold the data; internal rows must be zero)."""
    for d in range(int(depth.max()), 0, -1):
        level = np.flatnonzero(depth == d)
        np.add.at(values, parents[level], values[level])


@dataclass
class ErrorBySize:
    """Per-query MSE for each method, the query sizes, and the table by size bucket."""

    methods: tuple
    mse: dict  # method -> (Q,) mean squared error per query over runs
    sizes: np.ndarray
    size_kind: str
    edges: tuple
    runs: int
    epsilon: float
    path_length: int
    label: str = SIMULATION_LABEL
    per_depth: dict = field(default_factory=dict)  # method -> list of node MSE by tree depth

    def table(self) -> list[dict]:
        """One row per size bucket: lo, hi, number of queries, MSE per method."""
        rows = []
        e = self.edges
        for a, b in zip(e[:-1], e[1:]):
            sel = (self.sizes > a) & (self.sizes <= b) if a > 0 else (self.sizes >= a) & (self.sizes <= b)
            if not sel.any():
                continue
            row = {"size_lo": a, "size_hi": b, "queries": int(sel.sum())}
            for m in self.methods:
                row[m] = float(self.mse[m][sel].mean())
            rows.append(row)
        return rows

    def overall(self) -> dict:
        return {m: float(self.mse[m].mean()) for m in self.methods}


def error_by_query_size(
    domain: Domain,
    tree: PartitionTree,
    epsilon: float,
    workload: Workload,
    runs: int = 30,
    seed: int = 0,
    size: str = "records",
    edges: Sequence[float] = DEFAULT_EDGES,
    methods: Sequence[str] = METHODS,
    max_weight_cells: float = 2e7,
    node_scales: Sequence[float] | np.ndarray | None = None,
    progress=None,
) -> ErrorBySize:
    """Monte-Carlo MSE by query size of each method on the same tree and workload (see module doc).

    ``max_weight_cells`` bounds the size (nodes x queries) of the weight matrices held at once.
    ``node_scales``: the discrete Laplace scale of every node of the tree methods, as a run drew them (the
    studio's Compare passes the run's own, e.g. diffgen-consistent's per-level budgets; inf: not noised);
    least squares then weights each node by its variance (the BLUE of that release). Default: the uniform
    scale L/epsilon of every node and unweighted least squares, the seed's DiffGen with consistency.
    ``progress(done, total, text)`` is called after every run of every block of queries.
    """
    if runs < 1:
        raise ValueError("runs must be at least 1")
    if not epsilon > 0:
        raise ValueError("epsilon must be positive")
    unknown = set(methods) - set(ALL_METHODS)
    if unknown:
        raise ValueError(f"unknown method(s) {sorted(unknown)}; choose from {list(ALL_METHODS)}")
    counts = np.asarray(tree.counts)
    parents, leaves = tree.parents, tree.leaves
    L = tree.path_length
    if node_scales is None:
        tree_scales = np.full(parents.size, noise_scale(L, epsilon))
        tree_weights_ls: float | np.ndarray = 1.0
    else:
        from ..algorithms.diffgen_variance import discrete_laplace_variance

        tree_scales = np.asarray(node_scales, dtype=float)
        if tree_scales.shape != (parents.size,) or not (tree_scales > 0).all():
            raise ValueError("node_scales needs one positive scale per node of the tree")
        tree_weights_ls = np.array([discrete_laplace_variance(b) if np.isfinite(b) else np.inf for b in tree_scales])
    if size == "records":
        sizes = np.empty(len(workload))
    elif size == "domain":
        sizes = domain.fraction(workload)
    else:
        raise ValueError("size must be 'records' or 'domain'")
    need_tree = any(m not in (LEAF_ONLY, OPTIMIZED_LEVELS) for m in methods)
    if OPTIMIZED_LEVELS in methods:
        from ..algorithms.diffgen_levels import node_shares, optimal_level_shares
        from ..algorithms.diffgen_variance import discrete_laplace_variance

        opt_scale = np.array(
            [noise_scale(1, epsilon * float(x)) for x in node_shares(parents, optimal_level_shares(parents))]
        )
        opt_var = np.array([discrete_laplace_variance(b) for b in opt_scale])
    depth = node_depths(parents)
    sq = {m: np.zeros(len(workload)) for m in methods}
    node_sq = {m: np.zeros(parents.size) for m in methods}
    total = max(float(counts[parents < 0].sum()), 1.0)
    # Weight matrices are nodes x queries: on big trees take the queries in blocks. Every block replays the
    # same noise draws (same seed, same calls), so the result does not depend on the block size.
    block = max(1, int(max_weight_cells // max(parents.size, 1)))
    n_blocks = -(-len(workload) // block)
    step = 0
    for start in range(0, len(workload), block):
        idx = np.arange(start, min(len(workload), start + block))
        wl = workload.subset(idx)
        first = start == 0
        W_leaf = cell_weights(domain, tree.leaf_cells, wl)
        truth = answer(W_leaf, counts[leaves], wl.classes)
        if size == "records":
            sizes[idx] = truth / total
        W_tree = tree_weights(domain, parents, leaves, tree.leaf_cells, wl) if RAW_TREE in methods else None
        noise = SimulationNoise(seed)
        for _ in range(runs):
            est_nodes = {}
            if LEAF_ONLY in methods:
                leaf_noisy = noise.laplace_counts(counts[leaves], noise_scale(1, epsilon)).astype(float)
                sq[LEAF_ONLY][idx] += (answer(W_leaf, leaf_noisy, wl.classes) - truth) ** 2
                if first:
                    full = np.zeros(counts.shape)
                    full[leaves] = leaf_noisy
                    _sum_up_levels(parents, full, depth)
                    est_nodes[LEAF_ONLY] = full
            if need_tree:
                noisy = np.zeros(counts.shape)
                for b in np.unique(tree_scales[np.isfinite(tree_scales)]):  # not noised (inf): left at 0
                    at = tree_scales == b
                    noisy[at] = noise.laplace_counts(counts[at], float(b))
                if W_tree is not None:  # RAW_TREE is among the methods
                    sq[RAW_TREE][idx] += (answer(W_tree, noisy, wl.classes) - truth) ** 2
                    est_nodes[RAW_TREE] = noisy
                for m, fn in (
                    (LEAST_SQUARES, lambda noisy=noisy: least_squares(parents, noisy, tree_weights_ls)),
                    (SEED_RULE, lambda noisy=noisy: hay_generalized(parents, noisy)),
                ):
                    if m in methods:
                        est = fn()
                        sq[m][idx] += (answer(W_leaf, est[leaves], wl.classes) - truth) ** 2
                        est_nodes[m] = est
            if OPTIMIZED_LEVELS in methods:
                noisy = np.zeros(counts.shape)
                for b in np.unique(opt_scale):
                    at = opt_scale == b
                    noisy[at] = noise.laplace_counts(counts[at], float(b))
                est = least_squares(parents, noisy, opt_var)
                sq[OPTIMIZED_LEVELS][idx] += (answer(W_leaf, est[leaves], wl.classes) - truth) ** 2
                est_nodes[OPTIMIZED_LEVELS] = est
            if first:
                for m, est in est_nodes.items():
                    node_sq[m] += ((est - counts) ** 2).sum(axis=1)
            if progress is not None:
                step += 1
                progress(step, n_blocks * runs, f"Monte-Carlo run {step} of {n_blocks * runs}")
    per_depth = {m: [float(node_sq[m][depth == d].mean() / runs) for d in range(int(depth.max()) + 1)] for m in methods}
    return ErrorBySize(
        tuple(methods),
        {m: sq[m] / runs for m in methods},
        sizes,
        size,
        tuple(edges),
        runs,
        float(epsilon),
        L,
        per_depth=per_depth,
    )


def format_table(result: ErrorBySize) -> str:
    """A plain-text table of MSE by size bucket, with the simulation label and the overall means."""
    kind = "share of records" if result.size_kind == "records" else "share of domain volume"
    head = f"{'size (' + kind + ')':<28} {'queries':>8} " + " ".join(f"{m:>28}" for m in result.methods)
    lines = [
        f"# {result.label}",
        f"# epsilon (counts) = {result.epsilon:g}, runs = {result.runs}, L = {result.path_length}",
        head,
    ]
    for row in result.table():
        lines.append(
            f"({row['size_lo']:.3g}, {row['size_hi']:.3g}]".ljust(28)
            + f" {row['queries']:>8} "
            + " ".join(f"{row[m]:>28.4g}" for m in result.methods)
        )
    ov = result.overall()
    lines.append(f"{'all':<28} {len(result.sizes):>8} " + " ".join(f"{ov[m]:>28.4g}" for m in result.methods))
    return "\n".join(lines)
