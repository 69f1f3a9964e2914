"""Issue 24 item 5: one notion of the current dataset and run drives every panel. After a run on the sample,
opening another file leaves nothing of the sample's run or view on any panel: the Watch's tree and ledger,
Compare's curves, Export's files, the Anonymize result, the window's message, and the Data panel's scroll
position; the Algorithm checklist describes the new file."""

from __future__ import annotations

import numpy as np
import pandas as pd

from tests.gui.test_newcomer_path import make_ready_like_the_demo


def teaching_run_on_the_sample(qtbot, window, taxonomies: bool = False, steps: int = 3):
    """The sample, ready as in the demo, and a short teaching run watched to its end."""
    p = window.project
    window.panels["Data"].open_sample()
    qtbot.waitUntil(lambda: p.frame is not None, timeout=120000)
    if taxonomies:
        from dpstudio.gui.demo import bundled_taxonomy_folder

        window.panels["Taxonomy"].import_folder(bundled_taxonomy_folder())
    make_ready_like_the_demo(window)
    algorithm = window.panels["Algorithm"]
    algorithm.set_param("steps", steps)
    algorithm.run()
    qtbot.waitUntil(lambda: p.result is not None and not window.runner.busy, timeout=300000)
    qtbot.waitUntil(lambda: len(window.panels["Watch"].replay) > 0, timeout=30000)
    return p, algorithm, window.panels["Watch"], window.panels["Compare"]


def test_a_new_file_leaves_nothing_of_the_previous_run(qtbot, window, tmp_path):
    # ten steps: levels given little budget, so the scatter's title speaks of the noisy counts' spread
    p, algorithm, watch, compare = teaching_run_on_the_sample(qtbot, window, steps=10)
    for name in ("Watch", "Compare"):  # seen, as a person would, before the next file
        window.show_panel(name)
        qtbot.wait(60)
    watch.seek_end()
    qtbot.wait(60)
    assert not watch.candidates.isHidden() and compare.scatter.toolTip()  # the run's spread, in words
    data = window.show_panel("Data")
    data.preview.verticalScrollBar().setValue(data.preview.verticalScrollBar().maximum() // 2)
    assert data.preview.verticalScrollBar().value() > 0
    window.show_error("something about the sample")

    pd.DataFrame({"a": np.arange(300) % 5, "b": ["x", "y", "z"] * 100}).to_csv(tmp_path / "other.csv", index=False)
    data.open_file(tmp_path / "other.csv")
    qtbot.waitUntil(lambda: p.data_path is not None and p.data_path.name == "other.csv", timeout=60000)
    qtbot.wait(50)
    assert p.result is None
    assert len(watch.replay) == 0 and watch.replay.state.n_nodes == 0 and watch.ledger.entries == []
    window.show_panel("Watch")
    qtbot.wait(60)
    watch.tree.redraw()
    assert all(item.getData()[0].size == 0 for item in (*watch.tree.layers, watch.tree.glyph_layer))
    # no selection step to show: the chart waits empty for the next run (the project's algorithm selects)
    assert watch.candidates.bar_labels() == [] and watch.candidates.shown == []
    assert compare.plot.series == {}
    assert compare.scatter.toolTip() == ""  # not the previous run's spread
    assert window.panels["Export"].refusal_reason()
    assert window.panels["Anonymize"].outcome is None
    assert "sample" not in window.message_label.text()
    assert data.preview.verticalScrollBar().value() == 0
    assert algorithm.readiness()  # the checklist is about the new file (no class, no taxonomies yet)


def test_a_refusal_beside_run_goes_with_its_file(qtbot, window, tmp_path):
    """The real window showed the previous file's "1 problem" beside Run after another file was opened."""
    algorithm = window.panels["Algorithm"]
    algorithm.eps_error.setText("Not ready: 1 problem to fix first")
    pd.DataFrame({"a": np.arange(30) % 5, "b": ["x", "y", "z"] * 10}).to_csv(tmp_path / "f.csv", index=False)
    window.panels["Data"].open_file(tmp_path / "f.csv")
    qtbot.waitUntil(lambda: window.project.frame is not None, timeout=60000)
    assert algorithm.eps_error.text() == ""


def test_the_window_opens_no_taller_than_the_screen(qtbot):
    from PySide6 import QtGui

    from dpstudio.gui.main_window import MainWindow

    win = MainWindow()
    qtbot.addWidget(win)
    assert win.height() <= QtGui.QGuiApplication.primaryScreen().availableGeometry().height()
    win.project.dirty = False


def test_a_mode_change_leaves_nothing_of_the_teaching_runs(qtbot, window, tmp_path):
    """Issue 24 item 5, the mode half: a teaching run must never be shown or exported as a release. After
    teaching runs of every kind (a DP run scored on a test file, an anonymization set beside it, a stream
    run), switching to release mode leaves none of them on any panel."""
    from PySide6.QtCore import Qt
    from PySide6.QtTest import QTest

    from dpstudio.io.adult import load_bundled_adult
    from dpstudio.model.project.project import RELEASE
    from dpstudio.model.stream.session import COUNTS, StreamSource

    p, algorithm, watch, compare = teaching_run_on_the_sample(qtbot, window, taxonomies=True)
    load_bundled_adult()[1].to_csv(tmp_path / "held_out.csv", index=False)
    compare.evaluate_classification(tmp_path / "held_out.csv")
    assert p.test_path == tmp_path / "held_out.csv"
    anonymize = window.panels["Anonymize"]
    anonymize.set_qi(("education", "marital-status", "sex"))
    with qtbot.waitSignal(anonymize.finished, timeout=120000):
        QTest.mouseClick(anonymize.run_button, Qt.LeftButton)
    QTest.mouseClick(anonymize.side_button, Qt.LeftButton)  # scores on the file Compare scored
    assert anonymize.side is not None and "held_out.csv" in anonymize.side_note.text()
    (tmp_path / "visits.txt").write_text("count\n" + "\n".join(str(100 + i % 7) for i in range(40)) + "\n")
    stream = window.panels["Stream"]
    assert stream.set_source(StreamSource(COUNTS, tmp_path / "visits.txt"))
    stream.run_button.click()
    qtbot.waitUntil(lambda: stream.playback is not None and not window.runner.busy, timeout=60000)

    window.set_mode(RELEASE)
    qtbot.wait(50)
    assert p.result is None
    assert len(watch.replay) == 0 and watch.ledger.entries == []
    assert compare.plot.series == {} and compare.scores is None
    assert window.panels["Export"].refusal_reason()
    assert anonymize.side is None and anonymize.side_table.item(0, 0) is None
    assert stream.playback is None and stream.result is None and not stream.export_button.isEnabled()
    assert stream.ledger_list.count() == 0
    assert algorithm.eps_error.text() == "" and not window.message_is_error
