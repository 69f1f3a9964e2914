"""The Stream panel (issue 12): teaching and release runs driven through the real widgets, the ledger
filling line by line, the budget store charged before a release is shown, export, the literal ASM refused
in release mode, and Compare's analytic and simulated curves."""

from __future__ import annotations

import json

import numpy as np
import pytest
from PySide6 import QtWidgets

from dpstudio.algorithms.stream_runs import StreamParams
from dpstudio.io.budget_store import open_store
from dpstudio.model.project.project import RELEASE, Project
from dpstudio.model.stream.session import COUNTS, StreamSource
from dpstudio.model.stream.view import NOT_DP, analytic_window_errors
from tests.gui.test_run_epsilon import Answer

from .conftest import shot

COUNTS_T = 60
EPSILONS_FOR_TEST = (0.1, 0.2, 0.5, 1.0, 2.0, 5.0, 10.0)


@pytest.fixture
def counts_file(tmp_path):
    rng = np.random.default_rng(7)
    counts = (200 + 50 * np.sin(np.arange(COUNTS_T) / 6) + rng.integers(0, 20, COUNTS_T)).astype(int)
    path = tmp_path / "visits.txt"
    path.write_text("count\n" + "\n".join(map(str, counts)) + "\n", encoding="utf-8")
    return path, counts


@pytest.fixture
def panel(qtbot, counts_file, tmp_path):
    from dpstudio.gui.panels.stream import StreamPanel

    project = Project()
    project.budget_store = str(tmp_path / "budget.sqlite")
    p = StreamPanel(project)
    p.exec_dialog = Answer(button=QtWidgets.QMessageBox.Yes)  # the release question, answered Yes
    qtbot.addWidget(p)
    assert p.set_source(StreamSource(COUNTS, counts_file[0]))
    p.window_box.setValue(10)
    p.resize(1200, 700)
    p.show()
    yield p
    p.shutdown()


def choose(combo, data):
    combo.setCurrentIndex(combo.findData(data))


def run_and_wait(qtbot, p):
    qtbot.mouseClick(p.run_button, __import__("PySide6").QtCore.Qt.LeftButton)
    qtbot.waitUntil(lambda: p.playback is not None, timeout=20000)


def spent_in_store(p):
    store = open_store(p.project.budget_store)
    return [d.spent for d in store.datasets()]


def test_teaching_run_plays_the_stream_with_truth_groups_and_the_ledger_line_by_line(qtbot, panel, counts_file):
    counts = counts_file[1]
    choose(panel.mechanism_combo, "tpm")
    run_and_wait(qtbot, panel)
    n_events = len(panel.playback.events)
    assert panel.slider.maximum() == n_events and panel.slider.value() == n_events
    # the end: every timestamp released, the truth (teaching) and the last window's groups drawn
    ts, vals = panel.plot.shown["released"]
    assert list(ts) == list(range(1, COUNTS_T + 1))
    truth_t, truth = panel.plot.shown["truth"]
    assert list(truth) == list(counts.astype(float))
    assert panel.plot.shown["window"] == (COUNTS_T - 9, COUNTS_T)
    assert panel.plot.shown["groups"] is not None
    # TPM: one ledger line per timestamp, eps/T each
    assert panel.ledger_list.count() == COUNTS_T
    assert "1/60" in panel.ledger_list.item(0).text()
    # scrubbing back: the ledger shrinks to the spends made so far, then fills again line by line
    panel.slider.setValue(21)  # Progress, then TPM's spends (all before its first noisy value)
    assert panel.ledger_list.count() == len(panel.playback.state(21).ledger) == 20
    assert panel.plot.shown["released"][0].size == 0  # nothing noisy shown before its spend
    panel.slider.setValue(22)
    assert panel.ledger_list.count() == 21
    # the guarantee is always shown; teaching runs are never exportable
    assert "user-level epsilon-DP over the horizon T = 60" in panel.guarantee_label.text()
    assert not panel.export_button.isEnabled()
    assert panel.export_to(counts_file[0].parent / "t.csv") is None
    assert not (counts_file[0].parent / "t.csv").exists()
    assert spent_in_store(panel) == []  # a simulation charges nothing
    panel.slider.setValue(panel.slider.maximum())
    shot(panel, "stream_teaching")


def test_play_button_slides_the_window_to_the_end(qtbot, panel):
    run_and_wait(qtbot, panel)
    qtbot.mouseClick(panel.play_button, __import__("PySide6").QtCore.Qt.LeftButton)
    assert panel.timer.isActive() and panel.slider.value() == 0
    qtbot.waitUntil(lambda: not panel.timer.isActive(), timeout=20000)
    assert panel.slider.value() == panel.slider.maximum()


