"""The Taxonomy panel and its editor: import/export, generators, coverage badges, edits with undo/redo."""

from __future__ import annotations

import pandas as pd
import pytest
from PySide6 import QtCore, QtGui, QtWidgets

from dpstudio.core.taxonomy import Taxonomy
from dpstudio.gui.panels.taxonomy import COVERED, INVALID, NONE, UNCOVERED, TaxonomyPanel
from dpstudio.io.taxonomy_formats import read_taxonomy
from dpstudio.model.project.project import Project
from tests.gui.conftest import shot

DATA = pd.DataFrame(
    {
        "age": [25, 38, 28, 44, 18, 34, 29, 63],
        "workclass": ["Private", "Private", "Local-gov", "Private", "Never-worked", "Private", "Self-emp", "Private"],
        "income": ["<=50K", "<=50K", ">50K", ">50K", "<=50K", "<=50K", "<=50K", ">50K"],
    }
)
WORKCLASS_ARX = "Private;Worked;*\nLocal-gov;Worked;*\nSelf-emp;Worked;*\n"  # no Never-worked


@pytest.fixture
def panel(qtbot):
    project = Project()
    project.set_data(DATA.copy(), None)
    p = TaxonomyPanel(project)
    qtbot.addWidget(p)
    p.resize(1100, 700)
    p.show()
    return p


@pytest.fixture
def workclass_file(tmp_path):
    path = tmp_path / "adult_hierarchy_workclass.csv"
    path.write_text(WORKCLASS_ARX, encoding="utf-8")
    return path


def test_attributes_listed_with_no_taxonomy_badges(panel):
    assert panel.attributes() == ["age", "workclass", "income"]
    assert [panel.badge(a)[0] for a in panel.attributes()] == [NONE, NONE, NONE]


def test_a_numeric_badge_asks_for_what_the_run_needs(panel):
    """Walk 51: the badge said "no taxonomy and no public bounds" where the run list asks only for bounds."""
    panel.project.set_type("age", "numeric")
    panel.project.clear_bounds("age")
    assert panel.badge("age") == (NONE, "needs public bounds (Data tab); a taxonomy is optional")
    panel.project.set_bounds("age", 0, 1500000)
    assert panel.badge("age") == (NONE, "no taxonomy: intervals grow from the bounds [0, 1,500,000)")


def test_import_shows_uncovered_values_then_fix(panel, workclass_file):
    assert panel.import_file(workclass_file, attribute="workclass")
    tax = panel.project.taxonomies["workclass"]
    assert tax == read_taxonomy(workclass_file)
    state, text = panel.badge("workclass")
    assert state == UNCOVERED
    # independent count of the uncovered rows
    missing = DATA["workclass"][~DATA["workclass"].isin(["Private", "Local-gov", "Self-emp"])]
    assert f"{missing.nunique()} value uncovered ({len(missing)} row)" in text
    panel.select_attribute("workclass")
    items = [panel.uncovered_list.item(i).text() for i in range(panel.uncovered_list.count())]
    assert items == ["Never-worked  (1 row)"]
    assert "worker" not in panel.project.taxonomy_sources.get("workclass", "x")
    shot(panel, "taxonomy_panel_uncovered")
    # add the value as a leaf under the root: every value covered now
    assert panel.add_uncovered("workclass", parent=())
    assert panel.badge("workclass")[0] == COVERED
    assert "Never-worked" in panel.project.taxonomies["workclass"].labels
    assert panel.uncovered_list.count() == 0


def test_taxonomy_file_with_errors(panel, tmp_path):
    bad = tmp_path / "workclass.csv"
    bad.write_text("Private;Worked;*\nLocal-gov;*\n", encoding="utf-8")
    assert not panel.import_file(bad, attribute="workclass")
    assert "workclass.csv" in panel.last_error and "line 2" in panel.last_error
    assert "workclass" not in panel.project.taxonomies
    latin = tmp_path / "latin.csv"
    latin.write_bytes("Jos\u00e9;*\n".encode("latin-1"))
    assert not panel.import_file(latin, attribute="workclass")
    assert "UTF-8" in panel.last_error


@pytest.mark.parametrize("fmt,suffix", [("arx", ".csv"), ("brace", ".brace"), ("json", ".json"), ("indented", ".txt")])
def test_export_and_reimport_each_format(panel, workclass_file, tmp_path, fmt, suffix):
    panel.import_file(workclass_file, attribute="workclass")
    before = panel.project.taxonomies["workclass"]
    out = tmp_path / f"out{suffix}"
    assert panel.export_file(out, format=fmt, attribute="workclass"), panel.last_error
    assert read_taxonomy(out, format=fmt) == before
    panel.project.set_taxonomy("workclass", None)
    assert panel.import_file(out, attribute="workclass", format=fmt)
    assert panel.project.taxonomies["workclass"] == before
    # exporting again to the same file without overwrite is refused with a message
    assert not panel.export_file(out, format=fmt, attribute="workclass")
    assert "exists" in panel.last_error


