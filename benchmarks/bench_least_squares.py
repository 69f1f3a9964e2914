"""Consistency on large trees: the vectorised passes against a plain per-node Python loop.

    .venv/bin/python benchmarks/bench_least_squares.py [--nodes 1000000] [--loop-nodes 100000] [--runs 5]

Random recursive tree (node i's parent is uniform among 0..i-1, then the ids are shuffled; height about
30 at 1M nodes), noisy counts N(0, 1), per-node variances uniform in [1, 3]. Times are medians of --runs
runs and include building ``TreeLevels`` from the parents array (as the public call does). The loop
implementation does the same two passes node by node; it is timed on --loop-nodes nodes (it is slow),
and the vectorised code is timed on that size too so the ratio compares like with like. Also times a
path of 100,000 nodes (the deepest possible tree: one level per node).
"""

from __future__ import annotations

import argparse
import statistics
import time

import numpy as np

from dpstudio.core.consistency import TreeLevels, hay_generalized, least_squares


def random_tree(n: int, rng) -> np.ndarray:
    parents = np.concatenate([[-1], rng.integers(0, np.arange(1, n))])
    perm = rng.permutation(n)
    inv = np.argsort(perm)
    return np.where(parents[inv] >= 0, perm[np.maximum(parents[inv], 0)], -1)


def loop_least_squares(parents, y, s2):
    """The same two passes, one node at a time (lists, floats, a BFS order)."""
    n = len(parents)
    children = [[] for _ in range(n)]
    root = -1
    for v, p in enumerate(parents):
        if p < 0:
            root = v
        else:
            children[p].append(v)
    order = [root]
    for v in order:  # grows while iterating: breadth-first order
        order.extend(children[v])
    z = list(y)
    V = list(s2)
    sumz = [0.0] * n
    sumV = [0.0] * n
    for v in reversed(order):
        if children[v]:
            S = sumV[v]
            prec = 1.0 / s2[v] + 1.0 / S
            z[v] = (y[v] / s2[v] + sumz[v] / S) / prec
            V[v] = 1.0 / prec
        p = parents[v]
        if p >= 0:
            sumz[p] += z[v]
            sumV[p] += V[v]
    h = z
    for v in order:
        kids = children[v]
        if kids:
            gap = h[v] - sumz[v]
            for c in kids:
                h[c] = z[c] + V[c] / sumV[v] * gap
    return h


def loop_hay(parents, y):
    n = len(parents)
    children = [[] for _ in range(n)]
    root = -1
    for v, p in enumerate(parents):
        if p < 0:
            root = v
        else:
            children[p].append(v)
    order = [root]
    for v in order:
        order.extend(children[v])
    leafnum = [0] * n
    totalnum = [1] * n
    z = list(y)
    sumz = [0.0] * n
    for v in reversed(order):
        if children[v]:
            ln, tn = leafnum[v], totalnum[v]
            z[v] = (ln * y[v] + (tn - ln) * sumz[v]) / tn
        else:
            leafnum[v] = 1
        p = parents[v]
        if p >= 0:
            sumz[p] += z[v]
            leafnum[p] += leafnum[v]
            totalnum[p] += totalnum[v]
    h = z
    for v in order:
        kids = children[v]
        if kids:
            share = (h[v] - sumz[v]) / len(kids)
            for c in kids:
                h[c] = z[c] + share
    return h


CPU = []  # (label, median process time) for the summary: the machine may be shared, wall time is noisy


