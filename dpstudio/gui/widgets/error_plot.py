"""Error against query size on log-log axes: analytic curves and Monte-Carlo bands.

``set_series(name, sizes, values, band=None)`` draws one curve (and optionally a shaded band between two
curves); the plotted arrays are kept in ``series`` so tests can compare them with the evaluation module.

The items hold log10 of the data and only the axes are in log mode (their ticks read 10^k): pyqtgraph's
own log mode does not transform a ``FillBetweenItem``, which then wrecks the auto-range.
"""

from __future__ import annotations

import numpy as np
import pyqtgraph as pg


class DecadeAxis(pg.AxisItem):
    """A log axis (items hold log10 values) that labels decades only: minor ticks stay unlabelled."""

    def __init__(self, orientation):
        super().__init__(orientation)
        self.setLogMode(True)
        self.enableAutoSIPrefix(False)

    def tickStrings(self, values, scale, spacing):
        out = []
        for v in values:
            if abs(v - round(v)) < 1e-6:
                e = int(round(v))
                out.append(f"{10.0**e:g}" if -3 <= e <= 4 else f"1e{e}")
            else:
                out.append("")
        return out


COLOURS = ["#4a7fc1", "#2e9e5b", "#d62728", "#f0a020", "#9467bd", "#8c564b"]


class ErrorPlot(pg.PlotWidget):
    def __init__(self, parent=None, ylabel: str = "mean squared error", xlabel: str = "query size (bins)"):
        super().__init__(
            parent=parent, background="w", axisItems={"bottom": DecadeAxis("bottom"), "left": DecadeAxis("left")}
        )
        self.setMenuEnabled(False)
        self.showGrid(x=True, y=True, alpha=0.25)
        self.setLabel("left", ylabel)
        self.setLabel("bottom", xlabel)
        # bottom right: errors grow with the query size; on a light ground of its own, so that a curve
        # passing under it does not run through its words
        self.legend = self.addLegend(
            offset=(-10, -10), brush=pg.mkBrush(255, 255, 255, 225), pen=pg.mkPen("#cccccc"), labelTextColor="#303030"
        )
        self.series: dict[str, dict] = {}
        self._items: dict[str, list] = {}

    def clear_series(self) -> None:
        for items in self._items.values():
            for it in items:
                self.removeItem(it)
        self._items.clear()
        self.series.clear()
        self.legend.clear()

    def set_series(
        self, name: str, sizes, values, band=None, dashed: bool = False, colour=None, legend: str | None = ""
    ) -> None:
        """Draw (or replace) the series ``name``; ``legend``: its entry in the legend ("" for ``name``, None
        for none: a second curve of a method already in the legend, in its colour)."""
        for it in self._items.pop(name, []):
            self.removeItem(it)
            self.legend.removeItem(it)
        x = np.asarray(sizes, dtype=float)
        y = np.asarray(values, dtype=float)
        keep = (x > 0) & (y > 0) & np.isfinite(y)
        colour = colour or COLOURS[len(self._items) % len(COLOURS)]
        pen = pg.mkPen(colour, width=2, style=pg.QtCore.Qt.DashLine if dashed else pg.QtCore.Qt.SolidLine)
        items = []
        if band is not None:
            lo = np.asarray(band[0], dtype=float)
            hi = np.asarray(band[1], dtype=float)
            kb = keep & (lo > 0) & (hi > 0)
            c_lo = pg.PlotDataItem(np.log10(x[kb]), np.log10(lo[kb]), pen=pg.mkPen(None))
            c_hi = pg.PlotDataItem(np.log10(x[kb]), np.log10(hi[kb]), pen=pg.mkPen(None))
            qc = pg.mkColor(colour)
            qc.setAlpha(60)
            fill = pg.FillBetweenItem(c_lo, c_hi, brush=pg.mkBrush(qc))
            for it in (c_lo, c_hi, fill):
                self.addItem(it)
                items.append(it)
        curve = self.plot(
            np.log10(x[keep]),
            np.log10(y[keep]),
            pen=pen,
            name=name if legend == "" else legend,
            symbol="o",
            symbolSize=4,
            symbolBrush=colour,
            symbolPen=None,
        )
        items.append(curve)
        self._items[name] = items
        self.series[name] = {"x": x, "y": y, "band": band}
