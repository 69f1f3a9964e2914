"""Bar chart of one selection step: each candidate's selection probability, the winner highlighted.

Shows what the exponential mechanism (or report-noisy-max) saw: with a small step budget the
probabilities are nearly flat even when scores differ a lot, which is the point a teacher wants visible.
At most ``MAX_BARS`` candidates are drawn (the most probable, plus the winner).
"""

from __future__ import annotations

import textwrap

import numpy as np
import pyqtgraph as pg
from PySide6 import QtCore, QtGui

from dpstudio.gui.pacing import PACING_DELAY_MS, note_busy, paint_paced, put_off
from dpstudio.model.numbers import figure_text, ratio_text

MAX_BARS = 30  # at most; fewer when the chart is short (``BAR_PX`` per bar, so every bar keeps its label)
BAR_PX = 26
#: each candidate's row: its label on the upper part, its bar (thinner) below it, so that no label hides a bar
LABEL_DY, BAR_DY, BAR_HEIGHT = 0.18, -0.22, 0.35
LABEL_CHARS = 32
TITLE_CHARS = 46  # title lines are wrapped: a long line would widen the chart beyond its pane
#: the chosen candidate is named whole up to this length: "chosen: ", the name and its comma fill one title line
#: (walk 52 read "chosen: capital-gain=[0,100000) at 5..."); a longer name is cut to this length, "..." included
CHOSEN_CHARS = TITLE_CHARS - len("chosen: ,")
TICK_FONT_PT = 8
AXIS_PX = 60  # the probability axis, its title and the margins below the bars


