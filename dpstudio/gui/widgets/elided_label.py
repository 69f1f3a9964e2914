"""A one-line label that never widens its window: text too long for it is drawn with an ellipsis, and the
whole text is its tooltip. ``text()`` is always the whole text."""

from __future__ import annotations

from PySide6 import QtCore, QtGui, QtWidgets


def paint_elided(widget: QtWidgets.QWidget, text: str, alignment=QtCore.Qt.AlignLeft) -> None:
    """Paint ``text`` on one line in ``widget``'s contents, cut with an ellipsis to its width (the paint event
    of ``ElidedLabel`` and of ``StatusLine``)."""
    painter = QtGui.QPainter(widget)
    rect = widget.contentsRect()
    shown = widget.fontMetrics().elidedText(text.replace("\n", " "), QtCore.Qt.ElideRight, rect.width())
    widget.style().drawItemText(
        painter,
        rect,
        int(alignment | QtCore.Qt.AlignVCenter),
        widget.palette(),
        widget.isEnabled(),
        shown,
        widget.foregroundRole(),
    )


class ElidedLabel(QtWidgets.QLabel):
    def __init__(self, text: str = "", parent=None):
        super().__init__(text, parent)
        self.setWordWrap(False)
        self.setSizePolicy(QtWidgets.QSizePolicy.Ignored, QtWidgets.QSizePolicy.Fixed)
        self.setToolTip(text)

    def setText(self, text: str) -> None:  # noqa: N802 (Qt's name)
        super().setText(text)
        self.setToolTip(text)

    def is_elided(self) -> bool:
        """Whether the text is drawn cut, with an ellipsis (the tooltip then has all of it)."""
        return self.fontMetrics().horizontalAdvance(self.text()) > self.contentsRect().width()

    def minimumSizeHint(self) -> QtCore.QSize:  # noqa: N802
        return QtCore.QSize(self.fontMetrics().horizontalAdvance("\u2026") * 4, super().minimumSizeHint().height())

    def sizeHint(self) -> QtCore.QSize:  # noqa: N802
        return QtCore.QSize(min(super().sizeHint().width(), 400), super().sizeHint().height())

    def paintEvent(self, _event) -> None:  # noqa: N802
        paint_elided(self, self.text(), self.alignment())


class ErrorLine(ElidedLabel):
    """A panel's own error line: one line, red, cut with an ellipsis when long (the tooltip and the window's
    status line hold all of it). Its line is kept while hidden (``keep_room``), so showing or hiding an error
    moves nothing below it: put it where a line is free (beside Run, beside a heading)."""

    def __init__(
        self, text: str = "", parent=None, colour: str = "#b00020", bold: bool = False, keep_room: bool = True
    ):
        """``keep_room`` False: hidden, it takes no room (for a line above a whole page, where a kept empty
        line would be a blank band; showing it then moves the page down by one line)."""
        super().__init__(text, parent)
        self.setStyleSheet(f"color:{colour};" + (" font-weight:bold;" if bold else ""))
        policy = self.sizePolicy()
        policy.setRetainSizeWhenHidden(keep_room)
        self.setSizePolicy(policy)


__all__ = ["ElidedLabel", "ErrorLine", "paint_elided"]
