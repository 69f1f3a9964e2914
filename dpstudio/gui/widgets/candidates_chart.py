"""Bar chart of one selection step: each candidate's selection probability, the winner highlighted.

Shows what the exponential mechanism (or report-noisy-max) saw: with a small step budget the
probabilities are nearly flat even when scores differ a lot, which is the point a teacher wants visible.
At most ``MAX_BARS`` candidates are drawn (the most probable, plus the winner).

Drawn with QPainter, not as a pyqtgraph plot: a step's 30 text items, axes and view range took 4-10 ms to set
and 5-11 ms to paint on the GUI thread while a large run was followed (issue 35); the chart draws the same
bars, labels, title and probability axis in about a millisecond.

Privacy: in release mode a step's scores and probabilities depend on the data and are not released (the
stream carries NaN); the chart then draws equal grey bars under "release: probabilities not shown", and a
release split point's candidates (groups cut by data values) not at all.
"""

from __future__ import annotations

import math
import textwrap

import numpy as np
from PySide6 import QtCore, QtGui, QtWidgets

from dpstudio.gui.pacing import PACING_DELAY_MS, note_busy, paint_paced, put_off
from dpstudio.model.numbers import figure_text, ratio_text

MAX_BARS = 30  # at most; fewer when the chart is short (``BAR_PX`` per bar, so every bar keeps its label)
BAR_PX = 26
MIN_ROW_PX = 20  # a bar's label (8 pt) and a bar below it, at the least
#: each candidate's row: its label on the upper part, its bar (thinner) below it, so that no label hides a bar
LABEL_SHARE, BAR_TOP, BAR_SHARE = 0.52, 0.56, 0.35
LABEL_CHARS = 32
TITLE_CHARS = 46  # title lines are wrapped: a long line would widen the chart beyond its pane
#: the chosen candidate is named whole up to this length: "chosen: ", the name and its comma fill one title line
#: (walk 52 read "chosen: capital-gain=[0,100000) at 5..."); a longer name is cut to this length, "..." included
CHOSEN_CHARS = TITLE_CHARS - len("chosen: ,")
TICK_FONT_PT = 8
TITLE_FONT_PT = 9
AXIS_PX = 60  # the probability axis, its title and the margins below the bars
LEFT_PX, RIGHT_PX = 8, 14
BAR, WINNER, HIDDEN = QtGui.QColor("#4a7fc1"), QtGui.QColor("#f0a020"), QtGui.QColor("#b0b0b0")
INK, LABEL_INK, AXIS_INK = QtGui.QColor("#202020"), QtGui.QColor("#101010"), QtGui.QColor("#606060")
PROBABILITY = "selection probability"