def test_generate_numeric_intervals(panel):
    panel.select_attribute("age")
    panel.gen_lo.setText("16")
    panel.gen_hi.setText("80")
    panel.gen_fanout.setValue(4)
    panel.gen_depth.setValue(2)
    panel.gen_button.click()
    tax = panel.project.taxonomies["age"]
    assert tax.is_numeric and len(tax.leaves) == 16
    assert tax.lo[tax.leaves].min() == 16 and tax.hi[tax.leaves].max() == 80
    assert panel.project.bounds["age"] == (16.0, 80.0)
    assert panel.badge("age")[0] == COVERED
    shot(panel, "taxonomy_panel_numeric")


@pytest.mark.parametrize(
    "lo,hi,fanout,depth,needle",
    [
        ("80", "16", 2, 2, "lo < hi"),
        ("x", "16", 2, 2, "must be numbers"),
        ("0", "5e-324", 2, 1, "too narrow"),
        ("0", "10", 1, 1, "fan-out"),
    ],
)
def test_generate_bad_input(panel, lo, hi, fanout, depth, needle):
    panel.select_attribute("age")
    assert not panel.generate_numeric(lo, hi, fanout, depth)
    assert needle in panel.last_error
    assert "age" not in panel.project.taxonomies


def test_uncovered_numeric_values(panel):
    assert panel.generate_numeric(20, 60, 2, 1, attribute="age")
    state, text = panel.badge("age")
    outside = DATA["age"][(DATA["age"] < 20) | (DATA["age"] >= 60)]
    assert state == UNCOVERED and f"({len(outside)} rows)" in text


def test_flat_from_data_is_marked_not_private(panel):
    panel.select_attribute("workclass")
    assert panel.flat_from_data()
    tax = panel.project.taxonomies["workclass"]
    assert sorted(tax.labels[i] for i in tax.leaves) == sorted(DATA["workclass"].unique())
    assert panel.project.provenance_of("taxonomy:workclass").unconfirmed
    assert "not private" in panel.source_label.text()


def test_editor_add_rename_move_delete_undo_redo(panel, workclass_file):
    panel.import_file(workclass_file, attribute="workclass")
    ed = panel.select_attribute("workclass")
    tax = lambda: panel.project.taxonomies["workclass"]  # noqa: E731
    assert ed.labels() == ["*", "Worked", "Private", "Local-gov", "Self-emp"]
    path = ed.add_child((), "Not-working")
    assert path == (1,)
    ed.add_child(path, "Never-worked")
    assert panel.badge("workclass")[0] == COVERED
    ed.rename((0,), "With-work")
    assert "With-work" in tax().labels and "Worked" not in tax().labels
    # re-parent Self-emp (0, 2) under Not-working (1,)
    new = ed.move((0, 2), (1,))
    assert new == (1, 1)
    t = tax()
    assert t.labels[t.parents[t.index("Self-emp")]] == "Not-working"
    ed.delete((1, 0))
    assert "Never-worked" not in tax().labels and panel.badge("workclass")[0] == UNCOVERED
    snapshots = []
    for _ in range(4):
        ed.undo()
        snapshots.append(list(tax().labels))
    assert tax().labels == ["*", "Worked", "Private", "Local-gov", "Self-emp", "Not-working"]
    for _ in range(4):
        ed.redo()
    assert tax().labels == ["*", "With-work", "Private", "Local-gov", "Not-working", "Self-emp"]
    assert ed.undo_stack.canUndo()


def test_after_undo_and_redo_a_node_is_selected_and_the_edits_are_at_hand(panel, workclass_file):
    """The walk found Add child, Rename and Delete greyed after Undo until a node was clicked."""
    panel.import_file(workclass_file, attribute="workclass")
    ed = panel.select_attribute("workclass")
    ed.select((0, 1))  # Local-gov
    ed.rename((0, 1), "Public")
    ed.undo()
    assert ed.selected_path() == (0, 1) and ed.act_add.isEnabled()
    ed.select((0, 2))
    ed.delete((0, 2))  # Self-emp; the selection falls back, then undo brings it back
    ed.undo()
    assert ed.selected_path() == (0, 2) and ed.act_add.isEnabled()
    ed.redo()
    assert ed.selected_path() is not None and ed.act_add.isEnabled()


def test_editor_refuses_impossible_edits(panel, workclass_file):
    from dpstudio.gui.widgets.taxonomy_editor import EditError

    panel.import_file(workclass_file, attribute="workclass")
    ed = panel.editor("workclass")
    with pytest.raises(EditError, match="under itself"):
        ed.move((0,), (0, 1))
    with pytest.raises(EditError, match="root"):
        ed.move((), (0,))
    with pytest.raises(EditError, match="non-empty"):
        ed.add_child((), "  ")


