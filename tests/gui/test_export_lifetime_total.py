"""The export question and the report's Guarantee table state the dataset's lifetime total, what was spent on
it and what remains, from the run's record (the budget store's charge), not the ledger's total, which is only
this release's epsilon (issue 31: "spent epsilon = 1 of your budget of 1" beside a lifetime total of 5)."""

from __future__ import annotations

import re

from dpstudio.gui.panels.export import ExportPanel
from tests.gui.export_fixtures import release_and_export, table_project


def test_export_question_and_report_name_the_lifetime_total(qtbot, tmp_path):
    p = table_project(steps=2)
    p.set_mode("release")
    p.set_dataset_total(5)
    paths = release_and_export(qtbot, p, tmp_path / "out", "rel")
    panel = ExportPanel(p)
    qtbot.addWidget(panel)
    text = panel.confirm_text()
    assert "\u201d has a lifetime budget of 5," in text, text
    assert "a lifetime budget of 5, of which 1 is spent now (this release included) and 4 remains" in text, text
    assert "''s" not in text
    assert "of your budget of 1" not in text
    report = paths[2].read_text()
    guarantee = report.split("<h2>Guarantee</h2>")[1].split("<h2>")[0]
    assert re.search(r"lifetime budget</td><td[^>]*>5 \(spent so far: 1; remaining: 4\)", guarantee), guarantee
    assert "of a budget of 1" not in guarantee


def test_an_untracked_release_says_nothing_was_charged(qtbot, tmp_path):
    p = table_project(steps=2)
    p.budget_store = "none"
    paths = release_and_export(qtbot, p, tmp_path / "out", "rel")
    panel = ExportPanel(p)
    qtbot.addWidget(panel)
    assert "did not charge it" in panel.confirm_text()
    assert "not tracked" in paths[2].read_text().split("<h2>Guarantee</h2>")[1].split("<h2>")[0]
