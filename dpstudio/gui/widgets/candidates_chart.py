"""Bar chart of one selection step: each candidate's selection probability, the winner highlighted.

Shows what the exponential mechanism (or report-noisy-max) saw: with a small step budget the
probabilities are nearly flat even when scores differ a lot, which is the point a teacher wants visible.
At most ``MAX_BARS`` candidates are drawn (the most probable, plus the winner).
"""

from __future__ import annotations

import numpy as np
import pyqtgraph as pg

MAX_BARS = 30


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
        probs = np.asarray(scored.probabilities, dtype=float)
        order = list(np.argsort(-probs, kind="stable")[:MAX_BARS])
        w = None if winner is None or winner.step != scored.step else int(winner.index)
        if w is not None and w not in order:
            order[-1] = w
        self.shown, self.probabilities, self.winner = [int(i) for i in order], probs, w
        ys = np.arange(len(order))[::-1].astype(float)
        normal = [k for k, i in enumerate(order) if i != w]
        self.bars.setOpts(x0=np.zeros(len(normal)), y=ys[normal], height=0.7, width=probs[order][normal])
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
            ticks.append((ys[k], f"{label} ({scored.scores[i]:.3g})"))
        self.getAxis("left").setTicks([ticks])
        self.setXRange(0, max(float(probs.max()) * 1.05, 1e-9), padding=0)
        self.setYRange(-0.6, len(order) - 0.4, padding=0)
        title = f"step {scored.step + 1}: {len(probs)} candidates ({scored.mechanism})"
        if w is not None:
            chosen = scored.labels[w] if len(scored.labels[w]) <= 30 else scored.labels[w][:28] + "..."
            title += f"<br>chosen: {chosen}, p = {probs[w]:.3f}"
        self.setTitle(title, size="9pt")
