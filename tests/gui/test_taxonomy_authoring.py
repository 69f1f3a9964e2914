"""Taxonomy authoring protects work: a tree drawn or edited in the studio is credited as such ("drawn here",
"edited here, from ideo.csv") in the public inputs the sidecar and the report list; an import asks before
replacing it (No keeps it); "Add the selected values as leaves" adds the selected values only; the folder
summary does not list every unrelated file."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
from PySide6 import QtWidgets

from dpstudio.gui.panels.export import ExportPanel
from dpstudio.gui.panels.taxonomy import TaxonomyPanel
from dpstudio.model.data import load_dataset
from dpstudio.model.project import Project
from tests.gui.export_fixtures import run
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


def _answer(panel, yes: bool):
    """Answer the replace question in its real modal loop (tests/gui/test_run_epsilon.Answer)."""
    panel.exec_dialog = Answer(button=QtWidgets.QMessageBox.Yes if yes else QtWidgets.QMessageBox.No)


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
    p.set_mode("release")
    run(p)
    out = tmp_path / "out"
    out.mkdir()
    w = ExportPanel(p)
    qtbot.addWidget(w)
    sidecar = json.loads(w.export_to(out, "r", confirm=False)[1].read_text())
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
