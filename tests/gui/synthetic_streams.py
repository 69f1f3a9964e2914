"""Synthetic event streams shaped like the real engines' (a DiffGen-like ragged tree, a b-ary interval tree).

Built from the real contracts (events, Ledger, SimulationNoise, least_squares) so that views can be tested
before, and independently of, the engines. Used by the GUI/replay tests and the Watch benchmarks.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from dpstudio.core.budget import Ledger
from dpstudio.core.consistency import least_squares
from dpstudio.core.events import (
    BudgetAssigned,
    BudgetSpent,
    CandidatesScored,
    ConsistencyDone,
    LeavesReleased,
    NodeCreated,
    NodeNoised,
    Progress,
    RunFinished,
    WinnerChosen,
)
from dpstudio.core.mechanisms import exponential_probabilities
from dpstudio.core.noise import SimulationNoise


@dataclass
class SyntheticResult:
    parents: np.ndarray
    noisy: np.ndarray
    consistent: np.ndarray
    variances: np.ndarray
    ledger: Ledger


def _spend(ledger, step, mech, eps, sens=1.0, scale=None):
    s = ledger.spend(step, mech, eps, sens, scale)
    return BudgetSpent(s, float(ledger.spent), float(ledger.remaining))


def diffgen_like(steps=6, eps=1.0, seed=0, teaching=True, max_fanout=4):
    """A ragged partition tree grown by ``steps`` exponential-mechanism selections, then every node noised."""
    rng = np.random.default_rng(seed)
    noise = SimulationNoise(seed)
    ledger = Ledger(eps)
    step_eps = eps / (2 * (2 * steps))
    parents, labels, true = [-1], ["Any | Any"], [int(rng.integers(500, 1000))]
    depth = [0]
    yield NodeCreated(0, -1, labels[0], 0, true[0] if teaching else None)
    leaves = [0]
    for step in range(steps):
        cands = [f"attr{j}:{labels[leaf].split(' | ')[0]}" for j, leaf in enumerate(leaves[:6])]
        scores = rng.integers(0, 100, size=len(cands)).astype(float)
        probs = exponential_probabilities(scores, step_eps, 1.0)
        yield _spend(ledger, f"select {step + 1}", "exponential", step_eps, 1.0, 2 / step_eps)
        yield CandidatesScored(step, tuple(cands), tuple(scores), tuple(float(p) for p in probs), "exponential")
        w = noise.exponential(scores, 2 / step_eps)
        yield WinnerChosen(step, w, cands[w])
        parent = leaves[w]
        k = int(rng.integers(2, max_fanout + 1))
        share = rng.dirichlet(np.ones(k))
        kids = np.floor(share * true[parent]).astype(int)
        kids[-1] += true[parent] - kids.sum()
        new = []
        for c in range(k):
            nid = len(parents)
            parents.append(parent)
            labels.append(f"v{nid} | {step}")
            depth.append(depth[parent] + 1)
            true.append(int(kids[c]))
            new.append(nid)
            yield NodeCreated(nid, parent, labels[nid], depth[nid], true[nid] if teaching else None, {"step": step})
        leaves = leaves[:w] + new + leaves[w + 1 :]
        yield Progress(step + 1, steps + 1, f"step {step + 1}")
    yield from _count_phase(parents, true, depth, ledger, noise, teaching, float(ledger.remaining))


def _count_phase(parents, true, depth, ledger, noise, teaching, eps_c, per_node_eps=None):
    par = np.asarray(parents)
    n = len(parents)
    L = max(depth) + 1
    if per_node_eps is None:
        per_node_eps = np.full(n, eps_c / L)
        yield _spend(ledger, "node counts", "discrete laplace", eps_c, L, L / eps_c)
    else:
        yield _spend(ledger, "node counts", "discrete laplace", eps_c, 1.0, None)
        for i in range(n):
            yield BudgetAssigned(i, float(per_node_eps[i]))
    noisy = np.empty(n, dtype=np.int64)
    var = np.empty(n)
    for i in range(n):
        scale = 1.0 / per_node_eps[i]
        noisy[i] = noise.laplace_counts(np.array([true[i]]), scale)[0]
        p = np.exp(-1 / scale)
        var[i] = 2 * p / (1 - p) ** 2
        yield NodeNoised(i, int(noisy[i]), float(var[i]), true[i] if teaching else None)
    est = least_squares(par, noisy.astype(float), var)
    yield ConsistencyDone("least_squares", tuple(float(x) for x in est))
    leaves = [i for i in range(n) if not np.any(par == i)]
    yield LeavesReleased(tuple(leaves), tuple(float(est[i]) for i in leaves))
    yield RunFinished(SyntheticResult(par, noisy, est, var, ledger))


def interval_tree(n_bins=64, b=4, eps=1.0, seed=0, teaching=True, luedp=False):
    """A b-ary interval tree over ``n_bins`` bins, each node noised (uniform or per-node budgets)."""
    rng = np.random.default_rng(seed)
    noise = SimulationNoise(seed)
    ledger = Ledger(eps)
    counts = rng.poisson(30, size=n_bins)
    parents, depth, true, spans = [], [], [], []
    frontier = [(-1, 0, n_bins, 0)]
    events = []
    while frontier:
        nxt = []
        for parent, lo, hi, d in frontier:
            nid = len(parents)
            parents.append(parent)
            depth.append(d)
            true.append(int(counts[lo:hi].sum()))
            spans.append((lo, hi))
            events.append(
                NodeCreated(nid, parent, f"[{lo},{hi})", d, true[nid] if teaching else None, {"lo": lo, "hi": hi})
            )
            if hi - lo > 1:
                step = -(-(hi - lo) // b)
                for a in range(lo, hi, step):
                    nxt.append((nid, a, min(hi, a + step), d + 1))
        frontier = nxt
    yield from events
    per = None
    if luedp:
        L = max(depth) + 1
        # a simple path-summing assignment (deeper nodes more), for display only
        w = np.array([1.5**d for d in depth])
        per = eps * w / sum(1.5**k for k in range(L))
    yield from _count_phase(parents, true, depth, ledger, noise, teaching, eps, per)
