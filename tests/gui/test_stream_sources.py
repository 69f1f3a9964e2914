"""The Stream panel takes the streams data owners hold, by clicks: a weekly table with a column of counts
(it used to refuse "several columns but none named 'count'") and an event log bucketed over a public range
with one event per person per bucket; a release run on the event log charges the store and exports the
guarantee in people's terms; opening another stream clears the previous run."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest
from PySide6 import QtWidgets

from dpstudio.io.event_stream import bucket_events
from dpstudio.model.project.project import RELEASE, Project
from tests.gui.test_run_epsilon import Answer
from tests.gui.test_stream_panel import choose, run_and_wait


@pytest.fixture
def panel(qtbot, tmp_path, monkeypatch):
    from dpstudio.gui.panels.stream import StreamPanel

    monkeypatch.setenv("DPSTUDIO_BUDGET_STORE", str(tmp_path / "budget.sqlite"))
    p = StreamPanel(Project())
    qtbot.addWidget(p)
    p.resize(1200, 700)
    p.show()
    yield p
    p.shutdown()


def _open(panel, monkeypatch, path, fill):
    """Open ``path`` through the panel's button; ``fill(dialog)`` makes the choices and presses OK."""
    monkeypatch.setattr(QtWidgets.QFileDialog, "getOpenFileName", lambda *a, **k: (str(path), ""))

    def exec_dialog(dialog):
        fill(dialog)
        dialog.accept()

    panel.exec_dialog = exec_dialog
    panel.open_button.click()


def test_a_weekly_table_with_a_column_of_counts(panel, monkeypatch, tmp_path):
    path = tmp_path / "weekly.csv"
    pd.DataFrame({"week": range(1, 41), "visits": np.arange(40) * 3 + 5}).to_csv(path, index=False)

    def fill(d):
        d.table_radio.setChecked(True)
        d.column_combo.setCurrentText("visits")
        d.time_combo.setCurrentText("week")

    _open(panel, monkeypatch, path, fill)
    assert panel.counts is not None and panel.counts.tolist() == (np.arange(40) * 3 + 5).tolist()
    assert "column visits" in panel.source_label.text()


def test_an_event_log_released_by_clicks(qtbot, panel, monkeypatch, tmp_path):
    rng = np.random.default_rng(2)
    when = pd.Timestamp("2024-01-01") + pd.to_timedelta(rng.integers(0, 70 * 24 * 60, 3000), unit="min")
    path = tmp_path / "visits.csv"
    pd.DataFrame({"person": rng.integers(0, 200, 3000), "when": when}).to_csv(path, index=False)

    def fill(d):
        d.events_radio.setChecked(True)
        d.user_combo.setCurrentText("person")
        d.time_combo.setCurrentText("when")
        d.bucket_combo.setCurrentText("week")
        d.start_edit.setText("2024-01-01")
        d.end_edit.setText("2024-03-11")

    _open(panel, monkeypatch, path, fill)
    expected, _ = bucket_events(path, "person", "when", "week", "2024-01-01", "2024-03-11")
    assert panel.counts.tolist() == expected.tolist() and panel.counts.size == 10
    assert "In people's terms: one person, present in any number of weeks" in panel.guarantee_label.text()
    panel.project.set_mode(RELEASE)
    panel.window_box.setValue(4)
    panel.exec_dialog = Answer(button=QtWidgets.QMessageBox.Yes)  # the release question
    run_and_wait(qtbot, panel)
    assert panel.result.is_release
    _csv, json_path, report_path, _script, _python = panel.export_to(tmp_path / "weekly_release.csv")
    side = json.loads(json_path.read_text())
    assert side["source"]["source"] == "event log" and side["source"]["per_bucket_cap"] == 1
    assert "at most 1 event a week" in side["source"]["guarantee_in_people"]
    assert side["dataset_budget"]["tracked"] is True
    assert side["recommendation"]["mechanism"] == "tpm" and "public inputs" in side["recommendation"]["from"]
    assert panel.export_note.text().startswith(
        "wrote weekly_release.csv, weekly_release.json, weekly_release.report.html"
    )
    report = report_path.read_text()
    assert (
        "In people's terms" in report and "Recommended from public inputs" in report and "NOT A RELEASE" not in report
    )
    choose(panel.mechanism_combo, "binary")  # the run shown keeps its guarantee; the next run's is named too
    assert "(the run shown, tpm); binary, chosen for the next run: event-level" in panel.guarantee_label.text()
    # another stream: the previous run's plot, ledger and export go
    other = tmp_path / "counts.txt"
    other.write_text("\n".join(str(v) for v in range(30, 60)) + "\n")
    monkeypatch.setattr(QtWidgets.QFileDialog, "getOpenFileName", lambda *a, **k: (str(other), ""))
    panel.open_button.click()
    assert panel.result is None and panel.playback is None and panel.ledger_list.count() == 0
    assert not panel.export_button.isEnabled() and panel.plot.shown == {}
    assert panel.ledger_title.text() == "Ledger"


