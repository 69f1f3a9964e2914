"""What a person would see cut or squashed in a window (issue 24's layout test): the checks, shared by the
test and by anyone looking at a panel.

- a visible single-line label (or a line of a multi-line one) whose text is wider than the label, unless it
  is an ``ElidedLabel`` (drawn with an ellipsis, all of it in its tooltip) or its tooltip holds the text;
- an ``ElidedLabel`` or a ``StatusLine`` that shows less than half of its text (issue 32: a sentence is read,
  not hovered), unless it only names something (``names_only``);
- a visible button, check box or radio button narrower than its text needs (its size hint), or a combo
  box whose chosen text does not fit (unless its tooltip holds it);
- a visible line edit, combo box, spin box or button shorter than its minimum size hint (squashed);
- a visible word-wrapped label shorter than its text needs at its width;
- an empty line edit whose placeholder is cut (unless its tooltip holds it);
- a pane of a splitter that is shown but collapsed to nothing;
- a table or tree cell (of the first ``MAX_ROWS`` rows) whose text does not fit its column (or, in a view
  that wraps words, its row), unless the cell's tooltip holds the text;
- a plot's axis title or plot title longer than the axis or the plot (pyqtgraph draws it cut);
- a text of a chart drawn with QPainter (a widget with ``cut_texts()``, the step chart) drawn cut.
"""

from __future__ import annotations

import re

from PySide6 import QtGui, QtWidgets

from dpstudio.gui.widgets.elided_label import ElidedLabel
from dpstudio.gui.widgets.status_line import StatusLine

SLACK = 2  # pixels: rounding
MAX_ROWS = 200  # rows of a table checked (the rest look alike)
CELL_MARGIN = 8  # the item delegate's text margins (a focus-frame margin and one pixel, each side)


def _plain(label: QtWidgets.QLabel) -> str:
    text = label.text()
    if label.textFormat() == QtGui.Qt.RichText or (
        label.textFormat() == QtGui.Qt.AutoText and QtGui.Qt.mightBeRichText(text)
    ):
        doc = QtGui.QTextDocument()
        doc.setHtml(text)
        return doc.toPlainText()
    return re.sub("&(?!&)", "", text) if label.buddy() is not None else text


def _visible(w: QtWidgets.QWidget, top: QtWidgets.QWidget) -> bool:
    if not w.isVisibleTo(top) or w.width() <= 0 or w.height() <= 0:
        return False
    # inside a scroll area the widget may be out of view: still a problem only if cut in its own box
    return True


def problems(top: QtWidgets.QWidget) -> list[str]:
    out = []
    for label in [*top.findChildren(ElidedLabel), *top.findChildren(StatusLine)]:
        # a sentence that advises, refuses or explains is read, not hovered: an elided label showing less than
        # half of its text is cut (one that only names something, ``names_only``, may be elided)
        if not _visible(label, top) or getattr(label, "names_only", False) or not label.text().strip():
            continue
        more = getattr(label, "read_all", None)  # a "Read all" button beside it shows the whole text
        if more is not None and more.isVisibleTo(top):
            continue
        need = label.fontMetrics().horizontalAdvance(label.text().replace("\n", " "))
        room = label.contentsRect().width()
        if need > 2 * room + SLACK:
            out.append(f"sentence cut: {label.text()[:60]!r} needs {need} px, shows {room} ({_where(label)})")
    for label in top.findChildren(QtWidgets.QLabel):
        if not _visible(label, top) or isinstance(label, ElidedLabel) or not label.pixmap().isNull():
            continue
        if label.wordWrap():
            need = label.heightForWidth(label.width())
            if need > label.height() + SLACK and _plain(label).strip():
                out.append(
                    f"wrapped label cut: {_plain(label)[:60]!r} needs {need} px high, has {label.height()} ({_where(label)})"
                )
            continue
        if label.metaObject().className() not in ("QLabel",):
            continue
        fm = label.fontMetrics()
        room = (
            label.contentsRect().width() - 2 * label.margin() - label.indent()
            if label.indent() > 0
            else (label.contentsRect().width() - 2 * label.margin())
        )
        for line in _plain(label).splitlines():
            need = fm.horizontalAdvance(line)
            if line and need > room + SLACK and line not in label.toolTip():
                out.append(f"label cut: {line[:60]!r} needs {need} px, has {room} ({_where(label)})")
    for b in top.findChildren(QtWidgets.QAbstractButton):
        if not _visible(b, top) or not b.text() or isinstance(b, QtWidgets.QToolButton):
            continue
        hint = b.sizeHint()
        if hint.width() > b.width() + SLACK:
            out.append(f"button cut: {b.text()[:60]!r} needs {hint.width()} px, has {b.width()} ({_where(b)})")
    for split in top.findChildren(QtWidgets.QSplitter):
        if not _visible(split, top):
            continue
        for i, size in enumerate(split.sizes()):
            pane = split.widget(i)
            if size == 0 and pane is not None and not pane.isHidden():
                name = pane.accessibleName() or pane.objectName() or type(pane).__name__
                out.append(f"collapsed pane: {name} ({_where(split)})")
    for edit in top.findChildren(QtWidgets.QLineEdit):
        hint = edit.placeholderText()
        if (
            not _visible(edit, top)
            or edit.text()
            or not hint
            or isinstance(edit.parentWidget(), QtWidgets.QAbstractSpinBox)
        ):
            continue
        need = edit.fontMetrics().horizontalAdvance(hint) + 8  # the frame's and the text's margins
        if need > edit.width() + SLACK and hint not in edit.toolTip():
            out.append(f"placeholder cut: {hint[:60]!r} needs {need} px, has {edit.width()} ({_where(edit)})")
    for box in top.findChildren(QtWidgets.QComboBox):
        if not _visible(box, top) or box.isEditable() or not box.currentText():
            continue
        opt = QtWidgets.QStyleOptionComboBox()
        box.initStyleOption(opt)
        room = box.style().subControlRect(QtWidgets.QStyle.CC_ComboBox, opt, QtWidgets.QStyle.SC_ComboBoxEditField, box)
        need = box.fontMetrics().horizontalAdvance(box.currentText())
        if need > room.width() + SLACK and box.currentText() not in box.toolTip():
            out.append(f"choice cut: {box.currentText()[:60]!r} needs {need} px, has {room.width()} ({_where(box)})")
    for c in top.findChildren(QtWidgets.QWidget):
        if not isinstance(
            c, (QtWidgets.QLineEdit, QtWidgets.QComboBox, QtWidgets.QAbstractSpinBox, QtWidgets.QPushButton)
        ):
            continue
        if not _visible(c, top) or isinstance(c.parentWidget(), (QtWidgets.QAbstractSpinBox, QtWidgets.QComboBox)):
            continue  # a spin box's or combo box's own line edit: the box is checked
        need = c.minimumSizeHint().height()
        if c.height() + SLACK < need:
            name = c.accessibleName() or getattr(c, "text", lambda: "")() or c.objectName() or type(c).__name__
            out.append(f"squashed: {name[:40]!r} is {c.height()} px high, needs {need} ({_where(c)})")
    out += _cells(top) + _plots(top)
    return out


