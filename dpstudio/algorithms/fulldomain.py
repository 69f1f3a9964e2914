"""Full-domain generalization searches (SYNTACTIC.md K1, K6, K7, K9.6): the optimal search over the whole
lattice, Samarati's binary search and Incognito, as event generators.

None of these is differentially private: the chosen node and the released table are deterministic
functions of the data (syntactic anonymization: no differential-privacy guarantee). Nothing here spends
budget or draws noise.

A node is a tuple of levels, one per QI (0 = leaves). It *satisfies* the problem when the rows of the
classes that fail a model (size < k, an l-diversity or t-closeness model) number at most MaxSup =
floor(suppression * n); those rows are suppressed.
"""

from __future__ import annotations

import heapq
import itertools
from collections import OrderedDict
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ..core import syntactic_metrics as sm
from ..core.events import Event, RunFinished
from ..core.syntactic_models import TCloseness, class_failures, max_suppressed
from .fulldomain_data import FrequencySet, Microdata, bottom, project, rollup


@dataclass(frozen=True)
class Problem:
    """What the search must satisfy and minimise. ``class_attr``: the extra column of class labels (for
    the cm metric); ``models``: l-diversity / t-closeness models on extra columns."""

    data: Microdata
    k: int
    suppression: float = 0.0
    models: tuple = ()
    metric: str = "dm"
    class_attr: str | None = None
    tie: str = "one-majority"

    @property
    def max_sup(self) -> int:
        return max_suppressed(self.suppression, self.data.n)

    @property
    def extras(self) -> tuple[str, ...]:
        names = [m.attribute for m in self.models]
        if self.class_attr is not None:
            names.append(self.class_attr)
        return tuple(dict.fromkeys(names))


@dataclass(frozen=True)
class NodeResult:
    """One evaluated lattice node: ``classes`` counts the kept (released) equivalence classes."""

    levels: tuple[int, ...]
    satisfies: bool
    suppressed: int
    classes: int
    metric: float

    @property
    def height(self) -> int:
        return sum(self.levels)


@dataclass(frozen=True)
class NodeChecked(Event):
    """A lattice node was evaluated (the studio colours it satisfying or not)."""

    node: NodeResult


@dataclass(frozen=True)
class HeightProbed(Event):
    """Samarati: the satisfying nodes at ``height`` (empty: none)."""

    height: int
    satisfying: tuple[tuple[int, ...], ...]


@dataclass
class SearchResult:
    """The outcome of a lattice search: ``chosen`` (None when no node satisfies), every node evaluated,
    ``satisfying`` / ``minimal`` level tuples, ``nodes`` = the lattice size, ``checks`` = frequency sets
    computed, ``enumerated`` = whether ``satisfying`` is the full satisfying set of the lattice."""

    algorithm: str
    chosen: NodeResult | None
    evaluated: list[NodeResult]
    satisfying: list[tuple[int, ...]]
    minimal: list[tuple[int, ...]]
    nodes: int
    checks: int
    enumerated: bool
    heights_probed: list[int] = field(default_factory=list)


