"""Bar chart of one selection step: each candidate's selection probability, the winner highlighted.

Shows what the exponential mechanism (or report-noisy-max) saw: with a small step budget the
probabilities are nearly flat even when scores differ a lot, which is the point a teacher wants visible.
At most ``MAX_BARS`` candidates are drawn (the most probable, plus the winner).
"""

from __future__ import annotations

import numpy as np
import pyqtgraph as pg

MAX_BARS = 30  # at most; fewer when the chart is short (about 15 px per bar)


class CandidatesChart(pg.PlotWidget):
    def __init__(self, parent=None):
        super().__init__(parent=parent, background="w")
        self.setMenuEnabled(False)
        self.setMouseEnabled(x=False, y=False)
        self.setLabel("bottom", "selection probability")
        self.getAxis("bottom").enableAutoSIPrefix(False)
        self.getAxis("left").setWidth(190)
        self.bars = pg.BarGraphItem(x0=[], y=[], height=[], width=[], brush="#4a7fc1", pen=None)
        self.winner_bar = pg.BarGraphItem(x0=[], y=[], height=[], width=[], brush="#f0a020", pen=None)
        self.addItem(self.bars)
        self.addItem(self.winner_bar)
        self.title = pg.TextItem(color="#202020", anchor=(0, 1))
        self.shown: list[int] = []  # candidate indices drawn, top to bottom
        self.probabilities = np.zeros(0)
        self.winner: int | None = None
        self.hidden = False
        self.setTitle("candidates")

    def clear_step(self) -> None:
        self.shown, self.probabilities, self.winner = [], np.zeros(0), None
        self.bars.setOpts(x0=[], y=[], height=[], width=[])
        self.winner_bar.setOpts(x0=[], y=[], height=[], width=[])
        self.getAxis("left").setTicks([[]])
        self.setTitle("candidates")

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
        fit = max(5, min(MAX_BARS, (self.height() - 90) // 15)) if self.height() > 0 else MAX_BARS
        order = list(np.argsort(-probs, kind="stable")[:fit])
        if w is not None and w not in order:
            order[-1] = w
        self.shown, self.probabilities, self.winner = [int(i) for i in order], probs, w
        self.hidden = hidden
        ys = np.arange(len(order))[::-1].astype(float)
        normal = [k for k, i in enumerate(order) if i != w]
        widths = probs[np.asarray(order, dtype=np.int64)]
        self.bars.setOpts(x0=np.zeros(len(normal)), y=ys[normal], height=0.7, width=widths[normal],
                          brush="#b0b0b0" if hidden else "#4a7fc1")
        if w is not None:
            k = order.index(w)
            self.winner_bar.setOpts(x0=[0.0], y=[ys[k]], height=0.7, width=[probs[w]])
        else:
            self.winner_bar.setOpts(x0=[], y=[], height=[], width=[])
        ticks = []
        for k, i in enumerate(order):
            label = scored.labels[i]
            if len(label) > 28:
                label = label[:26] + "..."
            score = scored.scores[i]
            ticks.append((ys[k], label if hidden or not np.isfinite(score) else f"{label} ({score:.3g})"))
        self.getAxis("left").setTicks([ticks])
        self.setXRange(0, max(float(probs.max()) * 1.05, 1e-9), padding=0)
        self.setYRange(-0.6, len(order) - 0.4, padding=0)
        title = f"{_what(scored)}: {len(probs)} {'intervals' if 'interval' in scored.mechanism else 'candidates'}"
        if len(order) < len(probs):
            title += f" (top {len(order)} shown)"
        if w is not None:
            chosen = scored.labels[w] if len(scored.labels[w]) <= 30 else scored.labels[w][:28] + "..."
            title += f"<br>chosen: {chosen}" + ("" if hidden else f", p = {probs[w]:.3f}")
        bottom = self.getAxis("bottom")
        if hidden:
            self.setLabel("bottom", "release: probabilities depend on the data, not shown")
            bottom.setTicks([[]])
        else:
            self.setLabel("bottom", "selection probability")
            bottom.setTicks(None)
        self.setTitle(title, size="9pt")

    def _set_unreleased(self, scored, winner) -> None:
        """A release-mode split point: its candidates are groups of public lattice points cut by data
        values, so their ends and scores depend on the data: not shown."""
        self.shown, self.probabilities, self.winner, self.hidden = [], np.zeros(0), None, True
        self.bars.setOpts(x0=[], y=[], height=[], width=[])
        self.winner_bar.setOpts(x0=[], y=[], height=[], width=[])
        self.getAxis("left").setTicks([[]])
        self.getAxis("bottom").setTicks([[]])
        self.setLabel("bottom", "release: split-point groups and their scores depend on the data, not shown")
        title = f"{_what(scored)}: candidates not shown"
        if _pairs(scored, winner):
            chosen = winner.label if len(winner.label) <= 40 else winner.label[:38] + "..."
            title += f"<br>chosen: {chosen}"
        self.setTitle(title, size="9pt")


def _pairs(scored, winner) -> bool:
    """Whether ``winner`` is the outcome of ``scored``'s selection (by selection number; streams without
    numbers fall back to the step and the winner's label)."""
    if winner is None:
        return False
    if scored.selection >= 0 or winner.selection >= 0:
        return scored.selection == winner.selection
    i = int(winner.index)
    return (winner.step == scored.step and 0 <= i < len(scored.labels)
            and (scored.labels[i] == winner.label or "interval" in scored.mechanism))


def _what(scored) -> str:
    if "interval" in scored.mechanism:
        return f"split point (step {scored.step})"
    return f"step {scored.step}"
