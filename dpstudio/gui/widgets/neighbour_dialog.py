"""The neighbour view (teaching mode only): a node's noisy count on D and on D minus one record.

Pick a record by its row in the data (or jump to the next record inside the node's partition); the plot
shows the two output distributions of the node's noisy count of that record's class, and the band
pmf_D x e^(+-1/scale) that every output of the neighbour stays inside. The computation is
``dpstudio.model.watch.neighbour_view``.
"""

from __future__ import annotations

import html

import numpy as np
import pyqtgraph as pg
from PySide6 import QtCore, QtWidgets

from dpstudio.model.watch.neighbour_view import (
    NeighbourError,
    _ratio_text,
    neighbour_count,
    node_values,
    record_in_values,
)


class NeighbourDialog(QtWidgets.QDialog):
    """Built for one node of a finished teaching run; ``set_record(row)`` recomputes."""

    def __init__(self, state, node_id: int, frame, result, taxonomies: dict, teaching: bool, parent=None):
        super().__init__(parent)
        self.setWindowTitle(f"Neighbour view: node {node_id} without one record")
        self.setAccessibleName("Neighbour view")
        self.state, self.node_id, self.result, self.taxonomies = state, node_id, result, taxonomies
        self.teaching = teaching
        cols = [c for c in (*result.attributes, result.class_name) if c is not None and c in frame.columns]
        self.frame = frame[cols].dropna()
        # the data's row numbers, 1-based as the Data panel's preview shows them (rows with a missing value in
        # a used attribute are not in the run, so not here)
        self._numbers = np.asarray([frame.index.get_loc(i) for i in self.frame.index], dtype=np.int64) + 1
        self.view = None
        self.last_error = ""

        lay = QtWidgets.QVBoxLayout(self)
        row = QtWidgets.QHBoxLayout()
        row.addWidget(QtWidgets.QLabel("remove record (row of the data):"))
        self.record_spin = QtWidgets.QSpinBox()
        self.record_spin.setRange(1, int(self._numbers[-1]) if self._numbers.size else 1)
        self.record_spin.setAccessibleName("Record to remove (row number)")
        row.addWidget(self.record_spin)
        self.next_button = QtWidgets.QPushButton("Next record in this partition")
        self.next_button.setAccessibleName("Next record in this partition")
        row.addWidget(self.next_button)
        row.addStretch(1)
        lay.addLayout(row)
        self.record_label = QtWidgets.QLabel()
        self.record_label.setTextFormat(QtCore.Qt.PlainText)
        self.record_label.setWordWrap(True)
        lay.addWidget(self.record_label)
        self.plot = pg.PlotWidget(background="w")
        self.plot.setMenuEnabled(False)
        self.plot.setLabel("bottom", "noisy count released")
        self.plot.setLabel("left", "probability")
        self.plot.addLegend(offset=(10, 10))
        self.plot.setMinimumHeight(260)
        lay.addWidget(self.plot, 1)
        self.words = QtWidgets.QLabel()
        self.words.setTextFormat(QtCore.Qt.PlainText)  # class values like "<=50K" are not markup
        self.words.setWordWrap(True)
        lay.addWidget(self.words)
        close = QtWidgets.QDialogButtonBox(QtWidgets.QDialogButtonBox.Close)
        close.rejected.connect(self.reject)
        lay.addWidget(close)
        self.resize(760, 520)

        self.record_spin.valueChanged.connect(self._on_spin)
        self.next_button.clicked.connect(self.next_in_partition)
        first = self.next_record_in_partition(-1)
        self.set_record(first if first is not None else 0)

    def row_number(self, position: int) -> int:
        """The data's row number (1-based, as in the Data panel) of the ``position``-th record of the run."""
        return int(self._numbers[int(position)])

    def position(self) -> int:
        """The record shown, as its position among the run's records."""
        return self._position

    def _on_spin(self, number: int) -> None:
        pos = int(np.searchsorted(self._numbers, number))
        if pos >= self._numbers.size:
            pos = self._numbers.size - 1
        if pos != self._position:
            self.set_record(pos)  # a row left out of the run (a missing value) moves on to the next one
        elif self.row_number(pos) != number:
            self._sync_spin()

    def _sync_spin(self) -> None:
        self.record_spin.blockSignals(True)
        self.record_spin.setValue(self.row_number(self._position))
        self.record_spin.blockSignals(False)

    def _record(self, row: int) -> dict:
        return self.frame.iloc[int(row)].to_dict()

    def next_record_in_partition(self, after: int) -> int | None:
        """The first row after ``after`` whose record lies in the node's partition (None: none)."""
        nd = self.state.nodes.get(self.node_id)
        values = node_values(nd) if nd is not None else ()
        for row, rec in enumerate(self.frame.iloc[after + 1 :].to_dict("records"), start=after + 1):
            if record_in_values(values, self.result.attributes, rec, self.taxonomies):
                return row
        return None

    def next_in_partition(self) -> None:
        nxt = self.next_record_in_partition(self._position)
        if nxt is None:
            nxt = self.next_record_in_partition(-1)
        if nxt is not None:
            self.set_record(nxt)

    def set_record(self, row: int) -> None:
        """Show the neighbour without the ``row``-th record of the run (its position among them)."""
        self._position = int(row)
        self._sync_spin()
        rec = self._record(row)
        cls = rec.get(self.result.class_name) if self.result.class_name else self.result.classes[0]
        try:
            self.view = neighbour_count(
                self.state,
                self.node_id,
                self.row_number(row),
                rec,
                cls,
                self.result.classes,
                self.result.attributes,
                self.taxonomies,
                self.teaching,
            )
        except NeighbourError as exc:
            self.last_error = str(exc)
            self.words.setText(str(exc))
            self.plot.clear()
            return
        self.last_error = ""
        shown = ", ".join(f"{k}={v}" for k, v in list(rec.items())[:6])
        self.record_label.setText(
            f"row {self.row_number(row):,} of the data: {shown}, ... "
            + ("(in this partition)" if self.view.in_node else "(not in this partition)")
        )
        self._draw()
        self.words.setText(self.view.words())

    def _draw(self) -> None:
        v = self.view
        self.plot.clear()
        x = v.support.astype(float)
        lo = pg.PlotDataItem(x, v.pmf_d / v.bound)
        hi = pg.PlotDataItem(x, v.pmf_d * v.bound)
        band = pg.FillBetweenItem(lo, hi, brush=pg.mkBrush(74, 127, 193, 50))
        self.plot.addItem(band)
        self.plot.plot(
            x,
            v.pmf_d * v.bound,
            pen=pg.mkPen("#4a7fc1", width=1, style=QtCore.Qt.DotLine),
            name=f"e^(+-{1 / v.scale:.3g}) band around D",
        )
        self.plot.plot(x, v.pmf_d, pen=pg.mkPen("#4a7fc1", width=2), name=f"D: true count {v.true_d}")
        self.plot.plot(
            x,
            v.pmf_d1,
            pen=pg.mkPen("#f0a020", width=2, style=QtCore.Qt.DashLine),
            name=f"D without record {v.record}: {v.true_d1}",
        )
        title = (
            f"class {v.class_value}: ratio at most {_ratio_text(v.max_ratio)} <= e^{1 / v.scale:.3g} = "
            f"{_ratio_text(v.bound)}"
        )
        self.plot.setTitle(html.escape(title))  # the title is markup: "<=" would start a tag

    def curves(self) -> tuple[np.ndarray, np.ndarray]:
        """The two plotted distributions (D, D minus the record)."""
        return self.view.pmf_d, self.view.pmf_d1
