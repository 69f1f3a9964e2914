"""Issue 35: the Watch spreads its long pieces of GUI-thread work over passes of the event loop, so that no
one pass holds the window for the sum of them: the step chart and the ledger each in a pass of its own while
a run is followed, the tree's labels after its redraw, every label after a run in pieces, the icicle's layout
before its paint, and a bulk event of a large tree in a tick of its own. Each test checks that the split
work ends in what the work done at once gives."""

from __future__ import annotations

import numpy as np
import pytest
from PySide6 import QtCore, QtGui, QtWidgets

from dpstudio.core.events import ConsistencyDone, LeavesReleased
from dpstudio.gui import pacing
from dpstudio.gui.panels import watch as watch_module
from dpstudio.gui.widgets import tree_view as tree_module
from dpstudio.gui.widgets.ledger_view import LedgerView
from dpstudio.model.project.project import TEACHING
from dpstudio.model.watch.replay import state_at
from tests.gui.sample_runs import sample_runs
from tests.gui.synthetic_streams import diffgen_like, interval_tree
from tests.gui.test_watch_panel import panel  # noqa: F401  (the Watch panel fixture, shown)


def _rects(tree):
    return [(r.left(), r.top(), r.width(), r.height()) for r in tree.label_rects()]


def _texts(tree):
    return [t.textItem.toPlainText() for t in tree._labels if t.isVisible()]


def _place_again_in_pieces(tree, monkeypatch):
    """Place the tree's labels for its view again, one candidate a piece, with no wait for other work."""
    monkeypatch.setattr(tree_module, "LABEL_CHUNK_S", 0.0)  # every piece is one candidate
    monkeypatch.setattr(pacing, "recently_busy", lambda: False)
    tree._label_key = None  # the same view placed again
    tree.place_all_labels_later()


def _sample_tree_at_end(panel):
    """The Watch at the end of the sample teaching run, its tree redrawn and every label placed at once."""
    events, total = sample_runs()[TEACHING]
    panel.load_events(events, teaching=True, epsilon=total)
    panel.seek_end()
    tree = panel.tree
    tree.redraw()
    tree.place_all_labels()
    return tree


def test_labels_placed_in_pieces_equal_the_labels_placed_at_once(panel, qtbot, monkeypatch):
    tree = _sample_tree_at_end(panel)
    at_once, texts = _rects(tree), _texts(tree)
    assert len(at_once) >= 10

    pieces = []
    original = tree._continue_labels
    monkeypatch.setattr(tree, "_continue_labels", lambda job: (pieces.append(len(job.shown)), original(job)))
    _place_again_in_pieces(tree, monkeypatch)
    assert tree.labels_pending() and len(_rects(tree)) < len(at_once)  # the first piece only, for now
    qtbot.waitUntil(lambda: not tree.labels_pending(), timeout=10000)
    assert len(pieces) >= 10 and pieces == sorted(pieces)  # one pass per piece, each placing more
    assert _rects(tree) == at_once and _texts(tree) == texts


def test_a_new_view_takes_over_from_a_placement_in_pieces(panel, qtbot, monkeypatch):
    tree = _sample_tree_at_end(panel)
    _place_again_in_pieces(tree, monkeypatch)
    old_job = tree._label_job
    assert old_job is not None
    vb = tree.getViewBox()
    (x0, x1), (y0, y1) = vb.viewRange()
    vb.setRange(xRange=(x0, (x0 + x1) / 2), yRange=(y0, y1), padding=0)  # zoomed: a placement for this view
    qtbot.waitUntil(lambda: not tree.labels_pending(), timeout=10000)
    in_pieces = _rects(tree)
    tree._label_key = None
    tree.place_all_labels()
    assert in_pieces == _rects(tree)
    assert tree._label_job is None and old_job.key != tree._label_key  # the old placement never finished


