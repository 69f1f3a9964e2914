"""Import folder: a summary of what matched; a taxonomy folder beside the data is offered, not imported."""

from __future__ import annotations

import pandas as pd
import pytest
from PySide6.QtCore import Qt

from dpstudio.gui.panels.taxonomy import COVERED, TaxonomyPanel
from dpstudio.model.project.project import Project
from dpstudio.model.project.taxonomy_folder import folder_beside, match_folder

DATA = pd.DataFrame(
    {
        "age": [25, 38, 28],
        "workclass": ["Private", "Local-gov", "Private"],
        "sex": ["F", "M", "F"],
        "race": ["a", "b", "a"],
        "income": ["<=50K", ">50K", ">50K"],
    }
)


def write_folder(folder):
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "adult_hierarchy_workclass.csv").write_text("Private;*\nLocal-gov;*\n", encoding="utf-8")
    (folder / "sex.csv").write_text("F;*\nM;*\n", encoding="utf-8")
    (folder / "salary.csv").write_text("a;*\n", encoding="utf-8")
    (folder / "notes.md").write_text("not a taxonomy", encoding="utf-8")
    return folder


@pytest.fixture
def panel(qtbot, tmp_path):
    data = tmp_path / "people.csv"
    DATA.to_csv(data, index=False)
    project = Project()
    project.set_data(
        DATA.copy(),
        data,
        types={
            "age": "numeric",
            "workclass": "categorical",
            "sex": "categorical",
            "race": "categorical",
            "income": "categorical",
        },
    )
    p = TaxonomyPanel(project)
    qtbot.addWidget(p)
    p.resize(1100, 700)
    p.show()
    return p


def test_match_folder_names_files_and_what_matched_nothing(tmp_path):
    found = match_folder(write_folder(tmp_path / "t"), ["age", "workclass", "sex", "race", "income"])
    assert {a: p.name for a, p in found.matched.items()} == {
        "workclass": "adult_hierarchy_workclass.csv",
        "sex": "sex.csv",
    }
    assert found.unmatched == ["salary.csv"]


def test_import_folder_summarises_matched_unmatched_and_still_missing(panel, tmp_path):
    done = panel.import_folder(write_folder(tmp_path / "t"))
    assert done == ["workclass", "sex"]
    assert panel.badge("workclass")[0] == COVERED and panel.badge("sex")[0] == COVERED
    text = panel.summary_label.text()
    assert panel.summary_label.isVisibleTo(panel) and text == panel.last_summary
    assert "imported 2 taxonomies from t (workclass, sex)" in text
    assert "1 file(s) named after no attribute: salary.csv" in text
    assert "still without a taxonomy: race" in text


def test_a_taxonomy_folder_beside_the_data_is_offered_then_imported_on_click(qtbot, panel, tmp_path):
    write_folder(tmp_path / "taxonomies")
    assert folder_beside(tmp_path / "people.csv", panel.attributes()).folder == tmp_path / "taxonomies"
    panel.project.set_data(DATA.copy(), tmp_path / "people.csv")  # reopened: the panel looks beside it
    assert panel.offer_bar.isVisibleTo(panel)
    assert "workclass, sex" in panel.offer_label.text()
    assert panel.project.taxonomies == {}  # offered, not imported
    qtbot.mouseClick(panel.offer_button, Qt.LeftButton)
    assert set(panel.project.taxonomies) == {"workclass", "sex"}
    assert not panel.offer_bar.isVisibleTo(panel)
    assert "still without a taxonomy: race" in panel.summary_label.text()


def test_no_offer_without_a_matching_folder(panel, tmp_path):
    panel.project.set_data(DATA.copy(), tmp_path / "people.csv")
    assert not panel.offer_bar.isVisibleTo(panel)


def test_badge_list_shows_every_badge_whole_at_a_narrow_width(qtbot, panel):
    from PySide6 import QtCore

    panel.project.set_bounds("age", 0, 1500000)  # the longest badge: "no taxonomy: intervals grow from ..."
    panel.resize(900, 600)
    qtbot.wait(50)
    lst = panel.attr_list
    fm = lst.fontMetrics()
    width = lst.viewport().width()
    for r in range(lst.count()):
        item = lst.item(r)
        attr = item.data(Qt.UserRole)
        assert panel.badge(attr)[1] in item.text().replace("\n", " ")  # the whole badge, never elided
        need = fm.boundingRect(QtCore.QRect(0, 0, width, 10000), Qt.TextWordWrap, item.text()).height()
        assert lst.visualItemRect(item).height() >= need, (attr, item.text())
