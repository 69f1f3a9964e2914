"""What a real-window walk found after the whole counts (issue 34): the Stream chart's axes in release mode
came from the true counts shown before; a Watch node that is not noised said "no noisy count yet" after the
run; the Export panel left the folder it made when the question was answered No; the histogram sidecar said
"rounded: false" of whole counts."""

from __future__ import annotations

import json

import numpy as np
from PySide6 import QtWidgets

from dpstudio.model.project.project import Project
from tests.gui.export_fixtures import histogram_data_project, release_and_export, run


def test_release_mode_axes_say_nothing_of_the_true_counts(qtbot, tmp_path, monkeypatch):
    from dpstudio.gui.panels.stream import StreamPanel
    from dpstudio.model.stream.session import COUNTS, StreamSource

    monkeypatch.setenv("DPSTUDIO_BUDGET_STORE", str(tmp_path / "s.sqlite"))
    path = tmp_path / "c.txt"
    path.write_text("\n".join(str(v) for v in range(1260, 1310)) + "\n")
    project = Project()
    project.set_mode("teaching")
    panel = StreamPanel(project)
    qtbot.addWidget(panel)
    panel.resize(1200, 700)
    panel.show()
    assert panel.set_source(StreamSource(COUNTS, path))
    qtbot.wait(20)
    y = panel.plot.getViewBox().viewRange()[1]
    assert y[0] > 1000  # teaching: the true counts are drawn
    project.set_mode("release")
    qtbot.wait(20)
    x, y = panel.plot.getViewBox().viewRange()
    assert y[1] < 2 and x[0] < 2 and 49 < x[1] < 52  # public: the timestamps, and a count axis of nothing
    panel.shutdown()


def test_an_unnoised_node_says_so_after_the_run_and_the_sidecar_says_whole(qtbot, tmp_path, monkeypatch):
    from dpstudio.gui.panels.watch import WatchPanel

    monkeypatch.setenv("DPSTUDIO_BUDGET_STORE", str(tmp_path / "s.sqlite"))
    p = histogram_data_project(n_rows=400, bins=16)
    p.set_algorithm("hb", {"bins": 16, "branching": 4, "noise_root": False})
    paths = release_and_export(qtbot, p, tmp_path / "out", "age")
    side = json.loads(paths[1].read_text())
    assert side["post_processing"]["published"] == "whole"
    assert side["post_processing"]["rounded"] and side["post_processing"]["clamped"]
    watch = WatchPanel(p)
    qtbot.addWidget(watch)
    watch._load_from_project()
    watch._show_node(0)
    text = watch.details.text()
    assert "not noised: its count is the sum of its children's" in text and "no noisy count yet" not in text
    assert f"published {int(np.sum(p.result.released)):,}" in text


def test_a_folder_made_for_an_export_answered_no_is_removed(qtbot, tmp_path, monkeypatch):
    from dpstudio.gui.panels.export import ExportPanel, ExportRefused

    monkeypatch.setenv("DPSTUDIO_BUDGET_STORE", str(tmp_path / "s.sqlite"))
    p = histogram_data_project(n_rows=400, bins=16)
    p.set_mode("release")
    run(p)
    panel = ExportPanel(p)
    qtbot.addWidget(panel)
    monkeypatch.setattr(QtWidgets.QMessageBox, "question", lambda *a, **k: QtWidgets.QMessageBox.No)
    folder = tmp_path / "new_folder"
    try:
        panel.export_to(folder, "age")
    except ExportRefused as exc:
        assert "nothing was written" in str(exc)
    assert not folder.exists()


def test_the_export_name_starts_again_on_a_new_dataset(qtbot, tmp_path):
    """Issue 32 item 6: the file name typed for one dataset ('age_hb') stayed on the next."""
    from dpstudio.gui.panels.export import ExportPanel
    from tests.gui.export_fixtures import table_project

    p = table_project(n=50, path=tmp_path / "survey.csv")
    panel = ExportPanel(p)
    qtbot.addWidget(panel)
    panel.name_edit.setText("age_hb")
    table_project(n=60, project=p, path=tmp_path / "visits.csv.gz")
    assert panel.name_edit.text() == "visits_release"


