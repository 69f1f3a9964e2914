"""The Compare panel works a run out when it is shown, not while another tab is (at the end of a million-row run
its refresh, the node pairs and a 38,000-point scatter, held the GUI thread for a second behind the Watch);
hidden, it holds nothing of the run before; shown, it has the run's figures before its first paint."""

from __future__ import annotations

import numpy as np

from dpstudio.model.compare import comparison as cmp
from tests.gui.test_new_file_clears_panels import teaching_run_on_the_sample


def test_a_hidden_compare_tab_waits_for_its_showing_and_then_has_the_runs_figures(qtbot, window, monkeypatch):
    calls: list = []
    pairs = cmp.node_pairs_from_events
    monkeypatch.setattr(cmp, "node_pairs_from_events", lambda events: (calls.append(1), pairs(events))[1])
    window.show_panel("Data")
    p, _algorithm, _watch, compare = teaching_run_on_the_sample(qtbot, window, steps=3)
    qtbot.wait(100)
    assert calls == []  # nothing worked out behind another tab
    assert compare.curves is None and compare.plot.series == {} and compare.node_data[0].size == 0
    window.show_panel("Compare")
    assert calls == [1]  # in the showing itself, before any paint
    ids, noisy, consistent = pairs(p.events)
    assert ids.size > 0 and np.array_equal(compare.node_data[0], ids)
    np.testing.assert_array_equal(compare.node_data[1], noisy)
    assert compare.curves is not None and compare.plot.series
    window.show_panel("Data")
    window.show_panel("Compare")
    assert calls == [1]  # shown again, nothing changed: not worked out again


def test_a_shown_compare_tab_follows_a_change_at_once(qtbot, window, monkeypatch):
    calls: list = []
    pairs = cmp.node_pairs_from_events
    monkeypatch.setattr(cmp, "node_pairs_from_events", lambda events: (calls.append(1), pairs(events))[1])
    p, _algorithm, _watch, compare = teaching_run_on_the_sample(qtbot, window, steps=3)
    window.show_panel("Compare")
    assert calls == [1]
    p.notify("run")  # the run changed while the tab is on screen
    assert calls == [1, 1] and compare.node_data[0].size > 0


def test_row_sums_are_each_values_sum():
    rows = [np.array([1.5, 2.0]), np.array([-3.0, 4.25]), (0.5, 0.5)]
    np.testing.assert_array_equal(cmp.row_sums(rows), [3.5, 1.25, 1.0])
    np.testing.assert_array_equal(cmp.row_sums([2.0, -1.0, 7]), [2.0, -1.0, 7.0])
    np.testing.assert_array_equal(cmp.row_sums([np.array([1.0, 2.0, 3.0]), 4.0]), [6.0, 4.0])  # lengths differ
    assert cmp.row_sums([]).shape == (0,)


def test_the_exact_variances_are_worked_out_behind_another_tab_and_drawn_at_the_showing(qtbot, window, monkeypatch):
    """A large tree's exact variances (off the GUI thread) start when the run ends, whatever tab is shown, and
    the showing draws them without working them out again."""
    from dpstudio.gui.panels import compare as compare_mod

    monkeypatch.setattr(compare_mod, "SYNC_ANALYTIC_NODES", 1)
    computed: list = []
    noise_only = cmp.diffgen_noise_only
    monkeypatch.setattr(cmp, "diffgen_noise_only", lambda *a, **k: (computed.append(1), noise_only(*a, **k))[1])
    window.show_panel("Data")
    p, _algorithm, _watch, compare = teaching_run_on_the_sample(qtbot, window, steps=3)
    qtbot.waitUntil(lambda: computed == [1] and not compare._analytic_runner.busy, timeout=60000)
    qtbot.wait(50)
    assert compare.curves is None and compare.plot.series == {}  # not drawn behind the tab
    window.show_panel("Compare")
    assert compare.curves is not None and compare.plot.series and "Dashed: the exact variances" in compare.source.text()
    qtbot.wait(200)
    assert computed == [1]
