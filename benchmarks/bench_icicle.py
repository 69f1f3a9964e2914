"""Icicle view of the Watch panel (issue 10): layout and paint time on the studio's own h = 10 runs on the
bundled Adult sample (teaching and release), and on a 67,000-node synthetic tree (adult.data's size).

    QT_QPA_PLATFORM=offscreen .venv/bin/python benchmarks/bench_icicle.py [--repeats 5]

Prints the median layout time (``model.icicle_layout``) and the median full paint (``IcicleView.grab``
at 700 x 300, layout cached) per tree, and the load average.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
os.environ.setdefault("DPSTUDIO_BUDGET_STORE", "none")
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))


def synthetic_state(n_nodes: int, branching: int = 4, seed: int = 0):
    """A tree of about ``n_nodes`` nodes, breadth first, with released (2-class) counts on the leaves."""
    import numpy as np

    from dpstudio.model.watch.replay import RELEASED, NodeState, TreeState

    rng = np.random.default_rng(seed)
    st = TreeState()
    parents = [-1]
    depth = [0]
    k = 0
    while len(parents) < n_nodes:
        for _ in range(branching):
            parents.append(k)
            depth.append(depth[k] + 1)
        k += 1
    has_child = set(parents[1:])
    for i, (p, d) in enumerate(zip(parents, depth)):
        rel = None if i in has_child else tuple(int(v) for v in rng.poisson(5, 2))
        st.nodes[i] = NodeState(i, p, f"node {i}", d, released=rel)
        st.order.append(i)
        st.parent_ids.append(p)
        st.status.append(RELEASED)
    return st


def main(argv=None) -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--repeats", type=int, default=5)
    args = ap.parse_args(argv)
    from PySide6 import QtWidgets

    app = QtWidgets.QApplication.instance() or QtWidgets.QApplication([])
    from dpstudio.gui.widgets.icicle_view import IcicleView
    from dpstudio.model.watch.icicle_layout import icicle_layout
    from dpstudio.model.watch.replay import Replay
    from tests.gui.sample_runs import sample_runs

    states = {}
    for mode, (events, _total) in sample_runs().items():
        r = Replay()
        r.extend(events)
        r.seek_end()
        states[f"sample h = 10, {mode}"] = r.state
    states["synthetic, b = 4"] = synthetic_state(67_000)
    view = IcicleView()
    view.resize(700, 300)
    print(f"load average {os.getloadavg()[0]:.2f}; median of {args.repeats}")
    for name, st in states.items():
        lay, paint = [], []
        for _ in range(args.repeats):
            t = time.perf_counter()
            icicle_layout(st)
            lay.append(time.perf_counter() - t)
            view.set_state(st)
            view._layout()
            t = time.perf_counter()
            view.grab()
            paint.append(time.perf_counter() - t)
        print(
            f"{name:28s} {st.n_nodes:7,d} nodes  layout {statistics.median(lay) * 1e3:6.1f} ms  "
            f"paint {statistics.median(paint) * 1e3:6.1f} ms"
        )
    del app


if __name__ == "__main__":
    main()