def test_runs_refusal_goes_from_the_window_when_its_problems_are_fixed(qtbot, window):
    """From the walk: the red 'not ready to run: ...' bar stayed after the problems were fixed, until a run."""
    from tests.gui.export_fixtures import table_project

    p = table_project(n=200, project=window.project)
    p.classes = None  # undeclared class values: Run is refused
    p.set_mode("release")
    algorithm = window.show_panel("Algorithm")
    algorithm.refresh_readiness()
    algorithm.run()
    qtbot.wait(20)
    assert window.message_label.text().startswith("not ready to run")
    p.set_classes(["<=50K", ">50K"])
    qtbot.wait(20)
    algorithm.refresh_readiness()
    assert not window.message_bar.isVisibleTo(window) and window.message_label.text() == ""
    assert algorithm.eps_error.text() == ""
    p.dirty = False


def test_run_is_off_while_the_checklist_lists_problems(qtbot, window, tmp_path):
    """Issue 32 item 5: a one-column file left Run enabled beside '2 things to fix'."""
    import pandas as pd

    path = tmp_path / "one.csv"
    pd.DataFrame({"only": ["a", "b", "c"] * 10}).to_csv(path, index=False)
    p = window.project
    p.set_data(pd.read_csv(path), path, types={"only": "categorical"})
    algorithm = window.show_panel("Algorithm")
    algorithm.refresh_readiness()
    n = len(algorithm.checklist.problems)
    assert n >= 1 and not algorithm.run_button.isEnabled()
    assert f"Run is off until the {n} problem" in algorithm.run_button.toolTip()
    from tests.gui.export_fixtures import table_project

    table_project(n=100, project=p)  # a table with everything declared: the checklist empties, Run comes on
    algorithm.refresh_readiness()
    assert not algorithm.checklist.problems and algorithm.run_button.isEnabled()
    p.dirty = False


def test_the_chosen_candidate_is_named_whole_up_to_a_title_line(qtbot):
    """Walk 52 read "chosen: capital-gain=[0,100000) at 5..., p = 0.998": a 32-character name was cut at 28.
    A name that fits one title line beside "chosen: " is written whole; a longer one is cut with "..."."""
    from dpstudio.core.events import CandidatesScored, WinnerChosen
    from dpstudio.gui.widgets.candidates_chart import CHOSEN_CHARS, TITLE_CHARS, CandidatesChart

    chart = CandidatesChart()
    qtbot.addWidget(chart)
    chart.resize(420, 600)
    fits = "capital-gain=[0,100000) at 50000"
    longer = "x" * (CHOSEN_CHARS + 5)
    assert len("chosen: " + "x" * CHOSEN_CHARS + ",") == TITLE_CHARS
    for name, shown in (
        (fits, fits),
        ("y" * CHOSEN_CHARS, "y" * CHOSEN_CHARS),
        (longer, "x" * (CHOSEN_CHARS - 3) + "..."),
    ):
        scored = CandidatesScored(3, (name, "age=[17,91) at 40"), (5.0, 1.0), (0.9, 0.1), "exponential", selection=2)
        chart.set_step(scored, WinnerChosen(3, 0, name, selection=2))
        title = chart.title_text
        assert f"chosen: {shown}" in title and (shown.endswith("...") or f"chosen: {shown}..." not in title)


def test_a_winner_about_as_likely_as_the_best_other_candidate_is_said_so_in_words():
    """Walk 54 read "the winner was 1 times less likely than the best other candidate": odds that round to 1
    either way are said to be about even; clear odds keep their number."""
    from dpstudio.gui.widgets.candidates_chart import odds_caption

    for probs, w in (((0.49, 0.51), 0), ((0.51, 0.49), 0), ((0.38, 0.23, 0.39), 0), ((0.5, 0.5), 1)):
        text = odds_caption(probs, w)
        assert text.startswith("the winner was about as likely as the best other candidate"), text
        assert "1 times" not in text
    assert odds_caption((0.2, 0.8), 0).startswith("the winner was 4 times less likely")
    assert odds_caption((0.6, 0.4), 0).startswith("the winner was 1.5 times likelier")
    assert odds_caption((0.9, 0.1), 0).startswith("the winner was 9 times likelier")
