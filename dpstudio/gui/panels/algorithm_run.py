"""The Algorithm panel's run and its budget (the studio's side of the run session, ``model.release.session``):
the checklist and the epsilon read at Run, the release question (default No), the worker that prepares,
spends and runs off the GUI thread, the Watch following the events, the record at the end; and the dataset's
lifetime budget in the budget store, shown and set deliberately. Nothing here talks to the store, the noise
or the ledger itself."""

from __future__ import annotations

from PySide6 import QtCore

from dpstudio.algorithms import registry
from dpstudio.gui.pacing import PACING_DELAY_MS, note_busy, put_off
from dpstudio.gui.panels import host
from dpstudio.model.project.epsilon_text import parse_epsilon_text
from dpstudio.model.release import run_process
from dpstudio.model.release.readiness import budget_problems, readiness, refusal_text
from dpstudio.model.release.session import RunSession
from dpstudio.model.release.snapshot import RunSnapshot, snapshot_of

NOT_READY = "Not ready"
#: the worker waits at most this long for the click's pass of the event loop to end before it forks
FORK_WAIT_S = 0.5
#: the standby engine process is forked this long after the data changed (a load, a column converted), when
#: no run goes and no other long work just ended
STANDBY_DELAY_MS = 300


def call_later(panel, name: str, delay_ms: int, action, restart: bool = True) -> None:
    """Call ``action()`` ``delay_ms`` from now on the panel's single-shot timer ``name`` (made, with ``action``,
    on first use). Called again before it fired, it waits again; with ``restart`` False it keeps its first time,
    so that changes in a row do not put it off (a refresh in a pass of its own after them)."""
    timer = getattr(panel, name, None)
    if timer is None:
        timer = QtCore.QTimer(panel)
        timer.setSingleShot(True)
        timer.timeout.connect(action)
        setattr(panel, name, timer)
    elif not restart and timer.isActive():
        return
    timer.start(delay_ms)


def keep_standby_later(panel) -> None:
    """Fork the loaded table's standby engine process (``model.release.engine_standby``) in a later pass of the
    event loop: a large run's engine process is then forked from it, and the fork's hold of the interpreter lock
    (10-15 ms on a million rows) is not in every run's start. Called again before it fired, it waits again."""
    call_later(panel, "_standby_timer", STANDBY_DELAY_MS, lambda: _keep_standby(panel))


def _keep_standby(panel) -> None:
    worker = getattr(panel, "worker", None)
    if (worker is not None and worker.outcome is None) or put_off(panel, "standby"):  # not while a run is shown
        keep_standby_later(panel)
        return
    if run_process.keep_standby(panel.project):
        note_busy()
        QtCore.QTimer.singleShot(PACING_DELAY_MS, panel, lambda: _after_fork(panel))


def _after_fork(panel) -> None:
    """Check the project again in a pass of its own after the standby's fork. The fork shares this process's
    pages with the standby until one of them writes a page, and reading a Python object writes its reference
    count: the first check after the fork copies the pages it touches (about 8 ms on a million rows, 1.6 ms
    once they are copied). Done here, Run's own pass finds them copied."""
    if put_off(panel, "after fork", lambda: _after_fork(panel)):
        return
    try:
        panel.refresh_readiness()
    except RuntimeError:  # the panel was deleted meanwhile
        return
    note_busy()


def check_key(panel, epsilon_text: str) -> tuple:
    """What a check of the project before Run was made on: the project's generation (every change to it,
    ``Notifier.generation``), its load of data and the epsilon box's text."""
    project = panel.project
    return (project.generation, project.load_token, epsilon_text)


def check_now(panel) -> list:
    """The checklist's problems now, as Run would find them. What depends on the project and the epsilon
    text alone is kept with its ``check_key`` for Run (``checked_at_run``), and when it finds nothing the run's
    snapshot is taken in a later pass of the event loop; the budget store's answer is never kept."""
    text = panel.eps_edit.text()
    checked = readiness(panel.project, text, budget=False)
    panel._checked = {"key": check_key(panel, text), "problems": checked, "snapshot": None}
    if not checked:
        _snapshot_later(panel)
    return checked + budget_problems(panel.project, text)


