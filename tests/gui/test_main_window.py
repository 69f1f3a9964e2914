"""The main window: panels, mode switch and banner, errors in the window, unsaved changes, layout memory."""

from __future__ import annotations

import sys
import types

import pytest
from PySide6 import QtCore, QtWidgets

from dpstudio.gui import main_window as mw
from dpstudio.gui.main_window import MainWindow, UnavailablePanel
from dpstudio.gui.worker import Worker
from dpstudio.model.project.project import RELEASE, TEACHING
from tests.gui.conftest import shot


def test_all_tabs_present(window):
    titles = [window.tabs.tabText(i) for i in range(window.tabs.count())]
    assert titles == ["Data", "Taxonomy", "Algorithm", "Watch", "Compare", "Export", "Anonymize", "Stream"]
    assert type(window.panels["Data"]).__name__ == "DataPanel"
    assert type(window.panels["Taxonomy"]).__name__ == "TaxonomyPanel"


def test_missing_or_broken_panel_module_shows_placeholder(qtbot, monkeypatch):
    broken = types.ModuleType("dpstudio.gui.panels.broken_for_test")

    class Boom:
        def __init__(self, project, parent=None):
            raise RuntimeError("cannot draw")

    broken.BoomPanel = Boom
    monkeypatch.setitem(sys.modules, "dpstudio.gui.panels.broken_for_test", broken)
    monkeypatch.setattr(
        mw,
        "PANELS",
        {"Data": ("data", "DataPanel"), "Later": ("no_such_module", "X"), "Broken": ("broken_for_test", "BoomPanel")},
    )
    win = MainWindow()
    qtbot.addWidget(win)
    assert isinstance(win.panels["Later"], UnavailablePanel)
    assert "not written yet" in win.panels["Later"].text()
    assert isinstance(win.panels["Broken"], UnavailablePanel)
    assert "cannot draw" in win.panels["Broken"].text()
    assert type(win.panels["Data"]).__name__ == "DataPanel"


def test_mode_switch_banner_and_toolbar(window):
    assert window.project.mode == TEACHING
    assert "TEACHING: NOT A RELEASE" in window.banner.text()
    assert window.act_teaching.isChecked() and not window.act_release.isChecked()
    shot(window, "main_window_teaching")
    window.act_release.trigger()
    assert window.project.mode == RELEASE
    assert "RELEASE MODE" in window.banner.text() and "#2e7d32" in window.banner.styleSheet()
    assert window.act_release.isChecked()
    shot(window, "main_window_release")
    assert not window.seed_box.isEnabled()  # the seed is for simulation noise only
    window.act_toggle_mode.trigger()  # Ctrl+M
    assert window.project.mode == TEACHING and "#ffb74d" in window.banner.styleSheet()
    window.seed_box.setValue(7)
    assert window.project.seed == 7 and "seed 7" in window.banner.text()
    from dpstudio.core.noise import SimulationNoise

    a, b = window.project.start_run().noise, SimulationNoise(7)
    assert a.randbelow(10**9) == b.randbelow(10**9)
    # the project itself switching (e.g. a reopened project) updates the banner too
    window.project.set_mode(RELEASE)
    assert "RELEASE MODE" in window.banner.text()


def test_shortcuts_exist_and_switch_tabs(window):
    assert window.act_open_data.shortcut().matches(QtGui_seq("Ctrl+O"))
    assert window.act_save.shortcut().toString() == "Ctrl+S"
    assert window.act_toggle_mode.shortcut().toString() == "Ctrl+M"
    window.tab_actions[1].trigger()
    assert window.tabs.currentIndex() == 1
    assert window.tab_actions[1].shortcut().toString() == "Ctrl+2"


def QtGui_seq(text):
    from PySide6 import QtGui

    return QtGui.QKeySequence(text)


