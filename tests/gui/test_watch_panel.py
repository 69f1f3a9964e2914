"""Watch panel: driving the real widget forwards/backwards equals the recomputed state; live following."""

import numpy as np
import pytest

from dpstudio.core.events import CandidatesScored, NodeNoised, WinnerChosen
from dpstudio.gui.panels.watch import WatchPanel
from dpstudio.gui.widgets.tree_view import CONSISTENT, CREATED, NOISED, RELEASED, WINNER, tree_layout
from dpstudio.model.project.project import Project
from dpstudio.model.watch.replay import state_at, step_starts
from tests.gui.synthetic_streams import diffgen_like, interval_tree


@pytest.fixture
def panel(qtbot):
    w = WatchPanel(Project())
    w.resize(1100, 700)
    qtbot.addWidget(w)
    w.show()
    qtbot.waitExposed(w)
    return w


def _drawn(panel):
    panel.tree.redraw()
    return panel.tree.positions(), panel.tree.colour_states()


def test_buttons_forward_and_back_equal_recomputed_state(panel, qtbot):
    events = list(diffgen_like(steps=5, seed=11))
    panel.load_events(events, teaching=True)
    assert panel.position == 0
    ends = step_starts(events)[1:] + [len(events)]  # the buttons move by whole steps
    assert 1 < len(ends) < len(events)
    for k in ends:
        panel.btn_fwd.click()
        assert panel.state.snapshot() == state_at(events, k).snapshot()
    assert not panel.step_forward()
    for k in [*ends[-2::-1], 0]:
        panel.btn_back.click()
        assert panel.state.snapshot() == state_at(events, k).snapshot()
        # the widgets show that state: slider, ledger rows, node count drawn
        assert panel.slider.value() == k
        assert panel.ledger.table.rowCount() == len(panel.state.spends)
        pos, _ = _drawn(panel)
        assert set(pos) == set(panel.state.nodes)


