"""A numeric split point on a number line (teaching mode only).

DiffGen splits an interval of a numeric attribute at a point of its public lattice, chosen by the
exponential mechanism among the lattice points inside. Points between the same two data values give the
same split of the records and the same score, so they form one candidate group; a group's chance is its
number of points times exp(eps * score / (2 * sensitivity)), normalised. The line shows the interval being
split, every group as a bar as wide as the points it holds and as tall as the chance of each of its points
(so its area is the group's probability), the chosen group in orange and the chosen point as a red mark.

Privacy: the groups' ends are data values and the probabilities depend on the data, so the engine sends
them only in teaching mode (``CandidatesScored.ranges``); a release stream carries none and the line stays
hidden.
"""

from __future__ import annotations

import math
import re

from PySide6 import QtCore, QtGui, QtWidgets

BAR = QtGui.QColor("#4a7fc1")
CHOSEN = QtGui.QColor("#f0a020")
MARK = QtGui.QColor("#d02020")


def chosen_point(winner) -> float | None:
    """The split point a ``WinnerChosen`` of a numeric split names ("... split at 40"), or None."""
    found = re.search(r"split at (\S+)$", getattr(winner, "label", "") or "")
    try:
        return float(found.group(1)) if found else None
    except ValueError:
        return None


class SplitLine(QtWidgets.QWidget):
    """The number line of the current split-point selection (hidden for any other step)."""

    def __init__(self, parent=None):
        super().__init__(parent)
        self.setAccessibleName("Split point on a number line")
        self.setMinimumHeight(170)
        self.interval: tuple = ()
        self.ranges: tuple = ()
        self.probabilities: tuple = ()
        self.winner: int | None = None
        self.point: float | None = None
        self.caption = ""
        self.setVisible(False)

    def set_step(self, scored, winner=None) -> bool:
        """Show ``scored`` if it is a teaching split-point selection; returns whether the line is shown."""
        ranges = tuple(getattr(scored, "ranges", ()) or ()) if scored is not None else ()
        if not ranges or len(getattr(scored, "interval", ())) != 2:
            self.interval, self.ranges, self.probabilities, self.winner, self.point = (), (), (), None, None
            self.caption = ""
            self.setVisible(False)
            return False
        self.interval = tuple(float(v) for v in scored.interval)
        self.ranges = ranges
        self.probabilities = tuple(float(p) for p in scored.probabilities)
        paired = winner is not None and winner.selection == scored.selection and 0 <= winner.index < len(ranges)
        self.winner = int(winner.index) if paired else None
        self.point = chosen_point(winner) if paired else None
        lo, hi = self.interval
        points = sum(int(r[2]) for r in ranges)
        groups = sum(1 for r in ranges if int(r[2]) > 0)  # a run between two data values may hold no point
        self.caption = (
            f"split point of [{lo:g}, {hi:g}): {points:,} lattice points in {groups} groups "
            "(points between the same two data values split the records alike); a bar's area is "
            "its group's probability, its height the chance of each of its points"
        )
        if self.point is not None:
            self.caption += f"; chosen: {self.point:g}"
        self.setToolTip(self.caption)
        self.setVisible(True)
        self.update()
        return True

    def bars(self) -> list[tuple[float, float, float]]:
        """(first point, last point, probability) of every group with points, in order."""
        return [
            (float(a), float(b), float(p))
            for (a, b, n), p in zip(self.ranges, self.probabilities)
            if n > 0 and math.isfinite(a) and math.isfinite(b)
        ]

    def paintEvent(self, _ev) -> None:
        if not self.ranges:
            return
        qp = QtGui.QPainter(self)
        qp.setRenderHint(QtGui.QPainter.Antialiasing)
        metrics = qp.fontMetrics()
        line_h = metrics.lineSpacing()
        w, h = self.width(), self.height()
        left, right = 12, w - 12
        need = metrics.boundingRect(
            QtCore.QRect(0, 0, int(right - left), 10 * line_h), QtCore.Qt.TextWordWrap, self.caption
        ).height()
        text_rect = QtCore.QRectF(left, 2, right - left, min(need, h - 4 * line_h) + 2)
        qp.drawText(text_rect, QtCore.Qt.TextWordWrap, self.caption)
        axis_y = h - line_h - 8
        top = text_rect.bottom() + 6
        lo, hi = self.interval
        span = max(hi - lo, 1e-12)

        def x_of(v: float) -> float:
            return left + (v - lo) / span * (right - left)

        # height: the chance of one point of the group (probability / points), so the area is the probability
        bars = [
            (a, b, p / n, j)
            for j, ((a, b, n), p) in enumerate(zip(self.ranges, self.probabilities))
            if n > 0 and math.isfinite(a) and math.isfinite(b)
        ]
        peak = max((d for *_, d, _j in bars), default=0.0) or 1.0
        for a, b, d, j in bars:
            x0, x1 = x_of(a), x_of(b)
            height = max((axis_y - top) * d / peak, 1.0)
            qp.fillRect(
                QtCore.QRectF(x0 - 1, axis_y - height, max(x1 - x0, 2.0), height), CHOSEN if j == self.winner else BAR
            )
        qp.setPen(QtGui.QPen(QtGui.QColor("#202020"), 1))
        qp.drawLine(QtCore.QPointF(left, axis_y), QtCore.QPointF(right, axis_y))
        for v, align in ((lo, QtCore.Qt.AlignLeft), (hi, QtCore.Qt.AlignRight)):
            x = x_of(v)
            qp.drawLine(QtCore.QPointF(x, axis_y - 4), QtCore.QPointF(x, axis_y + 4))
            box = QtCore.QRectF(x - 60 if align == QtCore.Qt.AlignRight else x, axis_y + 4, 60, line_h)
            qp.drawText(box, align, f"{v:g}")
        if self.point is not None:
            x = x_of(self.point)
            qp.setPen(QtGui.QPen(MARK, 2))
            qp.drawLine(QtCore.QPointF(x, top), QtCore.QPointF(x, axis_y + 4))
            qp.drawText(QtCore.QRectF(x - 40, axis_y + 4, 80, line_h), QtCore.Qt.AlignHCenter, f"{self.point:g}")
        qp.end()


__all__ = ["SplitLine", "chosen_point"]
