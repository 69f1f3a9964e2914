"""Run reuses the checklist's own check while the project is unchanged (issue 35): the check and the run's
snapshot are made when the project changes, Run's pass only compares the project's generation, its load and
the epsilon text. Any change made since (announced, or a field set through the project), and every release
run's budget, are checked again at Run."""

from __future__ import annotations

from fractions import Fraction

from PySide6 import QtCore, QtWidgets

from dpstudio.gui import pacing
from dpstudio.gui.panels import algorithm_run
from dpstudio.io.budget_store import open_store
from dpstudio.model.project.project import RELEASE
from dpstudio.model.release.snapshot import snapshot_of
from tests.gui.test_algorithm_panel import _project_panel_and_watch
from tests.gui.test_run_epsilon import Answer, click_run, type_epsilon

Qt = QtCore.Qt


def _counting(monkeypatch):
    """Count the checks and snapshots made from now on (the module's own names, as Run calls them)."""
    calls = {"readiness": 0, "snapshot": 0}
    real_readiness, real_snapshot = algorithm_run.readiness, algorithm_run.snapshot_of

    def readiness(*a, **k):
        calls["readiness"] += 1
        return real_readiness(*a, **k)

    def snapshot(*a, **k):
        calls["snapshot"] += 1
        return real_snapshot(*a, **k)

    monkeypatch.setattr(algorithm_run, "readiness", readiness)
    monkeypatch.setattr(algorithm_run, "snapshot_of", snapshot)
    return calls


def _kept_ready(qtbot, panel):
    """The checklist checked the project and took its snapshot in a later pass."""
    panel.refresh_readiness()
    qtbot.waitUntil(lambda: panel._checked["snapshot"] is not None, timeout=3000)
    assert panel._checked["problems"] == [] and panel.run_button.isEnabled()


def test_run_reuses_the_checklists_check_and_snapshot_when_nothing_changed(qtbot, monkeypatch):
    project, panel, watch = _project_panel_and_watch(qtbot)
    monkeypatch.setattr(pacing, "recently_busy", lambda: False)
    _kept_ready(qtbot, panel)
    calls = _counting(monkeypatch)
    w = panel.run(watch=watch)
    assert w is not None and calls == {"readiness": 0, "snapshot": 0}  # Run's pass read neither again
    qtbot.waitUntil(lambda: project.result is not None and not watch.follow, timeout=60000)
    assert w.outcome == "finished"
    assert project.record.snapshot == snapshot_of(project)  # what ran is what the project holds


def test_a_change_since_the_check_is_checked_again_at_run(qtbot, monkeypatch):
    """A field set through the project announces nothing (no checklist refresh): Run checks and snapshots
    anew, and the record describes the new setting."""
    project, panel, watch = _project_panel_and_watch(qtbot)
    monkeypatch.setattr(pacing, "recently_busy", lambda: False)
    _kept_ready(qtbot, panel)
    calls = _counting(monkeypatch)
    project.seed = 7  # no announcement
    assert panel._checked["key"] != algorithm_run.check_key(panel, panel.eps_edit.text())
    w = panel.run(watch=watch)
    assert w is not None and calls == {"readiness": 1, "snapshot": 1}
    qtbot.waitUntil(lambda: project.result is not None and not watch.follow, timeout=60000)
    assert project.record.snapshot.seed == 7


def test_an_announced_change_is_checked_at_once_and_run_refuses(qtbot, monkeypatch):
    project, panel, watch = _project_panel_and_watch(qtbot)
    monkeypatch.setattr(pacing, "recently_busy", lambda: False)
    _kept_ready(qtbot, panel)
    project.clear_bounds("age")  # announced: the checklist checks again at once, and keeps no snapshot
    assert [p.place for p in panel._checked["problems"]] == ["data.bounds"] and panel._checked["snapshot"] is None
    assert not panel.run_button.isEnabled()
    assert panel.run(watch=watch) is None and "age is numeric and needs public bounds" in panel.last_error


