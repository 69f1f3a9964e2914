"""Pacing of the long pieces of GUI-thread work while a run is followed (Qt's event loop, nothing else).

The Watch applying events, the tree redrawing, its labels, the step chart, the ledger and the icicle's layout
each take from a few to tens of milliseconds on a large tree. Each calls ``note_busy()`` when it ends; one that
finds ``recently_busy()`` (another ended less than ``PACING_GAP_S`` ago, in the same pass of the event loop)
waits ``PACING_DELAY_MS`` instead (``put_off``, at most ``MAX_WAIT_S`` in all), so that input and paint events
get in between them (benchmarks/bench_gui_stall.py, benchmarks/bench_watch_follow.py). The views' paints go through
``paint_paced``: a long paint, or one right after long work, counts as long work too.
"""

from __future__ import annotations

import time

PACING_GAP_S = 0.002
PACING_DELAY_MS = 8
#: a paint that took longer than this counts as long work
PAINT_BUSY_S = 0.004
#: a piece of work that has waited this long for a pass without other long work runs anyway
MAX_WAIT_S = 0.1
_PACING = {"busy_end": 0.0}


def note_busy() -> None:
    """Say that a long piece of GUI-thread work just ended."""
    _PACING["busy_end"] = time.perf_counter()


def recently_busy() -> bool:
    """Whether a long piece of GUI-thread work ended less than ``PACING_GAP_S`` ago."""
    return time.perf_counter() - _PACING["busy_end"] < PACING_GAP_S


def put_off(owner, name: str, retry=None) -> bool:
    """Whether ``owner``'s piece of long work ``name`` waits now: other long work ended just now
    (``recently_busy``) and this piece has waited less than ``MAX_WAIT_S`` since it was first put off. When it
    waits, ``retry`` (if given) is called in ``PACING_DELAY_MS`` by a single-shot timer of ``owner``; when it
    runs, its wait is forgotten. Every deferral of the views goes through here, so none waits for ever (walk
    55: while the Watch caught up with a run, the tree's labels and the side panels kept finding other work
    just ended, and stayed empty)."""
    waits = owner.__dict__.setdefault("_pacing_waits", {})
    if recently_busy():
        now = time.perf_counter()
        if now - waits.setdefault(name, now) < MAX_WAIT_S:
            if retry is not None:
                from PySide6 import QtCore

                QtCore.QTimer.singleShot(PACING_DELAY_MS, owner, retry)
            return True
    waits.pop(name, None)
    return False


def paint_paced(paint, event) -> float:
    """Run ``paint(event)`` (a view's ``paintEvent``) and return its cost in seconds. The paint counts as
    long work when it took longer than ``PAINT_BUSY_S``, or when it came right after long work in the same
    pass of the event loop (then the next piece waits for a later pass: a paint of a few milliseconds
    between two pieces let the second one in, and the three made one gap)."""
    t = time.perf_counter()
    chained = recently_busy()
    paint(event)
    cost = time.perf_counter() - t
    if chained or cost > PAINT_BUSY_S:
        note_busy()
    return cost
