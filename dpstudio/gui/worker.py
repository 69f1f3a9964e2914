"""Long work off the GUI thread: a QRunnable on a one-thread QThreadPool that iterates a generator.

``Worker(job)`` takes either a zero-argument callable returning an iterator (an algorithm run: each item
is an event) or, with ``function=True``, a callable ``job(progress)`` that returns a value and reports
through ``progress(done, total, message)`` (loading a file). The worker sends:

- ``events(list)``: items of the iterator, batched every ~30 ms so a fast run cannot flood the event loop;
- ``progress(done, total, message)``: from ``Progress`` events or the progress callback (throttled);
- ``finished(object)``: the function's return value, or the list of all items of the iterator;
- ``failed(str)``: a one-line message for the user; every exception is caught (PySide only prints them);
- ``cancelled()``: the job stopped because ``cancel()`` was called.

Exactly one of finished / failed / cancelled is sent, after the last ``events``. Cancellation is
cooperative: an iterator is simply not iterated further; a function is stopped at its next progress call; a
job cancelled before its thread started is never called. ``TaskRunner.start(worker, later=True)`` (a run's
click) starts the thread in a later pass of the event loop.

Signals carry Python objects as ``object``: a ``Signal(list)`` would convert every batch to a
QVariantList on the way (about 100 ms of GUI-thread time per 60,000 events).

Garbage collection (``dpstudio.gui.gc_policy``): once a runner exists only the GUI thread collects, and a worker
made with ``pause_gc=True`` (algorithm runs) pauses the collector until its end has been delivered there.

Interpreter-lock policy: from the first ``TaskRunner.start`` on, the process's GIL switch interval is
``SWITCH_INTERVAL_S`` (1 ms, Python's default is 5 ms; ``prefer_gui_thread``). A worker thread that holds
the lock (receiving and unpickling a run's events) then gives it back to the GUI thread within a millisecond
instead of five. Measured on the 1,000,000-row run (benchmarks/bench_gui_stall.py, 14 pairs against the same
code without it): longest gap median 16.1 ms against 17.6 ms, p99 11.6 against 12.1 ms; the run itself
about 0.2 s longer.
"""

from __future__ import annotations

import sys
import threading
import time
from collections.abc import Callable
from typing import Any

from PySide6 import QtCore

from dpstudio.gui.gc_policy import gc_policy
from dpstudio.gui.pacing import PACING_DELAY_MS, note_busy, put_off

# raised inside a function job's progress callback once the worker is cancelled: the loaders' and the engines'
# own, so a job stopped by its progress, wherever that is raised, ends the worker as cancelled
from dpstudio.io.datasets import Cancelled

BATCH_SECONDS = 0.03
SWITCH_INTERVAL_S = 0.001


def prefer_gui_thread() -> None:
    """Shorten the GIL switch interval to ``SWITCH_INTERVAL_S`` (never lengthen it; see the module docstring)."""
    if sys.getswitchinterval() > SWITCH_INTERVAL_S:
        sys.setswitchinterval(SWITCH_INTERVAL_S)


def user_message(exc: BaseException) -> str:
    """A specific one-line message for the window (no traceback)."""
    text = str(exc).strip().splitlines()[0] if str(exc).strip() else ""
    if isinstance(exc, MemoryError):
        return "out of memory: the data is too large for this machine"
    if isinstance(exc, (FileNotFoundError, PermissionError, IsADirectoryError)):
        name = getattr(exc, "filename", None)
        what = {
            FileNotFoundError: "no such file",
            PermissionError: "permission denied",
            IsADirectoryError: "is a folder, not a file",
        }[type(exc)]
        return f"{name}: {what}" if name else (text or what)
    if isinstance(exc, UnicodeDecodeError):
        return f"the file is not UTF-8 text (byte 0x{exc.object[exc.start]:02x} at position {exc.start})"
    if isinstance(exc, (ValueError, KeyError, OSError, RuntimeError)) and text:
        return text.strip("'\"") if isinstance(exc, KeyError) else text
    return f"unexpected error ({type(exc).__name__}){': ' + text if text else ''}"


