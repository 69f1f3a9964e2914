"""A worker started ``later`` (a run's click): the runner is busy at once, the thread starts in a later pass of
the event loop, and a worker cancelled, shut down or orphaned before then ends without a stray or lost job."""

from __future__ import annotations

import threading

import pytest
from PySide6 import QtCore

from dpstudio.gui import pacing
from dpstudio.gui.gc_policy import gc_policy
from dpstudio.gui.worker import TaskRunner, Worker


@pytest.fixture(autouse=True)
def _no_pacing(monkeypatch):
    monkeypatch.setattr(pacing, "recently_busy", lambda: False)  # other tests' long work puts nothing off


def _job(calls: list):
    def job():
        calls.append(threading.current_thread().name)
        yield 1

    return job


def test_the_thread_starts_in_a_later_pass_and_the_runner_is_busy_meanwhile(qtbot):
    calls: list = []
    runner = TaskRunner()
    worker = Worker(_job(calls))
    runner.start(worker, later=True)
    assert runner.busy and calls == [] and runner.pool.activeThreadCount() == 0
    assert not worker.start_pass_over.is_set()
    with pytest.raises(RuntimeError, match="still running"):
        runner.start(Worker(lambda: iter([])))
    with qtbot.waitSignal(worker.signals.finished, timeout=5000) as blocker:
        pass
    assert blocker.args == [[1]] and len(calls) == 1
    qtbot.waitUntil(lambda: worker.start_pass_over.is_set(), timeout=2000)  # a pass after the thread started
    qtbot.waitUntil(lambda: not runner.busy, timeout=2000)
    runner.shutdown()


@pytest.mark.parametrize("how", ["cancel", "shutdown"])
def test_a_worker_cancelled_or_shut_down_before_its_thread_starts_never_calls_its_job(qtbot, how):
    calls: list = []
    job = _job(calls)
    runner = TaskRunner()
    worker = Worker(job, pause_gc=True)
    runner.start(worker, later=True)
    assert gc_policy().paused
    if how == "shutdown":  # the window closing: the worker ends now, before shutdown returns
        runner.shutdown()
        assert worker.outcome == "cancelled"
    else:
        with qtbot.waitSignal(worker.signals.cancelled, timeout=5000):
            runner.cancel()
    qtbot.wait(50)
    assert calls == [] and worker.outcome == "cancelled" and not runner.busy and not gc_policy().paused
    runner.shutdown()


def test_a_runner_deleted_before_the_thread_starts_leaves_the_run_going(qtbot):
    """Its panel closed just after Run: the run goes on as it would have a pass later (on Qt's global
    pool), and its end resumes the collector."""
    calls: list = []
    job = _job(calls)
    owner = QtCore.QObject()
    runner = TaskRunner(owner)
    worker = Worker(job, pause_gc=True)
    got: list = []
    worker.signals.finished.connect(got.append)
    runner.start(worker, later=True)
    owner.deleteLater()
    del runner, owner
    qtbot.waitUntil(lambda: got == [[1]], timeout=5000)
    assert len(calls) == 1 and worker.outcome == "finished"
    qtbot.waitUntil(lambda: not gc_policy().paused, timeout=2000)


def test_a_cancelled_runner_deleted_before_the_thread_starts_ends_its_worker_as_cancelled(qtbot):
    calls: list = []
    job = _job(calls)
    owner = QtCore.QObject()
    runner = TaskRunner(owner)
    worker = Worker(job, pause_gc=True)
    runner.start(worker, later=True)
    runner.cancel()
    owner.deleteLater()
    del runner, owner
    qtbot.waitUntil(lambda: worker.outcome == "cancelled", timeout=5000)
    qtbot.wait(50)
    assert calls == []
    qtbot.waitUntil(lambda: not gc_policy().paused, timeout=2000)


def test_runs_click_starts_no_thread_and_the_watch_line_comes_in_a_later_pass(qtbot, monkeypatch):
    """Run's own pass checks and decides; the worker's thread and the Watch's "starting" line come in passes
    of their own, the line first (so that a run refused at once still said it was starting)."""
    from dpstudio.gui.panels.algorithm import AlgorithmPanel
    from dpstudio.gui.panels.watch import STARTING_TEXT, WatchPanel
    from dpstudio.model.release.session import RunSession
    from tests.gui.export_fixtures import table_project

    project = table_project(steps=2)
    panel, watch = AlgorithmPanel(project), WatchPanel(project)
    qtbot.addWidget(panel)
    qtbot.addWidget(watch)
    order: list = []
    original = RunSession.of_project.__func__
    monkeypatch.setattr(
        RunSession, "of_project", classmethod(lambda cls, *a, **k: (order.append("job"), original(cls, *a, **k))[1])
    )
    expect = watch.expect_run
    monkeypatch.setattr(watch, "expect_run", lambda: (order.append("line"), expect())[1])
    before = watch.status.text()
    worker = panel.run(watch=watch)
    assert worker is not None and order == [] and watch.status.text() == before
    assert panel._runner.busy and panel._runner.pool.activeThreadCount() == 0
    qtbot.waitUntil(lambda: project.result is not None and not watch.follow, timeout=60000)
    assert order == ["line", "job"] and worker.outcome == "finished"
    assert STARTING_TEXT != watch.status.text()
