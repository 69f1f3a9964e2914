"""The budget ledger as a table that fills up while a run spends, with a spent / total gauge.

Each row is one ``Spend`` (step, mechanism, epsilon, sensitivity, noise scale, note). A spend in a
parallel group (disjoint records: the group costs its largest spend once) says so in its step cell, "in
parallel: <group>"; the separate "parallel group" column stays hidden (beside the tree at 1280 x 800 six
columns left the step 31 px). The
gauge reads "spent x of y". Fed either a ``Ledger`` or the ``BudgetSpent`` events replayed so far.
"""

from __future__ import annotations

from PySide6 import QtCore, QtWidgets

from dpstudio.model.numbers import figure_text

COLUMNS = ("step", "mechanism", "epsilon", "sensitivity", "scale", "parallel group", "note")
# header titles may take two lines: the step column gets the room a long one-line title would take
TITLES = {"parallel group": "parallel\ngroup"}
NUMERIC = ("epsilon", "sensitivity", "scale")
#: text columns beside the step (mechanism, group) wrap at spaces and are never wider than this (px)
TEXT_COLUMN_MAX = 80


def _g(x) -> str:
    return "" if x is None else figure_text(x)


class LedgerView(QtWidgets.QWidget):
    def __init__(self, parent=None):
        super().__init__(parent)
        lay = QtWidgets.QVBoxLayout(self)
        lay.setContentsMargins(0, 0, 0, 0)
        self.gauge = QtWidgets.QProgressBar()
        self.gauge.setRange(0, 1000)
        self.gauge.setTextVisible(True)
        self.table = QtWidgets.QTableWidget(0, len(COLUMNS))
        self.table.setHorizontalHeaderLabels([TITLES.get(c, c) for c in COLUMNS])
        self.table.setAccessibleName("Budget ledger")
        self.table.verticalHeader().setVisible(False)
        self.table.setEditTriggers(QtWidgets.QAbstractItemView.NoEditTriggers)
        self.table.setAlternatingRowColors(True)
        self._fit_columns()
        lay.addWidget(self.gauge)
        lay.addWidget(self.table)
        self.entries: list = []
        self.total = 0.0
        self.spent = 0.0
        self.set_entries([], 0.0, 1.0)

    def _fit_columns(self, first_row: int = 0) -> None:
        """Every column visible beside the tree (seen: "scale" cut to "sca" at the edge, and the step cut to
        "coun..." at 1280 x 800): the step takes the room left; the others are as wide as their title's
        longest line or their longest value (the mechanism: its longest word, it wraps); the note is each
        row's tooltip (and every cell's full text is its tooltip). Text columns are at most
        ``TEXT_COLUMN_MAX`` wide (a long mechanism name wraps, its full text is the tooltip). Rows before
        ``first_row`` were measured already (a run's ledger grows by appended rows)."""
        header = self.table.horizontalHeader()
        fm = header.fontMetrics()
        cell_fm = self.table.fontMetrics()
        if first_row == 0:
            header.setStretchLastSection(False)
            self._widest = {}
        for c, name in enumerate(COLUMNS):
            if name == "step":
                header.setSectionResizeMode(c, QtWidgets.QHeaderView.Stretch)
            elif name in ("note", "parallel group"):
                self.table.setColumnHidden(c, True)
            else:
                header.setSectionResizeMode(c, QtWidgets.QHeaderView.Interactive)
                widest = self._widest.get(c)
                if widest is None:
                    widest = max(fm.horizontalAdvance(line) for line in TITLES.get(name, name).split("\n"))
                for r in range(first_row, self.table.rowCount()):
                    item = self.table.item(r, c)
                    text = item.text() if item is not None else ""
                    parts = [text] if name in NUMERIC else text.split()
                    widest = max([widest] + [cell_fm.horizontalAdvance(p) for p in parts])
                if name not in NUMERIC:
                    widest = min(widest, TEXT_COLUMN_MAX)
                if widest != self._widest.get(c):
                    header.resizeSection(c, widest + 14)
                self._widest[c] = widest

    def set_ledger(self, ledger) -> None:
        if ledger is None:
            self.set_entries([], 0.0, self.total or 1.0)
            return
        self.set_entries(list(ledger.entries), float(ledger.spent), float(ledger.total))

    def set_spends(self, spends, total: float, charged: bool = False) -> None:
        """``spends``: the ``BudgetSpent`` events so far (replay state). ``charged``: a release run, whose
        whole epsilon was charged to the dataset's lifetime budget before it started (the gauge says so, so
        that its steps' "spent" is not read as nothing spent)."""
        spent = float(spends[-1].spent_total) if spends else 0.0
        self.set_entries([s.spend for s in spends], spent, total, charged)

    def set_entries(self, entries, spent: float, total: float, charged: bool = False) -> None:
        same_prefix = len(entries) >= len(self.entries) and entries[: len(self.entries)] == self.entries
        if not same_prefix:
            self.table.setRowCount(0)
            start = 0
        else:
            start = len(self.entries)
        self.table.setRowCount(len(entries))
        for r in range(start, len(entries)):
            e = entries[r]
            step = f"{e.step} (in parallel: {e.group})" if e.group else e.step
            vals = (step, e.mechanism, _g(e.epsilon), _g(e.sensitivity), _g(e.scale), e.group or "", e.note)
            for c, v in enumerate(vals):
                item = QtWidgets.QTableWidgetItem(str(v))
                item.setToolTip(f"{v}\n{e.note}" if e.note and c != 6 else str(v))
                if c in (2, 3, 4):
                    item.setTextAlignment(QtCore.Qt.AlignRight | QtCore.Qt.AlignVCenter)
                self.table.setItem(r, c, item)
        if len(entries) != len(self.entries) or not same_prefix:
            self._fit_columns(start)
        if len(entries) > len(self.entries):
            self.table.scrollToBottom()
        self.entries = list(entries)
        self.spent, self.total = float(spent), float(total)
        frac = 0.0 if total <= 0 else min(1.0, spent / total)
        # QProgressBar.setValue repaints at once (1.7 ms of the side panel's pass while a run is followed):
        # with updates off it only changes the value; turned back on, the gauge is painted with the rest
        self.gauge.setUpdatesEnabled(False)
        try:
            self.gauge.setValue(int(round(frac * 1000)))
        finally:
            self.gauge.setUpdatesEnabled(True)
        if charged:
            self.gauge.setFormat(
                f"all of epsilon {figure_text(total)} charged before the run; its steps so far: {figure_text(spent)}"
            )
        else:
            self.gauge.setFormat(f"this run spent {figure_text(spent)} of its epsilon {figure_text(total)}")
