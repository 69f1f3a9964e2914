"""A read-only QAbstractTableModel over a pandas DataFrame: the data preview, fast on millions of rows.

Nothing is copied into Qt items and nothing is converted up front: ``data()`` reads a cell when the view
asks for it, from a cached numpy block of rows around it, so creating the model costs almost nothing and
scrolling costs only the blocks that come into view. Missing values show as a grey dash.
"""

from __future__ import annotations

import math
from collections import OrderedDict

import numpy as np
from PySide6 import QtCore, QtGui

Qt = QtCore.Qt


def _format(value) -> str:
    if value is None:
        return ""
    if isinstance(value, (float, np.floating)):
        if math.isnan(value):
            return ""
        return str(int(value)) if float(value).is_integer() and abs(value) < 1e15 else f"{value:.6g}"
    return str(value)


_NO_PARENT = QtCore.QModelIndex()  # the root; Qt passes a real index when it has one


class DataFrameModel(QtCore.QAbstractTableModel):
    """Cells of ``frame`` read on demand, through a small cache of row blocks per column.

    Creating the model keeps references to the columns only (no conversion of a million rows); the first
    time the view shows a block of ``BLOCK`` rows of a column, that slice is converted to numpy together
    with its missing-value mask and kept in an LRU cache of ``MAX_BLOCKS`` blocks.
    """

    BLOCK = 256
    MAX_BLOCKS = 2048

    def __init__(self, frame=None, parent=None):
        super().__init__(parent)
        self._columns: list[str] = []
        self._series: list = []
        self._blocks: OrderedDict = OrderedDict()
        self._rows = 0
        self._grey = QtGui.QBrush(QtGui.QColor("#9e9e9e"))
        if frame is not None:
            self.set_frame(frame)

    def set_frame(self, frame) -> None:
        self.beginResetModel()
        self._blocks.clear()
        if frame is None:
            self._columns, self._series, self._rows = [], [], 0
        else:
            self._columns = [str(c) for c in frame.columns]
            self._series = [frame.iloc[:, i] for i in range(frame.shape[1])]
            self._rows = len(frame)
        self.endResetModel()

    def _cell(self, r: int, c: int):
        """(value, missing) of one cell."""
        b, off = divmod(r, self.BLOCK)
        key = (c, b)
        blk = self._blocks.get(key)
        if blk is None:
            part = self._series[c].iloc[b * self.BLOCK : (b + 1) * self.BLOCK]
            blk = (part.to_numpy(), part.isna().to_numpy())
            self._blocks[key] = blk
            if len(self._blocks) > self.MAX_BLOCKS:
                self._blocks.popitem(last=False)
        else:
            self._blocks.move_to_end(key)
        return blk[0][off], bool(blk[1][off])

    # -- Qt model interface -----------------------------------------------------------------------------
    def rowCount(self, parent=_NO_PARENT) -> int:
        return 0 if parent.isValid() else self._rows

    def columnCount(self, parent=_NO_PARENT) -> int:
        return 0 if parent.isValid() else len(self._columns)

    def data(self, index, role=Qt.DisplayRole):
        if not index.isValid():
            return None
        if role == Qt.DisplayRole or role == Qt.ToolTipRole:
            value, missing = self._cell(index.row(), index.column())
            if missing:
                return "missing" if role == Qt.ToolTipRole else "\u2014"
            return _format(value)
        if role == Qt.ForegroundRole:
            if self._cell(index.row(), index.column())[1]:
                return self._grey
        return None

    def headerData(self, section, orientation, role=Qt.DisplayRole):
        if role == Qt.ToolTipRole and orientation == Qt.Horizontal:  # a long name is cut in its column
            return self._columns[section] if 0 <= section < len(self._columns) else None
        if role != Qt.DisplayRole:
            return None
        if orientation == Qt.Horizontal:
            return self._columns[section] if 0 <= section < len(self._columns) else None
        return str(section + 1)

    def flags(self, index):
        return Qt.ItemIsEnabled | Qt.ItemIsSelectable
