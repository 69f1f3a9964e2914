"""The noise distribution behind one noisy count: discrete Laplace of the node's scale, its 95 % interval
shaded, and in teaching mode (when asked) the realised noise marked. The curve depends on the scale alone
(public, paid for in the ledger); the realised noise is shown only when the explanation carries it."""

from __future__ import annotations

import numpy as np
import pyqtgraph as pg

from dpstudio.model.numbers import figure_text
from dpstudio.model.watch.explain import noise_pmf


class NoiseChart(pg.PlotWidget):
    def __init__(self, parent=None):
        super().__init__(parent=parent, background="w")
        self.setMenuEnabled(False)
        self.setMouseEnabled(False, False)
        self.getPlotItem().hideButtons()
        self.setLabel("bottom", "noise added to the count")
        self.getAxis("left").setStyle(showValues=False)
        self.explanation = None
        self.marked: float | None = None  # the realised noise drawn (teaching only)

    def set_explanation(self, exp) -> None:
        if exp is None and self.explanation is None and self.marked is None:
            return  # empty already (the start of each run asks again; the title alone took 3 ms)
        self.clear()
        self.explanation = exp
        self.marked = None
        if exp is None or not exp.scale:
            self.setTitle("")
            return
        k_max = max(3 * exp.half_width, 3)
        k = np.arange(-k_max, k_max + 1)
        pmf = noise_pmf(exp.scale, k)
        inside = np.abs(k) <= exp.half_width
        self.addItem(pg.PlotCurveItem(k, pmf, pen=pg.mkPen("#4a7fc1", width=2)))
        fill_top = pg.PlotCurveItem(k[inside], pmf[inside], pen=None)
        fill_bottom = pg.PlotCurveItem(k[inside], np.zeros(int(inside.sum())), pen=None)
        self.addItem(fill_top)
        self.addItem(fill_bottom)
        self.addItem(pg.FillBetweenItem(fill_top, fill_bottom, brush=pg.mkBrush(74, 127, 193, 70)))
        title = f"noise: scale {figure_text(exp.scale)}, 95 % in [-{exp.half_width:,}, {exp.half_width:,}]"
        if exp.noise is not None:
            self.marked = float(exp.noise[0])
            self.addItem(pg.InfiniteLine(self.marked, angle=90, pen=pg.mkPen("#d62728", width=2)))
            title += f"; TEACHING: realised {exp.noise[0]:+d}" + (" (first class)" if len(exp.noise) > 1 else "")
        self.setTitle(title, size="8pt")
        self.setXRange(-k_max, k_max, padding=0.02)