def test_worker_error_appears_in_window_and_cancel(qtbot, window):
    def failing():
        yield 1
        raise ValueError("age: 3 rows outside the public bounds")

    worker = Worker(failing)
    with qtbot.waitSignal(worker.signals.failed, timeout=5000):
        window.start_worker(worker, "test job")
    qtbot.waitUntil(lambda: window.message_bar.isVisible())
    assert window.message_label.text() == "age: 3 rows outside the public bounds"
    assert window.last_error == "age: 3 rows outside the public bounds"

    def endless():
        while True:
            yield 0

    worker = Worker(endless)
    window.start_worker(worker, "endless")
    assert window.cancel_button.isVisible() and window.progress.isVisible()
    with qtbot.waitSignal(worker.signals.cancelled, timeout=5000):
        window.cancel_button.click()
    qtbot.waitUntil(lambda: not window.cancel_button.isVisible())
    assert "cancelled" in window.message_label.text()


def test_a_job_that_fails_before_start_worker_returns_still_shows_its_message(qtbot, window, monkeypatch):
    """The worst interleaving, made deterministic: the job runs to its failure inside ``pool.start``, i.e.
    before ``start_worker`` could connect anything after starting it (seen under load as a lost message)."""
    monkeypatch.setattr(window.runner.pool, "start", lambda worker: worker.run())

    def failing():
        raise ValueError("education: 2 values not covered by the taxonomy")
        yield

    window.start_worker(Worker(failing), "instant failure")
    qtbot.waitUntil(lambda: window.message_bar.isVisible())
    assert window.last_error == "education: 2 values not covered by the taxonomy"


def test_open_data_from_window_and_bad_file(qtbot, window, small_csv, tmp_path):
    data = window.panels["Data"]
    with qtbot.waitSignal(data.loaded, timeout=10000):
        window.open_data(small_csv)
    assert window.project.columns[0] == "age"
    assert window.isWindowModified()
    assert "small.csv" in window.windowTitle()
    bad = tmp_path / "bad.csv"
    bad.write_bytes(b"a,b\n1\n2,3,4\n")
    with qtbot.waitSignal(data.load_failed, timeout=10000):
        window.open_data(bad)
    assert "bad.csv, line 2: 1 field where line 1 has 2" in window.last_error
    assert window.message_bar.isVisible()


class _Answer:
    def __init__(self, answer):
        self.answer = answer
        self.asked = 0

    def __call__(self, *args, **kwargs):
        self.asked += 1
        return self.answer


def test_close_with_unsaved_changes_asks(qtbot, window, monkeypatch, small_csv, tmp_path):
    with qtbot.waitSignal(window.panels["Data"].loaded, timeout=10000):
        window.open_data(small_csv)
    assert window.project.dirty
    cancel = _Answer(QtWidgets.QMessageBox.Cancel)
    monkeypatch.setattr(QtWidgets.QMessageBox, "question", cancel)
    assert window.close() is False
    assert cancel.asked == 1 and window.isVisible()

    target = tmp_path / "saved.dpstudio"
    save = _Answer(QtWidgets.QMessageBox.Save)
    monkeypatch.setattr(QtWidgets.QMessageBox, "question", save)
    monkeypatch.setattr(QtWidgets.QFileDialog, "getSaveFileName", lambda *a, **k: (str(target), ""))
    assert window.close() is True
    assert save.asked == 1 and target.is_file() and not window.project.dirty


def test_close_discard_and_clean_close_does_not_ask(qtbot, monkeypatch, small_csv):
    win = MainWindow()
    qtbot.addWidget(win)
    win.show()
    asked = _Answer(QtWidgets.QMessageBox.Discard)
    monkeypatch.setattr(QtWidgets.QMessageBox, "question", asked)
    assert win.close() is True and asked.asked == 0  # nothing changed: no question
    win2 = MainWindow()
    qtbot.addWidget(win2)
    win2.show()
    win2.project.set_mode(RELEASE)
    assert win2.close() is True and asked.asked == 1


def test_layout_is_remembered(qtbot, monkeypatch):
    win = MainWindow()
    qtbot.addWidget(win)
    win.show()
    win.resize(900, 640)
    expected = (win.size().width(), win.size().height())
    assert expected != (1280, 820)  # not the default size
    win.tabs.setCurrentIndex(2)
    saved = win.saveGeometry()
    assert win.close()
    again = MainWindow()
    qtbot.addWidget(again)
    assert again.tabs.currentIndex() == 2
    assert again.settings.value("window/geometry") == saved
    # restoreGeometry clamps the width to the offscreen screen (800 px); the height comes back as saved
    assert again.size().height() == expected[1]