def test_slider_seek_and_drawn_positions_follow_layout(panel, qtbot):
    events = list(interval_tree(n_bins=40, b=3, seed=1, teaching=False))
    panel.load_events(events)
    panel.slider.setValue(len(events) // 2)
    st = state_at(events, len(events) // 2)
    assert panel.state.snapshot() == st.snapshot()
    pos, states = _drawn(panel)
    ids, par = st.parents_array()
    x, y = tree_layout(par)
    assert [pos[int(i)] for i in ids] == list(zip(x.tolist(), y.tolist()))
    # colours: noised nodes blue, the rest grey (consistency not reached yet)
    noised = np.array([st.nodes[int(i)].noisy is not None for i in ids])
    assert np.all(states[noised] == NOISED) and np.all(states[~noised] == CREATED)
    panel.seek_end()
    _, states = _drawn(panel)
    assert set(np.unique(states)) <= {CONSISTENT, RELEASED}
    assert not panel.mark.isVisible() and not panel.chk_true.isEnabled()


def test_play_advances_at_speed_and_stops_at_end(panel):
    events = list(diffgen_like(steps=3, seed=2))
    panel.load_events(events, teaching=True)
    panel.set_speed(100)  # steps per second
    panel.play()
    assert panel.playing
    panel.tick(0.05)
    assert panel.position == step_starts(events)[5]
    panel.tick(10.0)
    assert panel.position == len(events) and not panel.playing
    panel.play()  # from the end: restarts
    assert panel.position == 0


def test_candidates_chart_shows_step_and_winner(panel):
    events = list(diffgen_like(steps=4, seed=7))
    panel.load_events(events, teaching=True)
    k = next(i for i, e in enumerate(events) if isinstance(e, WinnerChosen)) + 1
    panel.seek(k)
    scored = next(e for e in events if isinstance(e, CandidatesScored))
    win = events[k - 1]
    chart = panel.candidates
    np.testing.assert_allclose(chart.probabilities, scored.probabilities)
    assert chart.winner == win.index
    assert chart.shown[0] == int(np.argmax(scored.probabilities))
    # the winner's children are highlighted once created
    panel.seek(k + 1)
    _, states = _drawn(panel)
    assert WINNER in states
    # before the winner event there is no winner
    panel.seek(k - 1)
    assert chart.winner is None


def test_teaching_overlay_and_release_has_no_true_counts(panel):
    panel.load_events(list(diffgen_like(steps=3, seed=1, teaching=True)), teaching=True)
    panel.seek_end()
    assert panel.mark.isVisible() and panel.chk_true.isEnabled()
    panel.chk_true.setChecked(True)
    panel.tree.fit()
    panel.tree.redraw()
    texts = [t.textItem.toPlainText() for t in panel.tree._labels if t.isVisible()]
    assert texts and any("(" in t or "true" in t for t in texts)
    from tests.gui.conftest import shot

    shot(panel, "watch_teaching_end")
    panel.load_events(list(diffgen_like(steps=3, seed=1, teaching=False)), teaching=False)
    panel.seek_end()
    assert not panel.mark.isVisible() and not panel.chk_true.isChecked()
    assert not panel.state.has_true_counts


def test_live_feed_follows_and_project_run_loads(panel, qtbot):
    events = list(diffgen_like(steps=4, seed=3))
    panel.begin_live(True, 1.0)
    for i in range(0, len(events), 7):
        panel.feed(events[i : i + 7])
        panel.tick(0.03)
        assert panel.position == min(len(events), i + 7)
    # stepping back while live stops following
    panel.step_back()
    panel.tick(0.03)
    assert panel.position == len(events) - 1
    # the project records the run: the panel ends live mode at the end
    project = panel.project
    from dpstudio.core.budget import Ledger

    project.record_run(events, Ledger(1), True)
    # the user had stepped back: the end of the run does not move the cursor
    assert not panel.live and panel.position == len(events) - 1
    panel.seek_end()
    assert panel.position == len(events)
    # a fresh project notification with other events loads them (cursor at the end)
    other = list(interval_tree(n_bins=9, b=3, seed=0))
    project.record_run(other, Ledger(1), True)
    assert panel.replay.events == other and panel.position == len(other)
    noisy = [e.noisy for e in other if isinstance(e, NodeNoised)]
    assert panel.state.column("noisy") == noisy


def test_tree_of_5000_nodes_draws(panel, tmp_path):
    panel.tree.collapse = False  # every node drawn (focus and context has its own tests)
    events = list(interval_tree(n_bins=3750, b=4, seed=1, teaching=False))
    panel.load_events(events)
    panel.seek_end()
    pos, states = _drawn(panel)
    assert len(pos) == panel.state.n_nodes > 5000
    # at full view only the labels that fit (the top levels), none overlapping another
    rects = panel.tree.label_rects()
    assert 0 < panel.tree.visible_label_count() == len(rects) <= 80
    assert not any(a.intersects(b) for i, a in enumerate(rects) for b in rects[i + 1 :])
    panel.tree.setXRange(0, 6)
    panel.tree.setYRange(-7.5, -5.5)
    panel.tree._update_labels()
    assert 0 < panel.tree.visible_label_count() <= 80
    from tests.gui.conftest import shot

    panel.tree.fit()
    panel.tree.redraw()
    shot(panel, "watch_5000_nodes")


def _reference_layout(par):
    n = len(par)
    children = [[] for _ in range(n)]
    root = None
    for i, p in enumerate(par):
        if p < 0:
            root = i
        else:
            children[p].append(i)
    x, depth, nxt = np.zeros(n), np.zeros(n), [0]

    def rec(v, d):
        depth[v] = d
        if not children[v]:
            x[v] = nxt[0]
            nxt[0] += 1
            return
        for c in children[v]:
            rec(c, d + 1)
        x[v] = (x[children[v][0]] + x[children[v][-1]]) / 2

    rec(root, 0)
    return x, -depth


def test_vectorised_layout_equals_recursive_reference():
    rng = np.random.default_rng(0)
    for _ in range(100):
        n = int(rng.integers(1, 200))
        par = np.full(n, -1)
        for i in range(1, n):
            par[i] = rng.integers(0, i)
        perm = rng.permutation(n)  # ids in any order: parents need not come first
        shuffled = np.full(n, -1)
        for i in range(n):
            shuffled[perm[i]] = -1 if par[i] < 0 else perm[par[i]]
        for p in (par, shuffled):
            x, y = tree_layout(p)
            rx, ry = _reference_layout(list(p))
            np.testing.assert_allclose(x, rx)
            np.testing.assert_allclose(y, ry)


def test_click_selects_nearest_node(panel, qtbot):
    from PySide6 import QtCore

    events = list(diffgen_like(steps=3, seed=4))
    panel.load_events(events, teaching=True)
    panel.seek_end()
    panel.tree.redraw()
    nid = panel.state.order[-1]
    x, y = panel.tree.positions()[nid]
    vb = panel.tree.getViewBox()
    scene_pt = vb.mapViewToScene(QtCore.QPointF(x, y))
    widget_pt = panel.tree.mapFromScene(scene_pt)
    with qtbot.waitSignal(panel.tree.nodeSelected, timeout=2000) as sig:
        qtbot.mouseClick(panel.tree.viewport(), QtCore.Qt.LeftButton, pos=widget_pt)
    assert sig.args == [nid]
    assert f"node {nid}" in panel.details.text()


def test_live_catch_up_is_budgeted_and_completes_after_the_run(panel, qtbot, monkeypatch):
    import dpstudio.gui.panels.watch as watch_mod

    events = list(interval_tree(n_bins=200, b=3, seed=2))
    monkeypatch.setattr(watch_mod, "APPLY_BUDGET_S", 0.0)  # at most one 4-event chunk per tick
    panel.begin_live(True, 1.0)
    panel.feed(events)
    moved = panel.tick(0.03)
    assert 0 < moved <= 4 and panel.position < len(events)
    from dpstudio.core.budget import Ledger

    panel.project.record_run(events, Ledger(1), True)
    assert not panel.live and panel.follow  # still catching up
    qtbot.waitUntil(lambda: panel.position == len(events), timeout=10000)
    assert panel.state.snapshot() == state_at(events, len(events)).snapshot()
    qtbot.waitUntil(lambda: not panel.follow and not panel.timer.isActive(), timeout=2000)


def test_candidates_chart_guards_foreign_winner_and_hidden_probabilities(qtbot):
    from dpstudio.gui.widgets.candidates_chart import CandidatesChart

    chart = CandidatesChart()
    qtbot.addWidget(chart)
    scored = CandidatesScored(2, ("a", "b", "c"), (1.0, 5.0, 2.0), (0.2, 0.5, 0.3), "exponential mechanism")
    # a split-point winner with the same step number but an index among other candidates
    chart.set_step(scored, WinnerChosen(2, 19232, "age=[17,91) split at 40"))
    assert chart.winner is None and chart.shown == [1, 2, 0]
    chart.set_step(scored, WinnerChosen(2, 2, "c"))
    assert chart.winner == 2
    # release mode: probabilities are NaN (not released); the chart shows labels, no numbers
    nan = float("nan")
    chart.set_step(
        CandidatesScored(3, ("x", "y"), (nan, nan), (nan, nan), "exponential mechanism"), WinnerChosen(3, 1, "y")
    )
    assert chart.hidden and chart.winner == 1
    np.testing.assert_allclose(chart.probabilities, [0.5, 0.5])


@pytest.mark.parametrize("teaching", [True, False])
def test_chart_follows_every_selection_of_a_real_run(panel, teaching):
    """Every selection of a DiffGen run, in both modes: the chart shows that selection's own candidates
    and winner (release-mode split points: no candidates shown, the chosen split point named)."""
    from tests.algorithms.test_diffgen_events import events as diffgen_events

    evs, _ = diffgen_events("diffgen", teaching, seed=2, steps=4)
    panel.load_events(evs, teaching=teaching)
    chart = panel.candidates
    seen_split = False
    for k, e in enumerate(evs, start=1):
        if not isinstance(e, WinnerChosen):
            continue
        panel.seek(k)
        scored = panel.replay.state.candidates
        assert scored.selection == e.selection
        if scored.labels:
            assert chart.winner == e.index and len(chart.probabilities) == len(scored.labels)
        else:
            seen_split = True
            assert not teaching and chart.winner is None and chart.shown == []
            assert "split point" in chart.title_text and e.label[:20] in chart.title_text
    assert seen_split == (not teaching)


def test_labels_wait_for_the_layout_of_a_new_state(panel):
    """A view-range change between set_state (a smaller tree) and its redraw labels nothing stale."""
    events = list(diffgen_like(steps=8, seed=4))
    panel.load_events(events, teaching=True)
    panel.seek_end()
    panel.tree.redraw()
    assert panel.tree.visible_label_count() > 0
    panel.replay.seek(2)  # a new, smaller state, not drawn yet
    panel.tree.set_state(panel.replay.state)
    panel.tree._update_labels()  # what a range change does before the next redraw
    assert panel.tree.visible_label_count() == 0 and panel.tree.label_rects() == []
    panel.tree.redraw()
    assert 0 < panel.tree.visible_label_count() <= panel.replay.state.n_nodes


def test_a_tick_after_following_a_run_keeps_the_position(panel, qtbot):
    """While the Watch followed a live run its playback target stayed at the start: a later tick (the
    timer, a paced redraw) jumped the view back to event 0."""
    from dpstudio.core.budget import Ledger

    events = list(interval_tree(n_bins=27, b=3, seed=4))
    panel.begin_live(True, 1.0)
    panel.feed(events)
    panel.tick(0.03)
    panel.project.record_run(events, Ledger(1), True)
    qtbot.waitUntil(lambda: panel.position == len(events) and not panel.follow, timeout=10000)
    panel.tick(0.0)
    panel.tick(0.5)
    assert panel.position == len(events)


def test_candidates_chart_redraws_to_fit_when_it_is_resized(qtbot):
    """When the explanation below takes room, the chart shows fewer bars (each keeps BAR_PX for its label, so
    none overlap) and the winner stays drawn; given the room back, it shows more again."""
    from dpstudio.gui.widgets.candidates_chart import AXIS_PX, BAR_PX, CandidatesChart, title_height

    chart = CandidatesChart()
    qtbot.addWidget(chart)
    over = AXIS_PX + title_height(4)  # the axis, and the title's four lines (what, chosen, two of odds)
    chart.resize(400, over + 20 * BAR_PX)
    chart.show()
    labels = tuple(f"c{i}" for i in range(27))
    probs = tuple(np.linspace(1.0, 0.1, 27) / np.linspace(1.0, 0.1, 27).sum())
    chart.set_step(
        CandidatesScored(5, labels, tuple(range(27)), probs, "exponential mechanism"), WinnerChosen(5, 26, "c26")
    )
    assert len(chart.shown) == 20 and 26 in chart.shown  # the winner replaces the last one
    chart.resize(400, over + 6 * BAR_PX)
    qtbot.waitUntil(lambda: len(chart.shown) == 6, timeout=3000)  # in a pass of its own after the resize
    assert 26 in chart.shown
    chart.resize(400, over + 12 * BAR_PX)
    qtbot.waitUntil(lambda: len(chart.shown) == 12, timeout=3000)
    assert chart.winner == 26


def test_a_short_step_chart_leaves_out_the_last_title_lines_so_that_its_bars_keep_room(qtbot):
    """A real window showed a split point's chart with a six-line title and no bars under it: a short chart now
    draws only the title lines that leave each bar MIN_ROW_PX (the odds in words go first, the first line
    stays); the whole title is its tooltip."""
    from dpstudio.gui.widgets.candidates_chart import AXIS_PX, MIN_ROW_PX, CandidatesChart, title_height

    chart = CandidatesChart()
    qtbot.addWidget(chart)
    labels = tuple(f"c{i}" for i in range(5))
    step = CandidatesScored(1, labels, (5.0, 4.0, 3.0, 2.0, 1.0), (0.3, 0.25, 0.2, 0.15, 0.1), "exponential")
    chart.resize(420, 600)
    chart.set_step(step, WinnerChosen(1, 1, "c1"))
    full = chart.title_text.split("<br>")
    assert len(full) >= 4 and full[1].startswith("chosen: c1") and chart.drawn_title_lines() == full
    assert chart.toolTip() == "\n".join(full)
    bars = len(chart.shown)
    short = AXIS_PX - 2 + title_height(2) + bars * MIN_ROW_PX  # room for two lines of title
    chart.resize(420, short)
    assert chart.drawn_title_lines() == full[:2]
    chart.resize(420, short - 2 * MIN_ROW_PX)
    assert chart.drawn_title_lines() == full[:1]
    chart.resize(420, 40)
    assert chart.drawn_title_lines() == full[:1] and chart.toolTip() == "\n".join(full)


def _mode_controls(w) -> tuple:
    return (w.mark.isHidden(), w.btn_neighbour.isHidden(), w.chk_true.isEnabled())


def test_with_no_run_shown_the_watch_has_the_controls_of_the_projects_mode_and_a_runs_start_changes_none(qtbot):
    from dpstudio.model.project.project import RELEASE, TEACHING

    project = Project()
    w = WatchPanel(project)
    qtbot.addWidget(w)
    assert _mode_controls(w) == (False, False, True)  # teaching: the mark, the neighbour view, true counts
    project.set_mode(RELEASE)
    assert _mode_controls(w) == (True, True, False)
    w.begin_live(False, 1.0)
    assert _mode_controls(w) == (True, True, False)  # the release run's start: nothing to show or hide
    w.end_live()
    project.set_mode(TEACHING)  # the project forgets the run: nothing shown, the teaching controls again
    assert _mode_controls(w) == (False, False, True)
    w.begin_live(True, 1.0)
    assert _mode_controls(w) == (False, False, True)
    w.feed(list(diffgen_like(steps=2, seed=3)))
    w.end_live()


def test_a_shown_run_keeps_the_controls_of_its_own_mode_whatever_the_projects(panel):
    events = list(diffgen_like(steps=2, seed=3))
    panel.load_events(events, teaching=False)  # a recorded release, shown while the project is in teaching mode
    assert panel.project.teaching
    assert _mode_controls(panel) == (True, True, False)
    # a run of unknown mode without true counts is shown as a release, not in the project's mode
    panel.load_events(list(diffgen_like(steps=2, seed=3, teaching=False)), teaching=None)
    assert _mode_controls(panel) == (True, True, False)


def test_with_no_run_shown_the_step_chart_is_there_for_an_algorithm_that_selects_and_a_run_keeps_it(qtbot):
    project = Project()
    w = WatchPanel(project)
    qtbot.addWidget(w)
    assert project.algorithm == "diffgen_consistency" and not w.candidates.isHidden()
    project.set_algorithm("hb", {})
    assert w.candidates.isHidden()  # an interval tree chooses no split: no step chart
    project.set_algorithm("maxgddp", {})
    assert not w.candidates.isHidden()
    w.begin_live(True, 1.0)
    assert not w.candidates.isHidden()  # the run's start changes nothing
    events = list(diffgen_like(steps=2, seed=3))
    first_step = next(k for k, e in enumerate(events) if type(e).__name__ == "CandidatesScored")
    w.feed(events[:first_step])  # the root and its spend: no step yet, but one is coming
    w.tick(1.0)
    assert w.position == first_step and not w.candidates.isHidden()
    w.feed(events[first_step:])
    w.tick(1.0)
    assert not w.candidates.isHidden()
    w.end_live()
    shown = w.replay.events
    project.set_algorithm("hb", {})  # a run is shown: its own steps decide, not the next run's algorithm
    assert w.replay.events is shown and not w.candidates.isHidden()
    w.load_events(list(interval_tree()), teaching=True)
    assert w.candidates.isHidden()


def test_an_empty_step_chart_keeps_nothing_of_the_last_runs_probabilities(qtbot):
    """A real window showed an empty chart, waiting for the next run, with the last run's axis of 0.005 to
    0.035."""
    from dpstudio.core.events import CandidatesScored, WinnerChosen
    from dpstudio.gui.widgets.candidates_chart import CandidatesChart, axis_ticks

    chart = CandidatesChart()
    qtbot.addWidget(chart)
    chart.resize(420, 400)
    chart.show()
    labels = tuple(f"c{k}" for k in range(40))
    chart.set_step(
        CandidatesScored(1, labels, tuple(range(40)), tuple(1 / 40 for _ in labels), "exponential", selection=0),
        WinnerChosen(1, 0, "c0", selection=0),
    )
    assert chart.x_max < 0.05 and axis_ticks(chart.x_max)[-1][0] < 0.05
    chart.set_step(None)
    assert chart.x_max == 1.0 and [v for v, _ in axis_ticks(chart.x_max)] == pytest.approx([0, 0.2, 0.4, 0.6, 0.8, 1])
