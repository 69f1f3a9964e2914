"""The Data panel driven through its widgets: loading, roles, types, bounds, missing values, bad files."""

from __future__ import annotations

import pandas as pd
import pytest
from PySide6 import QtCore, QtGui

from dpstudio.gui.panels.data import DataPanel
from dpstudio.model.project.project import CLASS, IGNORE, KEEP_MISSING, Project
from tests.gui.conftest import shot


@pytest.fixture
def panel(qtbot):
    p = DataPanel(Project())
    qtbot.addWidget(p)
    p.resize(1100, 700)
    p.show()
    yield p
    p.shutdown()


def load(qtbot, panel, path):
    with qtbot.waitSignal(panel.loaded, timeout=15000):
        panel.open_file(path)


def test_start_page_before_data(panel):
    assert panel.stack.currentWidget() is panel.start_page
    assert panel.start_page.sample_button.isEnabled()


def test_open_csv_fills_project_and_views(qtbot, panel, small_csv):
    load(qtbot, panel, small_csv)
    p = panel.project
    expected = pd.read_csv(small_csv, na_values=["?"])
    assert p.columns == list(expected.columns)
    assert panel.preview_model.rowCount() == len(expected) == 12
    assert panel.preview_model.columnCount() == 4
    # a cell as shown equals the file's value; a missing cell shows a dash
    idx = panel.preview_model.index(2, 1)
    assert panel.preview_model.data(idx) == "Local-gov"
    assert panel.preview_model.data(panel.preview_model.index(4, 1)) == "\u2014"
    assert p.types["age"] == "numeric" and p.types["workclass"] == "categorical"
    assert p.roles["income"] == CLASS
    # missing report: counts equal pandas' own count of the '?' cells
    assert panel.missing_report() == {c: int(n) for c, n in expected.isna().sum().items() if n}
    rows = int(expected.isna().any(axis=1).sum())
    assert f"{rows} of 12 rows" in panel.missing_label.text()
    assert panel.stack.currentIndex() == 1
    shot(panel, "data_panel")


def test_role_type_and_bounds_through_widgets(qtbot, panel, small_csv):
    load(qtbot, panel, small_csv)
    panel.select_attribute("sex")
    panel.role_combo.setCurrentText(IGNORE)
    panel.role_combo.activated.emit(panel.role_combo.currentIndex())
    assert panel.project.roles["sex"] == IGNORE
    row = panel.project.columns.index("sex")
    assert panel.attr_table.item(row, 1).text() == IGNORE

    panel.select_attribute("age")
    assert panel.lo_edit.isEnabled()
    panel.lo_edit.setText("17")
    panel.hi_edit.setText("91")
    panel.bounds_button.click()
    assert panel.project.bounds["age"] == (17.0, 91.0)
    assert panel.attr_table.item(0, 3).text() == "[17, 91)"
    assert panel.last_error == ""


def test_large_bounds_are_written_whole_and_read_back_exactly(qtbot, panel, small_csv):
    """Walk 51: fnlwgt's bounds read "[13769, 1.48471e+06)", a figure that is not the bound declared."""
    load(qtbot, panel, small_csv)
    panel.select_attribute("age")
    panel.lo_edit.setText("13769")
    panel.hi_edit.setText("1484705")
    panel.bounds_button.click()
    assert panel.project.bounds["age"] == (13769.0, 1484705.0)
    assert panel.attr_table.item(0, 3).text() == "[13,769, 1,484,705)"
    panel.select_attribute("sex")
    panel.select_attribute("age")
    assert (panel.lo_edit.text(), panel.hi_edit.text()) == ("13769", "1484705")
    panel.bounds_button.click()  # applying what the fields show changes nothing
    assert panel.project.bounds["age"] == (13769.0, 1484705.0) and panel.last_error == ""


@pytest.mark.parametrize(
    "lo,hi,needle",
    [
        ("90", "17", "must be below"),
        ("40", "40", "must be below"),
        ("abc", "9", "must be numbers"),
        ("", "9", "type both"),
    ],
)
def test_bad_bounds_show_message_and_change_nothing(qtbot, panel, small_csv, lo, hi, needle):
    load(qtbot, panel, small_csv)
    panel.select_attribute("age")
    panel.lo_edit.setText(lo)
    panel.hi_edit.setText(hi)
    assert panel.apply_bounds() is False
    assert needle in panel.last_error and "age" in panel.last_error
    assert panel.error_label.isVisibleTo(panel)
    assert "age" not in panel.project.bounds


def test_type_to_numeric_refused_for_text(qtbot, panel, small_csv):
    load(qtbot, panel, small_csv)
    panel.select_attribute("sex")
    panel.type_combo.setCurrentText("numeric")
    panel.type_combo.activated.emit(panel.type_combo.currentIndex())
    assert "sex cannot be numeric" in panel.last_error
    assert panel.project.types["sex"] == "categorical"
    assert panel.type_combo.currentText() == "categorical"  # the form shows the real state again