def test_drop_on_window_opens_data(qtbot, window, small_csv):
    from PySide6 import QtGui

    mime = QtCore.QMimeData()
    mime.setUrls([QtCore.QUrl.fromLocalFile(str(small_csv))])
    event = QtGui.QDropEvent(
        QtCore.QPointF(5, 5), QtCore.Qt.CopyAction, mime, QtCore.Qt.LeftButton, QtCore.Qt.NoModifier
    )
    with qtbot.waitSignal(window.panels["Data"].loaded, timeout=10000):
        window.dropEvent(event)
    assert window.project.data_path == small_csv


@pytest.mark.parametrize("busy", [True])
def test_mode_cannot_switch_while_running(qtbot, window, busy):
    import threading

    gate = threading.Event()
    worker = Worker(lambda progress: gate.wait(5), function=True)
    window.start_worker(worker, "waiting")
    window.act_release.trigger()
    assert window.project.mode == TEACHING and "cancel it" in window.last_error
    assert window.act_teaching.isChecked()
    with qtbot.waitSignal(worker.signals.finished, timeout=5000):
        gate.set()


def test_new_project_asks_then_resets(qtbot, window, small_csv, monkeypatch):
    with qtbot.waitSignal(window.panels["Data"].loaded, timeout=10000):
        window.open_data(small_csv)
    cancel = _Answer(QtWidgets.QMessageBox.Cancel)
    monkeypatch.setattr(QtWidgets.QMessageBox, "question", cancel)
    assert window.new_project() is False and window.project.frame is not None
    discard = _Answer(QtWidgets.QMessageBox.Discard)
    monkeypatch.setattr(QtWidgets.QMessageBox, "question", discard)
    assert window.act_new.shortcut().toString() == "Ctrl+N"
    assert window.new_project() is True
    assert window.project.frame is None and window.project.columns == [] and not window.project.dirty
    data = window.panels["Data"]
    assert data.stack.currentWidget() is data.start_page
    assert window.panels["Taxonomy"].attr_list.count() == 0


def test_splitter_positions_are_remembered(qtbot):
    win = MainWindow()
    qtbot.addWidget(win)
    win.show()
    split = win.panels["Data"].splitter
    split.setSizes([200, 600])
    sizes = split.sizes()
    assert win.close()
    again = MainWindow()
    qtbot.addWidget(again)
    assert again.panels["Data"].splitter.sizes() == sizes


def test_exception_escaping_a_slot_goes_to_the_error_bar(window, monkeypatch, capsys):
    from dpstudio.gui.app import install_excepthook

    monkeypatch.setattr(sys, "excepthook", sys.excepthook)  # restored after the test
    seen = []
    hook = install_excepthook(window, seen.append)
    try:
        raise ZeroDivisionError("division by zero")
    except ZeroDivisionError as exc:
        hook(type(exc), exc, exc.__traceback__)
    assert (
        window.last_error == "internal error, please report it: unexpected error (ZeroDivisionError): division by zero"
    )
    assert "Traceback" not in window.message_label.text()
    assert seen == [window.last_error]
    assert "ZeroDivisionError" in capsys.readouterr().err  # the traceback is kept for a bug report


def test_closing_warns_about_an_unexported_release(window, monkeypatch):
    texts = []

    def question(parent, title, text, *args):
        texts.append(text)
        return QtWidgets.QMessageBox.Cancel

    monkeypatch.setattr(QtWidgets.QMessageBox, "question", question)
    import pandas as pd

    from dpstudio.core.taxonomy_generators import flat_categorical
    from dpstudio.model.release.session import make_job

    p = window.project
    p.set_data(
        pd.DataFrame({"edu": ["a", "b", "a", "b"], "cls": ["y", "n", "n", "y"]}),
        None,
        types={"edu": "categorical", "cls": "categorical"},
    )
    p.set_taxonomy("edu", flat_categorical(["a", "b"]))
    p.set_classes(["n", "y"])
    p.set_algorithm("diffgen", {"steps": 1})
    p.set_mode(RELEASE)
    from dpstudio.model.release.snapshot import snapshot_of

    job, setup = make_job(p, answer=p.release_question())
    p.record_run(list(job()), setup.ledger, teaching=False, snapshot=snapshot_of(p))
    assert p.can_export and p.release_ledger.spent == 1
    assert window.close() is False
    assert "has not been exported" in texts[-1]
    window.release_exported = True  # what the Export panel's `exported` signal sets
    window.close()
    assert "has not been exported" not in texts[-1]


