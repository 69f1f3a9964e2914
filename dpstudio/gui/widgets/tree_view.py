"""Draw a growing tree (DiffGen partitions or interval-tree nodes) with pyqtgraph, fast at thousands of nodes.

Drawing rules that keep a 5,000-node tree under 30 ms per redraw (benchmarks/bench_watch_redraw.py):
- all edges are ONE ``EdgeLayer`` (one pen, one ``drawPath`` of line pairs);
- above ``DEDUPE_MIN`` items, nodes and edges that land on the same device pixels are drawn once (a
  49,000-node tree paints in about a third of the time; what is on screen does not change);
- nodes are drawn by a small palette of ``NodeLayer`` items, one per colour state, each ONE
  ``QPainter.drawPoints`` call with one round-capped cosmetic pen (a brush per node is about 10x slower
  in pyqtgraph; even ``ScatterPlotItem`` with one brush spends ~4 ms per 5,000 points computing per-point
  style keys, which made a 5,000-node redraw 35-60 ms on a loaded machine). Clicks are hit-tested in
  numpy (nearest node within a few pixels);
- text labels only for small trees or when zoomed in (at most ``MAX_LABELS`` visible nodes);
- the layout is cached by the state's ``structure_version`` and recomputed only when nodes appear;
- no OpenGL (offscreen grabs of GL views are blank).

``TreeView.set_state(state)`` stores the latest ``dpstudio.model.watch.replay.TreeState`` and marks the view
dirty; the drawing happens on a ~30 ms ``QTimer`` (or at once with ``redraw()``), so a fast run cannot
flood the event loop.
"""

from __future__ import annotations

import time
from collections.abc import Iterator

import numpy as np
import pyqtgraph as pg
from PySide6 import QtCore, QtGui

from dpstudio.gui.pacing import PACING_DELAY_MS, note_busy, paint_paced, put_off
from dpstudio.model.watch.tree_focus import focus

MAX_LABELS = 80
#: while a run is followed live, labels are placed for at most this long per redraw, most important first
#: (the selected path, the latest step's new partitions, the root): on a tree of tens of thousands of nodes a
#: full placement takes 20-30 ms, which froze the window on every redraw. All are placed when the run is over.
LIVE_LABEL_BUDGET_S = 0.002
#: after a run, all labels are placed in pieces of at most this much work, one per pass of the event loop
LABEL_CHUNK_S = 0.006
#: at most this many visible nodes are tried for a label per redraw (in priority order)
LABEL_TRIES = 300
REDRAW_MS = 30
#: room left below the deepest drawn row by Fit, in pixels (its labels go there)
FIT_LABEL_ROOM_PX = 72
FIT_SIDE_PX = 48
#: room left above the root by Fit, in pixels: a label there crosses no edge
FIT_TOP_PX = 44


def _at_least_one(v: np.ndarray) -> tuple[float, float]:
    """(min, max) of ``v``, widened about its middle to a span of at least 1 (one node, one row)."""
    lo, hi = float(v.min()), float(v.max())
    if hi - lo < 1.0:
        mid = (lo + hi) / 2
        lo, hi = mid - 0.5, mid + 0.5
    return lo, hi


DEDUPE_MIN = 4096
_PIXEL_OFFSET = 1 << 20


