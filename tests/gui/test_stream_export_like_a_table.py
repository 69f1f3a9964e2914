"""Issue 32 item 1: a stream release is exported as a table release is: the question first (No writes
nothing), a file name beside the data, the bucket dates of an event log in the CSV, and a re-run script that
repeats the public settings and charges the same budget store."""

from __future__ import annotations

import json
import subprocess

import numpy as np
import pandas as pd
import pytest
from PySide6 import QtWidgets

from dpstudio.cli import main
from dpstudio.io.budget_store import open_store
from dpstudio.io.event_stream import bucket_events, public_buckets
from dpstudio.model.project.project import RELEASE, Project
from dpstudio.model.stream.session import EVENTS, StreamSource
from tests.gui.test_run_epsilon import Answer
from tests.gui.test_stream_panel import run_and_wait


@pytest.fixture
def released(qtbot, tmp_path, monkeypatch):
    from dpstudio.gui.panels.stream import StreamPanel

    store = tmp_path / "store.sqlite"
    monkeypatch.setenv("DPSTUDIO_BUDGET_STORE", str(store))
    rng = np.random.default_rng(7)
    data = tmp_path / "data"
    data.mkdir()
    log = data / "visits.csv"
    seconds = 1704067200 + rng.integers(0, 70 * 86400, 2000)
    pd.DataFrame({"who": rng.integers(0, 120, 2000), "at": seconds}).to_csv(log, index=False)
    panel = StreamPanel(Project())
    qtbot.addWidget(panel)
    panel.resize(1200, 700)
    panel.show()
    source = StreamSource(
        EVENTS, log, start="2024-01-01", end="2024-03-11", time_column="at", user="who", time_format="epoch-seconds"
    )
    assert panel.set_source(source)
    panel.project.set_mode(RELEASE)
    panel.window_box.setValue(4)
    panel.exec_dialog = Answer(button=QtWidgets.QMessageBox.Yes)
    run_and_wait(qtbot, panel)
    assert panel.result.is_release
    yield panel, log, store
    panel.shutdown()


def test_the_question_comes_first_and_no_writes_nothing(released, tmp_path):
    panel, log, _store = released
    assert panel.default_export_path() == log.parent / "visits_tpm.csv"
    out = tmp_path / "out.csv"
    panel.exec_dialog = Answer(button=QtWidgets.QMessageBox.No)
    assert panel.export_to(out, confirm=True) is None
    assert not list(tmp_path.glob("out*")) and "nothing was written" in panel.last_message
    answer = Answer(button=QtWidgets.QMessageBox.Yes)
    panel.exec_dialog = answer
    written = panel.export_to(out, confirm=True)
    assert [p.name for p in written] == ["out.csv", "out.json", "out.report.html", "out.command.sh", "out.reproduce.py"]
    ((asked, no_is_default),) = answer.boxes
    assert no_is_default and "This release spent epsilon = 1. Dataset \u201cvisits\u201d" in asked
    assert "one person added or removed" in asked and "Write the release files now?" in asked


def test_the_csv_has_the_bucket_dates_and_the_script_reruns_on_the_same_store(released, tmp_path):
    panel, log, store = released
    out = tmp_path / "weekly.csv"
    csv, side_path, _report, script, _python = panel.export_to(out)
    rows = pd.read_csv(csv)
    labels = public_buckets("2024-01-01", "2024-03-11", "week")
    assert list(rows.columns) == ["window", "t", "bucket", "value"]
    assert rows["bucket"].tolist() == [labels[t - 1] for t in rows["t"]]
    side = json.loads(side_path.read_text())
    assert side["source"]["time_format"] == "epoch-seconds"
    text = script.read_text()
    assert "--time-format epoch-seconds" in text and f"--budget-store {store.resolve()}" in text
    assert "--window 4" in text and "--mechanism tpm" in text and "--epsilon 1" in text
    assert main(["budget", "set-total", "visits", "2", "--budget-store", str(store)]) == 0
    done = subprocess.run(["sh", str(script)], capture_output=True, text=True, cwd=tmp_path, timeout=300)
    assert done.returncode == 0, done.stderr
    rerun = tmp_path / "weekly.rerun.csv"
    assert rerun.exists() and pd.read_csv(rerun)["bucket"].tolist() == rows["bucket"].tolist()
    assert float(open_store(str(store)).dataset("visits").spent) == 2  # the same dataset, the same store
    expected, _ = bucket_events(log, "who", "at", "week", "2024-01-01", "2024-03-11", 1, "epoch-seconds")
    assert int(json.loads(rerun.with_suffix(".json").read_text())["parameters"]["horizon"]) == expected.size


def test_the_report_names_the_charge_in_words_and_the_advice_reads_as_figures(released, tmp_path):
    import re

    from dpstudio.model.stream.recommend import recommend

    panel, _log, _store = released
    _csv, _side, report, _script, _python = panel.export_to(tmp_path / "r.csv")
    budget = re.search(r"<h2>Budget</h2>(.*?)</table>", report.read_text(), re.S).group(1)
    for raw in ("tracked", "dataset_total", "dataset_spent", "dataset_remaining", "charged<"):
        assert raw not in budget
    assert "the dataset&#x27;s lifetime budget" in budget and "remaining on the dataset" in budget
    for horizon, window in ((1163, 52), (10, 1), (60, 12)):
        reason = recommend(horizon, window, 1).reason
        assert "(1 times)" not in reason and "e+" not in reason, reason


def test_a_cancel_is_information_and_a_written_export_clears_it(qtbot, released, tmp_path):
    """From the walk: after No then Yes, a red 'export cancelled: nothing was written' stayed beside the files
    written; and the report's error and source rows were raw keys."""
    from dpstudio.gui.main_window import MainWindow

    panel, _log, _store = released
    win = MainWindow()
    qtbot.addWidget(win)
    panel.setParent(win)  # the panel's host: the window's message bar
    panel.exec_dialog = Answer(button=QtWidgets.QMessageBox.No)
    panel.export_to(tmp_path / "c.csv", confirm=True)
    assert win.message_bar.isVisibleTo(win) and not win.message_is_error
    assert "nothing was written" in win.message_label.text()
    panel.exec_dialog = Answer(button=QtWidgets.QMessageBox.Yes)
    written = panel.export_to(tmp_path / "c.csv", confirm=True)
    assert written and not win.message_bar.isVisibleTo(win) and win.message_label.text() == ""
    report = written[2].read_text()
    for raw in ("estimated_window_error<", "laplace_term_only", "user_column", "per_bucket_cap<", "time_format<"):
        assert raw not in report
    assert "time written as</th><td>epoch seconds" in report
