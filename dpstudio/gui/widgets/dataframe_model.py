"""A read-only QAbstractTableModel over a pandas DataFrame: the data preview, fast on millions of rows.

Nothing is copied into Qt items: ``data()`` reads one cell from per-column numpy arrays when the view
asks for it, so creating the model costs one ``to_numpy`` per column and scrolling costs only the visible
cells. Missing values show as a grey dash.
"""

from __future__ import annotations

import math

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


class DataFrameModel(QtCore.QAbstractTableModel):
    """Columns of ``frame`` as numpy arrays; ``data`` formats one cell on demand."""

    def __init__(self, frame=None, parent=None):
        super().__init__(parent)
        self._columns: list[str] = []
        self._arrays: list[np.ndarray] = []
        self._missing: list[np.ndarray | None] = []
        self._rows = 0
        self._grey = QtGui.QBrush(QtGui.QColor("#9e9e9e"))
        if frame is not None:
            self.set_frame(frame)

    def set_frame(self, frame) -> None:
        self.beginResetModel()
        if frame is None:
            self._columns, self._arrays, self._missing, self._rows = [], [], [], 0
        else:
            self._columns = [str(c) for c in frame.columns]
            self._arrays = []
            self._missing = []
            for c in frame.columns:
                col = frame[c]
                arr = col.to_numpy()
                self._arrays.append(arr)
                na = col.isna().to_numpy()
                self._missing.append(na if na.any() else None)
            self._rows = len(frame)
        self.endResetModel()

    # -- Qt model interface -----------------------------------------------------------------------------
    def rowCount(self, parent=QtCore.QModelIndex()) -> int:
        return 0 if parent.isValid() else self._rows

    def columnCount(self, parent=QtCore.QModelIndex()) -> int:
        return 0 if parent.isValid() else len(self._columns)

    def data(self, index, role=Qt.DisplayRole):
        if not index.isValid():
            return None
        r, c = index.row(), index.column()
        if role == Qt.DisplayRole or role == Qt.ToolTipRole:
            miss = self._missing[c]
            if miss is not None and miss[r]:
                return "missing" if role == Qt.ToolTipRole else "\u2014"
            return _format(self._arrays[c][r])
        if role == Qt.ForegroundRole:
            miss = self._missing[c]
            if miss is not None and miss[r]:
                return self._grey
        return None

    def headerData(self, section, orientation, role=Qt.DisplayRole):
        if role != Qt.DisplayRole:
            return None
        if orientation == Qt.Horizontal:
            return self._columns[section] if 0 <= section < len(self._columns) else None
        return str(section + 1)

    def flags(self, index):
        return Qt.ItemIsEnabled | Qt.ItemIsSelectable
