"""The Watch panel's icicle view on the studio's own h = 10 runs on the bundled Adult sample: cells tile
their parents, widths follow the released counts, a click selects the same node in both views and
explains it, labels are readable, and release mode shows only released numbers."""

import numpy as np
import pytest
from PySide6 import QtCore

from dpstudio.model.project.project import RELEASE, TEACHING
from dpstudio.model.watch.icicle_layout import MIN_SHARE, icicle_layout
from dpstudio.model.watch.replay import CREATED, NOISED, RELEASED, NodeState, TreeState
from tests.gui.sample_runs import sample_runs
from tests.gui.test_watch_panel import panel  # noqa: F401  (the Watch panel fixture, shown)


def _load(panel, mode):
    events, total = sample_runs()[mode]
    panel.load_events(events, teaching=mode == TEACHING, epsilon=total)
    panel.seek_end()
    panel.set_view("Both")
    panel.views.setSizes([380, 300])
    QtCore.QCoreApplication.processEvents()
    return events


def _children(L):
    kids = {}
    for k, p in enumerate(L.parents):
        kids.setdefault(int(p), []).append(k)
    return kids


@pytest.mark.parametrize("mode", [TEACHING, RELEASE])
def test_cells_tile_their_parent_and_widths_follow_the_released_leaves(panel, mode):
    _load(panel, mode)
    st = panel.state
    L = icicle_layout(st)
    kids = _children(L)
    root = int(np.flatnonzero(L.parents < 0)[0])
    assert (L.x0[root], L.x1[root]) == (0.0, 1.0)
    # the root's size is the sum of the released leaves, computed here independently
    released = [
        np.clip(np.asarray(st.nodes[i].released, float), 0, None).sum()
        for i in st.order
        if st.nodes[i].released is not None
    ]
    assert L.size[root] == pytest.approx(sum(released))
    for p, ch in kids.items():
        if p < 0:
            continue
        ch = np.array(ch)
        assert (L.x1[ch] - L.x0[ch]).sum() == pytest.approx(L.x1[p] - L.x0[p], abs=1e-12)
        assert L.x0[ch].min() == pytest.approx(L.x0[p], abs=1e-12)
        assert np.all(L.x1[ch] > L.x0[ch])  # every child stays visible
        # proportional to the sizes wherever no child is at the floor
        share = (L.x1[ch] - L.x0[ch]) / (L.x1[p] - L.x0[p])
        sizes = L.size[ch]
        if sizes.sum() > 0 and np.all(sizes / sizes.sum() > MIN_SHARE):
            assert share == pytest.approx(sizes / sizes.sum(), rel=1e-9)


def test_an_empty_partition_keeps_a_thin_cell_and_negative_counts_count_as_zero():
    st = TreeState()
    nodes = [
        NodeState(0, -1, "all", 0),
        NodeState(1, 0, "a", 1, released=(30, 10)),
        NodeState(2, 0, "b", 1, released=(0, 0)),
        NodeState(3, 0, "c", 1, noisy=(-5, 20)),
    ]
    for nd in nodes:
        st.nodes[nd.node] = nd
        st.order.append(nd.node)
        st.parent_ids.append(nd.parent)
        st.status.append(RELEASED if nd.released is not None else NOISED if nd.noisy is not None else CREATED)
    L = icicle_layout(st)
    w = L.x1 - L.x0
    assert L.size.tolist() == [60.0, 40.0, 0.0, 20.0]
    assert w[2] > 0 and w[2] == pytest.approx(MIN_SHARE / (1 + MIN_SHARE))
    assert w[1] / w[3] == pytest.approx(2.0)


