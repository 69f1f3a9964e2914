"""The machine's floor for ``bench_gui_stall.py``: the longest GUI-thread gap around a pass that does almost
nothing, after the same idle second.

``bench_gui_stall.py`` idles a second (the 5 ms timer ticking) and then calls Run, in a fresh process each
repeat. This does the same in a window with a button and 30 labels and no studio at all: after ``--idle``
seconds it calls a handler that sets one label's text (and, with ``--touch N``, first reads N random strings
of a heap of ``--heap-million`` million, the cost of touching memory left unused for a while). As in the
studio's measure the pass is the first of its kind in the process (its code, the label's new text and its
paint run for the first time); ``--rehearse`` runs it once before the idle second, leaving only the cost of
memory gone cold. The idle, the timer and the event loop are the stall benchmark's own (``idle``,
``gap_timer``, ``run_loop``). What it prints is the least the studio's measure could be on this machine at this
time: on a machine whose memory is slow to read again after an idle second (benchmarks/RESULTS.md, sessions 22
and 24) this floor alone exceeds 16 ms.

    QT_QPA_PLATFORM=offscreen .venv/bin/python benchmarks/bench_click_floor.py [--repeats 5] [--idle 1.0]
        [--heap-million 0] [--touch 0] [--rehearse]
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import subprocess
import sys
import time

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

#: how long after the pass the gaps are still looked at (its paint comes in the next pass)
AFTER_S = 0.3


def one(idle_s: float, heap_million: float, touch: int, rehearse: bool = False) -> dict:
    """One measurement in this process (it must be a fresh one: the first pass after the idle is measured)."""
    from bench_gui_stall import gap_timer, idle, run_loop, start
    from PySide6 import QtWidgets

    app = QtWidgets.QApplication.instance() or QtWidgets.QApplication([])
    heap = [f"{i}x" for i in range(int(heap_million * 1e6))]
    rng = random.Random(0)
    picks = [rng.randrange(len(heap)) for _ in range(touch)] if heap else []
    win = QtWidgets.QWidget()
    layout = QtWidgets.QVBoxLayout(win)
    button = QtWidgets.QPushButton("Run")
    line = QtWidgets.QLabel("idle")
    layout.addWidget(button)
    layout.addWidget(line)
    for i in range(30):
        layout.addWidget(QtWidgets.QLabel(f"row {i}"))
    win.resize(1100, 700)
    win.show()
    for _ in range(20):
        app.processEvents()
    handler_s: list = []

    def handler(text: str = "clicked") -> None:
        t = time.perf_counter()
        total = sum(len(heap[k]) for k in picks)
        line.setText(f"{text} ({total})")
        handler_s.append(time.perf_counter() - t)

    if rehearse:  # the same pass once, then the window idles as before
        handler("rehearsed")
        for _ in range(20):
            app.processEvents()
        handler_s.clear()

    # the stall benchmark's own steps (bench_gui_stall.measure): an idle with the 5 ms timer, then a new timer
    # started just before the pass, the event loop run as there until AFTER_S later
    idle_gap_ms = idle(app, idle_s)
    timer, gaps = gap_timer()
    start(timer, gaps)
    handler()
    end = time.perf_counter() + AFTER_S
    run_loop(lambda: time.perf_counter() >= end, AFTER_S + 1.0)
    timer.stop()
    return {
        "idle_gap_ms": idle_gap_ms,
        "click_gap_ms": 1e3 * max(gaps[1:]),
        "handler_ms": 1e3 * handler_s[0],
    }


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeats", type=int, default=5, help="fresh processes (default 5)")
    ap.add_argument("--idle", type=float, default=1.0, help="seconds of idling before the pass (default 1.0)")
    ap.add_argument("--heap-million", type=float, default=0.0, help="a heap of this many million small strings")
    ap.add_argument("--touch", type=int, default=0, help="random strings of the heap the pass reads")
    ap.add_argument("--rehearse", action="store_true", help="run the pass once before the idle")
    ap.add_argument("--one", action="store_true", help="one measurement in this process, as a JSON line")
    args = ap.parse_args()
    if args.repeats < 1:
        ap.error("--repeats must be at least 1")
    if args.touch < 0:
        ap.error("--touch must not be negative")
    if args.idle < 0 or args.heap_million < 0:
        ap.error("--idle and --heap-million must not be negative")
    if args.touch and not args.heap_million:
        ap.error("--touch needs a heap (--heap-million)")
    if args.one:
        print(json.dumps(one(args.idle, args.heap_million, args.touch, args.rehearse)))
        return 0
    cmd = [sys.executable, __file__, "--one", "--idle", str(args.idle), "--heap-million", str(args.heap_million)]
    cmd += ["--touch", str(args.touch)] + (["--rehearse"] if args.rehearse else [])
    results = []
    for r in range(args.repeats):
        out = subprocess.run(cmd, capture_output=True, text=True, check=True).stdout
        res = json.loads(out.strip().splitlines()[-1])
        results.append(res)
        print(
            f"run {r + 1}: gap around the pass {res['click_gap_ms']:.1f} ms (the handler {res['handler_ms']:.2f} ms); "
            f"longest gap while idle {res['idle_gap_ms']:.1f} ms"
        )
    med = statistics.median(r["click_gap_ms"] for r in results)
    handler = statistics.median(r["handler_ms"] for r in results)
    load = os.getloadavg()[0]
    print(
        f"median of {len(results)}: gap around a {'rehearsed' if args.rehearse else 'first'} pass that sets one label "
        f"after {args.idle:g} s idle {med:.1f} ms (handler {handler:.2f} ms; heap {args.heap_million:g} M strings, "
        f"{args.touch} read); load average {load:.1f}"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