class Evaluator:
    """Evaluates nodes of one problem from frequency sets (numpy; exact)."""

    def __init__(self, problem: Problem):
        self.p = problem
        data = problem.data
        self.base = bottom(data, None, problem.extras)
        self.checks = 0
        self._q = {}
        for m in problem.models:
            if isinstance(m, TCloseness):
                codes, size = data.extras[m.attribute]
                self._q[m.attribute] = np.bincount(codes, minlength=size) / data.n
        # non-uniform entropy per attribute and level, on the whole input (K5)
        self._entropy = []
        for j, h in enumerate(data.hierarchies):
            counts = np.bincount(data.codes[:, j], minlength=h.size(0))
            self._entropy.append([sm.entropy_terms(counts, h.gen[lv], h.size(lv)) for lv in range(h.height + 1)])

    def frequency_set(self, levels, start: FrequencySet | None = None) -> FrequencySet:
        self.checks += 1
        return rollup(self.p.data, start if start is not None else self.base, levels)

    def classes(self, fs: FrequencySet):
        """(sizes, outlier mask, start index, histograms per extra) of the classes of ``fs``."""
        starts = fs.class_starts()
        sizes = np.add.reduceat(fs.counts, starts) if len(starts) else np.zeros(0, dtype=np.int64)
        cls = np.repeat(np.arange(len(starts)), np.diff(np.append(starts, len(fs.counts))))
        hists = {}
        for e, (name, size) in enumerate(zip(self.p.extras, fs.extra_sizes)):
            h = np.bincount(cls * size + fs.extra[e], weights=fs.counts, minlength=len(starts) * size)
            hists[name] = h.reshape(len(starts), size).astype(np.int64)
        bad = class_failures(sizes, self.p.k, hists, self.p.models, self._q)
        return sizes, bad, starts, hists

    def result(self, fs: FrequencySet) -> NodeResult:
        sizes, bad, starts, hists = self.classes(fs)
        suppressed = int(sizes[bad].sum())
        ok = suppressed <= self.p.max_sup
        return NodeResult(
            tuple(fs.levels), ok, suppressed, int((~bad).sum()), self.metric(fs, sizes, bad, starts, hists)
        )

    def metric(self, fs, sizes, bad, starts, hists) -> float:
        name = self.p.metric
        if name == "dm":
            return float(sm.discernibility(sizes, bad))
        if name == "dm-star":
            return float(sm.discernibility_star(sizes))
        if name == "entropy":
            return float(sum(self._entropy[j][lv] for j, lv in zip(fs.attrs, fs.levels)))
        if name == "cm":
            if self.p.class_attr is None:
                raise ValueError("the cm metric needs a class attribute")
            return float(sm.classification(hists[self.p.class_attr], bad, self.p.tie))
        if name == "avg":
            return sm.average_class_size(int(sizes[~bad].sum()), int((~bad).sum()), self.p.k)
        if name == "loss":
            kept_rows = np.repeat(~bad, np.diff(np.append(starts, len(fs.counts))))
            covered = [
                np.repeat(self.p.data.hierarchies[j].leaves_under[lv][fs.qi[pos, kept_rows]], fs.counts[kept_rows])
                for pos, (j, lv) in enumerate(zip(fs.attrs, fs.levels))
            ]
            leaves = [self.p.data.hierarchies[j].size(0) for j in fs.attrs]
            return sm.loss(covered, leaves, int(sizes[bad].sum()), self.p.data.n)
        raise ValueError(f"unknown metric {name!r}: use one of {', '.join(sm.METRICS)}")

    def evaluate(self, levels) -> NodeResult:
        return self.result(self.frequency_set(levels))


def all_nodes(heights) -> list[tuple[int, ...]]:
    return list(itertools.product(*[range(h + 1) for h in heights]))


def nodes_at_height(heights, height: int) -> list[tuple[int, ...]]:
    """Level tuples with sum ``height``, in lexicographic order."""
    return [n for n in all_nodes(heights) if sum(n) == height]


def minimal_nodes(satisfying) -> list[tuple[int, ...]]:
    """Satisfying nodes with no other satisfying node below them (no monotonicity assumed): a node has a
    satisfying node strictly below it iff one of its direct specializations satisfies or has one below."""
    sat = set(map(tuple, satisfying))
    if not sat:
        return []
    q = len(next(iter(sat)))
    top = tuple(max(n[j] for n in sat) for j in range(q))
    below: dict[tuple, bool] = {}
    for node in sorted(itertools.product(*[range(h + 1) for h in top]), key=sum):
        below[node] = any(
            (d in sat or below[d]) for d in (node[:j] + (node[j] - 1,) + node[j + 1 :] for j in range(q) if node[j])
        )
    return sorted(n for n in sat if not below[n])


