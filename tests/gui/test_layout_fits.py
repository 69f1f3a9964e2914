"""Issue 24's layout test: every tab at 1280x800 and 1920x1080, in teaching and release mode, on the sample
after a run and on a new file with many readiness problems, with nothing cut or squashed
(``tests/gui/layout_check.py``) and the window never resizing itself. On the main of 2026-11-26 (58503aa) the
new-file case failed: Run refused with a 14-item message that became a 10-line bar and squashed the epsilon
field and Run to 8-9 px."""

from __future__ import annotations

import re
from dataclasses import replace

import numpy as np
import pandas as pd
import pytest
from PySide6 import QtWidgets

from dpstudio.gui.widgets.elided_label import ElidedLabel
from dpstudio.model.project.project import RELEASE, TEACHING
from dpstudio.model.stream.session import EVENTS, StreamSource
from tests.gui.conftest import shot
from tests.gui.layout_check import problems
from tests.gui.test_newcomer_path import make_ready_like_the_demo
from tests.gui.test_run_epsilon import Answer

SIZES = [(1280, 800), (1920, 1080)]


def walk(qtbot, window, size, what: str) -> list[str]:
    """Every tab's problems, each prefixed with where it was seen; the window must keep ``size``. A
    screenshot of each tab goes to /tmp/dpstudio-shots/ (to look at)."""
    found = []
    for i in range(window.tabs.count()):
        window.tabs.setCurrentIndex(i)
        qtbot.wait(30)
        shot(window, re.sub(r"[^a-z0-9]+", "-", f"layout {size[0]}x{size[1]} {what} {window.tabs.tabText(i)}".lower()))
        found += [f"{what}, {window.tabs.tabText(i)}: {p}" for p in problems(window)]
        assert (window.width(), window.height()) == size, f"{what}, {window.tabs.tabText(i)}: the window resized"
    return found


