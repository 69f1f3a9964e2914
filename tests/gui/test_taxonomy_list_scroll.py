"""The Taxonomy panel's attribute list stays under the pointer: a change elsewhere in the project (public
bounds typed on the Data panel, a tree's provenance) refreshes the badges in place instead of rebuilding the
list, so a scrolled list does not jump and the next click lands on the attribute under the pointer."""

from __future__ import annotations

import numpy as np
import pandas as pd
from PySide6 import QtCore
from PySide6.QtTest import QTest

from dpstudio.gui.panels.taxonomy import TaxonomyPanel
from dpstudio.model.project import provenance as pv
from dpstudio.model.project.data import load_dataset
from dpstudio.model.project.project import Project


def test_a_scrolled_list_keeps_its_place_and_clicks_land_where_pointed(qtbot, tmp_path):
    rng = np.random.default_rng(0)
    df = pd.DataFrame({f"q{i:02d}": rng.choice(["a", "b", "c"], 300) for i in range(16)})
    df["age"] = rng.integers(17, 90, 300)
    df["vote"] = rng.choice(["y", "n"], 300)
    df.to_csv(tmp_path / "s.csv", index=False)
    p = Project()
    p.set_data(load_dataset(tmp_path / "s.csv"), tmp_path / "s.csv")
    for c in df.columns.drop("age"):
        p.set_type(c, "categorical", "the questionnaire's answers")
    p.set_role("vote", "class")
    panel = TaxonomyPanel(p)
    qtbot.addWidget(panel)
    panel.resize(1000, 500)
    panel.show()
    qtbot.waitExposed(panel)
    bar = panel.attr_list.verticalScrollBar()
    assert bar.maximum() > 0
    bar.setValue(bar.maximum() // 2)
    where = QtCore.QPoint(40, panel.attr_list.viewport().height() // 2)
    pointed = panel.attr_list.itemAt(where).data(QtCore.Qt.UserRole)
    value = bar.value()
    QTest.mouseClick(panel.attr_list.viewport(), QtCore.Qt.LeftButton, QtCore.Qt.NoModifier, where)
    assert panel.current_attribute() == pointed
    panel.editor(pointed).add_child((), "*")
    for v in ("a", "b"):
        panel.editor(pointed).add_child((), v)
    assert panel.add_uncovered(pointed)  # marks the tree derived: a provenance change the panel hears
    assert p.provenance_of(pv.key(pv.TAXONOMY, pointed)).derived
    p.set_bounds("age", 0, 120)  # a change made on another panel
    qtbot.wait(50)  # the list's delayed layout
    assert bar.value() == value
    assert panel.attr_list.itemAt(where).data(QtCore.Qt.UserRole) == pointed
    below = QtCore.QPoint(40, where.y() + 60)
    target = panel.attr_list.itemAt(below).data(QtCore.Qt.UserRole)
    QTest.mouseClick(panel.attr_list.viewport(), QtCore.Qt.LeftButton, QtCore.Qt.NoModifier, below)
    assert panel.current_attribute() == target != pointed
