"""Scrolling over a Role box never changes the attribute's role: unfocused, it wiped the class values in a real
window; focused from the click that set it, it turned another attribute into the class (walk 51). A focused
spin box still steps with the wheel."""

from __future__ import annotations

from PySide6 import QtCore, QtGui, QtWidgets

from dpstudio.gui.app import make_app
from dpstudio.gui.wheel_guard import WheelGuard


def _wheel(widget, steps=-1):
    pos = QtCore.QPointF(widget.rect().center())
    glob = QtCore.QPointF(widget.mapToGlobal(pos.toPoint()))
    event = QtGui.QWheelEvent(
        pos,
        glob,
        QtCore.QPoint(0, 0),
        QtCore.QPoint(0, 120 * steps),
        QtCore.Qt.NoButton,
        QtCore.Qt.NoModifier,
        QtCore.Qt.NoScrollPhase,
        False,
    )
    QtWidgets.QApplication.sendEvent(widget, event)


def test_a_combo_ignores_the_wheel_focused_or_not_and_a_focused_spin_box_takes_it(qtbot):
    app = make_app()
    assert any(isinstance(c, WheelGuard) for c in app.children())
    area = QtWidgets.QScrollArea()
    inner = QtWidgets.QWidget()
    lay = QtWidgets.QVBoxLayout(inner)
    combo = QtWidgets.QComboBox()
    combo.addItems(["quasi-identifier", "class", "ignore"])
    other = QtWidgets.QLineEdit()
    lay.addWidget(other)
    lay.addWidget(combo)
    inner.setMinimumHeight(2000)
    area.setWidget(inner)
    qtbot.addWidget(area)
    area.show()
    other.setFocus()
    _wheel(combo)
    assert combo.currentIndex() == 0
    combo.setFocus()
    qtbot.waitUntil(combo.hasFocus, timeout=2000)
    _wheel(combo)
    assert combo.currentIndex() == 0  # focused too: the page scrolls, the role stays
    spin = QtWidgets.QSpinBox()
    spin.setRange(0, 10)
    lay.addWidget(spin)
    _wheel(spin, steps=1)
    assert spin.value() == 0  # unfocused: no change
    spin.setFocus()
    qtbot.waitUntil(spin.hasFocus, timeout=2000)
    _wheel(spin, steps=1)
    assert spin.value() == 1