def test_the_checker_sees_cut_and_squashed_controls(qtbot):
    box = QtWidgets.QWidget()
    qtbot.addWidget(box)
    lay = QtWidgets.QVBoxLayout(box)
    cut = QtWidgets.QLabel("a label far too long for the narrow box it sits in")
    cut.setMinimumWidth(10)
    cut.setSizePolicy(QtWidgets.QSizePolicy.Ignored, QtWidgets.QSizePolicy.Preferred)
    elided = ElidedLabel("an elided label far too long for the narrow box it sits in")
    elided.names_only = True  # a name (a file, a column) may be elided
    sentence = ElidedLabel("a refusal that says what to do, cut to a few words of its whole sentence")
    read = ElidedLabel("a long message with a button beside it that shows all of it in a dialog")
    read.read_all = QtWidgets.QToolButton()
    read.read_all.setText("Read all")
    button = QtWidgets.QPushButton("A button with a long text")
    button.setFixedWidth(40)
    edit = QtWidgets.QLineEdit("x")
    edit.setFixedHeight(6)
    table = QtWidgets.QTableWidget(2, 1)
    table.setWordWrap(False)
    table.setItem(0, 0, QtWidgets.QTableWidgetItem("a cell far too long for its narrow column"))
    tipped = QtWidgets.QTableWidgetItem("a cell far too long, with all of it in its tooltip")
    tipped.setToolTip(tipped.text())
    table.setItem(1, 0, tipped)
    table.setColumnWidth(0, 40)
    import pyqtgraph as pg

    plot = pg.PlotWidget()
    plot.setFixedHeight(120)
    plot.setLabel("left", "an axis title far too long for a plot this low")
    for w in (cut, elided, sentence, read, read.read_all, button, edit, table, plot):
        lay.addWidget(w)
    box.setFixedWidth(80)
    box.show()
    qtbot.waitExposed(box)
    found = problems(box)
    assert any("label cut" in p and "a label far" in p for p in found)
    assert any("button cut" in p for p in found) and any("squashed" in p for p in found)
    assert not any("an elided label" in p for p in found)
    assert any("sentence cut" in p and "a refusal that says" in p for p in found)  # issue 32: read, not hovered
    assert not any("a long message with a button" in p for p in found)
    assert any("cell cut" in p and "a cell far too long for" in p for p in found)
    assert not any("all of it in its tooltip" in p for p in found)
    assert any("axis title cut" in p and "an axis title" in p for p in found)


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
def test_every_tab_fits_on_the_sample_after_a_run_in_both_modes(qtbot, window, size):
    window.resize(*size)
    p = window.project
    window.panels["Data"].open_sample()
    qtbot.waitUntil(lambda: p.frame is not None, timeout=120000)
    make_ready_like_the_demo(window)
    algorithm = window.show_panel("Algorithm")
    algorithm.set_param("steps", 3)
    algorithm.run_button.click()
    qtbot.waitUntil(lambda: p.result is not None and not window.runner.busy, timeout=300000)
    found = walk(qtbot, window, size, "sample, teaching, after a run")
    window.set_mode(RELEASE)
    window.show_panel("Algorithm")
    algorithm.exec_dialog = Answer(button=QtWidgets.QMessageBox.Yes)
    algorithm.run_button.click()
    qtbot.waitUntil(lambda: p.can_export and not window.runner.busy, timeout=300000)
    found += walk(qtbot, window, size, "sample, release, after a run")
    assert not found, "\n".join(found)


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
def test_every_tab_fits_on_a_new_file_with_many_readiness_problems(qtbot, window, tmp_path, size):
    window.resize(*size)
    rng = np.random.default_rng(0)
    frame = pd.DataFrame(
        {f"a_rather_long_column_header_number_{i}": rng.choice(["x", "y", "?"], 300) for i in range(14)}
    )
    frame["score"] = rng.normal(50, 10, 300)
    frame.to_csv(tmp_path / "new.csv", index=False)
    p = window.project
    window.panels["Data"].open_file(tmp_path / "new.csv")
    qtbot.waitUntil(lambda: p.frame is not None, timeout=60000)
    # and an event log in the Stream panel, with its long guarantee in people's terms and a cap of 2
    when = pd.Timestamp("2024-01-01") + pd.to_timedelta(rng.integers(0, 365 * 24 * 60, 5000), unit="min")
    pd.DataFrame({"customer": rng.integers(0, 300, 5000), "ts": when.astype(str)}).to_csv(
        tmp_path / "ev.csv", index=False
    )
    source = StreamSource(EVENTS, tmp_path / "ev.csv", start="2024-01-01", end="2025-01-06", time_column="ts")
    assert window.panels["Stream"].set_source(replace(source, user="customer", bucket="week", cap=2))
    found = []
    for mode in (RELEASE, TEACHING):
        window.set_mode(mode)
        algorithm = window.show_panel("Algorithm")
        assert not algorithm.run_button.isEnabled() and "Run is off until" in algorithm.run_button.toolTip()
        algorithm.run()  # (a script or the keyboard) refused: the readiness list goes to the window's message
        qtbot.wait(30)
        assert window.message_bar.isVisible() and "not ready" in window.message_label.text()
        found += walk(qtbot, window, size, f"new file, {mode}, Run refused")
    assert not found, "\n".join(found)


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
def test_every_tab_fits_with_every_result_on_screen(qtbot, window, tmp_path, size):
    """Tables, plots and trees filled: a DP run with Monte-Carlo bands, an anonymization (lattice, table and
    the side by side) and a stream run. The checks read table cells and plot titles too: the Algorithm
    panel's error table cut "a level given less ha..." in the last real-window walk."""
    from PySide6.QtCore import Qt
    from PySide6.QtTest import QTest

    from dpstudio.gui.demo import bundled_taxonomy_folder
    from dpstudio.model.stream.session import COUNTS

    window.resize(*size)
    p = window.project
    window.panels["Data"].open_sample()
    qtbot.waitUntil(lambda: p.frame is not None, timeout=120000)
    window.show_panel("Taxonomy")
    window.panels["Taxonomy"].import_folder(bundled_taxonomy_folder())
    qtbot.wait(30)
    assert (window.width(), window.height()) == size, "the window grew after Import folder"
    make_ready_like_the_demo(window)
    algorithm = window.show_panel("Algorithm")
    algorithm.set_param("steps", 3)
    algorithm.run_button.click()
    qtbot.waitUntil(lambda: p.result is not None and not window.runner.busy, timeout=300000)
    compare = window.show_panel("Compare")
    compare.run_monte_carlo(runs=3)
    qtbot.waitUntil(lambda: compare.mc_curves is not None and not window.runner.busy, timeout=300000)
    anonymize = window.show_panel("Anonymize")
    anonymize.set_qi(("education", "marital-status", "race", "sex", "workclass"))
    anonymize.k_spin.setValue(5)
    with qtbot.waitSignal(anonymize.finished, timeout=120000):
        QTest.mouseClick(anonymize.run_button, Qt.LeftButton)
    QTest.mouseClick(anonymize.side_button, Qt.LeftButton)
    assert anonymize.side is not None, anonymize.last_error
    counts = (200 + 50 * np.sin(np.arange(60) / 6)).astype(int)
    (tmp_path / "visits.txt").write_text("count\n" + "\n".join(map(str, counts)) + "\n", encoding="utf-8")
    stream = window.panels["Stream"]
    assert stream.set_source(StreamSource(COUNTS, tmp_path / "visits.txt"))
    stream.run_button.click()
    qtbot.waitUntil(lambda: stream.playback is not None and not window.runner.busy, timeout=60000)
    found = []
    for sub in range(anonymize.tabs.count()):  # each of Anonymize's own tabs
        anonymize.tabs.setCurrentIndex(sub)
        found += walk(qtbot, window, size, f"every result, Anonymize tab {anonymize.tabs.tabText(sub)}")
    assert not found, "\n".join(dict.fromkeys(found))


def test_a_file_read_through_duckdb_keeps_the_window_on_the_screen(qtbot, window, tmp_path, monkeypatch):
    """Walk 50: after opening a 3-million-row Parquet file through DuckDB the window grew to 1605 px, wider than
    the 1280 px screen: the Data tab's one-line header ("... read through DuckDB (the file is large): not
    loaded into memory, the preview shows the first 1,000 rows (/the/folder)") set its minimum width."""
    monkeypatch.setenv("DPSTUDIO_STUDIO_ENGINE", "duckdb")
    window.resize(1280, 800)
    folder = tmp_path / "a folder with a rather long name for the survey of 2026" / "exports from the registry"
    folder.mkdir(parents=True)
    rng = np.random.default_rng(0)
    path = folder / "household_survey_wave_3_all_regions.parquet"
    pd.DataFrame({"region": rng.choice(["n", "s"], 5000), "age": rng.integers(18, 90, 5000)}).to_parquet(path)
    p = window.project
    window.panels["Data"].open_file(path)
    qtbot.waitUntil(lambda: p.engine_table is not None and not window.runner.busy, timeout=60000)
    window.show_panel("Data")
    qtbot.wait(50)
    data = window.panels["Data"]
    assert "read through DuckDB" in data.file_label.text()
    assert data.preview_box.title().startswith("Preview (the first 1,000 rows")  # not "every row" (walk 51)
    assert (window.width(), window.height()) == (1280, 800)
    assert window.minimumSizeHint().width() <= 1280
    found = walk(qtbot, window, (1280, 800), "a file read through DuckDB")
    assert not found, "\n".join(found)
