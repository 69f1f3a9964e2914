"""A one-line status that changes often (the Watch's "event 1,204 of 76,938 (live): ..." during a run): drawn
with an ellipsis when too long, the whole text in its tooltip, like ``ElidedLabel``; but a new text only
repaints this line.

Why not a QLabel: ``QLabel.setText`` asks the parent's layout to lay out again whatever the text, and on the
Watch that meant the whole panel (its splitters, views, side charts and every label's size hint) at every tick
of a run: 0.06 ms when its memory is warm, about 10 ms in the first pass after an idle second
(benchmarks/RESULTS.md, sessions 23 and 24). This line's size never depends on its text (one line of the font,
as wide as its layout gives it), so setting a text lays nothing out."""

from __future__ import annotations

from PySide6 import QtCore, QtWidgets

from dpstudio.gui.widgets.elided_label import paint_elided

#: the width it asks for when its layout has room (any text is cut to what it gets)
PREFERRED_WIDTH_PX = 400


class StatusLine(QtWidgets.QWidget):
    """One line of text, cut with an ellipsis to its width; ``text()`` is always the whole text (also its
    tooltip and accessible name)."""

    def __init__(self, text: str = "", parent=None) -> None:
        super().__init__(parent)
        self._text = ""
        self.setSizePolicy(QtWidgets.QSizePolicy.Ignored, QtWidgets.QSizePolicy.Fixed)
        self.setText(text)

    def text(self) -> str:
        return self._text

    def setText(self, text: str) -> None:  # noqa: N802 (Qt's name)
        text = str(text)
        if text == self._text:
            return
        self._text = text
        self.setToolTip(text)
        self.setAccessibleName(text)
        self.update()

    def is_elided(self) -> bool:
        """Whether the text is drawn cut, with an ellipsis (the tooltip then has all of it)."""
        return self.fontMetrics().horizontalAdvance(self._text.replace("\n", " ")) > self.contentsRect().width()

    def sizeHint(self) -> QtCore.QSize:  # noqa: N802
        margins = self.contentsMargins()
        return QtCore.QSize(PREFERRED_WIDTH_PX, self.fontMetrics().height() + margins.top() + margins.bottom())

    def minimumSizeHint(self) -> QtCore.QSize:  # noqa: N802
        return QtCore.QSize(self.fontMetrics().horizontalAdvance("\u2026") * 4, self.sizeHint().height())

    def paintEvent(self, _event) -> None:  # noqa: N802
        paint_elided(self, self._text)


__all__ = ["StatusLine"]