def test_missing_choice(qtbot, panel, small_csv):
    load(qtbot, panel, small_csv)
    panel.keep_radio.setChecked(True)
    assert panel.project.missing == KEEP_MISSING
    panel.drop_radio.setChecked(True)
    assert panel.project.missing == "drop"


def _bad(tmp_path, name, content: bytes):
    path = tmp_path / name
    path.write_bytes(content)
    return path


@pytest.mark.parametrize(
    "name,content,needle",
    [
        ("latin.csv", "name,city\nJos\u00e9,M\u00e1laga\n".encode("latin-1"), "not valid UTF-8"),
        ("empty.csv", b"", "is empty"),
        ("ragged.csv", b"a,b,c\n1,2,3\n4,5\n6,7,8\n", "line 3: 2 fields where line 1 has 3"),
        ("header.csv", b"a,b\n", "no data rows"),
    ],
)
def test_bad_files_give_specific_messages(qtbot, panel, tmp_path, name, content, needle):
    path = _bad(tmp_path, name, content)
    with qtbot.waitSignal(panel.load_failed, timeout=10000) as blocker:
        panel.open_file(path)
    assert needle in blocker.args[0]
    assert needle in panel.last_error and name in panel.last_error
    assert "Traceback" not in panel.last_error
    assert panel.project.frame is None  # nothing was adopted


def test_missing_file_and_folder(qtbot, panel, tmp_path):
    with qtbot.waitSignal(panel.load_failed, timeout=10000):
        panel.open_file(tmp_path / "nope.csv")
    assert "nope.csv" in panel.last_error and "no such file" in panel.last_error.lower()
    with qtbot.waitSignal(panel.load_failed, timeout=10000):
        panel.open_file(tmp_path)
    assert "folder" in panel.last_error


def test_a_failed_load_keeps_the_previous_data(qtbot, panel, small_csv, tmp_path):
    load(qtbot, panel, small_csv)
    bad = _bad(tmp_path, "empty.csv", b"")
    with qtbot.waitSignal(panel.load_failed, timeout=10000):
        panel.open_file(bad)
    assert panel.project.columns == ["age", "workclass", "sex", "income"]
    assert panel.preview_model.rowCount() == 12


def test_drop_a_file_on_the_panel(qtbot, panel, small_csv):
    mime = QtCore.QMimeData()
    mime.setUrls([QtCore.QUrl.fromLocalFile(str(small_csv))])
    event = QtGui.QDropEvent(
        QtCore.QPointF(10, 10), QtCore.Qt.CopyAction, mime, QtCore.Qt.LeftButton, QtCore.Qt.NoModifier
    )
    with qtbot.waitSignal(panel.loaded, timeout=15000):
        panel.dropEvent(event)
    assert panel.project.data_path == small_csv


def test_cancel_a_load(qtbot, panel, tmp_path):
    big = tmp_path / "big.csv"
    with open(big, "w") as fh:
        fh.write("a,b\n")
        fh.write("1,x\n" * 3_000_000)
    worker = panel.open_file(big)
    assert worker is not None
    with qtbot.waitSignal(worker.signals.cancelled, timeout=15000):
        worker.cancel()
    assert panel.project.frame is None


def test_dataframe_model_cells_equal_frame_across_blocks():
    import numpy as np

    from dpstudio.gui.widgets.dataframe_model import DataFrameModel

    n = 5000
    rng = np.random.default_rng(1)
    frame = pd.DataFrame(
        {"x": rng.integers(0, 100, n), "f": rng.random(n).round(3), "s": rng.choice(["a", "b", None], n)}
    )
    model = DataFrameModel(frame)
    model.MAX_BLOCKS = 3  # force evictions
    assert (model.rowCount(), model.columnCount()) == (n, 3)
    for r in [0, 255, 256, 1023, 1024, 4999, 17, 4000, 0]:
        assert model.data(model.index(r, 0)) == str(frame["x"][r])
        assert float(model.data(model.index(r, 1))) == frame["f"][r]
        s = frame["s"][r]
        assert model.data(model.index(r, 2)) == ("\u2014" if pd.isna(s) else s)
    assert len(model._blocks) <= 3 + 1
    assert model.headerData(2, QtCore.Qt.Horizontal) == "s"
    assert model.headerData(9, QtCore.Qt.Vertical) == "10"


def test_type_round_trip_numeric_categorical(qtbot, panel, small_csv):
    load(qtbot, panel, small_csv)
    panel.select_attribute("age")
    panel.lo_edit.setText("0")
    panel.hi_edit.setText("100")
    assert panel.apply_bounds()
    assert panel.set_type("age", "categorical")
    assert panel.project.types["age"] == "categorical" and "age" not in panel.project.bounds
    assert not panel.lo_edit.isEnabled()
    assert panel.preview_model.data(panel.preview_model.index(0, 0)) == "25"
    assert panel.set_type("age", "numeric")
    assert panel.project.frame["age"].dtype.kind in "if"
    assert panel.attr_table.item(0, 3).text() == "needed"