def best(results) -> NodeResult | None:
    """The satisfying node with the smallest metric (ties: lower height, then lexicographically smallest)."""
    ok = [r for r in results if r.satisfies]
    return min(ok, key=lambda r: (r.metric, r.height, r.levels)) if ok else None


def run_optimal(problem: Problem):
    """Evaluate every node of the lattice (depth-first over a spanning tree, each node rolled up from its
    parent's frequency set) and choose the satisfying node with the smallest metric. Yields NodeChecked
    per node and RunFinished(SearchResult)."""
    ev = Evaluator(problem)
    heights = problem.data.heights
    q = len(heights)
    results = []
    # spanning tree: a node's parent lowers the last coordinate raised, in ``order``; raising the attributes
    # with the largest domains first makes the frequency sets shrink early, so most rollups are small
    order = list(range(q))
    stack: list[tuple[tuple[int, ...], Any, int]] = [((0,) * q, None, 0)]
    while stack:
        levels, parent_fs, last = stack.pop()
        fs = ev.frequency_set(levels, parent_fs)
        r = ev.result(fs)
        results.append(r)
        yield NodeChecked(r)
        for pos in range(q - 1, last - 1, -1):  # raise order[pos] for pos >= last: each node generated once
            j = order[pos]
            if levels[j] < heights[j]:
                child = levels[:j] + (levels[j] + 1,) + levels[j + 1 :]
                stack.append((child, fs, pos))
    results.sort(key=lambda r: r.levels)
    sat = [r.levels for r in results if r.satisfies]
    yield RunFinished(
        SearchResult("optimal", best(results), results, sat, minimal_nodes(sat), len(results), ev.checks, True)
    )


def run_samarati(problem: Problem, prefer: str = "lexicographic"):
    """Samarati's binary search on the height (K6): all satisfying nodes at the minimal height; the chosen
    one is the lexicographically smallest (``prefer="metric"``: the smallest metric). Assumes satisfaction is
    monotone under generalization (k-anonymity and l-diversity with suppression)."""
    ev = Evaluator(problem)
    heights = problem.data.heights
    evaluated: dict[tuple, NodeResult] = {}
    probed = []

    def probe(h):
        probed.append(h)
        out = []
        for levels in nodes_at_height(heights, h):
            r = evaluated.get(levels) or ev.evaluate(levels)
            evaluated[levels] = r
            if r.satisfies:
                out.append(r)
        return out

    low, high = 0, sum(heights)
    sol = probe(high)
    yield HeightProbed(high, tuple(r.levels for r in sol))
    if sol:
        while low < high:
            mid = (low + high) // 2
            s = probe(mid)
            yield HeightProbed(mid, tuple(r.levels for r in s))
            if s:
                sol, high = s, mid
            else:
                low = mid + 1
    for r in evaluated.values():
        yield NodeChecked(r)
    chosen = None
    if sol:
        chosen = (
            min(sol, key=lambda r: r.levels)
            if prefer == "lexicographic"
            else min(sol, key=lambda r: (r.metric, r.levels))
        )
    sat = sorted(r.levels for r in sol)
    yield RunFinished(
        SearchResult(
            "samarati",
            chosen,
            sorted(evaluated.values(), key=lambda r: r.levels),
            sat,
            sat,
            int(np.prod([h + 1 for h in heights])),
            ev.checks,
            False,
            probed,
        )
    )


