"""The mouse wheel scrolls the page, not the control under the pointer: a combo box or spin box that does not
have the keyboard focus passes the wheel to the scroll area around it. Without this, scrolling the Data
panel over an attribute's Role box silently made it "ignore" and wiped the class values (seen in a real
window). A control the user has clicked or tabbed into takes the wheel as usual.
"""

from __future__ import annotations

from PySide6 import QtCore, QtWidgets

GUARDED = (QtWidgets.QComboBox, QtWidgets.QAbstractSpinBox)


class WheelGuard(QtCore.QObject):
    """An application-wide event filter (``install(app)``)."""

    def eventFilter(self, obj, event) -> bool:  # noqa: N802 (Qt's name)
        if event.type() != QtCore.QEvent.Wheel or not isinstance(obj, GUARDED) or obj.hasFocus():
            return False
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
