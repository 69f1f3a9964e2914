"""The Stream panel's plot: the released value of every timestamp so far, the sliding window, and in
teaching runs the true counts and the latest window's groups.

``show_state(state, window, teaching)`` draws a ``model.stream_view.StreamState``. What is drawn is kept in
``shown`` (for tests): ``released`` (t, value) arrays, ``truth`` (teaching only, else None), ``window``
(first, last timestamp) and ``groups`` (the latest window's group means as (t, value), teaching only) and ``published`` (the latest published
window's values after grouping, as (t, value)).
"""

from __future__ import annotations

import numpy as np
import pyqtgraph as pg

NO_STREAM = "no stream yet: choose ILINet or open a counts file or an event log"
TEACHING_INPUT = "the stream's true counts (teaching mode); Run adds the released values"
#: room under the axis for the legend's one row, in pixels
LEGEND_ROOM_PX = 26
RELEASE_INPUT = "release mode: no count of the stream is shown before Run, which draws the released values"


class StreamPlot(pg.PlotWidget):
    def __init__(self, parent=None):
        super().__init__(parent=parent, background="w")
        self.setMenuEnabled(False)
        self.showGrid(x=True, y=True, alpha=0.25)
        self.setLabel("bottom", "timestamp t")
        self.setLabel("left", "count")
        # the legend in one row under the axis, never over the points (walk finding)
        legend = self.addLegend(offset=(0, 0), colCount=4, labelTextSize="7pt", horSpacing=6, frame=False)
        legend.setParentItem(self.plotItem)
        legend.anchor(itemPos=(0.5, 1), parentPos=(0.5, 1), offset=(0, 0))
        self.plotItem.layout.setContentsMargins(2, 2, 2, LEGEND_ROOM_PX)
        self.truth_curve = self.plot([], [], pen=pg.mkPen("#9e9e9e", width=1), name="true counts (teaching)")
        self.released_curve = self.plot([], [], pen=pg.mkPen("#1f77b4", width=1.5), name="noisy, ungrouped")
        self.published_curve = self.plot(
            [], [], pen=None, symbol="o", symbolSize=5, symbolBrush="#2e7d32", symbolPen=None, name="published window"
        )
        self.groups_curve = self.plot([], [], pen=pg.mkPen("#d62728", width=2), name="window groups", connect="finite")
        self.region = pg.LinearRegionItem(movable=False, brush=pg.mkBrush(255, 183, 77, 50))
        self.region.hide()
        self.addItem(self.region)
        self.shown: dict = {}

    def show_state(self, state, window: int, teaching: bool) -> None:
        self.setTitle(None)
        ts = np.array(sorted(state.values), dtype=float)
        vals = np.array([state.values[int(t)][0] for t in ts], dtype=float)
        self.released_curve.setData(ts, vals)
        truth = None
        if teaching and state.true_counts:
            tt = np.array(sorted(state.true_counts), dtype=float)
            truth = (tt, np.array([state.true_counts[int(t)] for t in tt], dtype=float))
            self.truth_curve.setData(*truth)
        else:
            self.truth_curve.setData([], [])
        last = int(state.window.window) if state.window is not None else (int(ts[-1]) if ts.size else 0)
        span = (max(1, last - window + 1), last) if last else None
        if span:
            self.region.setRegion((span[0] - 0.5, span[1] + 0.5))
            self.region.show()
        else:
            self.region.hide()
        published = None
        if state.window is not None:
            published = (np.arange(span[0], span[1] + 1, dtype=float), np.asarray(state.window.values, float))
            self.published_curve.setData(*published)
        else:
            self.published_curve.setData([], [])
        groups = None
        if teaching and state.window is not None:
            groups = self._group_steps(state.window, window)
            self.groups_curve.setData(*groups)
        else:
            self.groups_curve.setData([], [])
        self.shown = {"released": (ts, vals), "truth": truth, "window": span, "published": published, "groups": groups}

    def clear_state(self) -> None:
        """Nothing shown (no run of the current stream yet)."""
        for curve in (self.truth_curve, self.released_curve, self.published_curve, self.groups_curve):
            curve.setData([], [])
        self.region.hide()
        self.shown = {}
        self.setTitle(NO_STREAM, size="9pt")
        self.enableAutoRange()  # the next stream's axes, not the previous run's

    def show_input(self, counts, teaching: bool) -> None:
        """Before a run: in teaching mode the loaded stream's true counts (a teaching run shows them too);
        in release mode nothing of the data, only what Run will draw."""
        self.clear_state()
        if counts is None:
            return
        if teaching:
            t = np.arange(1, len(counts) + 1, dtype=float)
            self.truth_curve.setData(t, np.asarray(counts, dtype=float))
            self.shown = {"truth": (t, np.asarray(counts, dtype=float))}
            self.setTitle(TEACHING_INPUT, size="9pt")
        else:
            self.setTitle(RELEASE_INPUT, size="9pt")
            # nothing drawn leaves the previous view's axes, read from the true counts: public ones instead
            # (the timestamps 1..T, and a count axis that says nothing)
            self.setRange(xRange=(1, max(2, len(counts))), yRange=(0, 1), padding=0.02)
            self.enableAutoRange()  # Run's values set the axes again

    @staticmethod
    def _group_steps(win, window: int):
        """Each group's mean as a horizontal segment over its timestamps (NaN between groups)."""
        first = int(win.window) - window + 1
        xs, ys, start = [], [], 0
        for end in win.group_ends:
            xs += [first + start - 0.4, first + end - 1 + 0.4, np.nan]
            ys += [float(win.values[start]), float(win.values[start]), np.nan]
            start = end
        return np.array(xs), np.array(ys)
