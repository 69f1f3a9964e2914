"""Run turned off while it has the keyboard focus (a release that spent the last of the budget, a problem
found after a click) gives the focus to what says what to fix, never to the next box in the tab order: that
was the dataset name box, where the next keys typed would have renamed the dataset (walk, session 22)."""

from __future__ import annotations

from PySide6 import QtWidgets

from tests.gui.export_fixtures import table_project


def _focused():
    return QtWidgets.QApplication.focusWidget()


def _run_focused(qtbot, window, panel) -> None:
    window.activateWindow()
    qtbot.waitActive(window)
    panel.run_button.setFocus()
    qtbot.waitUntil(lambda: panel.run_button.hasFocus(), timeout=3000)


def _ready_with_run_focused(qtbot, window, tmp_path):
    """A project ready to run in ``window``, its Algorithm panel shown with the keyboard focus on Run."""
    data = tmp_path / "people.csv"
    data.write_text("stand-in\n")
    p = table_project(steps=2, project=window.project, path=data)
    panel = window.show_panel("Algorithm")
    qtbot.waitUntil(lambda: panel.run_button.isEnabled(), timeout=3000)
    _run_focused(qtbot, window, panel)
    return p, panel


def test_a_problem_that_turns_run_off_gives_the_focus_to_its_fix(qtbot, window, tmp_path):
    p, panel = _ready_with_run_focused(qtbot, window, tmp_path)
    p.set_taxonomy("work", None)  # a problem: Run goes off
    qtbot.waitUntil(lambda: not panel.run_button.isEnabled(), timeout=3000)
    assert _focused() is not panel.dataset_name_edit
    assert _focused() is panel.checklist.buttons[0]
    assert "work has no taxonomy" in panel.checklist.problems[0].text


def test_an_epsilon_that_turns_run_off_leaves_the_focus_in_the_epsilon_box_or_the_checklist(qtbot, window, tmp_path):
    _, panel = _ready_with_run_focused(qtbot, window, tmp_path)
    panel.eps_edit.setText("1,000")  # ambiguous: no valid epsilon, Run goes off
    assert not panel.run_button.isEnabled()
    assert _focused() is panel.eps_edit or _focused() in panel.checklist.buttons


def test_run_is_off_while_a_run_goes_and_its_focus_waits_on_cancel(qtbot, window, tmp_path):
    """Run looked clickable during a run (walk, session 25); a second click was refused ("still running").
    Now it is off from the click to the run's end, the keyboard focus on the window's Cancel meanwhile, and
    back on Run after."""
    from PySide6 import QtCore
    from PySide6.QtTest import QTest

    p, panel = _ready_with_run_focused(qtbot, window, tmp_path)
    QTest.keyClick(panel.run_button, QtCore.Qt.Key_Space)  # a keyboard user's Run
    worker = panel.worker
    assert worker is not None and window.runner.busy
    assert not panel.run_button.isEnabled() and "while a job runs" in panel.run_button.toolTip()
    assert _focused() is window.cancel_button
    qtbot.waitUntil(lambda: p.result is not None and not window.runner.busy, timeout=60000)
    assert panel.run_button.isEnabled() and "Run the algorithm" in panel.run_button.toolTip()
    # the run showed the Watch: the focus goes to the panels' tabs, not to a box of the Watch
    assert window.tabs.currentWidget() is not panel and _focused() is window.tabs.tabBar()
    window.show_panel("Algorithm")
    _run_focused(qtbot, window, panel)
    QTest.keyClick(panel.run_button, QtCore.Qt.Key_Space)  # a second run, the Algorithm panel shown at its end
    assert _focused() is window.cancel_button
    qtbot.waitUntil(lambda: panel.worker.outcome is not None and not window.runner.busy, timeout=60000)
    window.show_panel("Algorithm")
    window.cancel_button.show()
    window.cancel_button.setFocus()
    window._on_busy(False)  # a job's end with the Algorithm panel on screen and the focus on Cancel
    assert _focused() is panel.run_button


def test_a_standalone_panel_turns_run_off_while_its_own_runner_works(qtbot):
    from dpstudio.gui.panels.algorithm import AlgorithmPanel
    from tests.gui.export_fixtures import table_project as project_of

    p = project_of(steps=2)
    panel = AlgorithmPanel(p)
    panel.show()
    qtbot.waitUntil(lambda: panel.run_button.isEnabled(), timeout=3000)
    worker = panel.run()
    assert worker is not None and not panel.run_button.isEnabled()
    qtbot.waitUntil(lambda: p.result is not None, timeout=60000)
    qtbot.waitUntil(lambda: panel.run_button.isEnabled(), timeout=5000)
    panel.detach()


def test_run_remembered_as_the_focus_behind_a_dialog_gives_it_to_cancel_not_the_dataset_name(qtbot, window, tmp_path):
    """The release question's dialog holds the activation when the run starts: Run has not the focus yet but
    is the window's focus to restore. Turned off then, Qt gave the focus back to the dataset name box (real
    window, session 26); it goes to Cancel."""
    import threading

    from dpstudio.gui.worker import Worker

    _, panel = _ready_with_run_focused(qtbot, window, tmp_path)
    dialog = QtWidgets.QDialog(window)
    dialog.show()
    dialog.activateWindow()
    qtbot.waitUntil(lambda: not panel.run_button.hasFocus(), timeout=3000)
    assert window.focusWidget() is panel.run_button
    release = threading.Event()
    worker = Worker(lambda: iter([release.wait(10)]))
    window.start_worker(worker, "a job")
    assert not panel.run_button.isEnabled()
    dialog.close()
    window.activateWindow()
    qtbot.waitUntil(lambda: _focused() is not None, timeout=3000)
    assert _focused() is not panel.dataset_name_edit
    assert _focused() is window.cancel_button
    with qtbot.waitSignal(worker.signals.finished, timeout=10000):
        release.set()
