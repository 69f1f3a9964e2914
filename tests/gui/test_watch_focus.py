"""Focus and context in the Watch tree: on the studio's own h = 10 sample runs the deep levels fold into
glyphs that say how many partitions they hold and their released total, a click expands one, the selected
path stays drawn, and release mode's glyphs hold no true count."""

import numpy as np
import pytest
from PySide6 import QtCore

from dpstudio.model.project.project import RELEASE, TEACHING
from dpstudio.model.watch.icicle_layout import released_value
from dpstudio.model.watch.tree_focus import MAX_SHOWN, depth_limit, focus, glyph_text
from tests.gui.sample_runs import sample_runs
from tests.gui.test_watch_panel import panel  # noqa: F401  (the Watch panel fixture, shown)


def _load(panel, mode):
    events, total = sample_runs()[mode]
    panel.load_events(events, teaching=mode == TEACHING, epsilon=total)
    panel.seek_end()
    panel.tree.redraw()
    return panel.state


def _subtree(st, nid):
    kids = {}
    for i in st.order:
        kids.setdefault(st.nodes[i].parent, []).append(i)
    out, stack = [], [nid]
    while stack:
        v = stack.pop()
        out.append(v)
        stack += kids.get(v, [])
    return out, kids


@pytest.mark.parametrize("mode", [TEACHING, RELEASE])
def test_deep_levels_fold_into_glyphs_with_their_partitions_and_released_total(panel, mode):
    st = _load(panel, mode)
    tree = panel.tree
    drawn = tree.positions()
    assert len(drawn) <= MAX_SHOWN + 50 < st.n_nodes  # no grey slab: the deep levels are folded
    glyphs = tree.glyph_texts()
    assert glyphs
    nid, text = next(iter(glyphs.items()))
    members, kids = _subtree(st, nid)
    leaves = [v for v in members if v not in kids]
    total = sum(released_value(st.nodes[v]) or 0 for v in leaves)  # computed here, independently
    assert text == glyph_text(len(leaves), total)
    if mode == RELEASE:
        assert all(st.nodes[v].true_count is None for v in members)
    # the glyph's words are in its label when it has one
    labels = [t.textItem.toPlainText() for t in tree._labels if t.isVisible()]
    assert any("partitions" in t for t in labels) or len(labels) >= 10


def test_a_click_on_a_glyph_expands_it_and_the_selected_path_stays_drawn(panel, qtbot):
    st = _load(panel, TEACHING)
    tree = panel.tree
    nid = next(iter(tree.glyph_texts()))
    before = len(tree.positions())
    x, y = tree.positions()[nid]
    vb = tree.getViewBox()
    scene = vb.mapViewToScene(QtCore.QPointF(x, y))
    point = tree.mapFromScene(scene)
    qtbot.mouseClick(tree.viewport(), QtCore.Qt.LeftButton, QtCore.Qt.NoModifier, point)
    tree.redraw()
    assert nid in tree.expanded and panel._selected == nid
    children = [i for i in st.order if st.nodes[i].parent == nid]
    assert children and all(c in tree.positions() for c in children)
    assert len(tree.positions()) > before
    # a deep node picked elsewhere (the icicle) is drawn with its path to the root
    deep = max(st.order, key=lambda i: st.nodes[i].depth)
    tree.select(deep)
    tree.redraw()
    v = deep
    while v >= 0:
        assert v in tree.positions()
        v = st.nodes[v].parent
    tree.collapse_all()
    tree.redraw()
    assert nid not in tree.expanded


def test_focus_rule_on_a_small_tree():
    from dpstudio.model.watch.replay import CREATED, RELEASED, NodeState, TreeState

    st = TreeState()
    parents = [-1, 0, 0, 1, 1, 2, 2, 3, 3]
    for i, p in enumerate(parents):
        depth = 0 if p < 0 else st.nodes[p].depth + 1
        st.nodes[i] = NodeState(i, p, f"n{i}", depth, released=(i,) if i in (4, 5, 6, 7, 8) else None)
        st.order.append(i)
        st.parent_ids.append(p)
        st.status.append(RELEASED if st.nodes[i].released is not None else CREATED)
        st.index[i] = i
    assert depth_limit(np.array([0, 1, 1, 2, 2, 2, 2, 3, 3]), 3) == 1
    f = focus(st, max_shown=3)
    assert f.shown.tolist() == [True, True, True] + [False] * 6
    assert f.glyph.tolist() == [False, True, True] + [False] * 6
    assert f.label(1) == glyph_text(3, 4 + 7 + 8) and f.label(2) == glyph_text(2, 11)
    f = focus(st, selected=7, max_shown=3)  # the path 0-1-3-7 is drawn; 3 keeps a hidden child (8)
    assert np.flatnonzero(f.shown).tolist() == [0, 1, 2, 3, 7] and f.glyph[3] and f.glyph[1]
    f = focus(st, expanded={1}, max_shown=3)
    assert np.flatnonzero(f.shown).tolist() == [0, 1, 2, 3, 4] and not f.glyph[1] and f.glyph[3]
