"""The Taxonomy panel says how the chosen algorithm uses a numeric attribute's taxonomy (never silently)."""

from __future__ import annotations

import pandas as pd
import pytest

from dpstudio.gui.panels.taxonomy import TaxonomyPanel
from dpstudio.model.project.project import Project
from tests.test_taxonomy_split_grid import arx_age


@pytest.fixture
def panel(qtbot):
    df = pd.DataFrame({"age": [20, 35, 50, 64], "sex": ["F", "M", "F", "M"], "cls": ["a", "b", "a", "b"]})
    project = Project()
    project.set_data(df, None, types={"age": "numeric", "sex": "categorical", "cls": "categorical"})
    project.set_bounds("age", 17, 91)
    p = TaxonomyPanel(project)
    qtbot.addWidget(p)
    p.resize(1100, 700)
    p.show()
    return p


def test_an_imported_age_hierarchy_is_named_as_the_split_grid_or_as_unused(panel, tmp_path):
    path = tmp_path / "age.csv"
    path.write_text(arx_age())
    assert panel.import_file(path, attribute="age")
    panel.select_attribute("age")
    text = panel.grid_label.text()
    assert panel.grid_label.isVisibleTo(panel)
    assert "splits age only at this taxonomy's 15 cut points (20, 25, 30, 35, \u2026, 85, 90)" in text
    panel.project.set_algorithm("hb")
    text = panel.grid_label.text()
    assert "H_b interval tree does not use this taxonomy" in text and "equal-width" in text
    panel.project.set_algorithm("maxgddp")
    assert "MAXGDDP splits age only at" in panel.grid_label.text()
    panel.project.clear_bounds("age")
    panel.select_attribute("age")
    assert "age needs public bounds (Data panel)" in panel.grid_label.text()


def test_a_tree_of_words_on_a_numeric_attribute_is_flagged(panel, tmp_path):
    path = tmp_path / "age.txt"
    path.write_text("young;*\nold;*\n")
    assert panel.import_file(path, attribute="age")
    panel.select_attribute("age")
    assert "cannot be used as split points" in panel.grid_label.text()
    panel.select_attribute("sex")
    assert not panel.grid_label.isVisibleTo(panel)


def test_equal_width_intervals_of_an_integer_attribute_have_whole_number_edges(panel):
    panel.select_attribute("age")
    panel.gen_lo.setText("1")
    panel.gen_hi.setText("100")
    panel.gen_fanout.setValue(2)
    panel.gen_depth.setValue(3)
    panel.gen_button.click()
    tax = panel.project.taxonomies["age"]
    leaves = sorted(zip(tax.lo[tax.leaves], tax.hi[tax.leaves]))
    assert leaves[0] == (1, 13)  # not [1,13.375)
    expected = [int(1 + 99 * k / 8 + 0.5) for k in range(9)]  # independent: edges rounded half up
    assert [lo for lo, _ in leaves] + [leaves[-1][1]] == expected
    panel.project.set_numeric_type("age", "continuous")
    assert panel.generate_numeric(1, 100, 2, 3, attribute="age")
    tax = panel.project.taxonomies["age"]
    assert sorted(tax.hi[tax.leaves])[0] == 13.375  # a continuous attribute keeps the exact widths