def test_release_run_charges_the_store_first_shows_no_truth_and_exports(qtbot, panel, tmp_path):
    from dpstudio.model.stream import run as stream_run  # the run session the panel drives

    panel.project.set_mode(RELEASE)
    choose(panel.mechanism_combo, "swm")
    panel.eps_edit.setText("0.5")
    seen = []
    real = stream_run.run_stream

    def spy(*args):  # the store must be charged before the first noisy value is drawn
        seen.append(list(spent_in_store(panel)))
        return real(*args)

    stream_run.run_stream = spy
    try:
        run_and_wait(qtbot, panel)
    finally:
        stream_run.run_stream = real
    assert seen == [[0.5]]
    assert panel.result.is_release
    assert panel.plot.shown["truth"] is None and panel.plot.shown["groups"] is None
    assert np.array_equal(panel.plot.shown["published"][1], panel.result.windows[-1])  # the release itself
    assert panel.ledger_list.count() == COUNTS_T - 10 + 1  # SWM: one line per window
    # the error figure and its Laplace term are read whole (a walk found it cut at the panel's edge)
    assert "Estimated squared error of one window" in panel.error_label.text() and panel.error_label.wordWrap()
    assert panel.export_button.isEnabled()
    csv_path, json_path, report_path, _script, _python = panel.export_to(tmp_path / "out.csv")
    side = json.loads(json_path.read_text())
    assert side["release"] is True and side["parameters"]["mechanism"] == "swm"
    assert side["dataset_budget"]["tracked"] is True
    assert side["guarantee"].startswith("user-level epsilon-DP over the horizon T = 60")
    rows = csv_path.read_text().splitlines()
    assert rows[0] == "window,t,value" and len(rows) == 1 + (COUNTS_T - 10 + 1) * 10
    # export refuses to overwrite (atomic writer): a message, the files unchanged
    before = csv_path.read_text()
    assert panel.export_to(tmp_path / "out.csv") is None and csv_path.read_text() == before
    shot(panel, "stream_release")


def test_literal_asm_is_refused_in_release_mode_and_never_exportable(qtbot, panel, tmp_path):
    choose(panel.mechanism_combo, "asm-literal")
    assert NOT_DP in panel.guarantee_label.text()
    run_and_wait(qtbot, panel)  # teaching: it runs, labelled, with no ledger
    assert NOT_DP in panel.guarantee_label.text() and NOT_DP in panel.ledger_title.text()
    assert not panel.playback.exportable and not panel.export_button.isEnabled()
    assert panel.export_to(tmp_path / "lit.csv") is None and not (tmp_path / "lit.csv").exists()
    panel.project.set_mode(RELEASE)
    assert panel.playback is None  # the teaching run is gone
    assert panel.run() is None
    assert "literal ASM" in panel.last_message and NOT_DP in panel.last_message
    assert panel.playback is None and spent_in_store(panel) == []


def test_bad_epsilon_in_release_mode_charges_nothing(qtbot, panel):
    panel.project.set_mode(RELEASE)
    panel.eps_edit.setText("-1")
    assert panel.run() is None
    assert "epsilon" in panel.last_message
    assert spent_in_store(panel) == []


def test_compare_plots_the_analytic_errors_and_labelled_simulations(qtbot, panel, counts_file):
    from dpstudio.gui.panels.stream import COMPARE_EPSILONS

    expected = analytic_window_errors(["tpm"], COUNTS_T, 10, COMPARE_EPSILONS)["tpm"]
    assert np.allclose(panel.compare_plot.series["tpm (user-level, analytic)"]["y"], expected)
    panel.measure()
    qtbot.waitUntil(lambda: any("simulation" in k for k in panel.compare_plot.series), timeout=60000)
    measured = panel.compare_plot.series["tpm (user-level, simulation, not a release)"]["y"]
    # simulated against analytic (w v with the exact discrete Laplace variance): within 35 % at every eps
    assert np.all(np.abs(measured / np.asarray(expected) - 1) < 0.35)
    panel.project.set_mode(RELEASE)
    assert not panel.measure_button.isEnabled() and panel.measure() is None


def test_the_main_window_has_the_stream_tab(window):
    from dpstudio.gui.panels.stream import StreamPanel

    assert isinstance(window.panels["Stream"], StreamPanel)


