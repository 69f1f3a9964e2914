"""The mouse wheel scrolls the page, not the control under the pointer: a combo box never takes the wheel, and
a spin box takes it only while it has the keyboard focus; otherwise the wheel goes to the scroll area around
it. Without this, scrolling the Data panel over an attribute's Role box silently made it "ignore" and wiped
the class values (seen in a real window), and a Role box still focused from the click that set it turned
another attribute into the class (walk 51). A combo box's choices stay a click (or the arrow keys) away.
"""

from __future__ import annotations

from PySide6 import QtCore, QtWidgets

GUARDED = (QtWidgets.QComboBox, QtWidgets.QAbstractSpinBox)


class WheelGuard(QtCore.QObject):
    """An application-wide event filter (``install(app)``)."""

    def eventFilter(self, obj, event) -> bool:  # noqa: N802 (Qt's name)
        if event.type() != QtCore.QEvent.Wheel or not isinstance(obj, GUARDED):
            return False
        if obj.hasFocus() and not isinstance(obj, QtWidgets.QComboBox):
            return False  # a focused spin box steps with the wheel, as the user expects
        area = obj.parentWidget()
        while area is not None and not isinstance(area, QtWidgets.QAbstractScrollArea):
            area = area.parentWidget()
        if area is not None:
            QtWidgets.QApplication.sendEvent(area.viewport(), event)
        return True  # the unfocused control never changes its value on a wheel


def install(app) -> WheelGuard:
    """Install the guard on ``app`` once (kept on the app so it lives as long as it)."""
    guard = getattr(app, "_dpstudio_wheel_guard", None)
    if guard is None:
        guard = WheelGuard(app)
        app.installEventFilter(guard)
        app._dpstudio_wheel_guard = guard
    return guard


__all__ = ["WheelGuard", "install"]