def test_closing_during_a_job_asks_stops_it_and_does_not_wait_for_it(qtbot, monkeypatch):
    """Issue 32 item 5: closing during a (teaching) run asked only about unsaved changes, and the process lived
    on for 27 s with the job. Now the question names the job, and a job that does not stop within the wait is
    left to end with the process (``job_left_running``: gui.app.run_app then exits without waiting)."""
    import threading
    import time

    from dpstudio.gui import main_window as mw
    from dpstudio.gui.main_window import MainWindow
    from dpstudio.gui.worker import Worker

    monkeypatch.setattr(mw, "CLOSE_WAIT_MS", 200)
    win = MainWindow()
    win.show()
    release = threading.Event()

    started = threading.Event()

    def stubborn(progress):  # one long step that never looks at Cancel
        started.set()
        release.wait(10)
        return None

    win.runner.start(Worker(stubborn, function=True, name="a teaching run of hb"))
    qtbot.waitUntil(started.is_set, timeout=10000)
    asked = []

    def question(parent, title, text, *a, **k):
        asked.append((title, text))
        return QtWidgets.QMessageBox.No if len(asked) == 1 else QtWidgets.QMessageBox.Yes

    monkeypatch.setattr(QtWidgets.QMessageBox, "question", question)
    win.project.dirty = False
    win.close()
    assert win.isVisible() and asked[0][0] == "A job is going on"  # No: the window stays, the job goes on
    assert "A teaching run of hb is going on" in asked[0][1] and "spends no budget" in asked[0][1]
    start = time.monotonic()
    win.close()
    assert not win.isVisible(), asked
    assert win.job_left_running and time.monotonic() - start < 5, (asked, win.runner.busy)
    release.set()
    win.deleteLater()


def test_the_budget_shown_follows_a_spend_made_outside_the_window(qtbot, tmp_path, monkeypatch):
    """Issue 32 item 6: after a re-run script spent from the same store, the Algorithm panel still showed the
    old figures. The window reads the store again when it becomes active."""
    from PySide6 import QtCore

    from dpstudio.cli import main
    from dpstudio.gui.main_window import MainWindow
    from tests.gui.export_fixtures import table_project

    store = tmp_path / "store.sqlite"
    monkeypatch.setenv("DPSTUDIO_BUDGET_STORE", str(store))
    win = MainWindow()
    qtbot.addWidget(win)
    data = tmp_path / "people.csv"
    p = table_project(n=300, project=win.project, path=data)
    p.frame.to_csv(data, index=False)
    algorithm = win.panels["Algorithm"]
    algorithm.refresh_budget()
    before = algorithm.budget_label.text()
    tax = tmp_path / "work.csv"
    tax.write_text("A;*\nB;*\nC;*\n")
    argv = ["release", "--data", str(data), "--class", "income", "--classes", "<=50K,>50K", "--taxonomy"]
    argv += [f"work={tax}", "--algorithm", "diffgen", "--steps", "1", "--epsilon", "1/2", "--dataset-budget", "3"]
    argv += ["--out", str(tmp_path / "o.csv"), "--dataset-name", "people"]
    assert main(argv) == 0
    monkeypatch.setattr(win, "isActiveWindow", lambda: True)  # offscreen: no window manager activates it
    QtWidgets.QApplication.sendEvent(win, QtCore.QEvent(QtCore.QEvent.ActivationChange))
    after = algorithm.budget_label.text()
    assert "no release yet" in before and "2.5 of 3 epsilon left" in after, (before, after)
    win.project.dirty = False
