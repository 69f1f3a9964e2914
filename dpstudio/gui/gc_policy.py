"""The studio's garbage-collection policy (the one place it is decided).

**Only the GUI thread collects.** From the first ``gc_policy()`` on (``make_app``, and every ``TaskRunner``
before its first worker starts) Python's automatic collection is off and a timer on the GUI thread collects
every ``CHECK_MS`` by CPython's own rule (``due_generation``: the oldest generation whose count passed its
threshold, once the youngest's has). Automatic collection runs in whichever thread crosses the allocation
threshold: a worker thread then destroyed the Qt objects of reference cycles (menus, actions, widgets) while
holding a Qt lock and waiting for the interpreter lock, which the GUI thread held while waiting for that Qt
lock, and the studio hung (a CI run in session 25: a file loading in the Data panel's worker). pyqtgraph's
``GarbageCollector`` and calibre avoid the same hazard the same way. A full collection waits until the
GUI thread has spent at most ``FULL_SHARE`` of its time in full collections since the last one, since on a
large heap one costs tens of milliseconds (CPython's own heuristic for this, the long-lived objects'
ratio, is not readable from Python).

**Runs pause it.** A worker made with ``pause_gc=True`` (algorithm runs) pauses the collector from
``TaskRunner.start`` until its end (finished / failed / cancelled) has been delivered to the GUI thread, and
the Watch holds the pause while it catches up (``hold``). Full collections walk every object of the heap
while holding the GIL: with a 1M-row table and a run's tens of thousands of events in memory they freeze the
window for 50-600 ms (benchmarks/bench_gui_stall.py). Reference counting still frees everything acyclic
(events, arrays, tuples) during the pause; at the end the surviving objects are moved to the permanent
generation (``gc.freeze``) so later full passes stay short. The collector is always resumed once no
pausing worker is left, even if the widget that started the run is gone.
"""

from __future__ import annotations

import gc
import time

from PySide6 import QtCore

#: how often the GUI thread looks whether a collection is due (CPython looks at every allocation)
CHECK_MS = 100
#: at most this share of the GUI thread's time goes into full collections
FULL_SHARE = 0.02


def due_generation(counts: tuple[int, int, int], thresholds: tuple[int, ...]) -> int | None:
    """The generation CPython's automatic collection would collect at these ``gc.get_count()`` figures and
    ``gc.get_threshold()``: none until generation 0's count exceeds its threshold (a threshold of 0 turns
    collection off), then the oldest generation whose count exceeds its threshold."""
    if not thresholds or thresholds[0] == 0 or counts[0] <= thresholds[0]:
        return None
    for generation in (2, 1):
        if generation < len(thresholds) and counts[generation] > thresholds[generation]:
            return generation
    return 0


class _GcPolicy(QtCore.QObject):
    """Collects on the GUI thread and pauses while pausing workers run (see the module docstring). Create and
    use it on the GUI thread: its timer fires there, and the end of a worker reaches ``_on_end`` there, after
    the worker's last batch."""

    def __init__(self):
        super().__init__()
        self.active: dict = {}  # WorkerSignals -> Worker (holding them keeps the signals alive)
        self._full_allowed_at = 0.0  # time.monotonic() from which a full collection may run again
        gc.disable()  # automatic collection would run in whichever thread allocates
        self._timer = QtCore.QTimer(self)
        self._timer.setInterval(CHECK_MS)
        self._timer.timeout.connect(self.collect_due)
        self._timer.start()

    @property
    def paused(self) -> bool:
        """Whether a run (or the Watch catching up with one) holds collection paused."""
        return bool(self.active)

    def collect_due(self) -> int | None:
        """Collect the generation that is due (``due_generation``) unless paused; the generation collected.
        A full collection not yet allowed (``FULL_SHARE``) is a collection of generation 1."""
        if self.active:
            return None
        generation = due_generation(gc.get_count(), gc.get_threshold())
        if generation is None:
            return None
        if generation == 2 and time.monotonic() < self._full_allowed_at:
            generation = 1
        start = time.monotonic()
        gc.collect(generation)
        if generation == 2:
            now = time.monotonic()
            self._full_allowed_at = now + (now - start) * (1 / FULL_SHARE - 1)
        return generation

    def pause(self, worker) -> None:
        gc.freeze()
        self.active[worker.signals] = worker
        for sig in (worker.signals.finished, worker.signals.failed, worker.signals.cancelled):
            sig.connect(self._on_end)

    def resume(self, worker) -> None:
        """Idempotent; once no pausing worker is left, freeze what exists and collect again."""
        self.release(worker.signals)

    def hold(self, owner, seconds: float = 10.0) -> None:
        """Keep collection paused for ``owner`` too (the Watch catching up with a run that just ended), until
        ``release(owner)`` or at most ``seconds`` (so a forgotten hold cannot leave the collector off)."""
        if owner in self.active:
            return
        gc.freeze()
        self.active[owner] = owner
        QtCore.QTimer.singleShot(int(seconds * 1000), self, lambda: self.release(owner))

    def release(self, owner) -> None:
        """Idempotent; once nothing holds the pause, freeze what exists and collect again."""
        if self.active.pop(owner, None) is not None and not self.active:
            gc.freeze()

    @QtCore.Slot()
    def _on_end(self):
        worker = self.active.get(self.sender())
        if worker is not None:
            self.resume(worker)


_GC_POLICY: list = []


def gc_policy() -> _GcPolicy:
    """The process's one GC policy object, made on first use; from then on only the GUI thread collects.

    Raises RuntimeError off the GUI thread or before the QApplication exists (its timer would never fire
    there, and nothing would collect)."""
    if not _GC_POLICY:
        app = QtCore.QCoreApplication.instance()
        if app is None or QtCore.QThread.currentThread() is not app.thread():
            raise RuntimeError("the GC policy is made on the GUI thread, after the QApplication")
        _GC_POLICY.append(_GcPolicy())
    return _GC_POLICY[0]


def existing_gc_policy() -> _GcPolicy | None:
    """The policy if it has been made, else None (never makes it)."""
    return _GC_POLICY[0] if _GC_POLICY else None