def _cells(top: QtWidgets.QWidget) -> list[str]:
    out = []
    role = QtGui.Qt.ItemDataRole
    for view in top.findChildren(QtWidgets.QAbstractItemView):
        if not isinstance(view, (QtWidgets.QTableView, QtWidgets.QTreeView)) or not _visible(view, top):
            continue
        model = view.model()
        if model is None:
            continue
        fm = view.fontMetrics()
        wrap = view.wordWrap()
        for col in range(model.columnCount()):
            if (isinstance(view, QtWidgets.QTableView) and view.isColumnHidden(col)) or (
                isinstance(view, QtWidgets.QTreeView) and view.isColumnHidden(col)
            ):
                continue
            for row in range(min(model.rowCount(), MAX_ROWS)):
                index = model.index(row, col)
                text = model.data(index, role.DisplayRole)
                if text is None or model.data(index, role.DecorationRole) is not None:
                    continue
                text = str(text)
                rect = view.visualRect(index)
                if not text.strip() or rect.width() <= 0 or rect.height() <= 0:
                    continue
                room = rect.width() - CELL_MARGIN
                tip = model.data(index, role.ToolTipRole)
                if tip is not None and text in str(tip):
                    continue
                if wrap:
                    need = fm.boundingRect(0, 0, max(room, 1), 10**6, int(QtGui.Qt.TextWordWrap), text).height()
                    if need > rect.height() + SLACK and fm.horizontalAdvance(text) > room + SLACK:
                        out.append(
                            f"cell cut: {text[:60]!r} needs {need} px high, has {rect.height()} ({_where(view)})"
                        )
                elif max(fm.horizontalAdvance(line) for line in text.splitlines()) > room + SLACK:
                    out.append(
                        f"cell cut: {text[:60]!r} needs {fm.horizontalAdvance(text)} px, has {room} ({_where(view)})"
                    )
    return out


def _plots(top: QtWidgets.QWidget) -> list[str]:
    try:
        import pyqtgraph as pg
    except ImportError:  # pragma: no cover - pyqtgraph is a dependency
        return []
    out = [
        f"chart text cut: {text[:60]!r} ({_where(widget)})"
        for widget in top.findChildren(QtWidgets.QWidget)
        if hasattr(widget, "cut_texts") and _visible(widget, top)
        for text in widget.cut_texts()
    ]
    for widget in top.findChildren(pg.GraphicsView):
        if not _visible(widget, top):
            continue
        for item in widget.scene().items():
            if isinstance(item, pg.AxisItem) and item.isVisible() and item.label.isVisible() and item.labelText:
                need = item.label.boundingRect().width()
                geo = item.geometry()
                room = geo.height() if item.orientation in ("left", "right") else geo.width()
                if need > room + SLACK:
                    out.append(f"axis title cut: {item.labelText[:60]!r} needs {need:.0f} px, has {room:.0f}")
            if isinstance(item, pg.PlotItem) and item.titleLabel.isVisible() and item.titleLabel.text:
                need = item.titleLabel.item.boundingRect().width()
                room = item.geometry().width()
                if need > room + SLACK:
                    plain = re.sub("<[^>]+>", "", item.titleLabel.text)
                    out.append(f"plot title cut: {plain[:60]!r} needs {need:.0f} px, has {room:.0f}")
    return out


def _where(w: QtWidgets.QWidget) -> str:
    names = []
    p = w.parentWidget()
    while p is not None and len(names) < 3:
        n = p.objectName() or p.accessibleName()
        if n:
            names.append(n)
        p = p.parentWidget()
    return " < ".join(names) or type(w).__name__