def run_incognito(problem: Problem, cache_size: int = 64):
    """Incognito (K7): bottom-up breadth-first search over the lattices of all QI subsets, pruned by the
    subset and generalization properties; frequency sets are rolled up from the node that queued them when
    still cached, else from the base frequency set. Returns the full satisfying set of the q-attribute
    lattice; the chosen node is the one with the smallest metric. Assumes monotone satisfaction."""
    ev = Evaluator(problem)
    data = problem.data
    heights = data.heights
    q = len(heights)
    k_ok = problem.max_sup
    cache: OrderedDict = OrderedDict()

    def check(attrs, levels, via):
        src = cache.get((attrs, via)) if via is not None else None
        if src is None:
            src = project(data, ev.base, attrs) if len(attrs) < q else ev.base
        fs = ev.frequency_set(levels, src)
        sizes, bad, _, _ = ev.classes(fs)
        return fs, int(sizes[bad].sum()) <= k_ok

    candidates = {((j,), (lv,)) for j in range(q) for lv in range(heights[j] + 1)}
    for i in range(1, q + 1):
        cset = set(candidates)
        survivors = set(cset)
        marked: set = set()
        queued: set = set()

        def ups(node, cset=cset):
            attrs, levels = node
            for pos, j in enumerate(attrs):
                if levels[pos] < heights[j]:
                    up = (attrs, levels[:pos] + (levels[pos] + 1,) + levels[pos + 1 :])
                    if up in cset:
                        yield up

        def downs(node, cset=cset):
            attrs, levels = node
            for pos in range(len(attrs)):
                if levels[pos] > 0:
                    d = (attrs, levels[:pos] + (levels[pos] - 1,) + levels[pos + 1 :])
                    if d in cset:
                        yield d

        heap: list[tuple[int, Any, Any]] = [(sum(n[1]), n, None) for n in cset if not any(True for _ in downs(n))]
        heapq.heapify(heap)
        queued.update(n for _, n, _ in heap)
        while heap:
            _, node, via = heapq.heappop(heap)
            if node in marked:
                continue
            fs, ok = check(node[0], node[1], via)
            if ok:
                todo = [node]
                while todo:
                    for up in ups(todo.pop()):
                        if up not in marked:
                            marked.add(up)
                            todo.append(up)
            else:
                survivors.discard(node)
                cache[(node[0], node[1])] = fs
                cache.move_to_end((node[0], node[1]))
                while len(cache) > cache_size:
                    cache.popitem(last=False)
                for up in ups(node):
                    if up not in queued:
                        queued.add(up)
                        heapq.heappush(heap, (sum(up[1]), up, node[1]))
        if i == q:
            break
        # graph generation: join and prune (subset property)
        nxt = set()
        by_prefix: dict = {}
        for attrs, levels in survivors:
            by_prefix.setdefault((attrs[:-1], levels[:-1]), []).append((attrs[-1], levels[-1]))
        for (pa, pl), tails in by_prefix.items():
            for (a1, l1), (a2, l2) in itertools.product(tails, tails):
                if a1 < a2:
                    attrs, levels = pa + (a1, a2), pl + (l1, l2)
                    subsets_ok = all(
                        (attrs[:d] + attrs[d + 1 :], levels[:d] + levels[d + 1 :]) in survivors
                        for d in range(len(attrs))
                    )
                    if subsets_ok:
                        nxt.add((attrs, levels))
        candidates = nxt
    sat: list[tuple[int, ...]] = sorted(levels for attrs, levels in survivors)
    results = [ev.evaluate(levels) for levels in sat]
    for r in results:
        yield NodeChecked(r)
    yield RunFinished(
        SearchResult(
            "incognito",
            best(results),
            results,
            sat,
            minimal_nodes(sat),
            int(np.prod([h + 1 for h in heights])),
            ev.checks,
            True,
        )
    )


SEARCHES = {"optimal": run_optimal, "samarati": run_samarati, "incognito": run_incognito}
#: the searches that prune the lattice by monotonicity (a node's specialisations fail when it fails), which
#: t-closeness and recursive l-diversity with suppression do not have
MONOTONE_SEARCHES = frozenset({"samarati", "incognito"})


def run_to_result(gen) -> SearchResult:
    """Drain an event generator and return its result."""
    result = None
    for ev in gen:
        if isinstance(ev, RunFinished):
            result = ev.result
    assert result is not None, "the search ended without its result"
    return result
