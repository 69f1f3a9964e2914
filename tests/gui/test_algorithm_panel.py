"""Algorithm panel: dragging the budget bar changes the split and the expected error; the split sums to eps."""

from fractions import Fraction

import pytest
from PySide6 import QtCore

from dpstudio.gui.panels.algorithm import AlgorithmPanel, epsilon_to_slider, slider_to_epsilon
from dpstudio.model.project.project import Project
from dpstudio.model.release import budget_plan as bp


@pytest.fixture
def panel(qtbot):
    project = Project()
    w = AlgorithmPanel(project)
    w.resize(900, 600)
    qtbot.addWidget(w)
    w.show()
    qtbot.waitExposed(w)
    return w


def _figures(panel):
    return {f.label: f.value for f in panel.expected_figures()}


def drag(qtbot, bar, handle, dx):
    x0 = bar.handle_x(handle)
    y = bar.bar_y()
    qtbot.mousePress(bar, QtCore.Qt.LeftButton, pos=QtCore.QPoint(x0, y))
    qtbot.mouseMove(bar, QtCore.QPoint(x0 + dx // 2, y))
    qtbot.mouseMove(bar, QtCore.QPoint(x0 + dx, y))
    qtbot.mouseRelease(bar, QtCore.Qt.LeftButton, pos=QtCore.QPoint(x0 + dx, y))


def test_drag_moves_budget_to_counts_and_lowers_count_variance(panel, qtbot):
    panel.set_algorithm("diffgen")
    panel.set_param("steps", 4)
    before = panel.split()
    var_before = _figures(panel)["count noise variance per cell"]
    # handle 1 sits between "split points" and "counts": drag it left, counts grow
    drag(qtbot, panel.bar, 1, -120)
    after = panel.split()
    assert after[2] > before[2] and after[1] < before[1] and after[0] == before[0]
    assert sum(after) == panel.project.epsilon
    var_after = _figures(panel)["count noise variance per cell"]
    assert var_after == pytest.approx(2 / float(after[2]) ** 2)
    assert var_after < var_before
    # the project holds the split that is shown
    saved = panel.project.params["budget_split"]
    assert [Fraction(saved[n]) for n in panel.plan.names] == after


def test_split_always_sums_to_epsilon_under_many_drags(panel, qtbot):
    panel.set_algorithm("diffgen_consistency")
    panel.set_epsilon("0.7")
    for handle, dx in [(0, 40), (2, -300), (3, 500), (1, -999), (5, 80), (4, 4000)]:
        drag(qtbot, panel.bar, min(handle, len(panel.split()) - 2), dx)
        shares = panel.split()
        assert sum(shares) == Fraction(7, 10)
        assert all(s > 0 for s in shares)


def test_level_shares_change_expected_range_error(panel, qtbot):
    import numpy as np

    from dpstudio.core.range_error import consistent_all_range_mse, laplace_variance

    panel.set_algorithm("hb")
    panel.set_param("bins", 64)
    panel.set_param("branching", 4)
    panel.set_param("root_noised", True)  # the root is a level of its own (index 0 below)
    key = "all-range MSE, consistent release"
    mse0 = _figures(panel)[key]
    assert mse0 == pytest.approx(bp.engine_plan("hb", panel.params(), 1).expected_consistent_mse)
    drag(qtbot, panel.bar, 0, 150)  # more budget to the root level, less to level 1
    plan = panel.plan
    assert sum(plan.shares) == 1 and plan.shares[0] > plan.shares[1]
    # independent: per-node variance from the share of the node's level, exact least-squares range error
    t = bp.engine_plan("hb", panel.params(), 1).tree
    eps_x = np.array([float(plan.shares[int(d)]) for d in t.depth])
    expected = consistent_all_range_mse(t.parents, t.lo, t.hi, 64, laplace_variance(1 / eps_x))
    assert _figures(panel)[key] == pytest.approx(expected)
    assert _figures(panel)[key] != pytest.approx(mse0)
    assert "custom split" in panel.notes.text() and "what-if" not in panel.notes.text()


def test_epsilon_value_and_slider(panel, qtbot):
    panel.set_algorithm("flat")
    panel.eps_edit.setText("0.5")
    panel.eps_edit.editingFinished.emit()
    assert panel.project.epsilon == Fraction(1, 2)
    assert panel.eps_slider.value() == epsilon_to_slider(0.5)
    assert _figures(panel)["variance per bin"] == pytest.approx(8.0)
    panel.eps_slider.setValue(epsilon_to_slider(2.0))
    assert float(panel.project.epsilon) == pytest.approx(slider_to_epsilon(epsilon_to_slider(2.0)))
    assert panel.eps_edit.text() == "2"
    panel.eps_edit.setText("-1")
    panel.eps_edit.editingFinished.emit()
    assert "positive" in panel.eps_error.text()
    assert float(panel.project.epsilon) == pytest.approx(2.0)


def test_epsilon_change_keeps_proportions(panel, qtbot):
    panel.set_algorithm("diffgen")
    drag(qtbot, panel.bar, 1, -100)
    ratio = [s / panel.project.epsilon for s in panel.split()]
    panel.set_epsilon(2)
    new = panel.split()
    assert sum(new) == 2
    assert [float(s / 2) for s in new] == pytest.approx([float(r) for r in ratio], abs=1e-3)


def test_luedptree_split_is_locked(panel, qtbot):
    panel.set_algorithm("luedptree")
    before = panel.split()
    drag(qtbot, panel.bar, 0, 200)
    assert panel.split() == before
    assert panel.bar.locked


def test_teaching_mark_and_screenshot(panel, qtbot, tmp_path):
    assert "teaching: not a release" in panel.mode_label.text()
    panel.project.set_mode("release")
    assert "release" in panel.mode_label.text() and "teaching" not in panel.mode_label.text()
    from tests.gui.conftest import shot

    panel.set_algorithm("diffgen_consistency")
    shot(panel, "algorithm_release")


def _project_panel_and_watch(qtbot):
    """A small table's project (DiffGen, 3 steps) with its Algorithm panel and a Watch panel."""
    from dpstudio.gui.panels.watch import WatchPanel
    from tests.gui.export_fixtures import table_project

    project = table_project(steps=3)
    panel = AlgorithmPanel(project)
    watch = WatchPanel(project)
    qtbot.addWidget(panel)
    qtbot.addWidget(watch)
    return project, panel, watch


def test_run_in_worker_feeds_watch_and_records(qtbot):
    project, panel, watch = _project_panel_and_watch(qtbot)
    w = panel.run(watch=watch)
    assert w is not None
    # (not waitSignal on the worker: it may finish before a blocker could connect)
    qtbot.waitUntil(lambda: project.result is not None, timeout=60000)
    assert w.outcome == "finished"
    assert not watch.live
    assert watch.replay.events == project.events
    qtbot.waitUntil(lambda: watch.position == len(project.events), timeout=5000)  # its next ticks catch up
    assert project.run_teaching is True and float(project.run_ledger.spent) == float(project.epsilon)


def test_run_input_error_is_reported_without_spending(qtbot):
    project = Project()  # no data
    project.set_mode("release")
    panel = AlgorithmPanel(project)
    qtbot.addWidget(panel)
    assert panel.run() is None  # refused before anything is asked or started
    assert "data" in panel.last_error.lower() and "Not ready: 1 problem to fix first" in panel.eps_error.text()
    assert project.release_ledger is None or project.release_ledger.spent == 0


def test_gc_is_resumed_after_runs_even_if_the_panel_is_gone(qtbot):
    from dpstudio.gui.gc_policy import gc_policy
    from tests.gui.export_fixtures import table_project

    project = table_project(steps=2)
    panel = AlgorithmPanel(project)
    w = panel.run()
    assert gc_policy().paused  # while the run goes
    panel.detach()
    panel.deleteLater()
    del panel
    qtbot.waitUntil(lambda: project.result is not None, timeout=60000)
    assert w.outcome == "finished" and not gc_policy().paused


def test_histogram_attribute_choice_and_run(qtbot):
    from tests.gui.export_fixtures import histogram_data_project

    project = histogram_data_project(bins=16)
    panel = AlgorithmPanel(project)
    qtbot.addWidget(panel)
    panel.set_algorithm("hb")
    w = panel.param_widgets["attribute"]
    assert [w.itemData(i) for i in range(w.count())] == ["age"]
    assert project.params["attribute"] == "age"
    panel.set_param("bins", 16)
    run = panel.run()
    qtbot.waitUntil(lambda: project.result is not None, timeout=60000)
    assert run.outcome == "finished" and project.result.plan.tree.n_bins == 16


def _numeric_project(algorithm, steps=3, n=400, seed=1):
    import numpy as np
    import pandas as pd

    rng = np.random.default_rng(seed)
    df = pd.DataFrame(
        {
            "age": rng.integers(17, 90, n).astype(float),
            "hours": rng.integers(1, 99, n).astype(float),
            "income": rng.choice(["<=50K", ">50K"], n),
        }
    )
    p = Project()
    p.set_data(df, None, {"age": "numeric", "hours": "numeric", "income": "categorical"})
    p.set_bounds("age", 17, 90)
    p.set_bounds("hours", 1, 99)
    p.set_algorithm(algorithm, {"steps": steps})
    return p


def _charged_by_kind(ledger):
    """Charged epsilon per kind of entry (a parallel block costs its maximum)."""
    out = {"selection": [], "split": [], "counts": []}
    blocks = {}
    for e in ledger.entries:
        if e.group is not None:
            blocks.setdefault((e.group, e.step.split(":")[0]), []).append(e.epsilon)
        elif "choose a specialization" in e.step:
            out["selection"].append(e.epsilon)
        elif "split point" in e.step:
            out["split"].append(e.epsilon)
        elif e.step.startswith("counts"):
            out["counts"].append(e.epsilon)
    out["split"] += [max(v) for v in blocks.values()]
    return out


def test_dragged_diffgen_split_is_what_the_teaching_run_spends(qtbot):
    project = _numeric_project("diffgen", steps=3)
    panel = AlgorithmPanel(project)
    panel.resize(900, 600)
    qtbot.addWidget(panel)
    panel.show()
    qtbot.waitExposed(panel)
    assert panel.is_default_split()
    drag(qtbot, panel.bar, 0, 90)
    drag(qtbot, panel.bar, 1, -40)
    shares = panel.split()
    assert not panel.is_default_split() and "custom split" in panel.notes.text()
    assert "what-if" not in panel.notes.text()
    run = panel.run()
    qtbot.waitUntil(lambda: project.result is not None, timeout=60000)
    assert run.outcome == "finished" and project.run_teaching
    charged = _charged_by_kind(project.run_ledger)
    h = 3
    assert charged["selection"] == [shares[0] / h] * h
    assert sum(charged["selection"]) == shares[0]
    # two numeric attributes: 2 root split points + one (parallel) block per step
    assert len(charged["split"]) == 2 + h and sum(charged["split"]) == shares[1]
    assert charged["counts"] == [shares[2]]
    assert project.run_ledger.spent == project.epsilon
    assert project.result.params.split_fraction == shares[1] / project.epsilon


def test_dragged_consistency_levels_are_the_ledger_entries(qtbot):
    project = _numeric_project("diffgen_consistency", steps=2)
    panel = AlgorithmPanel(project)
    panel.resize(900, 600)
    qtbot.addWidget(panel)
    panel.show()
    qtbot.waitExposed(panel)
    drag(qtbot, panel.bar, 2, 60)  # level 0 <-> level 1
    drag(qtbot, panel.bar, 3, -30)  # level 1 <-> level 2
    shares = panel.split()
    levels = panel.plan.level_shares()
    assert len(set(levels)) == 3
    run = panel.run()
    qtbot.waitUntil(lambda: project.result is not None, timeout=60000)
    assert run.outcome == "finished"
    counts = [e.epsilon for e in project.run_ledger.entries if e.step.startswith("counts")]
    assert counts == levels
    assert project.run_ledger.spent == project.epsilon == sum(shares)


def test_dragged_hb_levels_are_the_ledger_entries_and_node_budgets(qtbot):
    import numpy as np

    from dpstudio.algorithms.interval_budgets import SAFETY, path_sums
    from tests.gui.export_fixtures import histogram_data_project

    project = histogram_data_project(bins=16)
    panel = AlgorithmPanel(project)
    panel.resize(900, 600)
    qtbot.addWidget(panel)
    panel.show()
    qtbot.waitExposed(panel)
    panel.set_algorithm("hb")
    panel.set_param("bins", 16)
    panel.set_param("root_noised", True)  # depth d is level d below
    drag(qtbot, panel.bar, 0, 70)
    levels = panel.split()
    assert len(set(levels)) > 1
    run = panel.run()
    qtbot.waitUntil(lambda: project.result is not None, timeout=60000)
    assert run.outcome == "finished"
    assert [e.epsilon for e in project.run_ledger.entries] == levels
    plan = project.result.plan
    for d, share in enumerate(levels):
        at = plan.tree.depth == d
        np.testing.assert_allclose(plan.epsilons[at], float(share) * SAFETY, rtol=1e-15)
    assert path_sums(plan.tree, plan.epsilons).max() <= float(project.epsilon)


def _leaf_words(panel):
    return panel.accuracy_lines()[-1]


def test_accuracy_in_words_moves_with_the_drag_epsilon_and_example(panel, qtbot):
    from dpstudio.core.range_error import discrete_laplace_half_width
    from dpstudio.core.scales import noise_scale

    panel.set_algorithm("diffgen")
    panel.set_param("steps", 4)
    leaf = _leaf_words(panel)
    assert leaf.plus_minus == discrete_laplace_half_width(noise_scale(1, panel.split()[2]))
    assert f"\u00b1{leaf.plus_minus}" in panel.words_label.text() and "about 1,000" in panel.words_label.text()
    drag(qtbot, panel.bar, 1, -120)  # more budget to the counts: a narrower interval, shown at once
    dragged = _leaf_words(panel)
    assert dragged.plus_minus < leaf.plus_minus and f"\u00b1{dragged.plus_minus}" in panel.words_label.text()
    panel.set_epsilon("0.1")
    assert _leaf_words(panel).plus_minus > 5 * dragged.plus_minus
    panel.example_box.setValue(250)
    assert "about 250 " in panel.words_label.text()


def test_expected_error_table_keeps_its_width_after_a_drag(panel, qtbot):
    panel.set_algorithm("diffgen")
    table = panel.figures
    header = table.horizontalHeader()
    qtbot.wait(20)
    full = sum(header.sectionSize(c) for c in range(table.columnCount()))
    assert full >= table.viewport().width() - 2  # the columns fill the table (the last one stretches)
    drag(qtbot, panel.bar, 1, -120)
    qtbot.wait(20)
    assert sum(header.sectionSize(c) for c in range(table.columnCount())) == full  # seen: half width


def test_simulated_preview_only_in_teaching_mode(qtbot):
    import pandas as pd

    from dpstudio.model.project.project import RELEASE

    project = Project()
    project.set_data(pd.DataFrame({"age": [30.0, 40.0] * 50, "cls": ["a", "b", "b", "b"] * 25}), None)
    w = AlgorithmPanel(project)
    qtbot.addWidget(w)
    w.show()
    rows = w.show_preview()
    assert [(c, t) for c, t, _ in rows] == [("cls = b", 75), ("cls = a", 25)]
    assert w.preview_table.rowCount() == 2 and w.preview_table.item(0, 1).text() == "75"
    project.set_mode(RELEASE)
    assert w.preview_table.rowCount() == 0 and w.preview_table.isHidden() and w.preview_button.isHidden()
    assert w.show_preview() == [] and "teaching mode only" in w.last_error


def test_budget_legend_names_every_segment_of_the_bar(panel, qtbot):
    panel.set_algorithm("diffgen_consistency")
    panel.set_param("steps", 10)  # 2 + 11 segments: more than one legend row holds
    bar = panel.bar
    qtbot.wait(20)
    entries = bar.legend_layout()
    assert [k for k, _, _ in entries] == list(range(len(bar.names))) and len(bar.names) == 13
    rows = sorted({y for _, _, y in entries})
    assert len(rows) > 1 and bar.height() >= rows[-1] + bar.LEGEND_ROW_PX  # the last row is not cut off
    assert all(x + 10 <= bar.width() for _, x, _ in entries)


def test_a_run_in_the_engine_process_shows_the_events_of_an_in_process_run(qtbot, monkeypatch):
    """DPSTUDIO_ENGINE_PROCESS=always: the studio runs the engine in a forked process (what it does for large
    tables); the Watch gets the same events as an in-process run of the same seed, the project records the
    run and its ledger, and the garbage collector is on again once the Watch has caught up."""
    import multiprocessing
    import sys

    from dpstudio.gui.gc_policy import gc_policy
    from dpstudio.model.release import run_process

    if not sys.platform.startswith("linux"):
        pytest.skip("the engine process forks (Linux)")
    recorded = {}
    for mode in ("never", "always"):
        monkeypatch.setenv(run_process.ENV, mode)
        project, panel, watch = _project_panel_and_watch(qtbot)
        w = panel.run(watch=watch)
        qtbot.waitUntil(lambda: project.result is not None and not watch.follow, timeout=60000)
        assert w.outcome == "finished" and watch.replay.events == project.events
        assert float(project.run_ledger.spent) == float(project.epsilon)
        qtbot.waitUntil(lambda: not gc_policy().paused, timeout=15000)
        recorded[mode] = (project.events, project.run_ledger.to_dict())
    assert recorded["always"][0][:-1] == recorded["never"][0][:-1]
    assert recorded["always"][1] == recorded["never"][1]
    assert not [c for c in multiprocessing.active_children() if c.name == "dpstudio engine"]  # the run's ended


def test_the_engine_process_is_forked_after_the_clicks_pass_of_the_event_loop(qtbot, monkeypatch):
    """Forking holds the studio's GIL (about 10 ms for a million rows): the worker waits for the pass of the
    event loop that ran the click to end, so the click's own work and the fork do not make one freeze."""
    import sys
    import time

    from dpstudio.model.release import run_process
    from dpstudio.model.release.session import RunSession

    if not sys.platform.startswith("linux"):
        pytest.skip("the engine process forks (Linux)")
    monkeypatch.setenv(run_process.ENV, "always")
    forked = []
    original = RunSession.in_child.__func__
    monkeypatch.setattr(RunSession, "in_child", classmethod(lambda cls, *a: (forked.append(1), original(cls, *a))[1]))
    project, panel, watch = _project_panel_and_watch(qtbot)
    w = panel.run(watch=watch)
    time.sleep(0.2)  # the click's pass goes on: the worker waits
    assert w is not None and not forked
    qtbot.waitUntil(lambda: project.result is not None and not watch.follow, timeout=60000)
    assert forked == [1] and w.outcome == "finished"


def test_a_large_tables_runs_fork_from_its_standby_engine_process_not_from_the_studio(qtbot, monkeypatch):
    """Forking the studio for a run held its GIL for 10-15 ms at every run's start (issue 35): the panel forks a
    standby engine process for the loaded table, in a later pass of the event loop and not while a run goes;
    runs fork from it (no fork in the studio's process) and give the events of an in-process run."""
    import os
    import sys
    from types import SimpleNamespace

    from dpstudio.gui import pacing
    from dpstudio.gui.panels import algorithm_run
    from dpstudio.model.release import engine_standby, run_process

    if not sys.platform.startswith("linux"):
        pytest.skip("the engine process forks (Linux)")
    monkeypatch.setenv(run_process.ENV, "never")
    project, panel, watch = _project_panel_and_watch(qtbot)
    w = panel.run(watch=watch)
    qtbot.waitUntil(lambda: project.result is not None and not watch.follow, timeout=60000)
    in_process = project.events
    assert engine_standby.serving(project) is None  # a table that runs here needs no standby
    monkeypatch.setenv(run_process.ENV, "always")
    panel.worker = SimpleNamespace(outcome=None)  # a run goes: no fork now, the panel tries again later
    monkeypatch.setattr(pacing, "recently_busy", lambda: False)
    algorithm_run._keep_standby(panel)
    assert engine_standby.serving(project) is None and panel._standby_timer.isActive()
    panel.worker = w
    qtbot.waitUntil(lambda: engine_standby.serving(project) is not None, timeout=5000)
    forks = []
    real_fork = os.fork
    monkeypatch.setattr(os, "fork", lambda: (forks.append(1), real_fork())[1])
    for _ in range(2):  # the standby stays for the next run
        project.clear_run()
        w = panel.run(watch=watch)
        qtbot.waitUntil(lambda: project.result is not None and not watch.follow, timeout=60000)
        assert w.outcome == "finished" and not forks
        assert project.events[:-1] == in_process[:-1]  # the same seed: the same events
    project.set_data(project.frame.copy(), None)  # another load: a new standby, forked later
    assert engine_standby.serving(project) is None
    qtbot.waitUntil(lambda: engine_standby.serving(project) is not None, timeout=5000)


def test_after_the_standbys_fork_the_checklist_is_checked_again_in_a_pass_of_its_own(qtbot, monkeypatch):
    """Reading an object after a fork copies its page (its reference count is written): Run's first check after
    the standby's fork took 8 ms on a million rows, against 1.6 ms once its pages were copied (issue 35). The
    panel checks the project again in a later pass of the event loop after each fork (never in the fork's own
    pass, and after other long work that just ended), and not when nothing was forked."""
    from dpstudio.gui import pacing
    from dpstudio.gui.panels import algorithm_run
    from dpstudio.model.release import run_process

    project, panel, watch = _project_panel_and_watch(qtbot)
    # the panel's own standby timer (300 ms after it was built) would fork once more on a slow machine: the
    # calls below are the only ones
    panel._standby_timer.stop()
    checks = []
    original = panel.refresh_readiness
    monkeypatch.setattr(panel, "refresh_readiness", lambda *a: (checks.append(1), original())[1])
    forked = [False]
    monkeypatch.setattr(run_process, "keep_standby", lambda p: forked[0])
    monkeypatch.setattr(pacing, "recently_busy", lambda: False)
    algorithm_run._keep_standby(panel)  # nothing forked: nothing to check again
    qtbot.wait(50)
    assert checks == []
    forked[0] = True
    busy = [False]
    monkeypatch.setattr(pacing, "recently_busy", lambda: busy[0])
    algorithm_run._keep_standby(panel)
    assert checks == []  # not in the fork's own pass
    busy[0] = True  # other long work just ended: the check waits for a later pass
    qtbot.wait(3 * pacing.PACING_DELAY_MS)
    assert checks == []
    busy[0] = False
    qtbot.waitUntil(lambda: checks == [1], timeout=2000)
    qtbot.wait(50)
    assert checks == [1]  # once


def test_the_run_button_starts_a_run_that_the_watch_follows_live(qtbot, window, monkeypatch):
    """QPushButton.clicked hands its checked flag (False) to a slot that takes an argument: the Run button
    passed ``watch=False`` to ``run``, so no run started from the studio's button was followed live (walk 54:
    the Watch showed a run only once it had ended, loaded at once). Clicked, the Watch follows it."""
    from PySide6.QtCore import Qt
    from PySide6.QtTest import QTest

    from tests.gui.export_fixtures import table_project

    table_project(project=window.project)
    watch = window.panels["Watch"]
    began = []
    original = watch.begin_live
    monkeypatch.setattr(watch, "begin_live", lambda *a, **k: (began.append(a), original(*a, **k))[1])
    alg = window.panels["Algorithm"]
    window.show_panel("Algorithm")
    QTest.mouseClick(alg.run_button, Qt.LeftButton)
    qtbot.waitUntil(lambda: window.project.result is not None, timeout=60000)
    assert len(began) == 1
    qtbot.waitUntil(lambda: not watch.follow, timeout=10000)
    assert watch.replay.events == window.project.events and watch.position == len(window.project.events)


def test_the_watch_says_a_new_run_is_starting_until_its_first_events_and_takes_it_back_if_none_come(qtbot, monkeypatch):
    """Walk 54: between Run and a run's first events (its inputs are checked and coded first: seconds on a
    large table) the Watch showed the last run as "finished" while the bar said "running". The status line
    says a new run is starting; a run that ends before any event (here its inputs refused) gives the line
    back to what is shown."""
    from dpstudio.gui.panels.watch import STARTING_TEXT
    from dpstudio.model.release.session import RunSession

    project, panel, watch = _project_panel_and_watch(qtbot)
    before = watch.status.text()
    w = panel.run(watch=watch)
    assert w is not None and watch.status.text() == before  # the click's pass leaves the line to a later one
    qtbot.waitUntil(lambda: watch.status.text() == STARTING_TEXT, timeout=5000)  # before any event
    qtbot.waitUntil(lambda: project.result is not None and not watch.follow, timeout=60000)
    qtbot.wait(200)  # the end of the run's own later passes (side panels, labels)
    shown = watch.status.text()
    assert shown.startswith(f"event {len(project.events)} of {len(project.events)}")

    def refused(*a, **k):
        raise ValueError("an input the run refuses")

    monkeypatch.setattr(RunSession, "of_project", classmethod(refused))
    w = panel.run(watch=watch)
    assert w is not None
    qtbot.waitUntil(lambda: watch.status.text() == STARTING_TEXT, timeout=5000)  # said before the worker starts
    qtbot.waitUntil(lambda: w.outcome == "failed", timeout=10000)
    qtbot.waitUntil(lambda: watch.status.text() == shown, timeout=5000)
    assert "an input the run refuses" in panel.last_error
