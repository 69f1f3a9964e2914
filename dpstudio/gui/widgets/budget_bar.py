"""A horizontal bar showing how epsilon is split, with draggable boundaries between the shares.

The bar holds ``segments`` (name, share) with shares that are exact ``Fraction``s summing to the total
epsilon. Dragging the handle between segments i and i+1 moves budget from one to the other and never
changes the total (the last boundary is pinned at the total). ``locked`` segments (for example LUEDPTree's
computed per-level budgets) are drawn but their handles do not move.

Signals: ``splitChanged(list[Fraction])`` after every change (drag or ``set_boundary``).
"""

from __future__ import annotations

from fractions import Fraction

from PySide6 import QtCore, QtGui, QtWidgets

from dpstudio.model.numbers import figure_text

COLOURS = ["#4a7fc1", "#f0a020", "#2e9e5b", "#9467bd", "#d62728", "#8c564b", "#e377c2", "#17becf", "#bcbd22", "#7f7f7f"]
MIN_SHARE = Fraction(1, 100)  # of the total, per segment
GRID = 1000  # handle positions snap to 1/1000 of the total, so shares stay short exact fractions


def segment_colour(k: int) -> str:
    """The colour of segment ``k``: ``COLOURS`` in turn, then each of them darker again for every further
    round, so that no two segments of a bar share a colour (a DiffGen split has 13 segments for 10 levels:
    cycling the list drew level 8 in the selection's blue and level 9 in the split points' orange) and the
    white figures on them stay readable."""
    base = COLOURS[k % len(COLOURS)]
    rounds = k // len(COLOURS)
    return base if rounds == 0 else QtGui.QColor(base).darker(100 + 45 * rounds).name()