def _snapshot_later(panel) -> None:
    """``_snapshot_pass`` in ``PACING_DELAY_MS`` (one timer of the panel: checks in a row take one snapshot)."""
    call_later(panel, "_snapshot_timer", PACING_DELAY_MS, lambda: _snapshot_pass(panel))


def _snapshot_pass(panel) -> None:
    """Take the run's snapshot for the kept check, if it still holds (its own pass of the event loop)."""
    if put_off(panel, "snapshot"):
        _snapshot_later(panel)
        return
    kept = getattr(panel, "_checked", None)
    try:
        text = panel.eps_edit.text()
    except RuntimeError:  # the panel was deleted meanwhile
        return
    if kept is not None and kept["snapshot"] is None and not kept["problems"] and kept["key"] == check_key(panel, text):
        kept["snapshot"] = snapshot_of(panel.project)
        note_busy()


def checked_at_run(panel) -> tuple[list, RunSnapshot | None]:
    """(problems, snapshot or None) at Run. The checklist's kept check serves when the project, its data and
    the epsilon text are the same as when it was made (the same ``check_key``): Run's pass then reads neither
    the table's counts nor the taxonomies again (after a second of idling their memory is cold, and the
    check took 12 ms of a 31 ms click on this machine; benchmarks/RESULTS.md, session 22). The budget store
    is always asked again. The snapshot is the kept one, or None (Run takes it)."""
    text = panel.eps_edit.text()
    kept = getattr(panel, "_checked", None)
    if kept is not None and kept["key"] == check_key(panel, text):
        checked, snapshot = kept["problems"], kept["snapshot"]
    else:
        checked, snapshot = readiness(panel.project, text, budget=False), None
    return checked + budget_problems(panel.project, text), snapshot


def not_ready_line(n: int) -> str:
    """The line beside Run when it refuses for ``n`` readiness problems (the checklist lists them)."""
    return f"{NOT_READY}: {n} problem{'s' if n != 1 else ''} to fix first"


