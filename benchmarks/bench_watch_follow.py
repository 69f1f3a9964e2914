"""Longest stall of the GUI thread while the Watch follows a recorded 1,000,000-row run, without the engine.

``bench_gui_stall.py`` measures the studio as a whole: the engine process, the worker thread unpickling its
batches and the Watch. This benchmark isolates the Watch's own share of the GUI thread: it records the events
of the same run once (DiffGen with consistency, h = 10, on the bundled Adult training sample resampled to
--rows rows; teaching noise, or OpenDP's with --release), then, in a fresh process per repeat, feeds them to
a real ``WatchPanel`` as the worker would (in order, spread over --seconds, the collector paused as during a
run), lets the view catch up and place its labels, and records the longest gap of a 5 ms timer.

    QT_QPA_PLATFORM=offscreen .venv/bin/python benchmarks/bench_watch_follow.py [--rows 1000000]
        [--release] [--repeats 5] [--seconds 2.7] [--explain 8] [--events FILE]

--explain N prints, for the N longest gaps, the Watch and view methods that ran inside them (every method of
the Watch panel and its views is timed: the figures are then a little slower). A checkout to compare with:
``--code DIR`` runs the repeats with another checkout's dpstudio (e.g. ``git worktree add /tmp/old COMMIT``)
on the same recorded events; ``--pairs`` alternates that checkout's repeats with this one's.
"""

from __future__ import annotations

import argparse
import functools
import gc
import json
import os
import pickle
import statistics
import subprocess
import sys
import tempfile
import time
import types
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
os.environ.setdefault("DPSTUDIO_BUDGET_STORE", "none")
HERE = Path(__file__).resolve().parent


def record(rows: int, release: bool, path: Path) -> None:
    """Run the engine once (in this process, no GUI) and pickle its events."""
    sys.path.insert(0, str(HERE.parent))
    sys.path.insert(0, str(HERE))
    from bench_gui_stall import adult_project, as_release

    from dpstudio.model.release.session import RunSession

    project = adult_project(rows, "diffgen_consistency", 10)
    if release:
        as_release(project)
    session = RunSession.of_project(project)
    session.begin(session.question() if release else None)
    events = list(session.events())
    with open(path, "wb") as f:
        pickle.dump(events, f)


def one(path: Path, seconds: float, teaching: bool, explain: int) -> dict:
    """Feed the recorded events to a Watch panel and time the GUI thread (this process's dpstudio)."""
    from PySide6 import QtCore, QtWidgets

    app = QtWidgets.QApplication.instance() or QtWidgets.QApplication([])
    with open(path, "rb") as f:
        events = pickle.load(f)
    calls: list = []  # (start, seconds, name, depth)
    if explain:
        _time_methods(calls)
    from dpstudio.gui.panels.watch import WatchPanel

    watch = WatchPanel(None)
    watch.resize(1100, 700)
    watch.set_view("Both")
    watch.show()
    for _ in range(20):
        app.processEvents()
    gaps: list = []
    last = [0.0]

    def tick():
        now = time.perf_counter()
        gaps.append((last[0], now - last[0]))
        last[0] = now

    timer = QtCore.QTimer()
    timer.setTimerType(QtCore.Qt.PreciseTimer)
    timer.setInterval(5)
    timer.timeout.connect(tick)
    gc.disable()  # as the worker pauses the collector during a run (gui/worker.py)
    t0 = time.perf_counter()
    timer.start()
    last[0] = t0
    watch.begin_live(teaching, 1.0)
    fed, n = 0, len(events)
    while fed < n:
        app.processEvents(QtCore.QEventLoop.AllEvents, 20)
        due = int(n * min(1.0, (time.perf_counter() - t0) / seconds))
        if due > fed:
            watch.feed(events[fed:due])
            fed = due
    watch.end_live()
    t1 = time.perf_counter()
    pending = getattr(watch.tree, "labels_pending", lambda: False)  # (a checkout before labels in pieces)
    while (watch.position < n or watch.follow or pending()) and time.perf_counter() - t1 < 60:
        app.processEvents(QtCore.QEventLoop.AllEvents, 20)
    t2 = time.perf_counter()
    while time.perf_counter() - t2 < 0.3:  # the last passes: side panels, icicle, labels
        app.processEvents(QtCore.QEventLoop.AllEvents, 20)
    timer.stop()
    gc.enable()
    lengths = sorted(g for _, g in gaps)
    out = {
        "max_gap_ms": lengths[-1] * 1e3,
        "p99_gap_ms": lengths[int(0.99 * (len(lengths) - 1))] * 1e3,
        "gaps_over_16": sum(1 for g in lengths if g > 0.016),
        "ticks": len(lengths),
        "nodes": watch.state.n_nodes,
        "events": n,
        "caught_up_s": t2 - t0,
    }
    if explain:
        top = sorted(gaps, key=lambda g: -g[1])[:explain]
        out["explained"] = [
            f"{d * 1e3:.1f} ms: "
            + ", ".join(
                f"{name} {s * 1e3:.1f}" for st, s, name, depth in calls if depth == 0 and a <= st < a + d and s > 0.001
            )
            for a, d in top
        ]
    return out


