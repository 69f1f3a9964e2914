"""While a run is followed live, the tree's labels are placed for at most ``LIVE_LABEL_BUDGET_S`` a redraw,
most important first (issue 35: a full placement on a tree of tens of thousands of nodes took 20-30 ms of
every redraw, freezing the window); when the view has caught up with the finished run every label that fits
is placed, the same as for a recorded run."""

from __future__ import annotations

from dpstudio.gui.widgets.tree_view import LIVE_LABEL_BUDGET_S
from dpstudio.model.project.project import TEACHING
from tests.gui.sample_runs import sample_runs
from tests.gui.test_watch_panel import panel  # noqa: F401  (the Watch panel fixture, shown)


def _visible(panel):
    return sum(1 for t in panel.tree._labels if t.isVisible())


def test_a_live_run_places_the_most_important_labels_then_all_of_them(panel, qtbot):
    events, total = sample_runs()[TEACHING]
    panel.load_events(events, teaching=True, epsilon=total)  # a recorded run: every label that fits
    panel.seek_end()
    panel.tree.redraw()
    full = panel.tree.label_rects()
    assert len(full) >= 10 and panel.tree.label_budget_s is None

    panel.begin_live(True, total)
    assert panel.tree.label_budget_s == LIVE_LABEL_BUDGET_S
    panel.feed(events)
    panel.tree.label_budget_s = 0.0  # as if every placement overran the budget: the first label still comes
    panel.tick(0.0)
    while not panel.replay.at_end:
        panel.tick(0.0)
    panel.tree.redraw()
    assert panel.tree._labels_due  # while live, the labels come in a pass after the redraw
    qtbot.waitUntil(lambda: not panel.tree._labels_due, timeout=3000)
    assert _visible(panel) == 1
    first = panel.tree.label_rects()[0]
    texts = [t.textItem.toPlainText() for t in panel.tree._labels if t.isVisible()]
    assert texts[0].startswith("all records")  # the root's (no node is selected, the run is at its end)

    panel.tree.label_budget_s = LIVE_LABEL_BUDGET_S
    panel.end_live()  # the run ended and the view has caught up: the budget is lifted, all labels placed
    qtbot.waitUntil(
        lambda: panel.tree.label_budget_s is None and not panel.tree.labels_pending() and _visible(panel) == len(full),
        timeout=3000,
    )
    assert [(r.left(), r.top()) for r in panel.tree.label_rects()] == [(r.left(), r.top()) for r in full]
    assert first in panel.tree.label_rects()