class BudgetBar(QtWidgets.QWidget):
    splitChanged = QtCore.Signal(list)

    HANDLE_PX = 6

    def __init__(self, parent=None):
        super().__init__(parent)
        self.setMouseTracking(True)
        self.setSizePolicy(QtWidgets.QSizePolicy.Expanding, QtWidgets.QSizePolicy.Fixed)
        self.total = Fraction(1)
        self.names: list[str] = []
        self.shares: list[Fraction] = []
        self.colours: list[str] = []
        self.locked = False
        self._drag: int | None = None

    # -- public API ---------------------------------------------------------------------------------
    def set_segments(self, names, shares, total, colours=None, locked: bool = False) -> None:
        """Show ``names`` with ``shares`` (numbers; they are rescaled to sum exactly to ``total``)."""
        total = Fraction(total)
        fr = [Fraction(s) if not isinstance(s, float) else Fraction(s).limit_denominator(10**9) for s in shares]
        s = sum(fr)
        if s <= 0:
            raise ValueError("shares must sum to a positive number")
        fr = [f * total / s for f in fr]
        self.total, self.names, self.shares = total, list(names), fr
        self.colours = list(colours) if colours else [segment_colour(i) for i in range(len(names))]
        self.locked = locked
        self._fit_height()
        self.update()
        self.splitChanged.emit(list(self.shares))

    def boundaries(self) -> list[Fraction]:
        """Cumulative positions of the handles (len(segments) - 1 of them), as fractions of the total."""
        out, acc = [], Fraction(0)
        for s in self.shares[:-1]:
            acc += s
            out.append(acc / self.total)
        return out

    def set_boundary(self, i: int, position: float) -> None:
        """Move handle ``i`` (between segments i and i+1) to ``position`` in [0, 1] of the total.

        The position is clamped so each neighbour keeps at least MIN_SHARE, and snapped to 1/GRID.
        """
        if self.locked or not (0 <= i < len(self.shares) - 1):
            return
        bounds = [Fraction(0)] + self.boundaries() + [Fraction(1)]
        lo, hi = bounds[i] + MIN_SHARE, bounds[i + 2] - MIN_SHARE
        if lo > hi:
            return
        pos = Fraction(round(float(position) * GRID), GRID)
        pos = min(max(pos, lo), hi)
        pair = self.shares[i] + self.shares[i + 1]
        self.shares[i] = pos * self.total - bounds[i] * self.total
        self.shares[i + 1] = pair - self.shares[i]
        self.update()
        self.splitChanged.emit(list(self.shares))

    def handle_x(self, i: int) -> int:
        """Pixel x of handle i (for tests that drag with the mouse)."""
        r = self._bar_rect()
        return int(round(r.left() + float(self.boundaries()[i]) * r.width()))

    def bar_y(self) -> int:
        return int(self._bar_rect().center().y())

    # -- painting -----------------------------------------------------------------------------------
    def _bar_rect(self) -> QtCore.QRectF:
        return QtCore.QRectF(8, 4, max(10, self.width() - 16), 28)

    def paintEvent(self, _ev) -> None:
        p = QtGui.QPainter(self)
        p.setRenderHint(QtGui.QPainter.Antialiasing, False)
        r = self._bar_rect()
        x = r.left()
        fm = p.fontMetrics()
        for k, (name, share) in enumerate(zip(self.names, self.shares)):
            w = float(share / self.total) * r.width()
            seg = QtCore.QRectF(x, r.top(), w, r.height())
            p.fillRect(seg, QtGui.QColor(self.colours[k]))
            text = f"{name} {figure_text(share)}"
            if fm.horizontalAdvance(text) > w - 4:
                text = figure_text(share)
            if fm.horizontalAdvance(text) <= w - 4:
                p.setPen(QtGui.QColor("white"))
                p.drawText(seg, QtCore.Qt.AlignCenter, text)
            x += w
        p.setPen(QtGui.QPen(QtGui.QColor("#303030"), 1))
        p.drawRect(r)
        if not self.locked:
            for i in range(len(self.shares) - 1):
                hx = self.handle_x(i)
                p.fillRect(QtCore.QRectF(hx - 2, r.top() - 3, 4, r.height() + 6), QtGui.QColor("#202020"))
        # legend below the bar: every segment, on as many rows as the width needs
        p.setPen(QtGui.QColor("#202020"))
        for k, lx, ly in self.legend_layout():
            p.fillRect(QtCore.QRectF(lx, ly + 3, 10, 10), QtGui.QColor(self.colours[k]))
            p.drawText(QtCore.QPointF(lx + 13, ly + 12), self._legend_label(k))
        p.end()

    LEGEND_ROW_PX = 16

    def _legend_label(self, k: int) -> str:
        return f"{self.names[k]}: {figure_text(self.shares[k])}"

    def legend_layout(self) -> list[tuple[int, float, float]]:
        """(segment, x, y) of each legend entry: all of them, wrapped onto rows below the bar."""
        r = self._bar_rect()
        fm = self.fontMetrics()
        out, lx, ly = [], r.left(), r.bottom() + 4
        for k in range(len(self.names)):
            wtxt = fm.horizontalAdvance(self._legend_label(k)) + 22
            if lx + wtxt > r.right() + 8 and lx > r.left():
                lx, ly = r.left(), ly + self.LEGEND_ROW_PX
            out.append((k, lx, ly))
            lx += wtxt
        return out

    def _fit_height(self) -> None:
        rows = len({y for _, _, y in self.legend_layout()}) or 1
        self.setFixedHeight(int(self._bar_rect().bottom()) + 8 + rows * self.LEGEND_ROW_PX)

    def resizeEvent(self, ev) -> None:
        super().resizeEvent(ev)
        self._fit_height()

    # -- mouse --------------------------------------------------------------------------------------
    def _handle_at(self, x: float) -> int | None:
        if self.locked:
            return None
        best, dist = None, self.HANDLE_PX + 1
        for i in range(len(self.shares) - 1):
            d = abs(self.handle_x(i) - x)
            if d < dist:
                best, dist = i, d
        return best

    def mousePressEvent(self, ev) -> None:
        self._drag = self._handle_at(ev.position().x())
        ev.accept()

    def mouseMoveEvent(self, ev) -> None:
        x = ev.position().x()
        if self._drag is not None:
            r = self._bar_rect()
            self.set_boundary(self._drag, (x - r.left()) / r.width())
        else:
            over = self._handle_at(x) is not None
            self.setCursor(QtCore.Qt.SplitHCursor if over else QtCore.Qt.ArrowCursor)
        ev.accept()

    def mouseReleaseEvent(self, ev) -> None:
        self._drag = None
        ev.accept()

    def sizeHint(self) -> QtCore.QSize:
        return QtCore.QSize(480, 56)
