"""The stream chart's legend sits in a row under the axis, never over the points (walk finding: it covered
the first timestamps' values), and fits the chart's width at the Stream panel's size at 1280x800."""

from __future__ import annotations

import numpy as np

from dpstudio.gui.widgets.stream_plot import StreamPlot


def test_the_legend_is_outside_the_plotted_area_and_inside_the_chart(qtbot):
    plot = StreamPlot()
    qtbot.addWidget(plot)
    plot.resize(521, 300)  # the chart's width in the Stream panel at 1280x800
    plot.show()
    t = np.arange(1, 60, dtype=float)
    plot.released_curve.setData(t, 50 + 20 * np.sin(t / 5))
    plot.truth_curve.setData(t, 53 + 20 * np.sin(t / 5))
    qtbot.waitExposed(plot)
    legend = plot.plotItem.legend.sceneBoundingRect()
    assert not legend.intersects(plot.getViewBox().sceneBoundingRect())
    assert legend.left() >= 0 and legend.right() <= plot.width() and legend.bottom() <= plot.height() + 1