def _pixel_keys(transform: QtGui.QTransform, x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """One integer per point: the device pixel it is painted on (affine transforms, |pixel| < 2^20)."""
    px = np.round(transform.m11() * x + transform.m21() * y + transform.dx()).astype(np.int64)
    py = np.round(transform.m12() * x + transform.m22() * y + transform.dy()).astype(np.int64)
    px = np.clip(px, -_PIXEL_OFFSET + 1, _PIXEL_OFFSET - 1) + _PIXEL_OFFSET
    py = np.clip(py, -_PIXEL_OFFSET + 1, _PIXEL_OFFSET - 1) + _PIXEL_OFFSET
    return px * (2 * _PIXEL_OFFSET) + py


def _transform_key(t: QtGui.QTransform) -> tuple:
    return (t.m11(), t.m12(), t.m21(), t.m22(), t.dx(), t.dy())


def _polygon(x: np.ndarray, y: np.ndarray) -> QtGui.QPolygonF:
    poly = pg.functions.create_qpolygonf(x.size)
    if x.size:
        arr = pg.functions.ndarray_from_qpolygonf(poly)
        arr[:, 0] = x
        arr[:, 1] = y
    return poly


# node colour states (index into PALETTE)
from dpstudio.model.numbers import count_text  # noqa: E402
from dpstudio.model.watch.replay import CONSISTENT, CREATED, NOISED, RELEASED  # noqa: E402  (codes 0..3)

WINNER, SELECTED = 4, 5
PALETTE_COLOURS = {
    CREATED: "#b0b0b0",
    NOISED: "#4a7fc1",
    CONSISTENT: "#2e9e5b",
    RELEASED: "#1b6b3a",
    WINNER: "#f0a020",
    SELECTED: "#d62728",
}
GLYPH_COLOUR = "#9a9a9a"
STATE_NAMES = {
    CREATED: "created",
    NOISED: "noised",
    CONSISTENT: "consistent",
    RELEASED: "released leaf",
    WINNER: "last split",
    SELECTED: "selected",
}


class _XYItem(pg.GraphicsObject):
    """Holds x/y data in item coordinates, its bounds, and the cache key of what was last painted."""

    def __init__(self):
        super().__init__()
        self.x = np.zeros(0)
        self.y = np.zeros(0)
        self._rect = QtCore.QRectF()
        self._shown_key = None

    def _set_xy(self, x, y) -> None:
        self.prepareGeometryChange()
        self.x = np.asarray(x, dtype=float)
        self.y = np.asarray(y, dtype=float)
        self._rect = (
            QtCore.QRectF(float(self.x.min()), float(self.y.min()), float(np.ptp(self.x)), float(np.ptp(self.y)))
            if self.x.size
            else QtCore.QRectF()
        )
        self._shown_key = None

    def getData(self):
        return self.x, self.y

    def dataBounds(self, ax, frac=1.0, orthoRange=None):
        if self.x.size == 0:
            return (None, None)
        d = self.x if ax == 0 else self.y
        return (float(d.min()), float(d.max()))


class NodeLayer(_XYItem):
    """Points of one colour drawn with one ``drawPoints`` call (size in pixels, round dots)."""

    def __init__(self, colour: str, size: float = 9.0):
        super().__init__()
        self._pen = QtGui.QPen(QtGui.QColor(colour))
        self._pen.setCosmetic(True)
        self._pen.setCapStyle(QtCore.Qt.RoundCap)
        self._pen.setWidthF(size)
        self._size = size
        self._poly = QtGui.QPolygonF()
        self._shown = self._poly

    def setData(self, x, y, size: float | None = None) -> None:
        self._set_xy(x, y)
        if size is not None and size != self._size:
            self._size = float(size)
            self._pen.setWidthF(self._size)
            # round dots for small trees; squares (much cheaper to rasterise) for large ones
            self._pen.setCapStyle(QtCore.Qt.RoundCap if self._size >= 7 else QtCore.Qt.SquareCap)
        self._poly = _polygon(self.x, self.y)
        self.informViewBoundsChanged()
        self.update()

    def pixelPadding(self) -> float:
        return self._size

    def boundingRect(self) -> QtCore.QRectF:
        if self.x.size == 0:
            return QtCore.QRectF()
        # pad by the dot size in data units so the dots at the edges are repainted
        px = self.pixelVectors()
        pw = abs(px[0].x()) * self._size if px[0] is not None else 0.0
        ph = abs(px[1].y()) * self._size if px[1] is not None else 0.0
        return self._rect.adjusted(-pw - ph, -ph - pw, pw + ph, ph + pw)

    def paint(self, painter, *args) -> None:
        if not self.x.size:
            return
        painter.setPen(self._pen)
        if self.x.size < DEDUPE_MIN:
            painter.drawPoints(self._poly)
            return
        t = painter.transform()
        key = _transform_key(t)
        if key != self._shown_key:
            _, keep = np.unique(_pixel_keys(t, self.x, self.y), return_index=True)
            self._shown = _polygon(self.x[keep], self.y[keep])
            self._shown_key = key
        painter.drawPoints(self._shown)


class EdgeLayer(_XYItem):
    """Line segments (x[2i], y[2i]) - (x[2i+1], y[2i+1]) drawn with one pen in one ``drawPath``."""

    def __init__(self, pen: QtGui.QPen):
        super().__init__()
        self._pen = pen
        self._path = None
        self._shown = None

    def setData(self, x, y) -> None:
        if len(x) % 2:
            raise ValueError("edges come in pairs of points")
        self._set_xy(x, y)
        self._path = None  # built on first paint of a small tree
        self.informViewBoundsChanged()
        self.update()

    def boundingRect(self) -> QtCore.QRectF:
        return self._rect

    def paint(self, painter, *args) -> None:
        if not self.x.size:
            return
        painter.setPen(self._pen)
        if self.x.size < 2 * DEDUPE_MIN:
            if self._path is None:
                self._path = pg.functions.arrayToQPath(self.x, self.y, connect="pairs")
            painter.drawPath(self._path)
            return
        t = painter.transform()
        key = _transform_key(t)
        if key != self._shown_key:
            k = _pixel_keys(t, self.x, self.y)
            start, end = k[0::2], k[1::2]
            order = np.lexsort((end, start))
            first = np.ones(order.size, dtype=bool)
            first[1:] = (start[order][1:] != start[order][:-1]) | (end[order][1:] != end[order][:-1])
            seg = order[first]
            idx = np.empty(2 * seg.size, dtype=np.int64)
            idx[0::2], idx[1::2] = 2 * seg, 2 * seg + 1
            self._shown = pg.functions.arrayToQPath(self.x[idx], self.y[idx], connect="pairs")
            self._shown_key = key
        painter.drawPath(self._shown)


class _LabelJob:
    """One placement of a tree's labels for one view: what is placed so far, and the steps still to run."""

    def __init__(self, key: tuple, view: tuple):
        self.key, self.view = key, view  # view: (x0, x1, y0, y1, width, height)
        self.placed: list[QtCore.QRectF] = []
        self.shown: list = []  # (position, text, rectangle in view pixels)
        self.steps: Iterator[int] = iter(())
        self.started = False  # its later pieces are scheduled (``TreeView._continue_labels``)


def _segments_in_view(ax, ay, bx, by, w: float, h: float) -> tuple:
    """The segments (a, b) in view pixels that reach into the view (w x h)."""
    keep = (np.maximum(ax, bx) >= 0) & (np.minimum(ax, bx) <= w) & (np.maximum(ay, by) >= 0) & (np.minimum(ay, by) <= h)
    return ax[keep], ay[keep], bx[keep], by[keep]


def _covers_points(rect: QtCore.QRectF, x: np.ndarray, y: np.ndarray, radius: float) -> bool:
    """Whether ``rect`` overlaps a dot of ``radius`` pixels centred on any of the points."""
    return bool(
        np.any(
            (x > rect.left() - radius)
            & (x < rect.right() + radius)
            & (y > rect.top() - radius)
            & (y < rect.bottom() + radius)
        )
    )


def _crosses_segments(rect: QtCore.QRectF, ax, ay, bx, by) -> bool:
    """Whether any segment (a, b) passes through ``rect`` (all in view pixels): its bounding box meets the
    rectangle and the rectangle's corners are not all on one side of its line."""
    l, r, t, b = rect.left(), rect.right(), rect.top(), rect.bottom()
    hit = (np.maximum(ax, bx) >= l) & (np.minimum(ax, bx) <= r) & (np.maximum(ay, by) >= t) & (np.minimum(ay, by) <= b)
    if not hit.any():
        return False
    ax, ay, bx, by = ax[hit], ay[hit], bx[hit], by[hit]
    dx, dy = bx - ax, by - ay
    sides = np.stack([dx * (cy - ay) - dy * (cx - ax) for cx, cy in ((l, t), (r, t), (l, b), (r, b))])
    return bool(np.any((sides.min(axis=0) <= 0) & (sides.max(axis=0) >= 0)))


def tree_layout(parents: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Tidy layout of a tree given as a parents array of positions (-1 = root).

    Leaves get consecutive x in depth-first order (children in index order); an internal node sits midway
    between its first and last child; y = -depth. Vectorised level by level (numpy), ~1 ms at 5,000 nodes.
    Returns (x, y) as float arrays.
    """
    from dpstudio.core.consistency import TreeLevels

    par = np.asarray(parents, dtype=np.int64)
    n = par.size
    if n == 0:
        return np.zeros(0), np.zeros(0)
    lv = TreeLevels(par)
    depth = lv.depth
    levels = [np.sort(level) for level in lv.levels]
    leafcnt = lv.is_leaf.astype(np.int64)
    for level in reversed(levels[1:]):
        np.add.at(leafcnt, par[level], leafcnt[level])
    start = np.zeros(n, dtype=np.int64)
    for level in levels[1:]:
        order = level[np.lexsort((level, par[level]))]  # grouped by parent, children in index order
        cnt = leafcnt[order]
        excl = np.cumsum(cnt) - cnt
        p = par[order]
        first = np.ones(order.size, dtype=bool)
        first[1:] = p[1:] != p[:-1]
        group = np.cumsum(first) - 1
        start[order] = start[p] + excl - excl[first][group]
    return _centre_internal(par, lv, levels, start), -depth.astype(float)


def _layout_shown(par: np.ndarray, shown: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``tree_layout`` of the shown nodes only (a glyph is a leaf there, so folded subtrees take no room);
    hidden nodes get nan."""
    if shown.all():
        return tree_layout(par)
    keep = np.flatnonzero(shown)
    new_index = np.full(par.size, -1, dtype=np.int64)
    new_index[keep] = np.arange(keep.size)
    sub_par = np.where(par[keep] >= 0, new_index[np.maximum(par[keep], 0)], -1)
    xs, ys = tree_layout(sub_par)
    x = np.full(par.size, np.nan)
    y = np.full(par.size, np.nan)
    x[keep], y[keep] = xs, ys
    return x, y


def _centre_internal(par, lv, levels, start):
    """x: leaves at their start; internal nodes midway between their first and last child (bottom-up)."""
    n = par.size
    x = start.astype(float)
    lo = np.full(n, np.inf)
    hi = np.full(n, -np.inf)
    for level in reversed(levels):
        inner = level[~lv.is_leaf[level]]
        if inner.size:
            x[inner] = 0.5 * (lo[inner] + hi[inner])
        nonroot = level[par[level] >= 0]
        if nonroot.size:
            np.minimum.at(lo, par[nonroot], x[nonroot])
            np.maximum.at(hi, par[nonroot], x[nonroot])
    return x


def _fmt(value) -> str:
    if value is None:
        return ""
    if isinstance(value, (tuple, list, np.ndarray)):
        vals = list(value)
        # "; " between the classes: a comma already groups the thousands (walk 51: "[112,281.1, 30,334]")
        if len(vals) > 3:
            return f"[{'; '.join(_fmt(v) for v in vals[:3])}; ...]"
        return "[" + "; ".join(_fmt(v) for v in vals) + "]"
    if isinstance(value, (float, np.floating, int, np.integer)):
        return count_text(value)
    return str(value)


def node_text(node, show_true: bool = False, compact: bool = False) -> str:
    """Label of one node: generalized values / interval, published, consistent and noisy counts (true: teaching).

    ``compact``: two short lines, for crowded views: the label and the published count once the run released
    it, else the consistent count once consistency has run, else the noisy one (the others are in the
    node's details, on click).
    """
    if compact:
        shown = next((v for v in (node.released, node.consistent) if v is not None), node.noisy)
        vals = _fmt(shown)
        if show_true and node.true_count is not None:
            vals += f" ({_fmt(node.true_count)})"
        if node.epsilon is not None and vals:  # the node's own count budget (interval trees)
            vals += f"  \u03b5 {node.epsilon:.2g}"
        label = node.label if len(node.label) <= 14 else node.label[:12] + ".."
        return label + ("\n" + vals if vals else "")
    lines = [node.label]
    if node.released is not None:
        lines.append(f"published {_fmt(node.released)}")
    if node.consistent is not None:
        lines.append(f"consistent {_fmt(node.consistent)}")
    if node.noisy is not None:
        lines.append(f"noisy {_fmt(node.noisy)}")
    if node.epsilon is not None:
        lines.append(f"eps {node.epsilon:.3g}")
    if show_true and node.true_count is not None:
        lines.append(f"true {_fmt(node.true_count)}")
    return "\n".join(lines)


class TreeView(pg.PlotWidget):
    """A pan/zoom view of a ``TreeState``; click a node to select it (``nodeSelected(node_id)``)."""

    nodeSelected = QtCore.Signal(int)

    def __init__(self, parent=None):
        super().__init__(parent=parent, background="w")
        self.setMenuEnabled(False)
        self.hideAxis("left")
        self.hideAxis("bottom")
        self.getViewBox().setDefaultPadding(0.05)
        self._edge_pen = pg.mkPen("#7a7a7a", width=1)
        self.edges = EdgeLayer(self._edge_pen)
        self.addItem(self.edges)
        self.brushes = [pg.mkBrush(PALETTE_COLOURS[k]) for k in range(len(PALETTE_COLOURS))]
        self.layers = []
        for k in range(len(PALETTE_COLOURS)):
            item = NodeLayer(PALETTE_COLOURS[k])
            item.setZValue(1 + (k == SELECTED))
            self.addItem(item)
            self.layers.append(item)
        self.glyph_layer = NodeLayer(GLYPH_COLOUR)  # a ring under every node that stands for a hidden subtree
        self.glyph_layer.setZValue(0.5)
        self.addItem(self.glyph_layer)
        self.collapse = True  # focus and context (``model.tree_focus``); False draws every node
        self.expanded: set[int] = set()
        self.opened: set[tuple[int, int]] = set()  # sibling groups opened: (head id, members)
        self.focus = None
        self._focus_key = None
        self._shown = np.zeros(0, dtype=bool)
        self.scene().sigMouseClicked.connect(self._on_scene_click)
        self._labels: list[pg.TextItem] = []
        self._label_font = QtGui.QFont("Sans", 7)
        self._label_key = None
        self._label_job: _LabelJob | None = None
        self._placed_rects: list = []
        self.label_budget_s: float | None = None  # LIVE_LABEL_BUDGET_S while a run is followed live
        self.chunked_labels = False  # place labels in pieces without a budget (``_update_labels``)
        self._labels_due = False  # a redraw's labels are waiting for their own pass (a live run)
        self.state = None
        self.show_true = False
        self.selected: int | None = None
        self._layout_key = None
        self._x = np.zeros(0)
        self._y = np.zeros(0)
        self._ids = np.zeros(0, dtype=np.int64)
        self._dirty = False
        self._auto_fit = True
        self.getViewBox().sigRangeChangedManually.connect(self._on_manual_range)
        self._fitting = False  # Fit sets the range; the redraw that called it places the labels once after
        self.getViewBox().sigRangeChanged.connect(lambda *_: None if self._fitting else self._update_labels())
        self.timer = QtCore.QTimer(self)
        self.timer.setInterval(REDRAW_MS)
        self.timer.timeout.connect(self._tick)
        self.timer.start()
        self.redraw_count = 0
        self._last_redraw_end = 0.0
        self._last_redraw_cost = 0.0
        self._last_paint_cost = 0.0
        self._pending: dict | None = None  # a live run's layout prepared by ``_tick``, drawn in a later pass
        self._prepare_cost = 0.0

    # -- public API ---------------------------------------------------------------------------------
    def set_state(self, state) -> None:
        """Keep the latest state; the next timer tick (<= 30 ms) draws it."""
        self.state = state
        self._dirty = True

    def set_show_true(self, show: bool) -> None:
        """Overlay true counts in labels (teaching mode only: release streams carry none)."""
        self.show_true = bool(show)
        self._dirty = True

    def fit(self) -> None:
        """Zoom to show the whole tree and follow its growth again."""
        self._auto_fit = True
        if self._x.size:
            self._fit()
            self._update_labels()

    def select(self, node_id: int | None) -> None:
        self.selected = node_id
        self._dirty = True

    def positions(self) -> dict[int, tuple[float, float]]:
        """Drawn position of every drawn node id (after the last redraw; nodes folded into a glyph are not
        drawn)."""
        return {int(i): (float(a), float(b)) for i, a, b, s in zip(self._ids, self._x, self._y, self._shown) if s}

    def is_glyph(self, node_id: int) -> bool:
        """Whether the node is drawn for its hidden subtree (a click expands it)."""
        st = self.state
        if self.focus is None or st is None or node_id not in st.index:
            return False
        k = st.index[node_id]
        return k < self.focus.glyph.size and bool(self.focus.glyph[k])

    def is_group(self, node_id: int) -> bool:
        """Whether the node is drawn as the first of a group of siblings (a click opens the group)."""
        st = self.state
        if self.focus is None or st is None or node_id not in st.index:
            return False
        k = st.index[node_id]
        return k < self.focus.group_size.size and self.focus.is_group(k)

    def expand(self, node_id: int) -> None:
        """Show the children of ``node_id`` (they may be glyphs in turn)."""
        self.expanded.add(int(node_id))
        self._dirty = True

    def open_group(self, node_id: int) -> None:
        """Draw the members of the sibling group ``node_id`` heads (grouped again if still too many)."""
        k = self.state.index[node_id]
        self.opened.add((int(node_id), int(self.focus.group_size[k])))
        self._dirty = True

    def collapse_all(self) -> None:
        """Fold every expanded subtree back into its glyph and every opened group back into its head."""
        self.expanded.clear()
        self.opened.clear()
        self._dirty = True

    def glyph_texts(self) -> dict[int, str]:
        """node id -> the words of its glyph or group, for every ringed node drawn."""
        if self.focus is None:
            return {}
        return {int(self._ids[i]): self._focus_label(i) for i in np.flatnonzero(self.focus.ringed)}

    def _focus_label(self, i: int) -> str:
        st, f = self.state, self.focus
        last = int(f.group_last[i])
        node = st.nodes[int(self._ids[i])]
        last_label = st.nodes[int(self._ids[last])].label if last >= 0 else ""
        return f.label(i, node.label, last_label, ranges="lo" in node.info)

    def colour_states(self) -> np.ndarray:
        """Palette index of every drawn node, aligned with the state's creation order."""
        return self._states.copy() if hasattr(self, "_states") else np.zeros(0, dtype=np.int64)

    def redraw(self) -> None:
        """Draw the current state now (a placement of labels under way is dropped: its nodes may be gone; a
        layout waiting for its own pass, ``_tick``, is dropped too: this one is newer)."""
        self._pending = None
        self._draw(self._prepare())

    def _prepare(self) -> dict:
        """What ``_draw`` needs of the current state that is long to work out: the layout (under "layout"),
        when the tree's structure, the focus or the selection changed since the one drawn (else None there:
        the drawn layout holds), and every node's colour state, aligned with that layout (under "states");
        ``{"empty": True}`` for no tree. Reads the state; draws nothing."""
        self._dirty = False
        st = self.state
        if st is None or st.n_nodes == 0:
            return {"empty": True}
        key = (id(st), st.structure_version, st.n_nodes)
        focus_key = (
            key,
            self.selected if self.collapse else None,
            frozenset(self.expanded),
            frozenset(self.opened),
            self.collapse,
            st.winner is not None and st.position,
        )
        if key == self._layout_key and focus_key == self._focus_key:
            return {"empty": False, "layout": None, "states": self._node_states(st)}
        ids, par = st.parents_array()
        if self.collapse:
            found = focus(st, self.selected, self.expanded, opened=self.opened)
            shown = found.shown
        else:
            found = None
            shown = np.ones(ids.size, dtype=bool)
        x, y = _layout_shown(par, shown)
        nonroot = np.flatnonzero((par >= 0) & shown)
        ex = np.empty(2 * nonroot.size)
        ey = np.empty(2 * nonroot.size)
        ex[0::2], ex[1::2] = x[par[nonroot]], x[nonroot]
        ey[0::2], ey[1::2] = y[par[nonroot]], y[nonroot]
        layout = {"key": key, "focus_key": focus_key, "ids": ids, "par": par, "focus": found, "shown": shown}
        layout.update(x=x, y=y, ex=ex, ey=ey)
        return {"empty": False, "layout": layout, "states": self._node_states(st)}

    def _draw(self, prepared: dict) -> None:
        """Put a ``_prepare``'s result on the plot's items (and fit the view, place the labels)."""
        self._label_job = None
        self.redraw_count += 1
        if prepared["empty"]:
            self.edges.setData([], [])
            for item in (*self.layers, self.glyph_layer):  # the rings of folded subtrees too
                item.setData([], [])
            self._ids = np.zeros(0, dtype=np.int64)
            self._x = self._y = np.zeros(0)
            self._states = np.zeros(0, dtype=np.int64)
            self._update_labels()
            return
        layout = prepared["layout"]
        relayout = False
        if layout is not None:
            self._ids, self._par, self.focus, self._shown = (
                layout["ids"],
                layout["par"],
                layout["focus"],
                layout["shown"],
            )
            self._x, self._y = layout["x"], layout["y"]
            self._layout_key, self._focus_key = layout["key"], layout["focus_key"]
            self.edges.setData(layout["ex"], layout["ey"])
            relayout = layout["key"] != getattr(self, "_fitted_key", None)
            self._fitted_key = layout["key"]
        states = prepared["states"]
        self._states = states
        size = self._sizes(int(self._shown.sum()))
        partial = self.focus is not None and not self._shown.all()
        for k, item in enumerate(self.layers):
            sel = (states == k) & self._shown if partial else states == k
            item.setData(self._x[sel], self._y[sel], size=size)
        glyphs = np.flatnonzero(self.focus.ringed) if self.focus is not None else np.zeros(0, dtype=np.int64)
        self.glyph_layer.setData(self._x[glyphs], self._y[glyphs], size=size + 8)
        if relayout and self._auto_fit:
            self._fit()
        if self.label_budget_s is None:
            self._update_labels()
        elif not self._labels_due:  # a live run: the labels in a pass of the event loop of their own
            self._labels_due = True
            QtCore.QTimer.singleShot(PACING_DELAY_MS, self, self._labels_pass)

    # -- internals ----------------------------------------------------------------------------------
    def _fit(self) -> None:
        """Every drawn node in view, with room below the deepest row and above the root for labels."""
        shown = self._shown if self._shown.size == self._x.size else np.ones(self._x.size, dtype=bool)
        if not shown.any():
            return
        vb = self.getViewBox()
        (x0, x1), (y0, y1) = (_at_least_one(self._x[shown]), _at_least_one(self._y[shown]))
        side = min(FIT_SIDE_PX / max(vb.width(), 1.0), 0.25)  # half a label's width on each side
        dx = (x1 - x0) * side / (1 - 2 * side)
        span = (y1 - y0) * 1.05
        share = min(FIT_LABEL_ROOM_PX / max(vb.height(), 1.0), 0.4)  # of the view's height, for the labels
        top = min(FIT_TOP_PX / max(vb.height(), 1.0), 0.2)  # above the root: its label, clear of its edges
        whole = span / (1 - share - top)
        self._fitting = True
        try:
            vb.setRange(xRange=(x0 - dx, x1 + dx), yRange=(y0 - whole * share, y1 + whole * top), padding=0)
        finally:
            self._fitting = False

    @staticmethod
    def _sizes(n: int) -> float:
        return 11 if n < 200 else (7 if n < 2000 else (5 if n < 10000 else 3))

    def _node_states(self, st) -> np.ndarray:
        nodes = st.nodes
        order = st.order
        out = np.asarray(st.status, dtype=np.int64).copy()  # CREATED..RELEASED kept by the replay
        if st.winner is not None and order:
            # highlight the partitions the last chosen specialization created (until they are noised)
            last_parent = nodes[order[-1]].parent
            if last_parent >= 0:
                par = np.asarray(st.parent_ids, dtype=np.int64)
                out[(out == CREATED) & (par == last_parent)] = WINNER
        if self.selected is not None and self.selected in st.index:
            out[st.index[self.selected]] = SELECTED
        return out

    def _tick(self) -> None:
        # adaptive: a redraw whose update + paint cost c is not repeated within 3c (huge trees leave the
        # GUI thread time for everything else)
        cost = self._last_redraw_cost + self._last_paint_cost
        now = time.perf_counter()
        if self._pending is None and self._dirty and now - self._last_redraw_end >= 3 * cost:
            # other long work (the Watch applying events) ended just now in this pass of the event loop:
            # redraw a little later, so input and paint events get in between the two
            if put_off(self, "redraw", self._tick):
                return
            t = time.perf_counter()
            prepared = self._prepare()
            if self.label_budget_s is not None and prepared.get("layout") is not None:
                # a live run's new layout (the focus and the tidy layout: most of a redraw of a large tree)
                # goes on the plot, and is painted, in a later pass of its own: the two made one gap
                self._pending = prepared
                self._prepare_cost = time.perf_counter() - t
                note_busy()
                QtCore.QTimer.singleShot(PACING_DELAY_MS, self, self._draw_pending)
                return
            self._draw(prepared)
            self._last_redraw_end = time.perf_counter()
            self._last_redraw_cost = self._last_redraw_end - t
            note_busy()

    def _draw_pending(self) -> None:
        """Draw the layout ``_tick`` prepared in an earlier pass, unless a ``redraw`` has drawn a newer one."""
        if self._pending is None or put_off(self, "draw", self._draw_pending):
            return
        prepared, self._pending = self._pending, None
        t = time.perf_counter()
        self._draw(prepared)
        self._last_redraw_end = time.perf_counter()
        self._last_redraw_cost = self._prepare_cost + self._last_redraw_end - t
        note_busy()

    def paintEvent(self, ev) -> None:
        self._last_paint_cost = paint_paced(super().paintEvent, ev)

    def node_at(self, view_x: float, view_y: float, radius_px: float = 8.0) -> int | None:
        """Id of the node nearest to a point in view coordinates, within ``radius_px`` pixels."""
        if self._x.size == 0:
            return None
        vb = self.getViewBox()
        (x0, x1), (y0, y1) = vb.viewRange()
        sx = vb.width() / max(x1 - x0, 1e-12)
        sy = vb.height() / max(y1 - y0, 1e-12)
        d2 = ((self._x - view_x) * sx) ** 2 + ((self._y - view_y) * sy) ** 2
        d2 = np.where(self._shown, d2, np.inf) if self._shown.size == d2.size else d2
        i = int(np.argmin(d2))
        return int(self._ids[i]) if d2[i] <= radius_px**2 else None

    def _on_scene_click(self, ev) -> None:
        vb = self.getViewBox()
        if not vb.sceneBoundingRect().contains(ev.scenePos()):
            return
        p = vb.mapSceneToView(ev.scenePos())
        nid = self.node_at(p.x(), p.y())
        if nid is not None:
            if self.is_group(nid):
                self.open_group(nid)
            elif self.is_glyph(nid):
                self.expand(nid)
            self.select(nid)
            self.nodeSelected.emit(nid)

    def _on_manual_range(self, *args) -> None:
        self._auto_fit = False

    def _label_candidates(self, st, vis: np.ndarray) -> np.ndarray:
        """Visible node positions in labelling order: the selected node and its path to the root, the
        latest step's new partitions, the root, the deepest row, then level by level (left to right)."""
        first = np.zeros(self._x.size, dtype=bool)
        if self.selected is not None and self.selected in st.index:
            i = st.index[self.selected]
            while i >= 0 and not first[i]:
                first[i] = True
                i = int(self._par[i])
        if hasattr(self, "_states") and self._states.size == first.size:
            first |= self._states == WINNER
        depth = -self._y[vis]
        # the root, then the deepest row (Fit leaves room under it, where no edge runs), then level by level
        rank = (
            np.where(depth <= depth.min(), 0.0, np.where(depth >= depth.max(), 1.0, 2.0 + depth)) if vis.size else depth
        )
        order = np.lexsort((self._x[vis], rank, ~first[vis]))
        return vis[order[:LABEL_TRIES]]

    def _update_labels(self, chunked: bool | None = None) -> None:
        """Labels wherever they fit: candidates in ``_label_candidates`` order, each placed below its node
        unless it would overlap a label already placed or leave the view (at most ``MAX_LABELS``).

        Within ``label_budget_s`` when one is set (the most important label is always placed). Without
        one, ``chunked`` (default ``chunked_labels``) places them ``LABEL_CHUNK_S`` of work per pass of the
        event loop: the first piece is shown at once, all of them when the last piece is done (a full
        placement on a tree of tens of thousands of nodes takes 30-40 ms)."""
        job = self._label_job_for_view()
        if job is None:
            return
        budget = self.label_budget_s
        chunk = budget is None and (self.chunked_labels if chunked is None else chunked)
        if chunk:
            if not job.started:  # else this placement goes on in its own passes
                self._place_piece(job)
            return
        deadline = None if budget is None else time.perf_counter() + budget
        for n_shown in job.steps:
            if deadline is not None and n_shown and time.perf_counter() > deadline:
                break
        self._show_labels(job)

    def _place_piece(self, job: _LabelJob) -> None:
        """Up to ``LABEL_CHUNK_S`` more of ``job`` (at least one label): all of it shown when it is done,
        else the labels so far, and the next piece in a later pass of the event loop."""
        deadline = time.perf_counter() + LABEL_CHUNK_S
        for n_shown in job.steps:
            if n_shown and time.perf_counter() > deadline:
                job.started = True
                self._show_labels(job, final=False)  # the text items are laid out a few at a time
                QtCore.QTimer.singleShot(PACING_DELAY_MS, self, lambda: self._continue_labels(job))
                return
        self._show_labels(job)

    def _labels_pass(self) -> None:
        """The labels of the last redraw while a run is followed (none in a pass where other long work
        ended, unless they have waited ``MAX_WAIT_S``)."""
        if put_off(self, "labels", self._labels_pass):
            return
        self._labels_due = False
        self._update_labels()
        note_busy()

    def place_all_labels(self) -> None:
        """Place every label that fits, now (after a live run: the budget is lifted)."""
        self.label_budget_s = None
        self._update_labels(chunked=False)

    def place_all_labels_later(self) -> None:
        """Place every label that fits, a piece per pass of the event loop (``_update_labels``), the first
        piece too in a pass where no other long work ended."""
        if put_off(self, "all labels", self.place_all_labels_later):
            return
        self.label_budget_s = None
        self._update_labels(chunked=True)
        note_busy()

    def _continue_labels(self, job: _LabelJob) -> None:
        if self._label_job is not job:
            return  # a newer placement took over
        st = self.state
        if st is None or job.key[6:9] != (id(st), st.position, self._layout_key):
            self._label_job = None  # another state or layout since (a new run): its nodes may be gone
            return
        if put_off(self, "labels piece", lambda: self._continue_labels(job)):
            return
        self._place_piece(job)
        note_busy()

    def labels_pending(self) -> bool:
        """Whether a placement of labels in several passes is under way (``_update_labels``)."""
        return self._label_job is not None

    def _label_job_for_view(self) -> _LabelJob | None:
        """The placement of the labels of the current state and view (the one under way, if any), or None
        when the labels shown already are that placement or there is nothing to label (then none is
        shown)."""
        st = self.state
        # labels only for the state the layout was made for (a range change may come before the redraw)
        if st is None or self._x.size == 0 or self._layout_key != (id(st), st.structure_version, st.n_nodes):
            self._label_job = None
            self._label_rects = []
            for t in self._labels:
                t.setVisible(False)
            self._label_key = None
            return None
        vb = self.getViewBox()
        (x0, x1), (y0, y1) = vb.viewRange()
        w, h = vb.width(), vb.height()
        key = (x0, x1, y0, y1, w, h, id(st), st.position, self._layout_key, self.selected, self.show_true)
        key += (self.label_budget_s,)
        if key == self._label_key:
            return None  # the same view of the same state: the labels placed last time stand
        if self._label_job is not None and self._label_job.key == key:
            return self._label_job  # being placed in pieces: the rest of it
        job = _LabelJob(key, (x0, x1, y0, y1, w, h))
        job.steps = self._placement(st, job)
        self._label_job = job
        return job

    def _placement(self, st, job: _LabelJob):
        """Place the labels one candidate at a time into ``job`` (a generator: yields the number placed)."""
        x0, x1, y0, y1, w, h = job.view
        sx, sy = w / max(x1 - x0, 1e-12), h / max(y1 - y0, 1e-12)
        inside = (self._x >= x0) & (self._x <= x1) & (self._y >= y0) & (self._y <= y1)
        vis = np.flatnonzero(inside & self._shown if self._shown.size == inside.size else inside)
        metrics = QtGui.QFontMetricsF(self._label_font)
        placed, shown = job.placed, job.shown
        # what a label may not cover, in view pixels: the drawn dots and rings, and the edges
        shown_nodes = np.flatnonzero(self._shown) if self._shown.size == self._x.size else np.arange(self._x.size)
        nx, ny = (self._x[shown_nodes] - x0) * sx, (y1 - self._y[shown_nodes]) * sy
        near = (nx > -50) & (nx < w + 50) & (ny > -50) & (ny < h + 50)
        nx, ny = nx[near], ny[near]
        radius = self._sizes(int(shown_nodes.size)) / 2 + 4  # a dot, or the ring around a folded subtree
        ex, ey = (self.edges.x - x0) * sx, (y1 - self.edges.y) * sy
        segments = _segments_in_view(ex[0::2], ey[0::2], ex[1::2], ey[1::2], w, h)
        for i in self._label_candidates(st, vis).tolist():
            nd = st.nodes[int(self._ids[i])]
            if self.focus is not None and self.focus.is_group(i):  # the group's words stand for its members
                text = self._focus_label(i)
            else:
                text = node_text(nd, self.show_true, compact=True)
                if self.focus is not None and self.focus.glyph[i]:
                    text += "\n" + self._focus_label(i)
            lines = text.split("\n")
            tw = max(metrics.horizontalAdvance(line) for line in lines) + 8  # the text item's margins
            th = metrics.lineSpacing() * len(lines) + 8
            px, py = (self._x[i] - x0) * sx, (y1 - self._y[i]) * sy
            gap = radius + 2
            for left, top in (  # around its node, below first: the first place that is clear
                (px - tw / 2, py + gap),
                (px + gap, py - th / 2),
                (px - gap - tw, py - th / 2),
                (px - tw / 2, py - gap - th),
                (px + gap, py + gap),
                (px - gap - tw, py + gap),
                (px + gap, py - gap - th),
                (px - gap - tw, py - gap - th),
                (px - tw / 2, py + gap + th + 2),  # a second row under a leaf (Fit leaves room for two)
            ):
                rect = QtCore.QRectF(left, top, tw, th)
                if rect.left() < 0 or rect.top() < 0 or rect.right() > w or rect.bottom() > h:
                    continue
                if any(rect.intersects(r) for r in placed) or _covers_points(rect, nx, ny, radius):
                    continue
                if _crosses_segments(rect, *segments):
                    continue
                placed.append(rect)
                shown.append((i, text, rect))
                break
            if len(shown) >= MAX_LABELS:
                return
            yield len(shown)

    def _show_labels(self, job: _LabelJob, final: bool = True) -> None:
        """Put the text items where ``job`` placed its labels (and hide the rest); ``final=False``: the
        labels placed so far, while the placement goes on."""
        x0, x1, y0, y1, w, h = job.view
        sx, sy = w / max(x1 - x0, 1e-12), h / max(y1 - y0, 1e-12)
        shown = job.shown
        while len(self._labels) < len(shown):
            # a light backing keeps the words readable where the edges to the children cross them
            t = pg.TextItem(color="#202020", anchor=(0.0, 0.0), fill=pg.mkBrush(255, 255, 255, 215))
            t.setFont(self._label_font)
            self.addItem(t)
            self._labels.append(t)
        for t, (_i, text, rect) in zip(self._labels, shown):
            if getattr(t, "_shown_text", None) != text:  # laying out a text item is the costly part
                t.setText(text)
                t._shown_text = text
            t.setPos(x0 + rect.left() / sx, y1 - rect.top() / sy)  # the rectangle's top left corner
            t.setVisible(True)
        for t in self._labels[len(shown) :]:
            t.setVisible(False)
        self._label_rects = list(job.placed)
        if final:
            self._label_key = job.key
            self._placed_rects = self._label_rects
            if self._label_job is job:
                self._label_job = None

    def label_rects(self) -> list:
        """The view-pixel rectangles of the labels shown (none overlap; all inside the view)."""
        return list(getattr(self, "_label_rects", []))

    def visible_label_count(self) -> int:
        return sum(1 for t in self._labels if t.isVisible())
