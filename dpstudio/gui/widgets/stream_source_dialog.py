"""What a chosen file holds, for the Stream panel: one count per line (or a 'count' column), a column of counts
with one row per timestamp, or an event log with one row per event (a person and a time), bucketed over a
public range with at most K events per person per bucket counted (``io.event_stream``; K is every mechanism's
sensitivity). Columns are picked
from the file's header; the range, how the time is written and a day or week number's origin are typed
(public: never read from the data)."""

from __future__ import annotations

import html
from pathlib import Path

from PySide6 import QtWidgets

from dpstudio.model.stream.session import COUNTS, EVENTS, TABLE, StreamSource

NONE = "(file order)"
#: (words, io.event_stream's time format), in the order offered
TIME_FORMAT_CHOICES = (
    ("dates or timestamps (2024-01-31, 2024-01-31 08:15)", "iso"),
    ("epoch seconds (1706688900)", "epoch-seconds"),
    ("epoch milliseconds (1706688900000)", "epoch-milliseconds"),
    ("day numbers from a date", "day-number"),
    ("week numbers from a date", "week-number"),
)
NUMBERED = ("day-number", "week-number")


class StreamSourceDialog(QtWidgets.QDialog):
    def __init__(self, path, names: list[str], parent=None):
        super().__init__(parent)
        self.path = Path(path)
        self.setWindowTitle(f"What does {self.path.name} hold?")
        lay = QtWidgets.QVBoxLayout(self)
        # the file named inside the dialog too: a title bar is not always shown (walk finding)
        self.heading = QtWidgets.QLabel(f"What does <b>{html.escape(self.path.name)}</b> hold?")
        self.heading.setWordWrap(True)
        lay.addWidget(self.heading)
        self.counts_radio = QtWidgets.QRadioButton("One count per timestamp: one per line, or a 'count' column")
        self.table_radio = QtWidgets.QRadioButton("A column of counts, one row per timestamp")
        self.events_radio = QtWidgets.QRadioButton("An event log: one row per event, with a person and a time")
        for r in (self.counts_radio, self.table_radio, self.events_radio):
            lay.addWidget(r)
        form = QtWidgets.QFormLayout()
        self.column_combo = QtWidgets.QComboBox()
        self.column_combo.addItems(names)
        self.time_combo = QtWidgets.QComboBox()
        self.time_combo.addItems([NONE, *names])
        self.user_combo = QtWidgets.QComboBox()
        self.user_combo.addItems(names)
        self.bucket_combo = QtWidgets.QComboBox()
        self.bucket_combo.addItems(["day", "week", "month"])
        self.bucket_combo.setCurrentText("week")
        self.start_edit = QtWidgets.QLineEdit()
        self.start_edit.setPlaceholderText("YYYY-MM-DD")
        self.end_edit = QtWidgets.QLineEdit()
        self.end_edit.setPlaceholderText("YYYY-MM-DD (excluded)")
        self.format_combo = QtWidgets.QComboBox()
        for text, fmt in TIME_FORMAT_CHOICES:
            self.format_combo.addItem(text, fmt)
        self.format_combo.setAccessibleName("How the time is written")
        self.origin_edit = QtWidgets.QLineEdit()
        self.origin_edit.setPlaceholderText("YYYY-MM-DD: the date number 0 stands for")
        self.origin_edit.setAccessibleName("The date that day or week number 0 stands for")
        self.cap_box = QtWidgets.QSpinBox()
        self.cap_box.setRange(1, 1000)
        self.cap_box.setValue(1)
        self.cap_box.setAccessibleName("Events counted per person per bucket")
        self.cap_box.setToolTip(
            "At most this many events of one person are counted in a bucket (more are dropped before counting). "
            "One person then changes each count by at most this much, and every mechanism's noise grows with it."
        )
        form.addRow("count column", self.column_combo)
        form.addRow("time column", self.time_combo)
        form.addRow("time written as", self.format_combo)
        form.addRow("number 0 is the date", self.origin_edit)
        form.addRow("person column", self.user_combo)
        form.addRow("bucket", self.bucket_combo)
        form.addRow("first bucket", self.start_edit)
        form.addRow("end of the range", self.end_edit)
        form.addRow("events per person per bucket, at most", self.cap_box)
        lay.addLayout(form)
        note = QtWidgets.QLabel(
            "An event log is counted per bucket from the first bucket to the end of the range (public: typed "
            "here, never read from the data; an empty bucket is a zero), with at most K events per person "
            "per bucket counted (K = 1 by default), so one person changes each count by at most K and the "
            "noise is calibrated for K."
        )
        note.setWordWrap(True)
        lay.addWidget(note)
        buttons = QtWidgets.QDialogButtonBox(QtWidgets.QDialogButtonBox.Ok | QtWidgets.QDialogButtonBox.Cancel)
        buttons.accepted.connect(self.accept)
        buttons.rejected.connect(self.reject)
        lay.addWidget(buttons)
        self.ok_button = buttons.button(QtWidgets.QDialogButtonBox.Ok)
        if "count" in names:  # the counts reader's own layout
            self.counts_radio.setChecked(True)
        else:  # nothing is guessed: a person column read as counts would be a wrong stream
            self.column_combo.setCurrentIndex(-1)
            self.user_combo.setCurrentIndex(-1)
        for r in (self.counts_radio, self.table_radio, self.events_radio):
            r.toggled.connect(self._update)
        for c in (self.column_combo, self.user_combo, self.time_combo):
            c.currentIndexChanged.connect(self._update)
        for e in (self.start_edit, self.end_edit, self.origin_edit):
            e.textChanged.connect(self._update)
        self.format_combo.currentIndexChanged.connect(self._update)
        self._update()

    def _update(self, *_) -> None:
        table, events = self.table_radio.isChecked(), self.events_radio.isChecked()
        self.column_combo.setEnabled(table)
        self.time_combo.setEnabled(table or events)
        for w in (self.user_combo, self.bucket_combo, self.start_edit, self.end_edit, self.cap_box, self.format_combo):
            w.setEnabled(events)
        numbered = self.format_combo.currentData() in NUMBERED
        self.origin_edit.setEnabled(events and numbered)
        ready = self.counts_radio.isChecked()  # OK only once every choice the kind needs is made
        if table:
            ready = self.column_combo.currentIndex() >= 0
        elif events:
            ready = (
                self.user_combo.currentIndex() >= 0
                and self.time_combo.currentText() not in ("", NONE)
                and bool(self.start_edit.text().strip())
                and bool(self.end_edit.text().strip())
                and (not numbered or bool(self.origin_edit.text().strip()))
            )
        self.ok_button.setEnabled(ready)

    def source(self) -> StreamSource:
        """The stream source the choices describe."""
        time = self.time_combo.currentText()
        time = None if time == NONE else time
        if self.events_radio.isChecked():
            return StreamSource(
                EVENTS,
                self.path,
                start=self.start_edit.text().strip(),
                time_column=time,
                user=self.user_combo.currentText(),
                bucket=self.bucket_combo.currentText(),
                end=self.end_edit.text().strip(),
                cap=self.cap_box.value(),
                time_format=self.format_combo.currentData(),
                origin=self.origin_edit.text().strip() if self.format_combo.currentData() in NUMBERED else None,
            )
        if self.table_radio.isChecked():
            return StreamSource(TABLE, self.path, column=self.column_combo.currentText(), time_column=time)
        return StreamSource(COUNTS, self.path)


__all__ = ["StreamSourceDialog"]
