"""Only the GUI thread collects (gui/gc_policy.py): a worker thread that makes cyclic garbage never runs the
collector, the GUI thread's timer collects that garbage, a run's pause stops it, and the generation it
collects is the one CPython's automatic collection would."""

from __future__ import annotations

import gc
import threading
import weakref

import pytest

from dpstudio.gui import gc_policy as policy_module
from dpstudio.gui.gc_policy import due_generation, gc_policy
from dpstudio.gui.worker import TaskRunner, Worker


class _Node:
    def __init__(self):
        self.me = self  # a reference cycle: only the cyclic collector frees it


@pytest.fixture(autouse=True)
def _no_earlier_pause(qtbot):
    """An earlier test's run may still hold the pause (the Watch catching up holds it up to 10 s): these tests
    start once it is released."""
    qtbot.waitUntil(lambda: not gc_policy().paused, timeout=15000)


@pytest.fixture
def collections():
    """The thread of every collection that starts while the test runs."""
    seen: list = []

    def callback(phase, _info):
        if phase == "start":
            seen.append(threading.get_ident())

    gc.callbacks.append(callback)
    yield seen
    gc.callbacks.remove(callback)


def test_a_worker_making_cyclic_garbage_never_collects_and_the_gui_thread_frees_it(qtbot, collections):
    runner = TaskRunner()
    assert not gc.isenabled()  # automatic collection is off once a runner exists
    refs: list = []

    def job(progress):
        for _ in range(50_000):  # far past generation 0's threshold (700 by default)
            node = _Node()
            if len(refs) < 50:
                refs.append(weakref.ref(node))
        return threading.get_ident()

    worker = Worker(job, function=True)
    with qtbot.waitSignal(worker.signals.finished, timeout=10000) as blocker:
        runner.start(worker)
    worker_thread = blocker.args[0]
    assert worker_thread != threading.get_ident()
    qtbot.waitUntil(lambda: all(r() is None for r in refs), timeout=5000)  # the GUI thread's timer freed them
    assert collections and worker_thread not in collections
    assert set(collections) == {threading.get_ident()}
    runner.shutdown()


def test_a_paused_policy_does_not_collect_and_collects_again_once_released(qtbot):
    """(What was made during the pause is frozen at its end, with the rest of the heap: see the module.)"""
    policy = gc_policy()
    owner = object()
    policy.hold(owner)
    try:
        assert policy.paused
        node = weakref.ref(_Node())
        for _ in range(2000):
            _Node()
        assert policy.collect_due() is None
        qtbot.wait(3 * policy_module.CHECK_MS)
        assert node() is not None  # the timer collected nothing while paused
    finally:
        policy.release(owner)
    assert not policy.paused
    later = weakref.ref(_Node())
    for _ in range(2000):
        _Node()
    qtbot.waitUntil(lambda: later() is None, timeout=5000)


@pytest.mark.parametrize(
    ("counts", "thresholds", "due"),
    [
        ((700, 0, 0), (700, 10, 10), None),  # CPython collects when the count exceeds the threshold
        ((701, 0, 0), (700, 10, 10), 0),
        ((701, 11, 0), (700, 10, 10), 1),
        ((701, 11, 11), (700, 10, 10), 2),
        ((701, 0, 11), (700, 10, 10), 2),  # the oldest generation past its threshold
        ((5, 11, 11), (700, 10, 10), None),  # nothing until generation 0 is due
        ((10_000, 50, 50), (0, 10, 10), None),  # a threshold of 0 turns collection off
    ],
)
def test_the_generation_due_is_cpythons(counts, thresholds, due):
    assert due_generation(counts, thresholds) == due


def test_a_full_collection_waits_until_full_collections_had_their_share(qtbot, monkeypatch):
    policy = gc_policy()
    clock = [1000.0]
    monkeypatch.setattr(policy_module.time, "monotonic", lambda: clock[0])
    monkeypatch.setattr(policy_module.gc, "get_count", lambda: (701, 11, 11))
    took = []

    def collect(generation):
        took.append(generation)
        if generation == 2:
            clock[0] += 0.05  # a full collection of 50 ms

    monkeypatch.setattr(policy_module.gc, "collect", collect)
    monkeypatch.setattr(policy, "_full_allowed_at", 0.0)
    assert policy.collect_due() == 2
    spacing = 0.05 * (1 / policy_module.FULL_SHARE - 1)  # 50 ms is FULL_SHARE of the time until the next
    clock[0] += spacing - 0.001
    assert policy.collect_due() == 1
    clock[0] += 0.002
    assert policy.collect_due() == 2
    assert took == [2, 1, 2]


def test_the_policy_is_made_only_on_the_gui_thread(qtbot, monkeypatch):
    monkeypatch.setattr(policy_module, "_GC_POLICY", [])
    errors: list = []

    def elsewhere():
        try:
            gc_policy()
        except RuntimeError as exc:
            errors.append(str(exc))

    thread = threading.Thread(target=elsewhere)
    thread.start()
    thread.join()
    assert errors and "GUI thread" in errors[0]


@pytest.mark.parametrize("maker", ["runner", "app"])
def test_a_runner_and_the_app_turn_automatic_collection_off_before_any_worker(qtbot, monkeypatch, maker):
    from dpstudio.gui.app import make_app
    from dpstudio.gui.gc_policy import existing_gc_policy

    monkeypatch.setattr(policy_module, "_GC_POLICY", [])
    gc.enable()
    try:
        TaskRunner() if maker == "runner" else make_app()
        assert not gc.isenabled() and existing_gc_policy() is not None
    finally:
        gc.disable()
