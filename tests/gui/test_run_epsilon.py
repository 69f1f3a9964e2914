"""Run uses exactly the epsilon the box shows, is off while the box is invalid, asks before a release-mode
spend (default No), and a refused run leaves the studio where it was (issue 8, items 6 and 8)."""

from fractions import Fraction

import pytest
from PySide6 import QtCore, QtWidgets
from PySide6.QtTest import QTest

from dpstudio.model.project.project import RELEASE
from tests.gui.export_fixtures import table_project

Qt = QtCore.Qt


def type_epsilon(qtbot, panel, text):
    """Replace the box's text by key clicks, without Enter (the user's editing is not finished)."""
    edit = panel.eps_edit
    edit.setFocus()
    QTest.keyClick(edit, Qt.Key_A, Qt.ControlModifier)
    QTest.keyClick(edit, Qt.Key_Delete)
    QTest.keyClicks(edit, text)
    assert edit.text() == text


def click_run(qtbot, panel):
    """Press Run. While the checklist lists problems Run is off (its tooltip says why): the refusal is then
    what ``run()`` says when a script or the keyboard asks for a run anyway."""
    if panel.run_button.isEnabled():
        qtbot.mouseClick(panel.run_button, Qt.LeftButton)
        return
    assert "Run is off" in panel.run_button.toolTip() or "not valid" in panel.run_button.toolTip()
    panel.run()


class Answer:
    """The panel's dialog hook: answers the real release question with a key or a button."""

    def __init__(self, key=None, button=None, choice=None):
        self.key, self.button, self.choice, self.boxes = key, button, choice, []

    def __call__(self, box):
        self.boxes.append((box.text(), box.defaultButton() is box.button(QtWidgets.QMessageBox.No)))
        if self.choice is not None:  # a button of ask_choice, by the start of its text
            found = [b for b in box.buttons() if b.text().startswith(self.choice)]
            assert len(found) == 1, [b.text() for b in box.buttons()]
            QtCore.QTimer.singleShot(0, found[0].click)
        elif self.button is not None:
            QtCore.QTimer.singleShot(0, box.button(self.button).click)
        else:
            QtCore.QTimer.singleShot(0, lambda: QTest.keyClick(box, self.key))
        return QtWidgets.QDialog.exec(box)  # the real modal loop (tests/conftest.py refuses unexpected ones)


@pytest.fixture
def studio(window, tmp_path):
    data = tmp_path / "people.csv"
    data.write_text("stand-in for the file name\n")
    table_project(steps=2, project=window.project, path=data)
    window.project.set_dirty(False)
    panel = window.show_panel("Algorithm")
    return window, panel


def test_run_uses_the_typed_decimal_comma_without_enter(qtbot, studio):
    window, panel = studio
    type_epsilon(qtbot, panel, "0,1")
    click_run(qtbot, panel)
    qtbot.waitUntil(lambda: window.project.result is not None, timeout=60000)
    assert window.project.run_ledger.total == Fraction(1, 10)
    assert window.project.run_ledger.spent == Fraction(1, 10)
    assert window.project.epsilon == Fraction(1, 10)


def test_run_is_off_while_the_box_is_invalid_and_says_why(qtbot, studio):
    window, panel = studio
    for text, why in (
        ("0", "positive"),
        ("", "type an epsilon"),
        ("abc", "not a number"),
        ("1,000", "ambiguous"),
        ("0,1.5", "comma and a point"),
    ):
        type_epsilon(qtbot, panel, text)
        assert not panel.run_button.isEnabled(), text
        assert why in panel.eps_error.text(), (text, panel.eps_error.text())
        click_run(qtbot, panel)
        assert window.runner is None or not window.runner.busy
        assert window.project.result is None
    # a programmatic run() with an invalid box refuses too, and nothing ran at the old epsilon
    assert panel.run() is None and window.project.epsilon == 1 and window.project.run_ledger is None
    type_epsilon(qtbot, panel, "0,25")  # a decimal comma is read, and the value read is shown
    assert panel.run_button.isEnabled() and panel.eps_error.text() == ""
    assert panel.eps_understood.text() == "understood as epsilon = 0.25"


def test_release_run_asks_first_and_enter_means_no(qtbot, studio):
    window, panel = studio
    window.project.set_mode(RELEASE)
    answer = Answer(key=Qt.Key_Return)
    panel.exec_dialog = answer
    type_epsilon(qtbot, panel, "0.5")
    click_run(qtbot, panel)
    assert len(answer.boxes) == 1
    text, default_no = answer.boxes[0]
    assert default_no
    assert "people.csv" in text and "epsilon = 0.5" in text and "budget of 0.5" in text
    assert "Remaining on this dataset afterwards: 0" in text and "cannot be undone" in text
    qtbot.wait(50)
    p = window.project
    assert p.release_ledger is None or p.release_ledger.spent == 0
    assert p.result is None and window.tabs.currentWidget() is panel