def test_while_following_the_step_chart_and_the_ledger_are_drawn_each_in_a_pass_of_its_own(panel, qtbot, monkeypatch):
    events = list(diffgen_like(steps=5, seed=11))
    drawn = []  # (which, what the other side panel showed when this one was drawn)
    original = panel._draw_side

    def draw(which):
        before = (panel._step_key, panel._ledger_key)
        original(which)
        drawn.append((which, before != (panel._step_key, panel._ledger_key)))

    monkeypatch.setattr(panel, "_draw_side", draw)
    panel.begin_live(True, 1.0)
    panel.feed(events)
    drawn.clear()
    panel._side_drawn = 0.0
    panel.tick(0.0)  # follows the run: applies events, the side panels wait for their passes
    assert drawn == [] and panel._side_queue == ["chart", "ledger"]
    calls = []
    original_timer = panel._on_side_timer
    monkeypatch.setattr(panel, "_on_side_timer", lambda: (calls.append(len(drawn)), original_timer()))
    panel._side_timer.timeout.disconnect()
    panel._side_timer.timeout.connect(panel._on_side_timer)
    monkeypatch.setattr(pacing, "recently_busy", lambda: False)
    qtbot.waitUntil(lambda: not panel._side_queue and len(drawn) == 2, timeout=3000)
    assert [w for w, _ in drawn] == ["chart", "ledger"] and all(changed for _, changed in drawn)
    assert calls == [0, 1]  # one side panel per pass of the timer
    st = panel.replay.state
    assert panel.candidates._step == ((st.candidates, st.winner) if st.candidates is not None else None)
    assert len(panel.ledger.entries) == len(st.spends)

    # not following: both at once, as before (a person stepping through a recorded run sees them at once)
    panel.end_live()
    qtbot.waitUntil(lambda: not panel.follow, timeout=3000)
    panel.load_events(events, teaching=True)
    drawn.clear()
    panel.seek(len(events) // 2)
    assert {w for w, _ in drawn} == {"chart", "ledger"} and not panel._side_queue


def test_the_ledger_measured_row_by_row_is_as_wide_as_measured_at_once(qtbot):
    events = list(diffgen_like(steps=6, seed=2))
    spends = [e.spend for e in events if type(e).__name__ == "BudgetSpent"]
    assert len(spends) >= 6
    grown = LedgerView()
    qtbot.addWidget(grown)
    for k in range(1, len(spends) + 1):  # a run's ledger grows by appended rows
        grown.set_entries(spends[:k], 0.1 * k, 1.0)
    whole = LedgerView()
    qtbot.addWidget(whole)
    whole.set_entries(spends, 0.1 * len(spends), 1.0)
    header_a, header_b = grown.table.horizontalHeader(), whole.table.horizontalHeader()
    widths = [header_a.sectionSize(c) for c in range(grown.table.columnCount())]
    assert widths == [header_b.sectionSize(c) for c in range(whole.table.columnCount())]
    # a shorter ledger (another run) is measured again from its first row
    grown.set_entries(spends[:1], 0.1, 1.0)
    one = LedgerView()
    qtbot.addWidget(one)
    one.set_entries(spends[:1], 0.1, 1.0)
    assert [header_a.sectionSize(c) for c in range(3)] == [
        one.table.horizontalHeader().sectionSize(c) for c in range(3)
    ]


class _Paints(QtCore.QObject):
    """Counts the paint events of the widget it filters."""

    def __init__(self) -> None:
        super().__init__()
        self.count = 0

    def eventFilter(self, _obj, event) -> bool:
        if event.type() == QtCore.QEvent.Paint:
            self.count += 1
        return False


def test_the_ledgers_gauge_is_painted_with_the_rest_not_at_once_when_its_value_changes(qtbot):
    """QProgressBar.setValue repainted the gauge at once, 1.7 ms of the side panel's pass while a large run was
    followed: it now changes its value and is painted in the window's next paint."""
    events = list(diffgen_like(steps=4, seed=2))
    spends = [e.spend for e in events if type(e).__name__ == "BudgetSpent"]
    view = LedgerView()
    qtbot.addWidget(view)
    view.show()
    qtbot.waitExposed(view)
    paints = _Paints()
    view.gauge.installEventFilter(paints)
    qtbot.wait(20)
    before = paints.count
    view.set_entries(spends[:2], 0.25, 1.0)
    assert view.gauge.value() == 250 and paints.count == before  # no paint inside the call
    qtbot.waitUntil(lambda: paints.count > before, timeout=2000)  # painted after it, with the rest
    assert view.gauge.updatesEnabled()


def test_the_icicle_is_laid_out_in_a_pass_before_its_paint(panel, qtbot):
    events = list(interval_tree(n_bins=64, b=4, seed=1, teaching=False))
    panel.set_view("Icicle")
    panel.load_events(events)
    icicle = panel.icicle
    qtbot.waitUntil(lambda: not icicle._layout_due, timeout=3000)
    panel.seek_end()
    st = panel.replay.state
    assert icicle._layout_due and icicle._layout_key != (id(st), st.structure_version, st.position)
    qtbot.waitUntil(lambda: icicle._layout_key == (id(st), st.structure_version, st.position), timeout=3000)
    laid_out = icicle.layout_data
    icicle.repaint()
    assert icicle.layout_data is laid_out and icicle.labels_drawn  # the paint used that layout


@pytest.mark.parametrize("n_bins", [4096])
def test_a_bulk_event_of_a_large_tree_is_applied_in_a_tick_of_its_own_after_a_tick_for_its_totals(
    panel, monkeypatch, n_bins
):
    events = list(interval_tree(n_bins=n_bins, b=4, seed=3))
    bulk = [i for i, e in enumerate(events) if isinstance(e, (ConsistencyDone, LeavesReleased))]
    assert bulk
    monkeypatch.setattr(watch_module, "APPLY_BUDGET_S", 60.0)  # no time limit: only the rule splits ticks
    panel.begin_live(True, 1.0)
    panel.feed(events)
    ticks = []
    while not panel.replay.at_end:
        start = panel.position
        panel.tick(0.0)
        ticks.append((start, panel.position))
    for i in bulk:
        assert (i, i + 1) in ticks or any(a == i and b > i for a, b in ticks), f"event {i} did not start a tick"
        assert not any(a < i < b for a, b in ticks)  # never after other events in the same tick
        assert ticks[ticks.index((i, i)) + 1][0] == i  # a tick that computes its totals, then the event
    st = panel.replay.state
    ref = state_at(events, len(events))
    assert st.snapshot() == ref.snapshot()
    np.testing.assert_array_equal(np.asarray(st.sizes), np.asarray(ref.sizes))  # the totals computed ahead
    assert st.prepared is None
    QtWidgets.QApplication.processEvents()


def test_placing_all_labels_now_finishes_a_placement_in_pieces(panel, qtbot, monkeypatch):
    tree = _sample_tree_at_end(panel)
    at_once = _rects(tree)
    _place_again_in_pieces(tree, monkeypatch)
    assert tree.labels_pending()
    tree.place_all_labels()  # now: the same placement, finished at once
    assert not tree.labels_pending() and _rects(tree) == at_once
    QtWidgets.QApplication.processEvents()  # its scheduled piece finds nothing left to do
    assert _rects(tree) == at_once


def test_a_paint_of_the_icicle_counts_as_long_work_and_the_labels_wait_for_it(panel, qtbot, monkeypatch):
    from dpstudio.gui import pacing

    gap = pacing.PACING_GAP_S
    monkeypatch.setattr(pacing, "PACING_GAP_S", 0.5)  # "just ended" for this test, whatever the machine's load
    events = list(interval_tree(n_bins=64, b=4, seed=1, teaching=False))
    panel.load_events(events)
    panel.seek_end()
    icicle, tree = panel.icicle, panel.tree
    qtbot.waitUntil(lambda: not icicle._layout_due, timeout=3000)
    pacing._PACING["busy_end"] = 0.0
    icicle.repaint()
    assert pacing.recently_busy()  # the paint of a laid-out icicle just ended
    tree.redraw()
    tree._label_key = None
    tree.place_all_labels_later()
    assert tree.labels_pending() is False and tree._label_key is None  # not in the paint's pass: later
    monkeypatch.setattr(pacing, "PACING_GAP_S", gap)  # the studio's own gap again
    qtbot.waitUntil(lambda: tree._label_key is not None and not tree.labels_pending(), timeout=3000)
    assert tree.label_rects()


def test_a_redraw_drops_a_placement_in_pieces_of_the_tree_before_it(panel, qtbot, monkeypatch):
    """A second run began while the first run's labels were being placed in pieces: the next piece read the
    new tree's nodes through the old placement (KeyError in the event loop). A redraw drops the placement;
    the new tree gets labels of its own."""
    tree = _sample_tree_at_end(panel)
    _place_again_in_pieces(tree, monkeypatch)
    assert tree.labels_pending()
    errors = []
    monkeypatch.setattr("sys.excepthook", lambda *exc: errors.append(exc))
    events = list(diffgen_like(steps=3, seed=5))
    tree.timer.stop()  # no redraw of its own in between: the new state alone must stop the placement
    panel.begin_live(True, 1.0)  # a new run: a smaller tree with other node ids
    panel.feed(events)
    panel.tick(0.0)
    qtbot.wait(100)  # the old placement's next piece runs here
    assert errors == [] and not tree.labels_pending()
    while not panel.replay.at_end:
        panel.tick(0.0)
    tree.redraw()
    qtbot.wait(100)
    assert errors == [] and not tree.labels_pending()
    qtbot.waitUntil(lambda: not tree._labels_due, timeout=3000)
    st = panel.replay.state
    assert tree.label_rects() and all(int(tree._ids[i]) in st.nodes for i in range(tree._ids.size))


@pytest.mark.parametrize("view", ["tree", "candidates"])
def test_a_paint_right_after_long_work_counts_with_it_and_a_short_paint_alone_does_not(panel, monkeypatch, view):
    """A paint of a few milliseconds between two long pieces of work let the second one in (it found the
    first one ended more than the pacing's gap ago) and the three made one gap: a paint that starts right
    after long work ends that work; a short paint on its own does not count as long work."""
    from dpstudio.gui import pacing

    monkeypatch.setattr(pacing, "PAINT_BUSY_S", 10.0)  # no paint is long by itself here
    monkeypatch.setattr(pacing, "PACING_GAP_S", 0.5)  # "right after", whatever the machine's load
    events, total = sample_runs()[TEACHING]
    panel.load_events(events, teaching=True, epsilon=total)
    panel.seek_end()
    panel.resize(1100, 700)  # the studio's Watch: room for the step chart
    QtWidgets.QApplication.processEvents()
    widget = getattr(panel, view)
    surface = widget.viewport() if hasattr(widget, "viewport") else widget  # the step chart paints itself
    assert widget.isVisible() and surface.height() > 50
    pacing._PACING["busy_end"] = 0.0
    surface.repaint()
    assert pacing._PACING["busy_end"] == 0.0  # a short paint alone
    pacing.note_busy()
    work_end = pacing._PACING["busy_end"]
    surface.repaint()
    assert pacing._PACING["busy_end"] > work_end  # the paint's end is the end of that long work


def test_a_new_run_frees_the_last_runs_undo_records_a_piece_per_pass(panel, qtbot, monkeypatch):
    """A new run began by freeing every undo record of the run shown before (20 ms on a million-row run):
    they are freed a piece per pass of the event loop, while the new run is followed; so are the records
    left when the slider goes back to the start of a long run."""
    import dpstudio.model.watch.replay as replay_module

    monkeypatch.setattr(replay_module, "DISCARD_PIECE", 50)
    old = list(interval_tree(n_bins=256, b=4, seed=2))
    panel.load_events(old, teaching=True, epsilon=1.0)
    panel.seek_end()
    calls = []
    original = panel.replay.discard_some
    monkeypatch.setattr(
        panel.replay, "discard_some", lambda *a: (calls.append(panel.replay.discarded), original(*a))[1]
    )
    panel.begin_live(True, 1.0)
    assert panel.replay.discarded == len(old)  # none freed in the click's own pass
    new = list(diffgen_like(steps=3, seed=5))
    panel.feed(new)
    qtbot.waitUntil(lambda: panel.replay.discarded == 0, timeout=10000)
    assert len(calls) >= len(old) // 50 and all(a - b <= 50 for a, b in zip(calls, calls[1:]))
    panel.end_live()
    qtbot.waitUntil(lambda: not panel.follow, timeout=5000)
    assert panel.replay.state.snapshot() == state_at(new, len(new)).snapshot()
    panel.load_events(old, teaching=True, epsilon=1.0)
    panel.seek_end()
    panel.seek(1)  # back to the start of a long run: the replay starts over, its records wait too
    assert panel.replay.discarded == len(old)
    qtbot.waitUntil(lambda: panel.replay.discarded == 0, timeout=10000)
    assert panel.replay.state.snapshot() == state_at(old, 1).snapshot()


def test_the_watch_ticks_sooner_while_it_is_behind_the_run_it_follows(panel, monkeypatch):
    """At most 5 ms of events a tick made the view catch up a second later after a large run: while it is
    behind, the next tick comes after CATCH_UP_MS; caught up, after TICK_MS."""
    from dpstudio.gui.panels.watch_layout import TICK_MS

    monkeypatch.setattr(watch_module, "APPLY_BUDGET_S", 0.0)  # a few events a tick
    events = list(interval_tree(n_bins=64, b=4, seed=1))
    panel.begin_live(True, 1.0)
    panel.feed(events)
    panel.tick(0.0)
    assert panel.position < len(events) and panel.timer.interval() == watch_module.CATCH_UP_MS
    panel.end_live()
    monkeypatch.setattr(watch_module, "APPLY_BUDGET_S", 60.0)
    panel.tick(0.0)
    assert panel.replay.at_end and panel.timer.interval() == TICK_MS
    assert watch_module.CATCH_UP_MS < TICK_MS


def test_the_step_chart_draws_nothing_while_it_is_set_and_paints_the_steps_labels_in_the_order_of_the_bars(
    qtbot, monkeypatch
):
    """A step's 30 text items, axes and view range took 4-10 ms to set and 5-11 ms to paint (pyqtgraph): the
    chart now only keeps what to draw when a step is set, and paints it in one paint event, the bars' labels
    top to bottom in the order of the bars (most probable first), each drawn once."""
    from dpstudio.core.events import CandidatesScored, WinnerChosen
    from dpstudio.gui.widgets.candidates_chart import CandidatesChart

    chart = CandidatesChart()
    qtbot.addWidget(chart)
    chart.resize(420, 600)
    chart.show()
    qtbot.waitExposed(chart)
    drawn: list[str] = []
    original = QtGui.QPainter.drawText

    def spy(painter, *args):
        drawn.append(next((a for a in args if isinstance(a, str)), ""))
        return original(painter, *args)

    monkeypatch.setattr(QtGui.QPainter, "drawText", spy)
    step = CandidatesScored(1, ("a", "b", "c"), (1.0, 3.0, 2.0), (0.2, 0.5, 0.3), "exponential", selection=0)
    chart.set_step(step, WinnerChosen(1, 2, "c", selection=0))
    assert drawn == []  # nothing is drawn while the step is set
    chart.grab()  # one paint event, as on screen
    labels = chart.bar_labels()
    assert [s.split()[0] for s in labels] == ["b", "c", "a"] and chart.shown == [1, 2, 0]
    assert [t for t in drawn if t in labels] == labels  # top to bottom, once each
    title = chart.title_text.split("<br>")
    assert title[0] == "step 1: 3 candidates" and title[1] == "chosen: c, p = 0.300"
    assert all(line in drawn for line in title) and "selection probability" in drawn


def test_a_new_run_clears_the_last_runs_tree_step_and_ledger_at_once_and_frees_without_holding_others(
    panel, monkeypatch
):
    """Walk 54 saw the last run's tree, step chart and ledger half a second into a new run, beside the new
    run's status line: the new run clears them at its start. Freeing the last run's records is not long work
    for the pacing (counted, it kept the tree's redraw waiting until every piece was freed)."""
    import dpstudio.model.watch.replay as replay_module
    from dpstudio.gui import pacing

    events, total = sample_runs()[TEACHING]
    panel.load_events(events, teaching=True, epsilon=total)
    panel.seek_end()
    panel.tree.redraw()
    panel._draw_side("chart")
    panel._draw_side("ledger")
    assert panel.tree.layers and sum(item.x.size for item in panel.tree.layers) > 0
    assert panel.ledger.table.rowCount() > 0 and panel.candidates.shown
    panel.begin_live(True, 1.0)  # no pass of the event loop in between
    assert sum(item.x.size for item in panel.tree.layers) == 0 and panel.tree.edges.x.size == 0
    assert panel.ledger.table.rowCount() == 0 and not panel.candidates.shown
    monkeypatch.setattr(replay_module, "DISCARD_PIECE", 100)
    left = panel.replay.discarded
    assert left == len(events)
    pacing._PACING["busy_end"] = 0.0
    panel._discard_pass()
    assert panel.replay.discarded == left - 100 and pacing._PACING["busy_end"] == 0.0


def test_a_notice_of_the_project_during_a_second_run_does_not_end_it_with_the_last_runs_record(panel, qtbot):
    """Walk 54 saw a second run's Watch go back to "event 65113 of 65113: RunFinished" half a second in, and
    walk 53 the same on its second large run: any notice of the project during the run (the ledger, the
    run's fields) found the project's record, still the last run's and longer than the events so far, and
    took it for the end of this run; the next notice then loaded the last run. Only this run's own record
    ends it."""
    from dpstudio.core.budget import Ledger

    first = list(interval_tree(n_bins=256, b=4, seed=2))
    second = list(diffgen_like(steps=3, seed=5))
    assert len(first) > len(second)
    panel.project.record_run(first, Ledger(1), True)  # the last run, finished and recorded
    qtbot.waitUntil(lambda: panel.position == len(first), timeout=5000)
    panel.begin_live(True, 1.0)
    panel.feed(second[:10])
    panel.project.notify("ledger")  # a notice while the second run goes on
    panel.project.notify("run")
    assert panel.live and panel.replay.events == second[:10]
    panel.feed(second[10:])
    panel.project.record_run(second, Ledger(1), True)  # this run's own record: it ends
    assert not panel.live
    qtbot.waitUntil(lambda: not panel.follow, timeout=5000)
    assert panel.replay.events == second and panel.state.snapshot() == state_at(second, len(second)).snapshot()


def test_labels_and_side_panels_that_always_find_other_work_just_ended_are_drawn_after_a_wait(
    panel, qtbot, monkeypatch
):
    """Walk 55: while the Watch caught up with a run, the tree had no labels and the step chart and the
    ledger stayed empty: each pass they tried in found other long work just ended. A piece put off for
    MAX_WAIT_S runs anyway."""
    monkeypatch.setattr(pacing, "MAX_WAIT_S", 0.05)
    monkeypatch.setattr(pacing, "recently_busy", lambda: True)  # other work always just ended
    events, total = sample_runs()[TEACHING]
    panel.begin_live(True, total)
    panel.feed(events[: len(events) // 2])
    while panel.position < len(panel.replay):
        panel.tick(0.0)
    panel.tree.redraw()  # labels due in a pass of their own
    assert panel.tree._labels_due
    qtbot.waitUntil(lambda: not panel.tree._labels_due and panel.tree.visible_label_count() > 0, timeout=3000)
    st = panel.replay.state
    qtbot.waitUntil(lambda: panel.ledger.table.rowCount() == len(st.spends) > 0, timeout=3000)
    assert panel.candidates.shown


def test_every_piece_put_off_runs_after_the_longest_wait_even_if_other_work_always_just_ended(
    panel, qtbot, monkeypatch
):
    """Every deferral goes through ``pacing.put_off``: the Watch's tick, the tree's redraw, the icicle's layout
    and the freeing of the last run's records each run once they have waited MAX_WAIT_S, however busy."""
    monkeypatch.setattr(pacing, "MAX_WAIT_S", 0.05)
    monkeypatch.setattr(pacing, "recently_busy", lambda: True)
    events, total = sample_runs()[TEACHING]
    panel.begin_live(True, total)
    panel.feed(events[: len(events) // 2])
    panel._on_timer()
    assert panel.position == 0  # put off: other work just ended
    qtbot.waitUntil(lambda: panel.position > 0, timeout=3000)  # the Watch's own timer tried again
    drawn = panel.tree.redraw_count
    panel.tree._dirty = True
    panel.tree._last_redraw_end = 0.0
    panel.tree._tick()
    assert panel.tree.redraw_count == drawn  # put off
    qtbot.waitUntil(lambda: panel.tree.redraw_count > drawn, timeout=3000)
    panel.feed(events[len(events) // 2 :])
    panel.end_live()
    st = panel.replay.state
    qtbot.waitUntil(  # laid out for the run's last state
        lambda: not panel.follow and panel.icicle._layout_key == (id(st), st.structure_version, st.position),
        timeout=10000,
    )
    panel.begin_live(True, total)  # the last run's records are freed a piece per pass, after their waits
    assert panel.replay.discarded
    qtbot.waitUntil(lambda: not panel.replay.discarded, timeout=10000)


def test_the_status_line_says_when_the_watch_catches_up_after_a_run(panel, monkeypatch):
    """Walk 55 saw a partial tree labelled neither live nor finished after a fast run: while the Watch is
    behind a run that has ended, the status line says it is catching up."""
    monkeypatch.setattr(watch_module, "APPLY_BUDGET_S", 0.0)
    events = list(interval_tree(n_bins=64, b=4, seed=1))
    panel.begin_live(True, 1.0)
    panel.feed(events)
    panel.tick(0.0)
    assert "(live)" in panel.status.text()
    panel.end_live()
    panel.tick(0.0)
    assert "(catching up)" in panel.status.text() and "(live)" not in panel.status.text()
    monkeypatch.setattr(watch_module, "APPLY_BUDGET_S", 60.0)
    panel.tick(0.0)
    assert "catching up" not in panel.status.text() and panel.status.text().endswith("finished")


def _tree_positions(tree) -> dict:
    return {int(i): (float(x), float(y)) for i, x, y in zip(tree._ids, tree._x, tree._y) if np.isfinite(x)}


def test_a_live_runs_new_layout_is_drawn_in_a_pass_after_the_one_that_works_it_out(panel, qtbot, monkeypatch):
    """While a run is followed live, the tree's tick works out a new layout (the focus and the tidy layout) in
    one pass and puts it on the plot in a later one; what is drawn then is what a redraw at once draws."""
    monkeypatch.setattr(pacing, "recently_busy", lambda: False)
    events, total = sample_runs()[TEACHING]
    panel.begin_live(True, total)
    tree = panel.tree
    tree.timer.stop()  # the test ticks the tree itself
    panel.feed(events[: len(events) // 2])
    while not panel.replay.at_end:
        panel.tick(0.0)
    st = panel.replay.state
    drawn = tree.redraw_count
    tree._last_redraw_end = 0.0
    tree._tick()
    assert tree.redraw_count == drawn and tree._pending is not None  # worked out, not drawn yet
    assert tree._layout_key != (id(st), st.structure_version, st.n_nodes)
    qtbot.waitUntil(lambda: tree.redraw_count == drawn + 1, timeout=3000)
    assert tree._pending is None and tree._layout_key == (id(st), st.structure_version, st.n_nodes)
    split = (_tree_positions(tree), tree.colour_states(), [item.getData()[0].size for item in tree.layers])
    tree._layout_key = None
    tree.redraw()  # the same state drawn at once
    at_once = (_tree_positions(tree), tree.colour_states(), [item.getData()[0].size for item in tree.layers])
    assert split[0] == at_once[0] and split[2] == at_once[2]
    np.testing.assert_array_equal(split[1], at_once[1])


def test_a_redraw_drops_a_layout_waiting_for_its_pass(panel, qtbot, monkeypatch):
    """A redraw at once (a click, a new run) is newer than a layout the tick worked out earlier: that one is
    never drawn over it."""
    monkeypatch.setattr(pacing, "recently_busy", lambda: False)
    events, total = sample_runs()[TEACHING]
    panel.begin_live(True, total)
    tree = panel.tree
    tree.timer.stop()
    panel.feed(events[: len(events) // 2])
    while not panel.replay.at_end:
        panel.tick(0.0)
    tree._last_redraw_end = 0.0
    tree._tick()
    assert tree._pending is not None
    panel.feed(events[len(events) // 2 :])
    while not panel.replay.at_end:
        panel.tick(0.0)
    st = panel.replay.state
    drawn = tree.redraw_count
    tree.redraw()
    newest = tree._layout_key
    assert newest == (id(st), st.structure_version, st.n_nodes)
    qtbot.wait(5 * pacing.PACING_DELAY_MS)
    assert tree.redraw_count == drawn + 1 and tree._layout_key == newest


def test_outside_a_live_run_the_tick_draws_at_once(panel):
    events, total = sample_runs()[TEACHING]
    panel.load_events(events, teaching=True, epsilon=total)
    panel.seek_end()
    tree = panel.tree
    assert tree.label_budget_s is None
    tree._dirty, tree._last_redraw_end, tree._layout_key = True, 0.0, None
    drawn = tree.redraw_count
    tree._tick()
    st = panel.replay.state
    assert tree.redraw_count == drawn + 1 and tree._layout_key == (id(st), st.structure_version, st.n_nodes)
