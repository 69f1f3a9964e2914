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


def test_a_problem_that_turns_run_off_gives_the_focus_to_its_fix(qtbot, window, tmp_path):
    data = tmp_path / "people.csv"
    data.write_text("stand-in\n")
    p = table_project(steps=2, project=window.project, path=data)
    panel = window.show_panel("Algorithm")
    qtbot.waitUntil(lambda: panel.run_button.isEnabled(), timeout=3000)
    _run_focused(qtbot, window, panel)
    p.set_taxonomy("work", None)  # a problem: Run goes off
    qtbot.waitUntil(lambda: not panel.run_button.isEnabled(), timeout=3000)
    assert _focused() is not panel.dataset_name_edit
    assert _focused() is panel.checklist.buttons[0]
    assert "work has no taxonomy" in panel.checklist.problems[0].text


def test_an_epsilon_that_turns_run_off_leaves_the_focus_in_the_epsilon_box_or_the_checklist(qtbot, window, tmp_path):
    data = tmp_path / "people.csv"
    data.write_text("stand-in\n")
    table_project(steps=2, project=window.project, path=data)
    panel = window.show_panel("Algorithm")
    qtbot.waitUntil(lambda: panel.run_button.isEnabled(), timeout=3000)
    _run_focused(qtbot, window, panel)
    panel.eps_edit.setText("1,000")  # ambiguous: no valid epsilon, Run goes off
    assert not panel.run_button.isEnabled()
    assert _focused() is panel.eps_edit or _focused() in panel.checklist.buttons