class CandidatesChart(QtWidgets.QWidget):
    """See the module docstring. ``title_text`` (lines joined by ``<br>``) and ``axis_label`` say what is
    drawn; ``shown`` the candidates' indices drawn, top to bottom."""

    def __init__(self, parent=None):
        super().__init__(parent)
        self.setAccessibleName("Candidates of the selection step and their probabilities")
        self.setAttribute(QtCore.Qt.WA_OpaquePaintEvent)
        self.setMinimumSize(120, AXIS_PX + title_height(1) + 3 * BAR_PX)
        self.caption = ""  # the selection in words (teaching mode only)
        self._label_font = QtGui.QFont(self.font())
        self._label_font.setPointSize(TICK_FONT_PT)
        self._title_font = QtGui.QFont(self.font())
        self._title_font.setPointSize(TITLE_FONT_PT)
        self.shown: list[int] = []  # candidate indices drawn, top to bottom
        self.probabilities = np.zeros(0)
        self.winner: int | None = None
        self.hidden = False
        self._step = None  # (scored, winner) drawn: drawn again when a resize changes how many bars fit
        self._refit_due = False
        self._labels: list[str] = []  # each drawn bar's label, top to bottom
        self._widths = np.zeros(0)  # each drawn bar's probability
        self.x_max = 1.0
        self.axis_label = PROBABILITY
        self.axis_numbers = True  # the probability axis's numbers (not in release mode)
        self.title_text = "candidates"

    # -- what is drawn --------------------------------------------------------------------------------
    def bars_that_fit(self, title_lines: int = 4) -> int:
        """How many bars keep their labels at this height below a title of ``title_lines`` lines
        (``BAR_PX`` each, at least 3; the axis and margins take ``AXIS_PX``)."""
        if self.height() <= 0:
            return MAX_BARS
        room = self.height() - AXIS_PX - title_height(title_lines)
        return max(3, min(MAX_BARS, room // BAR_PX))

    def resizeEvent(self, ev) -> None:
        super().resizeEvent(ev)
        if self._step is not None and not self._refit_due:
            self._refit_due = True
            QtCore.QTimer.singleShot(PACING_DELAY_MS, self, self._refit)

    def _refit(self) -> None:
        """After a resize, the bars drawn again if the number that fits changed (e.g. the explanation below
        took room: fewer bars, none overlapping), in a pass of the event loop of its own: a resize while a
        run is followed came in the pass that drew the step, and the two made one gap."""
        if put_off(self, "refit", self._refit):
            return
        self._refit_due = False
        if self._step is not None and self.probabilities.size > 0:
            want = min(self.bars_that_fit(), self.probabilities.size)
            if want != len(self.shown):
                self.set_step(*self._step)
                note_busy()

    def clear_step(self) -> None:
        self._step = None
        self.shown, self.probabilities, self.winner = [], np.zeros(0), None
        self._set_bars([], np.zeros(0), 1.0)
        self.axis_label, self.axis_numbers = PROBABILITY, True  # nothing of an earlier (release) stream stays
        self.hidden = False
        self.caption = ""
        self._set_title("candidates")

    def set_step(self, scored, winner=None) -> None:
        """Draw a ``CandidatesScored`` event; ``winner`` is the matching ``WinnerChosen`` (or None)."""
        if scored is None:
            self.clear_step()
            return
        if not scored.labels:
            self._set_unreleased(scored, winner)
            return
        probs = np.asarray(scored.probabilities, dtype=float)
        hidden = probs.size > 0 and not np.any(np.isfinite(probs))
        if hidden:
            # release mode: scores and probabilities depend on the data and are not released
            probs = np.full(probs.size, 1.0 / probs.size)
        probs = np.where(np.isfinite(probs), probs, 0.0)
        w = int(winner.index) if _pairs(scored, winner) and 0 <= int(winner.index) < probs.size else None
        self._step = (scored, winner)
        self.caption = "" if hidden or w is None else odds_caption(probs, w)
        fit = self.bars_that_fit(len(title_lines(self._title(scored, probs, w, hidden, probs.size))))
        order = list(np.argsort(-probs, kind="stable")[:fit])
        if w is not None and w not in order:
            order[-1] = w
        self.shown, self.probabilities, self.winner = [int(i) for i in order], probs, w
        self.hidden = hidden
        labels = []
        for i in order:
            label = scored.labels[i]
            if len(label) > LABEL_CHARS:
                label = label[: LABEL_CHARS - 2] + ".."
            score = scored.scores[i]
            labels.append(label if hidden or not np.isfinite(score) else f"{label} ({figure_text(score)})")
        self._set_bars(labels, probs[np.asarray(order, dtype=np.int64)], max(float(probs.max()) * 1.05, 1e-9))
        self.axis_label = "release: probabilities not shown" if hidden else PROBABILITY
        self.axis_numbers = not hidden
        self._set_title(self._title(scored, probs, w, hidden, len(order)))

    def bar_labels(self) -> list[str]:
        return list(self._labels)

    def _set_bars(self, labels: list[str], widths, x_max: float) -> None:
        """Keep the bars to draw (labels top to bottom, their probabilities, the axis's end); the next paint
        draws them."""
        self._labels, self._widths, self.x_max = labels, np.asarray(widths, dtype=float), x_max
        self.update()

    def _title(self, scored, probs, w, hidden: bool, shown: int) -> str:
        """What was chosen among how many, and (teaching) the odds in words (``self.caption``)."""
        intervals = "interval" in scored.mechanism
        # an interval between two data values may hold no lattice point: it is no candidate (probability 0)
        n = int(np.count_nonzero(probs > 0)) if intervals and not hidden else len(probs)
        title = f"{_what(scored)}: {n} {'intervals' if intervals else 'candidates'}"
        if shown < n:
            title += f" (top {shown} shown)"
        if w is not None:
            chosen = (
                scored.labels[w]
                if len(scored.labels[w]) <= CHOSEN_CHARS
                else scored.labels[w][: CHOSEN_CHARS - 3] + "..."
            )
            title += f"<br>chosen: {chosen}" + ("" if hidden else f", p = {probs[w]:.3f}")
        if self.caption:
            title += f"<br>{self.caption}"
        return title

    def _set_title(self, title: str) -> None:
        """The title on as many lines as it has (``title_lines``); all of it is the chart's tooltip too (a short
        chart draws only the lines that leave its bars room: ``drawn_title_lines``)."""
        lines = title_lines(title)
        self.title_text = "<br>".join(lines)
        self.setToolTip("\n".join(lines))
        self.update()

    def drawn_title_lines(self) -> list[str]:
        """The title's lines drawn at this height: the last ones (the odds in words, then the winner) are left
        out while the bars would get less than ``MIN_ROW_PX`` each; the first line always stays."""
        lines = self.title_text.split("<br>") if self.title_text else []
        bars = len(self._labels)
        while len(lines) > 1 and bars and self._bar_room(len(lines)) < bars * MIN_ROW_PX:
            lines.pop()
        return lines

    def _bar_room(self, title_lines: int) -> int:
        """The height the bars share below a title of ``title_lines`` lines."""
        return self.height() - AXIS_PX + 2 - title_height(title_lines)

    def _set_unreleased(self, scored, winner) -> None:
        """A release-mode split point: its candidates are groups of public lattice points cut by data
        values, so their ends and scores depend on the data: not shown."""
        self.shown, self.probabilities, self.winner, self.hidden = [], np.zeros(0), None, True
        self._set_bars([], np.zeros(0), 1.0)
        self.axis_label, self.axis_numbers = "release: candidates not shown", False
        title = f"{_what(scored)}: candidates not shown"
        if _pairs(scored, winner):
            chosen = winner.label if len(winner.label) <= 40 else winner.label[:38] + "..."
            title += f"<br>chosen: {chosen}"
        self.caption = ""
        self._set_title(title)

    # -- drawing --------------------------------------------------------------------------------------
    def cut_texts(self) -> list[str]:
        """The title lines and bar labels too wide for the chart as it is now (drawn cut, with "...")."""
        title = QtGui.QFontMetrics(self._title_font)
        label = QtGui.QFontMetrics(self._label_font)
        room = self.width() - LEFT_PX - RIGHT_PX
        lines = self.drawn_title_lines()  # the lines left out are in the tooltip
        return [t for t in lines if title.horizontalAdvance(t) > room] + [
            t for t in self._labels if label.horizontalAdvance(t) > room
        ]

    def paintEvent(self, ev) -> None:
        paint_paced(self._paint, ev)

    def _paint(self, _ev) -> None:
        qp = QtGui.QPainter(self)
        try:
            self._paint_on(qp)
        finally:
            qp.end()

    def _paint_on(self, qp: QtGui.QPainter) -> None:
        w, h = self.width(), self.height()
        qp.fillRect(self.rect(), QtCore.Qt.white)
        room = max(w - LEFT_PX - RIGHT_PX, 1)
        lines = self.drawn_title_lines()
        qp.setFont(self._title_font)
        qp.setPen(INK)
        metrics = qp.fontMetrics()
        for k, line in enumerate(lines):
            box = QtCore.QRectF(LEFT_PX, 5 + 17 * k, room, 17)
            qp.drawText(
                box, QtCore.Qt.AlignLeft | QtCore.Qt.AlignVCenter, metrics.elidedText(line, QtCore.Qt.ElideRight, room)
            )
        top = title_height(len(lines))
        axis_y = h - AXIS_PX + 6
        n = len(self._labels)
        qp.setFont(self._label_font)
        metrics = qp.fontMetrics()
        if n:
            row = max(self._bar_room(len(lines)) / n, 1.0)
            scale = room / self.x_max
            winner_row = self.shown.index(self.winner) if self.winner in self.shown else -1
            for k, (label, p) in enumerate(zip(self._labels, self._widths)):
                y = top + k * row
                colour = WINNER if k == winner_row else (HIDDEN if self.hidden else BAR)
                if p > 0:
                    qp.fillRect(QtCore.QRectF(LEFT_PX, y + BAR_TOP * row, max(p * scale, 1.0), BAR_SHARE * row), colour)
                qp.setPen(LABEL_INK)
                box = QtCore.QRectF(LEFT_PX + 2, y, room - 2, LABEL_SHARE * row)
                qp.drawText(
                    box,
                    QtCore.Qt.AlignLeft | QtCore.Qt.AlignBottom,
                    metrics.elidedText(label, QtCore.Qt.ElideRight, room - 2),
                )
        qp.setPen(AXIS_INK)
        qp.drawLine(QtCore.QPointF(LEFT_PX, axis_y), QtCore.QPointF(LEFT_PX + room, axis_y))
        if self.axis_numbers:
            for value, text in axis_ticks(self.x_max):
                x = LEFT_PX + value / self.x_max * room
                qp.drawLine(QtCore.QPointF(x, axis_y), QtCore.QPointF(x, axis_y + 4))
                half = metrics.horizontalAdvance(text) / 2 + 1
                centre = min(max(x, half), w - half)  # the first and last numbers stay inside the chart
                qp.drawText(
                    QtCore.QRectF(centre - half, axis_y + 5, 2 * half, 14),
                    QtCore.Qt.AlignHCenter | QtCore.Qt.AlignTop,
                    text,
                )
        qp.setFont(self._title_font)
        qp.setPen(INK)
        qp.drawText(
            QtCore.QRectF(LEFT_PX, axis_y + 22, room, 18),
            QtCore.Qt.AlignHCenter | QtCore.Qt.AlignTop,
            qp.fontMetrics().elidedText(self.axis_label, QtCore.Qt.ElideRight, room),
        )


def axis_ticks(x_max: float, most: int = 5) -> list[tuple[float, str]]:
    """(value, text) of the probability axis's ticks on [0, x_max]: steps of 1, 2 or 5 times a power of ten,
    at most ``most`` + 1 of them, each written with the decimals its step needs."""
    if not (x_max > 0 and math.isfinite(x_max)):
        return [(0.0, "0")]
    raw = x_max / most
    power = 10.0 ** math.floor(math.log10(raw))
    step = next(m * power for m in (1, 2, 5, 10) if m * power >= raw)
    decimals = max(0, -math.floor(math.log10(step) + 1e-9))
    count = int(math.floor(x_max / step + 1e-9))
    return [(k * step, f"{k * step:.{decimals}f}") for k in range(count + 1)]


def title_lines(title: str) -> list[str]:
    """The title's lines as drawn: each ``<br>`` part wrapped at ``TITLE_CHARS``."""
    return [part for line in title.split("<br>") for part in textwrap.wrap(line, TITLE_CHARS)]


def title_height(lines: int) -> int:
    return 10 + 17 * lines


def odds_caption(probs, w: int) -> str:
    """The selection in words (teaching mode: the probabilities depend on the data): how much likelier the
    winner was than the best other candidate."""
    probs = np.asarray(probs, dtype=float)
    if probs.size < 2:
        return "a single candidate: chosen for sure"
    others = np.delete(probs, w)
    best = float(others.max())
    if best <= 0:
        return "the winner had all the probability"
    ratio = float(probs[w]) / best
    if ratio_text(ratio if ratio >= 1 else 1 / ratio) == "1":  # walk 54 read "1 times less likely"
        return (
            "the winner was about as likely as the best other candidate: with this budget the choice is close to random"
        )
    if ratio < 1:
        return f"the winner was {ratio_text(1 / ratio)} times less likely than the best other candidate: the noise chose it"
    if ratio < 1.5:
        verdict = "with this budget the choice is close to random"
    elif ratio < 10:
        verdict = "the budget favours the better scores, but not by much"
    else:
        verdict = "the budget makes the best score the clear choice"
    return f"the winner was {ratio_text(ratio)} times likelier than the runner-up: {verdict}"


def _pairs(scored, winner) -> bool:
    """Whether ``winner`` is the outcome of ``scored``'s selection (by selection number; streams without
    numbers fall back to the step and the winner's label)."""
    if winner is None:
        return False
    if scored.selection >= 0 or winner.selection >= 0:
        return scored.selection == winner.selection
    i = int(winner.index)
    return (
        winner.step == scored.step
        and 0 <= i < len(scored.labels)
        and (scored.labels[i] == winner.label or "interval" in scored.mechanism)
    )


def _what(scored) -> str:
    if "interval" in scored.mechanism:
        return f"split point (step {scored.step})"
    return f"step {scored.step}"
