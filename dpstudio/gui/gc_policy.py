"""The studio's garbage-collection policy (the one place it is decided).

A worker made with ``pause_gc=True`` (algorithm runs) pauses Python's cyclic collector from ``TaskRunner.start`` until its end (finished / failed /
cancelled) has been delivered to the GUI thread. Full collections walk every object of the heap while
holding the GIL: with a 1M-row table and a run's tens of thousands of events in memory they freeze the
window for 50-600 ms (benchmarks/bench_gui_stall.py). Reference counting still frees everything acyclic
(events, arrays, tuples) during the pause; at the end the surviving objects are moved to the permanent
generation (``gc.freeze``) so later full passes stay short. The collector is always resumed once no
pausing worker is left, even if the widget that started the run is gone.
"""

from __future__ import annotations

import gc

from PySide6 import QtCore


class _GcPolicy(QtCore.QObject):
    """Pauses the cyclic collector while pausing workers run (see the module docstring). Create and use it
    on the GUI thread: the end of a worker reaches ``_on_end`` there, after the worker's last batch."""

    def __init__(self):
        super().__init__()
        self.active: dict = {}  # WorkerSignals -> Worker (holding them keeps the signals alive)

    def pause(self, worker) -> None:
        gc.freeze()
        if not self.active:
            gc.disable()
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
        if not self.active:
            gc.disable()
        self.active[owner] = owner
        QtCore.QTimer.singleShot(int(seconds * 1000), self, lambda: self.release(owner))

    def release(self, owner) -> None:
        """Idempotent; once nothing holds the pause, freeze what exists and collect again."""
        if self.active.pop(owner, None) is not None and not self.active:
            gc.freeze()
            gc.enable()

    @QtCore.Slot()
    def _on_end(self):
        worker = self.active.get(self.sender())
        if worker is not None:
            self.resume(worker)


_GC_POLICY: list = []


def gc_policy() -> _GcPolicy:
    """The process's one GC policy object (made on first use, on the GUI thread)."""
    if not _GC_POLICY:
        _GC_POLICY.append(_GcPolicy())
    return _GC_POLICY[0]
