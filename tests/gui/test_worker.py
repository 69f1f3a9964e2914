"""The worker: events arrive batched and complete, Cancel stops generators and functions, errors are messages."""

from __future__ import annotations

import threading
import time

import pytest

from dpstudio.core.events import Progress
from dpstudio.gui.worker import TaskRunner, Worker, user_message


def test_iterator_items_all_arrive_in_order(qtbot):
    runner = TaskRunner()
    worker = Worker(lambda: iter(range(5000)))
    got = []
    worker.signals.events.connect(got.extend)
    with qtbot.waitSignal(worker.signals.finished, timeout=10000) as blocker:
        runner.start(worker)
    assert blocker.args[0] == list(range(5000))
    qtbot.waitUntil(lambda: len(got) == 5000)
    assert got == list(range(5000))
    assert not runner.busy
    runner.shutdown()


def test_progress_events_drive_progress_signal(qtbot):
    runner = TaskRunner()
    worker = Worker(lambda: iter([Progress(1, 3, "one"), Progress(3, 3, "done")]))
    seen = []
    worker.signals.progress.connect(lambda d, t, m: seen.append((d, t, m)))
    with qtbot.waitSignal(worker.signals.finished, timeout=5000):
        runner.start(worker)
    qtbot.waitUntil(lambda: len(seen) == 2)
    assert seen == [(1, 3, "one"), (3, 3, "done")]
    runner.shutdown()


def test_cancel_stops_an_endless_generator(qtbot):
    produced = []
    closed = threading.Event()

    def endless():
        try:
            i = 0
            while True:
                produced.append(i)
                yield i
                i += 1
                time.sleep(0.001)
        finally:
            closed.set()

    runner = TaskRunner()
    worker = Worker(endless)
    with qtbot.waitSignal(worker.signals.events, timeout=5000):
        runner.start(worker)
    with qtbot.waitSignal(worker.signals.cancelled, timeout=5000):
        runner.cancel()
    assert closed.wait(2), "the generator was not closed"
    n = len(produced)
    time.sleep(0.05)
    assert len(produced) == n  # nothing runs after the cancel
    assert worker.outcome == "cancelled" and not runner.busy
    runner.shutdown()


def test_cancel_stops_a_function_at_its_next_progress_call(qtbot):
    calls = []

    def slow(progress):
        for i in range(10_000):
            progress(i, 10_000, "")
            calls.append(i)
            time.sleep(0.001)
        return "finished"

    runner = TaskRunner()
    worker = Worker(slow, function=True)
    finished = []
    worker.signals.finished.connect(finished.append)
    runner.start(worker)
    qtbot.waitUntil(lambda: len(calls) > 5, timeout=5000)
    with qtbot.waitSignal(worker.signals.cancelled, timeout=5000):
        runner.cancel()
    assert finished == [] and len(calls) < 10_000
    runner.shutdown()


def test_exception_becomes_one_line_message(qtbot):
    def boom():
        yield 1
        raise ValueError("the bounds of age are not ordered\nsecond line")

    runner = TaskRunner()
    worker = Worker(boom)
    with qtbot.waitSignal(worker.signals.failed, timeout=5000) as blocker:
        runner.start(worker)
    assert blocker.args == ["the bounds of age are not ordered"]
    assert not runner.busy
    runner.shutdown()


def test_one_job_at_a_time(qtbot):
    gate = threading.Event()

    def wait_gate(progress):
        gate.wait(5)
        return 1

    runner = TaskRunner()
    first = Worker(wait_gate, function=True)
    runner.start(first)
    with pytest.raises(RuntimeError, match="still running"):
        runner.start(Worker(lambda: iter([])))
    with qtbot.waitSignal(first.signals.finished, timeout=5000):
        gate.set()
    runner.shutdown()


@pytest.mark.parametrize(
    "exc,expected",
    [
        (FileNotFoundError(2, "No such file", "/x/data.csv"), "/x/data.csv: no such file"),
        (UnicodeDecodeError("utf-8", b"\xff", 0, 1, "invalid"), "not UTF-8 text (byte 0xff at position 0)"),
        (KeyError("age"), "age"),
        (TypeError(), "unexpected error (TypeError)"),
    ],
)
def test_user_message(exc, expected):
    assert expected in user_message(exc)
    assert "Traceback" not in user_message(exc)


def test_batches_travel_as_python_objects(qtbot):
    """events is Signal(object): no QVariantList conversion of each batch (about 100 ms per 60k items)."""
    from dpstudio.gui.worker import WorkerSignals

    mo = WorkerSignals.staticMetaObject
    sigs = {bytes(mo.method(i).methodSignature()).decode() for i in range(mo.methodCount())}
    assert "events(PyObject)" in sigs and "events(QVariantList)" not in sigs
    marker = object()
    w = Worker(lambda: iter([marker, 1]))
    got = []
    w.signals.events.connect(got.append)
    with qtbot.waitSignal(w.signals.finished, timeout=5000):
        TaskRunner().start(w)
    qtbot.waitUntil(lambda: sum(len(b) for b in got) == 2, timeout=5000)
    assert type(got[0]) is list and got[0][0] is marker


@pytest.mark.parametrize("end", ["finished", "failed", "cancelled"])
def test_pause_gc_worker_pauses_the_collector_until_its_end_is_delivered(qtbot, end):
    from dpstudio.gui.gc_policy import gc_policy

    seen = []
    release = threading.Event()

    def job():
        seen.append(gc_policy().paused)
        release.wait(5)
        if end == "failed":
            raise ValueError("boom")
        yield 1
        if end == "cancelled":
            while True:
                yield 2

    runner = TaskRunner()
    assert not gc_policy().paused
    w = Worker(job, pause_gc=True)
    plain = Worker(lambda: iter([1]))
    signal = getattr(w.signals, end)
    runner.start(w)
    assert gc_policy().paused
    if end == "cancelled":
        qtbot.waitUntil(lambda: bool(seen), timeout=5000)  # cancelled while the job runs
        w.cancel()
    with qtbot.waitSignal(signal, timeout=5000):
        release.set()
    qtbot.waitUntil(lambda: not gc_policy().paused, timeout=5000)
    assert seen == [True]
    # a worker without pause_gc leaves the collector alone
    with qtbot.waitSignal(plain.signals.finished, timeout=5000):
        runner.start(plain)
    assert not gc_policy().paused


def test_a_started_worker_shortens_the_interpreter_locks_switch_interval_and_never_lengthens_it(qtbot):
    import sys

    from dpstudio.gui.worker import SWITCH_INTERVAL_S

    before = sys.getswitchinterval()
    try:
        sys.setswitchinterval(0.005)  # Python's default
        runner = TaskRunner()
        worker = Worker(lambda: iter(range(3)))
        with qtbot.waitSignal(worker.signals.finished, timeout=10000):
            runner.start(worker)
        assert sys.getswitchinterval() == pytest.approx(SWITCH_INTERVAL_S)
        sys.setswitchinterval(SWITCH_INTERVAL_S / 2)
        worker = Worker(lambda: iter(range(3)))
        with qtbot.waitSignal(worker.signals.finished, timeout=10000):
            runner.start(worker)
        assert sys.getswitchinterval() == pytest.approx(SWITCH_INTERVAL_S / 2)
        runner.shutdown()
    finally:
        sys.setswitchinterval(before)