class WorkerSignals(QtCore.QObject):
    events = QtCore.Signal(object)  # a list of items (object: no QVariantList conversion)
    progress = QtCore.Signal(int, int, str)
    finished = QtCore.Signal(object)
    failed = QtCore.Signal(str)
    cancelled = QtCore.Signal()


class Worker(QtCore.QRunnable):
    """See the module docstring."""

    def __init__(
        self, job: Callable, function: bool = False, name: str = "", keep_items: bool = True, pause_gc: bool = False
    ):
        super().__init__()
        self.pause_gc = pause_gc
        self.setAutoDelete(False)  # the runner keeps a reference until a final signal is handled
        self.job = job
        self.function = function
        self.name = name or getattr(job, "__name__", "job")
        self.keep_items = keep_items
        self.signals = WorkerSignals()
        self._cancel = threading.Event()
        self.done = threading.Event()
        #: set by the runner one paced pass of the event loop after the thread started: a job whose start
        #: holds the interpreter lock for long (a fork) waits for it, so that the pass that started the thread
        #: is not lengthened by it
        self.start_pass_over = threading.Event()
        self.outcome: str | None = None  # "finished" / "failed" / "cancelled"

    def cancel(self) -> None:
        self._cancel.set()

    @property
    def is_cancelled(self) -> bool:
        return self._cancel.is_set()

    # runs on the pool thread
    def run(self) -> None:
        if self._cancel.is_set():  # cancelled before its thread started: the job is never called
            self._end("cancelled")
            return
        try:
            if self.function:
                result = self._run_function()
            else:
                result = self._run_iterator()
        except Cancelled:
            self._end("cancelled")
        except BaseException as exc:  # noqa: BLE001 - every exception becomes a message
            self._end("failed", user_message(exc))
        else:
            if result is Cancelled:
                self._end("cancelled")
            else:
                self._end("finished", result)

    def _end(self, outcome: str, payload: Any = None) -> None:
        self.outcome = outcome
        self.done.set()  # before emitting: a slot may start the next job at once
        try:
            if outcome == "cancelled":
                self.signals.cancelled.emit()
            elif outcome == "failed":
                self.signals.failed.emit(payload)
            else:
                self.signals.finished.emit(payload)
        except RuntimeError:  # the window (and the signals' owner) closed while the job ran: nobody to tell
            pass

    def _run_function(self):
        last = [0.0]

        def progress(done: int = 0, total: int = 0, message: str = "") -> None:
            if self._cancel.is_set():
                raise Cancelled()
            now = time.monotonic()
            if now - last[0] >= BATCH_SECONDS or (total and done >= total):
                last[0] = now
                self.signals.progress.emit(int(done), int(total), str(message))

        return self.job(progress)

    def _run_iterator(self):
        from dpstudio.core.events import Progress

        items: list = []
        batch: list = []
        last = time.monotonic()
        iterator = iter(self.job())
        try:
            for item in iterator:
                if self._cancel.is_set():
                    break
                batch.append(item)
                if self.keep_items:
                    items.append(item)
                if isinstance(item, Progress):
                    self.signals.progress.emit(int(item.done), int(item.total), item.message)
                now = time.monotonic()
                if now - last >= BATCH_SECONDS:
                    self.signals.events.emit(batch)
                    batch, last = [], now
        finally:
            if batch:
                self.signals.events.emit(batch)
            close = getattr(iterator, "close", None)
            if callable(close):
                close()
        if self._cancel.is_set():
            return Cancelled
        return items