def run(panel, watch=None):
    """Start the chosen algorithm in a worker; returns the Worker (or None, with the reason shown).

    The epsilon is what the box shows when Run is pressed (read now, whether or not editing was
    finished); a box that does not hold a valid epsilon refuses the run. In release mode the user is
    asked first (``confirm_release``, default No); nothing is spent unless they answer Yes.

    The whole job runs off the GUI thread, including coding the table (``model.release.session.make_job``; a
    1M-row table takes seconds to code) and the session's ``begin`` (which hands out the noise and the
    ledger); for large tables the coding and the engine run in a separate process
    (``model.run_process``), so that their long numpy calls cannot freeze the window. Input problems arrive as the worker's ``failed`` message, before any budget is spent; the
    studio then stays where it is. Events go to ``watch`` (default: the window's Watch panel), which
    is cleared and shown only when the first event arrives; at the end (or on cancel) the run is
    recorded in the project.
    """
    from dpstudio.gui.worker import TaskRunner, Worker

    win = host(panel)
    project = panel.project
    problems, snapshot = checked_at_run(panel)
    checked_at = project.generation
    panel.checklist.set_problems(problems)
    if problems:  # every problem at once, the same list the checklist shows
        panel._refuse(panel.eps_error, refusal_text(problems), not_ready_line(len(problems)))
        if any(x.place == "algorithm.budget" for x in problems):  # the store changed outside: the line says so too
            panel._budget_later()
        return None
    try:
        eps = parse_epsilon_text(panel.eps_edit.text())
    except ValueError as exc:
        panel._refuse_run(f"not run: {exc}")
        return None
    if eps != project.epsilon:
        try:
            project.set_epsilon(eps)
        except ValueError as exc:
            panel._refuse_run(f"not run: {exc}")
            return None
    if snapshot is None or project.generation != checked_at:  # the epsilon was set just now
        snapshot = snapshot_of(project)  # what this run uses: the export describes it, whatever changes later
    answer = None
    if not project.teaching:
        answer = project.release_question(eps)
        if answer.refusal:
            panel._refuse_run(f"not run: {answer.refusal}")
            return None
        if not panel.confirm_release(answer):
            panel.last_error = ""
            if win is not None:
                win.show_info("release run not started: nothing was spent")
            return None
    teaching = project.teaching
    holder: dict = {}

    def job():
        # a large table's engine in its own process: its numpy calls then never hold our GIL; a table read
        # through DuckDB is never forked (its connection stays here) and reads the used columns' counts only
        if project.frame is not None and run_process.use_process(len(project.frame)):
            # forking holds this process's GIL (about 10 ms for a million rows): not in the pass of the event
            # loop that started the thread, where the two made one freeze of the window
            worker.start_pass_over.wait(FORK_WAIT_S)
            session = RunSession.in_child(project, snapshot)
        else:
            session = RunSession.of_project(project, reading, snapshot)  # Cancel in a read: nothing spent
        holder["session"] = session
        holder["setup"] = session.begin(answer)
        return session.events()

    def reading(done: int, total: int, what: str) -> bool:
        """Progress of the pass over a file read through DuckDB; False (Cancel pressed) stops it."""
        if worker.is_cancelled:
            return False
        worker.signals.progress.emit(int(done), int(total), str(what))
        return True

    # pause_gc: the worker pauses the cyclic collector during the run (policy in gui/worker.py)
    worker = Worker(job, name=registry.ALGORITHMS[panel.algorithm], pause_gc=True)
    events: list = []
    if watch is None and win is not None and hasattr(win, "panels"):
        watch = win.panels.get("Watch")
    live = {"started": False}

    def on_events(batch):
        if not live["started"]:  # the inputs passed make_job's checks: now follow the run
            live["started"] = True
            try:  # an earlier refusal's message no longer holds
                panel.eps_error.setText("")
                if win is not None and hasattr(win, "clear_message"):
                    win.clear_message()
            except RuntimeError:  # the panel was deleted while its run goes on
                pass
            if watch is not None and hasattr(watch, "begin_live"):
                watch.begin_live(teaching, float(eps))
            if win is not None and hasattr(win, "show_panel") and watch is not None:
                win.show_panel("Watch")
        events.extend(batch)
        if watch is not None and hasattr(watch, "feed"):
            watch.feed(batch)

    def on_end(*_):
        if not live["started"] and watch is not None and hasattr(watch, "expect_no_run"):
            watch.expect_no_run()  # cancelled before its first events
        setup = holder.get("setup")
        if setup is not None:  # the Watch stops following here
            holder["session"].finish(events)
            if setup.recognised and win is not None:  # the data owner's eyes only
                win.show_info(f"charged to the known dataset {setup.budget.get('dataset')!r}: {setup.recognised}")
        if watch is not None and getattr(watch, "live", False):
            watch.end_live()

    def on_failed(message):
        project.release_in_progress = ""
        panel.last_error = message
        if holder.get("setup") is not None:  # the store was charged before the failure: show it
            project.notify("ledger")
        if live["started"] and watch is not None and hasattr(watch, "end_live"):
            watch.end_live()
        elif watch is not None and hasattr(watch, "expect_no_run"):
            watch.expect_no_run()
        panel.eps_error.setText(message)

    worker.signals.events.connect(on_events)
    worker.signals.finished.connect(on_end)
    worker.signals.cancelled.connect(on_end)
    worker.signals.failed.connect(on_failed)
    panel.worker = worker
    if watch is not None and hasattr(watch, "expect_run"):
        # before the thread starts (its timer first): the last run stays shown until this one's first events,
        # and the status line says a new one is on its way
        _expect_later(watch, worker, live)
    # the click's pass only checks and decides: the Watch's status line and the worker's thread come in
    # passes of their own (after an idle second each pass costs several times its warm time here)
    if win is not None:
        started = win.start_worker(worker, f"running {registry.ALGORITHMS[panel.algorithm]}", later=True)
    else:
        if panel._runner is None:
            panel._runner = TaskRunner(panel)
            panel._runner.busy_changed.connect(panel.set_job_running)
        try:
            started = panel._runner.start(worker, later=True)
        except RuntimeError as exc:
            on_failed(str(exc))
            return None
    live["going"] = started is not None
    return started


