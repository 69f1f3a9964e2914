"""The studio's controls for the class values and numeric kinds (issue 8 items 2, 3) and for the dataset's
lifetime budget (item 7), driven through the real widgets."""

from fractions import Fraction

import pandas as pd
import pytest
from PySide6 import QtCore, QtWidgets
from PySide6.QtTest import QTest

from dpstudio.gui.panels.data import DataPanel
from dpstudio.model.project.project import RELEASE, Project
from tests.gui.export_fixtures import run, table_project
from tests.gui.test_run_epsilon import Answer, click_run

Qt = QtCore.Qt
DATA = pd.DataFrame(
    {
        "age": [25, 38, 28, 44, 18],
        "work": ["A", "B", "A", "C", "B"],
        "income": ["<=50K", "<=50K", ">50K", ">50K", "<=50K"],
    }
)


@pytest.fixture
def data_panel(qtbot):
    project = Project()
    project.set_data(DATA.copy(), None)  # types read from the values, income the class (last column)
    panel = DataPanel(project)
    qtbot.addWidget(panel)
    panel.show()
    return panel


def test_class_values_typed_in_the_data_panel_are_a_public_input(qtbot, data_panel):
    p = data_panel.project
    assert "not declared" in data_panel.classes_status.text()
    data_panel.classes_edit.setFocus()
    QTest.keyClicks(data_panel.classes_edit, "<=50K, >50K, unknown")
    qtbot.mouseClick(data_panel.classes_button, Qt.LeftButton)
    assert p.classes == ["<=50K", ">50K", "unknown"]
    assert not p.provenance_of("classes:income").derived and "public input" in data_panel.classes_status.text()
    assert not data_panel.classes_confirm.isEnabled()
    data_panel.classes_edit.setText("<=50K")  # one value is not a class domain: refused, said why
    qtbot.mouseClick(data_panel.classes_button, Qt.LeftButton)
    assert "at least two" in data_panel.last_error and p.classes == ["<=50K", ">50K", "unknown"]


def test_a_class_value_holding_a_comma_is_typed_in_quotes_and_shown_back_the_same_way(qtbot, data_panel):
    p = data_panel.project
    data_panel.classes_edit.setFocus()
    QTest.keyClicks(data_panel.classes_edit, '"<=50K, or less", >50K')
    qtbot.mouseClick(data_panel.classes_button, Qt.LeftButton)
    assert p.classes == ["<=50K, or less", ">50K"]
    data_panel.classes_edit.clearFocus()
    data_panel._refresh_classes()
    assert data_panel.classes_edit.text() == '"<=50K, or less", >50K'
    data_panel.classes_edit.setText('"<=50K, >50K')  # an unclosed quote: refused, said why, nothing changed
    qtbot.mouseClick(data_panel.classes_button, Qt.LeftButton)
    assert "quote" in data_panel.last_error and p.classes == ["<=50K, or less", ">50K"]


def test_class_values_proposed_from_the_data_are_marked_until_confirmed(qtbot, data_panel, monkeypatch):
    p = data_panel.project
    qtbot.mouseClick(data_panel.classes_propose, Qt.LeftButton)
    assert p.classes == ["<=50K", ">50K"] and data_panel.classes_edit.text() == "<=50K, >50K"
    assert "derived from the data: not private" in data_panel.classes_status.text()
    assert p.provenance_of("classes:income").unconfirmed and data_panel.classes_confirm.isEnabled()
    monkeypatch.setattr(
        QtWidgets.QInputDialog,
        "getMultiLineText",
        lambda *a, **k: ("The income classes are published in adult.names.", True),
    )
    qtbot.mouseClick(data_panel.classes_confirm, Qt.LeftButton)
    assert p.provenance_of("classes:income").confirmed == "The income classes are published in adult.names."
    assert "confirmed public knowledge" in data_panel.classes_status.text()
    qtbot.mouseClick(data_panel.classes_clear, Qt.LeftButton)
    assert p.classes is None and "not declared" in data_panel.classes_status.text()


def test_numeric_kind_in_the_attribute_form(qtbot, data_panel):
    p = data_panel.project
    data_panel.select_attribute("age")
    assert "default from the bounds (set public bounds first)" in data_panel.kind_note.text()
    p.set_bounds("age", 17, 91)
    data_panel.select_attribute("age")
    assert data_panel.kind_note.text() == "default from the bounds: integer"
    qtbot.mouseClick(data_panel.kind_propose, Qt.LeftButton)
    assert p.numeric_types["age"] == "integer" and p.provenance_of("kind:age").unconfirmed
    assert "derived from the data: not private" in data_panel.kind_note.text()
    assert data_panel.kind_confirm.isEnabled()
    assert "derived from the data" in data_panel.attr_table.item(0, 2).toolTip()
    data_panel.kind_combo.setCurrentIndex(data_panel.kind_combo.findData("continuous"))
    data_panel.resolution_edit.setEnabled(True)
    data_panel.resolution_edit.setText("0.5")
    QTest.keyClick(data_panel.resolution_edit, Qt.Key_Return)
    assert p.numeric_types["age"] == "continuous:0.5" and not p.provenance_of("kind:age").derived
    assert data_panel.attr_table.item(0, 2).text() == "numeric: continuous:0.5"
    assert data_panel.set_numeric_kind(None) and "age" not in p.numeric_types
    data_panel.select_attribute("work")
    assert not data_panel.kind_combo.isEnabled()


