"""Taxonomy authoring protects work: a tree drawn or edited in the studio is credited as such ("drawn here",
"edited here, from ideo.csv") in the public inputs the sidecar and the report list; an import asks before
replacing it (No keeps it); "Add the selected values as leaves" adds the selected values only; the folder
summary does not list every unrelated file."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd

from dpstudio.gui.panels.taxonomy import TaxonomyPanel
from dpstudio.model.project.data import load_dataset
from dpstudio.model.project.project import Project
from tests.gui.export_fixtures import release_and_export
from tests.gui.test_run_epsilon import Answer


def _project(tmp_path):
    rng = np.random.default_rng(0)
    n = 400
    pd.DataFrame(
        {
            "ideo": rng.choice(["left", "centre", "right", "other"], n),
            "state": rng.choice(["A", "B", "C"], n),
            "vote": rng.choice(["yes", "no"], n),
        }
    ).to_csv(tmp_path / "survey.csv", index=False)
    p = Project()
    p.set_data(load_dataset(tmp_path / "survey.csv"), tmp_path / "survey.csv")
    for c in ("ideo", "state", "vote"):
        p.set_type(c, "categorical", "the questionnaire's answers")
    p.set_role("vote", "class")
    p.set_classes(["yes", "no"])
    p.set_algorithm("diffgen", {"steps": 2})
    folder = tmp_path / "trees"
    folder.mkdir()
    (folder / "ideo.csv").write_text("left;*\ncentre;*\nright;*\n", encoding="utf-8")
    (folder / "state.csv").write_text("A;*\nB;*\nC;*\n", encoding="utf-8")
    for i in range(9):  # unrelated files in the same folder
        (folder / f"unrelated{i}.csv").write_text("x;*\n", encoding="utf-8")
    return p, folder


def _answer(panel, yes: bool | None = None, choice: str | None = None):
    """Answer the replace question in its real modal loop (tests/gui/test_run_epsilon.Answer): Replace
    (yes), Keep mine (no) or a button by its text."""
    panel.exec_dialog = Answer(choice=choice or ("Replace" if yes else "Keep mine"))


def test_edits_are_credited_and_an_import_asks_before_replacing(qtbot, tmp_path):
    p, folder = _project(tmp_path)
    panel = TaxonomyPanel(p)
    qtbot.addWidget(panel)
    assert panel.import_file(folder / "ideo.csv", attribute="ideo")
    assert p.provenance_of("taxonomy:ideo").source == "ideo.csv"
    panel.editor("ideo").add_child((), "other")  # edited here
    assert p.provenance_of("taxonomy:ideo").source == "edited here, from ideo.csv"
    panel.editor("ideo").add_child((), "none")
    assert p.provenance_of("taxonomy:ideo").source == "edited here, from ideo.csv"  # said once
    panel.select_attribute("state")
    panel.editor("state").add_child((), "*")  # a tree drawn by hand
    for label in ("A", "B", "C"):
        panel.editor("state").add_child((), label)
    assert p.provenance_of("taxonomy:state").source == "drawn here"

    _answer(panel, yes=False)
    done = panel.import_folder(folder)
    assert done == [] and sorted(panel.kept) == ["ideo", "state"]
    assert "kept the trees made here" in panel.last_summary
    assert "and 4 more" in panel.last_summary  # 9 unrelated files: five named, the rest counted
    assert "other" in p.taxonomies["ideo"].labels  # the edited tree is still there
    _answer(panel, yes=True)
    assert panel.import_folder(folder) == ["ideo", "state"]
    assert p.provenance_of("taxonomy:ideo").source == "ideo.csv"
    assert "other" not in p.taxonomies["ideo"].labels


def test_the_sidecar_credits_an_edited_tree(qtbot, tmp_path):
    p, folder = _project(tmp_path)
    panel = TaxonomyPanel(p)
    qtbot.addWidget(panel)
    assert panel.import_file(folder / "ideo.csv", attribute="ideo")
    panel.editor("ideo").add_child((), "other")
    assert panel.import_file(folder / "state.csv", attribute="state")
    out = tmp_path / "out"
    sidecar = json.loads(release_and_export(qtbot, p, out, "r")[1].read_text())
    record = {x["key"]: x["source"] for x in sidecar["public_inputs"]}
    assert record["taxonomy:ideo"] == "edited here, from ideo.csv" and record["taxonomy:state"] == "state.csv"
    report = (out / "r.report.html").read_text()
    assert "edited here, from ideo.csv" in report


def test_add_as_leaves_adds_the_selected_values_only(qtbot, tmp_path):
    p, folder = _project(tmp_path)
    panel = TaxonomyPanel(p)
    qtbot.addWidget(panel)
    panel.editor("ideo").add_child((), "*")
    panel.editor("ideo").add_child((), "left")
    panel.select_attribute("ideo")
    items = [panel.uncovered_list.item(i) for i in range(panel.uncovered_list.count())]
    assert {i.data(0x0100) for i in items} == {"centre", "right", "other"}
    next(i for i in items if i.data(0x0100) == "right").setSelected(True)
    assert panel.add_uncovered("ideo")
    labels = set(p.taxonomies["ideo"].labels)
    assert "right" in labels and "centre" not in labels and "other" not in labels
    # values from the data mark the tree derived, and it still says it was drawn here: an import asks
    prov = p.provenance_of("taxonomy:ideo")
    assert prov.derived and prov.source.startswith("drawn here; ")
    _answer(panel, yes=False)
    assert panel.import_folder(folder) == ["state"] and panel.kept == ["ideo"]


def test_escape_keeps_the_tree_made_here(qtbot, tmp_path):
    from PySide6.QtCore import Qt

    p, folder = _project(tmp_path)
    panel = TaxonomyPanel(p)
    qtbot.addWidget(panel)
    for label in ("*", "left"):
        panel.editor("ideo").add_child((), label)
    before = p.taxonomies["ideo"]
    panel.exec_dialog = Answer(key=Qt.Key_Escape)
    assert not panel.import_file(folder / "ideo.csv", attribute="ideo")
    assert p.taxonomies["ideo"] == before and panel.kept == ["ideo"]
    assert {b.text() for b in panel.replace_question.buttons()} == {
        "Replace with ideo.csv",
        "Keep mine",
        "Merge in ideo.csv",
    }


def _merging(qtbot, tmp_path, group: str, extra=()):
    """A tree drawn here (``*`` > ``group`` > left, then ``extra`` under the root) and a file ideo.csv
    (left and right under wing, centre under middle), with the question answered Merge."""
    p, folder = _project(tmp_path)
    (folder / "ideo.csv").write_text("left;wing;*\ncentre;middle;*\nright;wing;*\n", encoding="utf-8")
    panel = TaxonomyPanel(p)
    qtbot.addWidget(panel)
    ed = panel.editor("ideo")
    ed.add_child((), "*")
    ed.add_child((), group)
    ed.add_child((0,), "left")
    for label in extra:
        ed.add_child((), label)
    _answer(panel, choice="Merge in ideo.csv")
    return p, folder, panel, ed


def test_merge_keeps_the_tree_made_here_and_adds_what_the_file_has(qtbot, tmp_path):
    p, folder, panel, ed = _merging(qtbot, tmp_path, "wing", extra=("other",))
    assert panel.import_file(folder / "ideo.csv", attribute="ideo")
    tax = p.taxonomies["ideo"]
    parent = {tax.labels[i]: tax.labels[tax.parents[i]] for i in range(1, len(tax))}
    # the hand-made tree is kept where it is; the file's "right" joins its "wing", "middle" comes as a group
    assert parent == {"wing": "*", "left": "wing", "right": "wing", "other": "*", "middle": "*", "centre": "middle"}
    assert set(panel.merged["ideo"].added_leaves) == {"right", "centre"}
    assert "added 2 values" in panel.last_merge and "the group middle" in panel.last_merge
    assert p.provenance_of("taxonomy:ideo").source == "drawn here; merged with ideo.csv"
    assert panel.source_label.text() == "drawn here; merged with ideo.csv"  # the line shown says the same
    ed.undo()  # one step takes the merge back, with its credit
    assert "right" not in p.taxonomies["ideo"].labels
    assert p.provenance_of("taxonomy:ideo").source == "drawn here" == panel.source_label.text()
    ed.redo()
    assert panel.source_label.text() == "drawn here; merged with ideo.csv"


def test_numeric_trees_are_not_offered_a_merge(qtbot, tmp_path):
    from dpstudio.core.taxonomy import Node, Taxonomy, TaxonomyError
    from dpstudio.core.taxonomy_merge import merge_trees

    a = Taxonomy(Node("[0,10)", [Node("[0,5)", [], 0, 5), Node("[5,10)", [], 5, 10)], 0, 10), "x")
    b = Taxonomy(Node("[0,10)", [Node("[0,2)", [], 0, 2), Node("[2,10)", [], 2, 10)], 0, 10), "x")
    try:
        merge_trees(a, b)
    except TaxonomyError as exc:
        assert "numeric" in str(exc)
    else:
        raise AssertionError("a numeric merge must be refused")


def test_undo_of_add_as_leaves_takes_back_the_derived_mark(qtbot, tmp_path):
    p, folder = _project(tmp_path)
    panel = TaxonomyPanel(p)
    qtbot.addWidget(panel)
    assert panel.import_file(folder / "ideo.csv", attribute="ideo")
    assert panel.add_uncovered("ideo", values=["other"])
    prov = p.provenance_of("taxonomy:ideo")
    assert prov.derived and "other" in p.taxonomies["ideo"].labels
    ed = panel.editor("ideo")
    ed.undo()
    prov = p.provenance_of("taxonomy:ideo")
    assert "other" not in p.taxonomies["ideo"].labels
    assert not prov.derived and prov.source == "ideo.csv"
    assert "derived" not in panel.source_label.text().lower()
    ed.redo()  # and redo puts the mark back with the values
    assert p.provenance_of("taxonomy:ideo").derived and "other" in p.taxonomies["ideo"].labels
    ed.act_undo.trigger()  # the toolbar's Undo (and its shortcut) go the same way
    assert not p.provenance_of("taxonomy:ideo").derived


def test_a_merge_says_what_it_kept_where_the_file_differs(qtbot, tmp_path):
    p, folder, panel, ed = _merging(qtbot, tmp_path, "mine")  # the file puts left under wing
    assert panel.import_file(folder / "ideo.csv", attribute="ideo")
    assert "kept left under mine (the file puts it under wing)" in panel.last_merge


def test_the_folder_offer_names_only_what_still_needs_a_tree(qtbot, tmp_path):
    p, folder = _project(tmp_path)
    beside = tmp_path / "taxonomies"
    folder.rename(beside)
    panel = TaxonomyPanel(p)
    qtbot.addWidget(panel)
    panel.show()
    panel.offer_folder_beside_data()
    assert panel.offer_bar.isVisible() and "(ideo, state)" in panel.offer_label.text()
    assert panel.import_file(beside / "ideo.csv", attribute="ideo")
    assert panel.offer_bar.isVisible() and "(state)" in panel.offer_label.text()


def test_a_folder_import_that_merges_says_so_and_undo_retires_its_summary(qtbot, tmp_path):
    p, folder = _project(tmp_path)
    panel = TaxonomyPanel(p)
    qtbot.addWidget(panel)
    panel.show()
    ed = panel.editor("ideo")
    for label in ("*", "other"):
        ed.add_child((), label)
    panel.select_attribute("state")
    seen = []

    def answer(box):
        seen.append(panel.current_attribute())  # the tree asked about is the one in view
        return Answer(choice="Merge in ideo.csv")(box)

    panel.exec_dialog = answer
    assert sorted(panel.import_folder(folder)) == ["ideo", "state"] and seen == ["ideo"]
    assert "merged ideo.csv into the tree of ideo made here" in panel.last_summary
    assert panel.summary_label.isVisible()
    ed.undo()
    assert not panel.summary_label.isVisible()
