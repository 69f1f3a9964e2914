"""A one-line label that never widens its window: text too long for it is drawn with an ellipsis, and the
whole text is its tooltip. ``text()`` is always the whole text."""

from __future__ import annotations

from PySide6 import QtCore, QtGui, QtWidgets


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
        painter = QtGui.QPainter(self)
        rect = self.contentsRect()
        text = self.fontMetrics().elidedText(self.text().replace("\n", " "), QtCore.Qt.ElideRight, rect.width())
        self.style().drawItemText(
            painter,
            rect,
            int(self.alignment() | QtCore.Qt.AlignVCenter),
            self.palette(),
            self.isEnabled(),
            text,
            self.foregroundRole(),
        )


__all__ = ["ElidedLabel"]
