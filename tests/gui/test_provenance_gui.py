"""Inputs taken from the data in the studio are marked, stay marked through edits, block a release export
until confirmed, and the confirmation lands in the sidecar and the report (issue 8 item 5)."""

import json

import pandas as pd
import pytest
from PySide6 import QtCore, QtWidgets

from dpstudio.gui.panels.data import DataPanel
from dpstudio.gui.panels.export import ExportPanel, ExportRefused
from dpstudio.gui.panels.taxonomy import TaxonomyPanel
from dpstudio.model.project.project import Project
from tests.gui.export_fixtures import run, table_project

DATA = pd.DataFrame(
    {
        "age": [25, 38, 28, 44, 18],
        "workclass": ["Private", "Private", "Local-gov", "Never", "Self"],
        "income": ["<=50K", "<=50K", ">50K", ">50K", "<=50K"],
    }
)


def shown_panel(qtbot, panel_class):
    """``panel_class`` on a new project over DATA, types read from the values (as when a file is opened)."""
    project = Project()
    project.set_data(DATA.copy(), None)
    p = panel_class(project)
    qtbot.addWidget(p)
    p.show()
    return p


@pytest.fixture
def tax_panel(qtbot):
    return shown_panel(qtbot, TaxonomyPanel)


def test_flat_tree_stays_derived_after_an_edit_in_the_editor(tax_panel):
    ed = tax_panel.select_attribute("workclass")
    assert tax_panel.flat_from_data()
    leaf = sorted(DATA["workclass"].unique()).index("Private")  # the flat tree's leaves, in sorted order
    ed.rename((leaf,), "Private sector")  # a real edit through the editor's undo stack
    p = tax_panel.project
    assert "Private sector" in p.taxonomies["workclass"].labels
    assert p.provenance_of("taxonomy:workclass").unconfirmed
    assert "not private" in tax_panel.source_label.text()


def test_adding_uncovered_values_marks_an_imported_tree_derived(tax_panel, tmp_path):
    f = tmp_path / "workclass.csv"
    f.write_text("Private;Worked;*\nLocal-gov;Worked;*\n", encoding="utf-8")
    assert tax_panel.import_file(f, attribute="workclass")
    p = tax_panel.project
    assert not p.provenance_of("taxonomy:workclass").derived
    assert tax_panel.add_uncovered("workclass", parent=())
    assert p.provenance_of("taxonomy:workclass").unconfirmed
    assert "uncovered" in p.provenance_of("taxonomy:workclass").source
    assert "not private" in tax_panel.source_label.text()


def test_data_panel_marks_proposed_bounds_and_read_types(qtbot):
    panel = shown_panel(qtbot, DataPanel)
    project = panel.project
    panel.select_attribute("age")
    assert "derived from the data" in panel.attr_table.item(0, 2).toolTip()  # type read from the values
    qtbot.mouseClick(panel.propose_button, QtCore.Qt.LeftButton)
    assert project.bounds["age"] == (18.0, 45.0)
    assert project.provenance_of("bounds:age").unconfirmed
    assert "derived from the data" in panel.attr_table.item(0, 3).toolTip()
    panel.lo_edit.setText("17")
    panel.hi_edit.setText("91")
    assert panel.apply_bounds() and not project.provenance_of("bounds:age").derived


def test_a_run_on_unconfirmed_inputs_is_never_exported_confirm_then_run_again(qtbot, tmp_path, monkeypatch):
    """The export describes what ran: a run whose inputs were derived and unconfirmed at Run stays refused
    after they are confirmed (confirming does not launder it); the next run, on confirmed inputs, exports
    with the confirmations as they were at its Run."""
    import dpstudio.core.taxonomy_generators as tg

    p = table_project()
    p.propose_classes()  # the class values taken from the data: derived until confirmed
    p.set_taxonomy(
        "work", tg.flat_categorical(["A", "B", "C"], "work"), "flat tree from the data's values", derived=True
    )
    p.set_mode("release")
    p.set_dataset_total(5)
    run(p)  # past the studio's readiness check (which refuses it): what a bypassing caller would get
    w = ExportPanel(p)
    qtbot.addWidget(w)
    monkeypatch.setattr(QtWidgets.QMessageBox, "question", lambda *a, **k: QtWidgets.QMessageBox.Yes)
    assert not w.export_button.isEnabled()
    with pytest.raises(ExportRefused, match="class values of income.*taxonomy of work|taxonomy of work.*class"):
        w.export_to(tmp_path)
    assert list(tmp_path.iterdir()) == []
    red = [
        w.inputs_list.item(i).text()
        for i in range(w.inputs_list.count())
        if "not private" in w.inputs_list.item(i).text()
    ]
    assert len(red) == 2
    assert w.confirm_input("taxonomy:work", "Work codes A, B, C are the published survey codes.")
    # the button path: select the input, answer the wording dialog
    for i in range(w.inputs_list.count()):
        if w.inputs_list.item(i).data(QtCore.Qt.UserRole) == "classes:income":
            w.inputs_list.setCurrentRow(i)
    assert w.confirm_button.isEnabled()
    monkeypatch.setattr(
        QtWidgets.QInputDialog,
        "getMultiLineText",
        lambda *a, **k: ("Income classes are published in adult.names.", True),
    )
    w.confirm_button.click()
    # both confirmed now, but the run was made without them: still refused, for good
    assert not w.export_button.isEnabled()
    with pytest.raises(ExportRefused, match="Confirming them now does not change what ran"):
        w.export_to(tmp_path)
    assert list(tmp_path.iterdir()) == []
    run(p)  # run again, on the confirmed inputs
    assert w.export_button.isEnabled()
    paths = w.export_to(tmp_path, "r")
    side = json.loads(paths[1].read_text())
    rec = {d["key"]: d for d in side["public_inputs"]}
    assert rec["taxonomy:work"]["confirmed"] == "Work codes A, B, C are the published survey codes."
    assert rec["classes:income"]["confirmed"] == "Income classes are published in adult.names."
    assert rec["taxonomy:sex"]["derived"] is False
    html = paths[2].read_text()
    assert "Work codes A, B, C are the published survey codes." in html and "Public inputs" in html


def test_an_input_not_set_yet_is_not_listed_as_a_public_input(qtbot):
    """The walk: "public bounds of visits: not recorded — public input", for bounds nobody had set."""
    p = table_project()
    p.bounds.pop("age", None)
    p.numeric_types.pop("age", None)
    w = ExportPanel(p)
    qtbot.addWidget(w)
    texts = {
        w.inputs_list.item(i).data(QtCore.Qt.UserRole): w.inputs_list.item(i).text()
        for i in range(w.inputs_list.count())
    }
    assert texts["bounds:age"] == "public bounds of age: not set yet \u2014 the release needs it"
    assert "public input" not in texts["kind:age"] and "not set yet" in texts["kind:age"]
    assert texts["type:age"].endswith("public input")
