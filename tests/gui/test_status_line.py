"""The Watch's status line changes at every tick of a run: a new text repaints the line and lays nothing out
again (a QLabel's ``setText`` asked the whole Watch to be laid out each time; benchmarks/RESULTS.md, session
24), and the line still reads as an elided label does: the whole text in ``text()`` and the tooltip, cut with
an ellipsis when it does not fit, checked by the layout check."""

from __future__ import annotations

from PySide6 import QtCore, QtWidgets

from dpstudio.gui.panels.watch import WatchPanel
from dpstudio.gui.widgets.status_line import StatusLine
from tests.gui.export_fixtures import table_project
from tests.gui.layout_check import problems

LONG = "event 1,204 of 76,938 (live): split chosen; 38,431 nodes - " + "coding the table and drawing the noise " * 6


class _Counter(QtCore.QObject):
    """Counts the layout requests and the status line's paints anywhere in the application."""

    def __init__(self, line) -> None:
        super().__init__()
        self.line = line
        self.layouts = 0
        self.paints = 0

    def eventFilter(self, obj, ev):  # noqa: N802
        if ev.type() == QtCore.QEvent.LayoutRequest:
            self.layouts += 1
        elif ev.type() == QtCore.QEvent.Paint and obj is self.line:
            self.paints += 1
        return False


def _settle(qtbot) -> None:
    for _ in range(5):
        QtWidgets.QApplication.processEvents()
        qtbot.wait(5)


def test_a_new_status_repaints_the_line_and_lays_nothing_out(qtbot):
    panel = WatchPanel(table_project(n=200, steps=2))
    qtbot.addWidget(panel)
    panel.resize(1100, 700)
    panel.show()
    qtbot.waitExposed(panel)
    _settle(qtbot)
    counter = _Counter(panel.status)
    app = QtWidgets.QApplication.instance()
    app.installEventFilter(counter)
    try:
        for text in ("event 1 of 9 (live): start; 1 nodes", LONG, "event 9 of 9: finished; 17 nodes; finished"):
            before = counter.paints
            panel.status.setText(text)
            _settle(qtbot)
            assert counter.paints > before, "the new text is drawn"
            assert counter.layouts == 0, "a new status text laid the panel out again"
    finally:
        app.removeEventFilter(counter)


def test_the_status_line_keeps_its_whole_text_and_cuts_what_does_not_fit(qtbot):
    line = StatusLine("ready")
    qtbot.addWidget(line)
    line.resize(300, line.sizeHint().height())
    line.show()
    qtbot.waitExposed(line)
    assert line.text() == line.toolTip() == line.accessibleName() == "ready"
    assert not line.is_elided()
    height = line.sizeHint().height()
    line.setText(LONG)
    assert line.text() == line.toolTip() == LONG
    assert line.is_elided()
    assert line.sizeHint().height() == height  # one line whatever the text
    line.setText("short again")
    assert not line.is_elided()


def test_the_layout_check_reads_the_status_line(qtbot):
    """A status line too narrow for half of its text is reported, as an elided label is."""
    top = QtWidgets.QWidget()
    qtbot.addWidget(top)
    line = StatusLine(LONG, top)
    line.setGeometry(0, 0, 120, line.sizeHint().height())
    top.resize(200, 40)
    top.show()
    qtbot.waitExposed(top)
    assert any("sentence cut" in p and "event 1,204" in p for p in problems(top))
    line.setGeometry(0, 0, 190, line.sizeHint().height())
    line.setText("event 3 of 9: start")
    assert problems(top) == []