def _expect_later(watch, worker, live: dict) -> None:
    """``watch.expect_run()`` in a later pass of the event loop (``PACING_DELAY_MS``, paced), unless the run
    did not start (``live["going"]``), has ended or shown its first events by then, or the Watch is gone."""

    def expect() -> None:
        if not live.get("going") or worker.outcome is not None or live["started"]:
            return
        try:
            if put_off(watch, "expect run", expect):
                return
            watch.expect_run()
        except RuntimeError:  # the Watch was deleted meanwhile
            return
        note_busy()

    QtCore.QTimer.singleShot(PACING_DELAY_MS, expect)


def apply_dataset_budget(panel, name: str | None = None, total=None) -> bool:
    """Name the loaded dataset and/or set its lifetime total (text or number; empty: unchanged), after
    a question that says budgets add up (default No). False, with the reason shown, if not done."""
    from dpstudio.model.project.project import ProjectError

    p = panel.project
    name = str(name or "").strip() or None
    try:
        info = p.dataset_budget()
        total = parse_epsilon_text(total) if isinstance(total, str) and total.strip() else (total or None)
        if name == info.name:
            name = None
        if name is None and total is None:
            raise ProjectError("type a new dataset name or a lifetime total first")
    except ValueError as exc:
        panel._refuse_budget(str(exc))
        return False
    if not panel._ask_yes_no(
        "budget_box", "Change this dataset's budget?", panel.dataset_budget_question(info, name, total)
    ):
        return False
    try:
        if name is not None:
            p.set_dataset_name(name)
        if total is not None:
            p.set_dataset_total(total)
    except ValueError as exc:
        panel._refuse_budget(str(exc))
        return False
    panel.dataset_total_edit.clear()
    panel.refresh_budget()
    panel.eps_error.setText("")  # a refusal for want of budget no longer holds
    win = host(panel)
    if win is not None and hasattr(win, "clear_message"):
        win.clear_message()
    return True


def refresh_budget(panel) -> None:
    """Show what the budget store holds for the loaded data (and any warning)."""
    from dpstudio.model.project.project import ProjectError

    p = panel.project
    panel.refresh_readiness()
    if not p.has_data:
        panel.budget_label.setText("this dataset: no data loaded")
        panel.budget_warnings.setText("")
        panel.dataset_apply.setEnabled(False)
        return
    try:
        info = p.dataset_budget()
    except ProjectError as exc:
        panel.budget_label.setText(f"this dataset: the budget store cannot be read: {exc}")
        panel.budget_label.setStyleSheet("color:#b00020;")
        panel.dataset_apply.setEnabled(False)
        return
    panel.budget_label.setText(info.describe())
    panel.budget_label.setStyleSheet("font-weight:bold;" + ("color:#b35900;" if not info.tracked else ""))
    declared_new = p.account.new_dataset
    panel.new_dataset_check.setVisible(bool(info.related) or declared_new)
    panel.new_dataset_check.blockSignals(True)
    panel.new_dataset_check.setChecked(declared_new)
    panel.new_dataset_check.blockSignals(False)
    panel.budget_warnings.setText("\n".join(f"WARNING: {w}" for w in info.warnings))
    panel.dataset_apply.setEnabled(True)
    panel.dataset_total_edit.setEnabled(info.tracked)
    if not panel.dataset_name_edit.hasFocus():
        panel.dataset_name_edit.setText(info.name or "")
