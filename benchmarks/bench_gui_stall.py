"""Longest stall of the GUI thread while the studio runs an algorithm on a 1,000,000-row table.

A QTimer ticks every 5 ms on the GUI thread and records the largest gap between ticks while the Algorithm
panel's worker runs the job exactly as the studio does (coding the table, ``Project.start_run``, the
engine) and the Watch panel follows the live events (replay + tree view redrawing on its 30 ms timer).
Data: the bundled Adult training sample resampled with replacement to --rows rows, the bundled Adult
taxonomies and public bounds (age, education-num, hours-per-week, capital-gain/loss, fnlwgt numeric).
Target (issue 35): the longest gap stays at or under 16 ms. ``--floor`` also measures, before each repeat, what
the same idle second and one trivial pass cost this machine (``bench_click_floor.py``). Teaching mode
(simulation noise) by default; --release uses OpenDP's secure samplers.

    QT_QPA_PLATFORM=offscreen .venv/bin/python benchmarks/bench_gui_stall.py [--rows 1000000]
        [--algorithm diffgen_consistency] [--steps 10] [--repeats 3] [--release] [--floor]
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
os.environ.setdefault("DPSTUDIO_BUDGET_STORE", "none")  # --release repeats spend nothing in the user's store
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import numpy as np  # noqa: E402
from PySide6 import QtCore, QtWidgets  # noqa: E402


def adult_project(rows: int, algorithm: str, steps: int, seed: int = 0):
    from dpstudio.evaluation.sweeps import read_taxonomy_folder
    from dpstudio.io.adult import CLASS_COLUMN, load_bundled_adult
    from dpstudio.model.project.project import CLASS, IGNORE, NUMERIC, QUASI_IDENTIFIER, Project

    train, _ = load_bundled_adult()
    idx = np.random.default_rng(seed).integers(0, len(train), size=rows)
    frame = train.iloc[idx].reset_index(drop=True)
    taxonomies, bounds = read_taxonomy_folder()
    types = {c: (NUMERIC if c in bounds else "categorical") for c in frame.columns}
    p = Project()
    p.set_data(frame, None, types)
    for c in frame.columns:
        if c == CLASS_COLUMN:
            p.set_role(c, CLASS)
        elif c in taxonomies or c in ("age", "hours-per-week", "education-num"):
            p.set_role(c, QUASI_IDENTIFIER)
        else:
            p.set_role(c, IGNORE)
    for c, (lo, hi) in bounds.items():
        p.set_bounds(c, lo, hi)
    for c, t in taxonomies.items():
        p.set_taxonomy(c, t)
    p.set_algorithm(algorithm, {"steps": steps})
    return p


def as_release(project) -> None:
    """The project in release mode, every input it proposed from the data confirmed as public (the classes
    and bounds are UCI Adult's published ones), with a fresh budget."""
    project.set_mode("release")
    project.release_ledger = None  # a fresh budget for each benchmark repeat
    project.set_classes(sorted(project.frame[project.class_attribute].dropna().unique()), "UCI's documentation")
    for key in list(project.provenance):
        if project.provenance_of(key).derived:
            project.confirm_public(key, "published with the UCI Adult dataset")


IDLE_S = 1.0


def gap_timer() -> tuple:
    """A 5 ms precise timer on the GUI thread, not started, and the list of the gaps between its ticks
    (seconds). Start it with ``start(timer, gaps)``."""
    gaps: list = [time.perf_counter()]  # the last tick's time first; the gaps after it

    def tick():
        now = time.perf_counter()
        gaps.append(now - gaps[0])
        gaps[0] = now

    timer = QtCore.QTimer()
    timer.setTimerType(QtCore.Qt.PreciseTimer)
    timer.setInterval(5)
    timer.timeout.connect(tick)
    return timer, gaps


def start(timer, gaps: list) -> None:
    timer.start()
    gaps[0] = time.perf_counter()


#: how often the benchmark's own loop looks whether what it waits for has happened
POLL_MS = 10


def run_loop(until, timeout_s: float) -> None:
    """Run Qt's event loop, as the studio's ``app.exec()`` does (asleep in the event dispatcher between
    events), until ``until()`` is true (looked at every ``POLL_MS``) or ``timeout_s`` has passed.

    Not ``while ...: app.processEvents(...)``: that returns at once when no event is pending, so the GUI
    thread spun, held a core and took the interpreter lock between its passes, which the studio never does
    (benchmarks/RESULTS.md, session 22)."""
    if until():
        return
    loop = QtCore.QEventLoop()
    end = time.perf_counter() + timeout_s

    def look() -> None:
        if until() or time.perf_counter() > end:
            loop.quit()

    poll = QtCore.QTimer()
    poll.setInterval(POLL_MS)
    poll.timeout.connect(look)
    poll.start()
    loop.exec()
    poll.stop()


def idle(app, seconds: float) -> float:
    """Run the event loop for ``seconds`` with the 5 ms timer; the longest gap in milliseconds."""
    timer, gaps = gap_timer()
    start(timer, gaps)
    end = time.perf_counter() + seconds
    run_loop(lambda: time.perf_counter() >= end, seconds + 1.0)
    timer.stop()
    return float(max(gaps[1:]) * 1e3) if len(gaps) > 1 else 0.0


def studio_window(project):
    """The studio's own window (1280x800, the user's saved layout not read) on the Algorithm tab: its Algorithm
    panel and Watch."""
    import tempfile

    from dpstudio.gui.main_window import MainWindow

    settings = QtCore.QSettings(str(Path(tempfile.mkdtemp()) / "bench.ini"), QtCore.QSettings.IniFormat)
    win = MainWindow(project, settings=settings)
    win.resize(1280, 800)
    win.show()
    win.show_panel("Algorithm")
    return win, win.panels["Algorithm"], win.panels["Watch"]


def measure(
    project, release: bool, timeout_s: float = 300.0, view: str = "Both", collapse: bool = True, window: bool = False
) -> dict:
    """One run, its longest GUI-thread gap and more. By default an Algorithm panel (not shown) and a shown Watch
    of 1100x700, Run called on the panel. With ``window`` the studio's own window: Run clicked with the mouse
    on the Algorithm tab, and the Watch shown by the run's first events, as a person meets it."""
    from PySide6.QtTest import QTest

    from dpstudio.gui.panels.algorithm import AlgorithmPanel
    from dpstudio.gui.panels.watch import WatchPanel

    app = QtWidgets.QApplication.instance()
    if release:
        as_release(project)
    win = None
    if window:
        win, alg, watch = studio_window(project)
    else:
        alg = AlgorithmPanel(project)
        watch = WatchPanel(project)
        watch.resize(1100, 700)
    alg.confirm_release = lambda facts: True  # the benchmark answers the release question with Yes
    watch.set_view(view)
    watch.tree.collapse = collapse
    if win is None:
        watch.show()
    # the studio after a load: the event loop idles while the person looks at the table (here IDLE_S); the
    # Algorithm panel forks the table's standby engine process then (model.release.engine_standby)
    idle_gap_ms = idle(app, IDLE_S)
    timer, gaps = gap_timer()
    done = []
    t0 = time.perf_counter()
    start(timer, gaps)
    if win is not None:
        QTest.mouseClick(alg.run_button, QtCore.Qt.LeftButton)
        worker = alg.worker if alg.last_error == "" else None
    else:
        worker = alg.run(watch=watch)
    if worker is None:
        raise SystemExit(f"could not start: {alg.last_error}")
    for sig in (worker.signals.finished, worker.signals.failed, worker.signals.cancelled):
        sig.connect(lambda *a: done.append(a))
    run_loop(lambda: bool(done), timeout_s)
    run_end = time.perf_counter() - t0

    # the Watch view catches up with the last events after the run (budgeted per tick): still measuring
    def caught_up() -> bool:  # the record's events without copying them (``project.events`` is a copy)
        record = project.run_state.record
        return (
            record is not None
            and record.result is not None
            and watch.position >= len(record.events)
            and not watch.follow
        )

    run_loop(caught_up, timeout_s)
    timer.stop()
    elapsed = time.perf_counter() - t0
    if worker.outcome != "finished":
        raise SystemExit(f"the run did not finish: {worker.outcome} {alg.last_error}")
    g = np.array(gaps[1:]) * 1e3
    out = {
        "run_s": run_end,
        "view_s": elapsed,
        "max_gap_ms": float(g.max()),
        "idle_gap_ms": idle_gap_ms,
        "p99_gap_ms": float(np.percentile(g, 99)),
        "ticks": int(g.size),
        "events": len(project.events),
        "nodes": watch.state.n_nodes,
        "redraws": watch.tree.redraw_count,
    }
    if win is not None:
        project.dirty = False  # closing asks nothing
        win.close()
        win.runner.shutdown()
        win.deleteLater()
    else:
        watch.detach()
        alg.detach()
        watch.close()
        alg.close()
        watch.tree.timer.stop()
        watch.deleteLater()
        alg.deleteLater()
    app.processEvents()
    project.clear_run()  # drop this run's events before the next repeat
    return out


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--rows", type=int, default=1_000_000)
    ap.add_argument("--algorithm", default="diffgen_consistency")
    ap.add_argument("--steps", type=int, default=10)
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--release", action="store_true")
    ap.add_argument(
        "--switch-interval", type=float, default=None, help="sys.setswitchinterval in seconds (Python's default 0.005)"
    )
    ap.add_argument("--one", action="store_true", help="one run in this process, print a JSON line")
    ap.add_argument(
        "--floor",
        action="store_true",
        help="before each repeat, the machine's floor: bench_click_floor.py's first pass after the same idle",
    )
    ap.add_argument("--view", default="Both", choices=("Tree", "Icicle", "Both"), help="the Watch views shown")
    ap.add_argument("--no-collapse", action="store_true", help="draw every node of the tree (no glyphs)")
    ap.add_argument(
        "--window",
        action="store_true",
        help="the studio's own window: Run clicked on the Algorithm tab, the Watch shown by the run (as a person "
        "meets it; by default the Watch is on screen and Run is called on a panel not shown)",
    )
    ap.add_argument(
        "--encode-outside",
        action="store_true",
        help="code the table before the timed run (isolates the engine + GUI from model.runs' "
        "table coding, whose numpy/pandas calls on 1M strings hold the GIL for up to ~1 s)",
    )
    args = ap.parse_args()
    if not args.one:
        # each repeat in a fresh process: one run per studio session, as a user would start it (repeated
        # runs inside one process were measured to get slower each time; see docs/gui-panels.md)
        import json
        import subprocess

        cmd = (
            [
                sys.executable,
                __file__,
                "--one",
                "--rows",
                str(args.rows),
                "--algorithm",
                args.algorithm,
                "--steps",
                str(args.steps),
            ]
            + (["--release"] if args.release else [])
            + (["--encode-outside"] if args.encode_outside else [])
            + (["--switch-interval", str(args.switch_interval)] if args.switch_interval else [])
            + (["--view", args.view])
            + (["--no-collapse"] if args.no_collapse else [])
            + (["--window"] if args.window else [])
        )
        floor_cmd = [
            sys.executable,
            str(Path(__file__).with_name("bench_click_floor.py")),
            "--one",
            "--idle",
            str(IDLE_S),
        ]
        results, floors = [], []
        for r in range(args.repeats):
            if args.floor:  # in the same minute as the run: this machine's speed changes within the hour
                out = subprocess.run(floor_cmd, capture_output=True, text=True, check=True).stdout
                floors.append(json.loads(out.strip().splitlines()[-1])["click_gap_ms"])
            out = subprocess.run(cmd, capture_output=True, text=True, check=True).stdout
            res = json.loads(out.strip().splitlines()[-1])
            results.append(res)
            if r == 0:
                print(
                    f"setup: {args.rows:,} resampled Adult rows in {res['setup_s']:.1f} s ({args.algorithm}, "
                    f"h={args.steps}, {'release (OpenDP)' if args.release else 'teaching'})"
                )
            print(
                f"run {r + 1}: {res['run_s']:.1f} s (view caught up at {res['view_s']:.1f} s), longest GUI "
                f"gap {res['max_gap_ms']:.1f} ms, p99 {res['p99_gap_ms']:.1f} ms, {res['ticks']} ticks, "
                f"{res['events']} events, {res['nodes']} nodes, {res['redraws']} redraws; longest gap while "
                f"idle before it {res['idle_gap_ms']:.1f} ms"
                + (f"; the machine's floor just before {floors[-1]:.1f} ms" if floors else "")
            )
        print(
            f"median of {args.repeats}: longest gap {statistics.median(r['max_gap_ms'] for r in results):.1f} "
            f"ms (target <= 16 ms, issue 35); p99 {statistics.median(r['p99_gap_ms'] for r in results):.1f} ms; run "
            f"{statistics.median(r['run_s'] for r in results):.1f} s; load average {os.getloadavg()[0]:.1f}"
        )
        if floors:
            print(
                f"the machine's floor (bench_click_floor.py: a window's first pass that sets one label after the "
                f"same {IDLE_S:g} s idle), median of {len(floors)}: {statistics.median(floors):.1f} ms"
            )
        return 0
    import json

    app = QtWidgets.QApplication.instance() or QtWidgets.QApplication([])  # noqa: F841
    if args.switch_interval:
        sys.setswitchinterval(args.switch_interval)
    t = time.perf_counter()
    project = adult_project(args.rows, args.algorithm, args.steps)
    if args.encode_outside:
        import dpstudio.model.release.runs as runs

        coded = runs.encode_table(project)
        runs.encode_table = lambda _project: coded
    setup_s = time.perf_counter() - t
    res = measure(project, args.release, view=args.view, collapse=not args.no_collapse, window=args.window)
    res["setup_s"] = setup_s
    print(json.dumps(res))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