def test_invalid_tree_stays_in_editor_project_keeps_last_valid(panel, workclass_file):
    panel.import_file(workclass_file, attribute="workclass")
    valid = panel.project.taxonomies["workclass"]
    ed = panel.editor("workclass")
    ed.add_child((), "Private")  # a second leaf with the same label
    assert ed.problem and "Private" in ed.problem
    assert panel.badge("workclass")[0] == INVALID
    assert panel.project.taxonomies["workclass"] is valid
    ed.undo()
    assert not ed.problem and panel.badge("workclass")[0] == UNCOVERED


def test_numeric_node_labels_must_be_intervals(panel):
    panel.generate_numeric(0, 100, 2, 1, attribute="age")
    ed = panel.editor("age")
    from dpstudio.gui.widgets.taxonomy_editor import EditError

    with pytest.raises(EditError, match="not an interval"):
        ed.add_child((0,), "young")
    # splitting [0,50) into two children keeps the partition valid
    ed.add_child((0,), "[0,25)")
    assert ed.problem  # [0,50) now has a gap: not valid yet
    ed.add_child((0,), "[25,50)")
    assert not ed.problem
    assert len(panel.project.taxonomies["age"].leaves) == 3


def test_drag_and_drop_reparents_with_undo(qtbot, panel, workclass_file):
    panel.import_file(workclass_file, attribute="workclass")
    ed = panel.select_attribute("workclass")
    ed.add_child((), "Not-working")
    view = ed.view
    qtbot.waitExposed(view)
    view.expandAll()
    ed.select((0, 2))  # Self-emp
    target = ed._item_at((1,))
    rect = view.visualRect(ed.model.indexFromItem(target))
    mime = QtCore.QMimeData()
    event = QtGui.QDropEvent(
        QtCore.QPointF(rect.center()), QtCore.Qt.MoveAction, mime, QtCore.Qt.LeftButton, QtCore.Qt.NoModifier
    )
    view.dropEvent(event)
    t = panel.project.taxonomies["workclass"]
    assert t.labels[t.parents[t.index("Self-emp")]] == "Not-working"
    ed.undo()
    t = panel.project.taxonomies["workclass"]
    assert t.labels[t.parents[t.index("Self-emp")]] == "Worked"


def test_rename_in_place_goes_through_undo(panel, workclass_file):
    panel.import_file(workclass_file, attribute="workclass")
    ed = panel.editor("workclass")
    item = ed._item_at((0, 0))
    item.setText("Private-sector")
    assert "Private-sector" in panel.project.taxonomies["workclass"].labels
    ed.undo()
    assert "Private" in panel.project.taxonomies["workclass"].labels


def test_import_folder_matches_attribute_names(panel, tmp_path, workclass_file):
    (tmp_path / "income.csv").write_text("<=50K;*\n>50K;*\n", encoding="utf-8")
    done = panel.import_folder(tmp_path)
    assert done == ["workclass", "income"]
    assert panel.badge("income")[0] == COVERED
    assert isinstance(panel.project.taxonomies["income"], Taxonomy)
    QtWidgets.QApplication.processEvents()
    shot(panel, "taxonomy_panel")


def test_the_first_add_on_an_empty_tree_says_it_adds_the_root(panel, monkeypatch):
    """Issue 32 item 6: the first 'Add child' on an empty tree made the typed label the root, unannounced."""
    from PySide6 import QtWidgets

    ed = panel.editor("workclass")
    assert ed.root is None and ed.act_add.text() == "Add root"
    asked = []

    def answer(parent, title, prompt, *a, **k):
        asked.append((title, prompt))
        return ("*" if len(asked) == 1 else "Private", True)

    monkeypatch.setattr(QtWidgets.QInputDialog, "getText", answer)
    ed.act_add.trigger()
    assert ed.root is not None and ed.root.label == "*" and asked[0][0] == "Add root"
    assert "top node" in asked[0][1]
    ed.select(())  # the root
    assert ed.act_add.text() == "Add child"
    ed.act_add.trigger()
    assert asked[1][0] == "Add child" and [c.label for c in ed.root.children] == ["Private"]


def test_a_covered_badge_says_what_happens_to_rows_without_a_value(qtbot, workclass_file):
    """Walk finding: "every value covered" while rows missed a value of the attribute, with nothing said of
    them. Left out by default; kept, they count as the missing token, which the taxonomy must then cover."""
    data = DATA.copy()
    data.loc[[1, 3, 5], "workclass"] = None
    project = Project()
    project.set_data(data, None)
    panel = TaxonomyPanel(project)
    qtbot.addWidget(panel)
    assert panel.import_file(workclass_file, attribute="workclass")
    assert panel.add_uncovered("workclass", parent=())
    state, text = panel.badge("workclass")
    assert state == COVERED
    assert text == "\u2713 every value covered; 3 rows without a value are left out (Data tab: missing values)"
    clean = Project()
    clean.set_data(DATA.copy(), None)
    other = TaxonomyPanel(clean)
    qtbot.addWidget(other)
    assert other.import_file(workclass_file, attribute="workclass")
    assert other.add_uncovered("workclass", parent=())
    assert other.badge("workclass") == (COVERED, "\u2713 every value covered")  # nothing missing: nothing said