def test_params_from_the_controls(panel):
    choose(panel.mechanism_combo, "binary")
    choose(panel.grouping_combo, "none")
    assert panel.params() == StreamParams("binary", "1", 10, grouping="none")
    assert "event-level" in panel.guarantee_label.text()


PRIMES = [7919, 7927, 7933, 7937, 7949, 7951, 7963, 7993, 8009, 8011, 8017, 8039]  # findable in any text


@pytest.mark.parametrize("mechanism", ["tpm", "asm"])
def test_studio_exports_of_neighbouring_streams_differ_only_in_mechanism_outputs(qtbot, tmp_path, mechanism):
    """D and D plus one record at one timestamp, exported from the panel in release mode: the same
    metadata apart from the mechanism's outputs, and no exact count in the files or on screen."""
    from dpstudio.gui.panels.stream import StreamPanel
    from tests.cli_outputs import integers_in, without
    from tests.test_cli_stream import STREAM_MECHANISM_OUTPUTS

    plus_one = list(PRIMES)
    plus_one[5] += 1
    sides, rows = [], []
    for tag, counts in (("d", PRIMES), ("d2", plus_one)):
        folder = tmp_path / tag
        folder.mkdir()
        (folder / "s.csv").write_text("count\n" + "".join(f"{c}\n" for c in counts))
        project = Project()
        project.budget_store = str(folder / "budget.sqlite")
        project.set_mode(RELEASE)
        p = StreamPanel(project)
        p.exec_dialog = Answer(button=QtWidgets.QMessageBox.Yes)
        qtbot.addWidget(p)
        assert p.set_source(StreamSource(COUNTS, folder / "s.csv"))
        p.window_box.setValue(4)
        choose(p.mechanism_combo, mechanism)
        run_and_wait(qtbot, p)
        csv_path, json_path, _report, _script, _python = p.export_to(folder / "out.csv")
        side = json.loads(json_path.read_text())
        assert side["release"] is True and side["source"]["file"].endswith(f"{tag}/s.csv")
        side["source"]["file"] = "s.csv"
        sides.append(without(side, STREAM_MECHANISM_OUTPUTS))
        table = [r.split(",") for r in csv_path.read_text().splitlines()]
        rows.append([r[:2] for r in table])
        screen = "\n".join(
            [
                p.guarantee_label.text(),
                p.ledger_title.text(),
                p.step_label.text(),
                p.source_label.text(),
                p.export_note.text(),
                p.last_message,
            ]
            + [p.ledger_list.item(i).text() for i in range(p.ledger_list.count())]
        )
        keys = "\n".join(",".join(r[:2]) for r in table) + json_path.read_text()
        for text in (screen, keys):
            assert not (integers_in(text) & set(counts)), "an exact count is shown or written"
        p.shutdown()
    assert rows[0] == rows[1]
    assert sides[0] == sides[1]


def test_ilinet_national_runs_through_the_main_windows_worker(qtbot, window):
    from dpstudio.model.stream.session import bundled_ilinet

    if bundled_ilinet() is None:
        pytest.skip("../shared/data/streams/ILINet.csv is not there")
    p = window.show_panel("Stream")
    qtbot.mouseClick(p.ilinet_button, __import__("PySide6").QtCore.Qt.LeftButton)
    assert p.counts.size == 1163 and "ILINet" in p.source_label.text()
    assert "T = 1163" in p.guarantee_label.text()
    p.window_box.setValue(200)
    run_and_wait(qtbot, p)
    assert not window.runner.busy or qtbot.waitUntil(lambda: not window.runner.busy, timeout=20000) is None
    assert p.result.windows.shape == (1163 - 200 + 1, 200)
    assert p.ledger_list.count() == 1163  # TPM: eps/T at every week


