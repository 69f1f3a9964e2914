"""Watch view redraw time for a tree of about 5,000 nodes (target: 16 ms) and pan/zoom frames on 67,000 nodes (50 ms).

Trees: an H_b interval tree from the real engine (b = 4 over 3,750 bins: 5,001 nodes... as built) and a
ragged DiffGen-like tree (synthetic stream, about 5,000 nodes). For each: the median of --repeats timed
redraws of
  - "full": layout + edges + node layers + a forced repaint of the view (what happens when nodes appear),
  - "update": colours only + repaint (a value changed, the shape did not).
Offscreen platform, no OpenGL.

    QT_QPA_PLATFORM=offscreen .venv/bin/python benchmarks/bench_watch_redraw.py [--repeats 9]
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import numpy as np  # noqa: E402
from PySide6 import QtWidgets  # noqa: E402


def interval_events(n_bins=3750, b=4):
    from dpstudio.algorithms.interval_trees import IntervalTreeParams, run_interval_tree
    from dpstudio.core.budget import Ledger
    from dpstudio.core.noise import SimulationNoise

    counts = np.random.default_rng(0).poisson(20, n_bins)
    params = IntervalTreeParams("hb", 1.0, b, node_events_limit=1 << 20)  # one event per node, at any size
    return list(run_interval_tree(counts, params, SimulationNoise(0), Ledger(1)))


def ragged_events(steps=1700):
    from tests.gui.synthetic_streams import diffgen_like

    return list(diffgen_like(steps=steps, seed=1, teaching=False))


def _timed(fn):
    w, c = time.perf_counter(), time.thread_time()
    fn()
    return time.perf_counter() - w, time.thread_time() - c


def time_view(view, state, repeats):
    """(full wall, full cpu, update wall, update cpu) medians in ms."""

    def full():
        view._layout_key = None
        view.set_state(state)
        view.redraw()
        view.viewport().repaint()

    def update():
        view.set_state(state)
        view.redraw()
        view.viewport().repaint()

    f = [_timed(full) for _ in range(repeats)]
    u = [_timed(update) for _ in range(repeats)]
    med = lambda xs, k: statistics.median(x[k] for x in xs) * 1e3  # noqa: E731
    return med(f, 0), med(f, 1), med(u, 0), med(u, 1)


def time_pan_zoom(view, state, frames):
    """Median ms of one pan/zoom frame (new view range, the labels that fit placed, a forced repaint) over
    ``frames`` frames: zoomed out to the whole tree, halfway and deep in, panned sideways."""
    view.set_state(state)
    view.redraw()
    view.fit()
    (x0, x1), (y0, y1) = view.getViewBox().viewRange()
    ranges = []
    for k in range(frames):
        zoom = (1.0, 0.3, 0.05, 0.01)[k % 4]
        cx = x0 + (x1 - x0) * ((k * 0.137) % 1.0)
        w = (x1 - x0) * zoom
        ranges.append((cx - w / 2, cx + w / 2))

    def frame(xr):
        view.setRange(xRange=xr, yRange=(y0, y1), padding=0)
        view.viewport().repaint()

    times = [_timed(lambda xr=xr: frame(xr)) for xr in ranges]
    return statistics.median(t[0] for t in times) * 1e3, statistics.median(t[1] for t in times) * 1e3


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--repeats", type=int, default=15)
    ap.add_argument(
        "--large",
        action="store_true",
        help="also a 49,077-node H_b tree (30,000 bins, b=4): the size a 1M-row DiffGen run reaches",
    )
    ap.add_argument(
        "--panzoom",
        action="store_true",
        help="pan/zoom frames on a 67,000-node H_b tree (50,400 bins, b=4; the size of the "
        "67,255-node DiffGen run on adult.data); target <= 50 ms a frame",
    )
    args = ap.parse_args()
    app = QtWidgets.QApplication.instance() or QtWidgets.QApplication([])
    from dpstudio.gui.widgets.tree_view import TreeView
    from dpstudio.model.watch.replay import Replay

    view = TreeView()
    view.collapse = False  # the targets are for every node visible (focus and context draws fewer)
    view.resize(1000, 700)
    view.show()
    app.processEvents()
    print(f"{'tree':<34}{'nodes':>7}{'full wall':>11}{'full cpu':>10}{'upd wall':>10}{'upd cpu':>9}  (ms)")
    trees = [
        ("H_b interval tree (engine, b=4)", interval_events()),
        ("ragged DiffGen-like (synthetic)", ragged_events()),
    ]
    if args.large:
        trees.append(("large H_b interval tree (b=4)", interval_events(n_bins=30_000)))
    for name, events in trees:
        st = Replay(events).seek_end()
        fw, fc, uw, uc = time_view(view, st, args.repeats)
        print(f"{name:<34}{st.n_nodes:>7}{fw:>11.1f}{fc:>10.1f}{uw:>10.1f}{uc:>9.1f}")
    if args.panzoom:
        st = Replay(interval_events(n_bins=50_400)).seek_end()
        wall, cpu = time_pan_zoom(view, st, 4 * args.repeats)
        print(
            f"{'pan/zoom frame, H_b tree (b=4)':<34}{st.n_nodes:>7}{wall:>11.1f}{cpu:>10.1f}   (median of "
            f"{4 * args.repeats} frames; target <= 50 ms)"
        )
    print(
        f"median of {args.repeats} redraws each; target < 16 ms (5,000 visible nodes). wall = elapsed; cpu = GUI-thread CPU time "
        f"(what the redraw costs when the 2 cores are not shared with other jobs); load average "
        f"{os.getloadavg()[0]:.1f}"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