def test_the_dialog_guesses_nothing_it_could_get_wrong(qtbot, tmp_path):
    """A file without a 'count' column: no kind and no column is preselected, and OK waits for the choices."""
    from dpstudio.gui.widgets.stream_source_dialog import StreamSourceDialog

    d = StreamSourceDialog(tmp_path / "visits.csv", ["person", "when", "page"])
    qtbot.addWidget(d)
    assert not d.ok_button.isEnabled()
    d.table_radio.setChecked(True)
    assert not d.ok_button.isEnabled() and d.column_combo.currentIndex() == -1
    d.events_radio.setChecked(True)
    d.user_combo.setCurrentText("person")
    d.time_combo.setCurrentText("when")
    d.start_edit.setText("2024-01-01")
    assert not d.ok_button.isEnabled()
    d.end_edit.setText("2024-03-01")
    assert d.ok_button.isEnabled()


def test_in_the_window_an_event_log_loads_in_the_worker_with_its_cap(qtbot, window, monkeypatch, tmp_path):
    """Through the window: the log is counted in the worker (progress and Cancel), with the K typed in the
    dialog; the guarantee, the chart and the run all use K."""
    rng = np.random.default_rng(5)
    when = pd.Timestamp("2024-01-01") + pd.to_timedelta(rng.integers(0, 70 * 24 * 60, 4000), unit="min")
    path = tmp_path / "visits.csv"
    pd.DataFrame({"person": rng.integers(0, 100, 4000), "when": when}).to_csv(path, index=False)
    panel = window.show_panel("Stream")

    def fill(d):
        d.events_radio.setChecked(True)
        d.user_combo.setCurrentText("person")
        d.time_combo.setCurrentText("when")
        d.start_edit.setText("2024-01-01")
        d.end_edit.setText("2024-03-11")
        d.cap_box.setValue(2)

    _open(panel, monkeypatch, path, fill)
    qtbot.waitUntil(lambda: panel.source.path == path and not window.runner.busy, timeout=60000)
    expected, _ = bucket_events(path, "person", "when", "week", "2024-01-01", "2024-03-11", cap=2)
    assert panel.counts.tolist() == expected.tolist() and panel.cap() == 2
    assert "at most 2 events a week" in panel.guarantee_label.text()
    assert "contributes at most 2" in panel.guarantee_label.text()
    assert "K = 2" in panel.recommend_label.text()
    assert panel.params().cap == 2


def test_an_epoch_second_log_released_by_clicks_with_binary_said_per_bucket(qtbot, panel, monkeypatch, tmp_path):
    """Issue 34 item 3 in the studio: the dialog's 'time written as' reads epoch seconds (the counts those of
    the CLI's reader), a day-number format waits for its origin, a log read as dates says which format it looks
    like, and binary's guarantee in people's terms is per week."""
    from dpstudio.gui.widgets.stream_source_dialog import StreamSourceDialog

    rng = np.random.default_rng(4)
    seconds = 1704067200 + rng.integers(0, 70 * 86400, 3000)
    path = tmp_path / "logins.csv"
    pd.DataFrame({"user": rng.integers(0, 150, 3000), "ts": seconds}).to_csv(path, index=False)

    d = StreamSourceDialog(path, ["user", "ts"])
    qtbot.addWidget(d)
    d.events_radio.setChecked(True)
    d.user_combo.setCurrentText("user")
    d.time_combo.setCurrentText("ts")
    d.start_edit.setText("2024-01-01")
    d.end_edit.setText("2024-03-11")
    assert d.ok_button.isEnabled() and not d.origin_edit.isEnabled()
    d.format_combo.setCurrentIndex(d.format_combo.findData("day-number"))
    assert d.origin_edit.isEnabled() and not d.ok_button.isEnabled()  # a day number needs its origin
    d.origin_edit.setText("2024-01-01")
    assert d.ok_button.isEnabled() and d.source().origin == "2024-01-01"

    def fill(fmt):
        def f(dialog):
            dialog.events_radio.setChecked(True)
            dialog.user_combo.setCurrentText("user")
            dialog.time_combo.setCurrentText("ts")
            dialog.start_edit.setText("2024-01-01")
            dialog.end_edit.setText("2024-03-11")
            dialog.format_combo.setCurrentIndex(dialog.format_combo.findData(fmt))

        return f

    messages = []
    monkeypatch.setattr(panel, "_message", lambda text, *a, **k: messages.append(text), raising=False)
    before = panel.source
    _open(panel, monkeypatch, path, fill("iso"))
    assert panel.source is before  # refused: the stream shown stays
    assert messages and "set 'time written as' to epoch seconds" in messages[-1] and "--" not in messages[-1]
    _open(panel, monkeypatch, path, fill("epoch-seconds"))
    expected, _ = bucket_events(path, "user", "ts", "week", "2024-01-01", "2024-03-11", 1, "epoch-seconds")
    assert panel.counts.tolist() == expected.tolist() and expected.sum() > 0
    choose(panel.mechanism_combo, "binary")
    assert "holds per week, not per person over the horizon" in panel.guarantee_label.text()
    panel.project.set_mode(RELEASE)
    panel.window_box.setValue(4)
    panel.exec_dialog = Answer(button=QtWidgets.QMessageBox.Yes)
    run_and_wait(qtbot, panel)
    assert panel.result.is_release
    _csv, json_path, _report, _script, _python = panel.export_to(tmp_path / "logins_release.csv")
    side = json.loads(json_path.read_text())
    assert side["source"]["time_format"] == "epoch-seconds"
    assert "holds per week, not per person over the horizon" in side["source"]["guarantee_in_people"]