def test_compare_switches_axis_and_measure_and_keeps_the_simulation_labelled(qtbot, panel):
    from dpstudio.model.stream.compare import MEASURED, analytic_errors, discrete_laplace_mae, grid, window_grid

    panel.eps_edit.setText("2")
    choose(panel.axis_combo, "window")
    choose(panel.measure_combo, "mae")
    series = panel.compare_plot.series
    # user-level mechanisms only (TPM is chosen); binary is event-level and is not set beside them
    assert set(series) == {"swm (user-level, analytic)", "tpm (user-level, analytic)"}
    assert list(series["tpm (user-level, analytic)"]["x"]) == window_grid(COUNTS_T) == [10, 20, 50, 60]
    assert np.allclose(series["tpm (user-level, analytic)"]["y"], discrete_laplace_mae(COUNTS_T / 2.0))
    assert np.allclose(
        series["swm (user-level, analytic)"]["y"],
        [discrete_laplace_mae(w * (COUNTS_T - w + 1) / 2.0) for w in (10, 20, 50, 60)],
    )
    assert "window" in panel.compare_plot.getAxis("bottom").labelText

    panel.measure()
    qtbot.waitUntil(lambda: any("simulation" in k for k in panel.compare_plot.series), timeout=60000)
    sim = {k for k in panel.compare_plot.series if "simulation" in k}
    assert sim == {f"{m} (user-level, simulation, not a release)" for m in MEASURED if m != "binary"}
    assert "simulation, not a release" in panel.compare_note.text()
    mae_tpm = panel.compare_plot.series["tpm (user-level, simulation, not a release)"]["y"]
    assert np.all(np.abs(mae_tpm / discrete_laplace_mae(COUNTS_T / 2.0) - 1) < 0.35)

    choose(panel.measure_combo, "workload")  # the same simulation, the other measure: no new run
    series = panel.compare_plot.series
    assert not any(k.startswith("binary") for k in series)
    points = grid("window", COUNTS_T, 10, 2.0)
    want = analytic_errors("workload", COUNTS_T, points)["swm"]
    got = series["swm (user-level, simulation, not a release)"]["y"]
    assert np.all(np.abs(got / np.asarray(want) - 1) < 0.35)
    assert "squared" in panel.compare_plot.getAxis("left").labelText
    shot(panel, "stream_compare_window_axis")

    choose(panel.axis_combo, "epsilon")  # simulated at other points: not shown on this axis
    assert not any("simulation" in k for k in panel.compare_plot.series)
    assert list(panel.compare_plot.series["tpm (user-level, analytic)"]["x"]) == list(EPSILONS_FOR_TEST)
    panel.project.set_mode(RELEASE)
    assert panel.measured is None


def test_the_chart_compares_like_with_like_and_recommends_from_public_inputs(qtbot, panel):
    """Issue 24 item 7 / issue 23: binary (event-level) is charted alone, the user-level mechanisms together,
    each curve names its guarantee; the recommendation names TPM with its figures and the reason."""
    from dpstudio.model.stream.recommend import recommend

    panel.eps_edit.setText("1")
    panel.eps_edit.editingFinished.emit()
    assert all("user-level" in k for k in panel.compare_plot.series)
    rec = recommend(COUNTS_T, panel.window_box.value(), 1)
    assert rec.mechanism == "tpm" and panel.recommend_label.text() == f"Recommended: {rec.reason}"
    assert "binary is event-level" in rec.reason and "ASM-DP" in rec.reason
    assert rec.figures["swm"] > rec.figures["tpm"] and "swm" in rec.figures and "binary" not in rec.figures
    choose(panel.mechanism_combo, "binary")
    assert set(panel.compare_plot.series) == {"binary (event-level, analytic)"}
    assert "only event-level mechanism" in panel.recommend_label.text()
    assert "the table release" in panel.eps_edit.toolTip()


def test_after_a_run_the_panel_shows_the_estimated_error_of_a_window(qtbot, panel):
    run_and_wait(qtbot, panel)
    est = panel.result.error["estimated_window_error"]
    assert est is not None and f"{est:.3g}" in panel.error_label.text()
    assert "post-processing" in panel.error_label.toolTip() and f"{est:.3g}" in panel.error_label.toolTip()
    panel.project.set_mode(RELEASE)  # the run is cleared, and so is its figure
    assert panel.error_label.text() == ""


def test_before_a_run_teaching_shows_the_stream_and_release_shows_none_of_it(qtbot, panel, counts_file):
    """The plot was an empty 0..1 frame until a run, even in teaching mode."""
    from dpstudio.gui.widgets.stream_plot import RELEASE_INPUT, TEACHING_INPUT

    assert panel.project.teaching
    t, truth = panel.plot.shown["truth"]
    assert np.array_equal(truth, counts_file[1]) and np.array_equal(t, np.arange(1, COUNTS_T + 1))
    assert TEACHING_INPUT in panel.plot.plotItem.titleLabel.text
    panel.project.set_mode(RELEASE)
    drawn = panel.plot.truth_curve.getData()[0]
    assert panel.plot.shown == {} and (drawn is None or drawn.size == 0)
    assert RELEASE_INPUT in panel.plot.plotItem.titleLabel.text