def test_release_run_without_declared_classes_is_refused_pointing_at_the_control(qtbot, window):
    table_project(steps=2, project=window.project)
    window.project.set_classes(None)
    window.project.set_mode(RELEASE)
    panel = window.show_panel("Algorithm")
    answer = Answer(button=QtWidgets.QMessageBox.Yes)
    panel.exec_dialog = answer
    click_run(qtbot, panel)
    qtbot.wait(50)
    assert answer.boxes == [] and window.project.result is None  # nothing asked, nothing spent
    assert "Data panel (Class values)" in panel.last_error
    assert window.tabs.currentWidget() is panel and window.project.release_ledger is None


def test_opening_the_bundled_sample_declares_its_classes_and_integer_kinds(qtbot, window):
    data = window.panel("Data")
    worker = data.open_sample()
    qtbot.waitUntil(lambda: window.project.frame is not None, timeout=60000)
    p = window.project
    assert p.classes == ["<=50K", ">50K"]
    assert p.provenance_of("classes:Y").source == "declared: published in adult.names"
    assert not p.provenance_of("classes:Y").derived
    for c in ("age", "fnlwgt", "education-num", "capital-gain", "capital-loss", "hours-per-week"):
        assert p.numeric_types[c] == "integer" and not p.provenance_of(f"kind:{c}").derived, c
    assert "published in adult.names" in data.classes_status.text()
    for c in p.columns:  # the column types are documented in adult.names too: nothing left derived
        assert p.provenance_of(f"type:{c}").source.startswith("declared: adult.names"), c
    assert worker is not None


def test_algorithm_panel_shows_the_dataset_budget_and_sets_it_deliberately(qtbot, window, tmp_path):
    data = tmp_path / "people.csv"
    data.write_text("stand-in\n")
    p = table_project(steps=2, project=window.project, path=data)
    panel = window.show_panel("Algorithm")
    qtbot.waitUntil(lambda: panel.budget_label.text() == "this dataset (people): no release yet on this data")
    no = Answer(key=Qt.Key_Return)  # Enter: the default answer, No
    panel.exec_dialog = no
    assert not panel.apply_dataset_budget("survey", "2")
    assert "Budgets add up" in no.boxes[0][0] and no.boxes[0][1]
    assert p.dataset_total is None and p.dataset_name is None
    panel.exec_dialog = Answer(button=QtWidgets.QMessageBox.Yes)
    panel.dataset_name_edit.setText("survey")
    panel.dataset_total_edit.setText("2")
    qtbot.mouseClick(panel.dataset_apply, Qt.LeftButton)
    assert p.dataset_name == "survey" and p.dataset_total == 2
    p.set_mode(RELEASE)
    panel.exec_dialog = Answer(button=QtWidgets.QMessageBox.Yes)
    panel.eps_edit.setText("0.5")
    click_run(qtbot, panel)
    qtbot.waitUntil(lambda: p.result is not None, timeout=60000)
    qtbot.waitUntil(lambda: panel.budget_label.text() == "this dataset (survey): 1.5 of 2 epsilon left")
    assert p.dataset_budget().spent == Fraction(1, 2)


def test_untracked_budget_is_visible_in_the_window(qtbot, window, monkeypatch):
    monkeypatch.setenv("DPSTUDIO_BUDGET_STORE", "none")
    table_project(steps=2, project=window.project)
    panel = window.show_panel("Algorithm")
    qtbot.waitUntil(lambda: "not tracked: experiments only" in panel.budget_label.text())
    assert "budget tracking is off" in panel.budget_warnings.text()
    assert not panel.dataset_total_edit.isEnabled()


def test_a_second_project_on_the_same_records_sees_what_was_spent(qtbot, window, tmp_path):
    data = tmp_path / "people.csv"
    data.write_text("stand-in\n")
    first = table_project(steps=2, path=data)
    first.set_mode(RELEASE)
    run(first)
    table_project(steps=2, project=window.project, path=data)
    window.project.set_mode(RELEASE)
    panel = window.show_panel("Algorithm")
    qtbot.waitUntil(lambda: panel.budget_label.text() == "this dataset (people): 0 of 1 epsilon left")
    answer = Answer(button=QtWidgets.QMessageBox.Yes)
    panel.exec_dialog = answer
    click_run(qtbot, panel)
    qtbot.wait(50)
    assert answer.boxes == [] and "dataset 'people': a release of epsilon 1 does not fit" in panel.last_error
    assert window.tabs.currentWidget() is panel
