"""A new run forgets the node selected in the last one (walk finding: after an H_b run the Watch kept the
DiffGen leaf's noise chart, and a teaching run opened with the H_b run's node 16 selected, an unrelated
node of another tree). The run followed live keeps its selection when it is reloaded at its end. With no
node selected the details say how to see one, as at the start (an empty pane was laid out again for nothing)."""

from dpstudio.gui.panels.watch_layout import DETAILS_HINT
from dpstudio.model.project.project import RELEASE, TEACHING
from tests.gui.sample_runs import sample_runs
from tests.gui.test_watch_panel import panel  # noqa: F401  (the Watch panel fixture, shown)
from tests.gui.test_watch_real_runs import _click_node


def _selected_in(panel, qtbot, mode):
    events, total = sample_runs()[mode]
    panel.load_events(events, teaching=mode == TEACHING, epsilon=total)
    panel.seek_end()
    st = panel.state
    nid = next(n for n in st.order if st.nodes[n].depth == 2)
    panel.tree.fit()
    _click_node(qtbot, panel.tree, nid)
    assert panel._selected == nid and panel.explanation is not None and panel.details.text()
    return events, total


def test_another_runs_events_forget_the_selection(panel, qtbot):
    _selected_in(panel, qtbot, TEACHING)
    events, total = sample_runs()[RELEASE]
    panel.load_events(events, teaching=False, epsilon=total)
    panel.seek_end()
    assert panel._selected is None and panel.tree.selected is None and panel.icicle.selected is None
    assert panel.explanation is None and not panel.noise_chart.isVisible() and panel.details.text() == DETAILS_HINT


def test_a_new_live_run_forgets_the_selection_and_the_same_run_keeps_it(panel, qtbot):
    events, total = _selected_in(panel, qtbot, TEACHING)
    kept = panel._selected
    panel.load_events(events, teaching=True, epsilon=total)  # the same run again: its end-of-run reload
    assert panel._selected == kept
    panel.begin_live(True, 1.0)
    assert panel._selected is None and panel.explanation is None and panel.details.text() == DETAILS_HINT


def test_a_long_explanation_scrolls_in_its_pane_and_is_never_clipped(panel, qtbot):
    """Walk finding at 1280x800: the node's explanation was cut at the bottom of its pane mid-sentence."""
    panel.resize(1280 - 160, 560)  # the Watch's share of a 1280x800 window
    _selected_in(panel, qtbot, RELEASE)
    qtbot.wait(50)
    label, scroll = panel.details, panel.details_scroll
    assert scroll.widget() is label and label.wordWrap()
    assert label.height() >= label.heightForWidth(label.width())  # laid out whole, however small the pane
    bar = scroll.verticalScrollBar()
    bar.setValue(bar.maximum())  # its last line can be scrolled to
    assert bar.maximum() == max(0, label.height() - scroll.viewport().height())
