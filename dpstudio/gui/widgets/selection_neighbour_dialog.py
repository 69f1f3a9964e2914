"""The neighbour view of a selection step (teaching mode only): each candidate's probability on D and on D
minus one record, with the e^eps band that bounds their ratio. The computation is
``dpstudio.model.watch.neighbour_selection`` (the engine runs again on D minus the record with the run's earlier
outcomes, so the step's scores are exact)."""

from __future__ import annotations

import numpy as np
import pyqtgraph as pg
from PySide6 import QtCore, QtWidgets

from dpstudio.model.watch.neighbour_selection import NeighbourSplit, SelectionNeighbourError, neighbour_view_of_step

#: candidates drawn (the most likely on D)
SHOWN = 12


class SelectionNeighbourDialog(QtWidgets.QDialog):
    """Built for one selection of a finished teaching run; ``set_record(row)`` recomputes (0-based row)."""

    def __init__(self, project, events, selection: int, parent=None):
        super().__init__(parent)
        self.setWindowTitle(f"Neighbour view: selection {selection} without one record")
        self.setAccessibleName("Neighbour view of a selection")
        self.project, self.events, self.selection = project, events, selection
        self.view = None
        self.last_error = ""
        lay = QtWidgets.QVBoxLayout(self)
        row = QtWidgets.QHBoxLayout()
        row.addWidget(QtWidgets.QLabel("remove record (row of the data):"))
        self.record_spin = QtWidgets.QSpinBox()
        self.record_spin.setRange(1, max(len(project.frame), 1))
        self.record_spin.setAccessibleName("Record to remove (row number)")
        row.addWidget(self.record_spin)
        self.show_button = QtWidgets.QPushButton("Show")
        self.show_button.setAccessibleName("Show the step without this record")
        row.addWidget(self.show_button)
        row.addStretch(1)
        lay.addLayout(row)
        self.plot = pg.PlotWidget(background="w")
        self.plot.setMenuEnabled(False)
        self.plot.setMouseEnabled(False, False)
        self.plot.setLabel("bottom", "probability of being chosen")
        self.plot.addLegend(offset=(-10, -40))  # bottom right: the least likely candidates' short bars
        self.plot.setMinimumHeight(300)
        lay.addWidget(self.plot, 1)
        self.words = QtWidgets.QLabel()
        self.words.setTextFormat(QtCore.Qt.PlainText)
        self.words.setWordWrap(True)
        lay.addWidget(self.words)
        close = QtWidgets.QDialogButtonBox(QtWidgets.QDialogButtonBox.Close)
        close.rejected.connect(self.reject)
        lay.addWidget(close)
        self.show_button.clicked.connect(lambda: self.set_record(self.record_spin.value() - 1))
        self.resize(760, 520)
        self.set_record(0)

    def set_record(self, row: int) -> None:
        if self.record_spin.value() != row + 1:
            self.record_spin.setValue(row + 1)
        try:
            self.view = neighbour_view_of_step(self.project, self.events, self.selection, row)
        except SelectionNeighbourError as exc:
            self.view, self.last_error = None, str(exc)
            self.words.setText(f"not shown: {exc}")
            self.plot.clear()
            return
        self.last_error = ""
        self._draw()

    def _draw(self) -> None:
        v = self.view
        if isinstance(v, NeighbourSplit):
            self._draw_split(v)
            return
        self.plot.setLabel("bottom", "probability of being chosen")
        self.plot.setLabel("left", "")
        self.plot.getAxis("left").setWidth(200)  # the candidates' names
        order = np.argsort(-v.probs_d, kind="stable")[:SHOWN]
        y = np.arange(order.size)[::-1].astype(float)
        self.plot.clear()
        lo, hi = v.probs_d[order] / v.bound, v.probs_d[order] * v.bound
        band = pg.BarGraphItem(
            x0=lo,
            width=hi - lo,
            y=y,
            height=0.8,
            brush=(240, 160, 32, 70),
            pen=None,
            name="D x e^(+-eps): where D minus the record must fall",
        )
        self.plot.addItem(band)
        self.plot.addItem(
            pg.BarGraphItem(
                x0=np.zeros(order.size), width=v.probs_d[order], y=y + 0.18, height=0.34, brush="#4a7fc1", name="on D"
            )
        )
        self.plot.addItem(
            pg.BarGraphItem(
                x0=np.zeros(order.size),
                width=v.probs_d1[order],
                y=y - 0.18,
                height=0.34,
                brush="#d02020",
                name="on D minus the record",
            )
        )
        self.plot.getAxis("left").setTicks([[(float(yy), _short(v.labels[i])) for yy, i in zip(y, order)]])
        self.words.setText(
            f"step {v.step}, {v.mechanism}: the {order.size} most likely of {len(v.labels)} candidates. "
            + v.caption()
            + ". The orange band around each blue bar is where the red bar must fall."
        )

    def _draw_split(self, v: NeighbourSplit) -> None:
        """Each lattice point's chance on D and on D minus the record, as step lines along the interval."""
        self.plot.clear()
        self.plot.getAxis("left").setTicks(None)
        self.plot.getAxis("left").setWidth(None)
        self.plot.setLabel("bottom", "split point")
        self.plot.setLabel("left", "chance of each point")
        lo = pg.PlotDataItem(v.edges, v.point_d / v.bound, stepMode="center")
        hi = pg.PlotDataItem(v.edges, v.point_d * v.bound, stepMode="center")
        self.plot.addItem(pg.FillBetweenItem(lo, hi, brush=pg.mkBrush(240, 160, 32, 70)))
        self.plot.plot(v.edges, v.point_d, stepMode="center", pen=pg.mkPen("#4a7fc1", width=2), name="on D")
        self.plot.plot(
            v.edges,
            v.point_d1,
            stepMode="center",
            pen=pg.mkPen("#d02020", width=2, style=QtCore.Qt.DashLine),
            name="on D minus the record",
        )
        self.words.setText(
            f"step {v.step}, a split point: " + v.caption() + ". The orange band (D x e^(+-eps)) "
            "is where the red line must stay; points between the same two data values share a "
            "chance, so both lines are steps."
        )

    def bars(self) -> tuple[np.ndarray, np.ndarray]:
        """(probabilities on D, on D minus the record) of the candidates drawn."""
        order = np.argsort(-self.view.probs_d, kind="stable")[:SHOWN]
        return self.view.probs_d[order], self.view.probs_d1[order]


def _short(label: str) -> str:
    return label if len(label) <= 28 else label[:26] + ".."


__all__ = ["SelectionNeighbourDialog"]