@pytest.mark.parametrize("mode", [TEACHING, RELEASE])
def test_a_click_on_a_cell_selects_the_node_in_both_views_and_explains_it(panel, qtbot, mode):
    _load(panel, mode)
    ic = panel.icicle
    assert ic.isVisible() and panel.tree.isVisible()
    L = ic._layout()
    d3 = np.flatnonzero(L.depth == 3)
    nid = int(L.ids[d3[np.argmax((L.x1 - L.x0)[d3])]])
    rect = ic.cell_rect(nid)
    qtbot.mouseClick(ic, QtCore.Qt.LeftButton, QtCore.Qt.NoModifier, rect.center().toPoint())
    assert ic.selected == nid and panel.tree.selected == nid and panel._selected == nid
    assert panel.details.text().startswith(f"node {nid} ")
    # and a node picked in the tree is outlined in the icicle, with its path to the root
    other = int(L.ids[np.flatnonzero(L.depth == 5)[0]])
    panel.tree.nodeSelected.emit(other)
    assert ic.selected == other
    assert [int(L.ids[k]) for k in ic.path_positions()] == L.path_to_root(other)
    assert len(ic.path_positions()) == 6


@pytest.mark.parametrize("mode", [TEACHING, RELEASE])
def test_fit_shows_at_least_ten_readable_labels_and_release_shows_no_true_count(panel, qtbot, mode):
    _load(panel, mode)
    qtbot.mouseClick(panel.btn_fit, QtCore.Qt.LeftButton)
    ic = panel.icicle
    ic.grab()  # paints
    assert len(ic.labels_drawn) >= 10
    assert any(t.startswith("all records") for t in ic.labels_drawn)
    if mode == RELEASE:
        st = panel.state
        assert all(st.nodes[i].true_count is None for i in st.order)
    # zooming into a cell shows its subtree across the whole width
    L = ic._layout()
    nid = int(L.ids[np.flatnonzero(L.depth == 2)[0]])
    ic.zoom_to(nid)
    r = ic.cell_rect(nid)
    assert r.left() <= 0.05 * ic.width() and r.right() >= 0.95 * ic.width()
    qtbot.mouseClick(panel.btn_fit, QtCore.Qt.LeftButton)
    assert ic.view == (0.0, 1.0)


def test_the_view_choice_shows_one_or_both(panel):
    _load(panel, TEACHING)
    panel.set_view("Icicle")
    assert panel.icicle.isVisible() and not panel.tree.isVisible()
    panel.set_view("Tree")
    assert panel.tree.isVisible() and not panel.icicle.isVisible()
    assert panel.view_box.accessibleName()
    with pytest.raises(ValueError):
        panel.set_view("Treemap")


def test_stepping_back_right_after_a_paint_does_not_paint_nodes_that_are_gone(panel):
    """The paint reuses a fresh layout for a moment while a replay moves; seen: stepping back (nodes
    removed) within that moment painted removed nodes (KeyError in paintEvent)."""
    _load(panel, TEACHING)
    ic = panel.icicle
    ic.grab()
    for k in (len(panel.replay) // 2, 3, len(panel.replay)):
        panel.seek(k)
        ic.grab()
        L = ic.layout_data
        assert L is None or set(int(i) for i in L.ids) <= set(panel.state.nodes)


def test_a_live_run_draws_the_icicle_when_it_ends(panel):
    """While a run is live the icicle is not laid out (it made the longest GUI stall); it says so, and the
    finished run's icicle is drawn."""
    events, total = sample_runs()[TEACHING]
    panel.begin_live(True, total)
    panel.feed(events[: len(events) // 2])
    panel.tick(1.0)
    assert panel.icicle.waiting
    panel.icicle.grab()
    assert panel.icicle.labels_drawn == []
    panel.feed(events[len(events) // 2 :])
    panel.end_live()
    for _ in range(20000):  # the catch-up is budgeted per tick
        if panel.replay.at_end:
            break
        panel.tick(1.0)
    assert panel.replay.at_end and not panel.icicle.waiting
    panel.icicle.grab()
    assert any(t.startswith("all records") for t in panel.icicle.labels_drawn)