def test_release_run_after_yes_spends_exactly_the_box(qtbot, studio):
    window, panel = studio
    window.project.set_mode(RELEASE)
    panel.exec_dialog = Answer(button=QtWidgets.QMessageBox.Yes)
    type_epsilon(qtbot, panel, "0,5")
    click_run(qtbot, panel)
    qtbot.waitUntil(lambda: window.project.result is not None, timeout=60000)
    led = window.project.release_ledger
    assert led.total == Fraction(1, 2) and led.spent == Fraction(1, 2)
    assert window.tabs.currentWidget() is window.panel("Watch")


def test_refused_release_run_stays_put(qtbot, studio):
    window, panel = studio
    p = window.project
    p.set_mode(RELEASE)
    answer = Answer(button=QtWidgets.QMessageBox.Yes)
    panel.exec_dialog = answer
    click_run(qtbot, panel)
    qtbot.waitUntil(lambda: p.result is not None, timeout=60000)
    watch = window.panel("Watch")
    qtbot.waitUntil(lambda: not watch.live, timeout=10000)
    shown = list(watch.replay.events)
    assert shown
    window.show_panel("Algorithm")
    click_run(qtbot, panel)  # the budget is spent: refused before anything is asked or started
    qtbot.wait(100)
    assert len(answer.boxes) == 1
    assert window.tabs.currentWidget() is panel
    assert "spent" in panel.last_error and "spent" in window.last_error
    assert watch.replay.events == shown and not watch.live
    assert "1e-12" not in watch.ledger.gauge.format()


def test_run_refused_by_its_inputs_stays_put(qtbot, studio):
    window, panel = studio
    p = window.project
    p.set_taxonomy("work", None)  # work now has no taxonomy: make_job refuses in the worker
    watch = window.panel("Watch")
    before = list(watch.replay.events)
    click_run(qtbot, panel)
    qtbot.waitUntil(lambda: "taxonomy" in window.last_error, timeout=10000)
    qtbot.wait(50)
    assert window.tabs.currentWidget() is panel
    assert watch.replay.events == before and not watch.live
    assert "1e-12" not in watch.ledger.gauge.format()
    assert "taxonomy" in panel.last_error


def test_a_run_that_starts_clears_the_message_of_an_earlier_refusal(qtbot, studio):
    window, panel = studio
    p = window.project
    tax = p.taxonomies["work"]
    p.set_taxonomy("work", None)
    click_run(qtbot, panel)
    qtbot.waitUntil(lambda: "taxonomy" in window.last_error, timeout=10000)
    assert window.message_bar.isVisible()
    p.set_taxonomy("work", tax)
    click_run(qtbot, panel)
    qtbot.waitUntil(lambda: p.result is not None, timeout=60000)
    assert not window.message_bar.isVisible() and panel.eps_error.text() == ""


def test_a_release_run_notifies_the_views_on_the_gui_thread_only(qtbot, studio):
    """Subscribers are widgets: a notification from the worker thread (where make_job and start_run run)
    would touch Qt objects off their thread."""
    import threading

    window, panel = studio
    window.project.set_mode(RELEASE)
    threads = []
    window.project.subscribe(lambda field: threads.append(threading.current_thread()))
    panel.exec_dialog = Answer(button=QtWidgets.QMessageBox.Yes)
    click_run(qtbot, panel)
    qtbot.waitUntil(lambda: window.project.result is not None, timeout=60000)
    assert threads and set(threads) == {threading.main_thread()}


def test_an_invalid_epsilon_greys_the_figures_of_the_last_valid_one(qtbot):
    """The walk: epsilon 0 turned Run off, but the table still showed epsilon 1's figures as if current."""
    from dpstudio.gui.panels.algorithm import AlgorithmPanel
    from dpstudio.model.project.project import Project

    panel = AlgorithmPanel(Project())
    qtbot.addWidget(panel)
    panel.eps_edit.setText("0")
    assert not panel.run_button.isEnabled() and not panel.figures.isEnabled()
    assert "the figures of epsilon 1" in panel.figures.toolTip()
    panel.eps_edit.setText("0.5")
    assert panel.figures.isEnabled() and panel.figures.toolTip() == ""