class CandidatesChart(pg.PlotWidget):
    def __init__(self, parent=None):
        super().__init__(parent=parent, background="w")
        self.setMenuEnabled(False)
        self.setMouseEnabled(x=False, y=False)
        self.setLabel("bottom", "selection probability")
        self.getAxis("bottom").enableAutoSIPrefix(False)
        font = QtGui.QFont()
        font.setPointSize(TICK_FONT_PT)
        for side in ("left", "bottom"):
            # every bar keeps its label (pyqtgraph drops labels once they fill 80 % of the axis)
            self.getAxis(side).setStyle(tickFont=font, autoExpandTextSpace=True, textFillLimits=[(0, 1.0)])
        self.caption = ""  # the selection in words (teaching mode only)
        self._bar_texts: list[pg.TextItem] = []
        self._label_font = font
        self.getAxis("left").setWidth(8)
        self.bars = pg.BarGraphItem(x0=[], y=[], height=[], width=[], brush="#4a7fc1", pen=None)
        self.winner_bar = pg.BarGraphItem(x0=[], y=[], height=[], width=[], brush="#f0a020", pen=None)
        self.addItem(self.bars)
        self.addItem(self.winner_bar)
        self.title = pg.TextItem(color="#202020", anchor=(0, 1))
        self.shown: list[int] = []  # candidate indices drawn, top to bottom
        self.probabilities = np.zeros(0)
        self.winner: int | None = None
        self.hidden = False
        self._step = None  # (scored, winner) drawn: drawn again when a resize changes how many bars fit
        self.setTitle("candidates")
        # every label's text item made now: made at a run's first step, they took 4-5 ms of that pass
        self._add_bar_texts(MAX_BARS)

    def paintEvent(self, ev) -> None:
        paint_paced(super().paintEvent, ev)

    def bars_that_fit(self, title_lines: int = 4) -> int:
        """How many bars keep their labels at this height below a title of ``title_lines`` lines
        (``BAR_PX`` each, at least 3; the axis and margins take ``AXIS_PX``)."""
        if self.height() <= 0:
            return MAX_BARS
        room = self.height() - AXIS_PX - title_height(title_lines)
        return max(3, min(MAX_BARS, room // BAR_PX))

    def resizeEvent(self, ev) -> None:
        super().resizeEvent(ev)
        if self.__dict__.get("_step") is not None and not self.__dict__.get("_refit_due"):  # (not in __init__)
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
        self.bars.setOpts(x0=[], y=[], height=[], width=[])
        self.winner_bar.setOpts(x0=[], y=[], height=[], width=[])
        self.getAxis("left").setTicks([[]])
        self._set_bar_labels([])
        self.setLabel("bottom", "selection probability")  # no caption of an earlier (release) stream stays
        self.getAxis("bottom").setTicks(None)
        self.setXRange(0, 1, padding=0)  # an empty chart keeps nothing of the last run's probabilities
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
        ys = np.arange(len(order))[::-1].astype(float)
        normal = [k for k, i in enumerate(order) if i != w]
        widths = probs[np.asarray(order, dtype=np.int64)]
        self.bars.setOpts(
            x0=np.zeros(len(normal)),
            y=ys[normal] + BAR_DY,
            height=BAR_HEIGHT,
            width=widths[normal],
            brush="#b0b0b0" if hidden else "#4a7fc1",
        )
        if w is not None:
            k = order.index(w)
            self.winner_bar.setOpts(x0=[0.0], y=[ys[k] + BAR_DY], height=BAR_HEIGHT, width=[probs[w]])
        else:
            self.winner_bar.setOpts(x0=[], y=[], height=[], width=[])
        ticks = []
        for k, i in enumerate(order):
            label = scored.labels[i]
            if len(label) > LABEL_CHARS:  # a longer tick label would not fit the axis and be dropped
                label = label[: LABEL_CHARS - 2] + ".."
            score = scored.scores[i]
            ticks.append((ys[k], label if hidden or not np.isfinite(score) else f"{label} ({figure_text(score)})"))
        self.getAxis("left").setTicks([[]])
        self._set_bar_labels(ticks)
        self.setXRange(0, max(float(probs.max()) * 1.05, 1e-9), padding=0)
        self.setYRange(-0.6, len(order) - 0.4, padding=0)
        title = self._title(scored, probs, w, hidden, len(order))
        bottom = self.getAxis("bottom")
        if hidden:
            self.setLabel("bottom", "release: probabilities not shown")
            bottom.setTicks([[]])
        else:
            self.setLabel("bottom", "selection probability")
            bottom.setTicks(None)
        self._set_title(title)

    def _set_bar_labels(self, ticks) -> None:
        """One text per bar, written just above its bar (over it, the text hid short bars; axis tick labels
        are dropped by pyqtgraph whenever they crowd the axis, which left bars unlabelled)."""
        self._add_bar_texts(len(ticks))
        for t, (y, text) in zip(self._bar_texts, ticks):
            if getattr(t, "_shown_text", None) != text:  # laying out a text item is the costly part
                t.setText(text)
                t._shown_text = text
            t.setPos(0.0, float(y) + LABEL_DY)
            t.setVisible(True)
        for t in self._bar_texts[len(ticks) :]:
            t.setVisible(False)

    def _add_bar_texts(self, count: int) -> None:
        """Text items for ``count`` bar labels at least, hidden until used."""
        while len(self._bar_texts) < count:
            t = pg.TextItem(color="#101010", anchor=(0, 0.5))
            t.setFont(self._label_font)
            t.setZValue(5)
            t.setVisible(False)
            self.addItem(t)
            self._bar_texts.append(t)

    def bar_labels(self) -> list[str]:
        return [t.textItem.toPlainText() for t in self._bar_texts if t.isVisible()]

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
        """The title on as many lines as it has (pyqtgraph keeps room for one line only)."""
        lines = title_lines(title)
        self.setTitle("<br>".join(lines), size="9pt")
        height = title_height(len(lines))
        self.plotItem.titleLabel.setMaximumHeight(height)  # pyqtgraph caps it at one line (30 px)
        self.plotItem.layout.setRowFixedHeight(0, height)
        self.plotItem.titleLabel.setMinimumWidth(0)  # wrapped above: the chart may be narrower than a line

    def _set_unreleased(self, scored, winner) -> None:
        """A release-mode split point: its candidates are groups of public lattice points cut by data
        values, so their ends and scores depend on the data: not shown."""
        self.shown, self.probabilities, self.winner, self.hidden = [], np.zeros(0), None, True
        self.bars.setOpts(x0=[], y=[], height=[], width=[])
        self.winner_bar.setOpts(x0=[], y=[], height=[], width=[])
        self.getAxis("left").setTicks([[]])
        self._set_bar_labels([])
        self.getAxis("bottom").setTicks([[]])
        self.setLabel("bottom", "release: candidates not shown")
        title = f"{_what(scored)}: candidates not shown"
        if _pairs(scored, winner):
            chosen = winner.label if len(winner.label) <= 40 else winner.label[:38] + "..."
            title += f"<br>chosen: {chosen}"
        self.caption = ""
        self._set_title(title)


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