def median_time(fn, runs, label=None):
    times, cpu = [], []
    out = None
    for _ in range(runs):
        t, c = time.perf_counter(), time.process_time()
        out = fn()
        times.append(time.perf_counter() - t)
        cpu.append(time.process_time() - c)
    if label:
        CPU.append((label, statistics.median(cpu)))
    return statistics.median(times), out


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--nodes", type=int, default=1_000_000)
    ap.add_argument("--loop-nodes", type=int, default=100_000)
    ap.add_argument("--path-nodes", type=int, default=100_000)
    ap.add_argument("--runs", type=int, default=5)
    args = ap.parse_args(argv)
    rng = np.random.default_rng(0)

    parents = random_tree(args.nodes, rng)
    y = rng.normal(size=args.nodes)
    s2 = rng.uniform(1.0, 3.0, args.nodes)
    lv = TreeLevels(parents)
    print(f"random tree: {args.nodes:,} nodes, height {lv.height}, median of {args.runs}")
    t_lv, _ = median_time(lambda: TreeLevels(parents), args.runs, "TreeLevels, random tree")
    t_ls, _ = median_time(lambda: least_squares(parents, y, s2), args.runs, "least_squares, random tree")
    t_hay, _ = median_time(lambda: hay_generalized(parents, y), args.runs, "hay_generalized, random tree")
    y2 = rng.normal(size=(args.nodes, 2))
    t_ls2, _ = median_time(lambda: least_squares(parents, y2, s2), args.runs, "least_squares 2 classes, random tree")
    print(f"  TreeLevels alone                  {t_lv:8.3f} s")
    print(f"  least_squares (1-D, with levels)  {t_ls:8.3f} s")
    print(f"  least_squares (2 classes)         {t_ls2:8.3f} s")
    print(f"  hay_generalized (with levels)     {t_hay:8.3f} s")

    m = args.loop_nodes
    p_small = random_tree(m, rng)
    y_small = rng.normal(size=m)
    s2_small = rng.uniform(1.0, 3.0, m)
    loop_runs = max(1, min(3, args.runs))
    pl, yl, sl = p_small.tolist(), y_small.tolist(), s2_small.tolist()
    t_loop_ls, h_loop = median_time(lambda: loop_least_squares(pl, yl, sl), loop_runs, "loop least squares, small tree")
    t_loop_hay, g_loop = median_time(lambda: loop_hay(pl, yl), loop_runs, "loop hay, small tree")
    t_vec_ls, h_vec = median_time(
        lambda: least_squares(p_small, y_small, s2_small), args.runs, "least_squares, small tree"
    )
    t_vec_hay, g_vec = median_time(lambda: hay_generalized(p_small, y_small), args.runs, "hay_generalized, small tree")
    assert np.allclose(h_loop, h_vec) and np.allclose(g_loop, g_vec), "loop and vectorised disagree"
    print(
        f"per-node Python loop vs vectorised, random tree of {m:,} nodes "
        f"(loop: median of {loop_runs}; loop times include building its child lists)"
    )
    print(
        f"  least_squares   loop {t_loop_ls:7.3f} s   vectorised {t_vec_ls:7.3f} s   ratio {t_loop_ls / t_vec_ls:5.1f}x"
    )
    print(
        f"  hay_generalized loop {t_loop_hay:7.3f} s   vectorised {t_vec_hay:7.3f} s   "
        f"ratio {t_loop_hay / t_vec_hay:5.1f}x"
    )

    k = args.path_nodes
    path = np.arange(-1, k - 1)
    yp = rng.normal(size=k)
    runs = max(1, min(3, args.runs))
    t_path_lv, _ = median_time(lambda: TreeLevels(path), runs, "TreeLevels, path")
    t_path_ls, _ = median_time(lambda: least_squares(path, yp, 1.0), runs, "least_squares, path")
    t_path_hay, _ = median_time(lambda: hay_generalized(path, yp), runs, "hay_generalized, path")
    t_path_loop, _ = median_time(
        lambda: loop_least_squares(path.tolist(), yp.tolist(), [1.0] * k), runs, "loop least squares, path"
    )
    print(f"path of {k:,} nodes ({k:,} levels), median of {runs}")
    print(
        f"  TreeLevels {t_path_lv:.3f} s   least_squares {t_path_ls:.3f} s   "
        f"hay_generalized {t_path_hay:.3f} s   per-node loop least squares {t_path_loop:.3f} s"
    )
    print("median CPU time of this process (less sensitive to other load on the machine):")
    for label, c in CPU:
        print(f"  {label:40s} {c:7.3f} s")


if __name__ == "__main__":
    main()
