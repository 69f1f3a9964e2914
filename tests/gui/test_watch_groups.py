"""Wide interval trees in the Watch: a LUEDPTree over the sample's 74 ages and a flat histogram over 4,096
bins draw a readable top (at most MAX_SIBLINGS children side by side, the rest grouped into ringed runs that
state their members and released total), a click opens a group, and each node shows its own count budget."""

import numpy as np
import pytest
from PySide6 import QtCore, QtWidgets

from dpstudio.algorithms.interval_trees import IntervalTreeParams, run_interval_tree
from dpstudio.core.budget import Ledger
from dpstudio.core.noise import SimulationNoise
from dpstudio.model.watch.icicle_layout import released_value
from dpstudio.model.watch.tree_focus import MAX_SIBLINGS, group_text
from tests.gui.test_watch_panel import panel  # noqa: F401  (the Watch panel fixture, shown)


def _run(panel, algorithm, bins, teaching=True, seed=3):
    counts = np.random.default_rng(seed).poisson(40, bins)
    edges = tuple(float(e) for e in np.arange(17, 17 + bins + 1))
    params = IntervalTreeParams(algorithm, 1, bins if algorithm == "luedp" else None, edges=edges)
    events = list(run_interval_tree(counts, params, SimulationNoise(seed), Ledger(1), teaching=teaching))
    panel.load_events(events, teaching=teaching, epsilon=1.0)
    panel.seek_end()
    panel.tree.redraw()
    QtWidgets.QApplication.processEvents()  # the view takes its fitted range
    panel.tree._update_labels()
    return panel.state


def _click(qtbot, tree, nid):
    x, y = tree.positions()[nid]
    scene = tree.getViewBox().mapViewToScene(QtCore.QPointF(x, y))
    qtbot.mouseClick(tree.viewport(), QtCore.Qt.LeftButton, QtCore.Qt.NoModifier, tree.mapFromScene(scene))
    tree.redraw()


@pytest.mark.parametrize("algorithm, bins", [("luedp", 74), ("flat", 4096)])
def test_a_wide_family_is_drawn_as_groups_with_their_released_totals(panel, algorithm, bins):
    st = _run(panel, algorithm, bins)
    tree = panel.tree
    root = st.order[0]
    kids = [i for i in st.order if st.nodes[i].parent == root]
    assert len(kids) == bins  # one root over every bin
    drawn_kids = [k for k in kids if k in tree.positions()]
    assert len(drawn_kids) <= MAX_SIBLINGS
    texts = tree.glyph_texts()
    heads = [k for k in drawn_kids if tree.is_group(k)]
    assert heads and set(heads) <= set(texts)
    covered = []
    for h in heads:  # each group: consecutive siblings, words and total computed here from the nodes
        k = int(tree.focus.group_size[st.index[h]])
        members = kids[kids.index(h) : kids.index(h) + k]
        covered += members
        total = sum(released_value(st.nodes[m]) for m in members)
        assert texts[h] == group_text(k, st.nodes[h].label, st.nodes[members[-1]].label, total, ranges=True)
        lo, hi = st.nodes[h].info["lo"], st.nodes[members[-1]].info["hi"]
        assert texts[h].startswith(f"[{17 + lo},{17 + hi})\n{k} ranges\ntotal ")  # bins' public edges
    assert sorted(covered + [k for k in drawn_kids if k not in heads]) == sorted(kids)  # nothing lost
    labels = [t.textItem.toPlainText() for t in tree._labels if t.isVisible()]
    assert len(labels) >= 8 and sum(" ranges\ntotal " in t for t in labels) >= 7


def test_a_click_on_a_group_opens_it_and_regroups_what_is_still_too_wide(panel, qtbot):
    st = _run(panel, "flat", 4096)
    tree = panel.tree
    root = st.order[0]
    kids = [i for i in st.order if st.nodes[i].parent == root]
    head = kids[0]
    size = int(tree.focus.group_size[st.index[head]])
    _click(qtbot, tree, head)
    assert (head, size) in tree.opened and panel._selected == head
    members = kids[:size]
    drawn = [m for m in members if m in tree.positions()]
    assert MAX_SIBLINGS // 2 <= len(drawn) <= MAX_SIBLINGS and tree.is_group(head)  # 512 -> groups of 64
    for _ in range(4):  # open down to single bins
        if not tree.is_group(head):
            break
        _click(qtbot, tree, head)
    assert not tree.is_group(head) and all(m in tree.positions() for m in kids[:2])
    tree.collapse_all()
    tree.redraw()
    assert len([k for k in kids if k in tree.positions()]) <= MAX_SIBLINGS


def test_each_interval_node_shows_its_count_budget_and_release_mode_no_true_count(panel):
    st = _run(panel, "luedp", 74, teaching=False)
    tree = panel.tree
    assert all(st.nodes[i].true_count is None for i in st.order)
    labels = [t.textItem.toPlainText() for t in tree._labels if t.isVisible()]
    with_budget = [t for t in labels if "\u03b5" in t]
    assert with_budget  # LUEDPTree's per-node budgets are drawn beside the noisy counts
    eps = {f"{st.nodes[i].epsilon:.2g}" for i in st.order if st.nodes[i].epsilon is not None}
    assert all(t.split("\u03b5 ")[1].split()[0] in eps for t in with_budget)
    assert not any("true" in t for t in labels)


def test_the_icicle_of_4096_bins_draws_its_leaf_row(panel):
    """Each of the 4,096 leaves is far thinner than a pixel: their row is drawn as a band of their colour
    across the whole width, not left white."""
    _run(panel, "flat", 4096)
    panel.set_view("Both")
    panel.views.setSizes([300, 300])
    QtWidgets.QApplication.processEvents()
    ice = panel.icicle
    img = ice.grab().toImage()
    L = ice._layout()
    rh = ice._row_height(L)
    y = int(1.5 * rh)  # the middle of the leaf row (depth 1)
    row = [img.pixelColor(x, y) for x in range(2, img.width() - 2)]
    coloured = sum(1 for c in row if (c.red(), c.green(), c.blue()) != (255, 255, 255))
    assert coloured >= 0.95 * len(row)
