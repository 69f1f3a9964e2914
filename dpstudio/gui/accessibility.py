"""Accessible names for the studio's controls (screen readers need them; tests find controls by them).

``name_control(widget)`` gives an interactive control without an accessible name the words a sighted
user reads for it: its own text (buttons, check boxes), the label of its row in a form, the label just
before it in its row, its placeholder, its tooltip, or (for tables and lists) its group box's title. A
control with none of these keeps no name, and ``unnamed_controls`` reports it (the test of issue 9 fails
on it). The main window runs ``name_controls`` over itself when it is built and whenever a panel is
shown, so controls built later (taxonomy editors, dialogs' children) are named before they are seen.
"""

from __future__ import annotations

from PySide6 import QtWidgets

INTERACTIVE = (
    QtWidgets.QAbstractButton,
    QtWidgets.QLineEdit,
    QtWidgets.QComboBox,
    QtWidgets.QAbstractSpinBox,
    QtWidgets.QAbstractSlider,
    QtWidgets.QAbstractItemView,
    QtWidgets.QTabBar,
    QtWidgets.QTextEdit,
    QtWidgets.QPlainTextEdit,
)


def is_interactive(widget: QtWidgets.QWidget) -> bool:
    """A control a user operates. Parts of another control are not: scroll bars, table headers and corner
    buttons, Qt's own "more" buttons (``qt_*``), the editor inside a spin box, a combo box's popup list."""
    if not isinstance(widget, INTERACTIVE) or isinstance(widget, (QtWidgets.QScrollBar, QtWidgets.QHeaderView)):
        return False
    if widget.objectName().startswith("qt_"):
        return False
    w = widget.parentWidget()
    while w is not None:
        if isinstance(w, (QtWidgets.QAbstractSpinBox, QtWidgets.QComboBox)):
            return False
        w = w.parentWidget()
    return True


def _clean(text: str) -> str:
    return " ".join(
        str(text or "").replace("&&", "\0").replace("&", "").replace("\0", "&").replace("\u2026", "").split()
    ).strip(" :")


def _contains(layout_item, widget) -> bool:
    if layout_item is None:
        return False
    if layout_item.widget() is widget:
        return True
    lay = layout_item.layout()
    return lay is not None and any(_contains(lay.itemAt(i), widget) for i in range(lay.count()))


def _layouts(layout):
    yield layout
    for i in range(layout.count()):
        child = layout.itemAt(i).layout()
        if child is not None:
            yield from _layouts(child)


def _label_text(item) -> str:
    w = item.widget() if item is not None else None
    return _clean(w.text()) if isinstance(w, QtWidgets.QLabel) else ""


def _form_label(widget) -> str:
    parent = widget.parentWidget()
    if parent is None or parent.layout() is None:
        return ""
    for lay in _layouts(parent.layout()):
        if isinstance(lay, QtWidgets.QFormLayout):
            for row in range(lay.rowCount()):
                if _contains(lay.itemAt(row, QtWidgets.QFormLayout.FieldRole), widget):
                    text = _label_text(lay.itemAt(row, QtWidgets.QFormLayout.LabelRole))
                    if text:
                        return text
        elif isinstance(lay, QtWidgets.QBoxLayout):
            for i in range(1, lay.count()):
                if lay.itemAt(i).widget() is widget:
                    text = _label_text(lay.itemAt(i - 1))
                    if text:
                        return text
    return ""


def _group_title(widget) -> str:
    w = widget.parentWidget()
    while w is not None:
        if isinstance(w, QtWidgets.QGroupBox) and w.title():
            return _clean(w.title())
        w = w.parentWidget()
    return ""


def accessible_name_for(widget: QtWidgets.QWidget) -> str:
    """The words a sighted user reads for ``widget`` ("" when there are none)."""
    if isinstance(widget, QtWidgets.QAbstractButton) and _clean(widget.text()):
        return _clean(widget.text())
    if isinstance(widget, QtWidgets.QTabBar):
        return "Panels"
    candidates = [_form_label(widget)]
    if isinstance(widget, QtWidgets.QLineEdit):
        candidates.append(_clean(widget.placeholderText()))
    candidates.append(_clean(widget.toolTip()))
    if isinstance(widget, QtWidgets.QAbstractItemView):
        candidates.append(_group_title(widget))
    return next((c for c in candidates if c), "")


def name_control(widget: QtWidgets.QWidget) -> None:
    if is_interactive(widget) and not widget.accessibleName():
        name = accessible_name_for(widget)
        if name:
            widget.setAccessibleName(name)


def unnamed_controls(root: QtWidgets.QWidget) -> list[QtWidgets.QWidget]:
    """Interactive controls under ``root`` (itself included) without an accessible name."""
    return [w for w in [root, *root.findChildren(QtWidgets.QWidget)] if is_interactive(w) and not w.accessibleName()]


def name_controls(root: QtWidgets.QWidget) -> None:
    """``name_control`` for ``root`` and every widget under it."""
    for w in [root, *root.findChildren(QtWidgets.QWidget)]:
        name_control(w)