def _time_methods(calls: list) -> None:
    """Time every method of the Watch panel and its views (outermost calls are depth 0)."""
    import dpstudio.gui.panels.watch as wp
    import dpstudio.gui.widgets.candidates_chart as cc
    import dpstudio.gui.widgets.icicle_view as iv
    import dpstudio.gui.widgets.ledger_view as lv
    import dpstudio.gui.widgets.split_line as sl
    import dpstudio.gui.widgets.tree_view as tv

    depth = [0]

    def wrap(cls, name, f):
        @functools.wraps(f)
        def timed(*a, **k):
            t = time.perf_counter()
            depth[0] += 1
            try:
                return f(*a, **k)
            finally:
                depth[0] -= 1
                calls.append((t, time.perf_counter() - t, f"{cls.__name__}.{name}", depth[0]))

        setattr(cls, name, timed)

    for mod in (tv, iv, cc, lv, sl, wp):
        for cls in list(vars(mod).values()):
            if isinstance(cls, type) and cls.__module__ == mod.__name__ and hasattr(cls, "metaObject"):
                for name, f in list(vars(cls).items()):
                    if isinstance(f, types.FunctionType) and not name.startswith("__"):
                        wrap(cls, name, f)


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--rows", type=int, default=1_000_000)
    ap.add_argument("--release", action="store_true")
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--seconds", type=float, default=2.7, help="the events are fed over this long (the run's time)")
    ap.add_argument("--explain", type=int, default=0)
    ap.add_argument("--events", type=Path, default=None, help="recorded events (made with this benchmark)")
    ap.add_argument("--code", type=Path, default=None, help="another checkout to measure")
    ap.add_argument("--pairs", action="store_true", help="alternate --code's repeats with this checkout's")
    ap.add_argument("--one", type=Path, default=None, help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.one is not None:
        print(json.dumps(one(args.one, args.seconds, not args.release, args.explain)))
        return 0
    path = args.events
    if path is None:
        path = (
            Path(tempfile.gettempdir())
            / f"dpstudio_watch_follow_{args.rows}_{'release' if args.release else 'teaching'}.pkl"
        )
    if not path.exists():
        t = time.perf_counter()
        record(args.rows, args.release, path)
        print(f"recorded {path} in {time.perf_counter() - t:.1f} s")
    sides = [("new", HERE.parent)]
    if args.code is not None:
        sides = [("old", args.code.resolve()), ("new", HERE.parent)] if args.pairs else [("code", args.code.resolve())]
    results: dict = {name: [] for name, _ in sides}
    for r in range(args.repeats):
        for name, root in sides:
            cmd = [
                sys.executable,
                str(HERE / "bench_watch_follow.py"),
                "--one",
                str(path),
                "--seconds",
                str(args.seconds),
            ]
            cmd += ["--explain", str(args.explain)] + (["--release"] if args.release else [])
            env = dict(os.environ, PYTHONPATH=str(root))
            done = subprocess.run(cmd, env=env, cwd=root, capture_output=True, text=True)
            if done.returncode != 0:
                raise SystemExit(f"{name} run failed:\n{done.stderr[-2000:]}")
            res = json.loads(done.stdout.splitlines()[-1])
            results[name].append(res)
            print(
                f"{name} run {r + 1}: longest gap {res['max_gap_ms']:.1f} ms, p99 {res['p99_gap_ms']:.1f} ms, "
                f"{res['gaps_over_16']} gaps over 16 ms of {res['ticks']} ticks, {res['nodes']} nodes, caught up at "
                f"{res['caught_up_s']:.1f} s"
            )
            for line in res.get("explained", []):
                print("   ", line)
    for name, rs in results.items():
        print(
            f"{name}: median of {len(rs)}: longest gap {statistics.median(r['max_gap_ms'] for r in rs):.1f} ms, p99 "
            f"{statistics.median(r['p99_gap_ms'] for r in rs):.1f} ms, gaps over 16 ms "
            f"{statistics.median(r['gaps_over_16'] for r in rs):.0f}; load average {os.getloadavg()[0]:.1f}"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