def test_the_epsilon_typed_since_the_check_is_checked_at_run(qtbot, monkeypatch):
    project, panel, watch = _project_panel_and_watch(qtbot)
    monkeypatch.setattr(pacing, "recently_busy", lambda: False)
    _kept_ready(qtbot, panel)
    panel.eps_edit.blockSignals(True)  # the box's text changed without the checklist hearing of it
    panel.eps_edit.setText("one half")
    panel.eps_edit.blockSignals(False)
    calls = _counting(monkeypatch)
    assert panel.run(watch=watch) is None
    assert calls["readiness"] == 1 and "epsilon is not valid" in panel.last_error


def test_a_release_run_asks_the_budget_store_at_run_whatever_was_kept(qtbot, monkeypatch, tmp_path):
    """The store is another program's too (the command line, another window): a lifetime total lowered there
    after the checklist's check refuses the release at Run, before the question, and nothing is spent."""
    project, panel, watch = _project_panel_and_watch(qtbot)
    monkeypatch.setattr(pacing, "recently_busy", lambda: False)
    project.budget_store = str(tmp_path / "budget.sqlite")
    project.set_mode(RELEASE)
    project.set_dataset_total(2)
    panel.eps_edit.setText("1")
    yes = Answer(button=QtWidgets.QMessageBox.Yes)
    panel.exec_dialog = yes
    click_run(qtbot, panel)  # a first release: 1 of the lifetime 2 is spent, 1 remains
    qtbot.waitUntil(
        lambda: project.result is not None and panel.worker.outcome == "finished" and not watch.follow, timeout=60000
    )
    name = project.dataset_budget().name
    _kept_ready(qtbot, panel)  # a second release of 1 is ready
    open_store(project.budget_store).set_total(name, 1)  # behind the studio's back: nothing remains
    asked = Answer(button=QtWidgets.QMessageBox.Yes)
    panel.exec_dialog = asked
    first = panel.worker
    click_run(qtbot, panel)
    assert asked.boxes == [] and panel.worker is first  # refused before the question
    assert [p.place for p in panel.checklist.problems] == ["algorithm.budget"]
    assert {d.name: d.spent for d in open_store(project.budget_store).datasets()} == {name: 1}
    # the budget line beside Run tells the same story as the refusal (it said 1 of 2 left before the click)
    qtbot.waitUntil(lambda: "0 of 1 epsilon left" in panel.budget_label.text(), timeout=2000)


def test_an_epsilon_typed_without_enter_is_the_runs_and_its_snapshots(qtbot, monkeypatch):
    """The box's text reaches the project only at Run (or Enter): the snapshot kept from the checklist's check
    holds the project's old epsilon, so Run takes it again after setting the typed one."""
    project, panel, watch = _project_panel_and_watch(qtbot)
    monkeypatch.setattr(pacing, "recently_busy", lambda: False)
    type_epsilon(qtbot, panel, "0.25")  # the checklist checks the text at each key
    qtbot.waitUntil(lambda: panel._checked["snapshot"] is not None, timeout=3000)
    assert project.epsilon != Fraction(1, 4) and panel._checked["snapshot"].epsilon == project.epsilon
    w = panel.run(watch=watch)
    assert w is not None
    qtbot.waitUntil(lambda: project.result is not None and not watch.follow, timeout=60000)
    assert project.record.snapshot.epsilon == Fraction(1, 4) == project.epsilon


def test_the_budget_line_follows_the_ledger_in_a_pass_of_its_own(qtbot, monkeypatch):
    """A run's end records the run and announces the ledger in one pass: the budget line (the store read, the
    checklist checked again) comes in a later pass, once for changes in a row (issue 35)."""
    project, panel, watch = _project_panel_and_watch(qtbot)
    refreshed = []
    monkeypatch.setattr(panel, "refresh_budget", lambda: refreshed.append(1))  # looked up when the timer fires
    for _ in range(3):
        project.notify("ledger")
    QtWidgets.QApplication.processEvents()  # the queued announcements arrive: nothing is drawn in this pass
    assert refreshed == [] and panel._budget_timer.isActive()
    qtbot.waitUntil(lambda: refreshed == [1], timeout=2000)
    qtbot.wait(50)
    assert refreshed == [1]