class TaskRunner(QtCore.QObject):
    """Runs one worker at a time on its own one-thread pool; the window's progress bar follows it."""

    busy_changed = QtCore.Signal(bool)

    def __init__(self, parent=None):
        super().__init__(parent)
        self.pool = QtCore.QThreadPool(self)
        self.pool.setMaxThreadCount(1)
        gc_policy()  # from here on only the GUI thread collects, before any worker can start
        self.current: Worker | None = None
        # a worker started ``later`` whose thread has not started yet. The runner's ``destroyed`` slot holds
        # the list too: a runner deleted before that (its panel closed) starts the thread on Qt's global pool,
        # so that the run goes on as it would have a pass later (and ends, resuming the collector)
        self._waiting: list[Worker] = []
        self.destroyed.connect(lambda *_, waiting=self._waiting: _start_orphans(waiting))

    @property
    def busy(self) -> bool:
        return self.current is not None and not self.current.done.is_set()

    def start(self, worker: Worker, later: bool = False) -> Worker:
        """Start ``worker``; raises RuntimeError if another job is still running.

        With ``later`` the runner is busy at once but the worker's thread starts in a later pass of the event
        loop (``PACING_DELAY_MS`` on, after other paced work: ``gui.pacing.put_off``), so that a click's own
        pass does not also start a thread that takes the interpreter lock. A worker cancelled (or the runner
        shut down) before that ends as cancelled without its job ever being called."""
        if self.busy:
            raise RuntimeError(f"'{self.current.name}' is still running: wait for it or cancel it")
        self.current = worker
        self._recent = (getattr(self, "_recent", []) + [worker])[-4:]  # keep alive until signals land
        prefer_gui_thread()
        if worker.pause_gc:
            gc_policy().pause(worker)
        for sig in (worker.signals.finished, worker.signals.failed, worker.signals.cancelled):
            sig.connect(self._on_end)
        self.busy_changed.emit(True)
        if later:
            self._waiting[:] = [worker]
            QtCore.QTimer.singleShot(PACING_DELAY_MS, self, lambda: self._launch(worker))
        else:
            self._start_thread(worker)
        return worker

    def _start_thread(self, worker: Worker) -> None:
        self.pool.start(worker)
        QtCore.QTimer.singleShot(PACING_DELAY_MS, self, worker.start_pass_over.set)

    def _launch(self, worker: Worker) -> None:
        """Start the thread of a worker started ``later`` (see ``start``), or end it as cancelled."""
        if worker not in self._waiting:  # ended meanwhile (shutdown)
            return
        if not worker.is_cancelled and put_off(self, "launch", lambda: self._launch(worker)):
            return
        self._waiting.clear()
        if worker.is_cancelled:
            worker._end("cancelled")
            return
        self._start_thread(worker)
        note_busy()

    def _on_end(self, *_):
        sender_done = self.current is None or self.current.done.is_set()
        if sender_done:
            self.current = None
            self.busy_changed.emit(False)

    def cancel(self) -> None:
        if self.current is not None:
            self.current.cancel()

    def shutdown(self, msecs: int = 5000) -> bool:
        """Cancel the running job and wait for the pool (on window close); a worker whose thread has not
        started yet ends as cancelled now."""
        self.cancel()
        _abandon(self._waiting)
        return self.pool.waitForDone(msecs)


#: the last workers started on Qt's global pool by ``_start_orphans``: their runner, which kept them alive until
#: their signals landed, is gone
_ORPHANS: list = []


def _start_orphans(waiting: list) -> None:
    """Start the threads of the workers in ``waiting`` on Qt's global pool (their runner is gone)."""
    while waiting:
        worker = waiting.pop()
        if worker.is_cancelled:
            worker._end("cancelled")
            continue
        worker.start_pass_over.set()
        _ORPHANS[:] = (_ORPHANS + [worker])[-4:]
        QtCore.QThreadPool.globalInstance().start(worker)


def _abandon(waiting: list) -> None:
    """End the workers in ``waiting`` (started ``later``, their threads never started) as cancelled."""
    while waiting:
        waiting.pop()._end("cancelled")
