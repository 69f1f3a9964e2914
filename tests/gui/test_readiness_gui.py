"""The readiness checklist beside Run (issue 9, item 5): every problem at once, live, each with a button that
goes to the place to fix it; Run refuses with the same list and spends nothing."""

from __future__ import annotations

from PySide6 import QtCore

from dpstudio.model.project.project import RELEASE
from tests.gui.export_fixtures import table_project

Qt = QtCore.Qt


def texts(panel):
    return [p.text for p in panel.checklist.problems]


def button_for(panel, word):
    found = [b for b, p in zip(panel.checklist.buttons, panel.checklist.problems) if word in p.text]
    assert found, (word, texts(panel))
    return found[0]


def test_checklist_lists_everything_goes_there_and_run_refuses_with_it(qtbot, window, tmp_path):
    data = tmp_path / "people.csv"
    data.write_text("stand-in\n")
    p = table_project(steps=2, project=window.project, path=data)
    panel = window.show_panel("Algorithm")
    assert panel.checklist.problems == [] and "Ready to run" in panel.checklist.status.text()

    p.set_taxonomy("work", None)
    p.clear_bounds("age")
    p.set_classes(None)
    window.set_mode(RELEASE)
    panel.eps_edit.setText("1,000")  # ambiguous: the box holds no valid epsilon
    shown = texts(panel)  # updated live, without pressing anything
    assert any("work has no taxonomy" in t for t in shown)
    assert any("age" in t and "bounds" in t for t in shown)
    assert any("class values of income" in t for t in shown)
    assert any(t.startswith("epsilon is not valid") for t in shown)
    assert len(panel.checklist.buttons) == len(shown) >= 4
    assert "to fix before Run" in panel.checklist.status.text()

    # Run refuses with every problem in one message; nothing is asked, nothing spent
    panel.exec_dialog = lambda box: (_ for _ in ()).throw(AssertionError("nothing may be asked"))
    assert panel.run() is None
    for part in ("work has no taxonomy", "age", "class values", "epsilon"):
        assert part in window.last_error
    assert p.release_ledger is None or not p.release_ledger.entries

    # each button goes to the place: the panel is shown and the attribute selected
    qtbot.mouseClick(button_for(panel, "work has no taxonomy"), Qt.LeftButton)
    tax = window.panels["Taxonomy"]
    assert window.tabs.currentWidget() is tax and tax.current_attribute() == "work"
    window.show_panel("Algorithm")
    qtbot.mouseClick(button_for(panel, "bounds"), Qt.LeftButton)
    data_panel = window.panels["Data"]
    assert window.tabs.currentWidget() is data_panel and data_panel.current_attribute() == "age"
    assert window.go_to("data.bounds", "age") is data_panel.lo_edit
    window.show_panel("Algorithm")
    qtbot.mouseClick(button_for(panel, "class values"), Qt.LeftButton)
    assert window.tabs.currentWidget() is data_panel and data_panel.current_attribute() == "income"
    window.show_panel("Algorithm")
    qtbot.mouseClick(button_for(panel, "epsilon"), Qt.LeftButton)
    assert window.tabs.currentWidget() is panel

    # fixing them empties the list, live
    panel.eps_edit.setText("1")
    p.set_bounds("age", 17, 90)
    p.set_classes(["<=50K", ">50K"])
    assert texts(panel) == ["work has no taxonomy"]
    from dpstudio.core import taxonomy_generators as tg

    p.set_taxonomy("work", tg.flat_categorical(["A", "B", "C"], "work"))
    assert panel.checklist.problems == [] and "Ready to run" in panel.checklist.status.text()
